/* blocks.h - block-parallel FASTA: cut, parse anywhere, join in order.
 *
 * One thread cuts the decompressed input into blocks of at most `cap` bytes
 * (ps_blocks_cut), never inside a header line that fits in a block (a longer
 * one is cut, and the next block says it starts inside it). Any thread then parses a
 * block on its own (ps_block_parse), each block starting without context,
 * into chunks that it hands to a callback (the scan). Finally, strictly in
 * input order, one thread joins each parsed block (ps_blocks_join): the
 * matches that straddle the cut before a block are found by pairing the last
 * k-1 symbols of the open segment before the cut (T) with the first k-1
 * after it (H) in a junction segment T+H, which the caller scans (any match
 * in T+H has symbols on both sides of the cut, so none is counted twice);
 * and record and line numbers are carried on. A block that failed to parse
 * is parsed again in order (ps_blocks_reparse), when the line and record it
 * starts in are known, so that the message names both.
 *
 * Memory: the cutter holds one carry buffer of `cap` bytes; blocks are the
 * caller's. */
#ifndef PS_BLOCKS_H
#define PS_BLOCKS_H

#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "pack.h"
#include "parse.h"
#include "seqio.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
    unsigned char *buf;
    size_t len, cap;     /* bytes in the block; its capacity (set by the caller) */
    size_t alloc;        /* bytes allocated at buf (malloc'd; whole records may grow it) */
    unsigned char prev;  /* the byte before buf[0] */
    int first;           /* the first block: starts before the first record */
    int in_header;       /* starts inside a header line longer than a block */
    int whole;           /* holds whole records only (ps_blocks_whole_records) */
} ps_block_t;

/* What a parsed block looked like at its ends, and what it held. */
typedef struct {
    int open_start;      /* its first symbols continue the previous block's last segment */
    int open_end;        /* its last segment is still open at the cut */
    int one_segment;     /* open at both ends with no restart in between */
    uint64_t records, symbols, other, foreign, lines;
    uint64_t tail_letters;  /* letters of the record in progress at the cut, within this block */
    uint64_t names_cut;     /* record names longer than PS_NAME_MAX, kept cut */
    char last_name[PS_NAME_MAX + 1]; /* the name of the record in progress at the cut */
    uint8_t head[PS_MAX_K], tail[PS_MAX_K]; /* first and last k-1 symbols of its first and last segments */
    uint32_t head_len, tail_len;
} ps_block_out_t;

typedef struct ps_blocks ps_blocks_t;

/* A cutter and joiner for reader r (which it reads raw; nobody else may read
 * r then) for probes of length k, blocks of at most cap bytes. */
int ps_blocks_new(ps_blocks_t **out, ps_reader_t *r, int k, size_t cap, ps_err_t *err);
void ps_blocks_free(ps_blocks_t *bl);

/* Whole records from now on: every block is cut before a header line, and
 * one that holds part of a record only grows (b->buf is reallocated, up to
 * the longest record) until it holds the record's end. Then no match
 * straddles a cut, and every record's edges lie in its block: sets whose
 * sites need record edges or vary in length read blocks too. */
void ps_blocks_whole_records(ps_blocks_t *bl);

/* Fills b (b->buf of b->cap <= cap bytes) with the next block. Returns 1, 0
 * at the end of the input, or a negative code (a read error). */
int ps_blocks_cut(ps_blocks_t *bl, ps_block_t *b, ps_err_t *err);

/* Receives each chunk of a parsed block; c may be reused once it returns. */
typedef int (*ps_chunk_fn)(void *ctx, ps_chunk_t *c, ps_err_t *err);

/* Parses block b with parser p (initialised with ps_parser_init for this
 * input) into chunk c, calling scan (if not NULL) on each chunk that holds
 * symbols; describes the block in out. line_base and cont_name are the lines
 * before the block and the record in progress at its start, for messages
 * (0 and NULL when not known yet). Any thread. */
int ps_block_parse(ps_parser_t *p, const ps_block_t *b, uint64_t line_base, const char *cont_name, ps_chunk_t *c,
                   ps_chunk_fn scan, void *ctx, ps_block_out_t *out, ps_err_t *err);

/* Joins the next block in input order. Writes the junction segment T+H that
 * the caller must scan as one segment into seg (2 * PS_MAX_K bytes of symbol
 * codes) and returns its length (0: none). */
uint32_t ps_blocks_join(ps_blocks_t *bl, const ps_block_out_t *o, uint8_t *seg);

/* For a block that failed to parse, in its turn (every earlier block joined):
 * parses it again knowing its first line and record, into scratch chunk c,
 * and returns that error (or fallback, should it now parse). */
int ps_blocks_reparse(const ps_blocks_t *bl, ps_parser_t *p, const ps_block_t *b, ps_chunk_t *c,
                      const ps_err_t *fallback, ps_err_t *err);

/* Where the next block to join lies (call before joining it). at->cont_name
 * points into bl and changes with the join. */
void ps_blocks_place(const ps_blocks_t *bl, ps_block_place_t *at);

/* Records, symbols, other characters and names cut of the blocks joined so
 * far, into st. */
void ps_blocks_counts(const ps_blocks_t *bl, ps_reader_stats_t *st);

#ifdef __cplusplus
}
#endif

#endif
