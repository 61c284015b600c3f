/* merge.c - `probescan merge`: sum or join count tables (see merge.h).
 *
 * Totals and by-file tables are small (one row per probe), so the first
 * input is loaded into memory and every later input is checked row by row
 * against it and added in; the result is written at the end. Time and
 * memory are linear in the tables' size, however many samples a matrix
 * has (columns are found by name through a hash). By-record
 * tables can have a row per (record, probe) pair, so they stream: only the
 * rows of the last record seen are held back, because the next input may
 * continue that record. */
#include "merge.h"

#include <errno.h>
#include <getopt.h>
#include <stddef.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <htslib/khash.h>

#include "error.h"
#include "options.h"
#include "outfile.h"
#include "probes.h"
#include "table.h"
#include "tablein.h"

#ifndef PS_VERSION
#define PS_VERSION "unknown"
#endif

/* Longest excerpt of a user field quoted in an error message. */
#define QUOTE 60


static int add_count(uint64_t *sum, uint64_t v, const ps_tablein_t *in, unsigned long line, const char *column,
                   ps_err_t *err)
{
    if (*sum > UINT64_MAX - v)
        return ps_fail(err, PS_E_FORMAT, "%s: line %lu: column '%.*s': the sum overflows 64 bits", in->show, line,
                       QUOTE, column);
    *sum += v;
    return PS_OK;
}

/* A row with strand columns must have count = forward + reverse: anything
 * else was not written by probescan count, or was edited. */
static int check_strands(const ps_tablein_t *in, const uint64_t *v, ps_err_t *err)
{
    if (v[1] <= UINT64_MAX - v[2] && v[0] == v[1] + v[2]) return PS_OK;
    return ps_fail(err, PS_E_FORMAT, "%s: line %lu: count %" PRIu64 " is not forward + reverse (%" PRIu64 " + %" PRIu64 ")",
                   in->show, in->lineno, v[0], v[1], v[2]);
}

/* Names the first difference between the header fields of a later input and
 * the column names of the first one (whose first `skip` fields match by
 * construction). */
static int header_differs(const ps_tablein_t *in, const char *first, char *const *cols, size_t ncols, size_t skip,
                              ps_err_t *err)
{
    size_t n = in->nfld - skip;
    for (size_t i = 0; i < n && i < ncols; i++)
        if (strcmp(in->fld[skip + i], cols[i]) != 0)
            return ps_fail(err, PS_E_FORMAT, "%s: line 1: column %zu is '%.*s' where %s has '%.*s'", in->show,
                           skip + i + 1, QUOTE, in->fld[skip + i], first, QUOTE, cols[i]);
    if (n < ncols)
        return ps_fail(err, PS_E_FORMAT, "%s: line 1: the header ends after column %zu where %s has a column '%.*s'",
                       in->show, skip + n, first, QUOTE, cols[n]);
    if (n > ncols)
        return ps_fail(err, PS_E_FORMAT, "%s: line 1: column %zu '%.*s' is not in %s", in->show, skip + ncols + 1,
                       QUOTE, in->fld[skip + ncols], first);
    return PS_OK;
}

static char *join2(const char *a, const char *b)
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
static int key_namelen(const char *key)
{
    const char *tab = strchr(key, '\t');
    return (int)(tab ? tab - key : (ptrdiff_t)strlen(key));
}

/* How much of that name a message quotes. */
static int key_quotelen(const char *key)
{
    int ln = key_namelen(key);
    return ln < QUOTE ? ln : QUOTE;
}

static int key_equal(const char *key, const char *name, const char *seq)
{
    size_t ln = strlen(name);
    return strncmp(key, name, ln) == 0 && key[ln] == '\t' && strcmp(key + ln + 1, seq) == 0;
}

/* ---- the probe file (-p): probe-file order of (name, sequence) keys ---- */

typedef struct {
    const char *key;
    size_t idx;
} keyidx_t;

typedef struct {
    const char *path;
    size_t n;
    char **key;           /* "name\tsequence" of probe i, in probe-file order */
    keyidx_t *sorted; /* the keys sorted, for lookups */
} probeset_t;

static int keyidx_cmp(const void *x, const void *y)
{
    const keyidx_t *a = x, *b = y;
    int c = strcmp(a->key, b->key);
    return c ? c : (a->idx > b->idx) - (a->idx < b->idx);
}

static void probeset_free(probeset_t *mp)
{
    for (size_t i = 0; i < mp->n; i++) free(mp->key[i]);
    free(mp->key);
    free(mp->sorted);
    memset(mp, 0, sizeof *mp);
}

/* Loads the probe file with the loader of `probescan count`, so names and
 * sequences are spelled exactly as the tables spell them. */
static int probeset_load(probeset_t *mp, const char *path, ps_err_t *err)
{
    ps_probes_t *p = NULL;
    int rc = ps_probes_load(&p, path, PS_ALPHA_AUTO, 1, err);
    if (rc < 0) return rc;
    mp->path = path;
    mp->key = calloc(p->n, sizeof *mp->key); /* the loader refuses an empty probe file */
    mp->sorted = malloc(p->n * sizeof *mp->sorted);
    if (!mp->key || !mp->sorted) rc = ps_fail(err, PS_E_NOMEM, "out of memory");
    for (uint32_t i = 0; rc == PS_OK && i < p->n; i++) {
        if (!(mp->key[i] = join2(p->name[i], p->seq[i]))) rc = ps_fail(err, PS_E_NOMEM, "out of memory");
        mp->n = (size_t)i + 1;
        mp->sorted[i] = (keyidx_t){mp->key[i], i};
    }
    ps_probes_free(p);
    if (rc < 0) {
        probeset_free(mp);
        return rc;
    }
    qsort(mp->sorted, mp->n, sizeof *mp->sorted, keyidx_cmp);
    return PS_OK;
}

/* The first probe-file index of key, or SIZE_MAX when no probe has it. */
static size_t probeset_find(const probeset_t *mp, const char *key)
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

/* Column name -> column, so that joining matrices of many samples stays
 * linear in their size. */
KHASH_MAP_INIT_STR(col, size_t)

/* The count columns one input brought, row-major: cells[row * width + i].
 * The first input's block grows with its rows; a later input's new
 * columns come as one block of exactly the rows known by then. Cells are
 * never allocated per column, so a matrix of many samples and few probes
 * costs its cells, not a row capacity per column. */
typedef struct {
    size_t width, used; /* columns, and how many of them are named so far */
    uint64_t *cells;
} block_t;

typedef struct {
    const char *first; /* how messages name the first input */
    ps_table_shape_t shape;
    int strands;       /* totals: count = forward + reverse is checked */
    size_t nrows, rcap;
    char **key;        /* "name\tsequence" of each probe row */
    size_t ncols, ccap;
    char **colname;
    size_t *colblk, *colpos; /* column c is item colpos[c] of block colblk[c] */
    khash_t(col) *byname;    /* by-file: colname -> column */
    block_t *blk;
    size_t nblk, bcap;
} mtable_t;

static void mtable_free(mtable_t *t)
{
    for (size_t r = 0; r < t->nrows; r++) free(t->key[r]);
    for (size_t c = 0; c < t->ncols; c++) free(t->colname[c]);
    for (size_t b = 0; b < t->nblk; b++) free(t->blk[b].cells);
    if (t->byname) kh_destroy(col, t->byname);
    free(t->key);
    free(t->colname);
    free(t->colblk);
    free(t->colpos);
    free(t->blk);
    memset(t, 0, sizeof *t);
}

static uint64_t *mtable_cell(const mtable_t *t, size_t row, size_t c)
{
    const block_t *b = &t->blk[t->colblk[c]];
    return &b->cells[row * b->width + t->colpos[c]];
}

/* Starts a block of `width` columns and room for `rows` rows, zeroed. */
static int mtable_add_block(mtable_t *t, size_t width, size_t rows, ps_err_t *err)
{
    if (t->nblk == t->bcap) {
        size_t ncap = t->bcap ? t->bcap * 2 : 8;
        block_t *nb = realloc(t->blk, ncap * sizeof *nb);
        if (!nb) return ps_fail(err, PS_E_NOMEM, "out of memory");
        t->blk = nb;
        t->bcap = ncap;
    }
    size_t n = width && rows ? width * rows : 1;
    if (width && rows && n / width != rows) return ps_fail(err, PS_E_NOMEM, "out of memory");
    uint64_t *cells = calloc(n, sizeof *cells);
    if (!cells) return ps_fail(err, PS_E_NOMEM, "out of memory");
    t->blk[t->nblk++] = (block_t){width, 0, cells};
    return PS_OK;
}

/* Adds a column as the next one of the last block. */
static int mtable_add_column(mtable_t *t, const char *name, ps_err_t *err)
{
    if (t->ncols == t->ccap) {
        size_t ncap = t->ccap ? t->ccap * 2 : 8;
        char **nn = realloc(t->colname, ncap * sizeof *nn);
        if (!nn) return ps_fail(err, PS_E_NOMEM, "out of memory");
        t->colname = nn;
        size_t *nb = realloc(t->colblk, ncap * sizeof *nb);
        if (!nb) return ps_fail(err, PS_E_NOMEM, "out of memory");
        t->colblk = nb;
        size_t *np = realloc(t->colpos, ncap * sizeof *np);
        if (!np) return ps_fail(err, PS_E_NOMEM, "out of memory");
        t->colpos = np;
        t->ccap = ncap;
    }
    char *dup = strdup(name);
    if (!dup) return ps_fail(err, PS_E_NOMEM, "out of memory");
    if (t->byname) {
        int absent;
        khiter_t k = kh_put(col, t->byname, dup, &absent);
        if (absent < 0) {
            free(dup);
            return ps_fail(err, PS_E_NOMEM, "out of memory");
        }
        kh_val(t->byname, k) = t->ncols;
    }
    t->colname[t->ncols] = dup;
    t->colblk[t->ncols] = t->nblk - 1;
    t->colpos[t->ncols] = t->blk[t->nblk - 1].used++;
    t->ncols++;
    return PS_OK;
}

/* Room for more rows: only the first input adds rows, and only to its own
 * block, the only one there is while it is read. Doubling from a few rows,
 * so that a wide matrix of few probes is not given room for many. */
static int mtable_grow_rows(mtable_t *t, ps_err_t *err)
{
    size_t ncap = t->rcap ? t->rcap * 2 : 4;
    char **nk = realloc(t->key, ncap * sizeof *nk);
    if (!nk) return ps_fail(err, PS_E_NOMEM, "out of memory");
    t->key = nk;
    block_t *b = &t->blk[0];
    if (b->width) {
        if (ncap * b->width / b->width != ncap) return ps_fail(err, PS_E_NOMEM, "out of memory");
        uint64_t *cells = realloc(b->cells, ncap * b->width * sizeof *cells);
        if (!cells) return ps_fail(err, PS_E_NOMEM, "out of memory");
        memset(cells + t->rcap * b->width, 0, (ncap - t->rcap) * b->width * sizeof *cells);
        b->cells = cells;
    }
    t->rcap = ncap;
    return PS_OK;
}

/* Reads the probe rows of one input (header already read). The first input
 * defines the rows; later ones must repeat them. colmap[i] is the table
 * column of the input's count column i. */
static int mtable_read_rows(mtable_t *t, ps_tablein_t *in, int first, const size_t *colmap, ps_err_t *err)
{
    size_t row = 0;
    int rc;
    while ((rc = ps_tablein_next(in, err)) == 1) {
        const char *name = in->fld[0], *seq = in->fld[1];
        if (first) {
            if (t->nrows == t->rcap && (rc = mtable_grow_rows(t, err)) < 0) return rc;
            if (!(t->key[t->nrows] = join2(name, seq))) return ps_fail(err, PS_E_NOMEM, "out of memory");
            t->nrows++;
        } else if (row >= t->nrows) {
            return ps_fail(err, PS_E_FORMAT, "%s: line %lu: probe row '%.*s' '%.*s' is beyond the %zu probe rows of %s",
                           in->show, in->lineno, QUOTE, name, QUOTE, seq, t->nrows, t->first);
        } else if (!key_equal(t->key[row], name, seq)) {
            const char *k = t->key[row];
            int ln = key_namelen(k);
            return ps_fail(err, PS_E_FORMAT,
                           "%s: line %lu: probe row '%.*s' '%.*s' differs from '%.*s' '%.*s' on line %zu of %s "
                           "(tables from different probe sets?)",
                           in->show, in->lineno, QUOTE, name, QUOTE, seq,
                           key_quotelen(k), k, QUOTE, k + ln + (k[ln] ? 1 : 0),
                           row + 2, t->first);
        }
        uint64_t v[PS_TABLE_MAX_COUNTS] = {0};
        for (size_t i = 2; i < in->nfld; i++) {
            size_t c = colmap[i - 2];
            uint64_t x = 0;
            if ((rc = ps_tablein_count(in, i, t->colname[c], &x, err)) < 0) return rc;
            if (i - 2 < PS_TABLE_MAX_COUNTS) v[i - 2] = x;
            if ((rc = add_count(mtable_cell(t, row, c), x, in, in->lineno, t->colname[c], err)) < 0) return rc;
        }
        if (t->shape == PS_TABLE_TOTALS && t->strands && (rc = check_strands(in, v, err)) < 0) return rc;
        row++;
    }
    if (rc < 0) return rc;
    if (!first && row < t->nrows)
        return ps_fail(err, PS_E_FORMAT, "%s: line %lu: the table ends after %zu probe rows where %s has %zu", in->show,
                       in->lineno + 1, row, t->first, t->nrows);
    return PS_OK;
}

static int mtable_input(mtable_t *t, ps_table_shape_t shape, ps_tablein_t *in, int first, ps_err_t *err)
{
    size_t n = in->nfld - 2;
    size_t *colmap = malloc((n ? n : 1) * sizeof *colmap);
    if (!colmap) return ps_fail(err, PS_E_NOMEM, "out of memory");
    int rc = PS_OK;
    if (first) {
        t->first = in->show;
        t->shape = shape;
        t->strands = in->strands;
        if (shape == PS_TABLE_BYFILE && !(t->byname = kh_init(col))) rc = ps_fail(err, PS_E_NOMEM, "out of memory");
        if (rc == PS_OK) rc = mtable_add_block(t, n, 0, err);
        for (size_t i = 0; i < n && rc == PS_OK; i++) {
            rc = mtable_add_column(t, in->fld[2 + i], err);
            colmap[i] = i;
        }
    } else if (shape == PS_TABLE_TOTALS) {
        rc = header_differs(in, t->first, t->colname, t->ncols, 2, err);
        for (size_t i = 0; i < n; i++) colmap[i] = i;
    } else {
        /* by-file: a sample seen before is summed into its column (one
         * sample counted in chunks); the new ones are appended, as one
         * block. */
        size_t fresh = 0;
        for (size_t i = 0; i < n; i++)
            if (kh_get(col, t->byname, in->fld[2 + i]) == kh_end(t->byname)) fresh++;
        if (fresh) rc = mtable_add_block(t, fresh, t->nrows, err);
        for (size_t i = 0; i < n && rc == PS_OK; i++) {
            khiter_t k = kh_get(col, t->byname, in->fld[2 + i]);
            if (k != kh_end(t->byname)) {
                colmap[i] = kh_val(t->byname, k);
            } else {
                colmap[i] = t->ncols;
                rc = mtable_add_column(t, in->fld[2 + i], err);
            }
        }
    }
    if (rc == PS_OK) rc = mtable_read_rows(t, in, first, colmap, err);
    free(colmap);
    return rc;
}

/* With -p: the first table's probe rows must be the probe file's. */
static int mtable_check_probes(const mtable_t *t, const probeset_t *mp, ps_err_t *err)
{
    for (size_t r = 0; r < t->nrows && r < mp->n; r++)
        if (strcmp(t->key[r], mp->key[r]) != 0) {
            return ps_fail(err, PS_E_FORMAT, "%s: line %zu: probe row '%.*s' is not probe %zu ('%.*s') of %s", t->first,
                           r + 2, key_quotelen(t->key[r]), t->key[r], r + 1, key_quotelen(mp->key[r]),
                           mp->key[r], mp->path);
        }
    if (t->nrows != mp->n)
        return ps_fail(err, PS_E_FORMAT, "%s: %zu probe rows where %s has %zu probes", t->first, t->nrows, mp->path, mp->n);
    return PS_OK;
}

/* Writes one field list with error checks; fprintf's result is the only
 * reliable place a full disk shows up before the final flush. */
static int put_str(FILE *f, const char *s)
{
    return fputs(s, f) < 0 ? -1 : 0;
}

static int put_count(FILE *f, uint64_t v)
{
    return fprintf(f, "\t%" PRIu64, v) < 0 ? -1 : 0;
}

static int mtable_write(const mtable_t *t, FILE *f, ps_err_t *err)
{
    /* Every input had the first one's count columns (totals: the same
     * header; by-file: the samples joined), so they are the header. */
    int bad = ps_table_write_header(f, PS_TABLE_BYFILE, 0, (const char *const *)t->colname, t->ncols);
    for (size_t r = 0; r < t->nrows && !bad; r++) {
        bad = put_str(f, t->key[r]);
        for (size_t c = 0; c < t->ncols && !bad; c++) bad = put_count(f, *mtable_cell(t, r, c));
        if (!bad) bad = fputc('\n', f) == EOF;
    }
    return bad ? ps_fail(err, PS_E_IO, "error writing the merged table: %s", strerror(errno)) : PS_OK;
}

/* ---- by-record: streamed, the last record's rows held back ---- */

typedef struct {
    char *rec;
    char *key; /* "name\tsequence" */
    uint64_t c[PS_TABLE_MAX_COUNTS];
    unsigned long line;
    size_t idx; /* probe-file index with -p, else SIZE_MAX */
} row_t;

typedef struct {
    row_t *r;
    size_t n, cap;
} group_t;

static void row_free(row_t *r)
{
    free(r->rec);
    free(r->key);
    r->rec = r->key = NULL;
}

static void group_clear(group_t *g)
{
    for (size_t i = 0; i < g->n; i++) row_free(&g->r[i]);
    g->n = 0;
}

static void group_free(group_t *g)
{
    group_clear(g);
    free(g->r);
    memset(g, 0, sizeof *g);
}

/* Appends r, taking ownership of its strings (freed here on failure). */
static int group_push(group_t *g, row_t *r, ps_err_t *err)
{
    if (g->n == g->cap) {
        size_t ncap = g->cap ? g->cap * 2 : 64;
        row_t *nr = realloc(g->r, ncap * sizeof *nr);
        if (!nr) {
            row_free(r);
            return ps_fail(err, PS_E_NOMEM, "out of memory");
        }
        g->r = nr;
        g->cap = ncap;
    }
    g->r[g->n++] = *r;
    return PS_OK;
}

/* "name\tsequence" -> a number, so that joining two long lists of rows
 * compares numbers, never searches the lists. */
KHASH_MAP_INIT_STR(keyid, size_t)

/* Numbers the distinct keys of a then b into ida[] and idb[]; returns how
 * many there are, or -1 when out of memory. */
static long number_keys(const group_t *a, const group_t *b, size_t *ida, size_t *idb)
{
    khash_t(keyid) *h = kh_init(keyid);
    if (!h) return -1;
    size_t n = 0;
    for (int side = 0; side < 2; side++) {
        const group_t *g = side ? b : a;
        size_t *id = side ? idb : ida;
        for (size_t i = 0; i < g->n; i++) {
            int absent;
            khiter_t k = kh_put(keyid, h, g->r[i].key, &absent);
            if (absent < 0) {
                kh_destroy(keyid, h);
                return -1;
            }
            if (absent) kh_val(h, k) = n++;
            id[i] = kh_val(h, k);
        }
    }
    kh_destroy(keyid, h);
    return (long)n;
}

/* Joins the held-back rows `a` of a record with the rows `b` that continue
 * it at the start of the next input (from `in`). Both lists are in
 * probe-file order and the result must be too, with the rows of one probe
 * summed. With the probe file (rows carry idx) that is a plain merge.
 * Without it, the probes shared by both lists pin down part of the order;
 * where nothing does, a's row goes first (as concatenation would have it)
 * and *unsure is set. *differs is set where the result is not a followed by
 * b: rows summed, or a row of b put before one of a. The result replaces
 * `a`; `b` is left empty. Time linear in the rows (keys are numbered
 * through a hash first). */
static int group_join(group_t *a, group_t *b, size_t nc, int ordered, int *unsure, int *differs,
                      const ps_tablein_t *in, ps_err_t *err)
{
    group_t m = {0};
    size_t i = 0, j = 0, tot = a->n + b->n;
    /* Per key: the last index in a and in b (-1: none), for "does this
     * probe come later in the other list". Without the probe file a held
     * record whose order was guessed may cross the next table's order; a
     * probe met in both lists is then still summed once: rows of m not yet
     * matched are kept per key and list of origin (0: a, 1: b), first
     * first, chained through next[]. */
    size_t *ida = malloc((tot + 1) * sizeof *ida), *idb = ida ? ida + a->n : NULL;
    long nk = ida ? number_keys(a, b, ida, idb) : -1;
    size_t nkeys = nk > 0 ? (size_t)nk : 1;
    long *lasta = malloc(nkeys * 6 * sizeof *lasta), *next = malloc((tot + 1) * sizeof *next);
    long *lastb = NULL, *head = NULL, *tail = NULL;
    int rc = ida && nk >= 0 && lasta && next ? PS_OK : ps_fail(err, PS_E_NOMEM, "out of memory");
    if (rc == PS_OK) {
        lastb = lasta + nkeys;
        head = lastb + nkeys;
        tail = head + 2 * nkeys;
        for (size_t k = 0; k < nkeys * 6; k++) lasta[k] = -1; /* and lastb, head, tail */
        for (size_t x = 0; x < a->n; x++) lasta[ida[x]] = (long)x;
        for (size_t x = 0; x < b->n; x++) lastb[idb[x]] = (long)x;
    }
    while (rc == PS_OK && (i < a->n || j < b->n)) {
        int take_a; /* 1: a's row next, 0: b's row next, -1: both, summed */
        if (i == a->n) take_a = 0;
        else if (j == b->n) take_a = 1;
        else if (ida[i] == idb[j]) take_a = -1;
        else if (ordered) take_a = a->r[i].idx < b->r[j].idx;
        else if (lasta[idb[j]] > (long)i) take_a = 1;
        else if (lastb[ida[i]] > (long)j) take_a = 0;
        else {
            take_a = 1;
            *unsure = 1;
        }
        if (take_a <= 0 && i < a->n) *differs = 1;
        if (take_a < 0) {
            for (size_t c = 0; c < nc && rc == PS_OK; c++)
                rc = add_count(&a->r[i].c[c], b->r[j].c[c], in, b->r[j].line, ps_table_count_names[c], err);
            if (rc < 0) break;
            row_free(&b->r[j++]);
        }
        row_t *r = take_a ? &a->r[i] : &b->r[j];
        size_t id = take_a ? ida[i] : idb[j];
        /* A match in m: the first unmatched row of this probe from the
         * other list. */
        long k = ordered || take_a < 0 ? -1 : head[(take_a ? 1 : 0) * nkeys + id];
        if (k >= 0) {
            size_t q = (take_a ? 1 : 0) * nkeys + id;
            if ((head[q] = next[k]) < 0) tail[q] = -1;
            for (size_t c = 0; c < nc && rc == PS_OK; c++)
                rc = add_count(&m.r[k].c[c], r->c[c], in, r->line, ps_table_count_names[c], err);
            *unsure = *differs = 1; /* the lists disagree on the order: the one kept is a guess */
            row_free(r);
        } else {
            if (take_a >= 0) { /* unmatched: from a alone (0) or b alone (1) */
                size_t q = (take_a ? 0 : 1) * nkeys + id;
                next[m.n] = -1;
                if (tail[q] >= 0) next[tail[q]] = (long)m.n;
                else head[q] = (long)m.n;
                tail[q] = (long)m.n;
            }
            rc = group_push(&m, r, err);
        }
        if (take_a) i++;
        else j++;
    }
    free(ida);
    free(lasta);
    free(next);
    /* Rows not yet moved into m are still owned by a and b. */
    for (; i < a->n; i++) row_free(&a->r[i]);
    for (; j < b->n; j++) row_free(&b->r[j]);
    a->n = b->n = 0;
    if (rc < 0) {
        group_free(&m);
        return rc;
    }
    free(a->r);
    *a = m;
    return PS_OK;
}

static int group_write(group_t *g, size_t nc, FILE *f, ps_err_t *err)
{
    int bad = 0;
    for (size_t i = 0; i < g->n && !bad; i++) {
        bad = put_str(f, g->r[i].rec) || fputc('\t', f) == EOF || put_str(f, g->r[i].key);
        for (size_t c = 0; c < nc && !bad; c++) bad = put_count(f, g->r[i].c[c]);
        if (!bad) bad = fputc('\n', f) == EOF;
    }
    group_clear(g);
    return bad ? ps_fail(err, PS_E_IO, "error writing the merged table: %s", strerror(errno)) : PS_OK;
}

/* What a record that ends one table and starts the next (same input, same
 * name) is: the tables alone cannot tell. */
typedef enum {
    EDGE_ASK,   /* joined only where that changes nothing, else refused */
    EDGE_SPLIT, /* --split-records: one record cut in pieces, joined */
    EDGE_WHOLE  /* --whole-records: two records of one name, kept apart */
} edge_t;

typedef struct {
    edge_t edge;
    size_t nc;          /* count columns: 1, or 3 with strands */
    size_t kc;          /* columns before the counts: 4, or 3 in an older table */
    const char *first;  /* how messages name the first input */
    group_t held;   /* rows of the last record, not yet written */
    const char *held_in; /* the table that gave held its last rows */
    group_t cont;   /* rows continuing that record in the next input */
    const probeset_t *probes; /* -p, or NULL */
    int warned;         /* the unsure-order warning was printed */
    char *hdr[4 + PS_TABLE_MAX_COUNTS]; /* the first table's header fields (table.c checked their number) */
    FILE *diag;         /* where warnings go */
} records_t;

/* Joins held and cont: a record that ends one table and starts the next.
 * One record cut in pieces (a chromosome split over chunks) must be joined;
 * two records of one name (the mates of a pair, `@frag1 1:N:0` and
 * `@frag1 2:N:0`, dealt to two chunks) must not. Only the user knows which
 * (--split-records, --whole-records); without that, the join stands only
 * where it equals keeping them apart, and is refused where they differ.
 * Without the probe file, says once where the order of the rows is a
 * guess. */
static int records_join(records_t *s, const ps_tablein_t *in, ps_err_t *err)
{
    int unsure = 0, differs = 0;
    unsigned long line = s->cont.n ? s->cont.r[0].line : in->lineno;
    /* A record is "input<TAB>name" (or "name" in an older table). */
    char *rec = s->cont.n ? strdup(s->cont.r[0].rec) : NULL;
    if (s->cont.n && !rec) return ps_fail(err, PS_E_NOMEM, "out of memory");
    const char *r = rec ? rec : "", *tab = strchr(r, '\t');
    int rc = group_join(&s->held, &s->cont, s->nc, s->probes != NULL, &unsure, &differs, in, err);
    if (rc == PS_OK && differs && s->edge == EDGE_ASK)
        rc = ps_fail(err, PS_E_FORMAT,
                     "%s: line %lu: record '%.*s'%s%.*s%s ends %s and starts this table: one record cut in two "
                     "(give --split-records) or two records of one name, such as the mates of a pair (give "
                     "--whole-records)? The tables cannot tell, and the two merge differently",
                     in->show, line, QUOTE, tab ? tab + 1 : r, tab ? " of input '" : "", tab ? (int)(tab - r) : 0, r,
                     tab ? "'" : "", s->held_in);
    if (rc == PS_OK && unsure && !s->warned) {
        s->warned = 1;
        /* A warning, not an error: the counts are right, only the order of
         * some rows of a split record may differ from a single run. */
        if (s->edge == EDGE_ASK)
            fprintf(s->diag,
                    "probescan: warning: %s: line %lu: record '%.*s'%s%.*s%s ends the previous table and starts this "
                    "one; its rows are kept in table order, as for two records of one name (--whole-records); for "
                    "one record cut in two give --split-records and the probe file (-p) for the order of a single "
                    "run\n",
                    in->show, line, QUOTE, tab ? tab + 1 : r, tab ? " of input '" : "", tab ? (int)(tab - r) : 0, r,
                    tab ? "'" : "");
        else
            fprintf(s->diag,
                    "probescan: warning: %s: line %lu: record '%.*s'%s%.*s%s continues from the previous table and "
                    "the tables do not fix the order of its rows; give the probe file with -p for the order of a "
                    "single run\n",
                    in->show, line, QUOTE, tab ? tab + 1 : r, tab ? " of input '" : "", tab ? (int)(tab - r) : 0, r,
                    tab ? "'" : "");
    }
    free(rec);
    return rc;
}

static int records_input(records_t *s, ps_tablein_t *in, int first, size_t keys, FILE *out, ps_err_t *err)
{
    int rc;
    if (first) {
        s->first = in->show;
        s->kc = keys;
        s->nc = in->nfld - keys;
        /* The header as table.c recognised it (an older table has no
         * input column, and its rows then none either). */
        for (size_t i = 0; i < in->nfld; i++)
            if (!(s->hdr[i] = strdup(in->fld[i]))) return ps_fail(err, PS_E_NOMEM, "out of memory");
        for (size_t i = 0; i < in->nfld; i++)
            if (put_str(out, s->hdr[i]) || fputc(i + 1 < in->nfld ? '\t' : '\n', out) == EOF)
                return ps_fail(err, PS_E_IO, "error writing the merged table: %s", strerror(errno));
    } else if ((rc = header_differs(in, s->first, s->hdr, s->kc + s->nc, 0, err)) < 0) {
        return rc;
    }
    /* While rows continue the held-back record they are collected to be
     * joined with it; the first row of another record ends that. With
     * --whole-records they are another record, and simply follow. */
    int joining = !first && s->held.n > 0 && s->edge != EDGE_WHOLE;
    while ((rc = ps_tablein_next(in, err)) == 1) {
        row_t r = {.line = in->lineno, .idx = SIZE_MAX};
        for (size_t c = 0; c < s->nc; c++)
            if ((rc = ps_tablein_count(in, s->kc + c, ps_table_count_names[c], &r.c[c], err)) < 0) return rc;
        if (s->nc == 3 && (rc = check_strands(in, r.c, err)) < 0) return rc;
        /* A record is its input and its name: records of one name in two
         * inputs are two records, never joined. */
        const char *name = in->fld[s->kc - 2], *seq = in->fld[s->kc - 1];
        r.rec = s->kc == 4 ? join2(in->fld[0], in->fld[1]) : strdup(in->fld[0]);
        r.key = join2(name, seq);
        if (!r.rec || !r.key) {
            row_free(&r);
            return ps_fail(err, PS_E_NOMEM, "out of memory");
        }
        if (s->probes && (r.idx = probeset_find(s->probes, r.key)) == SIZE_MAX) {
            row_free(&r);
            return ps_fail(err, PS_E_FORMAT, "%s: line %lu: probe '%.*s' '%.*s' is not in %s", in->show, in->lineno,
                           QUOTE, name, QUOTE, seq, s->probes->path);
        }
        int same = s->held.n > 0 && strcmp(r.rec, s->held.r[0].rec) == 0;
        if (joining) {
            if (same) {
                if ((rc = group_push(&s->cont, &r, err)) < 0) return rc;
                continue;
            }
            joining = 0;
            if ((rc = records_join(s, in, err)) < 0) {
                row_free(&r);
                return rc;
            }
        }
        if (s->held.n > 0 && !same && (rc = group_write(&s->held, s->nc, out, err)) < 0) {
            row_free(&r);
            return rc;
        }
        if ((rc = group_push(&s->held, &r, err)) < 0) return rc;
    }
    if (rc < 0) return rc;
    /* An input made only of the held record's rows: join now; the next
     * input may continue the record further. */
    if (joining && s->cont.n > 0 && (rc = records_join(s, in, err)) < 0) return rc;
    if (s->held.n > 0) s->held_in = in->show;
    return PS_OK;
}

/* ---- command line ---- */

/* Prints the help; returns 1 (printed), or a negative code where it could
 * not be written (a full disk must not pass for a help shown). */
static int usage(FILE *f, ps_err_t *err)
{
    fputs("Usage: probescan merge [options] TABLE...\n"
          "\n"
          "Merge count tables made by 'probescan count' with one probe set and the same\n"
          "options (e.g. the per-chunk tables of a scattered workflow) into the table one\n"
          "run over all the chunks gives, byte for byte. TABLE '-' reads standard input.\n"
          "\n"
          "Table shapes, recognised from the header row:\n"
          "  totals      name sequence count [forward reverse] [mm0 ... mmD], with bulges\n"
          "              then dna1_mm0 ... rnaB_mmD: counts summed (one header in every table)\n"
          "  --by-file   name sequence SAMPLE...: columns joined side by side; a sample\n"
          "              column in several tables is summed, new samples are appended\n"
          "  --by-record input record name sequence count [forward reverse]: rows\n"
          "              concatenated in table order. A record that ends one table\n"
          "              while one of its input and name starts the next is either\n"
          "              one record cut in two or two records (the mates of a pair):\n"
          "              the tables cannot tell, so say which where it matters\n"
          "Tables of different shapes, probe rows or totals columns are refused.\n"
          "\n"
          "Options:\n"
          "  -o, --output FILE      write the merged table to FILE (default: standard\n"
          "                         output); not one of the tables or the probe file\n"
          "  -p, --probes FILE      the probe file the tables were counted with: checks\n"
          "                         their probe rows and orders the rows of records\n"
          "                         split over tables as one run would (by-record)\n"
          "      --split-records    by-record: the chunks cut records in pieces (a\n"
          "                         chromosome over several chunks): such a record is\n"
          "                         one, its rows joined\n"
          "      --whole-records    by-record: each record lies whole in one chunk (reads\n"
          "                         dealt out to chunks): such records are two, kept\n"
          "                         apart. Without either, merge joins such a record\n"
          "                         only where that gives the same table as keeping it\n"
          "                         apart, and refuses, saying so, where it does not\n"
          "  -q, --quiet            accepted as in count: merge has no progress line to\n"
          "                         quiet (warnings still go to standard error)\n"
          "  -h, --help             this help\n"
          "      --version          print the version and exit\n"
          "\n"
          "Examples:\n"
          "  probescan merge chunk1.tsv chunk2.tsv chunk3.tsv -o counts.tsv\n"
          "  probescan merge --split-records -p probes.fa chr1.part*.tsv -o chr1.tsv\n",
          f);
    if (ferror(f) || fflush(f) == EOF) return ps_fail(err, PS_E_IO, "error writing standard output: %s", strerror(errno));
    return 1;
}

enum { OPT_VERSION = 256, OPT_SPLIT, OPT_WHOLE };

/* Returns 0 to go on, 1 when help or the version was printed, or a negative
 * code. */
static int parse_args(int argc, char **argv, FILE *out, const char **output, const char **probes, edge_t *edge,
                      char ***inputs, int *n_inputs, ps_err_t *err)
{
    static const struct option lopts[] = {{"output", required_argument, NULL, 'o'},
                                          {"probes", required_argument, NULL, 'p'},
                                          {"quiet", no_argument, NULL, 'q'},
                                          {"help", no_argument, NULL, 'h'},
                                          {"version", no_argument, NULL, OPT_VERSION},
                                          {"split-records", no_argument, NULL, OPT_SPLIT},
                                          {"whole-records", no_argument, NULL, OPT_WHOLE},
                                          {NULL, 0, NULL, 0}};
    *output = NULL;
    *probes = NULL;
    *edge = EDGE_ASK;
    opterr = 0;
    optind = 0; /* GNU getopt: start afresh, also on a second call */
    int c;
    while ((c = getopt_long(argc, argv, ":o:p:qh", lopts, NULL)) != -1) {
        switch (c) {
        case 'o': *output = optarg; break;
        case 'p': *probes = optarg; break;
        case 'q': break; /* nothing to quiet: merge shows no progress */
        case OPT_SPLIT:
        case OPT_WHOLE:
            if (*edge != EDGE_ASK && *edge != (c == OPT_SPLIT ? EDGE_SPLIT : EDGE_WHOLE))
                return ps_fail(err, PS_E_USAGE, "--split-records and --whole-records say opposite things; give one");
            *edge = c == OPT_SPLIT ? EDGE_SPLIT : EDGE_WHOLE;
            break;
        case 'h': return usage(out, err);
        case OPT_VERSION:
            if (fprintf(out, "%s\n", PS_VERSION) < 0 || fflush(out) == EOF)
                return ps_fail(err, PS_E_IO, "error writing standard output: %s", strerror(errno));
            return 1;
        case ':': return ps_fail(err, PS_E_USAGE, "option '%s' needs a value", argv[optind - 1]);
        default: return ps_fail(err, PS_E_USAGE, "unknown option '%s' (see probescan merge --help)", argv[optind - 1]);
        }
    }
    *inputs = argv + optind;
    *n_inputs = argc - optind;
    int stdin_seen = 0;
    for (int i = 0; i < *n_inputs; i++)
        if (strcmp((*inputs)[i], "-") == 0 && stdin_seen++)
            return ps_fail(err, PS_E_USAGE, "standard input ('-') can be read only once");
    if (*output && **output == '\0') return ps_fail(err, PS_E_USAGE, "--output needs a file name");
    if (*probes && **probes == '\0') return ps_fail(err, PS_E_USAGE, "--probes needs a file name");
    if (*probes && strcmp(*probes, "-") == 0 && stdin_seen)
        return ps_fail(err, PS_E_USAGE, "standard input ('-') can be read only once");
    if (*n_inputs == 0) return ps_fail(err, PS_E_USAGE, "no tables to merge (see probescan merge --help)");
    /* A re-run would then merge its own result in: counts doubled. */
    return ps_check_outputs(*output, NULL, (const char *const *)*inputs, *n_inputs, *probes, NULL, err);
}

/* The same table twice is summed twice, as asked; but it is more often a
 * slip of a glob than a wish, so say so. */
static void warn_twice(char **inputs, int n, FILE *diag)
{
    /* Each input stat'ed once; ok[i] says whether st[i] holds its file. */
    struct stat *st = calloc((size_t)n, sizeof *st);
    char *ok = calloc((size_t)n, 1);
    for (int i = 0; st && ok && i < n; i++) ok[i] = strcmp(inputs[i], "-") && stat(inputs[i], &st[i]) == 0;
    for (int i = 1; i < n; i++)
        for (int j = 0; j < i; j++) {
            int same = !strcmp(inputs[i], inputs[j]) ||
                       (st && ok && ok[i] && ok[j] && st[i].st_dev == st[j].st_dev && st[i].st_ino == st[j].st_ino);
            if (same) {
                fprintf(diag, "probescan: warning: %s is given twice (tables %d and %d): its counts are added twice\n",
                        inputs[i], j + 1, i + 1);
                break;
            }
        }
    free(st);
    free(ok);
}

static int run_merge(char **inputs, int n_inputs, const char *output, const char *probes, edge_t edge, FILE *stdout_,
                     FILE *diag, ps_cleanup_t *cl, ps_err_t *err)
{
    mtable_t table = {0};
    records_t records = {.edge = edge};
    probeset_t mp = {0};
    ps_tablein_t in = {0};
    ps_output_t *out = NULL;
    ps_table_shape_t shape = 0;
    int rc = PS_OK;
    if (probes) {
        rc = probeset_load(&mp, probes, err);
        records.probes = &mp;
    }
    /* Open the output before reading tables so that an unwritable path fails
     * before any work. */
    records.diag = diag;
    warn_twice(inputs, n_inputs, diag);
    if (rc == PS_OK)
        rc = output && strcmp(output, "-") ? ps_output_open(&out, output, cl, err) : ps_output_open_stream(&out, stdout_, err);
    for (int i = 0; i < n_inputs && rc == PS_OK; i++) {
        if ((rc = ps_tablein_open(&in, inputs[i], err)) < 0) break;
        rc = ps_tablein_next(&in, err);
        if (rc == 0) rc = ps_fail(err, PS_E_FORMAT, "%s: empty file: no header row", in.show);
        ps_table_shape_t s = 0;
        size_t keys = 2;
        if (rc == 1) rc = ps_tablein_header(&in, &s, &keys, err);
        if (rc == PS_OK && i > 0 && s == PS_TABLE_BYRECORD && s == shape && keys != records.kc)
            rc = ps_fail(err, PS_E_FORMAT, "%s: line 1: a by-record table %s an input column and %s %s",
                         in.show, keys == 4 ? "with" : "without", records.first, keys == 4 ? "has none" : "has one");
        if (rc == PS_OK && i > 0 && s != shape)
            rc = ps_fail(err, PS_E_FORMAT, "%s: line 1: a %s table cannot be merged with the %s table %s", in.show,
                         ps_table_shape_name(s), ps_table_shape_name(shape), shape == PS_TABLE_BYRECORD ? records.first : table.first);
        if (rc == PS_OK) {
            shape = s;
            if (s == PS_TABLE_BYRECORD) rc = records_input(&records, &in, i == 0, keys, ps_output_stream(out), err);
            else rc = mtable_input(&table, s, &in, i == 0, err);
            if (rc == PS_OK && i == 0 && probes && s != PS_TABLE_BYRECORD) rc = mtable_check_probes(&table, &mp, err);
        }
        /* in.show, which messages keep as the first input's name, points
         * into argv or at a literal, so it outlives the close. */
        ps_tablein_close(&in);
    }
    if (rc == PS_OK) {
        FILE *f = ps_output_stream(out);
        rc = shape == PS_TABLE_BYRECORD ? group_write(&records.held, records.nc, f, err)
                                     : mtable_write(&table, f, err);
    }
    if (rc == PS_OK) {
        rc = ps_output_commit(out, err);
        out = NULL;
    }
    ps_output_abort(out);
    mtable_free(&table);
    group_free(&records.held);
    group_free(&records.cont);
    probeset_free(&mp);
    for (size_t i = 0; i < sizeof records.hdr / sizeof records.hdr[0]; i++) free(records.hdr[i]);
    return rc;
}

int ps_merge(int argc, char **argv, FILE *out, FILE *diag, ps_cleanup_t *cl, ps_err_t *err)
{
    if (argc <= 1) {
        /* Like `probescan count`: no arguments at all asks for the help. */
        return usage(out, err);
    }
    const char *output = NULL, *probes = NULL;
    edge_t edge = EDGE_ASK;
    char **inputs = NULL;
    int n_inputs = 0;
    int rc = parse_args(argc, argv, out, &output, &probes, &edge, &inputs, &n_inputs, err);
    if (rc == 0) rc = run_merge(inputs, n_inputs, output, probes, edge, out, diag, cl, err);
    return rc;
}
