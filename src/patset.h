/* patset.h - the pattern set: probes with classes, of any lengths, and with
 * up to max_mm mismatches, laid out for bit-parallel matching.
 *
 * Every searched string (a probe, and with both strands its reverse
 * complement: classes complemented, order reversed) takes as many bits as it
 * has positions, one after another in one long bit vector of n_words 64-bit
 * words (Baeza-Yates and Gonnet's Shift-And, all strings in one vector).
 * Bit j of the vector for distance d is set after a text symbol when the
 * string's positions up to j match the text ending there with at most d
 * mismatches (Wu and Manber's extension; Hamming distance, substitutions
 * only). A step is, for each word: D_d = ((D_d << 1 | first) & B[c]) |
 * (D_{d-1} << 1 | first), with the bit shifted out of one string into the
 * next overwritten by `first`. A string ends at its `last` bit.
 *
 * Exact probes of one length are laid out too when mismatches are asked
 * for. Leaves (leaves.h): probe i, strand s, distance d is leaf
 * (i * strands + s) * levels + d, levels = max_mm + 1. */
#ifndef PS_PATSET_H
#define PS_PATSET_H

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

typedef struct {
    ps_leaves_t leaves;
    int max_mm;
    int sigma;
    uint32_t n_strings;   /* probes x strands */
    uint32_t n_words;     /* 64-bit words of the bit vector */
    uint64_t *B;          /* sigma x n_words: bit j set where symbol c is in position j's class */
    uint64_t *first;      /* n_words: the first bit of each string */
    uint64_t *last;       /* n_words: the last bit of each string */
    uint32_t *leaf_at;    /* 64 x n_words: for a last bit, its string's distance-0 leaf */
    uint32_t *len_at;     /* 64 x n_words: for a last bit, its string's length */
    uint32_t min_len;
    int windows_only;     /* every string is of fixed length and unanchored: a site is a window, and
                           * the layout above is all a matcher needs (the GPU takes only these) */
} ps_patset_t;

int ps_patset_build(ps_patset_t **out, const ps_probes_t *p, int both_strands, int max_mm, ps_err_t *err);
void ps_patset_free(ps_patset_t *ps);

#ifdef __cplusplus
}
#endif

#endif
