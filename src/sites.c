#include "sites.h"

#include <ctype.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "guides.h"
#include "nsites.h"
#include "output.h"
#include "parse.h"
#include "prosite.h"


/* One output row before it is written. */
typedef struct {
    uint64_t rec, start, end; /* the record (its ordinal; in a block: 0 for the record in progress at
                               * its start, j + 1 for its j-th header); offsets in it */
    uint32_t probe;
    uint8_t strand, dist, held; /* held: its name and letters are in the held rows' buffers */
    uint8_t whole;            /* its text is the whole row, formatted on a pool thread */
    uint32_t name;            /* the record's name, in names */
    uint32_t n_x;             /* ps_scan's rules: the X's its match takes where residues are named */
    uint32_t tlen;            /* the length of its text */
    uint64_t moff;            /* its text, in text: TSV the matched letters; gff and psa ps_scan's text */
} row_t;

typedef struct {
    row_t *row;
    size_t n, cap;
    char *names, *text;
    size_t names_len, names_cap, text_len, text_cap;
    const ps_chunk_t *named_c; /* the chunk record whose name was added last, */
    uint32_t named_j, named_at; /* and where */
    uint64_t *keys, *tmp;      /* a chunk's sites as sort keys, and scratch */
    size_t keys_cap;
} ps_site_rows_t;

/* What a leaf counts: probe, strand, distance. */
typedef struct {
    uint32_t probe;
    uint8_t strand, dist;
} entry_t;

#define OUT_BUF (256 * 1024)

struct ps_site_writer {
    FILE *f;
    const ps_probes_t *p;
    const ps_leaves_t *lv;
    ps_sites_format_t format;
    uint64_t max_hits;
    const char *input;
    size_t input_len;
    int casoff_ids;       /* --format cas-offinder: the probes have names (Cas-OFFinder's ids) */
    size_t row_most;      /* the longest row but for its input name: probe name and text, record name,
                           * letters, numbers (out holds OUT_BUF and one row more) */
    uint32_t *entry_at;   /* leaf l's entries: entry[entry_at[l] .. entry_at[l + 1]) */
    entry_t *entry;
    uint32_t *fixed_len;  /* per probe: its length, or 0 when its matches vary (var) */
    ps_pattern_t **var;   /* per probe and strand (i * 2 + s): the pattern, where lengths vary */
    uint8_t *minus_at_end; /* per probe: its minus-strand sites come at their right end (no
                            * window, on both strands: patset.h's fwd) */
    ps_psopts_t rules;    /* ps_scan's rules (prosite.h), for the probes with a rule */
    ps_psrule_t **rule;   /* per probe: the rule, or NULL (not a protein PROSITE pattern, or none asked for) */
    ps_psstate_t *state;  /* per probe: what the rules know of the sites before */
    int counting;         /* count rows instead of writing them (ps_site_writer_counting) */
    uint64_t *counted;    /* per probe: rows counted since ps_site_writer_take_counts */
    ps_record_writer_t *by_record; /* counting: each row also counted for its record */
    int rec_rc;           /* the first failure adding to it, and its message */
    ps_err_t rec_err;
    int reorder;          /* some do: a chunk's rows are sorted by start before writing */
    uint64_t *hits;       /* per probe: rows written, or offered once max_hits is reached */
    uint32_t *pname_len;  /* per probe: its name's length */
    const char *last_name; /* the record name written last, and its length (valid within one
                            * emit: name buffers are refilled between them) */
    size_t last_len;
    const ps_bulgeset_t *bs; /* guides with bulges: the probes are its variants (bulges.h) */
    ps_site_stats_t st;
    ps_site_rows_t held;  /* rows near the last chunk's end, waiting for the next */
    ps_site_rows_t spare; /* where the next held rows are copied */
    const ps_nsites_t *ns; /* the input's sites that hold no-base letters (nsites.h), */
    size_t ns_next;        /* written among the rows: the first not yet written */
    char *out;
    size_t out_len;
};

static int nomem(ps_err_t *err) { return ps_fail(err, PS_E_NOMEM, "out of memory for located sites"); }

/* The format writes a text per row: the matched letters or ps_scan's. */
static int has_text(const ps_site_writer_t *w)
{
    return w->format == PS_SITES_TSV || w->format == PS_SITES_GFF || w->format == PS_SITES_PSA ||
           w->format == PS_SITES_CASOFF;
}

/* Probe i's pattern on strand s, from the probe set's classes. */
static void probe_pattern(const ps_probes_t *p, uint32_t i, int s, ps_pattern_t *out)
{
    ps_pattern_t fw;
    const size_t k = (size_t)p->k;
    fw.len = p->len[i];
    fw.min_len = 0;
    fw.anchors = p->anchors[i];
    for (uint32_t j = 0; j < fw.len; j++) {
        fw.cls[j] = p->cls[(size_t)i * k + j];
        fw.opt[j] = p->opt[(size_t)i * k + j];
        fw.min_len += !fw.opt[j];
    }
    if (s) ps_pattern_revcomp(&fw, out);
    else *out = fw;
}

static int make(ps_site_writer_t **out, FILE *f, const ps_probes_t *p, const ps_leaves_t *lv,
                ps_sites_format_t format, uint64_t max_hits, const ps_bulgeset_t *bs, ps_err_t *err)
{
    *out = NULL;
    ps_site_writer_t *w = calloc(1, sizeof *w);
    if (!w) return nomem(err);
    w->bs = bs;
    w->f = f;
    w->p = p;
    w->lv = lv;
    w->format = format;
    w->max_hits = max_hits;
    const uint32_t strands = lv->both_strands ? 2u : 1u, levels = (uint32_t)lv->levels;
    w->entry_at = calloc((size_t)lv->n_leaves + 1, sizeof *w->entry_at);
    w->entry = malloc(((size_t)p->n * strands * levels + 1) * sizeof *w->entry);
    w->fixed_len = malloc(((size_t)p->n + 1) * sizeof *w->fixed_len);
    w->var = calloc((size_t)p->n * 2 + 1, sizeof *w->var);
    w->hits = calloc((size_t)p->n + 1, sizeof *w->hits);
    w->pname_len = malloc(((size_t)p->n + 1) * sizeof *w->pname_len);
    w->minus_at_end = calloc((size_t)p->n + 1, 1);
    if (!w->entry_at || !w->entry || !w->fixed_len || !w->var || !w->hits || !w->pname_len || !w->minus_at_end) {
        ps_site_writer_free(w);
        return nomem(err);
    }
    /* Entries by leaf, each leaf's in probe order, + before -. */
    for (uint32_t i = 0; i < p->n; i++)
        for (uint32_t s = 0; s < strands; s++)
            for (uint32_t d = 0; d < levels; d++) w->entry_at[lv->probe_leaf[s][i] + d + 1]++;
    for (uint32_t l = 0; l < lv->n_leaves; l++) w->entry_at[l + 1] += w->entry_at[l];
    uint32_t *fill = malloc(((size_t)lv->n_leaves + 1) * sizeof *fill);
    if (!fill) {
        ps_site_writer_free(w);
        return nomem(err);
    }
    memcpy(fill, w->entry_at, (size_t)lv->n_leaves * sizeof *fill);
    for (uint32_t i = 0; i < p->n; i++)
        for (uint32_t s = 0; s < strands; s++)
            for (uint32_t d = 0; d < levels; d++)
                w->entry[fill[lv->probe_leaf[s][i] + d]++] = (entry_t){i, (uint8_t)s, (uint8_t)d};
    free(fill);
    for (uint32_t i = 0; i < p->n; i++) {
        w->pname_len[i] = (uint32_t)strlen(p->name[i]);
        size_t most = w->pname_len[i] + strlen(p->seq[i]);
        if (most > w->row_most) w->row_most = most;
        /* A probe named by its own sequence (with a PAM: with it, or its query) is not named. */
        if (strcmp(p->name[i], p->seq[i]) && (!p->query || strcmp(p->name[i], p->query[i]))) w->casoff_ids = 1;
    }
    w->row_most += PS_NAME_MAX + 3 * PS_MAX_K + 3 * 20 + 16;
    if (bs) w->row_most += ps_bulges_row_most(bs);
    for (uint32_t i = 0; p->id && i < p->n; i++) {
        size_t most = strlen(p->id[i]) + w->pname_len[i] + 2 * PS_PATTERN_MAX + PS_NAME_MAX + 160;
        if (most > w->row_most) w->row_most = most;
    }
    w->input = "-";
    w->input_len = 1;
    if (!(w->out = malloc(OUT_BUF + w->row_most + w->input_len))) {
        ps_site_writer_free(w);
        return nomem(err);
    }
    for (uint32_t i = 0; i < p->n; i++) {
        w->fixed_len[i] = p->patterns ? p->len[i] : (uint32_t)p->k;
        if (!p->patterns) continue;
        ps_pattern_t fw;
        probe_pattern(p, i, 0, &fw);
        if (ps_pattern_is_window(&fw)) continue;
        w->fixed_len[i] = 0;
        if (strands == 2) w->minus_at_end[i] = 1, w->reorder = 1;
        for (uint32_t s = 0; s < strands; s++) {
            if (!(w->var[i * 2 + s] = malloc(sizeof **w->var))) {
                ps_site_writer_free(w);
                return nomem(err);
            }
            probe_pattern(p, i, (int)s, w->var[i * 2 + s]);
        }
    }
    if (format == PS_SITES_TSV)
        fputs(bs ? "input\trecord\tstart\tend\tname\tmismatches\tstrand\tprobe\tmatched\tbulge\tbulge_size\n"
                 : "input\trecord\tstart\tend\tname\tmismatches\tstrand\tprobe\tmatched\n",
              f);
    if (format == PS_SITES_CASOFF && bs && f) ps_bulges_casoff_header(f);
    *out = w;
    return PS_OK;
}

int ps_site_writer_new(ps_site_writer_t **out, FILE *f, const ps_probes_t *p, const ps_leaves_t *lv,
                       ps_sites_format_t format, uint64_t max_hits, ps_err_t *err)
{
    return make(out, f, p, lv, format, max_hits, NULL, err);
}

int ps_site_writer_new_bulges(ps_site_writer_t **out, FILE *f, const ps_bulgeset_t *bs, ps_sites_format_t format,
                              uint64_t max_hits, ps_err_t *err)
{
    return make(out, f, bs->variants, &bs->leaves, format, max_hits, bs, err);
}

int ps_site_writer_rules(ps_site_writer_t *w, const ps_psopts_t *o, uint32_t *n_rules, ps_err_t *err)
{
    const ps_probes_t *p = w->p;
    *n_rules = 0;
    w->rules = *o;
    if (p->alpha != PS_PROTEIN || !p->patterns || w->lv->levels != 1) return PS_OK;
    if (!(w->rule = calloc((size_t)p->n + 1, sizeof *w->rule)) ||
        !(w->state = calloc((size_t)p->n + 1, sizeof *w->state)))
        return nomem(err);
    for (uint32_t i = 0; i < p->n; i++) {
        const char *s = p->seq[i];
        if (!ps_pattern_is_prosite(s, strlen(s))) continue;
        char why[160];
        if (ps_psrule_compile(s, strlen(s), &w->rule[i], why, sizeof why) < 0)
            return ps_fail(err, PS_E_INTERNAL, "probe '%s': %s", p->name[i], why);
        /* Ends vary only where lengths do; a window's end is its length. */
        if (ps_psrule_max_len(w->rule[i]) != (w->fixed_len[i] ? w->fixed_len[i] : ps_psrule_max_len(w->rule[i])))
            return ps_fail(err, PS_E_INTERNAL, "probe '%s': its rule and its pattern differ in length", p->name[i]);
        (*n_rules)++;
    }
    return PS_OK;
}

int ps_site_writer_counting(ps_site_writer_t *w, ps_record_writer_t *by_record, ps_err_t *err)
{
    w->counting = 1;
    w->by_record = by_record;
    if (!(w->counted = calloc((size_t)w->lv->n_leaves + 1, sizeof *w->counted))) return nomem(err);
    return PS_OK;
}

void ps_site_writer_take_counts(ps_site_writer_t *w, uint64_t *leaf_counts)
{
    for (uint32_t l = 0; l < w->lv->n_leaves; l++) leaf_counts[l] += w->counted[l];
    memset(w->counted, 0, (size_t)w->lv->n_leaves * sizeof *w->counted);
}

void ps_site_writer_nsites(ps_site_writer_t *w, const ps_nsites_t *ns)
{
    w->ns = ns;
    w->ns_next = 0;
}

int ps_site_writer_input(ps_site_writer_t *w, const char *input, ps_err_t *err)
{
    const size_t len = strlen(input);
    if (len > w->input_len) {
        char *o = realloc(w->out, OUT_BUF + w->row_most + len);
        if (!o) return nomem(err);
        w->out = o;
    }
    w->input = input;
    w->input_len = len;
    /* Record ordinals start again with each input. */
    if (w->state) memset(w->state, 0, (size_t)w->p->n * sizeof *w->state);
    return PS_OK;
}

/* ---- writing ------------------------------------------------------------ */

static int write_error(const ps_site_writer_t *w, ps_err_t *err)
{
    if (w->rec_rc < 0) {
        *err = w->rec_err;
        return w->rec_rc;
    }
    if (w->f && ferror(w->f)) return ps_fail(err, PS_E_IO, "error writing the sites: %s", strerror(errno));
    return PS_OK;
}

#define PUT_LIT(o, lit) put_lit(o, lit, sizeof lit - 1)

static inline char *put_lit(char *o, const char *s, size_t n)
{
    memcpy(o, s, n);
    return o + n;
}

/* A row as ps_scan writes it (pff, gff, psa): 1-based, inclusive. */
static char *ps_scan_row(const ps_site_writer_t *w, char *o, const row_t *r, const char *name, uint64_t shift,
                         const char *text)
{
    const char *ac = w->p->name[r->probe], *id = w->p->id ? w->p->id[r->probe] : ac;
    const size_t ac_len = w->pname_len[r->probe], id_len = strlen(id);
    const uint64_t from = r->start + shift + 1, to = r->end + shift;
    if (w->format == PS_SITES_PSA) {
        *o++ = '>';
        memcpy(o, name, w->last_len);
        o += w->last_len;
        *o++ = '/';
        o = ps_put_u64(o, from);
        *o++ = '-';
        o = ps_put_u64(o, to);
        o = PUT_LIT(o, " : ");
        memcpy(o, ac, ac_len);
        o += ac_len;
        *o++ = ' ';
        memcpy(o, id, id_len);
        o += id_len;
        *o++ = ' ';
        *o++ = '\n';
        /* ps_scan's psa leaves out the padding (psa2msa puts it back). */
        for (uint32_t i = 0; i < r->tlen; i++)
            if (text[i] != '.') *o++ = text[i];
        *o++ = '\n';
        return o;
    }
    memcpy(o, name, w->last_len);
    o += w->last_len;
    *o++ = '\t';
    if (w->format == PS_SITES_GFF) {
        o = PUT_LIT(o, "probescan\t");
        memcpy(o, ac, ac_len);
        o += ac_len;
        *o++ = '\t';
    }
    o = ps_put_u64(o, from);
    *o++ = '\t';
    o = ps_put_u64(o, to);
    *o++ = '\t';
    if (w->format == PS_SITES_PFF) {
        /* ps_scan's pff ends a pattern's row with an empty field. */
        memcpy(o, ac, ac_len);
        o += ac_len;
        *o++ = '\t';
        *o++ = '\n';
        return o;
    }
    o = PUT_LIT(o, ".\t.\t.\tName \"");
    memcpy(o, id, id_len);
    o += id_len;
    o = PUT_LIT(o, "\" ; Sequence \"");
    memcpy(o, text, r->tlen);
    o += r->tlen;
    *o++ = '"';
    const uint32_t info = w->p->psinfo ? w->p->psinfo[r->probe] : 0;
    if (info & PS_PSINFO_SKIP) {
        o = PUT_LIT(o, " ; SkipFlag 1");
    }
    if (info & PS_PSINFO_FALSEPOS) {
        o = PUT_LIT(o, " ; KnownFalsePos ");
        o = ps_put_u64(o, info & PS_PSINFO_COUNT);
    }
    *o++ = '\n';
    return o;
}

/* Cas-OFFinder's row: query  record  start  site  strand  mismatches, and
 * the probe's name where the probes are named. The site is written on its
 * strand, its mismatched letters in lower case. */
static char *casoff_row(const ps_site_writer_t *w, char *o, const row_t *r, const char *name, uint64_t shift,
                        const char *matched)
{
    const char *q = w->p->query ? w->p->query[r->probe] : w->p->seq[r->probe];
    const size_t ql = strlen(q), len = (size_t)(r->end - r->start);
    memcpy(o, q, ql);
    o += ql;
    *o++ = '\t';
    memcpy(o, name, w->last_len);
    o += w->last_len;
    *o++ = '\t';
    o = ps_put_u64(o, r->start + shift);
    *o++ = '\t';
    for (size_t j = 0; j < len; j++) {
        char c = r->strand ? matched[len - 1 - j] : matched[j];
        if (r->strand) c = c == 'A' ? 'T' : c == 'C' ? 'G' : c == 'G' ? 'C' : c == 'T' ? 'A' : c;
        const char g = j < ql ? (char)toupper((unsigned char)q[j]) : 'N';
        /* A letter that is no base (a site of nsites.h) mismatches a guide
         * letter of one base, as Cas-OFFinder takes it. */
        const unsigned gb = ps_iupac_bits(g), is_base = c == 'A' || c == 'C' || c == 'G' || c == 'T';
        if (g != 'N' && (is_base ? !(gb & ps_iupac_bits(c)) : !(gb & (gb - 1))) && c >= 'A' && c <= 'Z')
            c = (char)(c + ('a' - 'A'));
        o[j] = c;
    }
    o += len;
    *o++ = '\t';
    *o++ = r->strand ? '-' : '+';
    *o++ = '\t';
    o = ps_put_u64(o, r->dist);
    if (w->casoff_ids) {
        *o++ = '\t';
        memcpy(o, w->p->name[r->probe], w->pname_len[r->probe]);
        o += w->pname_len[r->probe];
    }
    *o++ = '\n';
    return o;
}

/* Writes a row, unless its probe has reached max_hits: in record `name`,
 * its offsets moved by shift (a block's first record), its letters at
 * matched (TSV). The buffer holds OUT_BUF and the longest row after it,
 * so a row goes straight in and the buffer is written out once past
 * OUT_BUF: millions of rows are the whole cost of a dense run. */
static void put_row(ps_site_writer_t *w, const row_t *r, uint64_t rec, const char *name, uint64_t shift,
                    const char *matched)
{
    if (w->rule && w->rule[r->probe] &&
        !ps_psscan_report(&w->rules, &w->state[r->probe], rec, r->start + shift, r->end + shift, r->n_x))
        return;
    if (w->counting) {
        /* A site counts once for its leaf: by the leaf's first entry
         * (duplicate probes share the leaf and have the same rows). */
        const uint32_t leaf = w->lv->probe_leaf[r->strand][r->probe] + r->dist;
        const entry_t *first = &w->entry[w->entry_at[leaf]];
        if (first->probe != r->probe || first->strand != r->strand) return;
        w->counted[leaf]++;
        if (w->by_record && w->rec_rc == PS_OK)
            w->rec_rc = ps_record_writer_add(w->by_record, rec, name, leaf, 1, &w->rec_err);
        return;
    }
    /* --max-hits caps a probe's rows; with bulges, a guide's (all its variants'). */
    const uint32_t hk = w->bs ? w->bs->var[r->probe].guide : r->probe;
    if (w->max_hits && w->hits[hk] >= w->max_hits) {
        if (w->hits[hk]++ == w->max_hits) w->st.probes_capped++;
        w->st.dropped++;
        return;
    }
    w->hits[hk]++;
    w->st.rows++;
    if (name != w->last_name) {
        w->last_name = name;
        w->last_len = strlen(name);
    }
    const int tsv = w->format == PS_SITES_TSV;
    char *o = w->out + w->out_len;
    if (r->whole) {
        memcpy(o, matched, r->tlen);
        w->out_len += r->tlen;
        if (w->out_len >= OUT_BUF) {
            fwrite(w->out, 1, w->out_len, w->f);
            w->out_len = 0;
        }
        return;
    }
    if (w->format == PS_SITES_CASOFF) {
        o = casoff_row(w, o, r, name, shift, matched);
        w->out_len = (size_t)(o - w->out);
        if (w->out_len >= OUT_BUF) {
            fwrite(w->out, 1, w->out_len, w->f);
            w->out_len = 0;
        }
        return;
    }
    if (w->format >= PS_SITES_PFF) {
        o = ps_scan_row(w, o, r, name, shift, matched);
        w->out_len = (size_t)(o - w->out);
        if (w->out_len >= OUT_BUF) {
            fwrite(w->out, 1, w->out_len, w->f);
            w->out_len = 0;
        }
        return;
    }
    if (tsv) {
        memcpy(o, w->input, w->input_len);
        o += w->input_len;
        *o++ = '\t';
    }
    memcpy(o, name, w->last_len);
    o += w->last_len;
    *o++ = '\t';
    o = ps_put_u64(o, r->start + shift);
    *o++ = '\t';
    o = ps_put_u64(o, r->end + shift);
    *o++ = '\t';
    memcpy(o, w->p->name[r->probe], w->pname_len[r->probe]);
    o += w->pname_len[r->probe];
    *o++ = '\t';
    o = ps_put_u64(o, r->dist);
    *o++ = '\t';
    *o++ = r->strand ? '-' : '+';
    if (tsv) {
        const ps_bulge_var_t *bv = w->bs ? &w->bs->var[r->probe] : NULL;
        const char *seq = bv ? w->bs->guides->seq[bv->guide] : w->p->seq[r->probe];
        const size_t sl = strlen(seq);
        *o++ = '\t';
        memcpy(o, seq, sl);
        o += sl;
        *o++ = '\t';
        memcpy(o, matched, (size_t)(r->end - r->start));
        o += r->end - r->start;
        if (bv) {
            *o++ = '\t';
            for (const char *t = ps_bulge_type_name(bv->type); *t; t++) *o++ = *t;
            *o++ = '\t';
            o = ps_put_u64(o, bv->size);
        }
    }
    *o++ = '\n';
    w->out_len = (size_t)(o - w->out);
    if (w->out_len >= OUT_BUF) {
        fwrite(w->out, 1, w->out_len, w->f);
        w->out_len = 0;
    }
}

static int cmp_row(const void *x, const void *y)
{
    const row_t *a = x, *b = y;
    if (a->rec != b->rec) return a->rec < b->rec ? -1 : 1;
    if (a->start != b->start) return a->start < b->start ? -1 : 1;
    if (a->probe != b->probe) return a->probe < b->probe ? -1 : 1;
    if (a->strand != b->strand) return (int)a->strand - (int)b->strand;
    /* Minus-strand sites of a variable pattern may share a start. */
    return a->end < b->end ? -1 : a->end > b->end;
}

/* The rows of the input's sites that hold no-base letters (nsites.h) that
 * come before row `before` (in row order, cmp_row), or all that are left
 * (before NULL). */
static void put_nsites(ps_site_writer_t *w, const row_t *before)
{
    const ps_nsites_t *ns = w->ns;
    for (; w->ns_next < ns->n; w->ns_next++) {
        const ps_nsite_t *x = &ns->site[w->ns_next];
        const row_t r = {x->rec, x->start, x->start + x->len, x->probe, x->strand, x->dist, 0, 0, 0, 0, x->len, 0};
        if (before && cmp_row(&r, before) >= 0) break;
        put_row(w, &r, x->rec, ns->names + x->name, 0, ns->text + x->letters);
    }
}

/* Writes a row (in record rec, its offsets moved by shift), after the rows
 * of sites holding no-base letters that come before it. */
static void write_row(ps_site_writer_t *w, const row_t *r, uint64_t rec, const char *name, uint64_t shift,
                      const char *matched)
{
    if (w->ns && w->ns_next < w->ns->n) {
        row_t at = *r;
        at.rec = rec;
        at.start += shift;
        at.end += shift;
        put_nsites(w, &at);
    }
    put_row(w, r, rec, name, shift, matched);
}

/* ---- rows ---------------------------------------------------------------- */

static int grow(char **buf, size_t *cap, size_t need)
{
    if (need <= *cap) return 0;
    size_t c = *cap ? *cap : 4096;
    while (c < need) c *= 2;
    char *nb = realloc(*buf, c);
    if (!nb) return -1;
    *buf = nb;
    *cap = c;
    return 0;
}

static row_t *new_row(ps_site_rows_t *rs)
{
    if (rs->n == rs->cap) {
        size_t cap = rs->cap ? rs->cap * 2 : 1024;
        row_t *nr = realloc(rs->row, cap * sizeof *nr);
        if (!nr) return NULL;
        rs->row = nr;
        rs->cap = cap;
    }
    return &rs->row[rs->n++];
}

static int add_name(ps_site_rows_t *rs, const char *name, uint32_t *at)
{
    size_t len = strlen(name) + 1;
    if (grow(&rs->names, &rs->names_cap, rs->names_len + len)) return -1;
    memcpy(rs->names + rs->names_len, name, len);
    *at = (uint32_t)rs->names_len;
    rs->names_len += len;
    return 0;
}

static void rows_clear(ps_site_rows_t *rs)
{
    rs->n = rs->names_len = rs->text_len = 0;
    rs->named_c = NULL;
}

static void rows_free(ps_site_rows_t *rs)
{
    free(rs->keys);
    free(rs->tmp);
    free(rs->row);
    free(rs->names);
    free(rs->text);
    memset(rs, 0, sizeof *rs);
}

/* The length of a variable pattern's shortest match starting at pos, at
 * distance d: the rest of the segment (which ends at restart r, or at the
 * chunk's end), up to the longest match, matched again on its own. */
static int match_len(const ps_chunk_t *c, const ps_pattern_t *pat, uint64_t pos, uint32_t r, uint64_t off, int d)
{
    uint64_t seg_end = r < c->n_restart ? c->restart[r] : c->n;
    int rec_end = r < c->n_restart ? (c->edge[r] & PS_EDGE_REC_END) != 0 : (c->tail_edge & PS_EDGE_REC_END) != 0;
    uint32_t n = seg_end - pos < pat->len ? (uint32_t)(seg_end - pos) : pat->len;
    uint8_t text[PS_PATTERN_MAX];
    for (uint32_t i = 0; i < n; i++) text[i] = (uint8_t)ps_chunk_sym(c, pos + i);
    return ps_pattern_match_len(pat, text, n, d, off == 0, rec_end && pos + n == seg_end);
}

/* The same for a site of a variable pattern on the minus strand, which the
 * pattern engine lists at its right end pos (patset.h: fwd): the shortest
 * match of the probe's own pattern pat over the complement read backward
 * from pos, within its segment (which starts at restart r - 1, or at the
 * chunk's start). */
static int match_len_minus(const ps_chunk_t *c, const ps_pattern_t *pat, uint64_t pos, uint32_t r, int d)
{
    uint64_t seg_start = r ? c->restart[r - 1] : 0, seg_end = r < c->n_restart ? c->restart[r] : c->n;
    int rec_start = r ? (c->edge[r - 1] & PS_EDGE_REC_START) != 0 : (c->head_edge & PS_EDGE_REC_START) != 0;
    int rec_end = r < c->n_restart ? (c->edge[r] & PS_EDGE_REC_END) != 0 : (c->tail_edge & PS_EDGE_REC_END) != 0;
    uint32_t n = pos + 1 - seg_start < pat->len ? (uint32_t)(pos + 1 - seg_start) : pat->len;
    uint8_t text[PS_PATTERN_MAX];
    for (uint32_t i = 0; i < n; i++) text[i] = (uint8_t)(3u - ps_chunk_sym(c, pos - i));
    return ps_pattern_match_len(pat, text, n, d, rec_end && pos + 1 == seg_end, rec_start && pos + 1 - n == seg_start);
}

/* Sorts a[0..n) in place (tmp: n more): least significant digit first,
 * 11 bits a pass, a pass skipped where every key has the same digit. Keys
 * come in a few sorted runs (each lane's), so often already in order. */
static void sort_keys(uint64_t *a, uint64_t *tmp, size_t n)
{
    size_t i = 1;
    while (i < n && a[i - 1] <= a[i]) i++;
    if (i >= n) return;
    uint64_t *src = a, *dst = tmp;
    for (int shift = 0; shift < 64; shift += 11) {
        size_t cnt[2048] = {0};
        for (i = 0; i < n; i++) cnt[src[i] >> shift & 2047]++;
        if (cnt[src[0] >> shift & 2047] == n) continue;
        for (size_t d = 0, sum = 0; d < 2048; d++) {
            size_t c = cnt[d];
            cnt[d] = sum;
            sum += c;
        }
        for (i = 0; i < n; i++) dst[cnt[src[i] >> shift & 2047]++] = src[i];
        uint64_t *t = src;
        src = dst;
        dst = t;
    }
    if (src != a) memcpy(a, src, n * sizeof *a);
}

/* Appends rows for c's sites to rs, in order. block: c is a chunk of a
 * block (records numbered as ps_block_place_t says). The sites are sorted
 * by start and leaf; that is row order, since at one start an exact index
 * has one leaf (its strings have one length), and the pattern set's leaves
 * are numbered by probe, then strand, with one site a probe and strand;
 * a leaf's rows go by probe, then strand. */
static int add_rows(const ps_site_writer_t *w, ps_site_rows_t *rs, const ps_chunk_t *c, const ps_sites_t *s,
                    int block, ps_err_t *err)
{
    const ps_alpha_t alpha = w->lv->alpha;
    rs->named_c = NULL;
    if (s->n > rs->keys_cap) {
        free(rs->keys);
        free(rs->tmp);
        rs->keys = malloc(s->n * sizeof *rs->keys);
        rs->tmp = malloc(s->n * sizeof *rs->tmp);
        rs->keys_cap = rs->keys && rs->tmp ? s->n : 0;
        if (!rs->keys_cap) return nomem(err);
    }
    for (uint64_t i = 0; i < s->n; i++) rs->keys[i] = (uint64_t)s->pos[i] << 32 | s->leaf[i];
    sort_keys(rs->keys, rs->tmp, s->n);
    /* Sites in order of position: the records passed (rec_pos <= pos) and
     * the restarts passed (restart <= pos) only move forward. */
    uint32_t recs = 0, r = 0;
    for (uint64_t i = 0; i < s->n; i++) {
        const uint64_t pos = rs->keys[i] >> 32;
        const uint32_t leaf = (uint32_t)rs->keys[i];
        while (recs < c->n_rec && c->rec_pos[recs] <= pos) recs++;
        while (r < c->n_restart && c->restart[r] <= pos) r++;
        const uint32_t j = recs ? recs - 1 : c->n_rec; /* n_rec: before the first listed record */
        if (leaf >= w->lv->n_leaves || pos >= c->n || (j == c->n_rec && !block))
            return ps_fail(err, PS_E_INTERNAL, "a site at %llu of leaf %u outside the chunk", (unsigned long long)pos, leaf);
        const uint64_t off = r ? c->seg_off[r - 1] + (pos - c->restart[r - 1]) : c->head_off + pos;
        uint32_t name = 0;
        if (j < c->n_rec) {
            if (rs->named_c != c || rs->named_j != j) {
                if (add_name(rs, c->rec_name + c->name_off[j], &rs->named_at)) return nomem(err);
                rs->named_c = c;
                rs->named_j = j;
            }
            name = rs->named_at;
        }
        for (uint32_t e = w->entry_at[leaf]; e < w->entry_at[leaf + 1]; e++) {
            const entry_t *en = &w->entry[e];
            uint64_t len = w->fixed_len[en->probe], spos = pos, soff = off;
            if (!len && en->strand && w->minus_at_end[en->probe]) {
                if (block && j == c->n_rec)
                    return ps_fail(err, PS_E_INTERNAL, "a pattern of variable length in a block of FASTA");
                int m = match_len_minus(c, w->var[en->probe * 2], pos, r, en->dist);
                if (m <= 0 || (uint64_t)m > off + 1)
                    return ps_fail(err, PS_E_INTERNAL, "%s: no match of '%s' ending at %s:%llu to place", w->input,
                                   w->p->seq[en->probe], j < c->n_rec ? c->rec_name + c->name_off[j] : "?",
                                   (unsigned long long)off);
                len = (uint64_t)m;
                spos = pos + 1 - len;
                soff = off + 1 - len;
            } else if (!len) {
                /* Patterns of variable length take blocks of whole
                 * records only: a block's first record, whose offsets
                 * would be relative (offset 0 not its start), starts in it. */
                if (block && j == c->n_rec)
                    return ps_fail(err, PS_E_INTERNAL, "a pattern of variable length in a block of FASTA");
                int m = match_len(c, w->var[en->probe * 2 + en->strand], pos, r, off, en->dist);
                if (m <= 0)
                    return ps_fail(err, PS_E_INTERNAL, "%s: no match of '%s' at %s:%llu to place", w->input,
                                   w->p->seq[en->probe], j < c->n_rec ? c->rec_name + c->name_off[j] : "?",
                                   (unsigned long long)off);
                len = (uint64_t)m;
            }
            const ps_psrule_t *rule = w->rule ? w->rule[en->probe] : NULL;
            ps_psmatch_t pm = {0};
            uint8_t text[PS_PATTERN_MAX];
            uint16_t took[PS_PATTERN_MAX + 1];
            if (rule) {
                /* ps_scan's match at this start: its end and its X's. */
                const uint64_t seg_end = r < c->n_restart ? c->restart[r] : c->n;
                const int at_rec_end = r < c->n_restart ? (c->edge[r] & PS_EDGE_REC_END) != 0
                                                        : (c->tail_edge & PS_EDGE_REC_END) != 0;
                const uint32_t most = ps_psrule_max_len(rule);
                const uint32_t n = seg_end - spos < most ? (uint32_t)(seg_end - spos) : most;
                for (uint32_t t = 0; t < n; t++) text[t] = (uint8_t)ps_chunk_sym(c, spos + t);
                int ok = ps_psrule_match(rule, text, n, soff == 0 && !(block && j == c->n_rec),
                                         at_rec_end && spos + n == seg_end, w->rules.shortest, &pm, took);
                if (ok < 0) return nomem(err);
                if (!ok)
                    return ps_fail(err, PS_E_INTERNAL, "%s: no match of '%s' at %s:%llu to place", w->input,
                                   w->p->seq[en->probe], j < c->n_rec ? c->rec_name + c->name_off[j] : "?",
                                   (unsigned long long)soff);
                len = pm.len;
            }
            row_t *row = new_row(rs);
            if (!row) return nomem(err);
            uint64_t rec = j == c->n_rec ? 0 : block ? c->rec_id[j] + 1 : c->rec_id[j];
            *row = (row_t){rec, soff, soff + len, en->probe, en->strand, en->dist, 0, 0, name, pm.n_x, (uint32_t)len, 0};
            if (!has_text(w)) continue;
            if (w->bs && w->format == PS_SITES_CASOFF) {
                /* Cas-OFFinder 3's rows are long: formatted here, on the
                 * pool's threads, and only copied by the writer. Bulge
                 * sets (several site lengths) are read in chunks, whose
                 * records are named here, never in blocks. */
                if (block) return ps_fail(err, PS_E_INTERNAL, "Cas-OFFinder 3 rows in a block of FASTA");
                const char *rn = c->rec_name + c->name_off[j];
                const size_t rl = strlen(rn);
                if (grow(&rs->text, &rs->text_cap, rs->text_len + w->row_most + rl)) return nomem(err);
                char site[2 * PS_PATTERN_MAX + 2];
                const size_t sl = len < sizeof site ? (size_t)len : sizeof site;
                for (size_t t = 0; t < sl; t++) {
                    const int x = (int)ps_chunk_sym(c, spos + (en->strand ? len - 1 - t : t));
                    site[t] = ps_alpha_letter(alpha, en->strand ? 3 - x : x);
                }
                row->moff = rs->text_len;
                char *o = ps_bulges_casoff_row(w->bs, rs->text + rs->text_len, en->probe, site, sl, rn, rl, soff,
                                               en->strand, en->dist);
                row->tlen = (uint32_t)(o - (rs->text + rs->text_len));
                rs->text_len += row->tlen;
                row->whole = 1;
                continue;
            }
            if (grow(&rs->text, &rs->text_cap, rs->text_len + 2 * len + 2 * PS_PATTERN_MAX + 1)) return nomem(err);
            row->moff = rs->text_len;
            if (rule && w->format != PS_SITES_TSV) {
                row->tlen = (uint32_t)ps_psrule_text(rule, text, took, rs->text + rs->text_len);
                rs->text_len += row->tlen;
                continue;
            }
            for (uint64_t t = 0; t < len; t++)
                rs->text[rs->text_len++] = ps_alpha_letter(alpha, (int)ps_chunk_sym(c, spos + t));
        }
    }
    return PS_OK;
}

/* ---- the two ways in ---------------------------------------------------- */

/* A row's matched letters (TSV only). */
static const char *letters(const ps_site_writer_t *w, const ps_site_rows_t *rs, const row_t *r)
{
    return has_text(w) ? rs->text + r->moff : "";
}

int ps_site_writer_emit_rows(void *ctx, const ps_chunk_t *c, void *rows, ps_err_t *err)
{
    ps_site_writer_t *w = ctx;
    ps_site_rows_t *cur = rows, *held = &w->held, *next = &w->spare;
    w->last_name = NULL;
    if (!cur) return PS_OK;
    /* The rows held from the last chunk join these, in order. */
    for (size_t i = 0; i < held->n; i++) {
        row_t *r = new_row(cur);
        if (!r) return nomem(err);
        *r = held->row[i];
        r->held = 1;
    }
    if ((held->n || w->reorder) && cur->n > 1) qsort(cur->row, cur->n, sizeof *cur->row, cmp_row);
    /* A later chunk repeats the last k - 1 symbols of an unfinished segment
     * and may place sites there, before rows near the end of this one:
     * those rows wait. */
    size_t keep = cur->n;
    if (!(c->tail_edge & PS_EDGE_CLOSED) && c->n_rec && c->n > c->n_ctx) {
        const uint64_t last = c->rec_id[c->n_rec - 1], end = ps_chunk_offset(c, c->n - 1) + 1;
        const uint64_t from = end > (uint64_t)w->lv->k - 1 ? end - ((uint64_t)w->lv->k - 1) : 0;
        while (keep > 0 && cur->row[keep - 1].rec == last && cur->row[keep - 1].start >= from) keep--;
    }
    for (size_t i = 0; i < keep; i++) {
        const row_t *r = &cur->row[i];
        const ps_site_rows_t *src = r->held ? held : cur;
        write_row(w, r, r->rec, src->names + r->name, 0, letters(w, src, r));
    }
    /* The rows that wait take their name and letters along. */
    rows_clear(next);
    for (size_t i = keep; i < cur->n; i++) {
        const row_t *r = &cur->row[i];
        const ps_site_rows_t *src = r->held ? held : cur;
        row_t *h = new_row(next);
        uint32_t name;
        if (!h || add_name(next, src->names + r->name, &name)) return nomem(err);
        *h = *r;
        h->held = 0;
        h->name = name;
        if (has_text(w)) {
            size_t len = r->tlen;
            if (grow(&next->text, &next->text_cap, next->text_len + len)) return nomem(err);
            memcpy(next->text + next->text_len, src->text + r->moff, len);
            h->moff = next->text_len;
            next->text_len += len;
        }
    }
    ps_site_rows_t was = w->held;
    w->held = w->spare;
    w->spare = was;
    return write_error(w, err);
}

int ps_site_writer_rows(void *ctx, void **rows, const ps_chunk_t *c, const ps_sites_t *s, int block, ps_err_t *err)
{
    ps_site_rows_t *rs = *rows;
    if (!rs && !(rs = *rows = calloc(1, sizeof *rs))) return nomem(err);
    if (!c) {
        rows_clear(rs);
        return PS_OK;
    }
    return add_rows(ctx, rs, c, s, block, err);
}

int ps_site_writer_emit_block(void *ctx, void *rows, const ps_block_place_t *at, ps_err_t *err)
{
    ps_site_writer_t *w = ctx;
    ps_site_rows_t *rs = rows;
    w->last_name = NULL;
    if (!rs) return PS_OK;
    /* Each chunk's rows are sorted, and a block's chunks come in order; with
     * sites of one length the block's rows are in order already. A later
     * chunk's rows may precede an earlier one's where lengths vary (blocks
     * of whole records): sorted. */
    if ((w->lv->mixed_lengths || w->reorder) && rs->n > 1) qsort(rs->row, rs->n, sizeof *rs->row, cmp_row);
    for (size_t i = 0; i < rs->n; i++) {
        const row_t *r = &rs->row[i];
        const int cont = r->rec == 0;
        write_row(w, r, cont ? at->rec_base - 1 : at->rec_base + r->rec - 1, cont ? at->cont_name : rs->names + r->name,
                  cont ? at->cont_off : 0, letters(w, rs, r));
    }
    rows_clear(rs);
    return write_error(w, err);
}

void ps_site_writer_free_rows(void *rows)
{
    if (!rows) return;
    rows_free(rows);
    free(rows);
}

int ps_site_writer_flush(ps_site_writer_t *w, ps_err_t *err)
{
    w->last_name = NULL;
    for (size_t i = 0; i < w->held.n; i++) {
        const row_t *r = &w->held.row[i];
        write_row(w, r, r->rec, w->held.names + r->name, 0, letters(w, &w->held, r));
    }
    rows_clear(&w->held);
    if (w->ns) put_nsites(w, NULL);
    w->ns = NULL;
    if (!w->f) return write_error(w, err);
    if (w->out_len) fwrite(w->out, 1, w->out_len, w->f);
    w->out_len = 0;
    if (fflush(w->f) != 0) return ps_fail(err, PS_E_IO, "error writing the sites: %s", strerror(errno));
    return write_error(w, err);
}

void ps_site_writer_stats(const ps_site_writer_t *w, ps_site_stats_t *st) { *st = w->st; }

void ps_site_writer_free(ps_site_writer_t *w)
{
    if (!w) return;
    for (uint32_t i = 0; w->var && i < 2 * w->p->n; i++) free(w->var[i]);
    free(w->var);
    for (uint32_t i = 0; w->rule && i < w->p->n; i++) ps_psrule_free(w->rule[i]);
    free(w->rule);
    free(w->state);
    free(w->counted);
    free(w->entry_at);
    free(w->entry);
    free(w->fixed_len);
    free(w->minus_at_end);
    free(w->hits);
    free(w->pname_len);
    rows_free(&w->held);
    rows_free(&w->spare);
    free(w->out);
    free(w);
}
