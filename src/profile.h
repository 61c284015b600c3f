/* profile.h - PROSITE profiles (MATRIX entries): read, and scored as
 * pfscanV3 (pftools 3) scores them.
 *
 * A generalized profile of length L has match positions 1..L and insertion
 * positions 0..L. Each match position scores a residue (M=, M0= for one
 * outside the profile's alphabet) and a deletion (D=); each insertion
 * position scores an inserted residue (I=, I0=), the transitions between
 * match (M), insertion (I) and deletion (D) states (MM MI MD IM II ID DM DI
 * DD) and the ways in and out: B0/B1 (entering at the sequence's first
 * residue / elsewhere) with BM BI BD, E0/E1 (leaving at its last residue /
 * elsewhere) with ME IE DE. Values are pftools' 16-bit integers: '*' is
 * -16383, a begin or end sum is kept at or above -12285 and must fit 16
 * bits. DEFAULT lines set what the following /I: and /M: lines leave out;
 * an /I: or /M: line that does not follow the other kind implies one of
 * defaults between them, as pftools reads them. DISJOINT PROTECT N1 N2: an
 * alignment may begin only before insertion position N1 and end only at or
 * after N1 (exits before it are forbidden), may not begin at or after N2,
 * and the residues aligned to N1..N2 are what two matches of one sequence
 * may not share.
 *
 * Scores (ps_profile_matches): pfscanV3 --no-heuristic's matches of one
 * sequence, found as its xalip finds them (each match the best-scoring
 * alignment over a stretch of the sequence, the residues of its protected
 * part locked before the next is looked for, the search restarted from the
 * last check point), each given its profile range as its xalit does. A
 * sequence's residues are its letters (lower case read as upper case);
 * other characters are left out, as pftools leaves them out.
 *
 * Cut-offs and normalised scores: the level (0 unless asked) must appear
 * once among the CUT_OFF lines. Its raw cut-off is its SCORE; where SCORE is
 * 0 and the level has an N_SCORE for the profile's normalisation, the raw
 * cut-off is the least raw score whose normalised score reaches N_SCORE
 * (pfscan 2's rule; pfscanV3 reports every alignment of score 0 or more
 * there). The normalisation is that of MODE 1 (the highest PRIORITY first):
 * LINEAR (R1 + R2 * raw) or GLE_ZSCORE (by sequence length, pfscan 2's
 * formula); a profile with none has raw scores only. A match's level is
 * pfscanV3's: the first CUT_OFF line (in file order) whose cut-off the score
 * reaches, else one below the last.
 *
 * An entry that cannot be read as pftools reads it (a value out of 16-bit
 * range, an unknown key, a length that disagrees with its lines, no single
 * cut-off of the level, GLE_ZSCAVE) is refused with the reason; the caller
 * warns and goes on. */
#ifndef PS_PROFILE_H
#define PS_PROFILE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define PS_PRF_NLOW (-16383)
#define PS_PRF_LETTERS 27 /* 0: a residue outside the profile's alphabet; 1..26: its letters */
#define PS_PRF_MAX_CUTS 8

/* States, in the order of the transition table. */
enum { PS_PRF_M = 0, PS_PRF_I = 1, PS_PRF_D = 2, PS_PRF_X = 3 };

typedef struct {
    char id[64], ac[32];
    char *consensus;           /* L letters (the SY= symbols) */
    uint32_t len;              /* L */
    uint8_t map[26];           /* letter 'A' + i -> index 0..26 */
    int32_t *match;            /* L rows of 28: [p-1][c] scores residue index c at position p; [p-1][27] deletion */
    int32_t *ins;              /* L + 1 rows of 28: [i][c] insertion scores at position i */
    int32_t *trans;            /* L + 1 rows of 16: [i][from * 4 + to], begins (X to) and ends (to X) included */
    int32_t *first;            /* L + 1 rows of 4: entries at the first residue (B0), [i][to] */
    int32_t *last;             /* L + 1 rows of 4: exits at the last residue (E0), [i][from] */
    uint32_t n1, n2;           /* the protected range (DISJOINT N1, N2) */
    int32_t cut;               /* the level's raw cut-off (derived: see cut_by_length) */
    int level;                 /* the level asked for */
    int n_cuts;
    int cut_level[PS_PRF_MAX_CUTS]; /* the CUT_OFF lines in file order: level, raw cut-off */
    int32_t cut_score[PS_PRF_MAX_CUTS];
    float cut_nscore[PS_PRF_MAX_CUTS]; /* N_SCORE for the normalisation's mode (NAN: none) */
    int norm;                  /* 0: none, 1: LINEAR, 2: GLE_ZSCORE */
    float r[5];                /* its R1..R5 */
    int cut_by_length;         /* GLE_ZSCORE with a SCORE of 0: the raw cut-off follows the sequence length */
} ps_profile_t;

/* Reads the MATRIX entry text[0..n) (its lines, ID to //) for cut-off
 * level `level`. Returns 0, or -1 with the reason in why (a refused entry;
 * *pr untouched), or -2 out of memory. */
int ps_profile_parse(ps_profile_t *pr, const char *text, size_t n, int level, char *why, size_t why_len);
void ps_profile_free(ps_profile_t *pr);

/* The raw cut-off for a sequence of n residues. */
int32_t ps_profile_cutoff(const ps_profile_t *pr, uint32_t n);
/* The normalised score of raw score s for a sequence of n residues (NAN
 * for a profile without normalisation). */
float ps_profile_nscore(const ps_profile_t *pr, int32_t s, uint32_t n);
/* pfscanV3's level of raw score s for a sequence of n residues. */
int ps_profile_level(const ps_profile_t *pr, int32_t s, uint32_t n);

/* Residues to the profile's indices: letters[0..n) letter numbers 0..25
 * (A..Z, either case; the caller has left other characters out) into idx. */
void ps_profile_index(const ps_profile_t *pr, const uint8_t *letters, uint32_t n, uint8_t *idx);

/* One match: residues [from, to] (1-based), profile range as pfscanV3
 * prints it (from, and to - L - 1), raw score. */
typedef struct {
    uint32_t from, to;
    int32_t pfrom, pto;
    int32_t score;
} ps_prf_match_t;

/* Scratch for one thread (grown as needed). */
typedef struct {
    int32_t *v;       /* (L + 1) * 4 state values */
    int32_t *pos;     /* (L + 1) * 6 positions */
    uint8_t *lock;    /* n + 2 */
    uint8_t *trace;   /* xalit's path codes */
    int32_t *v8;      /* ps_prf_bundle_best's rows (32-byte aligned) */
    size_t cap_v, cap_lock, cap_trace, cap_v8;
} ps_prf_work_t;

void ps_prf_work_free(ps_prf_work_t *w);

/* The best score of any alignment of idx[0..n) (pfscanV3's xali1): a
 * sequence whose best is under the cut-off has no match. */
int32_t ps_profile_best(const ps_profile_t *pr, const uint8_t *idx, uint32_t n, ps_prf_work_t *w);

/* Profiles scored side by side against one sequence, in PS_PRF_LANES
 * 16-bit vector lanes, a lane holding one profile or several end to end
 * (the longest first, each to the emptiest lane): best[i] is profile i's
 * score, never under its best (ps_profile_best) and equal to it unless a
 * sum fell under -32768, which only lets a sequence on to
 * ps_profile_matches. Several times faster. A row's cost is the bundle's
 * positions, its fullest lane's (profile lengths + 1). */
#define PS_PRF_LANES 16
typedef struct ps_prf_bundle ps_prf_bundle_t;
int ps_prf_bundle_new(ps_prf_bundle_t **out, const ps_profile_t *const *prs, int n);
void ps_prf_bundle_free(ps_prf_bundle_t *b);
uint32_t ps_prf_bundle_positions(const ps_prf_bundle_t *b);
/* 1 where no profile of the bundle allows a transition I to D or D to I
 * (pftools' NLOW, as in every PROSITE profile): its rows leave those terms
 * out, and run in full only for a sequence where they might count. */
int ps_prf_bundle_lean(const ps_prf_bundle_t *b);
/* How bundles and their lanes are filled: profiles prs[0..n) (len + 1
 * positions each) into `bins` bins, the longest first (ties in order),
 * each to the emptiest bin (the first of equals): bin[i], and where it
 * starts there at[i] (at may be NULL). Returns 0, or -1 out of memory. */
int ps_prf_pack(const ps_profile_t *const *prs, int n, uint32_t bins, uint32_t *bin, uint32_t *at);
/* letters[0..n): the sequence's residues as letter numbers 0..25 (A..Z).
 * best: the bundle's n scores, in its profiles' order (best[0] INT32_MIN:
 * out of memory). */
void ps_prf_bundle_best(const ps_prf_bundle_t *b, const uint8_t *letters, uint32_t n, int32_t *best, ps_prf_work_t *w);

/* A (sequence, profile) pair's matches at most, as pfscanV3 keeps them
 * ("Too many alignments found - list may be incomplete"): the search
 * stops at the PS_PRF_MAX_MATCHES-th. A legal profile can make the search
 * accept the same stretch again and again (a match whose acceptance locks
 * no new residue), so this bound is what ends it. */
#define PS_PRF_MAX_MATCHES 1023

/* The matches of idx[0..n) at or above cut-off `cut`, in the order found,
 * into *out (grown; *cap its room), PS_PRF_MAX_MATCHES at most (a pair
 * that reached it may have had more). Returns their number, or -1 out of
 * memory. */
int ps_profile_matches(const ps_profile_t *pr, const uint8_t *idx, uint32_t n, int32_t cut, ps_prf_work_t *w,
                       ps_prf_match_t **out, size_t *cap);
/* Up to PS_PRF_SEARCH_LANES pairs of one profile searched side by side, a
 * 32-bit vector lane a pair (AVX2; else one after another): pair i's
 * residues idx[i][0..n[i]), its cut-off cut[i]; its matches, as
 * ps_profile_matches gives them (PS_PRF_MAX_MATCHES at most), into
 * out[i] (grown; cap[i] its room), their number into nm[i]. Returns 0, or
 * -1 out of memory. */
#define PS_PRF_SEARCH_LANES 8
int ps_profile_matches_lanes(const ps_profile_t *pr, int k, const uint8_t *const *idx, const uint32_t *n,
                             const int32_t *cut, ps_prf_work_t *w, ps_prf_match_t **out, size_t *cap, int *nm);
/* The profile range (pfrom, pto) of a match whose from, to and score the
 * search found (pfscanV3's xalit; ps_profile_matches calls it for each of
 * its matches): for matches found elsewhere (the GPU's search). Returns 0,
 * or -1 out of memory. */
int ps_profile_range(const ps_profile_t *pr, const uint8_t *idx, uint32_t n, ps_prf_match_t *m, ps_prf_work_t *w);

#ifdef __cplusplus
}
#endif

#endif
