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
 * Work a window: a table lookup a strand; where the PAM holds, a lookup
 * per seed of the exact-piece index (below) and a compare (xor, and,
 * shift, or, popcount) for each string in their buckets, or for every
 * string of the strand without an index. */
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
#define PS_GUIDESET_MAX_NEED 4
#define PS_GUIDESET_MAX_PIECES (PS_MAX_MM + PS_GUIDESET_MAX_NEED)
#define PS_GUIDESET_MAX_SEEDS 70 /* C(8, 4): 4 exact of 8 pieces */
#define PS_GUIDESET_HASH 0x9E3779B97F4A7C15ull

/* The index's key and first-seed test below are the GPU kernel's too
 * (kernels/engine_pattern_gpu.cu): one definition for both sides. */
#ifdef __CUDACC__
#define PS_GS_FN static inline __host__ __device__
#else
#define PS_GS_FN static inline
#endif

/* The exact-piece index of one strand's strings (or of both strands'
 * together). With limits of at most D mismatches, cut the compared
 * positions into D + r disjoint pieces: a site leaves r of them exact
 * (pigeonhole). Every choice of r pieces is a seed; each seed keys every
 * string by its bases at those pieces. A window looks up each seed's key
 * and compares the strings in that bucket; a string is reported at its
 * first seed, the r lowest pieces the window matches exactly, so once.
 * r = 1 is D + 1 pieces, one lookup each with long buckets; a larger r
 * makes more lookups with far shorter buckets (10^5 20-mers within 4: 5
 * lookups of 390 strings, or 35 of about one).
 *
 * Piece q's bases in window w are (w >> psh[q]) & pkm[q] (plen2[q] bits);
 * seed s's pieces are the bits of comb[s], its value v their bases
 * joined first piece highest (klen2[s] bits); its key is v where klen2[s]
 * <= bits, else (v * PS_GUIDESET_HASH) >> (64 - bits) (a bucket may then
 * hold strings of other keys, which their compare rejects). Seed s's
 * strings with key k are ent[s * strings + start[s * (2^bits + 1) + k]
 * .. start[... + k + 1]), each with what its compare needs. On the GPU a
 * copy of the struct points start and ent at device memory. */
typedef struct {
    uint64_t code;
    uint32_t leaf;
    uint32_t lim;
} ps_guide_entry_t;

typedef struct {
    uint32_t n;           /* seeds; 0: no index, every string is compared */
    uint32_t pieces, need; /* D + r pieces, r of them exact */
    uint32_t bits;        /* a seed's buckets: 2^bits */
    uint32_t strings;     /* strings indexed; each seed holds each once */
    uint64_t care;        /* the strings' compared positions (one mask for all) */
    uint32_t psh[PS_GUIDESET_MAX_PIECES], plen2[PS_GUIDESET_MAX_PIECES];
    uint64_t pkm[PS_GUIDESET_MAX_PIECES];   /* (1 << plen2) - 1 */
    uint64_t pmask[PS_GUIDESET_MAX_PIECES]; /* the piece's bits in w */
    uint16_t comb[PS_GUIDESET_MAX_SEEDS];
    uint8_t klen2[PS_GUIDESET_MAX_SEEDS];
    double expect;        /* strings compared a window, expected */
    double bytes;         /* its tables' size: n x ((2^bits + 1) x 4 + strings x 16) */
    uint32_t *start;      /* n x (2^bits + 1); NULL where only planned */
    ps_guide_entry_t *ent; /* n x strings */
    size_t start_len, ent_len; /* the bytes mapped for them */
} ps_guide_pieces_t;

/* Seed s's key of window w. */
PS_GS_FN uint64_t ps_guide_seed_key(const ps_guide_pieces_t *ix, uint32_t s, uint64_t w)
{
    uint64_t v = 0;
    for (uint32_t c = ix->comb[s]; c; c &= c - 1) {
#ifdef __CUDA_ARCH__
        const uint32_t q = (uint32_t)__ffs((int)c) - 1u;
#else
        const uint32_t q = (uint32_t)__builtin_ctz(c);
#endif
        v = (v << (ix->plen2[q] - 1) << 1) | (w >> ix->psh[q] & ix->pkm[q]);
    }
    return ix->klen2[s] <= ix->bits ? v : (v * PS_GUIDESET_HASH) >> (64 - ix->bits);
}

/* Whether a string whose differences from the window are diff (within the
 * care mask) is reported at seed s: s is its first seed, the r lowest
 * pieces that diff leaves exact. */
PS_GS_FN int ps_guide_first_seed(const ps_guide_pieces_t *ix, uint32_t s, uint64_t diff)
{
    uint32_t e = 0;
    for (uint32_t q = 0; q < ix->pieces; q++) e |= (uint32_t)!(diff & ix->pmask[q]) << q;
    uint32_t rest = e;
    for (uint32_t i = 0; i < ix->need; i++) rest &= rest - 1;
    return (e ^ rest) == ix->comb[s];
}

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
 * where it does not qualify. need: r, the exact pieces of the index
 * (1 .. PS_GUIDESET_MAX_NEED, the most that fit below it where r does
 * not), or 0 for the r of the least estimated work on CPU threads, or
 * with PS_GUIDESET_GPU in flags on the GPU. Without PS_GUIDESET_TABLES the
 * index and its cost are planned, its tables not built (start, ent NULL);
 * with it, they are built on up to `threads` threads, a seed each. */
enum { PS_GUIDESET_TABLES = 1, PS_GUIDESET_GPU = 2 };
int ps_guideset_build(ps_guideset_t **out, const ps_patset_t *ps, int need, int flags, int threads, char *why,
                      size_t len, ps_err_t *err);
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
