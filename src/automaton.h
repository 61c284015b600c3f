/* automaton.h - the Aho-Corasick automaton over the probes, as a full DFA.
 *
 * States are numbered so that the root is 0, every state of depth < k comes
 * first and the states of depth k (the leaves: a probe ends there) come last:
 * `state >= leaf_base` means "a probe ends here", and leaf id = state -
 * leaf_base indexes the engines' count arrays. Engines count leaves only.
 *
 * The transition table is delta[(s << shift) | c] for symbol code c, with
 * 1 << shift >= sigma (shift 2 for DNA, 5 for protein; unused columns are 0).
 * It is complete: every state, leaves included, has a next state for every
 * symbol, with failure links already folded in.
 *
 * With both strands, the reverse complement of each DNA probe is inserted
 * too. `leaves` maps probes to leaves (leaves.h): identical sequences share
 * a leaf, so duplicate probes get equal counts and a palindromic probe's
 * two columns read the same leaf. */
#ifndef PS_AUTOMATON_H
#define PS_AUTOMATON_H

#include <stdint.h>

#include "error.h"
#include "leaves.h"
#include "probes.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
    ps_alpha_t alpha;
    int sigma;            /* symbols in the alphabet */
    int shift;            /* log2 of the row width */
    int k;                /* probe length = leaf depth */
    int both_strands;     /* reverse complements inserted */
    uint32_t n_states;
    uint32_t leaf_base;   /* first leaf state */
    uint32_t n_leaves;    /* n_states - leaf_base */
    uint32_t *delta;      /* n_states << shift entries */
    ps_leaves_t leaves;   /* each probe's leaves, as the pipeline and output read them */
} ps_automaton_t;

/* Builds the automaton. both_strands is only allowed for DNA. */
int ps_automaton_build(ps_automaton_t **out, const ps_probes_t *p, int both_strands, ps_err_t *err);
void ps_automaton_free(ps_automaton_t *a);

/* States of the automaton of p (upper bound; exact when exact is set, at
 * the cost of sorting the probes) and the most memory building it takes,
 * in bytes: so that a probe set too large for the machine is refused before
 * anything is allocated. Returns 0, or <0 when even the estimate cannot be
 * made (out of memory for the exact count). */
int ps_automaton_estimate(const ps_probes_t *p, int both_strands, int exact, uint64_t *states, uint64_t *bytes,
                          ps_err_t *err);

/* Bytes of the transition table. */
static inline uint64_t ps_automaton_table_bytes(const ps_automaton_t *a)
{
    return ((uint64_t)a->n_states << a->shift) * sizeof(uint32_t);
}

#ifdef __cplusplus
}
#endif

#endif
