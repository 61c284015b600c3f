/* tablein.c - reading probescan tables line by line (see tablein.h). */
#include "tablein.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Longest excerpt of a user field quoted in an error message. */
#define QUOTE 60

/* bgzf_getline cannot say whether the last line had its line break (it
 * returns a cut last row like a whole one), so lines are cut here from
 * blocks read through bgzf_read, which decompresses as it does. */
#define READ_AHEAD (64 * 1024)

int ps_tablein_open(ps_tablein_t *in, const char *path, ps_err_t *err)
{
    return ps_tablein_open_ex(in, path, 0, err);
}

int ps_tablein_open_ex(ps_tablein_t *in, const char *path, unsigned flags, ps_err_t *err)
{
    memset(in, 0, sizeof *in);
    int std = strcmp(path, "-") == 0;
    in->show = std ? "standard input" : path;
    in->flags = flags;
    /* A duplicate of standard input, so that closing the table leaves fd 0
     * open for whatever reads it next. */
    int fd = std ? dup(0) : -1;
    errno = 0;
    in->fp = std ? (fd >= 0 ? bgzf_dopen(fd, "r") : NULL) : bgzf_open(path, "r");
    if (!in->fp) {
        int e = errno;
        if (fd >= 0) close(fd);
        return ps_fail(err, PS_E_IO, "%s: cannot open: %s", in->show, e ? strerror(e) : "not readable");
    }
    if (!(in->buf = malloc(READ_AHEAD))) return ps_fail(err, PS_E_NOMEM, "%s: out of memory", in->show);
    return PS_OK;
}

void ps_tablein_close(ps_tablein_t *in)
{
    /* Read only: everything it held was already parsed and checked, so a
     * failing close cannot change the result. */
    if (in->fp) (void)bgzf_close(in->fp);
    free(in->buf);
    free(in->line.s);
    free(in->fld);
    memset(in, 0, sizeof *in);
}

/* htslib flags a gzip stream that ends early as an I/O error without
 * errno; a real read error sets errno. */
static int read_error(ps_tablein_t *in, int e, ps_err_t *err)
{
    if (e && (in->fp->errcode & BGZF_ERR_IO))
        return ps_fail(err, PS_E_IO, "%s: after line %lu: read error: %s", in->show, in->lineno, strerror(e));
    return ps_fail(err, PS_E_FORMAT, "%s: after line %lu: the compressed data is corrupt or cut short", in->show,
                   in->lineno);
}

/* Reads the next raw line, without its line break, into in->line: 1, or 0
 * at the end, or a negative code. *ended: the line break was there. */
static int raw_line(ps_tablein_t *in, int *ended, ps_err_t *err)
{
    in->line.l = 0;
    *ended = 0;
    int any = 0;
    for (;;) {
        if (in->pos == in->len) {
            errno = 0;
            ssize_t got = bgzf_read(in->fp, in->buf, READ_AHEAD);
            if (got < 0) return read_error(in, errno, err);
            in->pos = 0;
            in->len = (size_t)got;
            /* BGZF blocks carry their own checksums, so a file cut between
             * two blocks decompresses cleanly: only the missing end-of-file
             * block shows it. */
            if (got == 0 && bgzf_compression(in->fp) == 2 && !in->fp->last_block_eof)
                return ps_fail(err, PS_E_FORMAT,
                               "%s: after line %lu: the BGZF data ends without its end-of-file block: the file is "
                               "cut short",
                               in->show, in->lineno);
            if (got == 0) break;
        }
        const char *s = in->buf + in->pos, *nl = memchr(s, '\n', in->len - in->pos);
        size_t take = nl ? (size_t)(nl - s) : in->len - in->pos;
        if (kputsn(s, take, &in->line) < 0) return ps_fail(err, PS_E_NOMEM, "%s: out of memory", in->show);
        in->pos += take + (nl != NULL);
        any = 1;
        if (nl) {
            *ended = 1;
            break;
        }
    }
    return any;
}

int ps_tablein_next(ps_tablein_t *in, ps_err_t *err)
{
    for (;;) {
        int ended, rc = raw_line(in, &ended, err);
        if (rc <= 0) return rc;
        in->lineno++;
        /* A table cut inside its last row would merge as a smaller number. */
        if (!ended && !(in->flags & PS_TABLEIN_OPEN_END))
            return ps_fail(err, PS_E_FORMAT,
                           "%s: line %lu: the table ends inside a row, without a line break (cut short?)", in->show,
                           in->lineno);
        char *s = in->line.s;
        size_t len = in->line.l;
        if (in->lineno == 1 && len >= 3 && !memcmp(s, "\xef\xbb\xbf", 3)) { /* a UTF-8 byte-order mark */
            s += 3;
            len -= 3;
        }
        /* Windows line ends, as every text tool accepts them. */
        if (len > 0 && s[len - 1] == '\r') s[--len] = '\0';
        if (strlen(s) != len)
            return ps_fail(err, PS_E_FORMAT, "%s: line %lu: binary data (a NUL byte): not a probescan table",
                           in->show, in->lineno);
        if ((in->flags & PS_TABLEIN_SKIP_BLANK) && (len == 0 || s[0] == '#')) continue;
        if (len == 0) return ps_fail(err, PS_E_FORMAT, "%s: line %lu: empty line", in->show, in->lineno);
        in->nfld = 0;
        for (char *p = s;;) {
            if (in->nfld == in->fcap) {
                size_t ncap = in->fcap ? in->fcap * 2 : 16;
                char **nf = realloc(in->fld, ncap * sizeof *nf);
                if (!nf) return ps_fail(err, PS_E_NOMEM, "%s: out of memory", in->show);
                in->fld = nf;
                in->fcap = ncap;
            }
            in->fld[in->nfld++] = p;
            char *tab = memchr(p, '\t', len - (size_t)(p - s));
            if (!tab) break;
            *tab = '\0';
            p = tab + 1;
        }
        if (!in->header_nfld) in->header_nfld = in->nfld;
        else if (in->nfld != in->header_nfld && !(in->flags & PS_TABLEIN_RAGGED))
            return ps_fail(err, PS_E_FORMAT, "%s: line %lu: %zu columns where the header has %zu", in->show,
                           in->lineno, in->nfld, in->header_nfld);
        return 1;
    }
}

int ps_tablein_header(ps_tablein_t *in, ps_table_shape_t *shape, size_t *keys, ps_err_t *err)
{
    size_t k;
    ps_err_t why;
    if (ps_table_parse_header(in->fld, in->nfld, shape, &in->strands, &in->mm, keys ? keys : &k, &why) < 0)
        return ps_fail(err, why.code, "%s: line %lu: %s", in->show, in->lineno, why.msg);
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
