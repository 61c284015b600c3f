/* parse.h - the FASTA/FASTQ parser: bytes in, packed chunks out.
 *
 * A parser is fed one buffer at a time by its owner (the streaming reader,
 * seqio.h, or a block of the block-parallel FASTA path, blocks.h) and packs
 * sequence into the caller's chunk. It holds no file and allocates nothing,
 * so any thread may run one; it never holds a whole record, so memory is
 * bounded whatever the record length.
 *
 * Counting rules applied here: letters are case-insensitive; whitespace
 * inside sequence is ignored; letters outside the alphabet (N, IUPAC codes;
 * in DNA also '.', '-' and '*') become restarts; a new record is a restart; any other byte in a sequence
 * is an error naming the file, line and record. FASTA and FASTQ (also
 * multi-line) are told apart by the first record's first byte.
 *
 * Use: ps_parser_init once; ps_parser_feed a buffer; ps_parser_chunk to start
 * each chunk, then ps_parser_fill until it reports the chunk full (1) or the
 * buffer used up (0, feed the next); at the end of the input
 * ps_parser_finish checks that the last record is whole. */
#ifndef PS_PARSE_H
#define PS_PARSE_H

#include <stddef.h>
#include <stdint.h>

#include "alphabet.h"
#include "error.h"
#include "pack.h"
#include "probes.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Longest record name kept (longer ones are cut); public so that callers
 * holding a name size buffers to match. */
#define PS_NAME_MAX 255

typedef struct {
    uint64_t records;      /* records seen, empty ones included */
    uint64_t symbols;      /* symbols packed (context repeats not counted) */
    uint64_t other;        /* sequence characters outside the alphabet (non-ACGT in DNA) */
    uint64_t foreign;      /* those of them that are not N: in DNA, letters that are no
                            * nucleotide (proteins counted as DNA are mostly these) */
    uint64_t names_cut;    /* record names longer than PS_NAME_MAX, kept cut to it */
    uint64_t bytes;        /* uncompressed bytes parsed */
    int fastq;             /* 1 for FASTQ input */
    const char *format;    /* "sam", "bam", "cram" or "2bit"; NULL for FASTA/FASTQ */
} ps_reader_stats_t;

typedef enum {
    PS_P_BEGIN,   /* before the first record */
    PS_P_HEADER,  /* inside a '>' or '@' header line */
    PS_P_FA_SEQ,  /* FASTA sequence lines */
    PS_P_FQ_SEQ,  /* FASTQ sequence lines, up to the '+' line */
    PS_P_FQ_PLUS, /* rest of the '+' line */
    PS_P_FQ_QUAL, /* FASTQ quality lines */
    PS_P_FQ_NEXT  /* between FASTQ records */
} ps_parse_state_t;

typedef struct {
    const char *path;       /* for messages; owned by the caller */
    uint32_t sigma;
    int k;
    uint8_t tab[256];
    const unsigned char *buf; /* the buffer being parsed (the owner's) */
    size_t len, pos;
    unsigned char prev;     /* byte before buf[0], for line-start tests */

    ps_parse_state_t st;
    int fastq;
    uint64_t line;          /* 1-based number of the line being parsed */
    char name[PS_NAME_MAX + 1];
    uint32_t name_len;
    int name_done;          /* the first word of the header has ended */
    int name_long;          /* the name was longer than PS_NAME_MAX */
    uint64_t seq_len, qual_len;
    uint64_t qual_line;     /* line where the quality of the record starts */
    int rec_has_syms;       /* the record in progress has packed symbols (so it was listed) */
    int pending_record;     /* list the record before its first symbol */
    int pending_restart;    /* restart before the next symbol */
    uint8_t ctx[PS_MAX_K];  /* context carried into the next chunk */
    uint32_t n_ctx;
    ps_reader_stats_t stats; /* records and symbols (bytes are the owner's) */
    int open_start;         /* no restart yet since the start: the first symbols continue what came before */
    uint64_t breaks;        /* restarts (letters outside the alphabet, records) so far */
    /* Segment edges (pack.h): */
    int seg_rec_start;      /* the next symbol, if no break comes first, is its record's first letter */
    int seg_rec_end;        /* the last segment ended at its record's last letter */
    uint8_t ctx_edge;       /* head_edge of the next chunk, whose context is that segment's tail */
} ps_parser_t;

/* A parser at the start of an input, for k-mers of length k. */
void ps_parser_init(ps_parser_t *p, const char *path, ps_alpha_t a, int k);

/* Hands the parser its next buffer, once ps_parser_fill has used up the last. */
void ps_parser_feed(ps_parser_t *p, const unsigned char *buf, size_t len);

/* At the end of the input: the last chunk's last segment ends there. */
void ps_parser_end_chunk(ps_parser_t *p, ps_chunk_t *c);

/* Clears c and starts it: lists the open record and repeats the context
 * (the last k-1 symbols of an unfinished segment). Returns 0, or <0 when c's
 * lists cannot hold even that. */
int ps_parser_chunk(ps_parser_t *p, ps_chunk_t *c, ps_err_t *err);

/* Parses from the buffer into c. Returns 1 when c is full (the context for
 * the next chunk is kept), 0 when the buffer is used up, or a negative
 * PS_E_* code. */
int ps_parser_fill(ps_parser_t *p, ps_chunk_t *c, ps_err_t *err);

/* Where a piece of a FASTA input cut at a line start or inside a header
 * (blocks.h) begins. */
typedef enum {
    PS_PIECE_FIRST,   /* the input's beginning */
    PS_PIECE_SEQ,     /* inside a record's sequence lines */
    PS_PIECE_HEADER   /* inside a header line too long for one piece */
} ps_piece_t;

/* Restarts p on such a piece; prev is the byte before it; line_base the
 * lines before it and cont_name the record in progress (both only serve
 * messages). A piece starts without context. */
void ps_parser_resume(ps_parser_t *p, ps_piece_t where, unsigned char prev, uint64_t line_base,
                      const char *cont_name);

/* At the end of the input: an error when it held no record or ended inside
 * a FASTQ record. */
int ps_parser_finish(const ps_parser_t *p, ps_err_t *err);

/* 1 when c holds symbols of its own (beyond the repeated context). */
static inline int ps_parser_chunk_has_syms(const ps_chunk_t *c) { return c->n > c->n_ctx; }

#ifdef __cplusplus
}
#endif

#endif
