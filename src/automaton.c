#include "automaton.h"

#include <stdlib.h>
#include <string.h>

/* Trie under construction: rows of 1 << shift child ids, 0 meaning "none"
 * (the root is never a child). */
typedef struct {
    uint32_t *next;
    uint16_t *depth;
    uint32_t n, cap;
    int shift;
} trie_t;

static int trie_grow(trie_t *t)
{
    uint64_t cap = t->cap ? (uint64_t)t->cap * 2 : 1024;
    if (cap > UINT32_MAX / 2) return -1;
    uint32_t *next = realloc(t->next, (size_t)(cap << t->shift) * sizeof *next);
    if (!next) return -1;
    t->next = next;
    uint16_t *depth = realloc(t->depth, (size_t)cap * sizeof *depth);
    if (!depth) return -1;
    t->depth = depth;
    t->cap = (uint32_t)cap;
    return 0;
}

static int trie_new_node(trie_t *t, uint16_t depth, uint32_t *id)
{
    if (t->n == t->cap && trie_grow(t)) return -1;
    memset(t->next + ((size_t)t->n << t->shift), 0, sizeof(uint32_t) << t->shift);
    t->depth[t->n] = depth;
    *id = t->n++;
    return 0;
}

/* Inserts sym[0..k) and returns the node where it ends. */
static int trie_insert(trie_t *t, const uint8_t *sym, int k, uint32_t *leaf)
{
    uint32_t s = 0;
    for (int i = 0; i < k; i++) {
        size_t slot = ((size_t)s << t->shift) | sym[i];
        if (!t->next[slot]) {
            uint32_t id;
            if (trie_new_node(t, (uint16_t)(i + 1), &id)) return -1;
            t->next[slot] = id;
        }
        s = t->next[slot];
    }
    *leaf = s;
    return 0;
}

void ps_automaton_free(ps_automaton_t *a)
{
    if (!a) return;
    free(a->delta);
    free(a->probe_leaf[0]);
    free(a->probe_leaf[1]);
    free(a);
}

int ps_automaton_build(ps_automaton_t **out, const ps_probes_t *p, int both_strands, ps_err_t *err)
{
    *out = NULL;
    if (both_strands && p->alpha != PS_DNA)
        return ps_fail(err, PS_E_USAGE, "both strands can only be counted for DNA probes");
    int k = p->k, sigma = ps_alpha_sigma(p->alpha);
    int shift = p->alpha == PS_DNA ? 2 : 5;
    int strands = both_strands ? 2 : 1;

    ps_automaton_t *a = calloc(1, sizeof *a);
    trie_t t = {.shift = shift};
    uint32_t *fail = NULL, *order = NULL, *newid = NULL;
    uint8_t *rc = malloc((size_t)k);
    int ret = PS_OK;
    if (!a || !rc) goto nomem;
    a->alpha = p->alpha;
    a->sigma = sigma;
    a->shift = shift;
    a->k = k;
    a->both_strands = both_strands;
    a->n_probes = p->n;
    for (int s = 0; s < strands; s++)
        if (!(a->probe_leaf[s] = malloc((size_t)p->n * sizeof(uint32_t)))) goto nomem;

    /* Size the trie for the worst case (no shared prefixes) when that is
     * modest, sparing the copies of repeated growth. */
    uint64_t bound = (uint64_t)p->n * (uint64_t)k * (uint64_t)strands + 1;
    if ((bound << shift) * sizeof(uint32_t) <= ((uint64_t)256 << 20)) {
        t.cap = (uint32_t)bound / 2;
        if (trie_grow(&t)) goto nomem;
    }
    uint32_t root;
    if (trie_new_node(&t, 0, &root)) goto nomem;
    for (uint32_t i = 0; i < p->n; i++) {
        const uint8_t *fw = p->code + (size_t)i * k;
        if (trie_insert(&t, fw, k, &a->probe_leaf[0][i])) goto nomem;
        if (both_strands) {
            for (int j = 0; j < k; j++) rc[j] = (uint8_t)(3 - fw[k - 1 - j]);
            if (trie_insert(&t, rc, k, &a->probe_leaf[1][i])) goto nomem;
        }
    }

    /* Breadth-first order fills the failure transitions, and since every
     * depth-k node is a leaf and no other is, it also puts the leaves last. */
    uint32_t n = t.n;
    fail = calloc(n, sizeof *fail);
    order = malloc((size_t)n * sizeof *order);
    newid = malloc((size_t)n * sizeof *newid);
    if (!fail || !order || !newid) goto nomem;
    uint32_t head = 0, tail = 0;
    order[tail++] = 0;
    while (head < tail) {
        uint32_t u = order[head++];
        uint32_t *row = t.next + ((size_t)u << shift);
        const uint32_t *frow = t.next + ((size_t)fail[u] << shift);
        for (int c = 0; c < sigma; c++) {
            uint32_t v = row[c];
            if (v) {
                fail[v] = u == 0 ? 0 : frow[c];
                order[tail++] = v;
            } else {
                row[c] = u == 0 ? 0 : frow[c];
            }
        }
    }
    if (tail != n) {
        ret = ps_fail(err, PS_E_INTERNAL, "automaton: %u of %u states reached", tail, n);
        goto done;
    }
    for (uint32_t i = 0; i < n; i++) newid[order[i]] = i;
    uint32_t leaf_base = n;
    for (uint32_t i = 0; i < n; i++)
        if (t.depth[order[i]] == k) { leaf_base = i; break; }

    a->n_states = n;
    a->leaf_base = leaf_base;
    a->n_leaves = n - leaf_base;
    a->delta = calloc((size_t)n << shift, sizeof *a->delta);
    if (!a->delta) goto nomem;
    for (uint32_t u = 0; u < n; u++) {
        const uint32_t *row = t.next + ((size_t)u << shift);
        uint32_t *drow = a->delta + ((size_t)newid[u] << shift);
        for (int c = 0; c < sigma; c++) drow[c] = newid[row[c]];
    }
    for (int s = 0; s < strands; s++)
        for (uint32_t i = 0; i < p->n; i++) a->probe_leaf[s][i] = newid[a->probe_leaf[s][i]] - leaf_base;
    goto done;

nomem:
    ret = ps_fail(err, PS_E_NOMEM, "out of memory building the automaton for %u probes of length %d",
                  p->n, k);
done:
    free(t.next);
    free(t.depth);
    free(fail);
    free(order);
    free(newid);
    free(rc);
    if (ret == PS_OK)
        *out = a;
    else
        ps_automaton_free(a);
    return ret;
}
