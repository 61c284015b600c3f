/* test_gpu_plan.c - the GPU engine's host-side decisions (gpu_plan.h),
 * without a GPU: the k-mer and 16-bit DFA tables against a brute-force oracle
 * built from the probes themselves, the plan's invariants on H100-, A100- and
 * L4-like limits for random automata, hand-computed plans, and the variant
 * names. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "automaton.h"
#include "gpu_plan.h"
#include "kmerset.h"
#include "pack.h"
#include "probes.h"
#include "testutil.h"

/* Shared memory: opt-in per block, per SM; threads and blocks per SM. */
static const ps_gpu_limits_t H100 = {132, 227u * 1024u, 228u * 1024u, 2048, 32};
static const ps_gpu_limits_t A100 = {108, 163u * 1024u, 164u * 1024u, 2048, 32};
static const ps_gpu_limits_t L4 = {58, 99u * 1024u, 100u * 1024u, 1536, 24};


/* n random probes of length k over the alphabet (duplicates possible). */
static tu_built_t build_random(tu_rng_t *r, ps_alpha_t al, int k, uint32_t n, int both)
{
    char **seqs = malloc(n * sizeof *seqs);
    ck_assert_ptr_nonnull(seqs);
    const int sigma = ps_alpha_sigma(al);
    for (uint32_t i = 0; i < n; i++) {
        seqs[i] = malloc((size_t)k + 1);
        ck_assert_ptr_nonnull(seqs[i]);
        for (int j = 0; j < k; j++) seqs[i][j] = ps_alpha_letter(al, (int)tu_rng_below(r, (uint64_t)sigma));
        seqs[i][k] = 0;
    }
    tu_built_t b = tu_build(n, (const char *const *)seqs, al == PS_DNA ? PS_ALPHA_DNA : PS_ALPHA_PROTEIN, both);
    for (uint32_t i = 0; i < n; i++) free(seqs[i]);
    free(seqs);
    return b;
}

static size_t r16(size_t x) { return (x + 15u) & ~(size_t)15u; }

static int bit(const uint32_t *w, uint64_t i) { return (int)((w[i >> 5] >> (i & 31u)) & 1u); }

/* The oracle: leaf + 1 of every k-mer code (0 = absent), from each probe's
 * symbol codes (and with both strands its reverse complement) and the
 * automaton's probe -> leaf maps, never from the DFA. */
static uint32_t *oracle_leaves(const tu_built_t *b)
{
    const int k = b->a->k;
    uint32_t *leaf1 = calloc((size_t)1 << (2 * k), sizeof *leaf1);
    ck_assert_ptr_nonnull(leaf1);
    for (uint32_t i = 0; i < b->p->n; i++) {
        const uint8_t *c = b->p->code + (size_t)i * (size_t)k;
        for (int strand = 0; strand < (b->a->both_strands ? 2 : 1); strand++) {
            uint32_t code = 0;
            for (int j = 0; j < k; j++) {
                uint32_t s = strand ? 3u - c[k - 1 - j] : c[j];
                code |= s << (2 * j); /* the oldest symbol in the low bits */
            }
            uint32_t want = b->a->leaves.probe_leaf[strand][i] + 1u;
            ck_assert_msg(leaf1[code] == 0 || leaf1[code] == want, "k-mer %u on two leaves", code);
            leaf1[code] = want;
        }
    }
    return leaf1;
}

static void check_dfa16(const ps_automaton_t *a, const ps_gpu_host_tables_t *t)
{
    if (a->n_states > 65536u) {
        ck_assert_ptr_null(t->dfa16);
        return;
    }
    ck_assert_ptr_nonnull(t->dfa16);
    const size_t entries = (size_t)a->n_states << a->shift, words = ps_gpu_dfa_bytes(a, 2) / 2u;
    ck_assert_uint_eq(ps_gpu_dfa_bytes(a, 2) % 16u, 0);
    ck_assert_uint_ge(words, entries);
    for (size_t i = 0; i < entries; i++) ck_assert_uint_eq(t->dfa16[i], a->delta[i]);
    for (size_t i = entries; i < words; i++) ck_assert_uint_eq(t->dfa16[i], 0);
}

/* Every table entry against the oracle, padding included. */
static void check_kmer_tables(const tu_built_t *b, const ps_gpu_host_tables_t *t)
{
    const ps_automaton_t *a = b->a;
    const int k = a->k;
    const uint32_t n_kmers = 1u << (2 * k), kmask = n_kmers - 1u;
    uint32_t *leaf1 = oracle_leaves(b);
    uint32_t n_present = 0;
    for (uint32_t c = 0; c < n_kmers; c++) n_present += leaf1[c] != 0;
    ck_assert_uint_eq(n_present, a->n_leaves);

    ck_assert_ptr_nonnull(t->kbits);
    ck_assert_ptr_nonnull(t->krank);
    ck_assert_ptr_nonnull(t->kleaf);
    ck_assert_uint_eq(t->bit_words, ps_kmer_bit_words(k));
    ck_assert_uint_eq(t->bit_words % 4u, 0);
    ck_assert_uint_ge((uint64_t)t->bit_words * 32u, n_kmers);
    uint32_t before = 0;
    for (uint32_t w = 0; w < t->bit_words; w++) {
        ck_assert_msg(t->krank[w] == before, "k = %d: rank of word %u is %u, want %u", k, w, t->krank[w], before);
        for (uint32_t j = 0; j < 32; j++) {
            const uint32_t c = w * 32u + j;
            const int want = c < n_kmers && leaf1[c] != 0;
            ck_assert_msg(bit(t->kbits, c) == want, "k = %d: k-mer %u bit %d, want %d", k, c, bit(t->kbits, c), want);
            before += (uint32_t)want;
        }
    }
    ck_assert_uint_eq(t->leaf_words, a->n_leaves + 1u);
    ck_assert_uint_eq(t->kleaf[a->n_leaves], 0);
    for (uint32_t c = 0; c < n_kmers; c++) {
        if (!leaf1[c]) continue;
        const uint32_t w = c >> 5;
        const uint32_t rank = t->krank[w] + (uint32_t)__builtin_popcount(t->kbits[w] & ((1u << (c & 31u)) - 1u));
        ck_assert_uint_lt(rank, a->n_leaves);
        ck_assert_msg(t->kleaf[rank] == leaf1[c] - 1u, "k = %d: k-mer %u (rank %u) on leaf %u, want %u", k, c, rank,
                      t->kleaf[rank], leaf1[c] - 1u);
    }
    if (k > 8) {
        ck_assert_ptr_null(t->kpair);
        ck_assert_uint_eq(t->pair_words, 0);
    } else {
        ck_assert_ptr_nonnull(t->kpair);
        ck_assert_uint_eq(t->pair_words, ps_kmer_pair_words(k));
        ck_assert_uint_eq(t->pair_words % 4u, 0);
        ck_assert_uint_ge((uint64_t)t->pair_words * 16u, 4u * n_kmers);
        for (uint64_t y = 0; y < (uint64_t)t->pair_words * 16u; y++) {
            const int last = y < 4u * n_kmers && leaf1[y & kmask] != 0;
            const int first = y < 4u * n_kmers && leaf1[y >> 2] != 0;
            ck_assert_msg(bit(t->kpair, 2u * y) == last && bit(t->kpair, 2u * y + 1u) == first,
                          "k = %d: pair entry %llu", k, (unsigned long long)y);
        }
    }
    free(leaf1);
}

START_TEST(test_kmer_tables_random)
{
    tu_rng_t r;
    tu_rng_seed(&r, tu_seed() ^ 0x6b6du);
    for (int round = 0; round < 60; round++) {
        const int k = (int)tu_rng_range(&r, 1, PS_KMER_MAX_K);
        const uint64_t all = (uint64_t)1 << (2 * k);
        const uint32_t n = (uint32_t)tu_rng_range(&r, 1, all < 3000 ? all : 3000);
        const int both = tu_rng_chance(&r, 50);
        tu_built_t b = build_random(&r, PS_DNA, k, n, both);
        ps_gpu_host_tables_t t;
        ps_err_t err;
        ck_assert_int_eq(ps_gpu_host_tables_build(&t, b.a, &err), PS_OK);
        ck_assert_uint_eq(ps_gpu_host_tables_have(&t),
                          PS_GT_DFA16 | PS_GT_KMER | (k <= 8 ? PS_GT_KPAIR : 0u));
        check_dfa16(b.a, &t);
        check_kmer_tables(&b, &t);
        ps_gpu_host_tables_free(&t);
        ck_assert_ptr_null(t.kbits);
        tu_built_free(&b);
    }
}
END_TEST

/* Protein, k past PS_KMER_MAX_K: no k-mer tables; more than 2^16 states: no
 * 16-bit DFA. */
START_TEST(test_tables_absent)
{
    tu_rng_t r;
    tu_rng_seed(&r, tu_seed() ^ 0x6b6eu);
    ps_gpu_host_tables_t t;
    ps_err_t err;
    tu_built_t b = build_random(&r, PS_PROTEIN, 5, 200, 0);
    ck_assert_int_eq(ps_gpu_host_tables_build(&t, b.a, &err), PS_OK);
    ck_assert_uint_eq(ps_gpu_host_tables_have(&t), PS_GT_DFA16);
    check_dfa16(b.a, &t);
    ps_gpu_host_tables_free(&t);
    tu_built_free(&b);

    b = build_random(&r, PS_DNA, PS_KMER_MAX_K + 1, 500, 1);
    ck_assert_int_eq(ps_gpu_host_tables_build(&t, b.a, &err), PS_OK);
    ck_assert_uint_eq(ps_gpu_host_tables_have(&t), PS_GT_DFA16);
    ps_gpu_host_tables_free(&t);
    tu_built_free(&b);

    b = build_random(&r, PS_DNA, 20, 10000, 0);
    ck_assert_uint_gt(b.a->n_states, 65536u);
    ck_assert_int_eq(ps_gpu_host_tables_build(&t, b.a, &err), PS_OK);
    ck_assert_uint_eq(ps_gpu_host_tables_have(&t), 0);
    check_dfa16(b.a, &t);
    ps_gpu_host_tables_free(&t);
    tu_built_free(&b);
}
END_TEST

/* Shared bytes of the staged text of a DFA-walk block, computed apart. */
static size_t stage_bytes(int walk, int threads, uint32_t halo)
{
    if (walk == PS_K_BASELINE || walk == PS_K_SHARED) return 0;
    size_t words = halo + (size_t)threads * PS_TILE_WORDS;
    return r16(4u * (words + words / 16u));
}

/* Every invariant of one plan; none is the planner's own arithmetic replayed
 * blindly: where a choice is a maximum, the next bigger one must not fit. */
static void check_plan(const ps_gpu_plan_t *p, int variant, const ps_automaton_t *a, unsigned have,
                       const ps_gpu_limits_t *lim, const char *what)
{
    const size_t optin = lim->smem_optin;
    ck_assert_int_eq(p->variant, variant);
    ck_assert_uint_eq(p->n_leaves, a->n_leaves);
    ck_assert_msg(p->smem <= optin, "%s: %zu shared bytes > %zu", what, p->smem, optin);
    ck_assert_uint_eq(p->smem % 16u, 0);
    ck_assert_uint_le(p->cnt_shared, a->n_leaves);
    ck_assert_uint_eq(p->cnt_bytes, r16((size_t)p->cnt_shared * 4u));
    if (p->no_shared_counts) ck_assert_uint_eq(p->cnt_shared, 0);

    const int want_kmer = a->alpha == PS_DNA && a->k <= PS_KMER_MAX_K &&
                          (variant == PS_K_KMER || (variant == PS_K_BEST && !p->no_kmer));
    ck_assert_msg((p->kmer_m != 0) == want_kmer, "%s: k-mer path %s", what, p->kmer_m ? "taken" : "not taken");
    char line[512];
    ps_gpu_plan_format(p, line, sizeof line);
    ck_assert_msg(strncmp(line, "kernel ", 7) == 0 && strstr(line, ps_gpu_variant_names()[variant]), "%s", line);
    ck_assert_msg((strstr(line, "k-mer lookups") != NULL) == want_kmer, "%s: %s", what, line);

    /* Counters: all of them, or a multiple of 4 and the next 4 do not fit. */
    const int counts_shared = p->kmer_m || p->walk_variant == PS_K_LEAF || p->walk_variant == PS_K_BEST;
    if (!counts_shared) ck_assert_uint_eq(p->cnt_shared, 0);
    else if (!p->no_shared_counts && p->cnt_shared < a->n_leaves)
        ck_assert_msg(p->cnt_shared % 4u == 0 && p->smem + 16u > optin, "%s: %u of %u counters, %zu bytes", what,
                      p->cnt_shared, a->n_leaves, p->smem);

    if (p->kmer_m) {
        const uint32_t bw = ps_kmer_bit_words(a->k), pw = ps_kmer_pair_words(a->k);
        const size_t all = 4u * (2u * (size_t)bw + pw) + r16((size_t)a->n_leaves * 4u);
        ck_assert_int_eq(p->threads, PS_KMER_THREADS);
        ck_assert_int_eq(p->kmer_m, a->k <= 8 && all <= optin ? 2 : 1);
        ck_assert_uint_eq(p->bit_words, bw);
        ck_assert_uint_eq(p->pair_words, p->kmer_m == 2 ? pw : 0u);
        ck_assert_uint_eq(p->smem, 4u * (2u * (size_t)p->bit_words + p->pair_words) + p->cnt_bytes);
        if (p->kmer_m == 2 && !p->no_shared_counts) ck_assert_uint_eq(p->cnt_shared, a->n_leaves);
        ck_assert(!p->dfa_shared && !p->dfa16 && !p->dfa_bytes && !p->hw && !p->halo_words);
        return;
    }
    const int walk = variant == PS_K_KMER ? PS_K_BEST : variant;
    const uint32_t per_word = PS_PER_WORD(a->shift);
    ck_assert_int_eq(p->walk_variant, walk);
    ck_assert_int_eq(p->threads, walk == PS_K_BEST ? PS_BEST_THREADS : PS_STEP_THREADS);
    ck_assert_uint_eq(p->hw, ((uint32_t)a->k - 1u + per_word - 1u) / per_word);
    ck_assert_uint_ge(p->hw * per_word, (uint32_t)a->k - 1u);
    const size_t stage = stage_bytes(walk, p->threads, p->halo_words);
    if (stage) ck_assert_msg(p->halo_words % 16u == 0 && p->halo_words >= p->hw && p->halo_words < p->hw + 16u, "%s", what);
    else ck_assert_uint_eq(p->halo_words, 0);
    ck_assert_int_eq(p->dfa16, walk == PS_K_BEST && (have & PS_GT_DFA16));
    const size_t dfa_bytes = ps_gpu_dfa_bytes(a, p->dfa16 ? 2u : 4u);
    if (walk == PS_K_BASELINE) ck_assert(!p->dfa_shared);
    else if (!p->dfa_shared) ck_assert_msg(stage + dfa_bytes > optin, "%s: a DFA of %zu bytes fits but stays global", what, dfa_bytes);
    ck_assert_uint_eq(p->dfa_bytes, p->dfa_shared ? dfa_bytes : 0u);
    ck_assert_uint_eq(p->smem, (size_t)p->dfa_bytes + p->cnt_bytes + stage);
    ck_assert(!p->bit_words && !p->pair_words);
}

/* The grid and the chunk tiles of a chosen plan. */
static void check_grid(ps_gpu_plan_t *p, const ps_gpu_limits_t *lim, tu_rng_t *r)
{
    ps_err_t err;
    const int most = ps_gpu_plan_resident_max(p, lim);
    ck_assert_int_ge(most, 1);
    ck_assert_int_le(most, lim->max_blocks_sm);
    ck_assert_int_le(most * p->threads, lim->max_threads_sm);
    ck_assert_uint_le((size_t)most * p->smem, lim->smem_sm);
    ck_assert(most == lim->max_blocks_sm || (most + 1) * p->threads > lim->max_threads_sm ||
              (size_t)(most + 1) * p->smem > lim->smem_sm);
    ck_assert_int_eq(ps_gpu_plan_grid(p, 0, lim, &err), PS_E_GPU);
    ck_assert_int_eq(ps_gpu_plan_grid(p, most + 1, lim, &err), PS_E_GPU);
    const int per_sm = (int)tu_rng_range(r, 1, (uint64_t)most);
    ck_assert_int_eq(ps_gpu_plan_grid(p, per_sm, lim, &err), PS_OK);
    ck_assert_int_eq(p->blocks, per_sm * lim->n_sm);

    const uint32_t per_word = PS_PER_WORD(p->bits), tile = (uint32_t)p->threads * PS_TILE_WORDS;
    for (int i = 0; i < 8; i++) {
        const uint64_t n = i == 0 ? 1 : tu_rng_range(r, 1, (uint64_t)1 << (i * 4));
        ps_gpu_chunk_shape_t cs;
        ps_gpu_chunk_shape(p, n, &cs);
        ck_assert_uint_eq(cs.n, n);
        ck_assert_uint_ge((uint64_t)cs.nw * per_word, n);
        ck_assert_uint_lt((uint64_t)(cs.nw - 1u) * per_word, n);
        ck_assert_uint_ge((uint64_t)cs.n_btiles * tile, cs.nw);
        ck_assert_uint_lt((uint64_t)(cs.n_btiles - 1u) * tile, cs.nw);
        ck_assert_uint_eq(cs.grid, cs.n_btiles < (uint32_t)p->blocks ? cs.n_btiles : (uint32_t)p->blocks);
    }
}

START_TEST(test_plan_random)
{
    tu_rng_t r;
    tu_rng_seed(&r, tu_seed() ^ 0x6b6fu);
    const ps_gpu_limits_t *lims[] = {&H100, &A100, &L4};
    for (int round = 0; round < 24; round++) {
        const int dna = round % 4 != 3;
        const int k = (int)tu_rng_range(&r, 1, dna ? 13 : 9);
        const uint64_t sigma = dna ? 4 : 27;
        uint64_t all = 1;
        for (int i = 0; i < k && all < 40000; i++) all *= sigma;
        const uint32_t n = (uint32_t)tu_rng_range(&r, 1, all < 40000 ? all : 40000);
        tu_built_t b = build_random(&r, dna ? PS_DNA : PS_PROTEIN, k, n, dna && tu_rng_chance(&r, 50));
        ps_gpu_host_tables_t t;
        ps_err_t err;
        ck_assert_int_eq(ps_gpu_host_tables_build(&t, b.a, &err), PS_OK);
        const unsigned have = ps_gpu_host_tables_have(&t);
        ck_assert_uint_eq(!!(have & PS_GT_KMER), dna && k <= PS_KMER_MAX_K);
        ps_gpu_host_tables_free(&t);
        for (int li = 0; li < 3; li++)
            for (int v = 0; v < PS_K_COUNT; v++)
                for (int no_kmer = 0; no_kmer < 2; no_kmer++) {
                    char what[160];
                    snprintf(what, sizeof what, "%s k = %d, %u leaves, %u states, limits %d, kernel %s%s",
                             dna ? "DNA" : "protein", k, b.a->n_leaves, b.a->n_states, li,
                             ps_gpu_variant_names()[v], no_kmer ? ", no k-mer" : "");
                    ps_gpu_plan_t p, g;
                    memset(&p, 0, sizeof p);
                    p.no_kmer = no_kmer;
                    int rc = ps_gpu_plan_choose(&p, v, b.a, have, lims[li], &err);
                    ck_assert_msg(rc == PS_OK, "%s: %s", what, err.msg);
                    check_plan(&p, v, b.a, have, lims[li], what);
                    /* Counters forced global: only the counters move. */
                    memset(&g, 0, sizeof g);
                    g.no_kmer = no_kmer;
                    g.no_shared_counts = 1;
                    ck_assert_int_eq(ps_gpu_plan_choose(&g, v, b.a, have, lims[li], &err), PS_OK);
                    check_plan(&g, v, b.a, have, lims[li], what);
                    ck_assert(g.kmer_m == p.kmer_m && g.dfa_shared == p.dfa_shared && g.dfa16 == p.dfa16 &&
                              g.threads == p.threads && g.smem + p.cnt_bytes == p.smem);
                    check_grid(&p, lims[li], &r);
                    check_grid(&g, lims[li], &r);
                }
        tu_built_free(&b);
    }
}
END_TEST

static ps_gpu_plan_t plan_of(const ps_automaton_t *a, int variant, int no_kmer, const ps_gpu_limits_t *lim)
{
    ps_gpu_host_tables_t t;
    ps_err_t err;
    ck_assert_int_eq(ps_gpu_host_tables_build(&t, a, &err), PS_OK);
    ps_gpu_plan_t p;
    memset(&p, 0, sizeof p);
    p.no_kmer = no_kmer;
    int rc = ps_gpu_plan_choose(&p, variant, a, ps_gpu_host_tables_have(&t), lim, &err);
    ck_assert_msg(rc == PS_OK, "%s", err.msg);
    ps_gpu_host_tables_free(&t);
    return p;
}

/* Plans worked out by hand. */
START_TEST(test_plan_exact)
{
    ps_err_t err;
    char line[512];
    /* One probe, k = 8: 9 states, 1 leaf. */
    const char *one[] = {"ACGTACGT"};
    tu_built_t b = tu_build(1, one, PS_ALPHA_DNA, 0);
    ck_assert_uint_eq(b.a->n_states, 9);
    ck_assert_uint_eq(b.a->n_leaves, 1);

    /* best on H100: pair table 4^9 x 2 bits = 65536 bytes, bitmap and ranks
     * 8192 bytes each, one counter in 16 bytes: 81936 bytes; 2 blocks of 1024
     * threads per SM. */
    ps_gpu_plan_t p = plan_of(b.a, PS_K_BEST, 0, &H100);
    ck_assert_int_eq(p.kmer_m, 2);
    ck_assert_uint_eq(p.pair_words, 16384);
    ck_assert_uint_eq(p.bit_words, 2048);
    ck_assert_uint_eq(p.cnt_shared, 1);
    ck_assert_uint_eq(p.cnt_bytes, 16);
    ck_assert_uint_eq(p.smem, 81936);
    ck_assert_int_eq(p.threads, 1024);
    ck_assert_int_eq(ps_gpu_plan_resident_max(&p, &H100), 2);
    ck_assert_int_eq(ps_gpu_plan_grid(&p, 2, &H100, &err), PS_OK);
    ck_assert_int_eq(p.blocks, 264);
    ps_gpu_plan_format(&p, line, sizeof line);
    ck_assert_str_eq(line, "kernel best: k-mer lookups, k = 8, 1 leaves; pair table, bitmap and ranks in shared memory "
                           "(2 positions per lookup); leaf counters 1 of 1 in shared memory; 264 blocks x 1024 "
                           "threads, 81936 bytes shared");
    ps_gpu_chunk_shape_t cs;
    ps_gpu_chunk_shape(&p, 1000000, &cs); /* 62500 words, tiles of 16384 */
    ck_assert(cs.nw == 62500 && cs.n_btiles == 4 && cs.grid == 4);

    /* best's DFA walk on H100: stage (16 + 512 x 16 words, padded 1 in 16)
     * 34896 bytes, 16-bit DFA 9 x 4 x 2 -> 80 bytes, one counter 16 bytes;
     * 4 blocks of 512 threads per SM. */
    p = plan_of(b.a, PS_K_BEST, 1, &H100);
    ck_assert_int_eq(p.kmer_m, 0);
    ck_assert(p.dfa_shared && p.dfa16);
    ck_assert_uint_eq(p.dfa_bytes, 80);
    ck_assert_uint_eq(p.hw, 1);
    ck_assert_uint_eq(p.halo_words, 16);
    ck_assert_uint_eq(p.cnt_shared, 1);
    ck_assert_uint_eq(p.smem, 34992);
    ck_assert_int_eq(ps_gpu_plan_resident_max(&p, &H100), 4);
    ck_assert_int_eq(ps_gpu_plan_grid(&p, 4, &H100, &err), PS_OK);
    ps_gpu_plan_format(&p, line, sizeof line);
    ck_assert_str_eq(line, "kernel best (k-mer path off): 9 states, 1 leaves; DFA in shared memory (16-bit); leaf "
                           "counters 1 of 1 in shared memory; 528 blocks x 512 threads, 34992 bytes shared");

    /* baseline: nothing in shared memory, 8 blocks of 256 threads per SM. */
    p = plan_of(b.a, PS_K_BASELINE, 0, &H100);
    ck_assert(!p.dfa_shared && !p.dfa16 && p.smem == 0 && p.cnt_shared == 0 && p.threads == 256);
    ck_assert_int_eq(ps_gpu_plan_resident_max(&p, &H100), 8);

    /* shared: the 32-bit DFA (144 bytes), no stage, no counters. */
    p = plan_of(b.a, PS_K_SHARED, 0, &H100);
    ck_assert(p.dfa_shared && !p.dfa16 && p.dfa_bytes == 144 && p.smem == 144 && p.halo_words == 0);

    /* Without the tables the planner is told of, best walks the 32-bit DFA. */
    memset(&p, 0, sizeof p);
    ck_assert_int_eq(ps_gpu_plan_choose(&p, PS_K_BEST, b.a, 0, &H100, &err), PS_OK);
    ck_assert(p.kmer_m == 0 && !p.dfa16 && p.dfa_bytes == 144 && p.smem == 144 + 16 + 34896);
    ps_gpu_plan_format(&p, line, sizeof line);
    ck_assert_msg(strstr(line, "kernel best: ") == line, "%s", line);

    /* A device with 48 KiB per block, or a variant that does not exist. */
    const ps_gpu_limits_t small = {16, 48u * 1024u, 64u * 1024u, 2048, 16};
    memset(&p, 0, sizeof p);
    ck_assert_int_eq(ps_gpu_plan_choose(&p, PS_K_BEST, b.a, 0, &small, &err), PS_OK);
    ck_assert_int_eq(ps_gpu_plan_choose(&p, PS_K_COUNT, b.a, 0, &H100, &err), PS_E_INTERNAL);
    ck_assert_int_eq(ps_gpu_plan_choose(&p, -1, b.a, 0, &H100, &err), PS_E_INTERNAL);
    tu_built_free(&b);

    /* k = 9, 10000 leaves on L4: no pair table; bitmap and ranks 2 x 32768
     * bytes leave 35840 bytes = 8960 counters; one 1024-thread block per SM. */
    b = tu_build_distinct(9, 10000);
    ck_assert_uint_eq(b.a->n_leaves, 10000);
    p = plan_of(b.a, PS_K_KMER, 0, &L4);
    ck_assert(p.kmer_m == 1 && p.pair_words == 0 && p.bit_words == 8192);
    ck_assert_uint_eq(p.cnt_shared, 8960);
    ck_assert_uint_eq(p.smem, 101376);
    ck_assert_int_eq(ps_gpu_plan_resident_max(&p, &L4), 1);
    ck_assert_int_eq(ps_gpu_plan_grid(&p, 1, &L4, &err), PS_OK);
    ck_assert_int_eq(p.blocks, 58);
    ps_gpu_plan_format(&p, line, sizeof line);
    ck_assert_str_eq(line, "kernel kmer: k-mer lookups, k = 9, 10000 leaves; bitmap and ranks in shared memory "
                           "(1 position per lookup); leaf counters 8960 of 10000 in shared memory; 58 blocks x "
                           "1024 threads, 101376 bytes shared");
    /* 8 bytes more room (8962 counters' worth) still give 8960: counters
     * come in fours, keeping what follows them 16-byte aligned. */
    ps_gpu_limits_t odd = L4;
    odd.smem_optin += 8u;
    p = plan_of(b.a, PS_K_KMER, 0, &odd);
    ck_assert(p.kmer_m == 1 && p.cnt_shared == 8960 && p.smem == 101376);
    /* The k-mer tables alone exceed 48 KiB. */
    ck_assert_int_eq(ps_gpu_plan_choose(&p, PS_K_KMER, b.a, PS_GT_KMER, &small, &err), PS_E_GPU);
    ck_assert_msg(tu_msg_has_number(err.msg, 65536) && tu_msg_has_number(err.msg, 49152), "%s", err.msg);
    tu_built_free(&b);

    /* k = 8, 10000 leaves: the pair table (65536 bytes) fits beside bitmap,
     * ranks and all 40000 counter bytes on H100 and A100 (121920 bytes), not
     * on L4, where all counters fit with 1 position per lookup. */
    b = tu_build_distinct(8, 10000);
    p = plan_of(b.a, PS_K_BEST, 0, &H100);
    ck_assert(p.kmer_m == 2 && p.cnt_shared == 10000 && p.smem == 121920);
    p = plan_of(b.a, PS_K_BEST, 0, &A100);
    ck_assert(p.kmer_m == 2 && p.cnt_shared == 10000 && p.smem == 121920);
    ck_assert_int_eq(ps_gpu_plan_resident_max(&p, &A100), 1);
    p = plan_of(b.a, PS_K_BEST, 0, &L4);
    ck_assert(p.kmer_m == 1 && p.cnt_shared == 10000 && p.smem == 56384);
    tu_built_free(&b);

    /* Protein: `kmer` runs best's DFA walk and says so. */
    const char *pep[] = {"MKV", "WWY"};
    b = tu_build(2, pep, PS_ALPHA_PROTEIN, 0);
    p = plan_of(b.a, PS_K_KMER, 0, &L4);
    ck_assert(p.kmer_m == 0 && p.walk_variant == PS_K_BEST && p.threads == 512 && p.dfa16);
    ck_assert_uint_eq(p.hw, 1);
    ps_gpu_plan_format(&p, line, sizeof line);
    ck_assert_msg(strstr(line, "kernel kmer (no k-mer tables: protein or k > 9; best's DFA walk): ") == line, "%s",
                  line);
    tu_built_free(&b);
}
END_TEST

START_TEST(test_variant_names)
{
    const char *const *names = ps_gpu_variant_names();
    for (int i = 0; i < PS_K_COUNT; i++) {
        ck_assert_ptr_nonnull(names[i]);
        ck_assert_int_eq(ps_gpu_variant(names[i]), i);
    }
    ck_assert_ptr_null(names[PS_K_COUNT]);
    ck_assert_str_eq(names[PS_K_BEST], "best");
    ck_assert_str_eq(names[PS_K_KMER], "kmer");
    ck_assert_int_eq(ps_gpu_variant(NULL), PS_K_BEST);
    ck_assert_int_eq(ps_gpu_variant("nosuch"), -1);
    ck_assert_int_eq(ps_gpu_variant(""), -1);
    ck_assert_int_eq(ps_gpu_variant("Best"), -1);

    const char *want = "best, kmer, leaf, compact, coalesced, shared, baseline";
    char buf[128];
    ck_assert_uint_eq(ps_gpu_variant_list(buf, sizeof buf), strlen(want));
    ck_assert_str_eq(buf, want);
    ck_assert_uint_eq(ps_gpu_variant_list(NULL, 0), strlen(want));
    memset(buf, 'x', sizeof buf);
    ck_assert_uint_eq(ps_gpu_variant_list(buf, 10), strlen(want));
    ck_assert_str_eq(buf, "best, kme");
    ck_assert_uint_eq(ps_gpu_variant_list(buf, 1), strlen(want));
    ck_assert_str_eq(buf, "");
}
END_TEST

/* The k-mer set kernel's plan: the filter in shared memory exactly while
 * PS_KSET_SMEM_BLOCKS copies fit an SM (and one fits a block), global
 * otherwise or when the bench's switch asks; the grid and the line. */
START_TEST(test_plan_kset)
{
    ps_err_t err;
    char line[512];
    ps_gpu_plan_t p;
    memset(&p, 0, sizeof p);
    /* H100: a 64 KiB filter (13 bits) three times is 192 KiB of 228: shared. */
    ck_assert_int_eq(ps_gpu_plan_kset(&p, 31, 22, 13, 1000, &H100, &err), PS_OK);
    ck_assert(p.kset && p.filter_shared && p.variant == PS_K_BEST && p.bits == 2 && p.kmer_m == 0);
    ck_assert_uint_eq(p.smem, 65536);
    ck_assert_int_eq(p.threads, PS_KSET_THREADS);
    ck_assert_int_eq(ps_gpu_plan_resident_max(&p, &H100), 3);
    ck_assert_int_eq(ps_gpu_plan_grid(&p, 3, &H100, &err), PS_OK);
    ck_assert_int_eq(p.blocks, 396);
    ck_assert_int_eq(ps_gpu_plan_grid(&p, 4, &H100, &err), PS_E_GPU);
    ps_gpu_plan_format(&p, line, sizeof line);
    ck_assert_str_eq(line, "kernel k-mer set: k = 31, 1000 leaves; 4194304 slots in global memory; filter of 64 KiB "
                           "in shared memory; counts by global atomics; 396 blocks x 256 threads, 65536 bytes shared");
    /* A chunk's words a thread: 16 while the grid has that many for every
     * thread, fewer (down to 1) for a chunk that would leave it short. */
    ps_gpu_chunk_shape_t cs;
    ps_gpu_chunk_shape(&p, 1ull << 26, &cs);
    ck_assert_uint_eq(cs.nw, 1u << 22);
    ck_assert_uint_eq(cs.tw, 16); /* 2^22 words / (396 x 256 threads) = 41 */
    ck_assert_uint_eq(cs.n_btiles, (1u << 22) / (256 * 16));
    ck_assert_uint_eq(cs.grid, 396);
    ps_gpu_chunk_shape(&p, 1u << 20, &cs); /* 65,536 words: 0.6 a thread */
    ck_assert_uint_eq(cs.tw, 1);
    ck_assert_uint_eq(cs.n_btiles, 256);
    ck_assert_uint_eq(cs.grid, 256);
    ps_gpu_chunk_shape(&p, 396ull * 256 * 16 * 5 + 7, &cs); /* 5 words a thread and a bit */
    ck_assert_uint_eq(cs.tw, 5);
    ck_assert_uint_eq(cs.n_btiles, (cs.nw + 256 * 5 - 1) / (256 * 5));
    ps_gpu_chunk_shape(&p, 1, &cs);
    ck_assert(cs.nw == 1 && cs.tw == 1 && cs.n_btiles == 1 && cs.grid == 1);
    /* 128 KiB: global, no shared memory; the grid as threads allow. */
    ck_assert_int_eq(ps_gpu_plan_kset(&p, 21, 23, 14, 2000000, &H100, &err), PS_OK);
    ck_assert(p.kset && !p.filter_shared);
    ck_assert_uint_eq(p.smem, 0);
    ck_assert_int_eq(ps_gpu_plan_resident_max(&p, &H100), 2048 / PS_KSET_THREADS);
    /* L4 (100 KiB an SM): 32 KiB shared, 64 KiB not. */
    ck_assert_int_eq(ps_gpu_plan_kset(&p, 21, 20, 12, 10, &L4, &err), PS_OK);
    ck_assert(p.filter_shared);
    ck_assert_int_eq(ps_gpu_plan_kset(&p, 21, 20, 13, 10, &L4, &err), PS_OK);
    ck_assert(!p.filter_shared);
    /* The switch keeps even the smallest filter global, and survives the plan. */
    p.no_shared_counts = 1;
    ck_assert_int_eq(ps_gpu_plan_kset(&p, 5, 8, 10, 10, &H100, &err), PS_OK);
    ck_assert(!p.filter_shared && p.no_shared_counts);
    p.no_shared_counts = 0;
    ck_assert_int_eq(ps_gpu_plan_kset(&p, 5, 8, 10, 10, &H100, &err), PS_OK);
    ck_assert(p.filter_shared);
    ck_assert_int_eq(ps_gpu_plan_kset(&p, 0, 8, 10, 10, &H100, &err), PS_E_INTERNAL);
    ck_assert_int_eq(ps_gpu_plan_kset(&p, 5, 8, 0, 10, &H100, &err), PS_E_INTERNAL);
    ck_assert_int_eq(ps_gpu_plan_kset(&p, 5, 0, 10, 10, &H100, &err), PS_E_INTERNAL);
    /* Before its grid a plan shapes chunks as one block, never a grid of 0. */
    ck_assert_int_eq(ps_gpu_plan_kset(&p, 5, 8, 10, 10, &H100, &err), PS_OK);
    ck_assert_int_eq(p.blocks, 0);
    ps_gpu_chunk_shape(&p, 1u << 20, &cs);
    ck_assert(cs.tw == 16 && cs.grid == 1 && cs.n_btiles == 16);
    ck_assert_int_eq(ps_gpu_plan_kset(&p, 33, 8, 10, 10, &H100, &err), PS_E_INTERNAL);

    /* The set count chooses from (PS_KMER_SET_FROM strings) keeps its filter
     * in shared memory on the H100; ten times more does not. */
    for (int big = 0; big < 2; big++) {
        const uint32_t n = (big ? 10u : 1u) * PS_KMER_SET_FROM / 2;
        tu_built_t b = tu_build_distinct(12, n);
        ps_kmerset_t *ks = NULL;
        ck_assert_int_eq(ps_kmerset_build(&ks, b.p, 1, 2, &err), PS_OK);
        ck_assert_int_eq(ps_gpu_plan_kset(&p, ks->k, ks->bits, ks->filter_bits, ks->leaves.n_leaves, &H100, &err),
                         PS_OK);
        ck_assert_msg(p.filter_shared == !big, "%u probes, both strands: filter of %d bits %s", n, ks->filter_bits,
                      p.filter_shared ? "shared" : "global");
        ps_kmerset_free(ks);
        tu_built_free(&b);
    }
}
END_TEST

Suite *suite_gpu_plan(void)
{
    Suite *s = suite_create("gpu_plan");
    TCase *tc = tcase_create("gpu_plan");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_variant_names);
    tcase_add_test(tc, test_plan_exact);
    tcase_add_test(tc, test_kmer_tables_random);
    tcase_add_test(tc, test_tables_absent);
    tcase_add_test(tc, test_plan_random);
    tcase_add_test(tc, test_plan_kset);
    suite_add_tcase(s, tc);
    return s;
}
