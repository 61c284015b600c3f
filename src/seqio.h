/* seqio.h - streaming FASTA/FASTQ reader that packs sequence into chunks.
 *
 * Input is read through htslib's BGZF layer, so plain, gzip and BGZF files
 * and '-' (stdin) all work, BGZF with several decompression threads. The
 * reader never holds a whole record: it parses a fixed buffer at a time and
 * appends symbols to the caller's chunk, so memory is bounded whatever the
 * record or file size. FASTA and FASTQ (also multi-line) are recognised from
 * the first byte.
 *
 * Counting rules applied here: letters are case-insensitive; whitespace
 * inside sequence is ignored; letters outside the alphabet (N, IUPAC codes)
 * become restarts; a new record is a restart; any other byte in a sequence
 * is an error naming the file, line and record. */
#ifndef PS_SEQIO_H
#define PS_SEQIO_H

#include <stdint.h>

#include "alphabet.h"
#include "error.h"
#include "pack.h"

typedef struct ps_reader ps_reader_t;

typedef struct {
    uint64_t records;      /* records seen, empty ones included */
    uint64_t symbols;      /* symbols packed (context repeats not counted) */
    uint64_t bytes;        /* uncompressed bytes parsed */
    int fastq;             /* 1 for FASTQ input */
} ps_reader_stats_t;

/* Opens path ("-" = stdin). k is the probe length (context carried between
 * chunks is k-1 symbols); threads > 1 enables BGZF decompression threads. */
int ps_reader_open(ps_reader_t **out, const char *path, ps_alpha_t a, int k, int threads,
                   ps_err_t *err);

/* Clears c and fills it with the next stretch of input. Returns 1 when c
 * holds symbols, 0 at the end of the input (c is then empty), or a negative
 * PS_E_* code. At the end an input with no records is an error. */
int ps_reader_next(ps_reader_t *r, ps_chunk_t *c, ps_err_t *err);

const ps_reader_stats_t *ps_reader_stats(const ps_reader_t *r);

/* Compressed bytes consumed so far and the file size (0 if unknown), for progress. */
void ps_reader_progress(const ps_reader_t *r, uint64_t *done, uint64_t *total);

void ps_reader_close(ps_reader_t *r);

#endif
