/* gpu_plan.c - the GPU engine's host-side decisions: variant names, the
 * tables it uploads, the launch plan (see gpu_plan.h). */
#include "gpu_plan.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pack.h"

static const char *const names[] = {"best", "baseline", "shared", "coalesced", "compact", "leaf", "kmer", NULL};
_Static_assert(sizeof names / sizeof *names == PS_K_COUNT + 1, "one name per kernel variant");

#define STR_(x) #x
#define STR(x) STR_(x)

static size_t round16(size_t x) { return (x + 15u) & ~(size_t)15u; }

int ps_gpu_variant(const char *name)
{
    if (!name) return PS_K_BEST;
    for (int i = 0; names[i]; i++)
        if (strcmp(names[i], name) == 0) return i;
    return -1;
}

const char *const *ps_gpu_variant_names(void) { return names; }

size_t ps_gpu_variant_list(char *buf, size_t len)
{
    size_t n = 0;
    for (int i = 0; i < PS_K_COUNT; i++) {
        /* best, then the variants from the last (most refined) down */
        const int v = i == 0 ? PS_K_BEST : PS_K_COUNT - i;
        const int w = snprintf(n < len ? buf + n : NULL, n < len ? len - n : 0, "%s%s", i ? ", " : "", names[v]);
        if (w > 0) n += (size_t)w;
    }
    return n;
}

size_t ps_gpu_dfa_bytes(const ps_automaton_t *a, unsigned entry_bytes)
{
    return round16(((size_t)a->n_states << a->shift) * entry_bytes);
}

uint32_t ps_kmer_bit_words(int k) { return k <= 3 ? 4u : 1u << (2 * k - 5); }
uint32_t ps_kmer_pair_words(int k) { return k > 8 ? 0u : k <= 1 ? 4u : 1u << (2 * k - 2); }

/* The k-mer tables into t, or none (PS_OK) where a has no k-mer path. */
static int kmer_build(ps_gpu_host_tables_t *t, const ps_automaton_t *a, ps_err_t *err)
{
    if (a->alpha != PS_DNA || a->shift != 2 || a->k < 1 || a->k > PS_KMER_MAX_K) return PS_OK;
    const int k = a->k;
    const uint32_t n_kmers = 1u << (2 * k), kmask = n_kmers - 1u;
    const uint32_t bw = ps_kmer_bit_words(k), pw = ps_kmer_pair_words(k);
    int rc = PS_OK;
    uint32_t *bits = calloc(bw, 4), *rank = calloc(bw, 4);
    uint32_t *leaf = malloc((size_t)n_kmers * 4u);
    uint32_t *pair = pw ? calloc(pw, 4) : NULL;
    uint32_t *leaf_of = NULL;
    uint32_t n_present = 0;
    if (!bits || !rank || !leaf || (pw && !pair)) goto nomem;
    for (uint32_t code = 0; code < n_kmers; code++) {
        uint32_t s = 0;
        for (int i = 0; i < k; i++) s = a->delta[(s << 2) | ((code >> (2 * i)) & 3u)];
        leaf[code] = s >= a->leaf_base ? s - a->leaf_base : 0xFFFFFFFFu;
        if (s >= a->leaf_base) bits[code >> 5] |= 1u << (code & 31u);
    }
    for (uint32_t w = 0; w < bw; w++) {
        rank[w] = n_present;
        n_present += (uint32_t)__builtin_popcount(bits[w]);
    }
    /* Each leaf is the end of exactly one k-mer path, so the ranks number the
     * leaves; anything else means a malformed automaton: keep the DFA walk. */
    if (n_present != a->n_leaves) goto done;
    /* One spare word, so that the table is never empty. */
    if (!(leaf_of = calloc((size_t)a->n_leaves + 1u, 4))) goto nomem;
    for (uint32_t code = 0, r = 0; code < n_kmers; code++)
        if (leaf[code] != 0xFFFFFFFFu) leaf_of[r++] = leaf[code];
    if (pair)
        for (uint32_t y = 0; y < 4u * n_kmers; y++) {
            uint32_t two = (leaf[y & kmask] != 0xFFFFFFFFu ? 1u : 0u) | (leaf[y >> 2] != 0xFFFFFFFFu ? 2u : 0u);
            pair[y >> 4] |= two << (2u * (y & 15u));
        }
    t->kbits = bits;
    t->krank = rank;
    t->kpair = pair;
    t->kleaf = leaf_of;
    t->bit_words = bw;
    t->pair_words = pw;
    t->leaf_words = a->n_leaves + 1u;
    bits = rank = pair = leaf_of = NULL;
    goto done;
nomem:
    rc = ps_fail(err, PS_E_NOMEM, "out of memory building the GPU k-mer tables (k = %d)", k);
done:
    free(bits);
    free(rank);
    free(leaf);
    free(pair);
    free(leaf_of);
    return rc;
}

int ps_gpu_host_tables_build(ps_gpu_host_tables_t *t, const ps_automaton_t *a, ps_err_t *err)
{
    memset(t, 0, sizeof *t);
    if (a->n_states <= 65536u) {
        const size_t entries = (size_t)a->n_states << a->shift;
        /* Zero-padded to 16 bytes, so the shared copy can move uint4s. */
        if (!(t->dfa16 = calloc(ps_gpu_dfa_bytes(a, 2), 1)))
            return ps_fail(err, PS_E_NOMEM, "out of memory building the 16-bit GPU DFA");
        for (size_t i = 0; i < entries; i++) t->dfa16[i] = (uint16_t)a->delta[i];
    }
    int rc = kmer_build(t, a, err);
    if (rc != PS_OK) ps_gpu_host_tables_free(t);
    return rc;
}

void ps_gpu_host_tables_free(ps_gpu_host_tables_t *t)
{
    free(t->dfa16);
    free(t->kbits);
    free(t->krank);
    free(t->kpair);
    free(t->kleaf);
    memset(t, 0, sizeof *t);
}

unsigned ps_gpu_host_tables_have(const ps_gpu_host_tables_t *t)
{
    return (t->dfa16 ? PS_GT_DFA16 : 0u) | (t->kbits ? PS_GT_KMER : 0u) | (t->kpair ? PS_GT_KPAIR : 0u);
}

/* Leaf counters that fit in `room` shared bytes: all of them, or a multiple
 * of 4 so that what follows stays 16-byte aligned. */
static uint32_t counters_fit(size_t room, uint32_t n_leaves)
{
    const size_t fit = room / 4u;
    return (uint32_t)(fit >= n_leaves ? n_leaves : fit & ~(size_t)3u);
}

/* The k-mer path. Its tables (<= 80 KB) fit in shared memory whatever the
 * number of probes, where the DFA stops fitting at ~19k states, and it has no
 * dependent chain. The pair table (two positions per lookup) is used when it
 * fits beside every counter; otherwise the counters get the room (1 position
 * per lookup), and ranks beyond what fits count with global atomics. */
static void plan_kmer(ps_gpu_plan_t *p, size_t optin)
{
    const uint32_t bw = ps_kmer_bit_words(p->k), pw = ps_kmer_pair_words(p->k);
    const size_t bit_bytes = (size_t)bw * 4u, pair_bytes = (size_t)pw * 4u;
    const size_t cnt_all = round16((size_t)p->n_leaves * 4u);
    size_t tables;
    if ((p->tables & PS_GT_KPAIR) && 2u * bit_bytes + pair_bytes + cnt_all <= optin) {
        p->kmer_m = 2;
        tables = 2u * bit_bytes + pair_bytes;
        p->cnt_shared = p->n_leaves;
    } else {
        p->kmer_m = 1;
        tables = 2u * bit_bytes;
        p->cnt_shared = counters_fit(optin > tables ? optin - tables : 0, p->n_leaves);
    }
    /* After the choice of M, so only the counters move. */
    if (p->no_shared_counts) p->cnt_shared = 0;
    p->walk_variant = -1;
    p->dfa_shared = 0;
    p->dfa16 = 0;
    p->dfa_bytes = 0;
    p->hw = 0;
    p->halo_words = 0;
    p->bit_words = bw;
    p->pair_words = p->kmer_m == 2 ? pw : 0u;
    p->cnt_bytes = (uint32_t)round16((size_t)p->cnt_shared * 4u);
    p->threads = PS_KMER_THREADS;
    p->smem = tables + p->cnt_bytes;
}

/* The DFA walk of variant dv. Shared memory goes to the text stage (staged
 * variants), then to the DFA (read at every symbol), then to as many leaf
 * counters as fit (leaf, best); leaves beyond cnt_shared use global atomics.
 * This is the switch between the shared and the partitioned count paths. */
static void plan_walk(ps_gpu_plan_t *p, int dv, const ps_automaton_t *a, size_t optin)
{
    const uint32_t pw = PS_PER_WORD(p->bits);
    const uint32_t hw = (uint32_t)(p->k - 1 + (int)pw - 1) / pw;
    const int staged = dv != PS_K_BASELINE && dv != PS_K_SHARED;
    p->walk_variant = dv;
    p->threads = dv == PS_K_BEST ? PS_BEST_THREADS : PS_STEP_THREADS;
    p->hw = hw;
    p->halo_words = staged ? (hw + 15u) & ~15u : 0u;
    size_t stage = 0;
    if (staged) {
        /* Padded rows: one spare word per 16 (the kernels' bank-conflict-free index). */
        const size_t words = p->halo_words + (size_t)p->threads * PS_TILE_WORDS;
        stage = round16((words + words / 16u) * 4u);
    }
    size_t budget = optin > stage ? optin - stage : 0;

    p->dfa16 = dv == PS_K_BEST && (p->tables & PS_GT_DFA16);
    const size_t dfa_bytes = ps_gpu_dfa_bytes(a, p->dfa16 ? 2u : 4u);
    p->dfa_shared = dv != PS_K_BASELINE && dfa_bytes <= budget;
    if (p->dfa_shared) budget -= dfa_bytes;
    p->cnt_shared = dv == PS_K_LEAF || dv == PS_K_BEST ? counters_fit(budget, p->n_leaves) : 0u;
    /* After the DFA's placement, so only the counters move. */
    if (p->no_shared_counts) p->cnt_shared = 0;
    p->dfa_bytes = p->dfa_shared ? (uint32_t)dfa_bytes : 0u;
    p->cnt_bytes = (uint32_t)round16((size_t)p->cnt_shared * 4u);
    p->bit_words = 0;
    p->pair_words = 0;
    p->smem = (size_t)p->dfa_bytes + p->cnt_bytes + stage;
}

int ps_gpu_plan_choose(ps_gpu_plan_t *p, int variant, const ps_automaton_t *a, unsigned tables,
                       const ps_gpu_limits_t *lim, ps_err_t *err)
{
    if (variant < 0 || variant >= PS_K_COUNT)
        return ps_fail(err, PS_E_INTERNAL, "GPU plan: kernel variant %d out of range", variant);
    if (a->shift != 2 && a->shift != 5)
        return ps_fail(err, PS_E_INTERNAL, "GPU plan: unexpected DFA row shift %d", a->shift);
    p->variant = variant;
    p->bits = a->shift; /* 2 or 5, equal to the packing width */
    p->k = a->k;
    p->n_states = a->n_states;
    p->leaf_base = a->leaf_base;
    p->n_leaves = a->n_leaves;
    p->tables = tables;
    p->kmer_m = 0;
    p->blocks = 0;
    /* The switch between the k-mer path and the DFA walk: `best` (unless
     * no_kmer) and `kmer` take the k-mer path whenever its tables were built,
     * i.e. DNA with k <= PS_KMER_MAX_K. */
    if ((tables & PS_GT_KMER) && (variant == PS_K_KMER || (variant == PS_K_BEST && !p->no_kmer)))
        plan_kmer(p, lim->smem_optin);
    else /* `kmer` without k-mer tables is configured as `best` */
        plan_walk(p, variant == PS_K_KMER ? PS_K_BEST : variant, a, lim->smem_optin);
    if (p->smem > lim->smem_optin)
        return ps_fail(err, PS_E_GPU, "GPU plan: kernel %s needs %zu bytes of shared memory per block, the GPU allows %zu",
                       names[variant], p->smem, lim->smem_optin);
    return PS_OK;
}

int ps_gpu_plan_kset(ps_gpu_plan_t *p, int k, int table_bits, int filter_bits, uint32_t n_leaves,
                     const ps_gpu_limits_t *lim, ps_err_t *err)
{
    if (k < 1 || k > 32 || table_bits < 1 || table_bits > 40 || filter_bits < 1 || filter_bits > 40)
        return ps_fail(err, PS_E_INTERNAL, "GPU plan: k-mer set of k = %d, %d table bits, %d filter bits", k,
                       table_bits, filter_bits);
    const int no_shared = p->no_shared_counts;
    memset(p, 0, sizeof *p);
    p->no_shared_counts = no_shared;
    p->variant = PS_K_BEST;
    p->bits = 2;
    p->k = k;
    p->n_leaves = n_leaves;
    p->kset = 1;
    p->table_bits = table_bits;
    p->filter_bits = filter_bits;
    p->threads = PS_KSET_THREADS;
    const size_t fbytes = (size_t)8 << filter_bits;
    p->filter_shared = !no_shared && fbytes <= lim->smem_optin && fbytes * PS_KSET_SMEM_BLOCKS <= lim->smem_sm;
    p->smem = p->filter_shared ? fbytes : 0;
    return PS_OK;
}

int ps_gpu_plan_resident_max(const ps_gpu_plan_t *p, const ps_gpu_limits_t *lim)
{
    int n = lim->max_blocks_sm;
    if (p->threads > 0 && lim->max_threads_sm / p->threads < n) n = lim->max_threads_sm / p->threads;
    if (p->smem > 0 && lim->smem_sm / p->smem < (size_t)n) n = (int)(lim->smem_sm / p->smem);
    return n;
}

int ps_gpu_plan_grid(ps_gpu_plan_t *p, int per_sm, const ps_gpu_limits_t *lim, ps_err_t *err)
{
    const int most = ps_gpu_plan_resident_max(p, lim);
    if (per_sm < 1 || per_sm > most)
        return ps_fail(err, PS_E_GPU,
                       "GPU plan: kernel %s: %d blocks of %d threads and %zu shared bytes resident per SM "
                       "(the device allows 1 to %d)",
                       names[p->variant], per_sm, p->threads, p->smem, most);
    p->blocks = per_sm * lim->n_sm;
    return PS_OK;
}

void ps_gpu_plan_format(const ps_gpu_plan_t *p, char *buf, size_t len)
{
    if (p->kset) {
        snprintf(buf, len,
                 "kernel k-mer set: k = %d, %u leaves; %llu slots in global memory; filter of %llu KiB in %s "
                 "memory; counts by global atomics; %d blocks x %d threads, %zu bytes shared",
                 p->k, p->n_leaves, 1ull << p->table_bits, (8ull << p->filter_bits) >> 10,
                 p->filter_shared ? "shared" : "global", p->blocks, p->threads, p->smem);
        return;
    }
    if (p->kmer_m) {
        snprintf(buf, len,
                 "kernel %s: k-mer lookups, k = %d, %u leaves; %s in shared memory (%d position%s per lookup); "
                 "leaf counters %u of %u in shared memory; %d blocks x %d threads, %zu bytes shared",
                 names[p->variant], p->k, p->n_leaves,
                 p->kmer_m == 2 ? "pair table, bitmap and ranks" : "bitmap and ranks", p->kmer_m,
                 p->kmer_m == 1 ? "" : "s", p->cnt_shared, p->n_leaves, p->blocks, p->threads, p->smem);
        return;
    }
    snprintf(buf, len,
             "kernel %s%s: %u states, %u leaves; DFA %s (%d-bit); leaf counters %u of %u in shared "
             "memory; %d blocks x %d threads, %zu bytes shared",
             names[p->variant],
             p->variant == PS_K_KMER ? " (no k-mer tables: protein or k > " STR(PS_KMER_MAX_K) "; best's DFA walk)"
             : p->variant == PS_K_BEST && (p->tables & PS_GT_KMER) ? " (k-mer path off)"
                                                                    : "",
             p->n_states, p->n_leaves,
             p->dfa_shared ? "in shared memory" : p->variant == PS_K_BASELINE ? "in global memory"
                                                                               : "read-only from global",
             p->dfa16 ? 16 : 32, p->cnt_shared, p->n_leaves, p->blocks, p->threads, p->smem);
}

void ps_gpu_chunk_shape(const ps_gpu_plan_t *p, uint64_t n, ps_gpu_chunk_shape_t *out)
{
    const uint32_t pw = PS_PER_WORD(p->bits);
    out->n = (uint32_t)n;
    out->nw = (uint32_t)((n + pw - 1) / pw);
    out->tw = PS_TILE_WORDS;
    /* Before ps_gpu_plan_grid (blocks 0) as one block, never a grid of 0. */
    const uint32_t blocks = p->blocks > 0 ? (uint32_t)p->blocks : 1u;
    if (p->kset) {
        /* Fewer words a thread where PS_TILE_WORDS would leave the grid
         * short of threads (a 1 MB chunk fills 16 blocks): a thread's
         * lookups cost far more than keying the words before its tile. */
        const uint64_t grid_threads = (uint64_t)blocks * (uint64_t)p->threads;
        const uint64_t tw = out->nw / grid_threads;
        out->tw = tw < 1 ? 1u : tw > PS_TILE_WORDS ? PS_TILE_WORDS : (uint32_t)tw;
    }
    const uint32_t tile = (uint32_t)p->threads * out->tw;
    out->n_btiles = (out->nw + tile - 1) / tile;
    out->grid = (unsigned)(out->n_btiles < blocks ? out->n_btiles : blocks);
}
