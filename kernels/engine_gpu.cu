/* engine_gpu.cu - the GPU engine: host glue around the scan kernels.
 *
 * Each host worker owns a CUDA stream and device buffers for one chunk. scan()
 * queues the chunk's host-to-device copies and the kernel on the worker's
 * stream and returns as soon as the copies are done (the pinned chunk can then
 * be refilled), so one worker's copies overlap another's kernel and the
 * kernels themselves never block the host. Stream order keeps a worker's next
 * copy behind its previous kernel. Leaf counts accumulate in one 64-bit device
 * array and cross to the host only in collect(). Device memory is the DFA,
 * the counters and n_workers chunk buffers, whatever the input size. */
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

extern "C" {
#include "engine_gpu.h"
#include "pack.h"
}
#include "gpu_scan.h"

namespace {

/* Chunk capacity: 2^26 symbols is 16 MiB of packed DNA, enough to keep a
 * launch well above its fixed cost while bounding device memory. */
const uint64_t PS_GPU_CHUNK_SYMS = 1ull << 26;
const uint32_t PS_GPU_CHUNK_RESTARTS = 1u << 20;

struct ps_gworker {
    cudaStream_t stream;
    cudaEvent_t start, copied, done; /* around the last chunk's copy and kernel */
    int pending;                     /* the events hold a chunk not yet timed */
    double copy_ms, kernel_ms;       /* this worker's totals */
    uint64_t chunks, bytes;
    uint32_t *d_text;
    uint32_t *d_restart;
};

struct ps_gpu {
    int device;
    ps_gplan_t plan;
    int n_workers;
    ps_gworker *w;
    uint64_t *h_counts; /* staging for collect() */
    int stats;          /* PS_GPU_STATS set: time copies and kernels, report at the end */
};

/* Adds the last chunk's copy and kernel times to the worker's totals. */
cudaError_t ps_gpu_harvest(ps_gworker *w)
{
    if (!w->pending) return cudaSuccess;
    cudaError_t ce = cudaEventSynchronize(w->done);
    float c = 0, k = 0;
    if (ce == cudaSuccess) ce = cudaEventElapsedTime(&c, w->start, w->copied);
    if (ce == cudaSuccess) ce = cudaEventElapsedTime(&k, w->copied, w->done);
    w->copy_ms += c;
    w->kernel_ms += k;
    w->pending = 0;
    return ce;
}

int ps_cuda_fail(ps_err_t *err, cudaError_t e, const char *what)
{
    return ps_fail(err, PS_E_GPU, "GPU error: %s: %s", what, cudaGetErrorString(e));
}

void *ps_pinned_alloc(void *ctx, size_t bytes)
{
    (void)ctx;
    void *p = NULL;
    /* Portable: the chunk may be filled and copied from any thread. */
    if (cudaHostAlloc(&p, bytes ? bytes : 1, cudaHostAllocPortable) != cudaSuccess) return NULL;
    return p;
}

void ps_pinned_release(void *ctx, void *p)
{
    (void)ctx;
    if (p) cudaFreeHost(p);
}

int ps_gpu_scan(ps_engine_t *e, int worker, const ps_chunk_t *c, ps_err_t *err)
{
    ps_gpu *g = (ps_gpu *)e->impl;
    cudaError_t ce;
    if (worker < 0 || worker >= g->n_workers)
        return ps_fail(err, PS_E_INTERNAL, "GPU engine: worker %d out of range", worker);
    if (c->n == 0) return PS_OK;
    if (c->n > PS_GPU_CHUNK_SYMS || c->n_restart > PS_GPU_CHUNK_RESTARTS)
        return ps_fail(err, PS_E_INTERNAL, "GPU engine: chunk larger than its device buffers");
    ps_gworker *w = &g->w[worker];
    if ((ce = cudaSetDevice(g->device)) != cudaSuccess) return ps_cuda_fail(err, ce, "cudaSetDevice");
    if (g->stats) {
        if ((ce = ps_gpu_harvest(w)) != cudaSuccess) return ps_cuda_fail(err, ce, "scan kernel");
        if ((ce = cudaEventRecord(w->start, w->stream)) != cudaSuccess) return ps_cuda_fail(err, ce, "cudaEventRecord");
        w->chunks++;
        w->bytes += ps_chunk_text_bytes(c) + (uint64_t)c->n_restart * 4u;
    }
    if ((ce = cudaMemcpyAsync(w->d_text, c->text, ps_chunk_text_bytes(c), cudaMemcpyHostToDevice,
                              w->stream)) != cudaSuccess)
        return ps_cuda_fail(err, ce, "copying a chunk to the GPU");
    if (c->n_restart &&
        (ce = cudaMemcpyAsync(w->d_restart, c->restart, (size_t)c->n_restart * sizeof(uint32_t),
                              cudaMemcpyHostToDevice, w->stream)) != cudaSuccess)
        return ps_cuda_fail(err, ce, "copying restarts to the GPU");
    if ((ce = cudaEventRecord(w->copied, w->stream)) != cudaSuccess)
        return ps_cuda_fail(err, ce, "cudaEventRecord");
    if ((ce = ps_gpu_launch(&g->plan, w->d_text, c->n, c->n_ctx, w->d_restart, c->n_restart,
                            w->stream)) != cudaSuccess)
        return ps_cuda_fail(err, ce, "launching the scan kernel");
    if (g->stats) {
        if ((ce = cudaEventRecord(w->done, w->stream)) != cudaSuccess) return ps_cuda_fail(err, ce, "cudaEventRecord");
        w->pending = 1;
    }
    /* The chunk's host memory may be reused once its copies are done. */
    if ((ce = cudaEventSynchronize(w->copied)) != cudaSuccess)
        return ps_cuda_fail(err, ce, "waiting for a chunk copy");
    return PS_OK;
}

int ps_gpu_collect(ps_engine_t *e, uint64_t *leaf_counts, ps_err_t *err)
{
    ps_gpu *g = (ps_gpu *)e->impl;
    cudaError_t ce;
    if ((ce = cudaSetDevice(g->device)) != cudaSuccess) return ps_cuda_fail(err, ce, "cudaSetDevice");
    for (int i = 0; i < g->n_workers; i++)
        if ((ce = cudaStreamSynchronize(g->w[i].stream)) != cudaSuccess)
            return ps_cuda_fail(err, ce, "scan kernel");
    size_t bytes = (size_t)g->plan.n_leaves * sizeof(uint64_t);
    if ((ce = cudaMemcpy(g->h_counts, g->plan.d_counts, bytes, cudaMemcpyDeviceToHost)) != cudaSuccess)
        return ps_cuda_fail(err, ce, "copying counts from the GPU");
    if ((ce = cudaMemset(g->plan.d_counts, 0, bytes)) != cudaSuccess)
        return ps_cuda_fail(err, ce, "clearing GPU counts");
    for (uint32_t i = 0; i < g->plan.n_leaves; i++) leaf_counts[i] += g->h_counts[i];
    return PS_OK;
}

void ps_gpu_destroy(ps_engine_t *e)
{
    if (!e) return;
    ps_gpu *g = (ps_gpu *)e->impl;
    if (g) {
        cudaSetDevice(g->device);
        if (g->w) {
            for (int i = 0; i < g->n_workers; i++) {
                ps_gworker *w = &g->w[i];
                if (w->stream) cudaStreamSynchronize(w->stream);
                if (g->stats && w->stream) {
                    ps_gpu_harvest(w);
                    fprintf(stderr,
                            "probescan: gpu worker %d: %llu chunks, %.1f MB to the GPU in %.3f s (%.1f GB/s), "
                            "kernels %.3f s\n",
                            i, (unsigned long long)w->chunks, w->bytes / 1e6, w->copy_ms / 1e3,
                            w->copy_ms > 0 ? w->bytes / 1e6 / w->copy_ms : 0.0, w->kernel_ms / 1e3);
                }
                if (w->stream) cudaStreamDestroy(w->stream);
                if (w->copied) cudaEventDestroy(w->copied);
                if (w->start) cudaEventDestroy(w->start);
                if (w->done) cudaEventDestroy(w->done);
                cudaFree(w->d_text);
                cudaFree(w->d_restart);
            }
            free(g->w);
        }
        ps_gpu_tables_free(&g->plan);
        cudaFreeHost(g->h_counts);
        free(g);
    }
    free(e);
}

} // namespace

extern "C" int ps_gpu_device_present(void)
{
    /* The driver's control node exists wherever an NVIDIA GPU is reachable. */
    return access("/dev/nvidiactl", F_OK) == 0;
}

/* ps_gpu_usable, also handing back the device's properties (*p, set when it
 * returns 1) so that the engine queries them once. */
static int ps_gpu_probe(int device, cudaDeviceProp *p, char *why, size_t why_len)
{
    int n = 0;
    cudaError_t ce = cudaGetDeviceCount(&n);
    if (ce != cudaSuccess) {
        const char *what = ce == cudaErrorInsufficientDriver ? "no usable CUDA driver (or it is older than this build's runtime)"
                           : ce == cudaErrorNoDevice        ? "no CUDA device"
                                                            : cudaGetErrorString(ce);
        if (why && why_len) snprintf(why, why_len, "%s", what);
        return 0;
    }
    if (device < 0 || device >= n) {
        if (why && why_len) snprintf(why, why_len, "GPU %d does not exist (%d CUDA device%s)", device, n, n == 1 ? "" : "s");
        return 0;
    }
    if ((ce = cudaGetDeviceProperties(p, device)) != cudaSuccess) {
        if (why && why_len) snprintf(why, why_len, "GPU %d: %s", device, cudaGetErrorString(ce));
        return 0;
    }
    /* The kernels are built for sm_90 (plus its PTX), which older chips cannot run. */
    if (p->major < 9) {
        if (why && why_len)
            snprintf(why, why_len, "GPU %d (%s) has compute capability %d.%d; this build needs 9.0 or newer",
                     device, p->name, p->major, p->minor);
        return 0;
    }
    int mode = 0;
    if (cudaDeviceGetAttribute(&mode, cudaDevAttrComputeMode, device) == cudaSuccess &&
        mode == cudaComputeModeProhibited) {
        if (why && why_len) snprintf(why, why_len, "GPU %d (%s) is in prohibited compute mode", device, p->name);
        return 0;
    }
    if (why && why_len)
        snprintf(why, why_len, "GPU %d: %s, compute capability %d.%d", device, p->name, p->major, p->minor);
    return 1;
}

extern "C" int ps_gpu_usable(int device, char *why, size_t why_len)
{
    cudaDeviceProp p;
    return ps_gpu_probe(device, &p, why, why_len);
}

extern "C" const char *const *ps_gpu_kernel_names(void) { return ps_gpu_variant_names(); }

extern "C" int ps_gpu_engine_new(ps_engine_t **out, const ps_automaton_t *a, int device, const char *kernel,
                                 int host_threads, ps_err_t *err)
{
    *out = NULL;
    char why[384]; /* room for the longest reason with a full-length device name */
    cudaDeviceProp p;
    if (!ps_gpu_probe(device, &p, why, sizeof why)) return ps_fail(err, PS_E_GPU, "GPU engine unavailable: %s", why);
    int variant = ps_gpu_variant(kernel);
    if (variant < 0) {
        char list[256] = "";
        for (const char *const *n = ps_gpu_variant_names(); *n; n++) {
            strncat(list, *n, sizeof list - strlen(list) - 2);
            if (n[1]) strncat(list, ", ", sizeof list - strlen(list) - 1);
        }
        return ps_fail(err, PS_E_USAGE, "unknown GPU kernel '%s' (one of: %s)", kernel, list);
    }
    if (a->shift != 2 && a->shift != 5)
        return ps_fail(err, PS_E_INTERNAL, "GPU engine: unexpected DFA row shift %d", a->shift);

    ps_engine_t *e = (ps_engine_t *)calloc(1, sizeof *e);
    ps_gpu *g = (ps_gpu *)calloc(1, sizeof *g);
    if (!e || !g) {
        free(e);
        free(g);
        return ps_fail(err, PS_E_NOMEM, "out of memory creating the GPU engine");
    }
    e->impl = g;
    e->destroy = ps_gpu_destroy;
    g->device = device;
    g->stats = getenv("PS_GPU_STATS") != NULL;
    /* Two workers at least, so that one's copy overlaps the other's kernel;
     * more than three only adds device buffers, as the copy engine is shared. */
    g->n_workers = host_threads >= 3 ? 3 : 2;

    cudaError_t ce;
    int rc;
    /* Padded by 16 bytes: the kernels' 16-byte staging loads stay inside. */
    const size_t text_bytes =
        ((size_t)(PS_GPU_CHUNK_SYMS / PS_PER_WORD(a->shift) + 1) * sizeof(uint32_t) + 31) & ~(size_t)15;
    if ((ce = cudaSetDevice(device)) != cudaSuccess) {
        rc = ps_cuda_fail(err, ce, "cudaSetDevice");
        goto fail;
    }
    if ((ce = ps_gpu_tables_upload(&g->plan, a)) != cudaSuccess) {
        rc = ps_cuda_fail(err, ce, "uploading the automaton");
        goto fail;
    }
    if ((ce = ps_gpu_plan(&g->plan, variant, a, device)) != cudaSuccess) {
        rc = ps_cuda_fail(err, ce, "configuring the scan kernel");
        goto fail;
    }
    if ((ce = cudaHostAlloc(&g->h_counts, (size_t)a->n_leaves * sizeof(uint64_t) + 8, cudaHostAllocDefault)) !=
        cudaSuccess) {
        g->h_counts = NULL;
        rc = ps_cuda_fail(err, ce, "allocating pinned count buffer");
        goto fail;
    }
    g->w = (ps_gworker *)calloc((size_t)g->n_workers, sizeof *g->w);
    if (!g->w) {
        rc = ps_fail(err, PS_E_NOMEM, "out of memory creating the GPU engine");
        goto fail;
    }
    for (int i = 0; i < g->n_workers; i++) {
        ps_gworker *w = &g->w[i];
        /* start and done are recorded only with stats on (destroy skips unset ones). */
        if ((ce = cudaStreamCreateWithFlags(&w->stream, cudaStreamNonBlocking)) != cudaSuccess ||
            (ce = cudaEventCreateWithFlags(&w->copied, g->stats ? cudaEventDefault : cudaEventDisableTiming)) !=
                cudaSuccess ||
            (g->stats && ((ce = cudaEventCreate(&w->start)) != cudaSuccess ||
                          (ce = cudaEventCreate(&w->done)) != cudaSuccess)) ||
            (ce = cudaMalloc(&w->d_text, text_bytes)) != cudaSuccess ||
            (ce = cudaMalloc(&w->d_restart, PS_GPU_CHUNK_RESTARTS * sizeof(uint32_t))) != cudaSuccess) {
            rc = ps_cuda_fail(err, ce, "allocating GPU stream buffers");
            goto fail;
        }
    }

    e->name = "gpu";
    {
        char plan[400];
        ps_gpu_plan_describe(&g->plan, plan, sizeof plan);
        if (g->stats) fprintf(stderr, "probescan: gpu: %s\n", plan);
        snprintf(e->device, sizeof e->device, "GPU %d: %.80s (%d SMs, %.0f GiB), kernel %s%s", device, p.name,
                 p.multiProcessorCount, p.totalGlobalMem / 1073741824.0, ps_gpu_variant_names()[variant],
                 g->plan.kmer_m ? " (k-mer lookups)" : "");
    }
    e->n_workers = g->n_workers;
    e->chunk_syms = PS_GPU_CHUNK_SYMS;
    e->chunk_restarts = PS_GPU_CHUNK_RESTARTS;
    e->chunks_per_worker = 2;
    e->chunk_alloc.alloc = ps_pinned_alloc;
    e->chunk_alloc.release = ps_pinned_release;
    e->chunk_alloc.ctx = g;
    e->scan = ps_gpu_scan;
    e->collect = ps_gpu_collect;
    *out = e;
    return PS_OK;
fail:
    ps_gpu_destroy(e);
    return rc;
}
