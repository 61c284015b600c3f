/* nsites.h - Cas-OFFinder's rule for genome letters that are no base.
 *
 * The engines see A, C, G and T only: any other sequence letter (N, an
 * IUPAC code, '.', '-', '*') breaks the packed text (pack.h), so no site of
 * theirs holds one. Cas-OFFinder 2.4.1 reads such a letter as N, which
 *   - under a position the site must hold (a PAM's: probes.h's fixed)
 *     passes where that position names two bases or more (N, V, R ...) and
 *     fails where it names one;
 *   - against any other position of the guide counts as a mismatch where
 *     the guide names one base, and as a match where it names several.
 * ps_nsites_find lists, for one input, the sites of the probes under that
 * rule that hold at least one such letter: exactly the sites the engines
 * leave out, so that the two lists together are Cas-OFFinder's rows. The
 * site writer (sites.h) writes them among the engines' rows, in row order.
 *
 * Sites: a probe of length L at record offset `start` on a strand ('-': the
 * probe's reverse complement placed on the record), its mismatches at
 * most its limit (probes.h's limit, else `mismatches`). Records are
 * numbered and named as the parser numbers and names them (parse.h: every
 * header a record, its name the first word cut to PS_NAME_MAX), offsets
 * count every sequence letter; a site's letters are the record's, upper
 * case (U as T). The list is sorted by record, start, probe, then strand.
 *
 * Input: read through the reader (seqio.h) as FASTA text: FASTA, gzip,
 * BGZF, 2bit, SAM/BAM/CRAM. A FASTQ input lists none (reads are no genome:
 * the engines' rule holds there). The input is read once more for this, so
 * it must be a file, not a pipe (the caller refuses one).
 *
 * Memory: the sites found, their records' names and letters, and a window
 * of the longest probe. */
#ifndef PS_NSITES_H
#define PS_NSITES_H

#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "probes.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
    uint64_t rec, start;
    uint32_t probe, len;
    uint8_t strand, dist;
    uint32_t name;    /* the record's name, in names */
    uint64_t letters; /* the site's letters (len of them, forward), in text */
} ps_nsite_t;

typedef struct {
    ps_nsite_t *site;
    size_t n, cap;
    char *names, *text;
    size_t names_len, names_cap, text_len, text_cap;
} ps_nsites_t;

/* The sites of p (DNA probes; both: the minus strand too) in input path
 * that hold a letter that is no base, into *out (emptied first). */
int ps_nsites_find(ps_nsites_t *out, const char *path, const ps_probes_t *p, int both, int mismatches, ps_err_t *err);
void ps_nsites_free(ps_nsites_t *ns);

#ifdef __cplusplus
}
#endif

#endif
