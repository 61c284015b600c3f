#include "samples.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <htslib/bgzf.h>
#include <htslib/khash.h>
#include <htslib/kstring.h>

#include "seqio.h"
#include "table.h"

void ps_samples_free(ps_samples_t *s)
{
    if (!s) return;
    for (size_t i = 0; i < s->n_samples; i++) free(s->name[i]);
    for (size_t i = 0; i < s->n_files; i++) free(s->file[i]);
    free(s->name);
    free(s->file);
    free(s->sample);
    free(s);
}

/* Appends to a growable array of pointers; 0 or -1 when out of memory. */
static int push(char ***v, size_t *n, size_t *cap, char *item)
{
    if (*n == *cap) {
        size_t c = *cap ? 2 * *cap : 16;
        char **nv = realloc(*v, c * sizeof *nv);
        if (!nv) return -1;
        *v = nv;
        *cap = c;
    }
    (*v)[(*n)++] = item;
    return 0;
}

/* Sample names to their index (keys are the names s->name holds). */
KHASH_MAP_INIT_STR(sample, size_t)

/* The index of name among s's samples, adding it when new; -1 when out of memory. */
static long sample_index(ps_samples_t *s, khash_t(sample) *ix, size_t *cap_names, const char *name)
{
    khint_t k = kh_get(sample, ix, name);
    if (k != kh_end(ix)) return (long)kh_val(ix, k);
    char *nm = strdup(name);
    int absent;
    if (!nm || push(&s->name, &s->n_samples, cap_names, nm) < 0) {
        free(nm);
        return -1;
    }
    k = kh_put(sample, ix, nm, &absent);
    if (absent < 0) return -1; /* nm is s's now, freed with it */
    kh_val(ix, k) = s->n_samples - 1;
    return (long)(s->n_samples - 1);
}

int ps_samples_load(ps_samples_t **out, const char *path, ps_err_t *err)
{
    *out = NULL;
    /* Plain or gzip, as every table probescan reads. */
    BGZF *f = bgzf_open(path, "r");
    if (!f) return ps_fail(err, PS_E_IO, "%s: cannot open the sample sheet: %s", path, strerror(errno ? errno : EIO));
    ps_samples_t *s = calloc(1, sizeof *s);
    khash_t(sample) *ix = kh_init(sample);
    size_t cap_names = 0, cap_files = 0, cap_idx = 0;
    kstring_t ks = {0, 0, NULL};
    unsigned long lineno = 0;
    int rc = s && ix ? PS_OK : ps_fail(err, PS_E_NOMEM, "out of memory");
    int got;
    while (rc == PS_OK && (got = bgzf_getline(f, '\n', &ks)) >= 0) {
        lineno++;
        char *l = ks.s ? ks.s : (char *)"";
        size_t n = ks.l;
        if (lineno == 1) {
            const char *tool, *comp = ps_unread_compression(l, n, &tool);
            if (comp) {
                rc = ps_fail(err, PS_E_FORMAT, "%s: a %s-compressed sample sheet is not read directly (plain or gzip "
                                               "are); decompress it first, e.g. --samples <(%s %s)",
                             path, comp, tool, path);
                break;
            }
            if (n >= 3 && !memcmp(l, "\xef\xbb\xbf", 3)) l += 3, n -= 3; /* a byte-order mark */
        }
        if (memchr(l, '\0', n)) {
            rc = ps_fail(err, PS_E_FORMAT, "%s: line %lu: binary data (a NUL byte): not a sample sheet", path, lineno);
            break;
        }
        while (n && (l[n - 1] == '\n' || l[n - 1] == '\r')) l[--n] = '\0';
        if (n == 0 || l[0] == '#') continue;
        char *tab = strchr(l, '\t');
        if (!tab || strchr(tab + 1, '\t')) {
            rc = ps_fail(err, PS_E_FORMAT, "%s: line %lu: want 'sample<TAB>file'", path, lineno);
            break;
        }
        *tab = '\0';
        const char *name = l, *file = tab + 1;
        if (s->n_files == 0 && !strcasecmp(name, "sample") && !strcasecmp(file, "file")) continue;
        if (!*name || !*file || strpbrk(name, "\r\n")) {
            rc = ps_fail(err, PS_E_FORMAT, "%s: line %lu: %s", path, lineno,
                         !*name ? "empty sample name" : !*file ? "empty file name" : "a sample name holds a line break");
            break;
        }
        if (ps_table_reserved_column(name)) {
            rc = ps_fail(err, PS_E_FORMAT,
                         "%s: line %lu: sample '%s' is named as a column of the table itself, which merge and "
                         "summary would then misread; rename it",
                         path, lineno, name);
            break;
        }
        long k = sample_index(s, ix, &cap_names, name);
        char *fl = k >= 0 ? strdup(file) : NULL;
        if (!fl || push(&s->file, &s->n_files, &cap_files, fl) < 0) {
            free(fl);
            rc = ps_fail(err, PS_E_NOMEM, "out of memory");
            break;
        }
        if (s->n_files > cap_idx) {
            size_t c = cap_files;
            int *ni = realloc(s->sample, c * sizeof *ni);
            if (!ni) {
                rc = ps_fail(err, PS_E_NOMEM, "out of memory");
                break;
            }
            s->sample = ni;
            cap_idx = c;
        }
        s->sample[s->n_files - 1] = (int)k;
    }
    /* -1 is the end; below it, a read error (a cut gzip stream among them). */
    if (rc == PS_OK && got < -1) rc = ps_fail(err, PS_E_IO, "%s: read error (corrupt or truncated?)", path);
    if (rc == PS_OK && s->n_files == 0) rc = ps_fail(err, PS_E_FORMAT, "%s: no 'sample<TAB>file' lines", path);
    free(ks.s);
    if (ix) kh_destroy(sample, ix);
    bgzf_close(f);
    if (rc < 0) {
        ps_samples_free(s);
        return rc;
    }
    *out = s;
    return PS_OK;
}

void ps_path_stem(const char *path, const char *const *zext, const char *const *fext, char *out, size_t n)
{
    if (!strcmp(path, "-")) {
        snprintf(out, n, "stdin");
        return;
    }
    const char *base = strrchr(path, '/');
    snprintf(out, n, "%s", base ? base + 1 : path);
    const char *const *lists[] = {zext, fext};
    for (int l = 0; l < 2; l++)
        for (const char *const *e = lists[l]; *e; e++) {
            size_t len = strlen(out), el = strlen(*e);
            if (len > el && !strcasecmp(out + len - el, *e)) {
                out[len - el] = '\0';
                break;
            }
        }
}

void ps_sample_name(const char *path, char *out, size_t n)
{
    static const char *const zext[] = {".gz", ".bgz", ".bgzf", NULL};
    static const char *const fext[] = {".fa", ".fasta", ".fna", ".faa", ".fq", ".fastq", NULL};
    ps_path_stem(path, zext, fext, out, n);
}
