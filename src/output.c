#include "output.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "table.h"

/* Probe i's forward count, and its reverse count (0 on one strand), from
 * leaf counts: the one place that maps output rows to leaves. */
static inline uint64_t probe_counts(const ps_leaves_t *lv, const uint64_t *leaf_counts, uint32_t i, uint64_t *rv)
{
    *rv = lv->both_strands ? leaf_counts[lv->probe_leaf[1][i]] : 0;
    return leaf_counts[lv->probe_leaf[0][i]];
}

static int write_error(FILE *f, ps_err_t *err)
{
    if (ferror(f)) return ps_fail(err, PS_E_IO, "error writing the output table: %s", strerror(errno));
    return PS_OK;
}

int ps_write_counts(FILE *f, const ps_probes_t *p, const ps_leaves_t *lv,
                    const uint64_t *leaf_counts, ps_err_t *err)
{
    int strands = lv->both_strands;
    ps_table_write_header(f, PS_TABLE_TOTALS, strands, NULL, 0);
    for (uint32_t i = 0; i < p->n; i++) {
        uint64_t rv, fw = probe_counts(lv, leaf_counts, i, &rv);
        if (strands) {
            fprintf(f, "%s\t%s\t%" PRIu64 "\t%" PRIu64 "\t%" PRIu64 "\n", p->name[i], p->seq[i], fw + rv, fw, rv);
        } else {
            fprintf(f, "%s\t%s\t%" PRIu64 "\n", p->name[i], p->seq[i], fw);
        }
    }
    return write_error(f, err);
}

int ps_write_matrix(FILE *f, const ps_probes_t *p, const ps_leaves_t *lv, const uint64_t *leaf_counts,
                    const char *const *cols, int n_cols, ps_err_t *err)
{
    ps_table_write_header(f, PS_TABLE_BYFILE, 0, cols, (size_t)n_cols);
    for (uint32_t i = 0; i < p->n; i++) {
        fprintf(f, "%s\t%s", p->name[i], p->seq[i]);
        for (int c = 0; c < n_cols; c++) {
            uint64_t rv, fw = probe_counts(lv, leaf_counts + (size_t)c * lv->n_leaves, i, &rv);
            fprintf(f, "\t%" PRIu64, fw + rv);
        }
        fputc('\n', f);
    }
    return write_error(f, err);
}

struct ps_record_writer {
    FILE *f;
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
    w->f = f;
    w->p = p;
    w->lv = lv;
    w->leaf_start = calloc((size_t)lv->n_leaves + 1, sizeof(uint32_t));
    w->leaf_probe = malloc((size_t)p->n * strands * sizeof(uint32_t));
    w->acc = calloc(lv->n_leaves, sizeof(uint64_t));
    w->touched = malloc((size_t)lv->n_leaves * sizeof(uint32_t));
    w->rows = malloc((size_t)p->n * strands * sizeof(uint32_t));
    if (!w->leaf_start || !w->leaf_probe || !w->acc || !w->touched || !w->rows) {
        ps_record_writer_free(w);
        return ps_fail(err, PS_E_NOMEM, "out of memory for the per-record table");
    }
    /* A palindrome maps to its leaf once: listing it twice would print its row twice. */
    for (int s = 0; s < strands; s++)
        for (uint32_t i = 0; i < p->n; i++)
            if (s == 0 || lv->probe_leaf[1][i] != lv->probe_leaf[0][i]) w->leaf_start[lv->probe_leaf[s][i] + 1]++;
    for (uint32_t l = 0; l < lv->n_leaves; l++) w->leaf_start[l + 1] += w->leaf_start[l];
    for (int s = 0; s < strands; s++)
        for (uint32_t i = 0; i < p->n; i++) {
            uint32_t l = lv->probe_leaf[s][i];
            if (s == 1 && l == lv->probe_leaf[0][i]) continue;
            /* leaf_start[l] is advanced while filling and restored below. */
            w->leaf_probe[w->leaf_start[l]++] = i;
        }
    for (uint32_t l = lv->n_leaves; l > 0; l--) w->leaf_start[l] = w->leaf_start[l - 1];
    w->leaf_start[0] = 0;
    ps_table_write_header(f, PS_TABLE_BYRECORD, lv->both_strands, NULL, 0);
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
    for (uint32_t j = 0; j < n; j++) {
        uint32_t i = w->rows[j];
        if (j && i == w->rows[j - 1]) continue; /* hit on both strands */
        uint64_t rv, fw = probe_counts(lv, w->acc, i, &rv);
        if (lv->both_strands) {
            fprintf(w->f, "%s\t%s\t%s\t%s\t%" PRIu64 "\t%" PRIu64 "\t%" PRIu64 "\n", w->input, w->name, w->p->name[i], w->p->seq[i],
                    fw + rv, fw, rv);
        } else {
            fprintf(w->f, "%s\t%s\t%s\t%s\t%" PRIu64 "\n", w->input, w->name, w->p->name[i], w->p->seq[i], fw);
        }
    }
    for (uint32_t t = 0; t < w->n_touched; t++) w->acc[w->touched[t]] = 0;
    w->n_touched = 0;
    w->have = 0;
    return write_error(w->f, err);
}

int ps_record_writer_emit(void *ctx, const ps_chunk_t *c, const ps_rec_hits_t *h, ps_err_t *err)
{
    ps_record_writer_t *w = ctx;
    for (uint32_t s = 0; s < h->n_span; s++) {
        const ps_rec_span_t *sp = &h->span[s];
        uint64_t id = c->rec_id[sp->rec];
        if (!w->have || id != w->id) {
            int rc = ps_record_writer_flush(w, err);
            if (rc < 0) return rc;
            const char *name = c->rec_name + c->name_off[sp->rec];
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
        }
        for (uint32_t j = sp->first; j < sp->first + sp->n; j++) {
            uint32_t l = h->leaf[j];
            if (w->acc[l] == 0) w->touched[w->n_touched++] = l;
            w->acc[l] += h->count[j];
        }
    }
    return PS_OK;
}
