#include "blocks.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct ps_blocks {
    ps_reader_t *r;
    uint32_t k1;             /* k - 1 */
    unsigned char *carry;    /* bytes after the last cut, for the next block */
    size_t carry_len, cap;
    unsigned char prev;      /* the byte before the next block */
    int in_header;           /* the next block starts inside a header line */
    int eof, cut_any;
    int whole;               /* ps_blocks_whole_records */
    /* joining */
    uint8_t t[PS_MAX_K];     /* open tail before the next block */
    uint32_t t_len;
    uint64_t records, symbols, other, foreign, lines;
    uint64_t rec_letters;    /* letters of the record in progress at the last cut */
    uint64_t names_cut;
    char last_name[PS_NAME_MAX + 1];
};

int ps_blocks_new(ps_blocks_t **out, ps_reader_t *r, int k, size_t cap, ps_err_t *err)
{
    *out = NULL;
    ps_blocks_t *bl = calloc(1, sizeof *bl);
    if (!bl || !(bl->carry = malloc(cap))) {
        free(bl);
        return ps_fail(err, PS_E_NOMEM, "out of memory for a %zu-byte block", cap);
    }
    bl->r = r;
    bl->k1 = (uint32_t)k - 1;
    bl->cap = cap;
    bl->prev = '\n';
    *out = bl;
    return PS_OK;
}

void ps_blocks_whole_records(ps_blocks_t *bl) { bl->whole = 1; }

/* Reads raw input into b until it holds `upto` bytes or the input ends. */
static int fill(ps_blocks_t *bl, ps_block_t *b, size_t upto, ps_err_t *err)
{
    while (b->len < upto && !bl->eof) {
        ssize_t got = ps_reader_read_raw(bl->r, b->buf + b->len, upto - b->len, err);
        if (got < 0) return (int)got;
        if (got == 0) bl->eof = 1;
        b->len += (size_t)got;
    }
    return PS_OK;
}

/* A whole-record block: b holds len bytes read; cut before the last header
 * line that starts after b->buf[0], reading more (and growing b and the
 * carry) while there is none and the input goes on. Returns the cut, or a
 * negative code. */
static long whole_cut(ps_blocks_t *bl, ps_block_t *b, ps_err_t *err)
{
    for (size_t lo = 1;;) {
        /* A '>' at i starts a header where buf[i - 1] ends a line; bytes
         * below lo were searched before the block grew. */
        for (size_t i = b->len; i-- > lo;)
            if (b->buf[i] == '>' && b->buf[i - 1] == '\n') return (long)i;
        if (bl->eof) return (long)b->len;
        /* Part of one record: read on into a larger block. */
        size_t want = b->alloc * 2;
        unsigned char *nb = realloc(b->buf, want), *nc = nb ? realloc(bl->carry, want) : NULL;
        if (nb) b->buf = nb;
        if (nc) bl->carry = nc;
        if (!nb || !nc)
            return ps_fail(err, PS_E_NOMEM, "out of memory for a record of over %zu bytes", b->alloc);
        b->alloc = bl->cap = want;
        lo = b->len > 1 ? b->len : 1;
        int rc = fill(bl, b, b->alloc, err);
        if (rc < 0) return rc;
    }
}

void ps_blocks_free(ps_blocks_t *bl)
{
    if (!bl) return;
    free(bl->carry);
    free(bl);
}

int ps_blocks_cut(ps_blocks_t *bl, ps_block_t *b, ps_err_t *err)
{
    b->len = 0;
    b->first = !bl->cut_any;
    b->prev = bl->prev;
    b->in_header = bl->in_header;
    b->whole = bl->whole;
    if (!b->alloc) b->alloc = b->cap;
    if (b->cap > bl->cap || b->cap > b->alloc) return ps_fail(err, PS_E_INTERNAL, "block larger than the cutter's");
    if (bl->whole && b->alloc < bl->carry_len) {
        /* A block that grew left more behind than this one holds. */
        unsigned char *nb = realloc(b->buf, bl->cap);
        if (!nb) return ps_fail(err, PS_E_NOMEM, "out of memory for a %zu-byte block", bl->cap);
        b->buf = nb;
        b->alloc = bl->cap;
    }
    if (bl->eof && bl->carry_len == 0) return 0;
    memcpy(b->buf, bl->carry, bl->carry_len);
    b->len = bl->carry_len;
    bl->carry_len = 0;
    int rc = fill(bl, b, b->cap, err);
    if (rc < 0) return rc;
    if (b->len == 0) return 0;
    /* Cut where a parser can start on its own: a header that starts in this
     * block and has not ended moves whole to the next block. One that fills
     * a whole block is cut, and the next block starts inside it. */
    size_t cut = b->len;
    bl->in_header = 0;
    if (bl->whole) {
        long w = whole_cut(bl, b, err);
        if (w < 0) return (int)w;
        cut = (size_t)w;
    } else if (!bl->eof) {
        const unsigned char *nl = memrchr(b->buf, '\n', b->len);
        if (nl) {
            size_t line = (size_t)(nl - b->buf) + 1;
            if (line < b->len && b->buf[line] == '>') cut = line;
        } else if (b->in_header || (b->prev == '\n' && b->buf[0] == '>')) {
            bl->in_header = 1;
        }
    }
    bl->carry_len = b->len - cut;
    memcpy(bl->carry, b->buf + cut, bl->carry_len);
    b->len = cut;
    bl->prev = b->buf[cut - 1];
    bl->cut_any = 1;
    return 1;
}

int ps_block_parse(ps_parser_t *p, const ps_block_t *b, uint64_t line_base, const char *cont_name, ps_chunk_t *c,
                   ps_chunk_fn scan, void *ctx, ps_block_out_t *out, ps_err_t *err)
{
    const uint32_t k1 = (uint32_t)p->k - 1;
    ps_parser_resume(p, b->first ? PS_PIECE_FIRST : b->in_header ? PS_PIECE_HEADER : PS_PIECE_SEQ, b->prev, line_base,
                     cont_name);
    ps_parser_feed(p, b->buf, b->len);
    out->head_len = out->tail_len = 0;
    int first = 1, rc;
    do {
        if ((rc = ps_parser_chunk(p, c, err)) < 0) return rc;
        if ((rc = ps_parser_fill(p, c, err)) < 0) return rc;
        /* A block of whole records ends where its last record does. */
        if (rc == 0 && b->whole) ps_parser_end_chunk(p, c);
        if (ps_parser_chunk_has_syms(c)) {
            if (first) out->head_len = ps_chunk_head(c, k1, out->head);
            first = 0;
            out->tail_len = ps_chunk_tail(c, k1, out->tail);
            int src = scan ? scan(ctx, c, err) : PS_OK;
            if (src < 0) return src;
        }
    } while (rc == 1); /* 1: the chunk filled up; 0: the block is used up */
    out->open_start = p->open_start;
    out->open_end = p->st == PS_P_FA_SEQ && !p->pending_restart && !p->pending_record;
    out->one_segment = out->open_start && out->open_end && p->breaks == 0;
    out->records = p->stats.records;
    out->symbols = p->stats.symbols;
    out->other = p->stats.other;
    out->foreign = p->stats.foreign;
    out->lines = p->line - 1;
    out->tail_letters = p->seq_len;
    out->names_cut = p->stats.names_cut;
    snprintf(out->last_name, sizeof out->last_name, "%s", p->name);
    return PS_OK;
}

uint32_t ps_blocks_join(ps_blocks_t *bl, const ps_block_out_t *o, uint8_t *seg)
{
    const uint32_t k1 = bl->k1;
    uint32_t n = 0;
    if (bl->t_len && o->open_start && o->head_len) {
        memcpy(seg, bl->t, bl->t_len);
        memcpy(seg + bl->t_len, o->head, o->head_len);
        n = bl->t_len + o->head_len;
    }
    if (!o->open_end) {
        bl->t_len = 0;
    } else if (o->one_segment && o->symbols < k1) {
        /* A short block inside one long segment: T grows across it. */
        uint8_t both[2 * PS_MAX_K];
        uint32_t m = 0;
        for (uint32_t i = 0; i < bl->t_len; i++) both[m++] = bl->t[i];
        for (uint32_t i = 0; i < o->head_len; i++) both[m++] = o->head[i];
        uint32_t keep = m < k1 ? m : k1;
        memcpy(bl->t, both + m - keep, keep);
        bl->t_len = keep;
    } else {
        memcpy(bl->t, o->tail, o->tail_len);
        bl->t_len = o->tail_len;
    }
    bl->rec_letters = o->records ? o->tail_letters : bl->rec_letters + o->tail_letters;
    bl->records += o->records;
    bl->names_cut += o->names_cut;
    bl->symbols += o->symbols;
    bl->other += o->other;
    bl->foreign += o->foreign;
    bl->lines += o->lines;
    if (o->records) snprintf(bl->last_name, sizeof bl->last_name, "%s", o->last_name);
    return n;
}

int ps_blocks_reparse(const ps_blocks_t *bl, ps_parser_t *p, const ps_block_t *b, ps_chunk_t *c,
                      const ps_err_t *fallback, ps_err_t *err)
{
    ps_block_out_t out;
    int rc = ps_block_parse(p, b, bl->lines, bl->last_name, c, NULL, NULL, &out, err);
    if (rc < 0) return rc;
    *err = *fallback;
    return fallback->code ? fallback->code : PS_E_INTERNAL;
}

void ps_blocks_place(const ps_blocks_t *bl, ps_block_place_t *at)
{
    at->rec_base = bl->records;
    at->cont_name = bl->last_name;
    at->cont_off = bl->rec_letters;
}

void ps_blocks_counts(const ps_blocks_t *bl, ps_reader_stats_t *st)
{
    st->records = bl->records;
    st->symbols = bl->symbols;
    st->other = bl->other;
    st->foreign = bl->foreign;
    st->names_cut = bl->names_cut;
}
