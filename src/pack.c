#include "pack.h"

#include <stdlib.h>
#include <string.h>

static void *al_alloc(const ps_allocator_t *al, size_t bytes)
{
    return al && al->alloc ? al->alloc(al->ctx, bytes) : malloc(bytes);
}

static void al_free(const ps_allocator_t *al, void *p)
{
    if (!p) return;
    if (al && al->release)
        al->release(al->ctx, p);
    else
        free(p);
}

int ps_chunk_init(ps_chunk_t *c, ps_alpha_t a, uint64_t cap, uint32_t cap_restart,
                  const ps_allocator_t *al, ps_err_t *err)
{
    return ps_chunk_init_lists(c, a, cap, cap_restart, cap_restart, al, err);
}

int ps_chunk_init_lists(ps_chunk_t *c, ps_alpha_t a, uint64_t cap, uint32_t cap_restart, uint32_t cap_rec,
                        const ps_allocator_t *al, ps_err_t *err)
{
    memset(c, 0, sizeof *c);
    if (cap == 0 || cap >= UINT32_MAX || cap_restart == 0)
        return ps_fail(err, PS_E_INTERNAL, "chunk capacity out of range");
    c->bits = ps_alpha_bits(a);
    c->per_word = PS_PER_WORD(c->bits);
    c->cap = cap;
    c->cap_restart = cap_restart;
    c->cap_rec = cap_rec;
    c->text = al_alloc(al, (size_t)(cap / c->per_word + 1) * sizeof(uint32_t));
    c->restart = al_alloc(al, (size_t)cap_restart * sizeof(uint32_t));
    c->edge = malloc(cap_restart);
    c->seg_off = malloc((size_t)cap_restart * sizeof *c->seg_off);
    uint32_t lists = cap_rec ? cap_rec : 1;
    c->rec_pos = malloc((size_t)lists * sizeof(uint32_t));
    c->rec_id = malloc((size_t)lists * sizeof(uint64_t));
    c->name_off = malloc((size_t)lists * sizeof(uint32_t));
    /* Room for an average name of 32 bytes; a chunk closes early when full. */
    c->name_cap = cap_rec ? (cap_rec * 32u < 4096u ? 4096u : cap_rec * 32u) : 1u;
    c->rec_name = malloc(c->name_cap);
    if (!c->text || !c->restart || !c->edge || !c->seg_off || !c->rec_pos || !c->rec_id || !c->name_off || !c->rec_name) {
        ps_chunk_free(c, al);
        return ps_fail(err, PS_E_NOMEM, "out of memory allocating a %llu-symbol chunk",
                       (unsigned long long)cap);
    }
    return PS_OK;
}

void ps_chunk_free(ps_chunk_t *c, const ps_allocator_t *al)
{
    al_free(al, c->text);
    al_free(al, c->restart);
    free(c->edge);
    c->edge = NULL;
    free(c->seg_off);
    c->seg_off = NULL;
    free(c->rec_pos);
    free(c->rec_id);
    free(c->name_off);
    free(c->rec_name);
    c->text = c->restart = c->rec_pos = c->name_off = NULL;
    c->rec_id = NULL;
    c->rec_name = NULL;
}

void ps_chunk_clear(ps_chunk_t *c)
{
    c->n = 0;
    c->n_ctx = 0;
    c->n_restart = 0;
    c->head_edge = c->tail_edge = 0;
    c->head_off = 0;
    c->n_rec = 0;
    c->name_len = 0;
    c->word_fill = 0;
}

uint32_t ps_chunk_head(const ps_chunk_t *c, uint32_t max, uint8_t *out)
{
    uint64_t end = c->n_restart ? c->restart[0] : c->n;
    uint32_t m = end < max ? (uint32_t)end : max;
    for (uint32_t i = 0; i < m; i++) out[i] = (uint8_t)ps_chunk_sym(c, i);
    return m;
}

uint32_t ps_chunk_tail(const ps_chunk_t *c, uint32_t max, uint8_t *out)
{
    uint64_t seg = c->n_restart ? c->restart[c->n_restart - 1] : 0;
    uint32_t m = c->n - seg < max ? (uint32_t)(c->n - seg) : max;
    for (uint32_t i = 0; i < m; i++) out[i] = (uint8_t)ps_chunk_sym(c, c->n - m + i);
    return m;
}

int ps_chunk_restart(ps_chunk_t *c)
{
    /* A restart at position 0 is implicit (every scan starts at the root). */
    if (c->n == 0) return 0;
    if (c->n_restart && c->restart[c->n_restart - 1] == c->n) return 0;
    if (c->n_restart == c->cap_restart) return -1;
    c->edge[c->n_restart] = 0;
    c->seg_off[c->n_restart] = 0;
    c->restart[c->n_restart++] = (uint32_t)c->n;
    return 0;
}

int ps_chunk_record(ps_chunk_t *c, uint64_t ordinal, const char *name, uint32_t name_len)
{
    if (c->cap_rec == 0) return ps_chunk_restart(c); /* records are not listed */
    if (c->n_rec == c->cap_rec || c->n_restart == c->cap_restart) return -1;
    if ((uint64_t)c->name_len + name_len + 1 > c->name_cap) {
        if (c->n_rec > 0) return -1;
        name_len = c->name_cap - 1; /* a single giant name is cut, not fatal */
    }
    memcpy(c->rec_name + c->name_len, name, name_len);
    c->rec_name[c->name_len + name_len] = '\0';
    c->name_off[c->n_rec] = c->name_len;
    c->name_len += name_len + 1;
    c->rec_id[c->n_rec] = ordinal;
    c->rec_pos[c->n_rec++] = (uint32_t)c->n;
    return ps_chunk_restart(c);
}

int ps_rec_hits_reserve(ps_rec_hits_t *h, uint64_t hits, ps_err_t *err)
{
    if (h->n_span == h->cap_span) {
        uint32_t cap = h->cap_span ? h->cap_span * 2 : 64;
        ps_rec_span_t *sp = realloc(h->span, cap * sizeof *sp);
        if (!sp) return ps_fail(err, PS_E_NOMEM, "out of memory for per-record counts");
        h->span = sp;
        h->cap_span = cap;
    }
    if (h->n_hit + hits > h->cap_hit) {
        uint64_t cap = h->cap_hit ? h->cap_hit : 1024;
        while (cap < h->n_hit + hits) cap *= 2;
        uint32_t *lf = realloc(h->leaf, cap * sizeof *lf);
        if (lf) h->leaf = lf;
        uint64_t *ct = realloc(h->count, cap * sizeof *ct);
        if (ct) h->count = ct;
        if (!lf || !ct) return ps_fail(err, PS_E_NOMEM, "out of memory for per-record counts");
        h->cap_hit = cap;
    }
    return PS_OK;
}

void ps_rec_hits_free(ps_rec_hits_t *h)
{
    free(h->span);
    free(h->leaf);
    free(h->count);
    memset(h, 0, sizeof *h);
}

int ps_sites_reserve(ps_sites_t *s, uint64_t more, ps_err_t *err)
{
    if (s->n + more <= s->cap) return PS_OK;
    uint64_t cap = s->cap ? s->cap : 1024;
    while (cap < s->n + more) cap *= 2;
    uint32_t *p = realloc(s->pos, cap * sizeof *p);
    if (p) s->pos = p;
    uint32_t *l = realloc(s->leaf, cap * sizeof *l);
    if (l) s->leaf = l;
    if (!p || !l) return ps_fail(err, PS_E_NOMEM, "out of memory for %llu sites", (unsigned long long)(s->n + more));
    s->cap = cap;
    return PS_OK;
}

void ps_sites_free(ps_sites_t *s)
{
    free(s->pos);
    free(s->leaf);
    memset(s, 0, sizeof *s);
}
