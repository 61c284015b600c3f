#include "engine_gpus.h"

#include <ctype.h>
#include <dirent.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "engine_gpu.h"

typedef struct {
    int n;
    ps_engine_t *dev[PS_GPUS_MAX];
    int id[PS_GPUS_MAX];
    /* per device: chunks in its scan calls now (atomic, changed under
     * lock[d]), since when it has had one, and its busy nanoseconds (under
     * lock[d]); chunks and symbols scanned (atomic) */
    pthread_mutex_t lock[PS_GPUS_MAX];
    int in_flight[PS_GPUS_MAX];
    uint64_t since[PS_GPUS_MAX], ns[PS_GPUS_MAX];
    uint64_t chunks[PS_GPUS_MAX], symbols[PS_GPUS_MAX];
    unsigned next; /* atomic: where the search for the least busy device starts */
} gpus_t;

static uint64_t now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

/* The device with the fewest chunks in flight, the search starting in turn
 * so that idle devices take chunks alike; its count raised. */
static int take_device(gpus_t *g)
{
    const unsigned start = __atomic_fetch_add(&g->next, 1u, __ATOMIC_RELAXED);
    int best = (int)(start % (unsigned)g->n), least = __atomic_load_n(&g->in_flight[best], __ATOMIC_RELAXED);
    for (int i = 1; i < g->n && least > 0; i++) {
        const int d = (int)((start + (unsigned)i) % (unsigned)g->n);
        const int f = __atomic_load_n(&g->in_flight[d], __ATOMIC_RELAXED);
        if (f < least) best = d, least = f;
    }
    pthread_mutex_lock(&g->lock[best]);
    if (__atomic_fetch_add(&g->in_flight[best], 1, __ATOMIC_RELAXED) == 0) g->since[best] = now_ns();
    pthread_mutex_unlock(&g->lock[best]);
    return best;
}

static void done_device(gpus_t *g, int d, const ps_chunk_t *c, int rc)
{
    pthread_mutex_lock(&g->lock[d]);
    if (__atomic_sub_fetch(&g->in_flight[d], 1, __ATOMIC_RELAXED) == 0) g->ns[d] += now_ns() - g->since[d];
    pthread_mutex_unlock(&g->lock[d]);
    if (rc == PS_OK) {
        __atomic_add_fetch(&g->chunks[d], 1, __ATOMIC_RELAXED);
        __atomic_add_fetch(&g->symbols[d], c->n, __ATOMIC_RELAXED);
    }
}

static int gpus_scan(ps_engine_t *e, int worker, const ps_chunk_t *c, ps_err_t *err)
{
    gpus_t *g = e->impl;
    const int d = take_device(g);
    const int rc = g->dev[d]->scan(g->dev[d], worker, c, err);
    done_device(g, d, c, rc);
    return rc;
}

static int gpus_scan_sites(ps_engine_t *e, int worker, const ps_chunk_t *c, ps_sites_t *s, ps_err_t *err)
{
    gpus_t *g = e->impl;
    const int d = take_device(g);
    const int rc = g->dev[d]->scan_sites(g->dev[d], worker, c, s, err);
    done_device(g, d, c, rc);
    return rc;
}

static int gpus_scan_records(ps_engine_t *e, int worker, const ps_chunk_t *c, ps_rec_hits_t *h, ps_err_t *err)
{
    gpus_t *g = e->impl;
    const int d = take_device(g);
    const int rc = g->dev[d]->scan_records(g->dev[d], worker, c, h, err);
    done_device(g, d, c, rc);
    return rc;
}

static int gpus_collect(ps_engine_t *e, uint64_t *leaf_counts, ps_err_t *err)
{
    gpus_t *g = e->impl;
    for (int d = 0; d < g->n; d++) {
        const uint64_t t0 = now_ns();
        int rc = g->dev[d]->collect(g->dev[d], leaf_counts, err);
        pthread_mutex_lock(&g->lock[d]);
        g->ns[d] += now_ns() - t0;
        pthread_mutex_unlock(&g->lock[d]);
        if (rc < 0) return rc;
    }
    return PS_OK;
}

static uint64_t busy_ns(gpus_t *g, int d)
{
    pthread_mutex_lock(&g->lock[d]);
    const uint64_t t = g->ns[d] + (g->in_flight[d] ? now_ns() - g->since[d] : 0);
    pthread_mutex_unlock(&g->lock[d]);
    return t;
}

static void gpus_info(const ps_engine_t *e, ps_engine_info_t *out)
{
    gpus_t *g = e->impl;
    ps_engine_info(g->dev[0], out);
    for (int d = 1; d < g->n; d++) {
        ps_engine_info_t more;
        ps_engine_info(g->dev[d], &more);
        out->chunks_gpu += more.chunks_gpu;
        out->chunks_cpu += more.chunks_cpu;
    }
    out->n_gpus = g->n;
    for (int d = 0; d < g->n; d++)
        out->gpu[d] = (ps_gpu_share_t){.id = g->id[d],
                                       .chunks = __atomic_load_n(&g->chunks[d], __ATOMIC_RELAXED),
                                       .symbols = __atomic_load_n(&g->symbols[d], __ATOMIC_RELAXED),
                                       .seconds = busy_ns(g, d) * 1e-9};
}

static void gpus_destroy(ps_engine_t *e)
{
    gpus_t *g = e->impl;
    if (g)
        for (int d = 0; d < g->n; d++) {
            ps_engine_destroy(g->dev[d]);
            pthread_mutex_destroy(&g->lock[d]);
        }
    free(g);
    free(e);
}

typedef struct {
    ps_gpu_maker_fn make;
    void *ctx;
    int device, rc;
    ps_engine_t *e;
    ps_err_t err;
} start_t;

static void *start_one(void *arg)
{
    start_t *s = arg;
    s->rc = s->make(s->ctx, s->device, &s->e, &s->err);
    return NULL;
}

int ps_gpus_engine_new(ps_engine_t **out, const ps_gpus_t *use, ps_gpu_maker_fn make, void *ctx, ps_err_t *err)
{
    *out = NULL;
    if (use->n < 1 || use->n > PS_GPUS_MAX) return ps_fail(err, PS_E_INTERNAL, "%d GPUs asked of the engine", use->n);
    start_t st[PS_GPUS_MAX];
    pthread_t th[PS_GPUS_MAX];
    int started[PS_GPUS_MAX] = {0};
    for (int d = 0; d < use->n; d++) {
        st[d] = (start_t){.make = make, .ctx = ctx, .device = use->id[d], .rc = PS_E_INTERNAL};
        /* The first device starts on this thread, the others beside it. */
        if (d > 0) started[d] = pthread_create(&th[d], NULL, start_one, &st[d]) == 0;
    }
    start_one(&st[0]);
    int rc = PS_OK;
    ps_err_t first = {0};
    for (int d = 0; d < use->n; d++) {
        if (d > 0 && started[d]) pthread_join(th[d], NULL);
        if (d > 0 && !started[d]) {
            st[d].rc = ps_fail(&st[d].err, PS_E_INTERNAL, "cannot start a thread for GPU %d", use->id[d]);
        }
        if (st[d].rc < 0 && rc == PS_OK) {
            rc = st[d].rc;
            first = st[d].err;
        }
    }
    ps_engine_t *e = NULL;
    gpus_t *g = NULL;
    if (rc == PS_OK && (!(e = calloc(1, sizeof *e)) || !(g = calloc(1, sizeof *g)))) {
        free(e);
        rc = ps_fail(&first, PS_E_NOMEM, "out of memory");
    }
    if (rc < 0) {
        for (int d = 0; d < use->n; d++) ps_engine_destroy(st[d].rc == PS_OK ? st[d].e : NULL);
        *err = first;
        return rc;
    }
    int sites = 1, records = 1;
    for (int d = 0; d < use->n; d++) {
        if (pthread_mutex_init(&g->lock[d], NULL) != 0) {
            for (int k = d; k < use->n; k++) ps_engine_destroy(st[k].e);
            g->n = d;
            e->impl = g;
            gpus_destroy(e);
            return ps_fail(err, PS_E_INTERNAL, "cannot create a mutex");
        }
        g->n = d + 1;
        g->dev[d] = st[d].e;
        g->id[d] = use->id[d];
        sites &= g->dev[d]->scan_sites != NULL;
        records &= g->dev[d]->scan_records != NULL;
    }
    e->impl = g;
    e->scan = gpus_scan;
    e->collect = gpus_collect;
    e->scan_sites = sites ? gpus_scan_sites : NULL;
    e->scan_records = records ? gpus_scan_records : NULL;
    e->info = gpus_info;
    e->destroy = gpus_destroy;
    e->chunk_alloc = g->dev[0]->chunk_alloc;
    *out = e;
    return PS_OK;
}

int ps_gpus_choose(const ps_gpus_t *asked, int visible, double cpu_s, double repay_s, ps_gpus_t *use, char *why,
                   size_t len)
{
    memset(use, 0, sizeof *use);
    if (asked->n > 0) {
        for (int i = 0; i < asked->n; i++)
            if (asked->id[i] >= visible) {
                snprintf(why, len, "GPU %d asked for, and %d %s visible", asked->id[i], visible,
                         visible == 1 ? "is" : "are");
                return -1;
            }
        *use = *asked;
        use->all = 0;
        return 0;
    }
    if (visible < 1) {
        snprintf(why, len, "no CUDA device visible");
        return -1;
    }
    int n = visible > PS_GPUS_MAX ? PS_GPUS_MAX : visible;
    if (!asked->all && cpu_s > 0 && repay_s > 0 && cpu_s / repay_s < n) {
        n = (int)(cpu_s / repay_s);
        if (n < 1) n = 1;
    }
    use->n = n;
    for (int i = 0; i < n; i++) use->id[i] = i;
    return 0;
}

int ps_gpus_usable(const ps_gpus_t *use, char *why, size_t len)
{
    for (int i = 0; i < use->n; i++) {
        char w[256];
        if (!ps_gpu_usable(use->id[i], w, sizeof w)) {
            snprintf(why, len, "GPU %d: %s", use->id[i], w);
            return 0;
        }
    }
    return 1;
}

int ps_gpus_pick(const ps_gpus_t *asked, double cpu_s, double repay_s, ps_gpus_t *use, char *why, size_t len)
{
    const int visible = ps_gpu_count();
    if (visible == 0) {
        (void)ps_gpu_usable(asked->n ? asked->id[0] : 0, why, len);
        return -1;
    }
    return ps_gpus_choose(asked, visible, cpu_s, repay_s, use, why, len) == 0 && ps_gpus_usable(use, why, len) ? 0
                                                                                                               : -1;
}

void ps_gpus_name(const ps_gpus_t *use, char *buf, size_t len)
{
    size_t at = (size_t)snprintf(buf, len, "GPU%s ", use->n > 1 ? "s" : "");
    for (int i = 0; i < use->n && at < len; i++)
        at += (size_t)snprintf(buf + at, len - at, "%s%d", i ? "," : "", use->id[i]);
}

int ps_gpus_list_hides_all(const char *visible)
{
    if (!visible) return 0;
    while (isspace((unsigned char)*visible)) visible++;
    if (isdigit((unsigned char)*visible)) return 0;
    return strncmp(visible, "GPU-", 4) != 0 && strncmp(visible, "MIG-", 4) != 0;
}

int ps_gpus_likely(void)
{
    if (ps_gpus_list_hides_all(getenv("CUDA_VISIBLE_DEVICES"))) return 0;
    DIR *d = opendir("/dev");
    if (!d) return 0;
    int found = 0;
    for (struct dirent *de; !found && (de = readdir(d));)
        found = !strncmp(de->d_name, "nvidia", 6) && isdigit((unsigned char)de->d_name[6]);
    closedir(d);
    return found;
}
