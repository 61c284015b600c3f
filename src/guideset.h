/* guideset.h - guides matched PAM first: the pattern set (patset.h) of a
 * guide library, laid out to test each window's PAM and then compare it
 * with every guide in one word.
 *
 * A set qualifies when every string is a window of one length m <= 32
 * whose fixed positions (patset.h's sub: a PAM, guides.h), if any, are one
 * block of P <= PS_GUIDESET_MAX_PAM positions with the same classes in
 * every string of a strand, and whose other positions are each one base
 * or any base (N); and when that saves work: its PAM takes at most a
 * quarter of the 4^P codes (NGG takes 1 in 16), or an exact-piece index
 * (below) leaves a quarter of the strings or fewer to compare a window. A window of m symbols is then a 2m-bit code w, its first symbol
 * highest; it is a site of string i on strand s when pam_ok[s] holds
 * (w >> pam_shift[s]) & pam_mask, and the symbols of w ^ code[i] that
 * differ within care[i] (two bits a compared base) number at most the
 * string's limit: those differences are its mismatches. Leaves, counting
 * rule and limits are the pattern set's (a string's distance-0 leaf and
 * its limit, from leaf_drop); the minus strand's strings are the set's
 * reverse complements, matched on the text as it is.
 *
 * Work a window: a table lookup a strand; where the PAM holds, the piece
 * keys and a compare (xor, and, shift, or, popcount) for each string in
 * their buckets, or for every string of the strand without an index. */
#ifndef PS_GUIDESET_H
#define PS_GUIDESET_H

#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "patset.h"

#ifdef __cplusplus
extern "C" {
#endif

#define PS_GUIDESET_MAX_LEN 32
#define PS_GUIDESET_MAX_PAM 10
#define PS_GUIDESET_MAX_PIECES (PS_MAX_MM + 1)

/* The exact-piece index of one strand's strings: with limits of at most D
 * mismatches, D + 1 disjoint pieces of their compared positions hold one
 * that a site matches exactly (pigeonhole). Piece q's key is
 * (w >> shift[q]) & key_mask[q]; the strings whose piece q is key are
 * ent[q][start[q][key] .. start[q][key + 1]), each with what its compare
 * needs, side by side. A string is compared at its first piece that
 * matches exactly (no piece before it does). */
typedef struct {
    uint64_t code;
    uint32_t leaf;
    uint32_t lim;
} ps_guide_entry_t;

typedef struct {
    uint32_t n;           /* pieces; 0: no index, every string is compared */
    uint64_t care;        /* the strings' compared positions (one mask for all) */
    uint32_t shift[PS_GUIDESET_MAX_PIECES];
    uint64_t key_mask[PS_GUIDESET_MAX_PIECES];
    uint64_t exact[PS_GUIDESET_MAX_PIECES]; /* the piece's bits in w */
    uint32_t *start[PS_GUIDESET_MAX_PIECES];
    ps_guide_entry_t *ent[PS_GUIDESET_MAX_PIECES];
} ps_guide_pieces_t;

typedef struct {
    uint32_t m;           /* window length */
    uint32_t P;           /* PAM positions */
    uint32_t n, n_plus;   /* strings; the plus strand's are [0, n_plus), the minus strand's after */
    uint64_t *code;       /* n: each string's bases, two bits a position, its first highest */
    uint64_t *care;       /* n: 0b11 at each compared (single-base) position */
    uint32_t *leaf;       /* n: its distance-0 leaf */
    uint8_t *lim;         /* n: its mismatch limit */
    uint64_t pam_mask;    /* 4^P - 1 */
    uint32_t pam_shift[2];
    uint64_t *pam_ok[2];  /* 4^P bits each, per strand (plus, minus); NULL without a PAM */
    double pass;          /* the share of codes either strand's PAM takes (1 without a PAM) */
    ps_guide_pieces_t pieces[2]; /* per strand; joint: pieces[0] holds both strands' strings */
    int joint;
    double compares;      /* strings compared a window, both strands, expected */
    double cost_ns;       /* a CPU thread's time a window, estimated */
} ps_guideset_t;

/* Lays out ps as a guide set; 1 (nothing made, why[0..len) saying why)
 * where it does not qualify. */
int ps_guideset_build(ps_guideset_t **out, const ps_patset_t *ps, char *why, size_t len, ps_err_t *err);
void ps_guideset_free(ps_guideset_t *g);

/* Whether pam_ok[s] takes code c. */
static inline int ps_guideset_pam(const ps_guideset_t *g, int s, uint64_t c)
{
    return !g->pam_ok[s] || (int)(g->pam_ok[s][c >> 6] >> (c & 63) & 1);
}

#ifdef __cplusplus
}
#endif

#endif
