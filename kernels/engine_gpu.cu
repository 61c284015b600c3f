/* engine_gpu.cu - the GPU engine: host glue around the scan kernels.
 *
 * The engine owns two or three CUDA streams, each with device buffers for one
 * chunk; a host worker calling scan() takes any free stream (else waits for
 * its own), queues the chunk's host-to-device copies and the kernel on it and
 * returns as soon as the copies are done (the pinned chunk can then be
 * refilled), so one stream's copies overlap another's kernel and the kernels
 * themselves never block the host. Stream order keeps a stream's next copy
 * behind its previous kernel. Leaf counts accumulate in one 64-bit device
 * array and cross to the host only in collect(). Device memory is the DFA,
 * (or the k-mer set), the counters and one chunk buffer per stream,
 * whatever the input size. */
#include <cuda_runtime.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "engine_gpu.h"
#include "pack.h"

#ifndef PS_CUDA_ARCHS
#define PS_CUDA_ARCHS "unknown architectures"
#endif
#include "gpu_scan.h"

namespace {

struct ps_gworker {
    pthread_mutex_t lock;            /* one host thread on this stream at a time */
    int lock_ok;
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
    int host_workers;   /* worker ids scan() takes */
    int n_streams;      /* streams */
    ps_gworker *w;
    cudaDeviceProp prop;
    int variant;
    uint64_t chunks;    /* scanned, for info (atomic) */
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

/* Takes a stream: any free one, else waits for the worker's own. */
ps_gworker *ps_gpu_take_stream(ps_gpu *g, int worker)
{
    for (int i = 0; i < g->n_streams; i++) {
        ps_gworker *w = &g->w[(worker + i) % g->n_streams];
        if (pthread_mutex_trylock(&w->lock) == 0) return w;
    }
    ps_gworker *w = &g->w[worker % g->n_streams];
    pthread_mutex_lock(&w->lock);
    return w;
}

int ps_gpu_scan_on(ps_gpu *g, ps_gworker *w, const ps_chunk_t *c, ps_err_t *err);

int ps_gpu_scan(ps_engine_t *e, int worker, const ps_chunk_t *c, ps_err_t *err)
{
    ps_gpu *g = (ps_gpu *)e->impl;
    if (worker < 0 || worker >= g->host_workers)
        return ps_fail(err, PS_E_INTERNAL, "GPU engine: worker %d out of range", worker);
    if (c->n == 0) return PS_OK;
    if (c->n > PS_GPU_CHUNK_SYMS || c->n_restart > PS_GPU_CHUNK_RESTARTS)
        return ps_fail(err, PS_E_INTERNAL, "GPU engine: chunk larger than its device buffers");
    ps_gworker *w = ps_gpu_take_stream(g, worker);
    int rc = ps_gpu_scan_on(g, w, c, err);
    pthread_mutex_unlock(&w->lock);
    if (rc == PS_OK) __atomic_add_fetch(&g->chunks, 1, __ATOMIC_RELAXED);
    return rc;
}

int ps_gpu_scan_on(ps_gpu *g, ps_gworker *w, const ps_chunk_t *c, ps_err_t *err)
{
    cudaError_t ce;
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
    for (int i = 0; i < g->n_streams; i++)
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

void ps_gpu_info(const ps_engine_t *e, ps_engine_info_t *out)
{
    const ps_gpu *g = (const ps_gpu *)e->impl;
    memset(out, 0, sizeof *out);
    out->kind = PS_ENGINE_GPU;
    out->workers = g->host_workers;
    out->gpu_id = g->device;
    out->gpu_started = 1;
    snprintf(out->gpu_name, sizeof out->gpu_name, "%.95s", g->prop.name);
    out->gpu_sms = g->prop.multiProcessorCount;
    out->gpu_mem_gib = g->prop.totalGlobalMem / 1073741824.0;
    snprintf(out->kernel, sizeof out->kernel, "%s", g->plan.kset ? "kmer-set" : ps_gpu_variant_names()[g->variant]);
    out->kmer_path = g->plan.kmer_m != 0;
    out->kmer_set = g->plan.kset;
    out->chunks_gpu = __atomic_load_n(&g->chunks, __ATOMIC_RELAXED);
    out->max_chunk_syms = PS_GPU_CHUNK_SYMS;
    out->max_chunk_restarts = PS_GPU_CHUNK_RESTARTS;
}

void ps_gpu_destroy(ps_engine_t *e)
{
    if (!e) return;
    ps_gpu *g = (ps_gpu *)e->impl;
    if (g) {
        cudaSetDevice(g->device);
        if (g->w) {
            for (int i = 0; i < g->n_streams; i++) {
                ps_gworker *w = &g->w[i];
                if (w->stream) cudaStreamSynchronize(w->stream);
                if (g->stats && w->stream) {
                    ps_gpu_harvest(w);
                    fprintf(stderr,
                            "probescan: gpu stream %d: %llu chunks, %.1f MB to the GPU in %.3f s (%.1f GB/s), "
                            "kernels %.3f s\n",
                            i, (unsigned long long)w->chunks, w->bytes / 1e6, w->copy_ms / 1e3,
                            w->copy_ms > 0 ? w->bytes / 1e6 / w->copy_ms : 0.0, w->kernel_ms / 1e3);
                }
                if (w->stream) cudaStreamDestroy(w->stream);
                if (w->lock_ok) pthread_mutex_destroy(&w->lock);
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
    /* Whether this build carries code the chip runs (its own machine code,
     * or PTX it can compile) is the runtime's answer, not a rule of ours. */
    if ((ce = ps_gpu_image_check(device)) != cudaSuccess) {
        if (why && why_len)
            snprintf(why, why_len, "GPU %d (%.80s, compute capability %d.%d): this build has no code for it (%.60s; built for %.80s)",
                     device, p->name, p->major, p->minor, cudaGetErrorString(ce), PS_CUDA_ARCHS);
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

extern "C" int ps_gpu_count(void)
{
    int n = 0;
    return cudaGetDeviceCount(&n) == cudaSuccess ? n : 0;
}

extern "C" const char *const *ps_gpu_kernel_names(void) { return ps_gpu_variant_names(); }

extern "C" void ps_gpu_versions(char *buf, size_t len)
{
    int rt = 0, drv = 0;
    if (cudaRuntimeGetVersion(&rt) != cudaSuccess) rt = 0;
    if (cudaDriverGetVersion(&drv) != cudaSuccess) drv = 0;
    char d[32];
    if (drv) snprintf(d, sizeof d, "%d.%d", drv / 1000, drv % 1000 / 10);
    else snprintf(d, sizeof d, "none installed");
    if (buf && len) snprintf(buf, len, "runtime %d.%d, driver %s", rt / 1000, rt % 1000 / 10, d);
}

/* The GPU engine over an automaton a (with kernel variant) or a k-mer set
 * ks: the two differ only in the tables uploaded and the plan. */
static int ps_gpu_engine_make(ps_engine_t **out, const ps_automaton_t *a, const ps_kmerset_t *ks, int device,
                              const char *kernel, int host_threads, ps_err_t *err)
{
    *out = NULL;
    char why[384]; /* room for the longest reason with a full-length device name */
    cudaDeviceProp p;
    if (!ps_gpu_probe(device, &p, why, sizeof why)) return ps_fail(err, PS_E_GPU, "GPU engine unavailable: %s", why);
    int variant = ks ? PS_K_BEST : ps_gpu_variant(kernel);
    if (variant < 0) {
        char list[128];
        ps_gpu_variant_list(list, sizeof list);
        return ps_fail(err, PS_E_USAGE, "unknown GPU kernel '%s' (one of: %s)", kernel, list);
    }
    if (a && a->shift != 2 && a->shift != 5)
        return ps_fail(err, PS_E_INTERNAL, "GPU engine: unexpected DFA row shift %d", a->shift);
    const int shift = a ? a->shift : 2;
    const uint32_t n_leaves = a ? a->n_leaves : ks->leaves.n_leaves;

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
    g->prop = p;
    g->variant = variant;
    g->stats = getenv("PS_GPU_STATS") != NULL;
    g->host_workers = host_threads > 0 ? host_threads : 1;
    /* Two streams at least, so that one's copy overlaps the other's kernel;
     * more than three only adds device buffers, as the copy engine is shared. */
    g->n_streams = host_threads >= 3 ? 3 : 2;

    cudaError_t ce;
    int rc;
    /* Padded by 16 bytes: the kernels' 16-byte staging loads stay inside. */
    const size_t text_bytes =
        ((size_t)(PS_GPU_CHUNK_SYMS / PS_PER_WORD(shift) + 1) * sizeof(uint32_t) + 31) & ~(size_t)15;
    if ((ce = cudaSetDevice(device)) != cudaSuccess) {
        rc = ps_cuda_fail(err, ce, "cudaSetDevice");
        goto fail;
    }
    if ((ce = a ? ps_gpu_tables_upload(&g->plan, a) : ps_gpu_kset_upload(&g->plan, ks)) != cudaSuccess) {
        rc = ps_cuda_fail(err, ce, a ? "uploading the automaton" : "uploading the k-mer set");
        goto fail;
    }
    if ((ce = a ? ps_gpu_plan(&g->plan, variant, a, device) : ps_gpu_plan_kmerset(&g->plan, ks, device)) !=
        cudaSuccess) {
        rc = ps_cuda_fail(err, ce, "configuring the scan kernel");
        goto fail;
    }
    if ((ce = cudaHostAlloc(&g->h_counts, (size_t)n_leaves * sizeof(uint64_t) + 8, cudaHostAllocDefault)) !=
        cudaSuccess) {
        g->h_counts = NULL;
        rc = ps_cuda_fail(err, ce, "allocating pinned count buffer");
        goto fail;
    }
    g->w = (ps_gworker *)calloc((size_t)g->n_streams, sizeof *g->w);
    if (!g->w) {
        rc = ps_fail(err, PS_E_NOMEM, "out of memory creating the GPU engine");
        goto fail;
    }
    for (int i = 0; i < g->n_streams; i++) {
        ps_gworker *w = &g->w[i];
        if (pthread_mutex_init(&w->lock, NULL) != 0) {
            rc = ps_fail(err, PS_E_INTERNAL, "cannot create a mutex");
            goto fail;
        }
        w->lock_ok = 1;
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

    if (g->stats) {
        char plan[400];
        ps_gpu_plan_describe(&g->plan, plan, sizeof plan);
        fprintf(stderr, "probescan: gpu: %s\n", plan);
    }
    e->chunk_alloc.alloc = ps_pinned_alloc;
    e->chunk_alloc.release = ps_pinned_release;
    e->chunk_alloc.ctx = g;
    e->scan = ps_gpu_scan;
    e->collect = ps_gpu_collect;
    e->info = ps_gpu_info;
    *out = e;
    return PS_OK;
fail:
    ps_gpu_destroy(e);
    return rc;
}

extern "C" int ps_gpu_engine_new(ps_engine_t **out, const ps_automaton_t *a, int device, const char *kernel,
                                 int host_threads, ps_err_t *err)
{
    return ps_gpu_engine_make(out, a, NULL, device, kernel, host_threads, err);
}

extern "C" int ps_gpu_kmer_engine_new(ps_engine_t **out, const ps_kmerset_t *ks, int device, int host_threads,
                                      ps_err_t *err)
{
    if (ks->k < 1 || ks->k > PS_KMERSET_MAX_K)
        return ps_fail(err, PS_E_INTERNAL, "GPU engine: a k-mer set of k = %d", ks->k);
    return ps_gpu_engine_make(out, NULL, ks, device, NULL, host_threads, err);
}
