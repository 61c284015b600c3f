/* sites.h - `locate`'s output: every site placed in its record and written
 * as a BED6 or TSV row, in a fixed order.
 *
 * Pool threads turn each chunk's sites into rows (ps_site_writer_rows):
 * each site placed in its record (pack.h's record offsets), its leaf turned
 * into rows (one per probe and strand the leaf counts: duplicate probes
 * and palindromes give several), in order. The writer then writes the rows
 * in input order, ordered by record, start, probe order, then strand (+
 * first), whatever the engine or the thread count. Coordinates are 0-based,
 * half-open, counting every sequence letter of the record (N included).
 * A site's end is its start plus the probe's length; for a pattern of
 * variable length (e(n,m), anchors), the end of its shortest match at the
 * site's distance. Strand '-' is the probe's reverse complement, placed on
 * the record as written.
 *
 * Formats:
 *   BED   record  start  end  name  score  strand
 *         (score: mismatches, 0 for an exact site)
 *   TSV   a header, then input  record  start  end  name  mismatches  strand
 *         probe  matched  (probe: as given; matched: the record's letters,
 *         upper case, U as T)
 *   pff, gff, psa  ps_scan's rows (protein; 1-based, inclusive): pff
 *         record  from  to  accession  and an empty field; gff ps_scan's
 *         layout, source "probescan", attributes Name, Sequence (ps_scan's
 *         text of the match), SkipFlag, KnownFalsePos; psa a FASTA entry
 *         per site (README)
 *   cas-offinder  Cas-OFFinder's rows (DNA): query  record  start  site
 *         strand  mismatches, and the probe's name where probes are named
 *         (Cas-OFFinder's id column); query is the guide with N over the
 *         PAM, site the record's letters on the site's strand, mismatched
 *         ones in lower case
 *
 * With ps_scan's rules (ps_site_writer_rules, prosite.h), a protein
 * PROSITE pattern's site ends where ps_scan's match at its start ends, and
 * rows pass the rules that depend on the sites before them as they are
 * written, in order; `count` takes the same rows counted instead
 * (ps_site_writer_counting), so that it counts what `locate` lists.
 *
 * Two ways in, as the input is read (scan.h): chunks in order, whose rows
 * the writer writes as they come (ps_site_writer_emit_rows); or blocks of
 * FASTA parsed on several threads, whose rows are the block's own (block-
 * local records and offsets), which the writer places and writes in input
 * order (ps_site_writer_emit_block).
 *
 * Sites that hold letters that are no base (nsites.h: Cas-OFFinder's rule)
 * come from a list made before the input is read, and are written among
 * the rows in the same order.
 *
 * Memory: the rows of one chunk at a time (or of each block in flight), plus
 * the few rows near a chunk's end that a later chunk's rows may precede
 * (sites of shorter probes starting later), held until that chunk comes.
 * --max-hits caps the rows written per probe over the whole run; the rest
 * are counted, not kept. */
#ifndef PS_SITES_H
#define PS_SITES_H

#include <stdint.h>
#include <stdio.h>

#include "bulges.h"
#include "error.h"
#include "leaves.h"
#include "nsites.h"
#include "pack.h"
#include "output.h"
#include "probes.h"
#include "prosite.h"

#ifdef __cplusplus
extern "C" {
#endif

/* pff, gff and psa (protein): as ps_scan writes them (README). */
typedef enum { PS_SITES_BED, PS_SITES_TSV, PS_SITES_PFF, PS_SITES_GFF, PS_SITES_PSA, PS_SITES_CASOFF } ps_sites_format_t;

typedef struct ps_site_writer ps_site_writer_t;

typedef struct {
    uint64_t rows;          /* rows written */
    uint64_t dropped;       /* rows not written: their probe had reached max_hits */
    uint32_t probes_capped; /* probes that reached max_hits with rows left over */
} ps_site_stats_t;

/* A writer to f for probes p and their index's leaves lv; max_hits: rows
 * per probe at most (0: no limit). */
int ps_site_writer_new(ps_site_writer_t **out, FILE *f, const ps_probes_t *p, const ps_leaves_t *lv,
                       ps_sites_format_t format, uint64_t max_hits, ps_err_t *err);
/* The same for guides with bulges (bulges.h): the rows of bs's variants,
 * each named as its guide; TSV adds the columns bulge (X, DNA or RNA) and
 * bulge_size, its probe column the guide; cas-offinder writes Cas-OFFinder
 * 3.0.0's header lines and rows (bulges.h: ps_bulges_casoff_row). */
int ps_site_writer_new_bulges(ps_site_writer_t **out, FILE *f, const ps_bulgeset_t *bs, ps_sites_format_t format,
                              uint64_t max_hits, ps_err_t *err);
/* ps_scan's rules (prosite.h) for the protein PROSITE patterns of an
 * exact run (no mismatches): each such site ends where ps_scan's match at
 * its start ends, and rows pass the rules in order before max_hits. Call
 * before any rows; *n_rules: the probes it applies to. */
int ps_site_writer_rules(ps_site_writer_t *w, const ps_psopts_t *o, uint32_t *n_rules, ps_err_t *err);
/* `count` by the rows `locate` would write (a set under ps_scan's rules,
 * or with sites that hold no-base letters): rows are counted for their
 * leaf, once a site (not once a duplicate probe), not written (f may be
 * NULL); with by_record, each is also added to its record's row there. */
int ps_site_writer_counting(ps_site_writer_t *w, ps_record_writer_t *by_record, ps_err_t *err);
/* Adds the rows counted since the last call into leaf_counts (per leaf). */
void ps_site_writer_take_counts(ps_site_writer_t *w, uint64_t *leaf_counts);
/* Names the input whose chunks follow (the TSV's `input` column); the name
 * must outlive the writer's use of it. Between inputs only: the rows
 * written so far are flushed (ps_site_writer_flush). */
int ps_site_writer_input(ps_site_writer_t *w, const char *input, ps_err_t *err);
/* The sink's functions (scan.h), ctx the writer: a chunk's sites into rows
 * in *rows, on any thread (the writer is only read; block: a chunk of a
 * FASTA block, its records and offsets the block's own); a chunk's rows
 * written in order (with rows held from the chunk before); a block's rows
 * written, placed by at; rows freed. */
int ps_site_writer_rows(void *ctx, void **rows, const ps_chunk_t *c, const ps_sites_t *s, int block, ps_err_t *err);
int ps_site_writer_emit_rows(void *ctx, const ps_chunk_t *c, void *rows, ps_err_t *err);
int ps_site_writer_emit_block(void *ctx, void *rows, const ps_block_place_t *at, ps_err_t *err);
void ps_site_writer_free_rows(void *rows);

/* The input's sites that hold letters that are no base (nsites.h), for
 * the input about to be scanned (after ps_site_writer_input): written
 * among the engines' rows in row order, the rest at the flush; ns must
 * live until then. */
void ps_site_writer_nsites(ps_site_writer_t *w, const ps_nsites_t *ns);
/* Writes the rows still held; call at the end of each input. */
int ps_site_writer_flush(ps_site_writer_t *w, ps_err_t *err);
void ps_site_writer_stats(const ps_site_writer_t *w, ps_site_stats_t *st);
void ps_site_writer_free(ps_site_writer_t *w);

#ifdef __cplusplus
}
#endif

#endif
