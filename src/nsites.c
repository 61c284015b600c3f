/* nsites.c - sites that hold a letter that is no base, under Cas-OFFinder's
 * rule (nsites.h). */
#include "nsites.h"

#include <stdlib.h>
#include <string.h>

#include "guides.h"
#include "parse.h"
#include "seqio.h"

#define NB 4 /* a letter that is no base, among the codes A=0 C=1 G=2 T=3 */

/* One probe and strand as the window reads it, left to right: each
 * position's bases (A=1 C=2 G=4 T=8) and whether the site must hold them. */
typedef struct {
    uint8_t *bits, *fixed;
    uint32_t probe, len;
    uint8_t strand, limit;
    uint8_t all_nb; /* a window of no bases at all is a site (every fixed position degenerate, few single
                     * bases elsewhere) */
} form_t;

static int nomem(ps_err_t *err) { return ps_fail(err, PS_E_NOMEM, "out of memory listing sites that hold N"); }

static int grow(void **p, size_t *cap, size_t need, size_t size)
{
    if (need <= *cap) return 0;
    size_t nc = *cap ? *cap : 64;
    while (nc < need) nc *= 2;
    void *g = realloc(*p, nc * size);
    if (!g) return -1;
    *p = g;
    *cap = nc;
    return 0;
}

static unsigned comp_bits(unsigned b) { return (b & 1) << 3 | (b & 8) >> 3 | (b & 2) << 1 | (b & 4) >> 1; }

static int single(unsigned b) { return b && !(b & (b - 1)); }

/* The mismatches of window w (codes) against form f, or -1: no site. */
static int judge(const form_t *f, const uint8_t *w)
{
    int mm = 0;
    for (uint32_t j = 0; j < f->len; j++) {
        const unsigned c = w[j], b = f->bits[j];
        const int hit = c == NB ? !single(b) : (b >> c) & 1;
        if (hit) continue;
        if (f->fixed[j] || ++mm > f->limit) return -1;
    }
    return mm;
}

static int make_forms(const ps_probes_t *p, int both, int mismatches, form_t **out, uint32_t *n_out,
                      uint8_t **store, ps_err_t *err)
{
    size_t total = 0;
    for (uint32_t i = 0; i < p->n; i++) total += strlen(p->seq[i]);
    const uint32_t strands = both ? 2 : 1;
    form_t *f = calloc((size_t)p->n * strands, sizeof *f);
    uint8_t *s = malloc(total * strands * 2 + 1);
    if (!f || !s) {
        free(f);
        free(s);
        return nomem(err);
    }
    uint8_t *at = s;
    uint32_t n = 0;
    for (uint32_t i = 0; i < p->n; i++) {
        const char *q = p->seq[i];
        const uint32_t len = (uint32_t)strlen(q);
        const uint8_t *fx = p->fixed ? p->fixed + (size_t)i * (size_t)p->k : NULL;
        const int lim = p->limit && p->limit[i] != PS_NO_LIMIT ? p->limit[i] : mismatches;
        for (uint32_t st = 0; st < strands; st++) {
            form_t *g = &f[n++];
            *g = (form_t){.bits = at, .fixed = at + len, .probe = i, .len = len, .strand = (uint8_t)st,
                          .limit = (uint8_t)(lim < 0 ? 0 : lim > 255 ? 255 : lim)};
            at += 2 * (size_t)len;
            uint32_t singles = 0;
            int fixed_single = 0;
            for (uint32_t j = 0; j < len; j++) {
                const uint32_t from = st ? len - 1 - j : j;
                const unsigned b = ps_iupac_bits((unsigned char)q[from]);
                g->bits[j] = (uint8_t)(st ? comp_bits(b) : b);
                g->fixed[j] = fx && fx[from];
                if (single(b)) {
                    if (g->fixed[j]) fixed_single = 1;
                    else singles++;
                }
            }
            g->all_nb = !fixed_single && singles <= g->limit;
        }
    }
    *out = f;
    *n_out = n;
    *store = s;
    return PS_OK;
}

/* The record being read: its ordinal and name, kept in names once a site
 * of it is. */
typedef struct {
    uint64_t rec;
    char name[PS_NAME_MAX + 1];
    uint32_t name_len;
    uint32_t name_at; /* in names, or UINT32_MAX */
} record_t;

static int add_site(ps_nsites_t *ns, record_t *rc, uint64_t start, const form_t *f, int dist, const char *letters)
{
    if (rc->name_at == UINT32_MAX) {
        if (grow((void **)&ns->names, &ns->names_cap, ns->names_len + rc->name_len + 1, 1)) return -1;
        memcpy(ns->names + ns->names_len, rc->name, rc->name_len + 1u);
        rc->name_at = (uint32_t)ns->names_len;
        ns->names_len += rc->name_len + 1u;
    }
    if (grow((void **)&ns->site, &ns->cap, ns->n + 1, sizeof *ns->site) ||
        grow((void **)&ns->text, &ns->text_cap, ns->text_len + f->len, 1))
        return -1;
    memcpy(ns->text + ns->text_len, letters, f->len);
    ns->site[ns->n++] = (ps_nsite_t){.rec = rc->rec, .start = start, .probe = f->probe, .len = f->len,
                                     .strand = f->strand, .dist = (uint8_t)dist, .name = rc->name_at,
                                     .letters = ns->text_len};
    ns->text_len += f->len;
    return 0;
}

static int site_cmp(const void *a, const void *b)
{
    const ps_nsite_t *x = a, *y = b;
    if (x->rec != y->rec) return x->rec < y->rec ? -1 : 1;
    if (x->start != y->start) return x->start < y->start ? -1 : 1;
    if (x->probe != y->probe) return x->probe < y->probe ? -1 : 1;
    return (int)x->strand - (int)y->strand;
}

/* The window: the last `ring` letters of the record (codes and letters,
 * at offset % ring) and how many of the letters before each offset are no
 * base (cum, at offset % (ring + 1)). */
typedef struct {
    uint32_t ring;
    uint8_t *code;
    char *letter;
    uint64_t *cum;
    char *buf; /* a window's letters in order */
    uint8_t *w;
} window_t;

/* The windows that end at offset y (the letter just read) with a letter
 * that is no base, judged for every form of their length. */
static int windows_at(ps_nsites_t *ns, const window_t *wd, uint64_t y, record_t *rc, const form_t *f, uint32_t n_f,
                      const uint32_t *lens, uint32_t n_lens)
{
    const uint32_t R = wd->ring;
    for (uint32_t li = 0; li < n_lens; li++) {
        const uint32_t L = lens[li];
        if (y + 1 < L) continue;
        const uint64_t s = y + 1 - L;
        const uint64_t nb = wd->cum[(y + 1) % (R + 1)] - wd->cum[s % (R + 1)];
        if (!nb) continue;
        int any = 0;
        for (uint32_t i = 0; i < n_f && !any; i++) any = f[i].len == L && (nb < L || f[i].all_nb);
        if (!any) continue;
        for (uint32_t j = 0; j < L; j++) {
            wd->w[j] = wd->code[(s + j) % R];
            wd->buf[j] = wd->letter[(s + j) % R];
        }
        for (uint32_t i = 0; i < n_f; i++) {
            if (f[i].len != L) continue;
            const int d = judge(&f[i], wd->w);
            if (d >= 0 && add_site(ns, rc, s, &f[i], d, wd->buf) < 0) return -1;
        }
    }
    return 0;
}

int ps_nsites_find(ps_nsites_t *out, const char *path, const ps_probes_t *p, int both, int mismatches, ps_err_t *err)
{
    out->n = out->names_len = out->text_len = 0;
    form_t *f = NULL;
    uint8_t *store = NULL;
    uint32_t n_f = 0;
    int rc = make_forms(p, both, mismatches, &f, &n_f, &store, err);
    if (rc < 0) return rc;
    /* The lengths the probes have, each once. */
    uint32_t *lens = calloc(n_f + 1, sizeof *lens), n_lens = 0, most = 1;
    for (uint32_t i = 0; lens && i < n_f; i++) {
        uint32_t j = 0;
        while (j < n_lens && lens[j] != f[i].len) j++;
        if (j == n_lens) lens[n_lens++] = f[i].len;
        if (f[i].len > most) most = f[i].len;
    }
    window_t wd = {.ring = most};
    wd.code = malloc(most);
    wd.letter = malloc(most);
    wd.cum = calloc(most + 1u, sizeof *wd.cum);
    wd.buf = malloc(most);
    wd.w = malloc(most);
    enum { BUF = 1 << 20 };
    unsigned char *buf = malloc(BUF);
    ps_reader_t *r = NULL;
    if (!lens || !wd.code || !wd.letter || !wd.cum || !wd.buf || !wd.w || !buf) rc = nomem(err);
    if (rc == PS_OK) rc = ps_reader_open(&r, path, PS_DNA, 1, NULL, err);
    /* The FASTA text: a header (a line that starts with '>') starts a
     * record, its first word the name; every other byte of a sequence line
     * but blanks is a letter. */
    enum { BEGIN, NAME, HEADER_REST, SEQ } st = BEGIN;
    int line_start = 1, have_rec = 0;
    uint64_t off = 0;
    record_t cur = {.name_at = UINT32_MAX};
    while (rc == PS_OK) {
        const ssize_t got = ps_reader_read_raw(r, buf, BUF, err);
        if (got < 0) {
            rc = (int)got;
            break;
        }
        if (got == 0) break;
        for (ssize_t i = 0; i < got && rc == PS_OK; i++) {
            const unsigned char b = buf[i];
            const int at_start = line_start;
            line_start = b == '\n';
            if ((at_start || st == BEGIN) && b == '>') {
                if (have_rec) cur.rec++;
                have_rec = 1;
                cur.name_len = 0;
                cur.name[0] = '\0';
                cur.name_at = UINT32_MAX;
                off = 0;
                wd.cum[0] = 0;
                st = NAME;
                continue;
            }
            if (st == BEGIN) {
                if (b == '@') goto done; /* FASTQ: reads, no genome */
                continue;
            }
            if (st != SEQ) {
                if (b == '\n') st = SEQ;
                else if (st == NAME && (b == ' ' || b == '\t' || b == '\r')) st = cur.name_len ? HEADER_REST : NAME;
                else if (st == NAME && cur.name_len < PS_NAME_MAX) {
                    cur.name[cur.name_len++] = (char)b;
                    cur.name[cur.name_len] = '\0';
                }
                continue;
            }
            if (b == '\n' || b == ' ' || b == '\t' || b == '\r') continue;
            const unsigned char u = (unsigned char)(b & 0xDF);
            const uint8_t c = u == 'A' ? 0 : u == 'C' ? 1 : u == 'G' ? 2 : u == 'T' || u == 'U' ? 3 : NB;
            const uint32_t R = wd.ring;
            wd.code[off % R] = c;
            wd.letter[off % R] = c == NB ? (char)(b >= 'a' && b <= 'z' ? b - ('a' - 'A') : b) : "ACGT"[c];
            wd.cum[(off + 1) % (R + 1)] = wd.cum[off % (R + 1)] + (c == NB);
            if (windows_at(out, &wd, off, &cur, f, n_f, lens, n_lens) < 0) rc = nomem(err);
            off++;
        }
    }
done:
    if (rc == PS_OK && out->n > 1) qsort(out->site, out->n, sizeof *out->site, site_cmp);
    ps_reader_close(r);
    free(buf);
    free(wd.code);
    free(wd.letter);
    free(wd.cum);
    free(wd.buf);
    free(wd.w);
    free(lens);
    free(f);
    free(store);
    return rc;
}

void ps_nsites_free(ps_nsites_t *ns)
{
    free(ns->site);
    free(ns->names);
    free(ns->text);
    memset(ns, 0, sizeof *ns);
}
