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

/* The record's last letters (upper case, at offset & mask: a power of two
 * at least the longest probe), where the latest letter that is no base
 * lies, and where the run of them ending there began. */
typedef struct {
    uint64_t mask;
    char *letter;
    int64_t last_nb, run_from; /* -1: none in this record */
    char *buf;                 /* a window's letters in order */
    uint8_t *w;
} window_t;

/* The windows that end at offset y (the letter just read) and hold a
 * letter that is no base, judged for every form of their length; a window
 * of such letters alone only where some form takes one (all_nb). */
static int windows_at(ps_nsites_t *ns, const window_t *wd, uint64_t y, record_t *rc, const form_t *f, uint32_t n_f,
                      const uint32_t *lens, const uint8_t *len_all_nb, uint32_t n_lens)
{
    for (uint32_t li = 0; li < n_lens; li++) {
        const uint32_t L = lens[li];
        if (y + 1 < L) continue;
        const uint64_t s = y + 1 - L;
        if (wd->last_nb < (int64_t)s) continue; /* no such letter in the window */
        const int all_nb = wd->last_nb == (int64_t)y && wd->run_from <= (int64_t)s;
        if (all_nb && !len_all_nb[li]) continue;
        for (uint32_t j = 0; j < L; j++) {
            const char ch = wd->letter[(s + j) & wd->mask];
            wd->buf[j] = ch;
            wd->w[j] = ch == 'A' ? 0 : ch == 'C' ? 1 : ch == 'G' ? 2 : ch == 'T' ? 3 : NB;
        }
        for (uint32_t i = 0; i < n_f; i++) {
            if (f[i].len != L || (all_nb && !f[i].all_nb)) continue;
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
    /* The lengths the probes have, each once, and whether a form of that
     * length takes a window of no bases at all. */
    uint32_t *lens = calloc(n_f + 1, sizeof *lens), n_lens = 0, most = 1;
    uint8_t *len_all_nb = calloc(n_f + 1, 1);
    for (uint32_t i = 0; lens && len_all_nb && i < n_f; i++) {
        uint32_t j = 0;
        while (j < n_lens && lens[j] != f[i].len) j++;
        if (j == n_lens) lens[n_lens++] = f[i].len;
        len_all_nb[j] |= f[i].all_nb;
        if (f[i].len > most) most = f[i].len;
    }
    uint64_t ring = 2;
    while (ring < most) ring *= 2;
    window_t wd = {.mask = ring - 1, .last_nb = -1, .run_from = -1};
    wd.letter = malloc(ring);
    wd.buf = malloc(most);
    wd.w = malloc(most);
    /* A byte's part in a sequence line: a base's code, NB, or BLANK. */
    enum { BLANK = 5 };
    uint8_t kind[256];
    for (int b = 0; b < 256; b++) kind[b] = NB;
    kind[' '] = kind['\t'] = kind['\r'] = kind['\n'] = BLANK;
    kind['A'] = kind['a'] = 0;
    kind['C'] = kind['c'] = 1;
    kind['G'] = kind['g'] = 2;
    kind['T'] = kind['t'] = kind['U'] = kind['u'] = 3;
    enum { BUF = 1 << 20 };
    unsigned char *buf = malloc(BUF);
    ps_reader_t *r = NULL;
    if (!lens || !len_all_nb || !wd.letter || !wd.buf || !wd.w || !buf) rc = nomem(err);
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
                wd.last_nb = wd.run_from = -1;
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
            const uint8_t c = kind[b];
            if (c == BLANK) continue;
            if (c == NB) {
                wd.letter[off & wd.mask] = (char)(b >= 'a' && b <= 'z' ? b - ('a' - 'A') : b);
                if (wd.last_nb != (int64_t)off - 1) wd.run_from = (int64_t)off;
                wd.last_nb = (int64_t)off;
            } else {
                wd.letter[off & wd.mask] = "ACGT"[c];
            }
            if (wd.last_nb >= 0 && off - (uint64_t)wd.last_nb < most &&
                windows_at(out, &wd, off, &cur, f, n_f, lens, len_all_nb, n_lens) < 0)
                rc = nomem(err);
            off++;
        }
    }
done:
    if (rc == PS_OK && out->n > 1) qsort(out->site, out->n, sizeof *out->site, site_cmp);
    ps_reader_close(r);
    free(buf);
    free(wd.letter);
    free(len_all_nb);
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
