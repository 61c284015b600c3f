/* patset.h - the pattern set: probes with classes, of any lengths, and with
 * up to max_mm mismatches, laid out for bit-parallel matching.
 *
 * Every searched string (a probe, and with both strands its reverse
 * complement: classes complemented, order reversed) takes as many bits as it
 * has positions, one after another in one long bit vector of n_words 64-bit
 * words (a string of up to 64 positions never crosses a word boundary, so
 * those words need no carries and vectorise; unused bits match nothing) (Baeza-Yates and Gonnet's Shift-And, all strings in one vector).
 * Bit j of the vector for distance d is set after a text symbol when the
 * string's positions up to j match the text ending there with at most d
 * mismatches (Wu and Manber's extension; Hamming distance, substitutions
 * only). A step is, for each word: D_d = ((D_d << 1 | first) & B[c]) |
 * (D_{d-1} << 1 | first), with the bit shifted out of one string into the
 * next overwritten by `first`. A string ends at its `last` bit.
 *
 * When every string is a window (fixed length, no anchor: windows_only),
 * strings are laid out as written and the text is read forward: a site
 * ends where the last bit is set. Otherwise each string is laid out
 * reversed and the text of each segment is read backward, so that a match
 * ends at the site's start and a site counts once per start, at the fewest
 * mismatches over every way of skipping optional positions (the extra
 * copies of e(n,m)), whose epsilon moves are Navarro and Raffinot's
 * subtraction over blocks (opt_I, opt_F, opt_A). Anchors act at the
 * segment's first step (a record's end: first_end, zero_end) and last step
 * (a record's start: last_start, skip_start).
 *
 * Exact probes of one length are laid out too when mismatches are asked
 * for. Probes with fixed positions (a PAM) must be windows. Leaves (leaves.h): probe i, strand s, distance d is leaf
 * (i * strands + s) * levels + d, levels = max_mm + 1. */
#ifndef PS_PATSET_H
#define PS_PATSET_H

#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "leaves.h"
#include "probes.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The most mismatches -m takes: a site within 8 of a 20-mer is no longer
 * specific, and the work grows with every level. */
#define PS_MAX_MM 8

typedef struct ps_patset {
    ps_leaves_t leaves;
    int max_mm;
    int guide_need;       /* a guide library's exact pieces (guideset.h's need; 0 chooses) */
    int sigma;
    uint32_t n_strings;   /* probes x strands */
    uint32_t n_words;     /* 64-bit words of the bit vector */
    uint32_t free_words;  /* the first words, where no string crosses from one word into the next
                           * (strings of up to 64 positions; longer ones follow): no carries */
    uint64_t *B;          /* sigma x n_words: bit j set where symbol c is in position j's class */
    uint64_t *first;      /* n_words: the first bit of each string */
    uint64_t *last;       /* n_words: the last bit of each string (not start-anchored) */
    uint64_t *sub;        /* n_words: positions where a mismatch may fall; NULL: all (probes.h's
                           * fixed positions, a PAM, are left out; windows only). The step's
                           * mismatch term is then (D_{d-1} << 1 | first) & sub */
    uint8_t *leaf_drop;   /* n_leaves: 1 for a leaf beyond its probe's own limit (probes.h:
                           * limit), whose sites the engines neither count nor list; NULL: none */
    /* The general layout only (windows_only = 0), n_words each; NULL else. */
    uint64_t *first_end;  /* first bits of strings that begin at a record's end */
    uint64_t *zero;       /* bits set before every step: leading optional positions */
    uint64_t *zero_end;   /* bits set before a record's last symbol */
    uint64_t *last_start; /* last bits of strings that end at a record's start */
    uint64_t *skip_start; /* next-to-last bits that also end there ([<M]) */
    uint64_t *opt_I, *opt_F, *opt_A; /* optional blocks: the bit before, the last bit, all but the first */
    uint64_t *keep;       /* ~(first | first_end): what a shift may carry into */
    int has_opt;          /* some string has optional positions */
    uint32_t *leaf_at;    /* 64 x n_words: for a last bit, its string's distance-0 leaf */
    uint32_t *len_at;     /* 64 x n_words: for a last bit, its string's length */
    uint32_t min_len;
    int windows_only;     /* every string is of fixed length and unanchored: a site is a window, and
                           * the layout above is all a matcher needs (the GPU takes only these) */
    /* The gate (patset.c: built for an exact set in the general layout on
     * one strand, where it pays; gate_words 0 else): for every string a
     * window of it, a run of positions that no match skips and no record
     * edge stands for, so that every match holds it at consecutive letters;
     * the windows laid out forward (none across a word). Every site then
     * lies within [e - gate_before, e + gate_after) for the last letter e of
     * some window's match, so the engine reads backward only there. */
    uint32_t gate_words;
    uint32_t gate_stride; /* words a row of gate_B (and gate_first, gate_last) holds: 4 up to 4
                           * words (one 256-bit vector; the words past gate_words are 0), else
                           * gate_words */
    uint64_t *gate_B;     /* sigma x gate_stride */
    uint64_t *gate_first, *gate_last;
    uint32_t gate_before, gate_after;
    double gate_share;    /* the share of random text those ranges cover (the estimate that chose it) */
    struct ps_patset *fwd; /* both strands with patterns that are no window: their reverse
                           * complements, which this set leaves out, as a set of the patterns
                           * themselves in the general layout (leaves of the minus strand), to be
                           * run over the complemented text read forward, so that a minus-strand
                           * site counts once per start on its own strand (its right end on the
                           * plus strand, where it is found and listed); NULL otherwise */
} ps_patset_t;

int ps_patset_build(ps_patset_t **out, const ps_probes_t *p, int both_strands, int max_mm, ps_err_t *err);
/* The same over probes idx[0..n_idx) only (their leaves numbered j, the
 * j-th of them), with p's k: engines over parts of one set, whose sites
 * the chunks' k - 1 symbols of context serve alike. */
int ps_patset_build_part(ps_patset_t **out, const ps_probes_t *p, const uint32_t *idx, uint32_t n_idx,
                         int both_strands, int max_mm, ps_err_t *err);
void ps_patset_free(ps_patset_t *ps);

/* The CPU threads' time for matching ps over `bytes` of sequence, which
 * the GPU must repay (plan.c: over a second, and a GPU a second): every
 * symbol costs a few word operations per 64 positions of the set (its
 * forward part a pass of its own) and per mismatch level (about 2 ns a
 * word on one CPU thread for windows, measured; 1 ns for other sets, whose
 * windows the CPU engine reads apart; a gated set its gate's words and its
 * own over the share of text they cover); a guide library the guide engine's
 * rate (guideset.h). -1 when the size is unknown (bytes 0). Fills why for
 * -v. */
double ps_patset_cpu_seconds(const ps_patset_t *ps, double bytes, int threads, char *why, size_t len);

/* How many GPUs ps keeps busy (ps_gpus_choose's work: one GPU for each
 * whole unit), given its CPU estimate cpu_s: for DNA windows (guide
 * libraries among them) cpu_s itself, one GPU a second; for other sets,
 * whose chunks one thread parses in order at about 800 Mbytes/s while a GPU
 * steps about 4 x 10^11 words x bytes a second (H100), words x levels /
 * 500, at most cpu_s; -1 where cpu_s is (size unknown). */
double ps_patset_gpu_share(const ps_patset_t *ps, double cpu_s);

#ifdef __cplusplus
}
#endif

#endif
