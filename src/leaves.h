/* leaves.h - what the stages after the index need to know of it: the leaves.
 *
 * An index (the Aho-Corasick automaton, automaton.h, or the k-mer set,
 * kmerset.h) numbers the distinct strings it finds: its leaves, 0 to
 * n_leaves - 1. Engines count leaves; the output turns leaf counts into
 * probe rows through probe_leaf: probe_leaf[0][i] is the leaf of probe i's
 * sequence and, with both strands, probe_leaf[1][i] the leaf of its reverse
 * complement. Identical sequences share a leaf, so duplicate probes get
 * equal counts and a palindromic probe's two columns read the same leaf.
 *
 * With mismatches (the pattern set, patset.h) each probe and strand has
 * `levels` leaves in a row, one per distance: probe_leaf[s][i] + d counts
 * the sites at exactly d mismatches. The exact indexes have levels = 1.
 *
 * The pipeline and the output read this view only; it belongs to the index
 * that filled it and lives as long as the index. */
#ifndef PS_LEAVES_H
#define PS_LEAVES_H

#include <stdint.h>

#include "alphabet.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
    ps_alpha_t alpha;
    int k;                   /* probe length (patterns: the longest; the context a chunk repeats is k - 1) */
    int levels;              /* leaves a probe and strand has: 1 + the mismatches allowed */
    int mixed_lengths;       /* strings shorter than k too: FASTA is cut only into blocks of
                              * whole records (protein; scan.h), as joins count only matches of
                              * length k */
    int sequential;          /* sites are owned by their start and anchors need record edges: the
                              * input is read in order, chunk by chunk, or (protein) in blocks of
                              * whole records (pack.h, scan.h) */
    int mm_columns;          /* the output has one column per distance, mm0 ... */
    int both_strands;        /* reverse complements counted too */
    uint32_t n_leaves;
    uint32_t *probe_leaf[2]; /* per probe: leaf of its sequence, of its reverse complement */
} ps_leaves_t;

#ifdef __cplusplus
}
#endif

#endif
