#include "output.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "parallel.h"
#include "table.h"

/* Probe i's sites at distance d on strand s (leaves.h). */
static inline uint64_t leaf_count(const ps_leaves_t *lv, const uint64_t *leaf_counts, int s, uint32_t i, int d)
{
    return leaf_counts[lv->probe_leaf[s][i] + (uint32_t)d];
}

/* Probe i's forward count, and its reverse count (0 on one strand), every
 * distance summed, from leaf counts: the one place that maps output rows to
 * leaves. */
static inline uint64_t probe_counts(const ps_leaves_t *lv, const uint64_t *leaf_counts, uint32_t i, uint64_t *rv)
{
    uint64_t fw = 0;
    *rv = 0;
    for (int d = 0; d < lv->levels; d++) {
        fw += leaf_count(lv, leaf_counts, 0, i, d);
        if (lv->both_strands) *rv += leaf_count(lv, leaf_counts, 1, i, d);
    }
    return fw;
}

/* Bytes of probe i's sequence column: a pattern is printed as given. */
static inline size_t seq_len(const ps_probes_t *p, uint32_t i)
{
    return p->patterns ? strlen(p->seq[i]) : (size_t)p->k;
}

static int write_error(FILE *f, ps_err_t *err)
{
    if (ferror(f)) return ps_fail(err, PS_E_IO, "error writing the output table: %s", strerror(errno));
    return PS_OK;
}

/* Rows are put together in a buffer and written a large piece at a time:
 * an fprintf for each field was most of the time a million rows took. */
#define ROWS_BUF (256 * 1024)

typedef struct {
    FILE *f;
    char *buf;
    size_t len, cap;
    int failed;  /* a write failed (ferror(f) says so too) */
} rows_t;

static int rows_init(rows_t *o, FILE *f)
{
    *o = (rows_t){.f = f, .cap = ROWS_BUF};
    o->buf = malloc(o->cap);
    return o->buf ? 0 : -1;
}

static void rows_flush(rows_t *o)
{
    if (o->len && !o->failed && fwrite(o->buf, 1, o->len, o->f) != o->len) o->failed = 1;
    o->len = 0;
}

/* Room for n more bytes, where the next row goes: what the buffer holds is
 * written out first when needed, and a row longer than the buffer grows
 * it. NULL when out of memory. */
static char *rows_room(rows_t *o, size_t n)
{
    if (n <= o->cap - o->len) return o->buf + o->len;
    rows_flush(o);
    if (n > o->cap) {
        char *b = realloc(o->buf, n);
        if (!b) return NULL;
        o->buf = b;
        o->cap = n;
    }
    return o->buf;
}

/* The row that ends at end is complete. */
static void rows_done(rows_t *o, const char *end) { o->len = (size_t)(end - o->buf); }

/* Room a row needs for a count: 20 digits at most, and its tab. */
#define COUNT_ROOM 21

static char *put_str(char *d, const char *s, size_t n)
{
    memcpy(d, s, n);
    return d + n;
}

/* "00" to "99": put_u64 writes two digits a division. */
static const char digit_pairs[201] =
    "0001020304050607080910111213141516171819"
    "2021222324252627282930313233343536373839"
    "4041424344454647484950515253545556575859"
    "6061626364656667686970717273747576777879"
    "8081828384858687888990919293949596979899";

char *ps_put_u64(char *d, uint64_t v)
{
    if (v < 10) {
        *d = (char)('0' + v);
        return d + 1;
    }
    char tmp[20], *end = tmp + sizeof tmp, *q = end;
    while (v >= 100) {
        q -= 2;
        memcpy(q, digit_pairs + 2 * (v % 100), 2);
        v /= 100;
    }
    if (v >= 10) {
        q -= 2;
        memcpy(q, digit_pairs + 2 * v, 2);
    } else {
        *--q = (char)('0' + v);
    }
    return put_str(d, q, (size_t)(end - q));
}

/* Bytes of probe i's key columns: name, [id,] sequence and their tabs. */
static inline size_t probe_room(const ps_probes_t *p, uint32_t i, size_t name_len)
{
    return name_len + (p->id ? strlen(p->id[i]) + 1 : 0) + seq_len(p, i) + 1;
}

/* Name, tab, [id, tab,] sequence: the start of every row. */
static char *put_probe(char *d, const ps_probes_t *p, uint32_t i, size_t name_len)
{
    d = put_str(d, p->name[i], name_len);
    *d++ = '\t';
    if (p->id) {
        d = put_str(d, p->id[i], strlen(p->id[i]));
        *d++ = '\t';
    }
    return put_str(d, p->seq[i], seq_len(p, i));
}

/* The count columns of a totals or per-record row: "\tcount" and, with
 * both strands, "\tforward\treverse". */
static char *put_counts(char *d, uint64_t fw, uint64_t rv, int strands)
{
    *d++ = '\t';
    d = ps_put_u64(d, fw + rv);
    if (strands) {
        *d++ = '\t';
        d = ps_put_u64(d, fw);
        *d++ = '\t';
        d = ps_put_u64(d, rv);
    }
    return d;
}

/* A totals or by-file table being written: what its rows are made of. */
typedef struct {
    const ps_probes_t *p;
    const ps_leaves_t *lv;
    const uint64_t *leaf_counts;
    int n_cols;  /* by-file: one count column per input; 0 for totals */
    int strands; /* totals: forward and reverse columns */
    int mm;      /* totals: mm0 ... columns */
} table_t;

/* Bytes row i can take at most. */
static size_t row_room(const table_t *t, uint32_t i, size_t name_len)
{
    size_t counts = t->n_cols ? (size_t)t->n_cols : 3 + (size_t)t->mm;
    return probe_room(t->p, i, name_len) + 1 + counts * COUNT_ROOM;
}

static char *put_row(char *d, const table_t *t, uint32_t i, size_t name_len)
{
    const ps_probes_t *p = t->p;
    const ps_leaves_t *lv = t->lv;
    d = put_probe(d, p, i, name_len);
    if (t->n_cols) {
        for (int c = 0; c < t->n_cols; c++) {
            uint64_t rv, fw = probe_counts(lv, t->leaf_counts + (size_t)c * lv->n_leaves, i, &rv);
            *d++ = '\t';
            d = ps_put_u64(d, fw + rv);
        }
    } else {
        uint64_t rv, fw = probe_counts(lv, t->leaf_counts, i, &rv);
        d = put_counts(d, fw, rv, t->strands);
        for (int l = 0; l < t->mm; l++) {
            *d++ = '\t';
            d = ps_put_u64(d, leaf_count(lv, t->leaf_counts, 0, i, l) +
                               (t->strands ? leaf_count(lv, t->leaf_counts, 1, i, l) : 0));
        }
    }
    *d++ = '\n';
    return d;
}

/* Rows are formatted on up to `threads` threads, each a run of part_rows
 * probes into its own buffer, and written in probe order. With three
 * parts or more, one of them writes the round before while the others
 * format the next, into the other of two sets of buffers. */
typedef struct {
    char *buf;
    size_t len, cap;
    int nomem;
} part_buf_t;

typedef struct {
    const table_t *t;
    FILE *f;
    uint32_t part_rows;
    int fmt;              /* parts that format a round */
    int overlap;          /* one more part writes the round before */
    uint64_t from;        /* the first row of the round being formatted */
    part_buf_t *set[2];   /* fmt buffers each */
    int cur;              /* the set being formatted; the other is written */
    int pending;          /* the other set holds a round not yet written */
    int failed;           /* a write failed (ferror says so too) */
} rows_job_t;

static void format_share(rows_job_t *r, int i)
{
    const table_t *t = r->t;
    uint64_t lo = r->from + (uint64_t)i * r->part_rows, hi = lo + r->part_rows;
    if (hi > t->p->n) hi = t->p->n;
    part_buf_t *o = &r->set[r->cur][i];
    o->len = 0;
    for (uint64_t j = lo; j < hi; j++) {
        size_t name_len = strlen(t->p->name[j]), room = row_room(t, (uint32_t)j, name_len);
        if (room > o->cap - o->len) {
            size_t cap = o->cap ? o->cap : 1 << 16;
            while (cap - o->len < room) cap *= 2;
            char *b = realloc(o->buf, cap);
            if (!b) {
                o->nomem = 1;
                return;
            }
            o->buf = b;
            o->cap = cap;
        }
        o->len = (size_t)(put_row(o->buf + o->len, t, (uint32_t)j, name_len) - o->buf);
    }
}

static void write_set(rows_job_t *r, part_buf_t *set)
{
    for (int i = 0; i < r->fmt && !r->failed; i++)
        if (set[i].len && fwrite(set[i].buf, 1, set[i].len, r->f) != set[i].len) r->failed = 1;
}

static void rows_part(void *ctx, int part, int parts)
{
    (void)parts;
    rows_job_t *r = ctx;
    if (!r->overlap) format_share(r, part);
    else if (part > 0) format_share(r, part - 1);
    else if (r->pending) write_set(r, r->set[!r->cur]);
}

/* Bytes of rows a part formats at a time, about. */
#define PART_BYTES (1u << 20)

static int write_rows(FILE *f, const table_t *t, int threads, ps_err_t *err)
{
    const uint32_t n = t->p->n;
    if (n == 0) return write_error(f, err);
    /* Rows a part formats: PART_BYTES of the longest of up to 1,024 rows
     * spread over the table, so that long names further on do not grow the
     * buffers far past it. */
    size_t est = 1;
    for (uint32_t s = 0, step = n / 1024 ? n / 1024 : 1; s < n; s += step) {
        size_t room = row_room(t, s, strlen(t->p->name[s]));
        if (room > est) est = room;
    }
    uint32_t part_rows = (uint32_t)(PART_BYTES / est);
    if (part_rows < 64) part_rows = 64;
    if (part_rows > 16384) part_rows = 16384;
    int parts = ps_parallel_parts(threads, n, part_rows);
    rows_job_t r = {.t = t, .f = f, .part_rows = part_rows, .overlap = parts >= 3};
    r.fmt = r.overlap ? parts - 1 : parts;
    r.set[0] = calloc((size_t)r.fmt, sizeof *r.set[0]);
    r.set[1] = calloc((size_t)r.fmt, sizeof *r.set[1]);
    int rc = r.set[0] && r.set[1] ? PS_OK : ps_fail(err, PS_E_NOMEM, "out of memory");
    for (r.from = 0; r.from < n && rc == PS_OK && !r.failed; r.from += (uint64_t)r.fmt * part_rows) {
        ps_parallel_run(r.overlap ? r.fmt + 1 : r.fmt, rows_part, &r);
        for (int i = 0; i < r.fmt; i++)
            if (r.set[r.cur][i].nomem) rc = ps_fail(err, PS_E_NOMEM, "out of memory");
        if (!r.overlap) {
            write_set(&r, r.set[r.cur]);
        } else {
            r.pending = 1;
            r.cur = !r.cur;
        }
    }
    if (rc == PS_OK && r.pending) write_set(&r, r.set[!r.cur]);
    for (int s = 0; s < 2; s++)
        for (int i = 0; r.set[s] && i < r.fmt; i++) free(r.set[s][i].buf);
    free(r.set[0]);
    free(r.set[1]);
    return rc < 0 ? rc : write_error(f, err);
}

int ps_write_counts(FILE *f, const ps_probes_t *p, const ps_leaves_t *lv, const uint64_t *leaf_counts, int threads,
                    ps_err_t *err)
{
    table_t t = {.p = p, .lv = lv, .leaf_counts = leaf_counts, .strands = lv->both_strands,
                 .mm = lv->mm_columns ? lv->levels : 0};
    if (ps_table_write_header_ex(f, PS_TABLE_TOTALS, t.strands, NULL, 0, t.mm, p->id != NULL) < 0)
        return write_error(f, err);
    return write_rows(f, &t, threads, err);
}

int ps_write_matrix(FILE *f, const ps_probes_t *p, const ps_leaves_t *lv, const uint64_t *leaf_counts,
                    const char *const *cols, int n_cols, int threads, ps_err_t *err)
{
    table_t t = {.p = p, .lv = lv, .leaf_counts = leaf_counts, .n_cols = n_cols};
    if (ps_table_write_header_ex(f, PS_TABLE_BYFILE, 0, cols, (size_t)n_cols, 0, p->id != NULL) < 0)
        return write_error(f, err);
    return write_rows(f, &t, threads, err);
}

struct ps_record_writer {
    const ps_probes_t *p;
    const ps_leaves_t *lv;
    uint32_t *leaf_start;  /* CSR: probes whose sequence or reverse complement is leaf l */
    uint32_t *leaf_probe;  /* at leaf_probe[leaf_start[l] .. leaf_start[l+1]) */
    uint64_t *acc;         /* counts of the current record per leaf */
    uint32_t *touched, n_touched;
    uint32_t *rows;        /* probe indices of the current record */
    int have;              /* a record is pending */
    uint64_t id;
    char *name;
    size_t name_cap;
    const char *input;
    rows_t out;            /* the rows of the record being written */
};

void ps_record_writer_input(ps_record_writer_t *w, const char *input) { w->input = input; }

void ps_record_writer_free(ps_record_writer_t *w)
{
    if (!w) return;
    free(w->leaf_start);
    free(w->leaf_probe);
    free(w->acc);
    free(w->touched);
    free(w->rows);
    free(w->name);
    free(w->out.buf);
    free(w);
}

int ps_record_writer_new(ps_record_writer_t **out, FILE *f, const ps_probes_t *p,
                         const ps_leaves_t *lv, ps_err_t *err)
{
    *out = NULL;
    int strands = lv->both_strands ? 2 : 1;
    ps_record_writer_t *w = calloc(1, sizeof *w);
    if (w) w->input = "";
    if (!w) return ps_fail(err, PS_E_NOMEM, "out of memory");
    w->p = p;
    w->lv = lv;
    w->leaf_start = calloc((size_t)lv->n_leaves + 1, sizeof(uint32_t));
    w->leaf_probe = malloc((size_t)p->n * strands * (size_t)lv->levels * sizeof(uint32_t));
    w->acc = calloc(lv->n_leaves, sizeof(uint64_t));
    w->touched = malloc((size_t)lv->n_leaves * sizeof(uint32_t));
    w->rows = malloc((size_t)p->n * strands * (size_t)lv->levels * sizeof(uint32_t));
    int no_out = rows_init(&w->out, f);
    if (!w->leaf_start || !w->leaf_probe || !w->acc || !w->touched || !w->rows || no_out) {
        ps_record_writer_free(w);
        return ps_fail(err, PS_E_NOMEM, "out of memory for the per-record table");
    }
    /* A palindrome maps to its leaf once: listing it twice would print its
     * row twice. Each distance is a leaf of its own. */
    for (int s = 0; s < strands; s++)
        for (uint32_t i = 0; i < p->n; i++)
            if (s == 0 || lv->probe_leaf[1][i] != lv->probe_leaf[0][i])
                for (int d = 0; d < lv->levels; d++) w->leaf_start[lv->probe_leaf[s][i] + (uint32_t)d + 1]++;
    for (uint32_t l = 0; l < lv->n_leaves; l++) w->leaf_start[l + 1] += w->leaf_start[l];
    for (int s = 0; s < strands; s++)
        for (uint32_t i = 0; i < p->n; i++) {
            if (s == 1 && lv->probe_leaf[1][i] == lv->probe_leaf[0][i]) continue;
            /* leaf_start[l] is advanced while filling and restored below. */
            for (int d = 0; d < lv->levels; d++) w->leaf_probe[w->leaf_start[lv->probe_leaf[s][i] + (uint32_t)d]++] = i;
        }
    for (uint32_t l = lv->n_leaves; l > 0; l--) w->leaf_start[l] = w->leaf_start[l - 1];
    w->leaf_start[0] = 0;
    ps_table_write_header_ex(f, PS_TABLE_BYRECORD, lv->both_strands, NULL, 0, 0, p->id != NULL);
    *out = w;
    return PS_OK;
}

static int cmp_u32(const void *x, const void *y)
{
    uint32_t a = *(const uint32_t *)x, b = *(const uint32_t *)y;
    return (a > b) - (a < b);
}

int ps_record_writer_flush(ps_record_writer_t *w, ps_err_t *err)
{
    if (!w->have) return PS_OK;
    const ps_leaves_t *lv = w->lv;
    uint32_t n = 0;
    for (uint32_t t = 0; t < w->n_touched; t++) {
        uint32_t l = w->touched[t];
        for (uint32_t j = w->leaf_start[l]; j < w->leaf_start[l + 1]; j++) w->rows[n++] = w->leaf_probe[j];
    }
    qsort(w->rows, n, sizeof *w->rows, cmp_u32);
    rows_t *o = &w->out;
    size_t input_len = strlen(w->input), rec_len = strlen(w->name);
    int rc = PS_OK;
    for (uint32_t j = 0; j < n && !o->failed; j++) {
        uint32_t i = w->rows[j];
        if (j && i == w->rows[j - 1]) continue; /* hit on both strands */
        uint64_t rv, fw = probe_counts(lv, w->acc, i, &rv);
        size_t name_len = strlen(w->p->name[i]);
        char *d = rows_room(o, input_len + rec_len + probe_room(w->p, i, name_len) + 3 + 3 * COUNT_ROOM);
        if (!d) {
            rc = ps_fail(err, PS_E_NOMEM, "out of memory");
            break;
        }
        d = put_str(d, w->input, input_len);
        *d++ = '\t';
        d = put_str(d, w->name, rec_len);
        *d++ = '\t';
        d = put_probe(d, w->p, i, name_len);
        d = put_counts(d, fw, rv, lv->both_strands);
        *d++ = '\n';
        rows_done(o, d);
    }
    for (uint32_t t = 0; t < w->n_touched; t++) w->acc[w->touched[t]] = 0;
    w->n_touched = 0;
    w->have = 0;
    /* The record's rows go to the stream now, so that it is complete
     * whenever the caller commits or stops. */
    rows_flush(o);
    if (rc < 0) return rc;
    return write_error(w->out.f, err);
}

/* Makes record id (named name) the current one, writing the one before. */
static int record_at(ps_record_writer_t *w, uint64_t id, const char *name, ps_err_t *err)
{
    if (w->have && id == w->id) return PS_OK;
    int rc = ps_record_writer_flush(w, err);
    if (rc < 0) return rc;
    size_t len = strlen(name);
    if (len + 1 > w->name_cap) {
        char *nn = realloc(w->name, len + 1);
        if (!nn) return ps_fail(err, PS_E_NOMEM, "out of memory");
        w->name = nn;
        w->name_cap = len + 1;
    }
    memcpy(w->name, name, len + 1);
    w->id = id;
    w->have = 1;
    return PS_OK;
}

static void add_hits(ps_record_writer_t *w, uint32_t l, uint64_t n)
{
    if (w->acc[l] == 0) w->touched[w->n_touched++] = l;
    w->acc[l] += n;
}

int ps_record_writer_emit(void *ctx, const ps_chunk_t *c, const ps_rec_hits_t *h, ps_err_t *err)
{
    ps_record_writer_t *w = ctx;
    for (uint32_t s = 0; s < h->n_span; s++) {
        const ps_rec_span_t *sp = &h->span[s];
        int rc = record_at(w, c->rec_id[sp->rec], c->rec_name + c->name_off[sp->rec], err);
        if (rc < 0) return rc;
        for (uint32_t j = sp->first; j < sp->first + sp->n; j++) add_hits(w, h->leaf[j], h->count[j]);
    }
    return PS_OK;
}

int ps_record_writer_add(ps_record_writer_t *w, uint64_t rec, const char *name, uint32_t leaf, uint64_t n,
                         ps_err_t *err)
{
    int rc = record_at(w, rec, name, err);
    if (rc == PS_OK) add_hits(w, leaf, n);
    return rc;
}
