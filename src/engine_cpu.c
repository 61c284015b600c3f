#include "engine_cpu.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Walks symbols [p, end) of c from state 0. Positions below n_ctx need no
 * test: fewer than k symbols precede them, so no leaf can be reached there. */
static inline void walk(const uint32_t *restrict delta, int shift, uint32_t leaf_base,
                        const ps_chunk_t *c, uint64_t p, uint64_t end, uint64_t *restrict counts)
{
    const uint32_t per = c->per_word, bits = (uint32_t)c->bits, mask = (1u << bits) - 1u;
    const uint32_t *text = c->text;
    uint64_t wi = p / per;
    uint32_t j = (uint32_t)(p % per);
    uint32_t w = text[wi] >> (j * bits);
    uint32_t s = 0;
    for (; p < end; p++) {
        s = delta[(s << shift) | (w & mask)];
        if (s >= leaf_base) counts[s - leaf_base]++;
        w >>= bits;
        if (++j == per) {
            j = 0;
            w = p + 1 < end ? text[++wi] : 0;
        }
    }
}

void ps_cpu_scan_chunk(const ps_automaton_t *a, const ps_chunk_t *c, uint64_t *leaf_counts)
{
    uint64_t p = 0;
    for (uint32_t r = 0; r <= c->n_restart; r++) {
        uint64_t end = r < c->n_restart ? c->restart[r] : c->n;
        if (end > p) walk(a->delta, a->shift, a->leaf_base, c, p, end, leaf_counts);
        p = end;
    }
}

typedef struct {
    const ps_automaton_t *a;
    int threads;
    uint64_t *counts; /* threads * n_leaves */
} cpu_t;

static int cpu_scan(ps_engine_t *e, int worker, const ps_chunk_t *c, ps_err_t *err)
{
    cpu_t *cpu = e->impl;
    if (worker < 0 || worker >= cpu->threads) return ps_fail(err, PS_E_INTERNAL, "cpu engine: bad worker %d", worker);
    ps_cpu_scan_chunk(cpu->a, c, cpu->counts + (size_t)worker * cpu->a->n_leaves);
    return PS_OK;
}

static int cpu_collect(ps_engine_t *e, uint64_t *leaf_counts, ps_err_t *err)
{
    (void)err;
    cpu_t *cpu = e->impl;
    size_t nl = cpu->a->n_leaves;
    for (int t = 0; t < cpu->threads; t++) {
        uint64_t *mine = cpu->counts + (size_t)t * nl;
        for (size_t i = 0; i < nl; i++) leaf_counts[i] += mine[i];
        memset(mine, 0, nl * sizeof *mine);
    }
    return PS_OK;
}

static void cpu_destroy(ps_engine_t *e)
{
    cpu_t *cpu = e->impl;
    if (cpu) free(cpu->counts);
    free(cpu);
    free(e);
}

int ps_cpu_engine_new(ps_engine_t **out, const ps_automaton_t *a, int threads, ps_err_t *err)
{
    *out = NULL;
    if (threads < 1) threads = 1;
    ps_engine_t *e = calloc(1, sizeof *e);
    cpu_t *cpu = calloc(1, sizeof *cpu);
    if (e) e->impl = cpu;
    if (!e || !cpu || !(cpu->counts = calloc((size_t)threads * a->n_leaves, sizeof(uint64_t)))) {
        if (e) cpu_destroy(e);
        else free(cpu);
        return ps_fail(err, PS_E_NOMEM, "out of memory for %d threads' counts", threads);
    }
    cpu->a = a;
    cpu->threads = threads;
    e->name = "cpu";
    snprintf(e->device, sizeof e->device, "CPU, %d thread%s", threads, threads == 1 ? "" : "s");
    e->n_workers = threads;
    /* Small chunks keep every thread busy on small inputs; 1 Mi symbols is
     * 256 KiB of packed DNA, far above the per-chunk overhead. */
    e->chunk_syms = 1u << 20;
    e->chunk_restarts = 1u << 16;
    e->chunks_per_worker = 2;
    e->scan = cpu_scan;
    e->collect = cpu_collect;
    e->destroy = cpu_destroy;
    *out = e;
    return PS_OK;
}
