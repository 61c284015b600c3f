#include "engine_split.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine_gpu.h"
#include "engine_gpus.h"
#include "engine_pattern.h"
#include "engine_pattern_gpu.h"

typedef struct {
    ps_engine_t *part[2];
    uint32_t *map[2];
    uint32_t n[2];
    uint64_t *tmp; /* the larger part's leaf counts, for collect */
    int count_a;   /* scan_sites counts part a's sites (collect gives them) and lists part b's */
} split_t;

static int split_scan(ps_engine_t *e, int worker, const ps_chunk_t *c, ps_err_t *err)
{
    split_t *sp = e->impl;
    int rc = sp->part[0]->scan(sp->part[0], worker, c, err);
    return rc < 0 ? rc : sp->part[1]->scan(sp->part[1], worker, c, err);
}

/* Both parts' sites, each part's leaves mapped to the whole set's. */
static int split_scan_sites(ps_engine_t *e, int worker, const ps_chunk_t *c, ps_sites_t *out, ps_err_t *err)
{
    split_t *sp = e->impl;
    ps_sites_t more = {0};
    if (sp->count_a) {
        int rc = sp->part[0]->scan(sp->part[0], worker, c, err);
        if (rc == PS_OK) rc = sp->part[1]->scan_sites(sp->part[1], worker, c, out, err);
        for (uint64_t i = 0; rc == PS_OK && i < out->n; i++) out->leaf[i] = sp->map[1][out->leaf[i]];
        return rc;
    }
    int rc = sp->part[0]->scan_sites(sp->part[0], worker, c, out, err);
    if (rc == PS_OK) rc = sp->part[1]->scan_sites(sp->part[1], worker, c, &more, err);
    if (rc == PS_OK) rc = ps_sites_reserve(out, more.n, err);
    if (rc == PS_OK) {
        for (uint64_t i = 0; i < out->n; i++) out->leaf[i] = sp->map[0][out->leaf[i]];
        for (uint64_t i = 0; i < more.n; i++) {
            out->pos[out->n] = more.pos[i];
            out->leaf[out->n++] = sp->map[1][more.leaf[i]];
        }
    }
    ps_sites_free(&more);
    return rc;
}

static int split_collect(ps_engine_t *e, uint64_t *leaf_counts, ps_err_t *err)
{
    split_t *sp = e->impl;
    for (int k = 0; k < 2; k++) {
        memset(sp->tmp, 0, (size_t)sp->n[k] * sizeof *sp->tmp);
        int rc = sp->part[k]->collect(sp->part[k], sp->tmp, err);
        if (rc < 0) return rc;
        for (uint32_t l = 0; l < sp->n[k]; l++) leaf_counts[sp->map[k][l]] += sp->tmp[l];
    }
    return PS_OK;
}

static void split_info(const ps_engine_t *e, ps_engine_info_t *out)
{
    const split_t *sp = e->impl;
    ps_engine_info_t b;
    sp->part[0]->info(sp->part[0], out);
    sp->part[1]->info(sp->part[1], &b);
    out->chunks_cpu += b.chunks_cpu;
    out->patterns = 1;
    out->split = 1;
}

static void split_destroy(ps_engine_t *e)
{
    split_t *sp = e->impl;
    if (sp) {
        for (int k = 0; k < 2; k++) {
            ps_engine_destroy(sp->part[k]);
            free(sp->map[k]);
        }
        free(sp->tmp);
    }
    free(sp);
    free(e);
}

int ps_split_engine_new(ps_engine_t **out, ps_engine_t *a, uint32_t *map_a, uint32_t n_a, ps_engine_t *b,
                        uint32_t *map_b, uint32_t n_b, ps_err_t *err)
{
    *out = NULL;
    ps_engine_t *e = calloc(1, sizeof *e);
    split_t *sp = calloc(1, sizeof *sp);
    uint32_t most = n_a > n_b ? n_a : n_b;
    uint64_t *tmp = malloc((size_t)(most ? most : 1) * sizeof *tmp);
    if (!e || !sp || !tmp) {
        free(e);
        free(sp);
        free(tmp);
        ps_engine_destroy(a);
        ps_engine_destroy(b);
        free(map_a);
        free(map_b);
        return ps_fail(err, PS_E_NOMEM, "out of memory");
    }
    *sp = (split_t){.part = {a, b}, .map = {map_a, map_b}, .n = {n_a, n_b}, .tmp = tmp};
    e->impl = sp;
    e->scan = split_scan;
    e->collect = split_collect;
    e->scan_records = NULL; /* --by-record counts on the CPU alone */
    if (a->scan_sites && b->scan_sites) e->scan_sites = split_scan_sites;
    e->info = split_info;
    e->destroy = split_destroy;
    e->chunk_alloc = a->chunk_alloc;
    *out = e;
    return PS_OK;
}

typedef struct {
    const ps_patset_t *ps;
    int workers;
} gpu_make_t;

static int make_patterns(void *ctx, int device, ps_engine_t **out, ps_err_t *err)
{
    const gpu_make_t *m = ctx;
    return ps_gpu_pattern_engine_new(out, m->ps, device, m->workers, err);
}

/* The GPU pattern engine on each of gpus. */
static int gpu_patterns_on(ps_engine_t **out, const ps_patset_t *ps, const ps_gpus_t *gpus, int workers, ps_err_t *err)
{
    gpu_make_t m = {.ps = ps, .workers = workers};
    return ps_gpus_engine_new(out, gpus, make_patterns, &m, err);
}

/* Probe i is a window: every match of one length, no anchor. */
static int is_window(const ps_probes_t *p, uint32_t i)
{
    if (!p->patterns) return 1;
    if (p->anchors[i]) return 0;
    for (uint32_t j = 0; j < p->len[i]; j++)
        if (p->opt[(size_t)i * (size_t)p->k + j]) return 0;
    return 1;
}

/* Whether the GPU pattern engine takes probe i: a string of at most 64
 * positions (optional ones included). */
static int gpu_takes(const ps_probes_t *p, uint32_t i)
{
    return (p->patterns ? p->len[i] : (uint32_t)p->k) <= PS_GPU_PATTERN_MAX_LEN;
}

/* The probes of p that the GPU pattern engine takes. */
static uint32_t gpu_count(const ps_probes_t *p)
{
    uint32_t n = 0;
    for (uint32_t i = 0; i < p->n; i++) n += gpu_takes(p, i);
    return n;
}

/* The probes sel[0..n_sel) of p on CPU threads, in that order: one pattern
 * engine over their set (parts[0]; parts[1] NULL), or, where those of over
 * 64 positions take a gate (patset.h) on their own, the shorter ones
 * (parts[0]) and those (parts[1]) split, sel reordered shorter first. */
static int rest_engine(ps_engine_t **e, const ps_probes_t *p, const ps_patset_t *ps, uint32_t *sel, uint32_t n_sel,
                       const ps_gpus_t *gpus, int workers, ps_patset_t *parts[2], ps_err_t *err)
{
    const int both = ps->leaves.both_strands, mm = ps->max_mm;
    const uint32_t strands = both ? 2u : 1u, levels = (uint32_t)ps->leaves.levels;
    uint32_t n_long = 0;
    for (uint32_t j = 0; j < n_sel; j++) n_long += !gpu_takes(p, sel[j]);
    ps_patset_t *lp = NULL;
    uint32_t *order = NULL;
    int rc = PS_OK;
    if (n_long && n_long < n_sel) {
        if (!(order = malloc((size_t)n_sel * sizeof *order))) return ps_fail(err, PS_E_NOMEM, "out of memory");
        uint32_t a = 0, b = n_sel - n_long;
        for (uint32_t j = 0; j < n_sel; j++) order[gpu_takes(p, sel[j]) ? a++ : b++] = sel[j];
        if ((rc = ps_patset_build_part(&lp, p, order + (n_sel - n_long), n_long, both, mm, err)) < 0) goto done;
    }
    if (!lp || (!gpus && !lp->gate_words)) {
        ps_patset_free(lp);
        lp = NULL;
        if ((rc = ps_patset_build_part(&parts[0], p, sel, n_sel, both, mm, err)) == PS_OK)
            rc = gpus && !n_long ? gpu_patterns_on(e, parts[0], gpus, workers, err)
                                 : ps_pattern_engine_new(e, parts[0], workers, err);
        goto done;
    }
    memcpy(sel, order, (size_t)n_sel * sizeof *sel);
    const uint32_t n_short = n_sel - n_long;
    parts[1] = lp;
    ps_engine_t *pe[2] = {NULL, NULL};
    uint32_t *map[2] = {NULL, NULL}, nl[2] = {n_short * strands * levels, n_long * strands * levels};
    if ((rc = ps_patset_build_part(&parts[0], p, sel, n_short, both, mm, err)) == PS_OK &&
        (rc = gpus ? gpu_patterns_on(&pe[0], parts[0], gpus, workers, err)
                   : ps_pattern_engine_new(&pe[0], parts[0], workers, err)) == PS_OK &&
        (rc = ps_pattern_engine_new(&pe[1], lp, workers, err)) == PS_OK) {
        map[0] = malloc((size_t)nl[0] * sizeof *map[0]);
        map[1] = malloc((size_t)nl[1] * sizeof *map[1]);
        if (!map[0] || !map[1]) rc = ps_fail(err, PS_E_NOMEM, "out of memory");
    }
    if (rc < 0) {
        for (int k = 0; k < 2; k++) {
            ps_engine_destroy(pe[k]);
            free(map[k]);
        }
        goto done;
    }
    /* Leaves of the shorter ones are the rest's first, the long ones' follow. */
    for (uint32_t l = 0; l < nl[0]; l++) map[0][l] = l;
    for (uint32_t l = 0; l < nl[1]; l++) map[1][l] = nl[0] + l;
    rc = ps_split_engine_new(e, pe[0], map[0], nl[0], pe[1], map[1], nl[1], err);
done:
    free(order);
    return rc;
}

/* p's set in two parts, each in probe order: part a the probes in_a says
 * yes to, on the GPUs gpus (or CPU threads where gpus is NULL), part b the
 * rest on CPU threads; their sets into parts[0] and parts[1]. With
 * rest_split, part b is rest_engine's (its sets in parts[1] and parts[2]).
 * Returns 1, nothing made, when a part would be empty; *n_a the probes of
 * part a. */
static int split_by(ps_engine_t **e, const ps_probes_t *p, const ps_patset_t *ps,
                    int (*in_a)(const ps_probes_t *, uint32_t), const ps_gpus_t *gpus, int workers, int rest_split,
                    ps_patset_t *parts[], uint32_t *n_a_out, ps_err_t *err)
{
    const uint32_t strands = ps->leaves.both_strands ? 2u : 1u, levels = (uint32_t)ps->leaves.levels;
    uint32_t *idx = malloc(((size_t)p->n + 1) * sizeof *idx), n_a = 0;
    if (!idx) return ps_fail(err, PS_E_NOMEM, "out of memory");
    for (uint32_t i = 0; i < p->n; i++) n_a += in_a(p, i) != 0;
    if (!n_a || n_a == p->n) {
        free(idx);
        return 1;
    }
    uint32_t a = 0, b = n_a;
    for (uint32_t i = 0; i < p->n; i++) idx[in_a(p, i) ? a++ : b++] = i;
    uint32_t *map[2] = {NULL, NULL}, n_leaves[2] = {0, 0};
    ps_engine_t *part_e[2] = {NULL, NULL};
    int rc = PS_OK;
    for (int k = 0; k < 2 && rc == PS_OK; k++) {
        uint32_t *sel = idx + (k ? n_a : 0), n_sel = k ? p->n - n_a : n_a;
        if (k && rest_split) {
            if ((rc = rest_engine(&part_e[k], p, ps, sel, n_sel, gpus, workers, parts + 1, err)) < 0) break;
        } else if ((rc = ps_patset_build_part(&parts[k], p, sel, n_sel, ps->leaves.both_strands, ps->max_mm, err)) < 0) {
            break;
        }
        n_leaves[k] = n_sel * strands * levels;
        if (!(map[k] = malloc((size_t)n_leaves[k] * sizeof *map[k]))) {
            rc = ps_fail(err, PS_E_NOMEM, "out of memory");
            break;
        }
        for (uint32_t j = 0; j < n_sel; j++)
            for (uint32_t s = 0; s < strands; s++)
                for (uint32_t d = 0; d < levels; d++)
                    map[k][(j * strands + s) * levels + d] = (sel[j] * strands + s) * levels + d;
        if (k && rest_split) continue;
        rc = !k && gpus ? gpu_patterns_on(&part_e[k], parts[k], gpus, workers, err)
                        : ps_pattern_engine_new(&part_e[k], parts[k], workers, err);
    }
    free(idx);
    if (rc < 0) {
        for (int k = 0; k < 2; k++) {
            ps_engine_destroy(part_e[k]);
            free(map[k]);
        }
        return rc;
    }
    *n_a_out = n_a;
    return ps_split_engine_new(e, part_e[0], map[0], n_leaves[0], part_e[1], map[1], n_leaves[1], err);
}

int ps_split_windows_new(ps_engine_t **e, const ps_probes_t *p, const ps_patset_t *ps, int workers, int count_windows,
                         ps_patset_t *parts[3], ps_err_t *err)
{
    if (ps->windows_only || ps->fwd) return 1;
    uint32_t n_win;
    int rc = split_by(e, p, ps, is_window, NULL, workers, 1, parts, &n_win, err);
    if (rc == PS_OK) ((split_t *)(*e)->impl)->count_a = count_windows;
    return rc;
}

int ps_split_patterns_new(ps_engine_t **e, const ps_probes_t *p, const ps_patset_t *ps, const ps_gpus_t *gpus,
                          int workers, ps_patset_t *parts[2], uint32_t *n_gpu_out, ps_err_t *err)
{
    int rc = split_by(e, p, ps, gpu_takes, gpus, workers, 0, parts, n_gpu_out, err);
    if (rc != 1) return rc;
    return ps_fail(err, PS_E_USAGE, "the GPU takes %s of the patterns", gpu_count(p) ? "all" : "none");
}

/* Frees the part sets of a split that was not made. */
static void drop_parts(ps_patset_t *parts[3])
{
    for (int k = 0; k < 3; k++) {
        ps_patset_free(parts[k]);
        parts[k] = NULL;
    }
}

/* Whether the GPUs count the set's windows apart (count_windows): the set
 * has windows and other patterns, reads no minus strand forward, and every
 * window is a string the GPUs take. */
static int windows_apart(const ps_probes_t *p, const ps_patset_t *ps, int count_windows)
{
    if (!count_windows || ps->windows_only || ps->fwd) return 0;
    uint32_t windows = 0;
    for (uint32_t i = 0; i < p->n; i++)
        if (is_window(p, i)) {
            if (!gpu_takes(p, i)) return 0;
            windows++;
        }
    return windows > 0;
}

int ps_gpu_patterns_split(const ps_probes_t *p, const ps_patset_t *ps, int count_windows)
{
    const uint32_t n_gpu = gpu_count(p);
    return windows_apart(p, ps, count_windows) || (!ps->fwd && n_gpu > 0 && n_gpu < p->n);
}

int ps_gpu_patterns_new(ps_engine_t **out, const ps_probes_t *p, const ps_patset_t *ps, const ps_gpus_t *gpus,
                        int workers, int required, int count_windows, ps_patset_t *parts[3], uint32_t *n_gpu,
                        char *why, size_t why_len, ps_err_t *err)
{
    *n_gpu = p->n;
    int rc = 1;
    /* Windows counted on the GPU, only the rest's sites listed (and its
     * long patterns on CPU threads): r14 over 199 M residues 0.71-0.99 s
     * against 0.93-1.25 s with every site listed (H100 host). */
    if (windows_apart(p, ps, count_windows)) {
        uint32_t n_win;
        rc = split_by(out, p, ps, is_window, gpus, workers, 1, parts, &n_win, err);
        if (rc == PS_OK) {
            ((split_t *)(*out)->impl)->count_a = 1;
            *n_gpu = gpu_count(p);
            return PS_OK;
        }
        /* A failure here (a GPU that does not start) is met again below,
         * where it is handled: the CPU for auto, a message for --engine gpu. */
        drop_parts(parts);
        err->code = 0;
        err->msg[0] = '\0';
    }
    /* The minus strand of variable-length DNA patterns is read forward
     * (patset.h: fwd), which only the CPU engine does. */
    rc = ps->fwd ? ps_fail(err, PS_E_USAGE, "%s", PS_GPU_NO_MINUS_FWD)
                 : gpu_patterns_on(out, ps, gpus, workers, err);
    /* Patterns of over 64 positions: CPU threads beside the GPU. */
    if (rc == PS_E_USAGE && !ps->fwd) rc = ps_split_patterns_new(out, p, ps, gpus, workers, parts, n_gpu, err);
    if (rc == PS_OK) return PS_OK;
    char msg[sizeof err->msg];
    snprintf(msg, sizeof msg, "%s", err->msg);
    drop_parts(parts); /* the CPU's plan makes its own */
    if (required) return ps_fail(err, rc, "--engine gpu: %s; use --engine cpu", msg);
    snprintf(why, why_len, "%s", msg);
    err->code = 0;
    err->msg[0] = '\0';
    return 1;
}
