/* summary.c - `probescan summary` (contract in summary.h): reads the
 * tables into one count per probe and sample, then writes the three MultiQC
 * files through outfile.h. */
#include "summary.h"

#include <htslib/bgzf.h>
#include <htslib/khash.h>
#include <jansson.h>

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#include "outfile.h"
#include "samples.h"
#include "table.h"
#include "tablein.h"

#ifndef PS_VERSION
#define PS_VERSION "unknown"
#endif

#define TOP 5
#define HEAT_PROBES 30
/* A --stats file of a million inputs is about 150 MB; anything far larger
 * is not one, and would only fill memory before failing. */
#define STATS_MAX ((size_t)1 << 30)

static const char *const heatmap_file = "probescan_heatmap_mqc.tsv";

/* Sample name -> index into summary_t.s; the keys are the samples' names. */
KHASH_MAP_INIT_STR(sname, size_t)

typedef struct {
    char *name;
    uint64_t found, hits, records, bases;
    int have_stats;
    uint32_t top[TOP];     /* probe rows, most counted first */
    uint64_t top_count[TOP];
    int n_top;
} sample_t;

/* The counts of one table, row-major as read: n_probes rows of ncols
 * samples, the first being sample `first`. One block per table keeps memory
 * at the counts themselves, whatever the number of columns. */
typedef struct {
    uint64_t *v;
    size_t ncols, first, cap_rows;
} block_t;

typedef struct {
    char **probe;          /* probe names, in the first table's row order */
    size_t n_probes, cap_probes;
    sample_t *s;
    size_t n_s, cap_s;
    khash_t(sname) *by_name;
    block_t *blk;
    size_t n_blk, cap_blk;
} summary_t;

/* A table's sample name: its file name without .gz or .bgz, then .tsv or .txt. */
static void table_name(const char *path, char *out, size_t n)
{
    static const char *const zext[] = {".gz", ".bgz", NULL};
    static const char *const text[] = {".tsv", ".txt", NULL};
    ps_path_stem(path, zext, text, out, n);
}

/* Grows *p (of *cap elements of size sz) to hold at least need; 0 or -1. */
static int grow(void **p, size_t *cap, size_t need, size_t sz)
{
    if (need <= *cap) return 0;
    size_t c = *cap ? *cap : 8;
    while (c < need) {
        if (c > SIZE_MAX / 2 / sz) return -1;
        c *= 2;
    }
    void *np = realloc(*p, c * sz);
    if (!np) return -1;
    *p = np;
    *cap = c;
    return 0;
}

static int add_sample(summary_t *sm, const char *name, const char *show, ps_err_t *err)
{
    if (grow((void **)&sm->s, &sm->cap_s, sm->n_s + 1, sizeof *sm->s) < 0)
        return ps_fail(err, PS_E_NOMEM, "out of memory");
    sample_t *s = &sm->s[sm->n_s];
    memset(s, 0, sizeof *s);
    if (!(s->name = strdup(name))) return ps_fail(err, PS_E_NOMEM, "out of memory");
    int absent;
    khint_t k = kh_put(sname, sm->by_name, s->name, &absent);
    if (absent < 0) {
        free(s->name);
        return ps_fail(err, PS_E_NOMEM, "out of memory");
    }
    if (!absent) {
        free(s->name);
        return ps_fail(err, PS_E_FORMAT, "%s: sample '%.200s' appears in two tables", show, name);
    }
    kh_val(sm->by_name, k) = sm->n_s++;
    return PS_OK;
}

/* Reads a totals table or a --by-file matrix into sm: the first table fixes
 * the probe rows, every later one must repeat them. */
static int read_table(summary_t *sm, const char *path, ps_err_t *err)
{
    ps_tablein_t in;
    int rc = ps_tablein_open(&in, path, err);
    if (rc < 0) return rc;
    ps_table_shape_t shape = 0;
    size_t nf = 0, keys = 2, row = 0;
    int first_table = sm->n_blk == 0;
    block_t *b = NULL;
    rc = ps_tablein_next(&in, err);
    if (rc == 0) rc = ps_fail(err, PS_E_FORMAT, "%s: empty", in.show);
    if (rc > 0) {
        nf = in.nfld;
        rc = ps_tablein_header(&in, &shape, &keys, err);
        if (rc == PS_OK && shape == PS_TABLE_BYRECORD)
            rc = ps_fail(err, PS_E_FORMAT, "%s: a --by-record table: summary reads totals tables and matrices", in.show);
    }
    if (rc == PS_OK && grow((void **)&sm->blk, &sm->cap_blk, sm->n_blk + 1, sizeof *sm->blk) < 0)
        rc = ps_fail(err, PS_E_NOMEM, "out of memory");
    if (rc == PS_OK) {
        b = &sm->blk[sm->n_blk++];
        memset(b, 0, sizeof *b);
        b->first = sm->n_s;
        /* A totals table is one sample, whatever follows its count column
         * (forward, reverse, mm0...): those split the count, they are not
         * samples. */
        if (shape == PS_TABLE_TOTALS) {
            char name[PS_SAMPLE_NAME_MAX];
            table_name(path, name, sizeof name);
            rc = add_sample(sm, name, in.show, err);
            b->ncols = 1;
        } else {
            for (size_t c = keys; c < nf && rc >= 0; c++) rc = add_sample(sm, in.fld[c], in.show, err);
            b->ncols = nf - keys;
        }
        /* Later tables must have the first one's rows: one allocation. */
        if (rc == PS_OK && !first_table && sm->n_probes &&
            grow((void **)&b->v, &b->cap_rows, sm->n_probes, b->ncols * sizeof *b->v) < 0)
            rc = ps_fail(err, PS_E_NOMEM, "%s: out of memory for %zu probes x %zu samples", in.show, sm->n_probes,
                         b->ncols);
    }
    while (rc >= 0 && (rc = ps_tablein_next(&in, err)) > 0) {
        if (first_table) {
            if (grow((void **)&sm->probe, &sm->cap_probes, sm->n_probes + 1, sizeof *sm->probe) < 0 ||
                !(sm->probe[sm->n_probes] = strdup(in.fld[0]))) {
                rc = ps_fail(err, PS_E_NOMEM, "out of memory");
                break;
            }
            sm->n_probes++;
        } else if (row >= sm->n_probes || strcmp(sm->probe[row], in.fld[0])) {
            rc = ps_fail(err, PS_E_FORMAT, "%s: line %lu: probe '%.60s' where the first table has %.60s", in.show,
                         in.lineno, in.fld[0], row < sm->n_probes ? sm->probe[row] : "no more rows");
            break;
        }
        if (grow((void **)&b->v, &b->cap_rows, row + 1, b->ncols * sizeof *b->v) < 0) {
            rc = ps_fail(err, PS_E_NOMEM, "%s: out of memory for %zu probes x %zu samples", in.show, row + 1,
                         b->ncols);
            break;
        }
        /* The count follows the key columns: a totals table's `count`, or a
         * matrix's samples in order. */
        uint64_t *v = b->v + row * b->ncols;
        for (size_t c = 0; c < b->ncols && rc >= 0; c++) {
            const char *column = shape == PS_TABLE_TOTALS ? ps_table_count_names[0] : sm->s[b->first + c].name;
            rc = ps_tablein_count(&in, keys + c, column, &v[c], err);
        }
        row++;
    }
    if (rc >= 0 && !first_table && row != sm->n_probes)
        rc = ps_fail(err, PS_E_FORMAT, "%s: %zu probe rows where the first table has %zu", in.show, row, sm->n_probes);
    ps_tablein_close(&in);
    return rc < 0 ? rc : PS_OK;
}

/* Feeds jansson from a plain or compressed file, refusing one past
 * STATS_MAX. */
typedef struct {
    BGZF *fp;
    size_t total;
    int failed; /* 1: read error, 2: too large */
} stats_src_t;

static size_t stats_read(void *buf, size_t n, void *data)
{
    stats_src_t *s = data;
    if (s->total > STATS_MAX) {
        s->failed = 2;
        return (size_t)-1;
    }
    ssize_t got = bgzf_read(s->fp, buf, n);
    if (got < 0) {
        s->failed = 1;
        return (size_t)-1;
    }
    s->total += (size_t)got;
    return (size_t)got;
}

/* A count --stats field that must be a count. */
static int stats_count(const char *path, size_t i, json_t *input, const char *key, uint64_t *out, ps_err_t *err)
{
    json_t *v = json_object_get(input, key);
    if (!v)
        return ps_fail(err, PS_E_FORMAT, "%s: inputs[%zu]: no \"%s\" (not a --stats file of probescan count?)", path,
                       i, key);
    if (!json_is_integer(v) || json_integer_value(v) < 0)
        return ps_fail(err, PS_E_FORMAT, "%s: inputs[%zu]: \"%s\" is not a count (a whole number, 0 or more)", path,
                       i, key);
    *out = (uint64_t)json_integer_value(v);
    return PS_OK;
}

/* Adds records and bases from a --stats file of count, per input named as
 * --by-file names its column (the file name without compression and
 * format). Any valid JSON is read, however laid out; what is not JSON, or
 * has no "inputs" list of {"path", "records", "bases"}, is refused. */
static int read_stats(summary_t *sm, const char *path, ps_err_t *err)
{
    stats_src_t src = {bgzf_open(path, "r"), 0, 0};
    if (!src.fp) return ps_fail(err, PS_E_IO, "%s: cannot open: %s", path, strerror(errno));
    json_error_t je;
    json_t *root = json_load_callback(stats_read, &src, 0, &je);
    int rc = PS_OK;
    if (bgzf_close(src.fp) < 0 && !src.failed) src.failed = 1;
    if (src.failed == 1) rc = ps_fail(err, PS_E_IO, "%s: read error", path);
    else if (src.failed == 2) rc = ps_fail(err, PS_E_FORMAT, "%s: larger than 1 GiB: not a --stats file", path);
    else if (!root) {
        /* jansson's text may quote the offending bytes: one line, always. */
        for (char *c = je.text; *c; c++)
            if ((unsigned char)*c < 0x20 || *c == 0x7f) *c = '?';
        rc = ps_fail(err, PS_E_FORMAT, "%s: not a --stats file: line %d, column %d: %s", path, je.line, je.column,
                     je.text);
    }
    json_t *inputs = root ? json_object_get(root, "inputs") : NULL;
    if (rc == PS_OK && !json_is_array(inputs))
        rc = ps_fail(err, PS_E_FORMAT, "%s: valid JSON, but without the \"inputs\" list of a --stats file of "
                     "probescan count", path);
    for (size_t i = 0; rc == PS_OK && i < json_array_size(inputs); i++) {
        json_t *input = json_array_get(inputs, i);
        const char *file = json_string_value(json_object_get(input, "path"));
        uint64_t rec = 0, bases = 0;
        if (!file) {
            rc = ps_fail(err, PS_E_FORMAT, "%s: inputs[%zu]: no \"path\" (not a --stats file of probescan count?)",
                         path, i);
            break;
        }
        if ((rc = stats_count(path, i, input, "records", &rec, err)) < 0 ||
            (rc = stats_count(path, i, input, "bases", &bases, err)) < 0)
            break;
        char name[PS_SAMPLE_NAME_MAX];
        ps_sample_name(file, name, sizeof name);
        khint_t k = kh_get(sname, sm->by_name, name);
        if (k == kh_end(sm->by_name)) continue; /* an input of no table given */
        sample_t *s = &sm->s[kh_val(sm->by_name, k)];
        if (s->records + rec < rec || s->bases + bases < bases) {
            rc = ps_fail(err, PS_E_FORMAT, "%s: inputs[%zu]: records or bases of sample '%.200s' above 2^64", path, i,
                         s->name);
            break;
        }
        s->records += rec;
        s->bases += bases;
        s->have_stats = 1;
    }
    json_decref(root);
    return rc;
}

/* Probes found, hits and the top probes of each sample, a block's rows in
 * order (memory order); a count enters the top only when larger than one
 * kept, so ties stay in probe-file order. */
static int finish(summary_t *sm, ps_err_t *err)
{
    for (size_t bi = 0; bi < sm->n_blk; bi++) {
        const block_t *b = &sm->blk[bi];
        for (size_t p = 0; p < sm->n_probes; p++) {
            const uint64_t *row = b->v + p * b->ncols;
            for (size_t c = 0; c < b->ncols; c++) {
                uint64_t v = row[c];
                if (!v) continue;
                sample_t *s = &sm->s[b->first + c];
                if (s->hits + v < v) return ps_fail(err, PS_E_FORMAT, "sample '%.200s': hits above 2^64", s->name);
                s->found++;
                s->hits += v;
                int at = s->n_top;
                while (at > 0 && s->top_count[at - 1] < v) at--;
                if (at == TOP) continue;
                int last = s->n_top < TOP ? s->n_top++ : TOP - 1;
                for (int k = last; k > at; k--) {
                    s->top[k] = s->top[k - 1];
                    s->top_count[k] = s->top_count[k - 1];
                }
                s->top[at] = (uint32_t)p;
                s->top_count[at] = v;
            }
        }
    }
    return PS_OK;
}

/* Creates dir and the folders above it that are missing (mkdir -p). */
static int make_dir(const char *dir, ps_err_t *err)
{
    char *p = strdup(dir);
    if (!p) return ps_fail(err, PS_E_NOMEM, "out of memory");
    int rc = PS_OK;
    for (char *c = p + 1;; c++) {
        if (*c != '/' && *c != '\0') continue;
        char was = *c;
        *c = '\0';
        struct stat st;
        if (mkdir(p, 0777) < 0) {
            int e = errno;
            if (stat(p, &st) < 0)
                rc = ps_fail(err, PS_E_IO, "-o %s: cannot create the folder %s: %s", dir, p, strerror(e));
            else if (!S_ISDIR(st.st_mode))
                rc = ps_fail(err, PS_E_USAGE, "-o %s: %s exists and is not a folder", dir, p);
        }
        *c = was;
        if (rc < 0 || was == '\0') break;
    }
    free(p);
    return rc;
}

static char *out_path(const char *dir, const char *name, ps_err_t *err)
{
    size_t n = strlen(dir) + strlen(name) + 2;
    char *path = malloc(n);
    if (!path) {
        ps_fail(err, PS_E_NOMEM, "out of memory");
        return NULL;
    }
    snprintf(path, n, "%s/%s", dir, name);
    return path;
}

static int write_file(const char *dir, const char *name, ps_cleanup_t *cl, int (*body)(FILE *, const summary_t *),
                      const summary_t *sm, ps_err_t *err)
{
    char *path = out_path(dir, name, err);
    if (!path) return PS_E_NOMEM;
    ps_output_t *o;
    int rc = ps_output_open(&o, path, cl, err);
    if (rc == PS_OK) {
        if (body(ps_output_stream(o), sm) < 0 || ferror(ps_output_stream(o))) {
            ps_output_abort(o);
            rc = ps_fail(err, PS_E_IO, "%s: write error", path);
        } else rc = ps_output_commit(o, err);
    }
    free(path);
    return rc;
}

/* Removes a file of ours that this run does not write, so that the folder
 * never shows an earlier run's section beside this run's. Only a regular
 * file (or a link) of that exact name. */
static int remove_stale(const char *dir, const char *name, ps_err_t *err)
{
    char *path = out_path(dir, name, err);
    if (!path) return PS_E_NOMEM;
    struct stat st;
    int rc = PS_OK;
    if (lstat(path, &st) == 0 && (S_ISREG(st.st_mode) || S_ISLNK(st.st_mode)) && unlink(path) < 0 && errno != ENOENT)
        rc = ps_fail(err, PS_E_IO, "%s: cannot remove the previous run's file: %s", path, strerror(errno));
    free(path);
    return rc;
}

static int samples_body(FILE *f, const summary_t *sm)
{
    /* Records and bases only when known for every sample: a 0 would read as
     * an empty input. */
    int stats = sm->n_s > 0;
    for (size_t i = 0; i < sm->n_s; i++) stats &= sm->s[i].have_stats;
    fprintf(f, "# id: 'probescan_samples'\n# section_name: 'probescan: samples'\n"
               "# description: 'Probes found (counted at least once) and hits per sample%s.'\n"
               "# plot_type: 'table'\n# pconfig:\n#     id: 'probescan_samples_table'\n"
               "#     namespace: 'probescan'\n#     format: '{:,.0f}'\n",
            stats ? ", with the records and bases scanned (from --stats)" : "");
    fprintf(f, "Sample\tProbes found\tProbes\tHits%s\n", stats ? "\tRecords\tBases" : "");
    for (size_t i = 0; i < sm->n_s; i++) {
        const sample_t *s = &sm->s[i];
        fprintf(f, "%s\t%" PRIu64 "\t%zu\t%" PRIu64, s->name, s->found, sm->n_probes, s->hits);
        if (stats) fprintf(f, "\t%" PRIu64 "\t%" PRIu64, s->records, s->bases);
        fputc('\n', f);
    }
    return 0;
}

static int top_body(FILE *f, const summary_t *sm)
{
    fprintf(f, "# id: 'probescan_top'\n# section_name: 'probescan: top probes'\n"
               "# description: 'The five most counted probes of each sample, with their counts.'\n"
               "# plot_type: 'table'\n# pconfig:\n#     id: 'probescan_top_table'\n"
               "#     namespace: 'probescan'\n");
    fprintf(f, "Sample");
    for (int k = 0; k < TOP; k++) fprintf(f, "\tTop %d", k + 1);
    fputc('\n', f);
    for (size_t i = 0; i < sm->n_s; i++) {
        const sample_t *s = &sm->s[i];
        fprintf(f, "%s", s->name);
        for (int k = 0; k < TOP; k++)
            if (k < s->n_top) fprintf(f, "\t%s (%" PRIu64 ")", sm->probe[s->top[k]], s->top_count[k]);
            else fprintf(f, "\t-");
        fputc('\n', f);
    }
    return 0;
}

static int heatmap_body(FILE *f, const summary_t *sm)
{
    /* The probes whose log counts vary most across the samples; the blocks
     * hold the samples in order. */
    size_t n = sm->n_probes, keep = n < HEAT_PROBES ? n : HEAT_PROBES;
    double *var = malloc((n ? n : 1) * sizeof *var);
    size_t *pick = malloc((keep ? keep : 1) * sizeof *pick);
    if (!var || !pick) {
        free(var);
        free(pick);
        return -1;
    }
    for (size_t p = 0; p < n; p++) {
        double m = 0, q = 0;
        for (size_t bi = 0; bi < sm->n_blk; bi++)
            for (size_t c = 0; c < sm->blk[bi].ncols; c++)
                m += log10(1.0 + (double)sm->blk[bi].v[p * sm->blk[bi].ncols + c]);
        m /= (double)sm->n_s;
        for (size_t bi = 0; bi < sm->n_blk; bi++)
            for (size_t c = 0; c < sm->blk[bi].ncols; c++) {
                double d = log10(1.0 + (double)sm->blk[bi].v[p * sm->blk[bi].ncols + c]) - m;
                q += d * d;
            }
        var[p] = q;
    }
    for (size_t k = 0; k < keep; k++) {
        size_t best = SIZE_MAX;
        for (size_t p = 0; p < n; p++)
            if (var[p] >= 0 && (best == SIZE_MAX || var[p] > var[best])) best = p;
        pick[k] = best;
        var[best] = -1;
    }
    fprintf(f, "# id: 'probescan_heatmap'\n# section_name: 'probescan: most variable probes'\n"
               "# description: 'log10(count + 1) of the %zu probes whose counts vary most across the samples.'\n"
               "# plot_type: 'heatmap'\n# pconfig:\n#     id: 'probescan_heatmap_plot'\n"
               "#     title: 'probescan: most variable probes'\n#     xTitle: 'sample'\n#     yTitle: 'probe'\n"
               "#     square: false\n",
            keep);
    fputs("Probe", f);
    for (size_t i = 0; i < sm->n_s; i++) fprintf(f, "\t%s", sm->s[i].name);
    fputc('\n', f);
    for (size_t k = 0; k < keep; k++) {
        fputs(sm->probe[pick[k]], f);
        for (size_t bi = 0; bi < sm->n_blk; bi++)
            for (size_t c = 0; c < sm->blk[bi].ncols; c++)
                fprintf(f, "\t%.3f", log10(1.0 + (double)sm->blk[bi].v[pick[k] * sm->blk[bi].ncols + c]));
        fputc('\n', f);
    }
    free(var);
    free(pick);
    return 0;
}

static void usage(FILE *f)
{
    fputs("Usage: probescan summary [options] TABLE...\n"
          "\n"
          "Write MultiQC custom content (run `multiqc DIR` after) from count tables:\n"
          "totals tables (a sample each, named after the file) and --by-file matrices.\n"
          "\n"
          "Options:\n"
          "  -o, --outdir DIR       where the *_mqc files go, made if missing (default: .)\n"
          "      --stats FILE       a --stats file of the count runs: adds records and bases\n"
          "                         (may be given several times)\n"
          "  -q, --quiet            accepted as by count (summary prints no progress)\n"
          "  -h, --help             this help\n"
          "      --version          print the version and exit\n",
          f);
}

/* --help and --version: a full disk or a closed pipe is an error, not 0. */
static int stdout_done(ps_err_t *err)
{
    if (fflush(stdout) != 0 || ferror(stdout))
        return ps_fail(err, PS_E_IO, "error writing standard output: %s", strerror(errno));
    return 1;
}

int ps_summary_main(int argc, char **argv, ps_cleanup_t *cl, ps_err_t *err)
{
    enum { OPT_VERSION = 256, OPT_STATS };
    static const struct option lopts[] = {{"outdir", required_argument, NULL, 'o'},
                                          {"stats", required_argument, NULL, OPT_STATS},
                                          {"quiet", no_argument, NULL, 'q'},
                                          {"help", no_argument, NULL, 'h'},
                                          {"version", no_argument, NULL, OPT_VERSION},
                                          {NULL, 0, NULL, 0}};
    const char *dir = ".";
    const char **stats = calloc((size_t)argc, sizeof *stats);
    int n_stats = 0, c;
    if (!stats) return ps_fail(err, PS_E_NOMEM, "out of memory");
    opterr = 0;
    optind = 0;
    int rc = PS_OK;
    while (rc == PS_OK && (c = getopt_long(argc, argv, ":o:qh", lopts, NULL)) != -1) {
        switch (c) {
        case 'o': dir = optarg; break;
        case OPT_STATS: stats[n_stats++] = optarg; break;
        case 'q': break; /* nothing to silence: summary prints no progress */
        case 'h':
            usage(stdout);
            free(stats);
            return stdout_done(err);
        case OPT_VERSION:
            puts(PS_VERSION);
            free(stats);
            return stdout_done(err);
        case ':': rc = ps_fail(err, PS_E_USAGE, "option '%s' needs a value", argv[optind - 1]); break;
        default:
            /* -s was --stats here and is --strand in count: refused, so that
             * no command line changes meaning silently. */
            if (optopt == 's')
                rc = ps_fail(err, PS_E_USAGE, "summary has no -s: give a stats file as --stats FILE (-s is --strand "
                             "in count)");
            else
                rc = ps_fail(err, PS_E_USAGE, "unknown option '%s' (see probescan summary --help)", argv[optind - 1]);
        }
    }
    if (rc == PS_OK && !dir[0]) rc = ps_fail(err, PS_E_USAGE, "-o: an empty folder name");
    if (rc == PS_OK && optind >= argc) rc = ps_fail(err, PS_E_USAGE, "no tables given (see probescan summary --help)");
    /* The same --stats file twice would count its inputs twice. */
    struct stat *seen = calloc((size_t)n_stats + 1, sizeof *seen);
    if (!seen && rc == PS_OK) rc = ps_fail(err, PS_E_NOMEM, "out of memory");
    for (int i = 0; rc == PS_OK && i < n_stats; i++) {
        if (stat(stats[i], &seen[i]) < 0) continue; /* "-" or a missing file: read_stats says why */
        for (int j = 0; j < i; j++)
            if (seen[j].st_ino == seen[i].st_ino && seen[j].st_dev == seen[i].st_dev && seen[j].st_ino) {
                rc = ps_fail(err, PS_E_USAGE, "--stats %s and --stats %s are the same file: its records and bases "
                             "would count twice", stats[j], stats[i]);
                break;
            }
    }
    free(seen);
    summary_t sm;
    memset(&sm, 0, sizeof sm);
    if (rc == PS_OK && !(sm.by_name = kh_init(sname))) rc = ps_fail(err, PS_E_NOMEM, "out of memory");
    for (int i = optind; rc == PS_OK && i < argc; i++) rc = read_table(&sm, argv[i], err);
    for (int i = 0; rc == PS_OK && i < n_stats; i++) rc = read_stats(&sm, stats[i], err);
    if (rc == PS_OK && n_stats)
        for (size_t i = 0; i < sm.n_s; i++)
            if (!sm.s[i].have_stats) {
                fprintf(stderr, "probescan: warning: no input of the --stats files is named '%s' (inputs are named "
                                "after their files, as --by-file does); records and bases left out\n", sm.s[i].name);
                break;
            }
    if (rc == PS_OK) rc = finish(&sm, err);
    /* The folder only now, after every input was read and accepted. */
    if (rc == PS_OK) rc = make_dir(dir, err);
    if (rc == PS_OK) {
        rc = write_file(dir, "probescan_samples_mqc.tsv", cl, samples_body, &sm, err);
        if (rc == PS_OK) rc = write_file(dir, "probescan_top_mqc.tsv", cl, top_body, &sm, err);
        if (rc == PS_OK)
            rc = sm.n_s >= 2 ? write_file(dir, heatmap_file, cl, heatmap_body, &sm, err)
                             : remove_stale(dir, heatmap_file, err);
    }
    for (size_t i = 0; i < sm.n_s; i++) free(sm.s[i].name);
    for (size_t b = 0; b < sm.n_blk; b++) free(sm.blk[b].v);
    for (size_t p = 0; p < sm.n_probes; p++) free(sm.probe[p]);
    if (sm.by_name) kh_destroy(sname, sm.by_name);
    free(sm.blk);
    free(sm.s);
    free(sm.probe);
    free(stats);
    return rc;
}
