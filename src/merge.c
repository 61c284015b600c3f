/* merge.c - `probescan merge`: sum or join count tables (see merge.h).
 *
 * Totals and by-file tables are small (one row per probe), so the first
 * input is loaded into memory and every later input is checked row by row
 * against it and added in; the result is written at the end. By-record
 * tables can have a row per (record, probe) pair, so they stream: only the
 * rows of the last record seen are held back, because the next input may
 * continue that record. */
#include "merge.h"

#include <errno.h>
#include <stddef.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include "error.h"
#include "output.h"
#include "probes.h"

/* count, forward, reverse: the most count columns a totals or by-record row has. */
#define PS_MERGE_MAX_COUNTS 3
/* Longest excerpt of a user field quoted in an error message. */
#define PS_MERGE_QUOTE 60

typedef enum { PS_MS_TOTALS = 1, PS_MS_BYFILE, PS_MS_BYRECORD } ps_mshape_t;

static const char *ps_mshape_name(ps_mshape_t s)
{
    switch (s) {
    case PS_MS_TOTALS: return "totals";
    case PS_MS_BYFILE: return "by-file";
    case PS_MS_BYRECORD: return "by-record";
    }
    return "unknown";
}

/* One input table, read a line at a time and split into fields in place. */
typedef struct {
    const char *show; /* how messages name it */
    FILE *f;
    char *line;
    size_t cap;
    unsigned long lineno;
    char **fld;
    size_t nfld, fcap;
} ps_min_t;

static int ps_min_open(ps_min_t *in, const char *path, ps_err_t *err)
{
    memset(in, 0, sizeof *in);
    if (strcmp(path, "-") == 0) {
        in->show = "standard input";
        in->f = stdin;
        return PS_OK;
    }
    in->show = path;
    in->f = fopen(path, "r");
    if (!in->f) return ps_fail(err, PS_E_IO, "%s: cannot open: %s", path, strerror(errno));
    return PS_OK;
}

static void ps_min_close(ps_min_t *in)
{
    /* Read-only stream: everything it held was already parsed and checked,
     * so a failing fclose cannot change the result. */
    if (in->f && in->f != stdin) (void)fclose(in->f);
    free(in->line);
    free(in->fld);
    memset(in, 0, sizeof *in);
}

/* Reads the next line and splits it at tabs. Returns 1 for a line, 0 at the
 * end of the input, or a negative PS_E_* code. */
static int ps_min_next(ps_min_t *in, ps_err_t *err)
{
    errno = 0;
    ssize_t len = getline(&in->line, &in->cap, in->f);
    if (len < 0) {
        if (ferror(in->f)) return ps_fail(err, PS_E_IO, "%s: read error: %s", in->show, strerror(errno));
        if (errno == ENOMEM) return ps_fail(err, PS_E_NOMEM, "%s: out of memory", in->show);
        return 0;
    }
    in->lineno++;
    if (len > 0 && in->line[len - 1] == '\n') in->line[--len] = '\0';
    if (strlen(in->line) != (size_t)len)
        return ps_fail(err, PS_E_FORMAT, "%s: line %lu: binary data (a NUL byte): not a probescan table", in->show,
                       in->lineno);
    if (len == 0) return ps_fail(err, PS_E_FORMAT, "%s: line %lu: empty line", in->show, in->lineno);
    in->nfld = 0;
    char *p = in->line;
    for (;;) {
        if (in->nfld == in->fcap) {
            size_t ncap = in->fcap ? in->fcap * 2 : 16;
            char **nf = realloc(in->fld, ncap * sizeof *nf);
            if (!nf) return ps_fail(err, PS_E_NOMEM, "%s: out of memory", in->show);
            in->fld = nf;
            in->fcap = ncap;
        }
        in->fld[in->nfld++] = p;
        char *tab = strchr(p, '\t');
        if (!tab) break;
        *tab = '\0';
        p = tab + 1;
    }
    return 1;
}

/* Parses a count: decimal digits only, below 2^64. */
static int ps_mparse_count(const ps_min_t *in, size_t field, const char *column, uint64_t *out, ps_err_t *err)
{
    const char *s = in->fld[field];
    uint64_t v = 0;
    if (*s == '\0') goto bad;
    for (const char *c = s; *c; c++) {
        if (*c < '0' || *c > '9') goto bad;
        unsigned d = (unsigned)(*c - '0');
        if (v > (UINT64_MAX - d) / 10) goto bad;
        v = v * 10 + d;
    }
    *out = v;
    return PS_OK;
bad:
    return ps_fail(err, PS_E_FORMAT, "%s: line %lu: column '%.*s': '%.*s' is not a count (0 to 2^64-1)", in->show,
                   in->lineno, PS_MERGE_QUOTE, column, PS_MERGE_QUOTE, s);
}

static int ps_madd(uint64_t *sum, uint64_t v, const ps_min_t *in, unsigned long line, const char *column,
                   ps_err_t *err)
{
    if (*sum > UINT64_MAX - v)
        return ps_fail(err, PS_E_FORMAT, "%s: line %lu: column '%.*s': the sum overflows 64 bits", in->show, line,
                       PS_MERGE_QUOTE, column);
    *sum += v;
    return PS_OK;
}

/* Recognises the shape from the header fields. */
static int ps_mheader_shape(const ps_min_t *in, ps_mshape_t *shape, ps_err_t *err)
{
    char **f = in->fld;
    size_t n = in->nfld;
    if (strcmp(f[0], "record") == 0) {
        int ok = n >= 4 && !strcmp(f[1], "name") && !strcmp(f[2], "sequence") && !strcmp(f[3], "count") &&
                 (n == 4 || (n == 6 && !strcmp(f[4], "forward") && !strcmp(f[5], "reverse")));
        if (!ok)
            return ps_fail(err, PS_E_FORMAT,
                           "%s: line 1: a by-record header is 'record name sequence count' with optional "
                           "'forward reverse' (tab-separated)",
                           in->show);
        *shape = PS_MS_BYRECORD;
        return PS_OK;
    }
    if (n < 3 || strcmp(f[0], "name") != 0 || strcmp(f[1], "sequence") != 0)
        return ps_fail(err, PS_E_FORMAT,
                       "%s: line 1: not a probescan table: the header must start with 'name<TAB>sequence<TAB>' "
                       "or 'record<TAB>name<TAB>sequence<TAB>'",
                       in->show);
    if ((n == 3 && !strcmp(f[2], "count")) ||
        (n == 5 && !strcmp(f[2], "count") && !strcmp(f[3], "forward") && !strcmp(f[4], "reverse"))) {
        *shape = PS_MS_TOTALS;
        return PS_OK;
    }
    /* Every other column list is a by-file matrix: one column per sample. */
    for (size_t i = 2; i < n; i++) {
        if (f[i][0] == '\0') return ps_fail(err, PS_E_FORMAT, "%s: line 1: column %zu has an empty name", in->show, i + 1);
        for (size_t j = 2; j < i; j++)
            if (strcmp(f[i], f[j]) == 0)
                /* Summing them here would hide two files of one name that a
                 * single run kept apart; refusing keeps merge faithful. */
                return ps_fail(err, PS_E_FORMAT, "%s: line 1: sample column '%.*s' appears twice (columns %zu and %zu)",
                               in->show, PS_MERGE_QUOTE, f[i], j + 1, i + 1);
    }
    *shape = PS_MS_BYFILE;
    return PS_OK;
}

/* Names the first difference between the header fields of a later input and
 * the column names of the first one (whose first `skip` fields match by
 * construction). */
static int ps_mheader_differs(const ps_min_t *in, const char *first, char *const *cols, size_t ncols, size_t skip,
                              ps_err_t *err)
{
    size_t n = in->nfld - skip;
    for (size_t i = 0; i < n && i < ncols; i++)
        if (strcmp(in->fld[skip + i], cols[i]) != 0)
            return ps_fail(err, PS_E_FORMAT, "%s: line 1: column %zu is '%.*s' where %s has '%.*s'", in->show,
                           skip + i + 1, PS_MERGE_QUOTE, in->fld[skip + i], first, PS_MERGE_QUOTE, cols[i]);
    if (n < ncols)
        return ps_fail(err, PS_E_FORMAT, "%s: line 1: the header ends after column %zu where %s has a column '%.*s'",
                       in->show, skip + n, first, PS_MERGE_QUOTE, cols[n]);
    if (n > ncols)
        return ps_fail(err, PS_E_FORMAT, "%s: line 1: column %zu '%.*s' is not in %s", in->show, skip + ncols + 1,
                       PS_MERGE_QUOTE, in->fld[skip + ncols], first);
    return PS_OK;
}

static char *ps_mjoin2(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    char *s = malloc(la + lb + 2);
    if (!s) return NULL;
    memcpy(s, a, la);
    s[la] = '\t';
    memcpy(s + la + 1, b, lb + 1);
    return s;
}

/* Length of the name part of a "name\tsequence" key. */
static int ps_mkey_namelen(const char *key)
{
    const char *tab = strchr(key, '\t');
    return (int)(tab ? tab - key : (ptrdiff_t)strlen(key));
}

/* How much of that name a message quotes. */
static int ps_mkey_quotelen(const char *key)
{
    int ln = ps_mkey_namelen(key);
    return ln < PS_MERGE_QUOTE ? ln : PS_MERGE_QUOTE;
}

static int ps_mkey_equal(const char *key, const char *name, const char *seq)
{
    size_t ln = strlen(name);
    return strncmp(key, name, ln) == 0 && key[ln] == '\t' && strcmp(key + ln + 1, seq) == 0;
}

/* ---- the probe file (-p): probe-file order of (name, sequence) keys ---- */

typedef struct {
    const char *key;
    size_t idx;
} ps_mkeyidx_t;

typedef struct {
    const char *path;
    size_t n;
    char **key;           /* "name\tsequence" of probe i, in probe-file order */
    ps_mkeyidx_t *sorted; /* the keys sorted, for lookups */
} ps_mprobes_t;

static int ps_mkeyidx_cmp(const void *x, const void *y)
{
    const ps_mkeyidx_t *a = x, *b = y;
    int c = strcmp(a->key, b->key);
    return c ? c : (a->idx > b->idx) - (a->idx < b->idx);
}

static void ps_mprobes_free(ps_mprobes_t *mp)
{
    for (size_t i = 0; i < mp->n; i++) free(mp->key[i]);
    free(mp->key);
    free(mp->sorted);
    memset(mp, 0, sizeof *mp);
}

/* Loads the probe file with the loader of `probescan count`, so names and
 * sequences are spelled exactly as the tables spell them. */
static int ps_mprobes_load(ps_mprobes_t *mp, const char *path, ps_err_t *err)
{
    ps_probes_t *p = NULL;
    int rc = ps_probes_load(&p, path, PS_ALPHA_AUTO, err);
    if (rc < 0) return rc;
    mp->path = path;
    mp->key = calloc(p->n, sizeof *mp->key); /* the loader refuses an empty probe file */
    mp->sorted = malloc(p->n * sizeof *mp->sorted);
    if (!mp->key || !mp->sorted) rc = ps_fail(err, PS_E_NOMEM, "out of memory");
    for (uint32_t i = 0; rc == PS_OK && i < p->n; i++) {
        if (!(mp->key[i] = ps_mjoin2(p->name[i], p->seq[i]))) rc = ps_fail(err, PS_E_NOMEM, "out of memory");
        mp->n = (size_t)i + 1;
        mp->sorted[i] = (ps_mkeyidx_t){mp->key[i], i};
    }
    ps_probes_free(p);
    if (rc < 0) {
        ps_mprobes_free(mp);
        return rc;
    }
    qsort(mp->sorted, mp->n, sizeof *mp->sorted, ps_mkeyidx_cmp);
    return PS_OK;
}

/* The first probe-file index of key, or SIZE_MAX when no probe has it. */
static size_t ps_mprobes_find(const ps_mprobes_t *mp, const char *key)
{
    size_t lo = 0, hi = mp->n;
    while (lo < hi) { /* lower bound: duplicates resolve to their first index */
        size_t mid = lo + (hi - lo) / 2;
        if (strcmp(mp->sorted[mid].key, key) < 0) lo = mid + 1;
        else hi = mid;
    }
    return lo < mp->n && strcmp(mp->sorted[lo].key, key) == 0 ? mp->sorted[lo].idx : SIZE_MAX;
}

/* ---- totals and by-file: one row per probe, held in memory ---- */

typedef struct {
    const char *first; /* how messages name the first input */
    size_t nrows, rcap;
    char **key;        /* "name\tsequence" of each probe row */
    size_t ncols, ccap;
    char **colname;
    uint64_t **col;    /* col[c][row] */
} ps_mtable_t;

static void ps_mtable_free(ps_mtable_t *t)
{
    for (size_t r = 0; r < t->nrows; r++) free(t->key[r]);
    for (size_t c = 0; c < t->ncols; c++) {
        free(t->colname[c]);
        free(t->col[c]);
    }
    free(t->key);
    free(t->colname);
    free(t->col);
    memset(t, 0, sizeof *t);
}

static int ps_mtable_add_column(ps_mtable_t *t, const char *name, ps_err_t *err)
{
    if (t->ncols == t->ccap) {
        size_t ncap = t->ccap ? t->ccap * 2 : 8;
        char **nn = realloc(t->colname, ncap * sizeof *nn);
        if (!nn) return ps_fail(err, PS_E_NOMEM, "out of memory");
        t->colname = nn;
        uint64_t **nc = realloc(t->col, ncap * sizeof *nc);
        if (!nc) return ps_fail(err, PS_E_NOMEM, "out of memory");
        t->col = nc;
        t->ccap = ncap;
    }
    char *dup = strdup(name);
    /* Rows of later inputs only ever add to existing rows, so a new column
     * needs exactly nrows zeroed cells (the first input grows them itself). */
    uint64_t *cells = calloc(t->rcap ? t->rcap : 1, sizeof *cells);
    if (!dup || !cells) {
        free(dup);
        free(cells);
        return ps_fail(err, PS_E_NOMEM, "out of memory");
    }
    t->colname[t->ncols] = dup;
    t->col[t->ncols] = cells;
    t->ncols++;
    return PS_OK;
}

static int ps_mtable_grow_rows(ps_mtable_t *t, ps_err_t *err)
{
    size_t ncap = t->rcap ? t->rcap * 2 : 1024;
    char **nk = realloc(t->key, ncap * sizeof *nk);
    if (!nk) return ps_fail(err, PS_E_NOMEM, "out of memory");
    t->key = nk;
    for (size_t c = 0; c < t->ncols; c++) {
        uint64_t *cells = realloc(t->col[c], ncap * sizeof *cells);
        if (!cells) return ps_fail(err, PS_E_NOMEM, "out of memory");
        memset(cells + t->rcap, 0, (ncap - t->rcap) * sizeof *cells);
        t->col[c] = cells;
    }
    t->rcap = ncap;
    return PS_OK;
}

/* Reads the probe rows of one input (header already read). The first input
 * defines the rows; later ones must repeat them. colmap[i] is the table
 * column of the input's count column i. */
static int ps_mtable_read_rows(ps_mtable_t *t, ps_min_t *in, int first, const size_t *colmap, ps_err_t *err)
{
    size_t want = in->nfld; /* every row has as many fields as the header */
    size_t row = 0;
    int rc;
    while ((rc = ps_min_next(in, err)) == 1) {
        if (in->nfld != want)
            return ps_fail(err, PS_E_FORMAT, "%s: line %lu: %zu columns where the header has %zu", in->show, in->lineno,
                           in->nfld, want);
        const char *name = in->fld[0], *seq = in->fld[1];
        if (first) {
            if (t->nrows == t->rcap && (rc = ps_mtable_grow_rows(t, err)) < 0) return rc;
            if (!(t->key[t->nrows] = ps_mjoin2(name, seq))) return ps_fail(err, PS_E_NOMEM, "out of memory");
            t->nrows++;
        } else if (row >= t->nrows) {
            return ps_fail(err, PS_E_FORMAT, "%s: line %lu: probe row '%.*s' '%.*s' is beyond the %zu probe rows of %s",
                           in->show, in->lineno, PS_MERGE_QUOTE, name, PS_MERGE_QUOTE, seq, t->nrows, t->first);
        } else if (!ps_mkey_equal(t->key[row], name, seq)) {
            const char *k = t->key[row];
            int ln = ps_mkey_namelen(k);
            return ps_fail(err, PS_E_FORMAT,
                           "%s: line %lu: probe row '%.*s' '%.*s' differs from '%.*s' '%.*s' on line %zu of %s "
                           "(tables from different probe sets?)",
                           in->show, in->lineno, PS_MERGE_QUOTE, name, PS_MERGE_QUOTE, seq,
                           ps_mkey_quotelen(k), k, PS_MERGE_QUOTE, k + ln + (k[ln] ? 1 : 0),
                           row + 2, t->first);
        }
        for (size_t i = 2; i < want; i++) {
            uint64_t v = 0;
            size_t c = colmap[i - 2];
            if ((rc = ps_mparse_count(in, i, t->colname[c], &v, err)) < 0) return rc;
            if ((rc = ps_madd(&t->col[c][row], v, in, in->lineno, t->colname[c], err)) < 0) return rc;
        }
        row++;
    }
    if (rc < 0) return rc;
    if (!first && row < t->nrows)
        return ps_fail(err, PS_E_FORMAT, "%s: line %lu: the table ends after %zu probe rows where %s has %zu", in->show,
                       in->lineno + 1, row, t->first, t->nrows);
    return PS_OK;
}

static int ps_mtable_input(ps_mtable_t *t, ps_mshape_t shape, ps_min_t *in, int first, ps_err_t *err)
{
    size_t n = in->nfld - 2;
    size_t *colmap = malloc((n ? n : 1) * sizeof *colmap);
    if (!colmap) return ps_fail(err, PS_E_NOMEM, "out of memory");
    int rc = PS_OK;
    if (first) {
        t->first = in->show;
        for (size_t i = 0; i < n && rc == PS_OK; i++) {
            rc = ps_mtable_add_column(t, in->fld[2 + i], err);
            colmap[i] = i;
        }
    } else if (shape == PS_MS_TOTALS) {
        rc = ps_mheader_differs(in, t->first, t->colname, t->ncols, 2, err);
        for (size_t i = 0; i < n; i++) colmap[i] = i;
    } else {
        /* by-file: a sample seen before is summed into its column (one
         * sample counted in chunks); a new one is appended. */
        for (size_t i = 0; i < n && rc == PS_OK; i++) {
            size_t c = 0;
            while (c < t->ncols && strcmp(t->colname[c], in->fld[2 + i]) != 0) c++;
            if (c == t->ncols) rc = ps_mtable_add_column(t, in->fld[2 + i], err);
            colmap[i] = c;
        }
    }
    if (rc == PS_OK) rc = ps_mtable_read_rows(t, in, first, colmap, err);
    free(colmap);
    return rc;
}

/* With -p: the first table's probe rows must be the probe file's. */
static int ps_mtable_check_probes(const ps_mtable_t *t, const ps_mprobes_t *mp, ps_err_t *err)
{
    for (size_t r = 0; r < t->nrows && r < mp->n; r++)
        if (strcmp(t->key[r], mp->key[r]) != 0) {
            return ps_fail(err, PS_E_FORMAT, "%s: line %zu: probe row '%.*s' is not probe %zu ('%.*s') of %s", t->first,
                           r + 2, ps_mkey_quotelen(t->key[r]), t->key[r], r + 1, ps_mkey_quotelen(mp->key[r]),
                           mp->key[r], mp->path);
        }
    if (t->nrows != mp->n)
        return ps_fail(err, PS_E_FORMAT, "%s: %zu probe rows where %s has %zu probes", t->first, t->nrows, mp->path, mp->n);
    return PS_OK;
}

/* Writes one field list with error checks; fprintf's result is the only
 * reliable place a full disk shows up before the final flush. */
static int ps_mputs(FILE *f, const char *s)
{
    return fputs(s, f) < 0 ? -1 : 0;
}

static int ps_mput_count(FILE *f, uint64_t v)
{
    return fprintf(f, "\t%" PRIu64, v) < 0 ? -1 : 0;
}

static int ps_mtable_write(const ps_mtable_t *t, FILE *f, ps_err_t *err)
{
    int bad = ps_mputs(f, "name\tsequence");
    for (size_t c = 0; c < t->ncols && !bad; c++) bad = fputc('\t', f) == EOF || ps_mputs(f, t->colname[c]);
    if (!bad) bad = fputc('\n', f) == EOF;
    for (size_t r = 0; r < t->nrows && !bad; r++) {
        bad = ps_mputs(f, t->key[r]);
        for (size_t c = 0; c < t->ncols && !bad; c++) bad = ps_mput_count(f, t->col[c][r]);
        if (!bad) bad = fputc('\n', f) == EOF;
    }
    return bad ? ps_fail(err, PS_E_IO, "error writing the merged table: %s", strerror(errno)) : PS_OK;
}

/* ---- by-record: streamed, the last record's rows held back ---- */

typedef struct {
    char *rec;
    char *key; /* "name\tsequence" */
    uint64_t c[PS_MERGE_MAX_COUNTS];
    unsigned long line;
    size_t idx; /* probe-file index with -p, else SIZE_MAX */
} ps_mrow_t;

typedef struct {
    ps_mrow_t *r;
    size_t n, cap;
} ps_mgroup_t;

static void ps_mrow_free(ps_mrow_t *r)
{
    free(r->rec);
    free(r->key);
    r->rec = r->key = NULL;
}

static void ps_mgroup_clear(ps_mgroup_t *g)
{
    for (size_t i = 0; i < g->n; i++) ps_mrow_free(&g->r[i]);
    g->n = 0;
}

static void ps_mgroup_free(ps_mgroup_t *g)
{
    ps_mgroup_clear(g);
    free(g->r);
    memset(g, 0, sizeof *g);
}

/* Appends r, taking ownership of its strings (freed here on failure). */
static int ps_mgroup_push(ps_mgroup_t *g, ps_mrow_t *r, ps_err_t *err)
{
    if (g->n == g->cap) {
        size_t ncap = g->cap ? g->cap * 2 : 64;
        ps_mrow_t *nr = realloc(g->r, ncap * sizeof *nr);
        if (!nr) {
            ps_mrow_free(r);
            return ps_fail(err, PS_E_NOMEM, "out of memory");
        }
        g->r = nr;
        g->cap = ncap;
    }
    g->r[g->n++] = *r;
    return PS_OK;
}

static int ps_mgroup_find(const ps_mgroup_t *g, size_t from, const char *key)
{
    for (size_t i = from; i < g->n; i++)
        if (strcmp(g->r[i].key, key) == 0) return 1;
    return 0;
}

static const char *const ps_mcount_names[PS_MERGE_MAX_COUNTS] = {"count", "forward", "reverse"};

/* Joins the held-back rows `a` of a record with the rows `b` that continue
 * it at the start of the next input (from `in`). Both lists are in
 * probe-file order and the result must be too, with the rows of one probe
 * summed. With the probe file (rows carry idx) that is a plain merge.
 * Without it, the probes shared by both lists pin down part of the order;
 * where nothing does, a's row goes first (as concatenation would have it)
 * and *unsure is set. The result replaces `a`; `b` is left empty. */
static int ps_mgroup_join(ps_mgroup_t *a, ps_mgroup_t *b, size_t nc, int ordered, int *unsure, const ps_min_t *in,
                          ps_err_t *err)
{
    ps_mgroup_t m = {0};
    size_t i = 0, j = 0;
    int rc = PS_OK;
    while (rc == PS_OK && (i < a->n || j < b->n)) {
        int take_a; /* 1: a's row next, 0: b's row next, -1: both, summed */
        if (i == a->n) take_a = 0;
        else if (j == b->n) take_a = 1;
        else if (strcmp(a->r[i].key, b->r[j].key) == 0) take_a = -1;
        else if (ordered) take_a = a->r[i].idx < b->r[j].idx;
        else if (ps_mgroup_find(a, i + 1, b->r[j].key)) take_a = 1;
        else if (ps_mgroup_find(b, j + 1, a->r[i].key)) take_a = 0;
        else {
            take_a = 1;
            *unsure = 1;
        }
        if (take_a < 0) {
            for (size_t c = 0; c < nc && rc == PS_OK; c++)
                rc = ps_madd(&a->r[i].c[c], b->r[j].c[c], in, b->r[j].line, ps_mcount_names[c], err);
            if (rc < 0) break;
            ps_mrow_free(&b->r[j++]);
        }
        rc = take_a ? ps_mgroup_push(&m, &a->r[i++], err) : ps_mgroup_push(&m, &b->r[j++], err);
    }
    /* Rows not yet moved into m are still owned by a and b. */
    for (; i < a->n; i++) ps_mrow_free(&a->r[i]);
    for (; j < b->n; j++) ps_mrow_free(&b->r[j]);
    a->n = b->n = 0;
    if (rc < 0) {
        ps_mgroup_free(&m);
        return rc;
    }
    free(a->r);
    *a = m;
    return PS_OK;
}

static int ps_mgroup_write(ps_mgroup_t *g, size_t nc, FILE *f, ps_err_t *err)
{
    int bad = 0;
    for (size_t i = 0; i < g->n && !bad; i++) {
        bad = ps_mputs(f, g->r[i].rec) || fputc('\t', f) == EOF || ps_mputs(f, g->r[i].key);
        for (size_t c = 0; c < nc && !bad; c++) bad = ps_mput_count(f, g->r[i].c[c]);
        if (!bad) bad = fputc('\n', f) == EOF;
    }
    ps_mgroup_clear(g);
    return bad ? ps_fail(err, PS_E_IO, "error writing the merged table: %s", strerror(errno)) : PS_OK;
}

typedef struct {
    size_t nc;          /* count columns: 1, or 3 with strands */
    const char *first;  /* how messages name the first input */
    ps_mgroup_t held;   /* rows of the last record, not yet written */
    ps_mgroup_t cont;   /* rows continuing that record in the next input */
    const ps_mprobes_t *probes; /* -p, or NULL */
    int warned;         /* the unsure-order warning was printed */
} ps_mrecords_t;

/* Joins held and cont; without the probe file, says once if the order of a
 * joined record's rows is a guess. */
static int ps_mrecords_join(ps_mrecords_t *s, const ps_min_t *in, ps_err_t *err)
{
    int unsure = 0;
    unsigned long line = s->cont.n ? s->cont.r[0].line : in->lineno;
    int rc = ps_mgroup_join(&s->held, &s->cont, s->nc, s->probes != NULL, &unsure, in, err);
    if (rc == PS_OK && unsure && !s->warned) {
        s->warned = 1;
        /* A warning, not an error: the counts are right, only the order of
         * some rows of a split record may differ from a single run. */
        fprintf(stderr,
                "probescan merge: warning: %s: line %lu: record '%.*s' continues from the previous table and the "
                "tables do not fix the order of its rows; give the probe file with -p for the order of a single run\n",
                in->show, line, PS_MERGE_QUOTE, s->held.n ? s->held.r[0].rec : "");
    }
    return rc;
}

static int ps_mrecords_input(ps_mrecords_t *s, ps_min_t *in, int first, FILE *out, ps_err_t *err)
{
    static char *const hdr[] = {"record", "name", "sequence", "count", "forward", "reverse"};
    int rc;
    if (first) {
        s->first = in->show;
        s->nc = in->nfld - 3;
        for (size_t i = 0; i < in->nfld; i++)
            if (ps_mputs(out, hdr[i]) || fputc(i + 1 < in->nfld ? '\t' : '\n', out) == EOF)
                return ps_fail(err, PS_E_IO, "error writing the merged table: %s", strerror(errno));
    } else if ((rc = ps_mheader_differs(in, s->first, hdr, s->nc + 3, 0, err)) < 0) {
        return rc;
    }
    /* While rows continue the held-back record they are collected to be
     * joined with it; the first row of another record ends that. */
    int joining = !first && s->held.n > 0;
    while ((rc = ps_min_next(in, err)) == 1) {
        if (in->nfld != s->nc + 3)
            return ps_fail(err, PS_E_FORMAT, "%s: line %lu: %zu columns where the header has %zu", in->show, in->lineno,
                           in->nfld, s->nc + 3);
        ps_mrow_t r = {.line = in->lineno, .idx = SIZE_MAX};
        for (size_t c = 0; c < s->nc; c++)
            if ((rc = ps_mparse_count(in, 3 + c, ps_mcount_names[c], &r.c[c], err)) < 0) return rc;
        r.rec = strdup(in->fld[0]);
        r.key = ps_mjoin2(in->fld[1], in->fld[2]);
        if (!r.rec || !r.key) {
            ps_mrow_free(&r);
            return ps_fail(err, PS_E_NOMEM, "out of memory");
        }
        if (s->probes && (r.idx = ps_mprobes_find(s->probes, r.key)) == SIZE_MAX) {
            ps_mrow_free(&r);
            return ps_fail(err, PS_E_FORMAT, "%s: line %lu: probe '%.*s' '%.*s' is not in %s", in->show, in->lineno,
                           PS_MERGE_QUOTE, in->fld[1], PS_MERGE_QUOTE, in->fld[2], s->probes->path);
        }
        int same = s->held.n > 0 && strcmp(r.rec, s->held.r[0].rec) == 0;
        if (joining) {
            if (same) {
                if ((rc = ps_mgroup_push(&s->cont, &r, err)) < 0) return rc;
                continue;
            }
            joining = 0;
            if ((rc = ps_mrecords_join(s, in, err)) < 0) {
                ps_mrow_free(&r);
                return rc;
            }
        }
        if (s->held.n > 0 && !same && (rc = ps_mgroup_write(&s->held, s->nc, out, err)) < 0) {
            ps_mrow_free(&r);
            return rc;
        }
        if ((rc = ps_mgroup_push(&s->held, &r, err)) < 0) return rc;
    }
    if (rc < 0) return rc;
    /* An input made only of the held record's rows: join now; the next
     * input may continue the record further. */
    if (joining && s->cont.n > 0) return ps_mrecords_join(s, in, err);
    return PS_OK;
}

/* ---- command line ---- */

static void ps_merge_usage(FILE *f)
{
    fputs("Usage: probescan merge [options] TABLE...\n"
          "\n"
          "Merge count tables made by 'probescan count' with one probe set and the same\n"
          "options (e.g. the per-chunk tables of a scattered workflow) into the table one\n"
          "run over all the chunks gives, byte for byte. TABLE '-' reads standard input.\n"
          "\n"
          "Table shapes, recognised from the header row:\n"
          "  totals      name sequence count [forward reverse]: counts summed\n"
          "  --by-file   name sequence SAMPLE...: columns joined side by side; a sample\n"
          "              column in several tables is summed, new samples are appended\n"
          "  --by-record record name sequence count [forward reverse]: rows concatenated\n"
          "              in table order; a record split over consecutive tables is joined\n"
          "Tables of different shapes, probe rows or totals columns are refused.\n"
          "\n"
          "Options:\n"
          "  -o, --output FILE      write the merged table to FILE (default: standard output)\n"
          "  -p, --probes FILE      the probe file the tables were counted with: checks their\n"
          "                         probe rows and orders the rows of records split over\n"
          "                         tables as one run would (by-record)\n"
          "  -h, --help             this help\n"
          "\n"
          "Example:\n"
          "  probescan merge chunk1.tsv chunk2.tsv chunk3.tsv -o counts.tsv\n",
          f);
}

/* Returns 0 to go on, 1 when help was printed, or a negative code. */
static int ps_merge_args(int argc, char **argv, const char **output, const char **probes, char **inputs,
                         int *n_inputs, ps_err_t *err)
{
    int options = 1, stdin_seen = 0;
    *n_inputs = 0;
    *output = NULL;
    *probes = NULL;
    for (int a = 1; a < argc; a++) {
        const char *s = argv[a];
        if (options && s[0] == '-' && s[1] != '\0') {
            if (strcmp(s, "--") == 0) {
                options = 0;
            } else if (strcmp(s, "-h") == 0 || strcmp(s, "--help") == 0) {
                ps_merge_usage(stdout);
                return 1;
            } else if (strcmp(s, "-o") == 0 || strcmp(s, "--output") == 0) {
                if (a + 1 >= argc) return ps_fail(err, PS_E_USAGE, "option '%s' needs a value", s);
                *output = argv[++a];
            } else if (strcmp(s, "-p") == 0 || strcmp(s, "--probes") == 0) {
                if (a + 1 >= argc) return ps_fail(err, PS_E_USAGE, "option '%s' needs a value", s);
                *probes = argv[++a];
            } else if (strncmp(s, "--output=", 9) == 0) {
                *output = s + 9;
            } else if (strncmp(s, "--probes=", 9) == 0) {
                *probes = s + 9;
            } else if (s[1] == 'o' || s[1] == 'p') {
                *(s[1] == 'o' ? output : probes) = s + 2;
            } else {
                return ps_fail(err, PS_E_USAGE, "unknown option '%s' (see probescan merge --help)", s);
            }
            continue;
        }
        if (strcmp(s, "-") == 0 && stdin_seen++)
            return ps_fail(err, PS_E_USAGE, "standard input ('-') can be read only once");
        inputs[(*n_inputs)++] = argv[a];
    }
    if (*output && **output == '\0') return ps_fail(err, PS_E_USAGE, "--output needs a file name");
    if (*probes && **probes == '\0') return ps_fail(err, PS_E_USAGE, "--probes needs a file name");
    if (*probes && strcmp(*probes, "-") == 0 && stdin_seen)
        return ps_fail(err, PS_E_USAGE, "standard input ('-') can be read only once");
    if (*n_inputs == 0) return ps_fail(err, PS_E_USAGE, "no tables to merge (see probescan merge --help)");
    return 0;
}

static int ps_merge_run(char **inputs, int n_inputs, const char *output, const char *probes, ps_err_t *err)
{
    ps_mtable_t table = {0};
    ps_mrecords_t records = {0};
    ps_mprobes_t mp = {0};
    ps_min_t in = {0};
    ps_output_t *out = NULL;
    ps_mshape_t shape = 0;
    int rc = PS_OK;
    if (probes) {
        rc = ps_mprobes_load(&mp, probes, err);
        records.probes = &mp;
    }
    /* Open the output before reading tables so that an unwritable path fails
     * before any work. */
    if (rc == PS_OK) rc = ps_output_open(&out, output, err);
    for (int i = 0; i < n_inputs && rc == PS_OK; i++) {
        if ((rc = ps_min_open(&in, inputs[i], err)) < 0) break;
        rc = ps_min_next(&in, err);
        if (rc == 0) rc = ps_fail(err, PS_E_FORMAT, "%s: empty file: no header row", in.show);
        ps_mshape_t s = 0;
        if (rc == 1) rc = ps_mheader_shape(&in, &s, err);
        if (rc == PS_OK && i > 0 && s != shape)
            rc = ps_fail(err, PS_E_FORMAT, "%s: line 1: a %s table cannot be merged with the %s table %s", in.show,
                         ps_mshape_name(s), ps_mshape_name(shape), shape == PS_MS_BYRECORD ? records.first : table.first);
        if (rc == PS_OK) {
            shape = s;
            if (s == PS_MS_BYRECORD) rc = ps_mrecords_input(&records, &in, i == 0, ps_output_stream(out), err);
            else rc = ps_mtable_input(&table, s, &in, i == 0, err);
            if (rc == PS_OK && i == 0 && probes && s != PS_MS_BYRECORD) rc = ps_mtable_check_probes(&table, &mp, err);
        }
        /* in.show, which messages keep as the first input's name, points
         * into argv or at a literal, so it outlives the close. */
        ps_min_close(&in);
    }
    if (rc == PS_OK) {
        FILE *f = ps_output_stream(out);
        rc = shape == PS_MS_BYRECORD ? ps_mgroup_write(&records.held, records.nc, f, err)
                                     : ps_mtable_write(&table, f, err);
    }
    if (rc == PS_OK) {
        rc = ps_output_commit(out, err);
        out = NULL;
    }
    ps_output_abort(out);
    ps_mtable_free(&table);
    ps_mgroup_free(&records.held);
    ps_mgroup_free(&records.cont);
    ps_mprobes_free(&mp);
    return rc;
}

int ps_merge_main(int argc, char **argv)
{
    ps_err_t err = {0, ""};
    if (argc <= 1) {
        /* Like `probescan count`: no arguments at all asks for the help. */
        ps_merge_usage(stdout);
        return 0;
    }
    char **inputs = malloc((size_t)argc * sizeof *inputs);
    if (!inputs) {
        fputs("probescan merge: out of memory\n", stderr);
        return 1;
    }
    const char *output, *probes;
    int n_inputs;
    int rc = ps_merge_args(argc, argv, &output, &probes, inputs, &n_inputs, &err);
    if (rc == 0) rc = ps_merge_run(inputs, n_inputs, output, probes, &err);
    free(inputs);
    if (rc < 0) {
        fprintf(stderr, "probescan merge: %s\n", err.msg);
        return 1;
    }
    return 0;
}
