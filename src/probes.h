/* probes.h - the probe set: names, sequences and symbol codes, all of one length.
 *
 * Accepted files (plain or gzip, read through htslib; '-' is stdin):
 *   FASTA            name = first word of the header; sequence lines are joined
 *   name<TAB>seq     one probe a line
 *   seq              one probe a line; the name is the sequence itself
 * Blank lines and lines starting with '#' are skipped in the line formats.
 * Letters are case-insensitive; DNA accepts U for T. Every probe must have the
 * same length k, 1 <= k <= PS_MAX_K, and only letters of its alphabet (an N
 * in a DNA probe is an error: it could never match). */
#ifndef PS_PROBES_H
#define PS_PROBES_H

#include <stdint.h>

#include "alphabet.h"
#include "error.h"

#define PS_MAX_K 256

typedef enum { PS_ALPHA_AUTO = -1, PS_ALPHA_DNA = PS_DNA, PS_ALPHA_PROTEIN = PS_PROTEIN } ps_alpha_req_t;

typedef struct {
    uint32_t n;        /* number of probes */
    int k;             /* common length */
    ps_alpha_t alpha;  /* chosen alphabet */
    int alpha_auto;    /* 1 when the alphabet was inferred from the probes */
    char **name;       /* n names */
    char **seq;        /* n sequences as upper-case letters (U kept as written) */
    uint8_t *code;     /* n * k symbol codes, probe i at code + i*k */
} ps_probes_t;

/* Loads probes from path. With PS_ALPHA_AUTO the alphabet is DNA when every
 * letter is one of ACGTU (any case), else protein. */
int ps_probes_load(ps_probes_t **out, const char *path, ps_alpha_req_t req, ps_err_t *err);

/* Builds a probe set from in-memory sequences (tests and tools); names may be
 * NULL, in which case each name is its sequence. */
int ps_probes_from_strings(ps_probes_t **out, uint32_t n, const char *const *seqs,
                           const char *const *names, ps_alpha_req_t req, ps_err_t *err);

void ps_probes_free(ps_probes_t *p);

#endif
