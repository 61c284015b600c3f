/* sites.h - `locate`'s output: every site placed in its record and written
 * as a BED6 or TSV row, in a fixed order.
 *
 * A site writer is fed each chunk with its sites (a ps_record_sink_t's
 * emit_sites), in input order. It places each site in its record (pack.h's
 * record offsets), turns its leaf into rows (one per probe and strand the
 * leaf counts: duplicate probes and palindromes give several), and writes
 * them ordered by record, start, probe order, then strand (+ first),
 * whatever the engine or the thread count. Coordinates are 0-based,
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
 *
 * Two ways in, as the input is read (scan.h): chunks in order, whose sites
 * the writer places and writes at once (emit_sites); or blocks of FASTA
 * parsed on several threads, whose sites each thread turns into rows of
 * the block's own (ps_site_rows_add, block-local records and offsets), which
 * the writer fixes up and writes in input order (ps_site_writer_emit_block).
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

#include "error.h"
#include "leaves.h"
#include "pack.h"
#include "probes.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum { PS_SITES_BED, PS_SITES_TSV } ps_sites_format_t;

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
/* Names the input whose chunks follow (the TSV's `input` column); the name
 * must outlive the writer's use of it. */
void ps_site_writer_input(ps_site_writer_t *w, const char *input);
/* A ps_record_sink_t emit_sites function; ctx is the writer. */
int ps_site_writer_emit(void *ctx, const ps_chunk_t *c, const ps_sites_t *s, ps_err_t *err);
/* The sink's block functions (scan.h), ctx the writer: a block chunk's
 * sites into rows of the block's own (block-local records and offsets),
 * on any thread (the writer is only read); the rows written in order,
 * placed by at; the rows freed. */
int ps_site_writer_block_sites(void *ctx, void **rows, const ps_chunk_t *c, const ps_sites_t *s, ps_err_t *err);
int ps_site_writer_emit_block(void *ctx, void *rows, const ps_block_place_t *at, ps_err_t *err);
void ps_site_writer_free_rows(void *rows);

/* Writes the rows still held; call at the end of each input. */
int ps_site_writer_flush(ps_site_writer_t *w, ps_err_t *err);
void ps_site_writer_stats(const ps_site_writer_t *w, ps_site_stats_t *st);
void ps_site_writer_free(ps_site_writer_t *w);

#ifdef __cplusplus
}
#endif

#endif
