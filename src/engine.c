#include "engine.h"

#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

const char *ps_engine_ran(const ps_engine_info_t *in)
{
    if (in->kind == PS_ENGINE_CPU) return "cpu";
    if (in->kind == PS_ENGINE_GPU) return "gpu";
    /* A start still awaited: the GPU is what the chunks wait for. */
    return in->chunks_gpu || (in->waits && !in->gpu_error[0]) ? "gpu" : "cpu";
}

void ps_engine_describe(const ps_engine_info_t *in, int threads, char *buf, size_t len)
{
    char gpu[320], ids[96];
    /* Several GPUs: their numbers, and the first one's name (a host's GPUs
     * are of one kind in practice). */
    size_t at = (size_t)snprintf(ids, sizeof ids, "%d", in->n_gpus > 1 ? in->gpu[0].id : in->gpu_id);
    for (int i = 1; i < in->n_gpus && at < sizeof ids; i++)
        at += (size_t)snprintf(ids + at, sizeof ids - at, ",%d", in->gpu[i].id);
    snprintf(gpu, sizeof gpu, "GPU%s %s: %.80s (%d SMs, %.0f GiB%s), kernel %s%s", in->n_gpus > 1 ? "s" : "", ids,
             in->gpu_name, in->gpu_sms, in->gpu_mem_gib, in->n_gpus > 1 ? " each" : "", in->kernel,
             in->kmer_path ? " (k-mer lookups)" : "");
    switch (in->kind) {
    case PS_ENGINE_CPU:
        snprintf(buf, len, "CPU, %d thread%s%s", threads, threads == 1 ? "" : "s", in->kmer_set ? ", k-mer set" : "");
        break;
    case PS_ENGINE_GPU:
        snprintf(buf, len, "%s%s", gpu, in->split ? "; CPU threads for the patterns it does not take" : "");
        break;
    case PS_ENGINE_AUTO:
        if (in->gpu_started)
            snprintf(buf, len, "%s; CPU while it started: %llu of %llu chunks", gpu,
                     (unsigned long long)in->chunks_cpu, (unsigned long long)(in->chunks_cpu + in->chunks_gpu));
        else if (in->gpu_error[0])
            snprintf(buf, len, "CPU, %d threads (the GPU did not start: %.100s)", threads, in->gpu_error);
        else if (in->waits)
            snprintf(buf, len, "GPU %d, starting while the input is read", in->gpu_id);
        else
            snprintf(buf, len, "GPU %d, starting; CPU, %d threads meanwhile", in->gpu_id, threads);
        break;
    }
}

void ps_counts_drain(uint64_t *into, uint64_t *from, size_t n)
{
    const uintptr_t page = 4096;
    for (size_t i = 0; i < n;) {
        /* To the end of from's page (or of from), so that a run of whole
         * pages can be given back. */
        const uintptr_t at = (uintptr_t)(from + i), end = (at | (page - 1)) + 1;
        size_t m = (end - at) / sizeof *from;
        if (m == 0 || m > n - i) m = n - i;
        uint64_t any = 0;
        for (size_t j = 0; j < m; j++) any |= from[i + j];
        if (any) {
            for (size_t j = 0; j < m; j++) into[i + j] += from[i + j];
            /* A whole page is given back, not cleared: a private anonymous
             * page reads as zeros after MADV_DONTNEED, and its memory goes
             * while into's pages fill, so the two arrays are not resident
             * in full at once. */
            if (at % page || m * sizeof *from != page || madvise(from + i, page, MADV_DONTNEED) != 0)
                memset(from + i, 0, m * sizeof *from);
        }
        i += m;
    }
}
