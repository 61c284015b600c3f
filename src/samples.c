#include "samples.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

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

int ps_samples_load(ps_samples_t **out, const char *path, ps_err_t *err)
{
    *out = NULL;
    FILE *f = fopen(path, "r");
    if (!f) return ps_fail(err, PS_E_IO, "%s: cannot open the sample sheet: %s", path, strerror(errno));
    ps_samples_t *s = calloc(1, sizeof *s);
    size_t cap_names = 0, cap_files = 0, cap_idx = 0;
    char *line = NULL;
    size_t lcap = 0;
    unsigned long lineno = 0;
    int rc = s ? PS_OK : ps_fail(err, PS_E_NOMEM, "out of memory");
    ssize_t len;
    while (rc == PS_OK && (len = getline(&line, &lcap, f)) >= 0) {
        lineno++;
        char *l = line;
        if (lineno == 1 && len >= 3 && !memcmp(l, "\xef\xbb\xbf", 3)) l += 3; /* a byte-order mark */
        size_t n = strlen(l);
        while (n && (l[n - 1] == '\n' || l[n - 1] == '\r')) l[--n] = '\0';
        if (n == 0 || l[0] == '#') continue;
        char *tab = strchr(l, '\t');
        if (!tab || strchr(tab + 1, '\t')) {
            rc = ps_fail(err, PS_E_FORMAT, "%s: line %lu: want 'sample<TAB>file'", path, lineno);
            break;
        }
        *tab = '\0';
        const char *name = l, *file = tab + 1;
        if (lineno == 1 && !strcmp(name, "sample") && !strcmp(file, "file")) continue;
        if (!*name || !*file || strpbrk(name, "\r\n")) {
            rc = ps_fail(err, PS_E_FORMAT, "%s: line %lu: %s", path, lineno,
                         !*name ? "empty sample name" : !*file ? "empty file name" : "a sample name holds a line break");
            break;
        }
        for (size_t i = 0; i < s->n_files; i++)
            if (!strcmp(s->file[i], file)) {
                rc = ps_fail(err, PS_E_FORMAT, "%s: line %lu: file '%.200s' is listed twice", path, lineno, file);
                break;
            }
        if (rc < 0) break;
        size_t k = 0;
        while (k < s->n_samples && strcmp(s->name[k], name)) k++;
        char *nm = k == s->n_samples ? strdup(name) : NULL, *fl = strdup(file);
        if (k == s->n_samples && (!nm || push(&s->name, &s->n_samples, &cap_names, nm) < 0)) {
            free(nm);
            free(fl);
            rc = ps_fail(err, PS_E_NOMEM, "out of memory");
            break;
        }
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
    if (rc == PS_OK && ferror(f)) rc = ps_fail(err, PS_E_IO, "%s: read error", path);
    if (rc == PS_OK && s->n_files == 0) rc = ps_fail(err, PS_E_FORMAT, "%s: no 'sample<TAB>file' lines", path);
    free(line);
    fclose(f);
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
