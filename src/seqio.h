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

/* Longest record name kept (longer ones are cut); public so that callers
 * holding a name (ps_block_info_t, scan.c) size buffers to match. */
#define PS_NAME_MAX 255

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

/* Block-parallel FASTA. The thread that owns the reader cuts the
 * decompressed stream into blocks, never inside a header line; block
 * parsers then pack blocks independently on other threads, each into chunks
 * whose first symbols carry no context. What joins the blocks again (the
 * matches that straddle a cut, record and line numbering) is described by
 * ps_block_info_t and done in order by the pipeline (scan.c). */
typedef struct {
    unsigned char *buf;
    size_t len, cap;     /* bytes in the block; capacity (the block size) */
    unsigned char prev;  /* the byte before buf[0] */
    int first;           /* the first block: starts before the first record */
} ps_block_t;

typedef struct {
    int open_start;      /* its first symbols continue the previous block's last segment */
    int open_end;        /* its last segment is still open at the cut */
    int one_segment;     /* open at both ends with no restart in between */
    uint64_t records, symbols, lines;
    char last_name[PS_NAME_MAX + 1]; /* the name of the record in progress at the cut */
} ps_block_info_t;

/* 1 when the input is FASTA (it starts with '>'), 0 otherwise, <0 on error.
 * Reads the first buffer if needed; nothing is consumed. */
int ps_reader_is_fasta(ps_reader_t *r, ps_err_t *err);
/* Fills b (its buf and cap set by the caller) with the next block. Returns 1,
 * 0 at the end of the input, or a negative code. */
int ps_reader_next_block(ps_reader_t *r, ps_block_t *b, ps_err_t *err);

/* A block parser: a reader that parses one block at a time. */
int ps_block_parser_new(ps_reader_t **out, const ps_reader_t *main_reader, ps_err_t *err);
/* Starts parsing b; line_base is the number of lines before the block and
 * cont_name the name of the record in progress (both only for messages).
 * Then ps_reader_next() fills chunks until it returns 0. */
void ps_block_parser_start(ps_reader_t *r, const ps_block_t *b, uint64_t line_base, const char *cont_name);
/* After the block is parsed: how it ends and what it held. */
void ps_block_end(const ps_reader_t *r, ps_block_info_t *info);

#endif
