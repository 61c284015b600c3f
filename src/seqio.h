/* seqio.h - the streaming reader: one input file to packed chunks.
 *
 * Input is read through htslib's BGZF layer, so plain, gzip and BGZF files
 * and '-' (stdin) all work, BGZF inflated on a thread pool when given one;
 * SAM/BAM/CRAM records and 2bit genomes (twobit.h) become FASTA text.
 * The reader holds one fixed buffer and parses it with a parser (parse.h),
 * so memory is bounded whatever the record or file size. It can also hand
 * out the raw bytes it has not parsed, for the block-parallel FASTA path
 * (blocks.h), which parses them elsewhere. */
#ifndef PS_SEQIO_H
#define PS_SEQIO_H

#include <stdint.h>
#include <sys/types.h>

#include <htslib/thread_pool.h>

#include "alphabet.h"
#include "error.h"
#include "pack.h"
#include "parse.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct ps_reader ps_reader_t;

/* Opens path ("-" = stdin). k is the probe length (context carried between
 * chunks is k-1 symbols); with a pool, BGZF input is inflated on it. */
int ps_reader_open(ps_reader_t **out, const char *path, ps_alpha_t a, int k, hts_tpool *pool,
                   ps_err_t *err);

/* Clears c and fills it with the next stretch of input. Returns 1 when c
 * holds symbols, 0 at the end of the input (c is then empty), or a negative
 * PS_E_* code. At the end an input with no records is an error. */
int ps_reader_next(ps_reader_t *r, ps_chunk_t *c, ps_err_t *err);

/* Records and symbols parsed so far (by ps_reader_next), bytes read. */
const ps_reader_stats_t *ps_reader_stats(const ps_reader_t *r);

/* Compressed bytes consumed so far and the file size (0 if unknown), for progress. */
void ps_reader_progress(const ps_reader_t *r, uint64_t *done, uint64_t *total);

const char *ps_reader_path(const ps_reader_t *r);

/* 1 when the input is FASTA (its first non-blank byte is '>'), 0 otherwise,
 * <0 on error. Reads the first buffer if needed; nothing is consumed. */
int ps_reader_is_fasta(ps_reader_t *r, ps_err_t *err);

/* Raw access, for a caller that parses elsewhere (and then never calls
 * ps_reader_next): copies up to len unparsed bytes into dst. Returns the
 * bytes copied, 0 at the end of the input, or a negative code. */
ssize_t ps_reader_read_raw(ps_reader_t *r, void *dst, size_t len, ps_err_t *err);

void ps_reader_close(ps_reader_t *r);

/* The compression whose magic bytes start buf ("bzip2", "xz" or "zstd":
 * those probescan does not read), and in *tool the command that
 * decompresses it; NULL when none of them. For the files besides the
 * inputs (probes, sample sheets), which are read as plain or gzip. */
const char *ps_unread_compression(const void *buf, size_t n, const char **tool);

/* Sequence bytes the inputs hold, estimated from their sizes (gzip files
 * by a typical ratio of 3.5, 2bit files at four bases a byte), for
 * choosing an engine; 0 when any size is unknown (a pipe, standard input). */
double ps_inputs_bytes(const char *const *inputs, int n);

#ifdef __cplusplus
}
#endif

#endif
