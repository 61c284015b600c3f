/* gunzip.h - plain gzip inflated by ISA-L's igzip, streaming from an htslib
 * hFILE: two to three times zlib's speed on one core, for the inputs that
 * htslib would inflate with zlib on one thread (BGZF keeps htslib's
 * threaded path).
 *
 * A stream is one or more gzip members back to back (`cat a.gz b.gz`), each
 * checked against its CRC-32 and length. Anything else after a member, a
 * member cut short, or corrupt data is an error, as with zlib.
 *
 * Built only where ISA-L is found (PS_HAVE_ISAL); ps_gunzip_available()
 * says whether it was, and the reader falls back to htslib otherwise. */
#ifndef PS_GUNZIP_H
#define PS_GUNZIP_H

#include <stdint.h>
#include <sys/types.h>

#include <htslib/hfile.h>

#include "error.h"

typedef struct ps_gunzip ps_gunzip_t;

/* 1 when this build has ISA-L. */
int ps_gunzip_available(void);

/* Takes hf (positioned at the first member) and closes it in ps_gunzip_close,
 * also on failure here. path is for messages. */
int ps_gunzip_open(ps_gunzip_t **out, hFILE *hf, const char *path, ps_err_t *err);

/* Up to len inflated bytes into dst; 0 at the end of the last member; a
 * negative code (message naming path; `near` is appended to it) on error. */
ssize_t ps_gunzip_read(ps_gunzip_t *g, void *dst, size_t len, const char *near, ps_err_t *err);

/* Compressed bytes consumed so far. */
int64_t ps_gunzip_consumed(const ps_gunzip_t *g);

void ps_gunzip_close(ps_gunzip_t *g);

#endif
