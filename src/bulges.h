/* bulges.h - guides with DNA and RNA bulges: the bulge set, as Cas-OFFinder
 * 3.0.0 (beta) defines a bulge, laid out for the bulge engine
 * (engine_bulges.h).
 *
 * A guide is a spacer S of n positions (bases, or N for "any") and a PAM of
 * a positions (IUPAC, matched exactly) at its 3' end (--pam, a Cas-OFFinder
 * pattern ending in its PAM) or 5' end (--pam5, a pattern starting with
 * it). f and l are S's first and last positions that are no N. Beside the
 * site of S itself (bulge type X), a site may hold:
 *   a DNA bulge of i bases (1 <= i <= dna): i extra genome bases inside the
 *     protospacer, before spacer position j: 3' PAM j in [f + 1, l + 1],
 *     5' PAM j in [f, l] (the site is n + i + a long);
 *   an RNA bulge of i bases (1 <= i <= rna): S[j .. j + i) has no genome
 *     base, j in [f, l - i] (n - i + a long).
 * Mismatches count in the spacer's aligned bases (not in the PAM, not in a
 * bulge), at most the guide's limit. Those are Cas-OFFinder 3.0.0's
 * variants: it inserts i N at each such j (DNA) or deletes S[j .. j + i)
 * (RNA).
 *
 * A site's length fixes its bulge type and size, so a distinct site (record,
 * start, end, strand) of a guide is one variant class; it may align with
 * its bulge at several positions j. Sites are listed and counted once, at
 * the position of fewest mismatches, the first from the guide's 5' end on
 * a tie; `--format cas-offinder` lists every position within the limit
 * instead, one row each, as Cas-OFFinder does (all_positions).
 *
 * Layout: one probe a variant (guide, class, j) in `variants`, named as its
 * guide, its sequence the site's pattern (spacer letters, N over a DNA
 * bulge, the PAM); leaves per variant, strand and distance. The engine
 * reports the variant of each site; the site writer and the count table
 * read the variant's guide and class from var[]. */
#ifndef PS_BULGES_H
#define PS_BULGES_H

#include <stdint.h>
#include <stdio.h>

#include "error.h"
#include "leaves.h"
#include "probes.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The most bases of one bulge, each kind. */
#define PS_BULGE_MAX 8
#define PS_BULGE_CLASSES (1 + 2 * PS_BULGE_MAX)

typedef enum { PS_BULGE_X, PS_BULGE_DNA, PS_BULGE_RNA } ps_bulge_type_t;

typedef struct {
    uint32_t guide;
    uint8_t type, size; /* ps_bulge_type_t, bases (0 for X) */
    uint8_t pos;        /* j: the bulge's spacer position, 5' to 3' on the guide */
    uint8_t cls;        /* class: 0 X, 1 .. dna DNA size, dna + 1 .. DNA + rna RNA size */
} ps_bulge_var_t;

typedef struct {
    int dna, rna;          /* the most bases of a DNA, an RNA bulge */
    int pam5;              /* the PAM is 5' of the spacer */
    int all_positions;     /* every bulge position within the limit is a row (Cas-OFFinder's rows) */
    uint32_t n, a;         /* spacer and PAM positions */
    uint32_t W;            /* the window read: n + dna + a <= 32 */
    uint32_t n_classes;    /* 1 + dna + rna */
    uint32_t n_guides;
    const ps_probes_t *guides;
    uint64_t *code, *care; /* per guide: the spacer, two bits a position, its first highest; 0b11 where
                            * a base is compared (not N) */
    uint8_t *lim;          /* per guide: its mismatch limit */
    uint8_t *jlo, *jn;     /* per guide and class: the first bulge position and how many (X: 0, 1) */
    uint32_t *var_at;      /* per guide and class: its first variant */
    uint64_t *pam_ok;      /* 4^a bits: the PAM codes (as read on the site's strand) that match */
    uint32_t n_var;
    ps_bulge_var_t *var;
    ps_probes_t *variants; /* one probe a variant (above) */
    ps_leaves_t leaves;    /* leaf of variant v, strand s, distance d: (v * strands + s) * levels + d */
} ps_bulgeset_t;

/* The bulge set of guides p (p->bulge_dna, p->bulge_rna > 0 or either; the
 * limits resolved), up to `mismatches`, both strands or forward. Refused,
 * with the reason, where the guides are not one spacer length beside one
 * PAM at one end, or a spacer position is neither a base nor N. */
int ps_bulgeset_build(ps_bulgeset_t **out, const ps_probes_t *p, int mismatches, int both, int all_positions,
                      ps_err_t *err);
void ps_bulgeset_free(ps_bulgeset_t *b);

/* The first bulge position of class c (0: none) and how many, for a spacer
 * whose first and last compared positions are f and l (Cas-OFFinder's
 * ranges, above; f < 0: no compared position). */
void ps_bulge_class_range(const ps_bulgeset_t *b, uint32_t c, int f, int l, int *lo, int *cnt);

/* The leaf of variant v on strand s at distance d. */
static inline uint32_t ps_bulge_leaf(const ps_bulgeset_t *b, uint32_t v, int s, int d)
{
    return (v * (b->leaves.both_strands ? 2u : 1u) + (uint32_t)s) * (uint32_t)b->leaves.levels + (uint32_t)d;
}

/* count's table over the leaf counts: a row a guide, `name sequence count
 * [forward reverse]` then, per distance d, mm<d> (no bulge), then dna<i>_mm<d>
 * and rna<i>_mm<d> for each bulge size. */
int ps_bulges_write_counts(FILE *f, const ps_bulgeset_t *b, const uint64_t *counts, ps_err_t *err);

/* Cas-OFFinder 3.0.0's header lines, and its row of variant v at a site
 * whose letters on its strand are site[0 .. len) (upper case) in record
 * `rec` at 0-based start `start` (the leftmost base on the forward
 * strand), strand s, d mismatches; returns the row's end in o, which holds
 * ps_bulges_row_most bytes. */
void ps_bulges_casoff_header(FILE *f);
size_t ps_bulges_row_most(const ps_bulgeset_t *b);
char *ps_bulges_casoff_row(const ps_bulgeset_t *b, char *o, uint32_t v, const char *site, size_t len,
                           const char *rec, size_t rec_len, uint64_t start, int s, int d);

/* The type's name: X, DNA or RNA. */
const char *ps_bulge_type_name(int type);

#ifdef __cplusplus
}
#endif

#endif
