/* tablein.c - reading probescan tables line by line (see tablein.h). */
#include "tablein.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>

#include <zlib.h>

/* Longest excerpt of a user field quoted in an error message. */
#define QUOTE 60

/* Tables may be plain, gzip or BGZF (`-o counts.tsv.gz`): zlib reads all
 * three, under a stdio stream so that lines are read as from a file. */
static ssize_t gz_cookie_read(void *c, char *buf, size_t n)
{
    int got = gzread((gzFile)c, buf, n > (1u << 30) ? 1u << 30 : (unsigned)n);
    int zerr = Z_OK;
    if (got == 0) gzerror((gzFile)c, &zerr);
    return got < 0 || zerr != Z_OK ? -1 : got; /* a cut gzip stream is an error, not an end */
}

static int gz_cookie_close(void *c) { return gzclose((gzFile)c) == Z_OK ? 0 : EOF; }

int ps_tablein_open(ps_tablein_t *in, const char *path, ps_err_t *err)
{
    memset(in, 0, sizeof *in);
    int std = strcmp(path, "-") == 0;
    in->show = std ? "standard input" : path;
    int fd = std ? dup(0) : -1;
    gzFile g = std ? (fd >= 0 ? gzdopen(fd, "rb") : NULL) : gzopen(path, "rb");
    if (!g) {
        int e = errno;
        if (fd >= 0) close(fd);
        return ps_fail(err, PS_E_IO, "%s: cannot open: %s", in->show, e ? strerror(e) : "out of memory");
    }
    cookie_io_functions_t io = {.read = gz_cookie_read, .write = NULL, .seek = NULL, .close = gz_cookie_close};
    if (!(in->f = fopencookie(g, "r", io))) {
        gzclose(g);
        return ps_fail(err, PS_E_NOMEM, "%s: out of memory", in->show);
    }
    return PS_OK;
}

void ps_tablein_close(ps_tablein_t *in)
{
    /* Read-only stream: everything it held was already parsed and checked,
     * so a failing fclose cannot change the result. */
    if (in->f) (void)fclose(in->f);
    free(in->line);
    free(in->fld);
    memset(in, 0, sizeof *in);
}

int ps_tablein_next(ps_tablein_t *in, ps_err_t *err)
{
    errno = 0;
    ssize_t len = getline(&in->line, &in->cap, in->f);
    if (len < 0) {
        if (ferror(in->f)) return ps_fail(err, PS_E_IO, "%s: read error: %s", in->show, strerror(errno));
        if (errno == ENOMEM) return ps_fail(err, PS_E_NOMEM, "%s: out of memory", in->show);
        return 0;
    }
    in->lineno++;
    /* A table cut inside its last row would merge as a smaller number. */
    if (len == 0 || in->line[len - 1] != '\n')
        return ps_fail(err, PS_E_FORMAT, "%s: line %lu: the table ends inside a row, without a line break (cut short?)",
                       in->show, in->lineno);
    in->line[--len] = '\0';
    if (in->lineno == 1 && len >= 3 && !memcmp(in->line, "\xef\xbb\xbf", 3)) { /* a UTF-8 byte-order mark */
        memmove(in->line, in->line + 3, (size_t)len - 2);
        len -= 3;
    }
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
    if (in->lineno == 1) in->header_nfld = in->nfld;
    else if (in->nfld != in->header_nfld)
        return ps_fail(err, PS_E_FORMAT, "%s: line %lu: %zu columns where the header has %zu", in->show, in->lineno,
                       in->nfld, in->header_nfld);
    return 1;
}

int ps_tablein_header(ps_tablein_t *in, ps_table_shape_t *shape, size_t *keys, ps_err_t *err)
{
    size_t k;
    ps_err_t why;
    if (ps_table_parse_header(in->fld, in->nfld, shape, &in->strands, &in->mm, keys ? keys : &k, &why) < 0)
        return ps_fail(err, why.code, "%s: line 1: %s", in->show, why.msg);
    return PS_OK;
}

int ps_tablein_count(const ps_tablein_t *in, size_t field, const char *column, uint64_t *out, ps_err_t *err)
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
                   in->lineno, QUOTE, column, QUOTE, s);
}
