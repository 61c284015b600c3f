#include "output.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

struct ps_output {
    FILE *f;
    char *path; /* final path, NULL for stdout */
    char *tmp;  /* temporary file beside it */
};

int ps_output_open(ps_output_t **out, const char *path, ps_err_t *err)
{
    *out = NULL;
    ps_output_t *o = calloc(1, sizeof *o);
    if (!o) return ps_fail(err, PS_E_NOMEM, "out of memory");
    if (!path || strcmp(path, "-") == 0) {
        o->f = stdout;
        *out = o;
        return PS_OK;
    }
    o->path = strdup(path);
    size_t len = strlen(path);
    o->tmp = malloc(len + 16);
    if (!o->path || !o->tmp) {
        ps_output_abort(o);
        return ps_fail(err, PS_E_NOMEM, "out of memory");
    }
    snprintf(o->tmp, len + 16, "%s.tmp.XXXXXX", path);
    int fd = mkstemp(o->tmp);
    if (fd < 0) {
        int e = errno;
        free(o->tmp);
        o->tmp = NULL;
        ps_output_abort(o);
        return ps_fail(err, PS_E_IO, "%s: cannot create output file: %s", path, strerror(e));
    }
    /* mkstemp makes the file private; give it the permissions a plain
     * fopen would have. */
    mode_t mask = umask(0);
    umask(mask);
    if (fchmod(fd, 0666 & ~mask) != 0 || !(o->f = fdopen(fd, "w"))) {
        int e = errno;
        close(fd);
        ps_output_abort(o);
        return ps_fail(err, PS_E_IO, "%s: cannot write output file: %s", path, strerror(e));
    }
    *out = o;
    return PS_OK;
}

FILE *ps_output_stream(ps_output_t *o) { return o->f; }

int ps_output_commit(ps_output_t *o, ps_err_t *err)
{
    int rc = PS_OK;
    if (!o->path) {
        if (fflush(stdout) != 0 || ferror(stdout))
            rc = ps_fail(err, PS_E_IO, "error writing to standard output: %s", strerror(errno));
        free(o);
        return rc;
    }
    int bad = ferror(o->f);
    if (fflush(o->f) != 0 || bad) rc = ps_fail(err, PS_E_IO, "%s: write error: %s", o->path, strerror(errno));
    if (fclose(o->f) != 0 && rc == PS_OK) rc = ps_fail(err, PS_E_IO, "%s: write error: %s", o->path, strerror(errno));
    o->f = NULL;
    if (rc == PS_OK && rename(o->tmp, o->path) != 0)
        rc = ps_fail(err, PS_E_IO, "%s: cannot rename output into place: %s", o->path, strerror(errno));
    if (rc != PS_OK) unlink(o->tmp);
    free(o->path);
    free(o->tmp);
    free(o);
    return rc;
}

void ps_output_abort(ps_output_t *o)
{
    if (!o) return;
    if (o->path) {
        if (o->f) fclose(o->f);
        if (o->tmp) unlink(o->tmp);
    }
    free(o->path);
    free(o->tmp);
    free(o);
}

int ps_write_counts(FILE *f, const ps_probes_t *p, const ps_automaton_t *a,
                    const uint64_t *leaf_counts, ps_err_t *err)
{
    int strands = a->both_strands;
    fputs(strands ? "name\tsequence\tcount\tforward\treverse\n" : "name\tsequence\tcount\n", f);
    for (uint32_t i = 0; i < p->n; i++) {
        uint64_t fw = leaf_counts[a->probe_leaf[0][i]];
        if (strands) {
            uint64_t rv = leaf_counts[a->probe_leaf[1][i]];
            fprintf(f, "%s\t%s\t%" PRIu64 "\t%" PRIu64 "\t%" PRIu64 "\n", p->name[i], p->seq[i], fw + rv, fw, rv);
        } else {
            fprintf(f, "%s\t%s\t%" PRIu64 "\n", p->name[i], p->seq[i], fw);
        }
    }
    if (ferror(f)) return ps_fail(err, PS_E_IO, "error writing the output table: %s", strerror(errno));
    return PS_OK;
}
