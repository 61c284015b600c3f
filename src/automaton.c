#include "automaton.h"

#include <stdlib.h>
#include <string.h>

/* The transition table under construction: rows of 1 << shift entries. */
typedef struct {
    uint32_t *next;
    uint32_t n, cap;
    int shift;
} table_t;

static int table_grow(table_t *t, uint64_t want)
{
    uint64_t cap = t->cap ? t->cap : 1024;
    while (cap < want) cap *= 2;
    if (cap > UINT32_MAX / 2) return -1;
    uint32_t *next = realloc(t->next, (size_t)(cap << t->shift) * sizeof *next);
    if (!next) return -1;
    t->next = next;
    t->cap = (uint32_t)cap;
    return 0;
}

typedef struct {
    const uint8_t *s;
    size_t k;
} sort_ctx_t;

static int cmp_str(const void *x, const void *y, void *ctx)
{
    return memcmp(*(const uint8_t *const *)x, *(const uint8_t *const *)y, ((const sort_ctx_t *)ctx)->k);
}

/* The inserted strings: the probes' codes, then (strands 2) their reverse
 * complements, k bytes each. NULL when out of memory. */
static uint8_t *strand_strings(const ps_probes_t *p, int strands)
{
    const size_t k = (size_t)p->k;
    uint8_t *str = malloc((size_t)p->n * (size_t)strands * k);
    if (!str) return NULL;
    memcpy(str, p->code, (size_t)p->n * k);
    for (size_t i = 0; strands == 2 && i < p->n; i++)
        for (size_t j = 0; j < k; j++) str[(p->n + i) * k + j] = (uint8_t)(3 - p->code[i * k + k - 1 - j]);
    return str;
}

/* Trie nodes (= automaton states) of the strings: 1 + the sum over the
 * sorted strings of the symbols each adds past its common prefix with the
 * one before. Returns 0 when out of memory. */
static uint64_t exact_states(const ps_probes_t *p, int strands)
{
    const size_t k = (size_t)p->k, m = (size_t)p->n * (size_t)strands;
    uint8_t *str = strand_strings(p, strands);
    const uint8_t **v = malloc(m * sizeof *v);
    uint64_t nodes = 0;
    if (str && v) {
        for (size_t i = 0; i < m; i++) v[i] = str + i * k;
        sort_ctx_t ctx = {str, k};
        qsort_r(v, m, sizeof *v, cmp_str, &ctx);
        nodes = 1;
        for (size_t i = 0; i < m; i++) {
            size_t l = 0;
            if (i)
                while (l < k && v[i][l] == v[i - 1][l]) l++;
            nodes += k - l;
        }
    }
    free(str);
    free(v);
    return nodes;
}

int ps_automaton_estimate(const ps_probes_t *p, int both_strands, int exact, uint64_t *states, uint64_t *bytes,
                          ps_err_t *err)
{
    const int strands = both_strands ? 2 : 1, shift = p->alpha == PS_DNA ? 2 : 5;
    const uint64_t m = (uint64_t)p->n * (uint64_t)strands, sigma = (uint64_t)ps_alpha_sigma(p->alpha);
    uint64_t s = 1;
    if (exact) {
        if (!(s = exact_states(p, strands)))
            return ps_fail(err, PS_E_NOMEM, "out of memory sizing the automaton for %u probes", p->n);
    } else {
        /* Depth d holds at most sigma^d nodes and at most one per string. */
        uint64_t level = 1;
        for (int d = 1; d <= p->k; d++) {
            level = level > m / sigma ? m : level * sigma < m ? level * sigma : m;
            s += level;
        }
    }
    /* The table grows by doubling from 1,024 rows (at most 2^20 at first):
     * at its last growth the old and the new copy are both held. Beside it:
     * the strings, each string's node and the failure links. */
    uint64_t cap = s < (1u << 20) ? 1024 : 1u << 20;
    while (cap < s) cap *= 2;
    uint64_t row = (uint64_t)sizeof(uint32_t) << shift;
    *states = s;
    *bytes = cap * row + cap / 2 * row + m * ((uint64_t)p->k + 2 * sizeof(uint32_t)) + s * sizeof(uint32_t);
    return PS_OK;
}

void ps_automaton_free(ps_automaton_t *a)
{
    if (!a) return;
    free(a->delta);
    free(a->leaves.probe_leaf[0]);
    free(a->leaves.probe_leaf[1]);
    free(a);
}

int ps_automaton_build(ps_automaton_t **out, const ps_probes_t *p, int both_strands, ps_err_t *err)
{
    *out = NULL;
    if (both_strands && p->alpha != PS_DNA)
        return ps_fail(err, PS_E_USAGE, "both strands can only be counted for DNA probes");
    const int k = p->k, sigma = ps_alpha_sigma(p->alpha);
    const int shift = p->alpha == PS_DNA ? 2 : 5;
    const int strands = both_strands ? 2 : 1;
    const uint32_t n_str = p->n * (uint32_t)strands;

    ps_automaton_t *a = calloc(1, sizeof *a);
    table_t t = {.shift = shift};
    uint8_t *str = NULL;    /* the inserted strings: probes, then reverse complements */
    uint32_t *cur = NULL;   /* each string's node at the current depth */
    uint32_t *fail = NULL;
    int ret = PS_OK;
    if (!a) goto nomem;
    a->alpha = p->alpha;
    a->sigma = sigma;
    a->shift = shift;
    a->k = k;
    a->both_strands = both_strands;
    for (int s = 0; s < strands; s++)
        if (!(a->leaves.probe_leaf[s] = malloc((size_t)p->n * sizeof(uint32_t)))) goto nomem;
    str = strand_strings(p, strands);
    cur = calloc(n_str, sizeof *cur);
    if (!str || !cur) goto nomem;

    /* Insert all strings one depth at a time: nodes are then numbered in
     * breadth-first order as they are made, so the depth-k nodes (the
     * leaves, and the only ones) come last and the table needs no
     * renumbering. 0 in a row means "no child yet" (the root is no child). */
    uint64_t bound = (uint64_t)n_str * (uint64_t)k + 1;
    if (table_grow(&t, bound < (1u << 20) ? bound : (1u << 20))) goto nomem;
    memset(t.next, 0, sizeof(uint32_t) << shift);
    t.n = 1;
    uint32_t leaf_base = 1;
    for (int d = 0; d < k; d++) {
        if (d == k - 1) leaf_base = t.n;
        for (uint32_t j = 0; j < n_str; j++) {
            size_t slot = ((size_t)cur[j] << shift) | str[(size_t)j * k + d];
            if (!t.next[slot]) {
                if (t.n == t.cap && table_grow(&t, (uint64_t)t.cap + 1)) goto nomem;
                memset(t.next + ((size_t)t.n << shift), 0, sizeof(uint32_t) << shift);
                t.next[slot] = t.n++;
            }
            cur[j] = t.next[slot];
        }
    }
    const uint32_t n = t.n;

    /* Failure transitions in node order (= breadth-first): a node's failure
     * state is shallower, so its row is complete when the node is reached. */
    fail = calloc(n, sizeof *fail);
    if (!fail) goto nomem;
    for (uint32_t u = 0; u < n; u++) {
        uint32_t *row = t.next + ((size_t)u << shift);
        const uint32_t *frow = t.next + ((size_t)fail[u] << shift);
        for (int c = 0; c < sigma; c++) {
            uint32_t v = row[c];
            if (v > u)
                fail[v] = u == 0 ? 0 : frow[c];
            else
                row[c] = u == 0 ? 0 : frow[c];
        }
    }

    a->n_states = n;
    a->leaf_base = leaf_base;
    a->n_leaves = n - leaf_base;
    uint32_t *delta = realloc(t.next, ((size_t)n << shift) * sizeof *delta);
    if (delta) t.next = delta;
    a->delta = t.next;
    t.next = NULL;
    for (int s = 0; s < strands; s++)
        for (uint32_t i = 0; i < p->n; i++) a->leaves.probe_leaf[s][i] = cur[(size_t)s * p->n + i] - leaf_base;
    a->leaves.alpha = a->alpha;
    a->leaves.k = k;
    a->leaves.levels = 1;
    a->leaves.both_strands = both_strands;
    a->leaves.n_leaves = a->n_leaves;
    goto done;

nomem:
    ret = ps_fail(err, PS_E_NOMEM, "out of memory building the automaton for %u probes of length %d",
                  p->n, k);
done:
    free(t.next);
    free(str);
    free(cur);
    free(fail);
    if (ret == PS_OK)
        *out = a;
    else
        ps_automaton_free(a);
    return ret;
}
