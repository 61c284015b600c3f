/* prosite.h - PROSITE patterns reported as ps_scan reports them.
 *
 * ps_scan (pftools' ps_scan.pl, which InterProScan runs) turns a pattern
 * into a Perl regular expression and walks each sequence from its start:
 * the leftmost match from the current position is taken, the position moves
 * to that match's start + 1 (or, with -v, to its end), and the match is
 * reported unless a rule below drops it. Its rules, and the option of
 * count and locate that changes each (ps_scan's option in brackets):
 *   B, Z     a class that holds N or D also matches B, one with Q or E also Z;
 *            B written in a pattern means N, D or B, Z means Q, E or Z (also
 *            inside {}); always (pattern.c applies it to the engines' classes)
 *   X        a residue X matches every element; a match with more than max_x
 *            X's where the pattern names residues (not at x, not at {...}) is
 *            dropped (--max-x N [-x N], default 0)
 *   ends     at a start, the match Perl's backtracking finds first: each
 *            repeat e(n,m) as long as the rest still matches, the first repeat
 *            first (greedy); --shortest [-g]: each as short as can be (lazy)
 *   included a match that ends at or before the end of the last match
 *            reported in the sequence is not reported (--included [-i]:
 *            every start)
 *   overlaps --no-overlaps [-v]: the next match is looked for from the end
 *            of the last one found (reported or not), not from its start + 1
 *   frequent --skip-frequent [-s]: entries flagged SKIP-FLAG=TRUE are left out
 * These apply to protein probes in PROSITE syntax matched exactly (no -m).
 *
 * A match at a start is found here by backtracking in Perl's order over the
 * pattern's elements (an element: one class with its repeat), with failed
 * (element, position) pairs remembered, so that no start costs more than
 * elements x length steps. The engines find the starts (every start where
 * some match begins); this file gives each start its end and its X's, and
 * ps_psscan_report the rules that depend on the sites before it. */
#ifndef PS_PROSITE_H
#define PS_PROSITE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* A class as ps_scan reads it: letters (protein codes), B adding N and D,
 * Z adding Q and E, and, unless negated ({...}), N or D adding B and Q or E
 * adding Z. The caller negates. */
uint32_t ps_psscan_class(uint32_t letters, int negated);

/* The options above. */
typedef struct {
    int included, no_overlaps, shortest, skip_frequent;
    int max_x;
    /* PROSITE profiles (profscan.h): PS_PROFILES_* (ps_scan -r, -m) and
     * the cut-off level (ps_scan -l). */
    int profiles, level;
} ps_psopts_t;

enum { PS_PROFILES_TOO = 0, PS_PROFILES_NONE, PS_PROFILES_ONLY };

/* 1 when an option differs from ps_scan's defaults (so that a run can say
 * it was given where it does not apply). */
int ps_psopts_given(const ps_psopts_t *o);

typedef struct ps_psrule ps_psrule_t;

/* Compiles pattern text s[0..n) (PROSITE syntax, already accepted by
 * ps_pattern_parse for protein) into *out. Returns 0, or -1 with why. */
int ps_psrule_compile(const char *s, size_t n, ps_psrule_t **out, char *why, size_t why_len);
void ps_psrule_free(ps_psrule_t *r);

/* The longest match and the number of elements. */
uint32_t ps_psrule_max_len(const ps_psrule_t *r);
uint32_t ps_psrule_elements(const ps_psrule_t *r);

typedef struct {
    uint32_t len; /* residues matched */
    uint32_t n_x; /* X's matched where the pattern names residues */
} ps_psmatch_t;

/* The match ps_scan finds starting at text[0]: text[0..n) are protein
 * symbol codes, the rest of the sequence from there (n at least the longest
 * match, or all that is left of it); rec_start: text[0] is the sequence's
 * first residue; rec_end: text[n - 1] is its last. lazy: --shortest.
 * counts (NULL, or one a element): the residues each element took.
 * Returns 1 and fills *m, or 0 when no match starts at text[0]. */
int ps_psrule_match(const ps_psrule_t *r, const uint8_t *text, uint32_t n, int rec_start, int rec_end, int lazy,
                    ps_psmatch_t *m, uint16_t *counts);

/* ps_scan's text of that match (psa bodies, gff's Sequence): each element's
 * residues, those of x in lower case, then '.' up to the element's largest
 * repeat where it has one. out holds at least 2 * max_len + 1 bytes; returns
 * the length written (NUL-terminated). */
size_t ps_psrule_text(const ps_psrule_t *r, const uint8_t *text, const uint16_t *counts, char *out);

/* The rules that follow from the sites before: state per probe, sites
 * offered in order of record, then start. */
typedef struct {
    uint64_t rec;      /* the record of the last site offered, + 1 (0: none yet) */
    uint64_t prevstop; /* the end of the last site reported in it */
    uint64_t nextpos;  /* --no-overlaps: where the next search starts */
} ps_psstate_t;

/* Offers the match [start, end) of record rec (n_x: its X's); returns 1
 * when ps_scan reports it. */
int ps_psscan_report(const ps_psopts_t *o, ps_psstate_t *s, uint64_t rec, uint64_t start, uint64_t end,
                     uint32_t n_x);

#ifdef __cplusplus
}
#endif

#endif
