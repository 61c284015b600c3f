/* pack.h - the packed text: the one layout that every engine scans.
 *
 * A chunk holds up to `cap` symbols of one alphabet, packed into 32-bit words
 * little-end first: symbol i lives in word i / PS_PER_WORD(bits) at bit
 * (i % PS_PER_WORD(bits)) * bits. DNA packs 16 symbols a word (2 bits each),
 * protein 6 symbols a word (5 bits each, top 2 bits zero). Unused symbol slots
 * of the last word are zero.
 *
 * Letters that are not symbols (N runs, IUPAC codes) and record boundaries are
 * not stored as symbols: they become restart points. restart[0..n_restart) are
 * strictly increasing positions p in [0, n): before consuming symbol p an
 * engine resets its automaton to the root. A match of length k ending at
 * position p counts iff p >= n_ctx and no restart lies in (p-k+1, p].
 *
 * The first n_ctx symbols are context: the last (up to k-1) symbols of the
 * previous chunk's unfinished segment, repeated so that matches that straddle
 * the cut are found exactly once (matches ending inside the context were
 * counted with the previous chunk). n_ctx < k always.
 *
 * Segment edges, for anchors and for engines that own a match by its start
 * (they are filled by the reader that reads an input in order, parse.h;
 * blocks of block-parallel FASTA leave them 0): edge[i] says of the segments
 * on either side of restart i whether the one after begins at its record's
 * first letter (PS_EDGE_REC_START) and whether the one before ends at its
 * record's last letter (PS_EDGE_REC_END); head_edge says the first for the
 * segment at position 0 (which, after context, may have begun in an earlier
 * chunk), and tail_edge the second for the last segment, with
 * PS_EDGE_CLOSED when that segment ends at the chunk's end (a break, a new
 * record or the end of the input follows) rather than going on into the
 * next chunk as its context.
 *
 * Record offsets, for reporting where a site lies (filled by the parser;
 * in a block of block-parallel FASTA the record in progress at the block's
 * start counts from the block's first letter, see ps_block_place_t): seg_off[i] is the 0-based
 * offset within its record of the symbol at restart i, counting every
 * sequence letter of the record (N and other breaks included, line ends
 * not), and head_off that of the symbol at position 0 (context included).
 * A segment holds consecutive letters of one record, so the symbol at
 * position p of the segment starting at restart i lies at seg_off[i] +
 * (p - restart[i]).
 *
 * Records are listed separately so that per-record counting can attribute
 * matches: rec_pos[j] is the position of the first symbol of record rec_id[j]
 * (its 0-based ordinal in the input) in this chunk, and rec_name + name_off[j]
 * its name (first word of the header, NUL-terminated). Only records with
 * symbols in the chunk are listed; a chunk that begins inside a record lists
 * it at position 0. Every listed position > 0 is also a restart.
 *
 * Memory: a chunk is allocated once with a fixed capacity and reused; nothing
 * in it grows. */
#ifndef PS_PACK_H
#define PS_PACK_H

#include <stddef.h>
#include <stdint.h>

#include "alphabet.h"
#include "error.h"

#ifdef __cplusplus
extern "C" {
#endif

#define PS_PER_WORD(bits) ((bits) == 2 ? 16u : 6u)

enum { PS_EDGE_REC_START = 1, PS_EDGE_REC_END = 2, PS_EDGE_CLOSED = 4 };

typedef struct {
    int bits;           /* 2 or 5 */
    uint32_t per_word;  /* 16 or 6 */
    uint32_t *text;     /* packed symbols, cap / per_word + 1 words */
    uint64_t n;         /* symbols in the chunk, context included */
    uint64_t cap;       /* symbol capacity (< 2^32) */
    uint32_t n_ctx;     /* leading context symbols */
    uint32_t *restart;  /* restart positions, strictly increasing */
    uint32_t n_restart, cap_restart;
    uint8_t *edge;      /* per restart: PS_EDGE_REC_START | PS_EDGE_REC_END */
    uint8_t head_edge;  /* PS_EDGE_REC_START of the segment at position 0 */
    uint8_t tail_edge;  /* PS_EDGE_REC_END | PS_EDGE_CLOSED of the last segment */
    uint64_t *seg_off;  /* per restart: the record offset of its symbol */
    uint64_t head_off;  /* the record offset of the symbol at position 0 */
    uint32_t *rec_pos;  /* first position of each listed record */
    uint64_t *rec_id;   /* its ordinal in the input */
    uint32_t *name_off; /* its name in rec_name */
    uint32_t n_rec, cap_rec;
    char *rec_name;     /* NUL-terminated names */
    uint32_t name_len, name_cap;
    uint32_t word_fill; /* bits of text[n / per_word] in use, for appending */
} ps_chunk_t;

/* Allocator hooks, so that an engine can place chunks in pinned memory. NULL
 * alloc means malloc/free. */
typedef struct {
    void *(*alloc)(void *ctx, size_t bytes);
    void (*release)(void *ctx, void *p);
    void *ctx;
} ps_allocator_t;

/* Allocates a chunk for `cap` symbols and `cap_restart` restarts/record starts. */
int ps_chunk_init(ps_chunk_t *c, ps_alpha_t a, uint64_t cap, uint32_t cap_restart,
                  const ps_allocator_t *al, ps_err_t *err);
/* The same with room for cap_rec listed records; 0 lists none (record
 * starts are then only restarts), which spares the name buffer when no one
 * counts per record. */
int ps_chunk_init_lists(ps_chunk_t *c, ps_alpha_t a, uint64_t cap, uint32_t cap_restart, uint32_t cap_rec,
                        const ps_allocator_t *al, ps_err_t *err);
void ps_chunk_free(ps_chunk_t *c, const ps_allocator_t *al);

/* Empties the chunk. */
void ps_chunk_clear(ps_chunk_t *c);

/* Bytes of packed text in use (whole words). */
static inline size_t ps_chunk_text_bytes(const ps_chunk_t *c)
{
    return (size_t)((c->n + c->per_word - 1) / c->per_word) * sizeof(uint32_t);
}

/* Appends symbol code s (0..sigma-1). The caller keeps n < cap. */
static inline void ps_chunk_push(ps_chunk_t *c, uint32_t s)
{
    uint64_t w = c->n / c->per_word;
    if (c->word_fill == 0) c->text[w] = 0;
    c->text[w] |= s << c->word_fill;
    c->word_fill += (uint32_t)c->bits;
    if (c->word_fill >= c->per_word * (uint32_t)c->bits) c->word_fill = 0;
    c->n++;
}

/* Symbol at position i. */
static inline uint32_t ps_chunk_sym(const ps_chunk_t *c, uint64_t i)
{
    /* Constant divisors, one per alphabet: a division by c->per_word was
     * most of a small pattern set's time. */
    if (c->bits == 2) return (c->text[i >> 4] >> ((i & 15u) * 2u)) & 3u;
    const uint64_t w = i / 6u;
    return (c->text[w] >> ((uint32_t)(i - w * 6u) * 5u)) & 31u;
}

/* Index of the first restart after position pos (n_restart when none). */
static inline uint32_t ps_chunk_restart_after(const ps_chunk_t *c, uint64_t pos)
{
    uint32_t lo = 0, hi = c->n_restart;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (c->restart[mid] <= pos) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

/* The 0-based offset within its record of the symbol at position p (the
 * reader's record offsets, see above). */
static inline uint64_t ps_chunk_offset(const ps_chunk_t *c, uint64_t p)
{
    uint32_t r = ps_chunk_restart_after(c, p);
    return r ? c->seg_off[r - 1] + (p - c->restart[r - 1]) : c->head_off + p;
}

/* Copies the first up-to-max symbols of the chunk's first segment (those
 * before its first restart) into out; returns how many. */
uint32_t ps_chunk_head(const ps_chunk_t *c, uint32_t max, uint8_t *out);
/* Copies the last up-to-max symbols of the chunk's last segment (those after
 * its last restart) into out; returns how many. */
uint32_t ps_chunk_tail(const ps_chunk_t *c, uint32_t max, uint8_t *out);

/* Marks a restart before the next symbol pushed (idempotent at one position).
 * Returns 0, or -1 when the restart list is full (the caller closes the chunk). */
int ps_chunk_restart(ps_chunk_t *c);

/* Lists record `ordinal` (named name[0..name_len)) as starting before the
 * next symbol pushed, with a restart there. Returns 0, or -1 when a list is
 * full (the caller closes the chunk and lists the record in the next one). */
int ps_chunk_record(ps_chunk_t *c, uint64_t ordinal, const char *name, uint32_t name_len);

/* Per-record hits of one chunk, for --by-record: for each record listed in
 * the chunk that has hits, span[i] names the record (its index in the
 * chunk's record list) and its hits leaf[first..first+n) with count[...],
 * in no particular order. Grown as needed by whoever fills it. */
typedef struct {
    uint32_t rec, first, n;
} ps_rec_span_t;

typedef struct {
    ps_rec_span_t *span;
    uint32_t n_span, cap_span;
    uint32_t *leaf;
    uint64_t *count;
    uint64_t n_hit, cap_hit;
} ps_rec_hits_t;

/* The sites of one chunk, for `locate`: site i starts at chunk position
 * pos[i] (its first symbol) and is counted at leaf[i] (leaves.h: probe,
 * strand and distance). A site lies in one segment, may start inside the
 * context, and belongs to the chunk that counts it (the rule above; sites
 * owned by their start, engine_pattern.h: the chunk whose own symbols hold
 * the start, except that starts whose longest match could reach past an
 * unfinished last segment are left to the next chunk's context). Grown as
 * needed by whoever fills it. */
typedef struct {
    uint32_t *pos;
    uint32_t *leaf;
    uint64_t n, cap;
} ps_sites_t;

/* Where a block's own coordinates lie in the input (block-parallel FASTA,
 * blocks.h): a block lists the records whose headers it holds, numbered
 * from 0; letters before its first header belong to the record in progress
 * at its start, at offsets counted from the block's start. */
typedef struct {
    uint64_t rec_base;     /* records before the block: its first listed record's ordinal */
    const char *cont_name; /* the record in progress at its start (rec_base - 1) */
    uint64_t cont_off;     /* that record's letters before the block */
} ps_block_place_t;

/* Room for `more` more sites. */
int ps_sites_reserve(ps_sites_t *s, uint64_t more, ps_err_t *err);
void ps_sites_free(ps_sites_t *s);

/* Room for one more span and `hits` more hits. */
int ps_rec_hits_reserve(ps_rec_hits_t *h, uint64_t hits, ps_err_t *err);
void ps_rec_hits_free(ps_rec_hits_t *h);

#ifdef __cplusplus
}
#endif

#endif
