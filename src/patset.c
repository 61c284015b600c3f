#include "patset.h"

#include <stdlib.h>
#include <string.h>

#include "pattern.h"

void ps_patset_free(ps_patset_t *ps)
{
    if (!ps) return;
    free(ps->leaves.probe_leaf[0]);
    free(ps->leaves.probe_leaf[1]);
    free(ps->B);
    free(ps->first);
    free(ps->last);
    free(ps->leaf_at);
    free(ps->len_at);
    free(ps);
}

/* Probe i's classes: read from the pattern, or made from an exact probe's codes. */
static uint32_t probe_classes(const ps_probes_t *p, uint32_t i, ps_class_t *cls)
{
    if (p->patterns) {
        memcpy(cls, p->cls + (size_t)i * (size_t)p->k, p->len[i] * sizeof *cls);
        return p->len[i];
    }
    for (int j = 0; j < p->k; j++) cls[j] = (ps_class_t)1 << p->code[(size_t)i * (size_t)p->k + (size_t)j];
    return (uint32_t)p->k;
}

int ps_patset_build(ps_patset_t **out, const ps_probes_t *p, int both_strands, int max_mm, ps_err_t *err)
{
    *out = NULL;
    if (max_mm < 0 || max_mm > PS_MAX_MM)
        return ps_fail(err, PS_E_USAGE, "--mismatches must be 0 to %d, not %d", PS_MAX_MM, max_mm);
    const int strands = both_strands && p->alpha == PS_DNA ? 2 : 1;
    ps_patset_t *ps = calloc(1, sizeof *ps);
    if (!ps) return ps_fail(err, PS_E_NOMEM, "out of memory");
    ps->max_mm = max_mm;
    ps->sigma = ps_alpha_sigma(p->alpha);
    ps->n_strings = p->n * (uint32_t)strands;
    uint64_t bits = 0;
    ps->min_len = UINT32_MAX;
    for (uint32_t i = 0; i < p->n; i++) {
        uint32_t len = p->patterns ? p->len[i] : (uint32_t)p->k;
        bits += (uint64_t)len * (uint64_t)strands;
        if (len < ps->min_len) ps->min_len = len;
    }
    if (bits > (uint64_t)UINT32_MAX / 2) {
        ps_patset_free(ps);
        return ps_fail(err, PS_E_USAGE, "%u patterns are too many (%llu positions)", p->n, (unsigned long long)bits);
    }
    ps->n_words = (uint32_t)((bits + 63) / 64);
    const size_t w = ps->n_words;
    ps->B = calloc((size_t)ps->sigma * w, sizeof *ps->B);
    ps->first = calloc(w, sizeof *ps->first);
    ps->last = calloc(w, sizeof *ps->last);
    ps->leaf_at = calloc(64 * w, sizeof *ps->leaf_at);
    ps->len_at = calloc(64 * w, sizeof *ps->len_at);
    for (int s = 0; s < strands; s++) ps->leaves.probe_leaf[s] = malloc((size_t)p->n * sizeof(uint32_t));
    if (!ps->B || !ps->first || !ps->last || !ps->leaf_at || !ps->len_at || !ps->leaves.probe_leaf[0] ||
        (strands == 2 && !ps->leaves.probe_leaf[1])) {
        ps_patset_free(ps);
        return ps_fail(err, PS_E_NOMEM, "out of memory for %u patterns", p->n);
    }
    const uint32_t levels = (uint32_t)max_mm + 1;
    ps_class_t cls[PS_PATTERN_MAX], rc[PS_PATTERN_MAX];
    uint64_t at = 0;
    for (uint32_t i = 0; i < p->n; i++) {
        uint32_t len = probe_classes(p, i, cls);
        if (strands == 2) ps_pattern_revcomp(cls, len, rc);
        for (int s = 0; s < strands; s++) {
            const ps_class_t *c = s ? rc : cls;
            uint32_t leaf = (i * (uint32_t)strands + (uint32_t)s) * levels;
            ps->leaves.probe_leaf[s][i] = leaf;
            ps->first[at / 64] |= 1ull << (at % 64);
            for (uint32_t j = 0; j < len; j++, at++)
                for (int sym = 0; sym < ps->sigma; sym++)
                    if (c[j] >> sym & 1) ps->B[(size_t)sym * w + at / 64] |= 1ull << (at % 64);
            ps->last[(at - 1) / 64] |= 1ull << ((at - 1) % 64);
            ps->leaf_at[at - 1] = leaf;
            ps->len_at[at - 1] = len;
        }
    }
    ps->leaves.alpha = p->alpha;
    ps->leaves.k = p->k;
    ps->leaves.levels = (int)levels;
    ps->leaves.mixed_lengths = ps->min_len < (uint32_t)p->k;
    ps->windows_only = 1;
    ps->leaves.both_strands = strands == 2;
    ps->leaves.n_leaves = ps->n_strings * levels;
    *out = ps;
    return PS_OK;
}
