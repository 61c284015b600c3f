#include "bulges.h"

#include <ctype.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "guides.h"
#include "output.h"
#include "patset.h"
#include "pattern.h"

const char *ps_bulge_type_name(int type) { return type == PS_BULGE_DNA ? "DNA" : type == PS_BULGE_RNA ? "RNA" : "X"; }

static int code_of(unsigned bits) { return bits == 1 ? 0 : bits == 2 ? 1 : bits == 4 ? 2 : bits == 8 ? 3 : -1; }

void ps_bulgeset_free(ps_bulgeset_t *b)
{
    if (!b) return;
    free(b->code);
    free(b->care);
    free(b->lim);
    free(b->jlo);
    free(b->jn);
    free(b->var_at);
    free(b->pam_ok);
    free(b->var);
    free(b->leaves.probe_leaf[0]);
    free(b->leaves.probe_leaf[1]);
    ps_probes_free(b->variants);
    free(b);
}

void ps_bulge_class_range(const ps_bulgeset_t *b, uint32_t c, int f, int l, int *lo, int *cnt)
{
    if (c == 0 || f < 0) {
        *lo = 0;
        *cnt = c == 0;
        return;
    }
    const int dna = c <= (uint32_t)b->dna, i = dna ? (int)c : (int)c - b->dna;
    int hi;
    if (dna) {
        *lo = b->pam5 ? f : f + 1;
        hi = b->pam5 ? l : l + 1;
    } else {
        *lo = f;
        hi = l - i;
    }
    *cnt = hi >= *lo ? hi - *lo + 1 : 0;
}

int ps_bulgeset_build(ps_bulgeset_t **out, const ps_probes_t *p, int mismatches, int both, int all_positions,
                      ps_err_t *err)
{
    *out = NULL;
    if (p->alpha != PS_DNA) return ps_fail(err, PS_E_USAGE, "bulges are for DNA guides; these probes are protein");
    if (p->bulge_dna > PS_BULGE_MAX || p->bulge_rna > PS_BULGE_MAX)
        return ps_fail(err, PS_E_USAGE, "bulges of %d bases at most", PS_BULGE_MAX);
    if (p->n == 0) return ps_fail(err, PS_E_USAGE, "no guides");
    ps_bulgeset_t *b = calloc(1, sizeof *b);
    if (!b) return ps_fail(err, PS_E_NOMEM, "out of memory for the bulge set");
    b->dna = p->bulge_dna;
    b->rna = p->bulge_rna;
    b->all_positions = all_positions;
    b->guides = p;
    b->n_guides = p->n;
    b->n_classes = 1u + (uint32_t)b->dna + (uint32_t)b->rna;
    int rc = PS_OK;
    /* The PAM: the fixed positions, one block at one end, alike in every guide. */
    const size_t k = (size_t)p->k;
    const uint32_t L0 = p->patterns ? p->len[0] : (uint32_t)p->k;
    uint32_t a = 0;
    int pam5 = 0;
    if (p->fixed) {
        const uint8_t *fx = p->fixed;
        if (fx[0] && !fx[L0 - 1]) pam5 = 1;
        if (pam5) while (a < L0 && fx[a]) a++;
        else while (a < L0 && fx[L0 - 1 - a]) a++;
    }
    b->a = a;
    b->pam5 = pam5;
    b->n = L0 - a;
    if (b->n < 2) {
        rc = ps_fail(err, PS_E_USAGE, "bulges: guide '%s' has no spacer beside its PAM", p->name[0]);
        goto fail;
    }
    b->W = b->n + (uint32_t)b->dna + a;
    if (b->W > 32 || a > 10) {
        rc = ps_fail(err, PS_E_USAGE, "bulges: guides of %u bases, a PAM of %u and DNA bulges of %d take %u "
                                      "positions; the bulge engine reads at most 32 (and a PAM of 10)",
                     b->n, a, b->dna, b->W);
        goto fail;
    }
    if (b->n > 31) {
        rc = ps_fail(err, PS_E_USAGE, "bulges: spacers of up to 31 bases, not %u", b->n);
        goto fail;
    }
    if ((uint32_t)b->rna >= b->n) {
        rc = ps_fail(err, PS_E_USAGE, "bulges: an RNA bulge of %d bases in a spacer of %u", b->rna, b->n);
        goto fail;
    }
    const uint32_t C = b->n_classes, G = p->n;
    b->code = calloc(G, sizeof *b->code);
    b->care = calloc(G, sizeof *b->care);
    b->lim = malloc(G);
    b->jlo = calloc((size_t)G * C, 1);
    b->jn = calloc((size_t)G * C, 1);
    b->var_at = calloc((size_t)G * C + 1, sizeof *b->var_at);
    b->pam_ok = calloc(((size_t)1 << (2 * a)) / 64 + 1, sizeof *b->pam_ok);
    if (!b->code || !b->care || !b->lim || !b->jlo || !b->jn || !b->var_at || !b->pam_ok) goto oom;
    const uint32_t off = pam5 ? a : 0; /* the spacer's first position in a guide */
    unsigned pam_bits[32];
    for (uint32_t g = 0; g < G; g++) {
        const uint32_t len = p->patterns ? p->len[g] : (uint32_t)p->k;
        const char *s = p->seq[g];
        if (len != L0 || strlen(s) != L0) {
            rc = ps_fail(err, PS_E_USAGE, "bulges: guides '%s' and '%s' differ in length; one spacer length a run",
                         p->name[0], p->name[g]);
            goto fail;
        }
        for (uint32_t q = 0; q < L0; q++) {
            const int in_pam = pam5 ? q < a : q >= b->n;
            const int fixed = p->fixed && p->fixed[(size_t)g * k + q];
            if (fixed != in_pam) {
                rc = ps_fail(err, PS_E_USAGE, "bulges: guide '%s': the PAM must be one block at one end, alike in "
                                              "every guide (the spacer beside it holds no PAM base)", p->name[g]);
                goto fail;
            }
            const unsigned bits = ps_iupac_bits((unsigned char)s[q]);
            if (in_pam) {
                const uint32_t at = pam5 ? q : q - b->n;
                if (g == 0) pam_bits[at] = bits;
                else if (pam_bits[at] != bits) {
                    rc = ps_fail(err, PS_E_USAGE, "bulges: guides '%s' and '%s' have different PAMs", p->name[0],
                                 p->name[g]);
                    goto fail;
                }
                continue;
            }
            const int cd = code_of(bits);
            if (cd < 0 && bits != 15) {
                rc = ps_fail(err, PS_E_USAGE, "bulges: guide '%s': '%c' at %u; a spacer holds bases A, C, G, T and "
                                              "N only", p->name[g], s[q], q + 1);
                goto fail;
            }
            const uint32_t j = q - off;
            const unsigned sh = 2 * (b->n - 1 - j);
            if (cd >= 0) {
                b->code[g] |= (uint64_t)cd << sh;
                b->care[g] |= (uint64_t)3 << sh;
            }
        }
        b->lim[g] = p->limit && p->limit[g] != PS_NO_LIMIT ? p->limit[g] : (uint8_t)mismatches;
        int f = -1, l = -1;
        for (uint32_t j = 0; j < b->n; j++)
            if (b->care[g] >> (2 * (b->n - 1 - j)) & 3) {
                if (f < 0) f = (int)j;
                l = (int)j;
            }
        for (uint32_t c = 0; c < C; c++) {
            int lo, cnt;
            ps_bulge_class_range(b, c, f, l, &lo, &cnt);
            b->jlo[(size_t)g * C + c] = (uint8_t)lo;
            b->jn[(size_t)g * C + c] = (uint8_t)cnt;
            b->var_at[(size_t)g * C + c + 1] = b->var_at[(size_t)g * C + c] + (uint32_t)cnt;
        }
    }
    /* The PAM's codes, as read on the site's strand, first base highest. */
    for (uint64_t x = 0; x < (uint64_t)1 << (2 * a); x++) {
        int ok = 1;
        for (uint32_t q = 0; q < a && ok; q++) ok = pam_bits[q] >> (x >> (2 * (a - 1 - q)) & 3) & 1;
        if (ok) b->pam_ok[x >> 6] |= (uint64_t)1 << (x & 63);
    }
    /* The variants, each a probe: the site's pattern. */
    b->n_var = b->var_at[(size_t)G * C];
    if (!(b->var = malloc(((size_t)b->n_var + 1) * sizeof *b->var))) goto oom;
    {
        const size_t most = L0 + (size_t)b->dna + 1;
        char *text = malloc((size_t)b->n_var * most + 1);
        const char **seqs = malloc(((size_t)b->n_var + 1) * sizeof *seqs);
        const char **names = malloc(((size_t)b->n_var + 1) * sizeof *names);
        if (!text || !seqs || !names) {
            free(text);
            free(seqs);
            free(names);
            goto oom;
        }
        for (uint32_t g = 0; g < G; g++) {
            const char *s = p->seq[g];
            for (uint32_t c = 0; c < C; c++) {
                const int dna = c >= 1 && c <= (uint32_t)b->dna;
                const int i = c == 0 ? 0 : dna ? (int)c : (int)c - b->dna;
                for (uint32_t t = 0; t < b->jn[(size_t)g * C + c]; t++) {
                    const uint32_t v = b->var_at[(size_t)g * C + c] + t;
                    const uint32_t j = b->jlo[(size_t)g * C + c] + t, J = j + off;
                    b->var[v] = (ps_bulge_var_t){g, (uint8_t)(c == 0 ? PS_BULGE_X : dna ? PS_BULGE_DNA : PS_BULGE_RNA),
                                                 (uint8_t)i, (uint8_t)j, (uint8_t)c};
                    char *o = text + (size_t)v * most;
                    size_t w = 0;
                    if (c == 0) {
                        memcpy(o, s, L0);
                        w = L0;
                    } else if (dna) {
                        memcpy(o, s, J);
                        w = J;
                        for (int e = 0; e < i; e++) o[w++] = 'N';
                        memcpy(o + w, s + J, L0 - J);
                        w += L0 - J;
                    } else {
                        memcpy(o, s, J);
                        w = J;
                        memcpy(o + w, s + J + (uint32_t)i, L0 - J - (uint32_t)i);
                        w += L0 - J - (uint32_t)i;
                    }
                    o[w] = '\0';
                    seqs[v] = o;
                    names[v] = p->name[g];
                }
            }
        }
        rc = ps_probes_from_strings(&b->variants, b->n_var, seqs, names, PS_ALPHA_DNA, err);
        free(text);
        free(seqs);
        free(names);
        if (rc < 0) goto fail;
    }
    /* Leaves: a variant, strand and distance each. */
    const uint32_t strands = both ? 2u : 1u, levels = (uint32_t)mismatches + 1;
    if ((uint64_t)b->n_var * strands * levels >= UINT32_MAX) {
        rc = ps_fail(err, PS_E_USAGE, "bulges: %u guides make %u variants; too many for one run", G, b->n_var);
        goto fail;
    }
    ps_leaves_t *lv = &b->leaves;
    lv->alpha = PS_DNA;
    lv->levels = (int)levels;
    lv->both_strands = both;
    lv->mixed_lengths = b->dna || b->rna;
    lv->mm_columns = 1;
    lv->k = (int)(L0 + (uint32_t)b->dna);
    lv->n_leaves = b->n_var * strands * levels;
    for (uint32_t s = 0; s < strands; s++) {
        if (!(lv->probe_leaf[s] = malloc(((size_t)b->n_var + 1) * sizeof *lv->probe_leaf[s]))) goto oom;
        for (uint32_t v = 0; v < b->n_var; v++) lv->probe_leaf[s][v] = (v * strands + s) * levels;
    }
    *out = b;
    return PS_OK;
oom:
    rc = ps_fail(err, PS_E_NOMEM, "out of memory for the bulge set");
fail:
    ps_bulgeset_free(b);
    return rc;
}

int ps_bulges_write_counts(FILE *f, const ps_bulgeset_t *b, const uint64_t *counts, ps_err_t *err)
{
    const ps_probes_t *p = b->guides;
    const int both = b->leaves.both_strands, levels = b->leaves.levels;
    const uint32_t strands = both ? 2u : 1u, C = b->n_classes;
    fputs("name\tsequence\tcount", f);
    if (both) fputs("\tforward\treverse", f);
    for (uint32_t c = 0; c < C; c++)
        for (int d = 0; d < levels; d++) {
            if (c == 0) fprintf(f, "\tmm%d", d);
            else if (c <= (uint32_t)b->dna) fprintf(f, "\tdna%u_mm%d", c, d);
            else fprintf(f, "\trna%u_mm%d", c - (uint32_t)b->dna, d);
        }
    fputc('\n', f);
    uint64_t col[PS_BULGE_CLASSES * (PS_MAX_MM + 1)];
    for (uint32_t g = 0; g < b->n_guides; g++) {
        uint64_t total = 0, strand[2] = {0, 0};
        memset(col, 0, sizeof col);
        for (uint32_t c = 0; c < C; c++) {
            const uint32_t v0 = b->var_at[(size_t)g * C + c], v1 = b->var_at[(size_t)g * C + c + 1];
            for (uint32_t v = v0; v < v1; v++)
                for (uint32_t s = 0; s < strands; s++)
                    for (int d = 0; d < levels; d++) {
                        const uint64_t x = counts[ps_bulge_leaf(b, v, (int)s, d)];
                        col[c * (uint32_t)levels + (uint32_t)d] += x;
                        strand[s] += x;
                        total += x;
                    }
        }
        fprintf(f, "%s\t%s\t%" PRIu64, p->name[g], p->seq[g], total);
        if (both) fprintf(f, "\t%" PRIu64 "\t%" PRIu64, strand[0], strand[1]);
        for (uint32_t x = 0; x < C * (uint32_t)levels; x++) fprintf(f, "\t%" PRIu64, col[x]);
        fputc('\n', f);
    }
    if (ferror(f)) return ps_fail(err, PS_E_IO, "error writing the counts");
    return PS_OK;
}

void ps_bulges_casoff_header(FILE *f)
{
    fputs("##Generated by Cas-OFFinder 3.0.0\n"
          "#Id\tBulge Type\tcrRNA\tDNA\tChromosome\tLocation\tDirection\tMismatches\tBulge Size\n",
          f);
}

size_t ps_bulges_row_most(const ps_bulgeset_t *b)
{
    /* id (a name, or a number), crRNA and DNA with their bulges, numbers */
    size_t most = 0;
    for (uint32_t g = 0; g < b->n_guides; g++) {
        size_t l = strlen(b->guides->name[g]);
        if (l > most) most = l;
    }
    return most + 2 * ((size_t)b->n + b->a + (size_t)b->dna + (size_t)b->rna) + 3 * 24 + 16;
}

/* A site letter against the guide letter it aligns with: lower case where
 * it is none of the guide's bases (N takes all). */
static char marked(char c, char g)
{
    const unsigned gb = ps_iupac_bits((unsigned char)g);
    return gb != 15 && !(gb & ps_iupac_bits((unsigned char)c)) ? (char)tolower((unsigned char)c) : c;
}

char *ps_bulges_casoff_row(const ps_bulgeset_t *b, char *o, uint32_t v, const char *site, size_t len,
                           const char *rec, size_t rec_len, uint64_t start, int s, int d)
{
    const ps_bulge_var_t *x = &b->var[v];
    const ps_probes_t *p = b->guides;
    const char *G = p->query ? p->query[x->guide] : p->seq[x->guide];
    const size_t L = strlen(G), i = x->size, J = x->pos + (b->pam5 ? b->a : 0);
    /* Id: the guide's, or its line's number (from 0) where guides have none. */
    const char *nm = p->name[x->guide];
    if (strcmp(nm, p->seq[x->guide]) && (!p->query || strcmp(nm, p->query[x->guide]))) {
        size_t nl = strlen(nm);
        memcpy(o, nm, nl);
        o += nl;
    } else {
        o = ps_put_u64(o, x->guide);
    }
    *o++ = '\t';
    const char *t = ps_bulge_type_name(x->type);
    while (*t) *o++ = *t++;
    *o++ = '\t';
    /* crRNA */
    if (x->type == PS_BULGE_DNA) {
        memcpy(o, G, J);
        o += J;
        for (size_t e = 0; e < i; e++) *o++ = '-';
        memcpy(o, G + J, L - J);
        o += L - J;
    } else {
        memcpy(o, G, L);
        o += L;
    }
    *o++ = '\t';
    /* DNA: the site on its strand, mismatches in lower case */
    if (x->type == PS_BULGE_X) {
        for (size_t q = 0; q < len; q++) *o++ = marked(site[q], q < L ? G[q] : 'N');
    } else if (x->type == PS_BULGE_DNA) {
        for (size_t q = 0; q < len; q++)
            *o++ = q < J ? marked(site[q], G[q]) : q < J + i ? site[q] : marked(site[q], G[q - i]);
    } else {
        for (size_t q = 0; q < J && q < len; q++) *o++ = marked(site[q], G[q]);
        for (size_t e = 0; e < i; e++) *o++ = '-';
        for (size_t q = J; q < len; q++) *o++ = marked(site[q], G[q + i]);
    }
    *o++ = '\t';
    memcpy(o, rec, rec_len);
    o += rec_len;
    *o++ = '\t';
    o = ps_put_u64(o, start);
    *o++ = '\t';
    *o++ = s ? '-' : '+';
    *o++ = '\t';
    o = ps_put_u64(o, (uint64_t)d);
    *o++ = '\t';
    o = ps_put_u64(o, i);
    *o++ = '\n';
    return o;
}
