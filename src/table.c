#include "table.h"

#include <stdio.h>
#include <string.h>

#include <htslib/khash.h>

/* Sample column name -> its column, to find a repeated name in one pass
 * (a matrix may have millions of columns). */
KHASH_MAP_INIT_STR(colname, size_t)

const char *const ps_table_count_names[PS_TABLE_MAX_COUNTS] = {"count", "forward", "reverse"};

static const char *const key_names[] = {"input", "record", "name", "sequence"};

int ps_table_reserved_column(const char *s)
{
    for (size_t i = 0; i < sizeof key_names / sizeof *key_names; i++)
        if (!strcmp(s, key_names[i])) return 1;
    for (size_t i = 0; i < PS_TABLE_MAX_COUNTS; i++)
        if (!strcmp(s, ps_table_count_names[i])) return 1;
    if (!strcmp(s, "id")) return 1;
    if (strncmp(s, "mm", 2) != 0 || !s[2]) return 0;
    for (const char *c = s + 2; *c; c++)
        if (*c < '0' || *c > '9') return 0;
    return 1;
}

const char *ps_table_shape_name(ps_table_shape_t s)
{
    switch (s) {
    case PS_TABLE_TOTALS: return "totals";
    case PS_TABLE_BYFILE: return "by-file";
    case PS_TABLE_BYRECORD: return "by-record";
    }
    return "unknown";
}

size_t ps_table_key_columns(ps_table_shape_t s) { return s == PS_TABLE_BYRECORD ? 4 : 2; }

int ps_table_write_header(FILE *f, ps_table_shape_t s, int strands, const char *const *samples, size_t n_samples)
{
    return ps_table_write_header_ex(f, s, strands, samples, n_samples, 0, 0);
}

int ps_table_write_header_ex(FILE *f, ps_table_shape_t s, int strands, const char *const *samples, size_t n_samples,
                             int mm, int id)
{
    size_t nk = ps_table_key_columns(s);
    const char *const *keys = key_names + (s == PS_TABLE_BYRECORD ? 0 : 2);
    int bad = 0;
    for (size_t i = 0; i < nk && !bad; i++) {
        /* The PROSITE entry ID follows the name. */
        if (id && !strcmp(keys[i], "sequence")) bad = fputs("\tid", f) < 0;
        if (!bad) bad = (i && fputc('\t', f) == EOF) || fputs(keys[i], f) < 0;
    }
    if (s == PS_TABLE_BYFILE) {
        for (size_t c = 0; c < n_samples && !bad; c++) bad = fputc('\t', f) == EOF || fputs(samples[c], f) < 0;
    } else {
        size_t nc = strands ? 3 : 1;
        for (size_t c = 0; c < nc && !bad; c++) bad = fputc('\t', f) == EOF || fputs(ps_table_count_names[c], f) < 0;
        for (int d = 0; d < mm && !bad; d++) bad = fprintf(f, "\tmm%d", d) < 0;
    }
    if (!bad) bad = fputc('\n', f) == EOF;
    return bad ? -1 : 0;
}

/* 1 when fields[from..] are the count columns, one or three. */
static int count_columns(char *const *f, size_t n, size_t from, int *strands)
{
    if (n == from + 1 && !strcmp(f[from], ps_table_count_names[0])) {
        *strands = 0;
        return 1;
    }
    if (n == from + 3 && !strcmp(f[from], ps_table_count_names[0]) && !strcmp(f[from + 1], ps_table_count_names[1]) &&
        !strcmp(f[from + 2], ps_table_count_names[2])) {
        *strands = 1;
        return 1;
    }
    return 0;
}

/* 1 when f[from..n) are mm0, mm1, ... in order (none counts too). */
/* mm0 ... mmD from column `from` to the end; with bulges (count
 * --dna-bulge, --rna-bulge: bulges.h) the same again for each DNA bulge size
 * (dna1_mm0 ...), then each RNA bulge size (rna1_mm0 ...). */
static int mm_columns(char *const *f, size_t n, size_t from)
{
    size_t levels = 0;
    char want[48];
    for (; from + levels < n; levels++) {
        snprintf(want, sizeof want, "mm%zu", levels);
        if (strcmp(f[from + levels], want) != 0) break;
    }
    if (levels == 0 || (n - from - levels) % levels) return 0;
    unsigned dna = 0, rna = 0;
    for (size_t i = from + levels; i < n; i += levels) {
        /* a block's kind and size follow on from the one before */
        const int is_rna = !strncmp(f[i], "rna", 3);
        if (is_rna) rna++;
        else if (rna == 0) dna++;
        else return 0;
        for (size_t d = 0; d < levels; d++) {
            snprintf(want, sizeof want, "%s%u_mm%zu", is_rna ? "rna" : "dna", is_rna ? rna : dna, d);
            if (strcmp(f[i + d], want) != 0) return 0;
        }
    }
    return 1;
}

int ps_table_parse_header(char *const *f, size_t n, ps_table_shape_t *shape, int *strands, int *mm, size_t *keys,
                          ps_err_t *err)
{
    *strands = 0;
    *mm = 0;
    size_t from = n >= 1 && !strcmp(f[0], key_names[0]) ? 0 : n >= 1 && !strcmp(f[0], key_names[1]) ? 1 : 2;
    if (from < 2) {
        int ok = n >= 5 - from;
        for (size_t i = from; ok && i < 4; i++) ok = !strcmp(f[i - from], key_names[i]);
        if (!ok || !count_columns(f, n, 4 - from, strands))
            return ps_fail(err, PS_E_FORMAT,
                           "a by-record header is 'input record name sequence count' with optional 'forward reverse' "
                           "(tab-separated)");
        *shape = PS_TABLE_BYRECORD;
        *keys = 4 - from;
        return PS_OK;
    }
    *keys = 2;
    if ((n >= 2 && !strcmp(f[1], "id")) || (n >= 4 && !strcmp(f[3], "id")))
        return ps_fail(err, PS_E_FORMAT, "a table of PROSITE entries (with an 'id' column) is not merged yet");
    if (n < 3 || strcmp(f[0], key_names[2]) != 0 || strcmp(f[1], key_names[3]) != 0)
        return ps_fail(err, PS_E_FORMAT,
                       "not a probescan table: the header must start with 'name<TAB>sequence<TAB>' or "
                       "'input<TAB>record<TAB>name<TAB>sequence<TAB>'");
    if (count_columns(f, n, 2, strands)) {
        *shape = PS_TABLE_TOTALS;
        return PS_OK;
    }
    /* count -m: the counts, then one column per distance. */
    for (size_t nc = 1; nc <= 3; nc += 2) {
        if (n > 2 + nc && count_columns(f, 2 + nc, 2, strands) && mm_columns(f, n, 2 + nc)) {
            *shape = PS_TABLE_TOTALS;
            *mm = (int)(n - 2 - nc);
            return PS_OK;
        }
    }
    /* A sample called "count" is possible, but a header that starts as a
     * totals table's and then strays is far likelier a damaged one. */
    if (!strcmp(f[2], ps_table_count_names[0]))
        return ps_fail(err, PS_E_FORMAT,
                       "a totals header is 'name sequence count' with optional 'forward reverse' and 'mm0 ... mmD' "
                       "(tab-separated)");
    /* Every other column list is a by-file matrix: one column per sample. */
    khash_t(colname) *seen = kh_init(colname);
    int rc = seen ? PS_OK : ps_fail(err, PS_E_NOMEM, "out of memory");
    for (size_t i = 2; i < n && rc == PS_OK; i++) {
        if (f[i][0] == '\0') {
            rc = ps_fail(err, PS_E_FORMAT, "column %zu has an empty name", i + 1);
            break;
        }
        int absent;
        khiter_t k = kh_put(colname, seen, f[i], &absent);
        if (absent < 0) rc = ps_fail(err, PS_E_NOMEM, "out of memory");
        else if (absent) kh_val(seen, k) = i;
        else
            /* Summing them would hide two files of one name that a single
             * run kept apart; refusing keeps merge faithful. */
            rc = ps_fail(err, PS_E_FORMAT, "sample column '%.60s' appears twice (columns %zu and %zu)", f[i],
                         kh_val(seen, k) + 1, i + 1);
    }
    kh_destroy(colname, seen);
    if (rc == PS_OK) *shape = PS_TABLE_BYFILE;
    return rc;
}
