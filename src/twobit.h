/* twobit.h - UCSC's 2bit genome files read as FASTA text.
 *
 * A 2bit file (magic 0x1A412743 in either byte order; version 0, 32-bit
 * offsets, or 1, 64-bit) holds its sequences packed four bases a byte
 * (T=0, C=1, A=2, G=3, the first base in the high bits), with runs of N
 * and soft-masked runs listed apart. The reader hands out each sequence in
 * index order as `>name\n`, its bases upper case with its N runs as N, and
 * `\n`, so that the FASTA parser (and block-parallel FASTA) take it as any
 * FASTA file; the soft mask is dropped, as matching ignores case. The file
 * must be seekable (a regular file); memory is its index and one sequence's
 * N runs, whatever the sequence's length. */
#ifndef PS_TWOBIT_H
#define PS_TWOBIT_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "error.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct ps_twobit ps_twobit_t;

/* 1 when the 4 bytes at b are a 2bit magic number (either byte order). */
int ps_twobit_magic(const unsigned char *b, size_t n);

/* Opens path, a 2bit file, and reads its index. */
int ps_twobit_open(ps_twobit_t **out, const char *path, ps_err_t *err);

/* Up to len bytes of FASTA text into dst; 0 at the end, or a negative code. */
ssize_t ps_twobit_read(ps_twobit_t *t, unsigned char *dst, size_t len, ps_err_t *err);

/* Bytes of the file consumed so far (for progress). */
uint64_t ps_twobit_consumed(const ps_twobit_t *t);

void ps_twobit_close(ps_twobit_t *t);

#ifdef __cplusplus
}
#endif

#endif
