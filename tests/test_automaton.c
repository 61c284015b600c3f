/* test_automaton.c - the Aho-Corasick DFA of automaton.h against a naive
 * matcher: numbering (root 0, leaves last), completeness, the probe-to-leaf
 * maps, duplicates, palindromes and reverse complements, protein. */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "automaton.h"
#include "probes.h"
#include "testutil.h"


static uint32_t step(const ps_automaton_t *a, uint32_t s, uint32_t c)
{
    return a->delta[((uint64_t)s << a->shift) | c];
}

static uint32_t walk(const ps_automaton_t *a, const uint8_t *codes, int len)
{
    uint32_t s = 0;
    for (int i = 0; i < len; i++) s = step(a, s, codes[i]);
    return s;
}

/* The patterns inserted: each probe, and with both strands its reverse
 * complement, as symbol codes (pattern 2i = probe i, 2i+1 = its rc). */
static uint8_t *patterns(const ps_probes_t *p, int both, uint32_t *np)
{
    int k = p->k;
    uint32_t n = p->n * (both ? 2u : 1u);
    uint8_t *pat = malloc((size_t)n * (size_t)k);
    ck_assert_ptr_nonnull(pat);
    for (uint32_t i = 0; i < p->n; i++) {
        const uint8_t *code = p->code + (size_t)i * (size_t)k;
        uint8_t *f = pat + (size_t)i * (both ? 2u : 1u) * (size_t)k;
        memcpy(f, code, (size_t)k);
        if (both)
            for (int j = 0; j < k; j++) f[k + j] = (uint8_t)(3 - code[k - 1 - j]);
    }
    *np = n;
    return pat;
}

/* Breadth-first from the root: every state reachable, each state's depth
 * and the string leading to it (its trie label). */
typedef struct {
    uint32_t *depth, *parent;
    uint8_t *sym;
} bfs_t;

static bfs_t bfs(const ps_automaton_t *a)
{
    bfs_t b;
    uint32_t n = a->n_states;
    b.depth = malloc(n * sizeof *b.depth);
    b.parent = malloc(n * sizeof *b.parent);
    b.sym = malloc(n);
    uint32_t *queue = malloc(n * sizeof *queue);
    ck_assert(b.depth && b.parent && b.sym && queue);
    for (uint32_t s = 0; s < n; s++) b.depth[s] = UINT32_MAX;
    b.depth[0] = 0;
    b.parent[0] = 0;
    b.sym[0] = 0;
    uint32_t head = 0, tail = 0;
    queue[tail++] = 0;
    while (head < tail) {
        uint32_t s = queue[head++];
        for (int c = 0; c < a->sigma; c++) {
            uint32_t t = step(a, s, (uint32_t)c);
            if (b.depth[t] == UINT32_MAX) {
                b.depth[t] = b.depth[s] + 1;
                b.parent[t] = s;
                b.sym[t] = (uint8_t)c;
                queue[tail++] = t;
            }
        }
    }
    ck_assert_msg(tail == n, "only %u of %u states are reachable from the root", tail, n);
    free(queue);
    return b;
}

static void bfs_free(bfs_t *b)
{
    free(b->depth);
    free(b->parent);
    free(b->sym);
}

/* Label of state s written backwards into out (length depth(s)). */
static void label(const bfs_t *b, uint32_t s, uint8_t *out)
{
    uint32_t d = b->depth[s];
    while (d > 0) {
        out[--d] = b->sym[s];
        s = b->parent[s];
    }
}

static int cmp_prefix(const uint8_t *x, int lx, const uint8_t *y, int ly)
{
    if (lx != ly) return lx < ly ? -1 : 1;
    return memcmp(x, y, (size_t)lx);
}

/* Distinct prefixes (empty included) of the patterns: the trie's size. */
static uint32_t count_prefixes(const uint8_t *pat, uint32_t np, int k)
{
    /* Small sets only: quadratic. */
    uint32_t count = 1;
    for (int len = 1; len <= k; len++)
        for (uint32_t i = 0; i < np; i++) {
            int seen = 0;
            for (uint32_t j = 0; j < i && !seen; j++)
                seen = !cmp_prefix(pat + (size_t)i * k, len, pat + (size_t)j * k, len);
            count += !seen;
        }
    return count;
}

/* Distinct patterns, by sorting indices. */
static const uint8_t *g_pat;
static int g_k;
static int cmp_pat(const void *x, const void *y)
{
    uint32_t i = *(const uint32_t *)x, j = *(const uint32_t *)y;
    return memcmp(g_pat + (size_t)i * g_k, g_pat + (size_t)j * g_k, (size_t)g_k);
}

static uint32_t count_distinct(const uint8_t *pat, uint32_t np, int k)
{
    uint32_t *idx = malloc(np * sizeof *idx);
    ck_assert_ptr_nonnull(idx);
    for (uint32_t i = 0; i < np; i++) idx[i] = i;
    g_pat = pat;
    g_k = k;
    qsort(idx, np, sizeof *idx, cmp_pat);
    uint32_t d = np ? 1 : 0;
    for (uint32_t i = 1; i < np; i++) d += cmp_pat(&idx[i - 1], &idx[i]) != 0;
    free(idx);
    return d;
}

/* Leaf id of pattern q (a probe's sequence or reverse complement). */
static uint32_t pattern_leaf(const ps_automaton_t *a, uint32_t q, int both)
{
    return both ? a->leaves.probe_leaf[q & 1][q >> 1] : a->leaves.probe_leaf[0][q];
}

/* Everything that must hold for any probe set. */
static void check_structure(const tu_built_t *b, int both, int small)
{
    const ps_automaton_t *a = b->a;
    const ps_probes_t *p = b->p;
    int k = p->k;
    ck_assert_int_eq(a->k, k);
    ck_assert_int_eq(a->alpha, p->alpha);
    ck_assert_int_eq(a->sigma, ps_alpha_sigma(p->alpha));
    ck_assert_int_eq(a->shift, p->alpha == PS_DNA ? 2 : 5);
    ck_assert_int_ge(1 << a->shift, a->sigma);
    ck_assert_int_eq(!!a->both_strands, both);
    ck_assert_uint_le(a->leaf_base, a->n_states);
    ck_assert_uint_gt(a->leaf_base, 0); /* the root is not a leaf (k >= 1) */
    ck_assert_uint_eq(a->n_leaves, a->n_states - a->leaf_base);
    ck_assert_uint_eq(ps_automaton_table_bytes(a), ((uint64_t)a->n_states << a->shift) * 4);

    /* Complete, in range, unused columns zero. */
    for (uint64_t s = 0; s < a->n_states; s++)
        for (int c = 0; c < (1 << a->shift); c++) {
            uint32_t t = a->delta[(s << a->shift) | (uint64_t)c];
            if (c < a->sigma)
                ck_assert_msg(t < a->n_states, "delta[%llu][%d] = %u out of range",
                              (unsigned long long)s, c, t);
            else
                ck_assert_msg(t == 0, "unused column %d of state %llu is %u", c,
                              (unsigned long long)s, t);
        }

    /* Leaves last: depth k exactly from leaf_base on, < k before. */
    bfs_t d = bfs(a);
    for (uint32_t s = 0; s < a->n_states; s++) {
        if (s >= a->leaf_base)
            ck_assert_msg(d.depth[s] == (uint32_t)k, "leaf %u has depth %u, k=%d", s, d.depth[s], k);
        else
            ck_assert_msg(d.depth[s] < (uint32_t)k, "state %u below leaf_base has depth %u = k", s,
                          d.depth[s]);
    }

    uint32_t np;
    uint8_t *pat = patterns(p, both, &np);
    ck_assert_uint_eq(a->n_leaves, count_distinct(pat, np, k));
    if (small) ck_assert_uint_eq(a->n_states, count_prefixes(pat, np, k));

    /* Every pattern walks from the root to its mapped leaf; equal patterns
     * share a leaf, different ones do not; every leaf is some pattern's. */
    uint8_t *leaf_seen = calloc(a->n_leaves ? a->n_leaves : 1, 1);
    uint8_t *lab = malloc((size_t)k);
    ck_assert(leaf_seen && lab);
    for (uint32_t q = 0; q < np; q++) {
        uint32_t leaf = pattern_leaf(a, q, both);
        ck_assert_uint_lt(leaf, a->n_leaves);
        uint32_t s = walk(a, pat + (size_t)q * k, k);
        ck_assert_msg(s == a->leaf_base + leaf, "pattern %u walks to state %u, mapped to leaf %u", q,
                      s, leaf);
        label(&d, s, lab);
        ck_assert_int_eq(memcmp(lab, pat + (size_t)q * k, (size_t)k), 0);
        leaf_seen[leaf] = 1;
        if (small || q < 200)
            for (uint32_t r = 0; r < q; r++) {
                int same = !memcmp(pat + (size_t)q * k, pat + (size_t)r * k, (size_t)k);
                int same_leaf = pattern_leaf(a, r, both) == leaf;
                ck_assert_msg(same == same_leaf, "patterns %u and %u: equal %d but shared leaf %d",
                              q, r, same, same_leaf);
            }
    }
    for (uint32_t l = 0; l < a->n_leaves; l++) ck_assert_msg(leaf_seen[l], "leaf %u maps to no probe", l);
    free(leaf_seen);
    free(lab);
    free(pat);
    bfs_free(&d);
}

/* The DFA state after each text position must be the longest suffix of the
 * text read so far that is a prefix of some pattern; a leaf exactly when the
 * last k symbols are a pattern, and then that pattern's leaf. */
static void check_against_naive(const tu_built_t *b, int both, const uint8_t *text, int n)
{
    const ps_automaton_t *a = b->a;
    int k = b->p->k;
    uint32_t np;
    uint8_t *pat = patterns(b->p, both, &np);
    bfs_t d = bfs(a);
    uint8_t *lab = malloc((size_t)k + 1);
    ck_assert_ptr_nonnull(lab);
    uint32_t s = 0;
    for (int i = 0; i < n; i++) {
        s = step(a, s, text[i]);
        int longest = 0, match = -1;
        for (int len = (i + 1 < k ? i + 1 : k); len > 0 && !longest; len--)
            for (uint32_t q = 0; q < np; q++)
                if (!memcmp(text + i - len + 1, pat + (size_t)q * k, (size_t)len)) {
                    longest = len;
                    if (len == k) match = (int)q;
                    break;
                }
        ck_assert_msg(d.depth[s] == (uint32_t)longest,
                      "after symbol %d the state has depth %u, the longest pattern prefix is %d", i,
                      d.depth[s], longest);
        label(&d, s, lab);
        ck_assert_int_eq(memcmp(lab, text + i - longest + 1, (size_t)longest), 0);
        if (match >= 0) {
            ck_assert_uint_ge(s, a->leaf_base);
            ck_assert_uint_eq(s - a->leaf_base, pattern_leaf(a, (uint32_t)match, both));
        } else {
            ck_assert_uint_lt(s, a->leaf_base);
        }
    }
    free(lab);
    free(pat);
    bfs_free(&d);
}

static const char dna_letters[] = "ACGT";
static const char protein_letters[] = "ACDEFGHIKLMNPQRSTVWYBZXUOJ*";

/* Random small cases over a few letters, so that prefixes overlap a lot. */
static void random_cases(ps_alpha_t alpha, int both, uint64_t salt)
{
    tu_rng_t rng;
    tu_rng_seed(&rng, tu_seed() ^ salt);
    uint8_t table[256];
    ps_alpha_table(alpha, table);
    for (int round = 0; round < 120; round++) {
        int k = (int)tu_rng_range(&rng, 1, 8);
        uint32_t n = (uint32_t)tu_rng_range(&rng, 1, 24);
        const char *letters = alpha == PS_DNA ? dna_letters : protein_letters;
        int nl = (int)strlen(letters);
        /* A few letters per case: 2..4 for DNA, up to 6 for protein. */
        char pool[8];
        int npool = (int)tu_rng_range(&rng, 2, alpha == PS_DNA ? 4 : 6);
        for (int i = 0; i < npool; i++) pool[i] = letters[tu_rng_below(&rng, (uint64_t)nl)];
        char **seqs = malloc(n * sizeof *seqs);
        ck_assert_ptr_nonnull(seqs);
        for (uint32_t i = 0; i < n; i++) {
            seqs[i] = malloc((size_t)k + 1);
            ck_assert_ptr_nonnull(seqs[i]);
            if (i > 0 && tu_rng_chance(&rng, 15)) {
                memcpy(seqs[i], seqs[tu_rng_below(&rng, i)], (size_t)k + 1); /* duplicate */
                continue;
            }
            for (int j = 0; j < k; j++) seqs[i][j] = pool[tu_rng_below(&rng, (uint64_t)npool)];
            seqs[i][k] = '\0';
        }
        tu_built_t b = tu_build(n, (const char *const *)seqs, (ps_alpha_req_t)alpha, both);
        ck_assert_int_eq(b.p->alpha, alpha);
        check_structure(&b, both, 1);
        int tn = (int)tu_rng_range(&rng, 0, 400);
        uint8_t *text = malloc((size_t)tn + 1);
        ck_assert_ptr_nonnull(text);
        for (int i = 0; i < tn; i++) {
            if (tu_rng_chance(&rng, 10) && i + k <= tn) {
                /* Plant a probe or a piece of one. */
                const char *src = seqs[tu_rng_below(&rng, n)];
                int len = (int)tu_rng_range(&rng, 1, (uint64_t)k);
                for (int j = 0; j < len; j++) text[i + j] = table[(unsigned char)src[j]];
                i += len - 1;
                continue;
            }
            text[i] = table[(unsigned char)pool[tu_rng_below(&rng, (uint64_t)npool)]];
        }
        check_against_naive(&b, both, text, tn);
        free(text);
        tu_built_free(&b);
        for (uint32_t i = 0; i < n; i++) free(seqs[i]);
        free(seqs);
    }
}

START_TEST(test_random_dna_both) { random_cases(PS_DNA, 1, 0xa1); }
END_TEST

START_TEST(test_random_dna_forward) { random_cases(PS_DNA, 0, 0xa2); }
END_TEST

START_TEST(test_random_protein) { random_cases(PS_PROTEIN, 0, 0xa3); }
END_TEST

START_TEST(test_single_probe_chain)
{
    /* One probe of length k and forward only: a chain of k+1 states. */
    char seq[PS_MAX_K + 1];
    for (int i = 0; i < PS_MAX_K; i++) seq[i] = "ACGT"[(i * 7 + i / 3) % 4];
    seq[PS_MAX_K] = '\0';
    const char *seqs[1] = {seq};
    tu_built_t b = tu_build(1, seqs, PS_ALPHA_DNA, 0);
    ck_assert_int_eq(b.a->k, PS_MAX_K);
    ck_assert_uint_eq(b.a->n_states, PS_MAX_K + 1);
    ck_assert_uint_eq(b.a->leaf_base, PS_MAX_K);
    ck_assert_uint_eq(b.a->n_leaves, 1);
    ck_assert_uint_eq(b.a->leaves.probe_leaf[0][0], 0);
    check_structure(&b, 0, 1);
    tu_built_free(&b);

    /* k = 1: the leaves are the root's children. */
    const char *one[3] = {"A", "g", "A"};
    b = tu_build(3, one, PS_ALPHA_DNA, 0);
    ck_assert_uint_eq(b.a->n_states, 3);
    ck_assert_uint_eq(b.a->leaf_base, 1);
    ck_assert_uint_eq(b.a->leaves.probe_leaf[0][0], b.a->leaves.probe_leaf[0][2]);
    check_structure(&b, 0, 1);
    tu_built_free(&b);
    b = tu_build(3, one, PS_ALPHA_DNA, 1); /* with T and C: four leaves */
    ck_assert_uint_eq(b.a->n_leaves, 4);
    check_structure(&b, 1, 1);
    tu_built_free(&b);
}
END_TEST

START_TEST(test_duplicates_and_case)
{
    /* Case and U do not make a different probe. */
    const char *seqs[5] = {"ACGUA", "acgta", "ACGTA", "TTTTT", "AcGtA"};
    tu_built_t b = tu_build(5, seqs, PS_ALPHA_DNA, 1);
    for (int i = 1; i < 5; i++)
        if (i != 3) {
            ck_assert_uint_eq(b.a->leaves.probe_leaf[0][i], b.a->leaves.probe_leaf[0][0]);
            ck_assert_uint_eq(b.a->leaves.probe_leaf[1][i], b.a->leaves.probe_leaf[1][0]);
        }
    ck_assert_uint_ne(b.a->leaves.probe_leaf[0][3], b.a->leaves.probe_leaf[0][0]);
    ck_assert_uint_eq(b.a->n_leaves, 4); /* ACGTA TACGT TTTTT AAAAA */
    check_structure(&b, 1, 1);
    tu_built_free(&b);
}
END_TEST

START_TEST(test_palindromes)
{
    /* GAATTC and GGATCC are their own reverse complements. */
    const char *seqs[5] = {"GAATTC", "AAAAAA", "GGATCC", "TTTTTT", "GAATTC"};
    tu_built_t b = tu_build(5, seqs, PS_ALPHA_DNA, 1);
    const ps_automaton_t *a = b.a;
    ck_assert_uint_eq(a->leaves.probe_leaf[0][0], a->leaves.probe_leaf[1][0]);
    ck_assert_uint_eq(a->leaves.probe_leaf[0][2], a->leaves.probe_leaf[1][2]);
    ck_assert_uint_eq(a->leaves.probe_leaf[0][4], a->leaves.probe_leaf[1][4]);
    ck_assert_uint_eq(a->leaves.probe_leaf[0][4], a->leaves.probe_leaf[0][0]);
    ck_assert_uint_ne(a->leaves.probe_leaf[0][1], a->leaves.probe_leaf[1][1]);
    /* AAAAAA's reverse complement is the probe TTTTTT, and vice versa. */
    ck_assert_uint_eq(a->leaves.probe_leaf[1][1], a->leaves.probe_leaf[0][3]);
    ck_assert_uint_eq(a->leaves.probe_leaf[0][1], a->leaves.probe_leaf[1][3]);
    ck_assert_uint_eq(a->n_leaves, 4);
    check_structure(&b, 1, 1);
    tu_built_free(&b);

    /* Forward only: a palindrome is just one leaf, no rc inserted. */
    const char *fw[2] = {"GAATTC", "AAAAAA"};
    b = tu_build(2, fw, PS_ALPHA_DNA, 0);
    ck_assert_uint_eq(b.a->n_leaves, 2);
    check_structure(&b, 0, 1);
    tu_built_free(&b);

    /* Random even-length palindromes mixed with others, against the naive matcher. */
    tu_rng_t rng;
    tu_rng_seed(&rng, tu_seed() ^ 0xa4);
    uint8_t table[256];
    ps_alpha_table(PS_DNA, table);
    for (int round = 0; round < 40; round++) {
        int k = 2 * (int)tu_rng_range(&rng, 1, 4);
        char s[8][9];
        const char *ptr[8];
        for (int i = 0; i < 8; i++) {
            for (int j = 0; j < k / 2; j++) {
                int c = (int)tu_rng_below(&rng, 4);
                s[i][j] = dna_letters[c];
                s[i][k - 1 - j] = dna_letters[3 - c];
            }
            if (i % 2) s[i][tu_rng_below(&rng, (uint64_t)k)] = dna_letters[tu_rng_below(&rng, 4)];
            s[i][k] = '\0';
            ptr[i] = s[i];
        }
        b = tu_build(8, ptr, PS_ALPHA_DNA, 1);
        for (int i = 0; i < 8; i++) {
            int pal = 1;
            for (int j = 0; j < k; j++) pal &= table[(unsigned char)s[i][j]] == 3 - table[(unsigned char)s[i][k - 1 - j]];
            ck_assert_int_eq(pal, b.a->leaves.probe_leaf[0][i] == b.a->leaves.probe_leaf[1][i]);
        }
        check_structure(&b, 1, 1);
        uint8_t text[300];
        for (int i = 0; i < 300; i++) text[i] = (uint8_t)tu_rng_below(&rng, 4);
        check_against_naive(&b, 1, text, 300);
        tu_built_free(&b);
    }
}
END_TEST

START_TEST(test_protein)
{
    /* Rare letters are ordinary symbols; X matches only X. */
    const char *seqs[4] = {"MKXU", "mkxu", "BZO*", "JJJJ"};
    tu_built_t b = tu_build(4, seqs, PS_ALPHA_PROTEIN, 0);
    ck_assert_int_eq(b.p->alpha, PS_PROTEIN);
    ck_assert_uint_eq(b.a->leaves.probe_leaf[0][0], b.a->leaves.probe_leaf[0][1]);
    ck_assert_uint_eq(b.a->n_leaves, 3);
    check_structure(&b, 0, 1);
    uint8_t table[256];
    ps_alpha_table(PS_PROTEIN, table);
    const char *txt = "MKXUMKXMKAUMKXUBZO*JJJJJBZO";
    uint8_t text[64];
    int n = (int)strlen(txt);
    for (int i = 0; i < n; i++) text[i] = table[(unsigned char)txt[i]];
    check_against_naive(&b, 0, text, n);
    tu_built_free(&b);

    /* Both strands are for DNA only. */
    ps_probes_t *p = NULL;
    ps_automaton_t *a = NULL;
    ps_err_t err = {0};
    ck_assert_int_eq(ps_probes_from_strings(&p, 4, seqs, NULL, PS_ALPHA_PROTEIN, &err), PS_OK);
    ck_assert_int_lt(ps_automaton_build(&a, p, 1, &err), 0);
    ck_assert_msg(err.msg[0] != '\0', "the refusal says why");
    ps_probes_free(p);
}
END_TEST

/* Larger sets: the structure only (the naive matcher would be slow). */
START_TEST(test_large_sets)
{
    tu_rng_t rng;
    tu_rng_seed(&rng, tu_seed() ^ 0xa5);
    for (int round = 0; round < 4; round++) {
        ps_alpha_t alpha = round < 2 ? PS_DNA : PS_PROTEIN;
        int both = alpha == PS_DNA && round == 0;
        uint32_t n = alpha == PS_DNA ? 3000 : 1000;
        int k = alpha == PS_DNA ? (int)tu_rng_range(&rng, 10, 40) : (int)tu_rng_range(&rng, 5, 12);
        const char *letters = alpha == PS_DNA ? dna_letters : protein_letters;
        uint64_t nl = strlen(letters);
        char **seqs = malloc(n * sizeof *seqs);
        ck_assert_ptr_nonnull(seqs);
        for (uint32_t i = 0; i < n; i++) {
            seqs[i] = malloc((size_t)k + 1);
            ck_assert_ptr_nonnull(seqs[i]);
            if (i && tu_rng_chance(&rng, 20)) {
                /* Share a prefix with an earlier probe. */
                memcpy(seqs[i], seqs[tu_rng_below(&rng, i)], (size_t)k);
                int from = (int)tu_rng_below(&rng, (uint64_t)k);
                for (int j = from; j < k; j++) seqs[i][j] = letters[tu_rng_below(&rng, nl)];
            } else {
                for (int j = 0; j < k; j++) seqs[i][j] = letters[tu_rng_below(&rng, nl)];
            }
            seqs[i][k] = '\0';
        }
        tu_built_t b = tu_build(n, (const char *const *)seqs, (ps_alpha_req_t)alpha, both);
        check_structure(&b, both, 0);
        tu_built_free(&b);
        for (uint32_t i = 0; i < n; i++) free(seqs[i]);
        free(seqs);
    }
}
END_TEST

Suite *suite_automaton(void)
{
    Suite *s = suite_create("automaton");
    TCase *tc = tcase_create("automaton");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_single_probe_chain);
    tcase_add_test(tc, test_duplicates_and_case);
    tcase_add_test(tc, test_palindromes);
    tcase_add_test(tc, test_protein);
    tcase_add_test(tc, test_random_dna_both);
    tcase_add_test(tc, test_random_dna_forward);
    tcase_add_test(tc, test_random_protein);
    tcase_add_test(tc, test_large_sets);
    suite_add_tcase(s, tc);
    return s;
}
