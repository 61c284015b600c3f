#include "outfile.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <htslib/bgzf.h>
#include <jansson.h>

struct ps_output {
    FILE *f;
    char *path;   /* as named, for messages; NULL for a stream given open */
    char *target; /* the file renamed over (a symlink's target); NULL when written directly */
    char *tmp;    /* temporary file beside the target */
    ps_cleanup_t *cl;
};

/* A name ending in .gz or .bgz asks for compressed output: BGZF, which
 * every gzip reader (and htslib's indexing) reads. */
static int wants_gzip(const char *path)
{
    size_t n = strlen(path);
    return (n > 3 && !strcasecmp(path + n - 3, ".gz")) || (n > 4 && !strcasecmp(path + n - 4, ".bgz"));
}

static ssize_t bgzf_cookie_write(void *c, const char *buf, size_t n)
{
    return bgzf_write((BGZF *)c, buf, n) == (ssize_t)n ? (ssize_t)n : -1;
}

static int bgzf_cookie_close(void *c) { return bgzf_close((BGZF *)c) == 0 ? 0 : EOF; }

/* A stream on fd: plain, or BGZF-compressed through a stdio cookie so that
 * the table writers keep writing to a FILE. */
static FILE *stream_on(int fd, int gzip)
{
    if (!gzip) return fdopen(fd, "w");
    BGZF *bz = bgzf_dopen(fd, "w");
    if (!bz) return NULL;
    cookie_io_functions_t io = {.read = NULL, .write = bgzf_cookie_write, .seek = NULL, .close = bgzf_cookie_close};
    FILE *f = fopencookie(bz, "w", io);
    if (!f) bgzf_close(bz);
    return f;
}

/* Paths that name an open descriptor or a device, whatever they resolve to:
 * writing must go to them, not replace them. */
static int special_path(const char *p)
{
    return !strncmp(p, "/dev/", 5) || !strncmp(p, "/proc/", 6);
}

/* Where the temporary file goes and what it replaces: the file a symlink
 * chain ends at, or the path itself when nothing is there yet. NULL when
 * the path must be written directly. */
static char *rename_target(const char *path, int *direct, ps_err_t *err)
{
    *direct = 0;
    struct stat st;
    if (special_path(path)) {
        *direct = 1;
        return NULL;
    }
    if (stat(path, &st) != 0) {
        struct stat lst;
        /* Nothing there: a new file. A dangling symlink: create its target. */
        if (lstat(path, &lst) == 0 && S_ISLNK(lst.st_mode)) *direct = 1;
        char *t = *direct ? NULL : strdup(path);
        if (!*direct && !t) ps_fail(err, PS_E_NOMEM, "out of memory");
        return t;
    }
    if (S_ISDIR(st.st_mode)) {
        ps_fail(err, PS_E_IO, "%s: is a directory", path);
        return NULL;
    }
    if (!S_ISREG(st.st_mode)) {
        *direct = 1;
        return NULL;
    }
    char *t = realpath(path, NULL);
    if (!t) {
        ps_fail(err, PS_E_IO, "%s: cannot resolve: %s", path, strerror(errno));
        return NULL;
    }
    if (special_path(t)) {
        free(t);
        *direct = 1;
        return NULL;
    }
    return t;
}

int ps_output_open_stream(ps_output_t **out, FILE *f, ps_err_t *err)
{
    *out = NULL;
    ps_output_t *o = calloc(1, sizeof *o);
    if (!o) return ps_fail(err, PS_E_NOMEM, "out of memory");
    o->f = f;
    *out = o;
    return PS_OK;
}

int ps_output_open(ps_output_t **out, const char *path, ps_cleanup_t *cl, ps_err_t *err)
{
    *out = NULL;
    if (!path || strcmp(path, "-") == 0) return ps_output_open_stream(out, stdout, err);
    ps_output_t *o = calloc(1, sizeof *o);
    if (!o) return ps_fail(err, PS_E_NOMEM, "out of memory");
    o->cl = cl;
    int direct;
    err->code = 0;
    if (!(o->path = strdup(path))) {
        free(o);
        return ps_fail(err, PS_E_NOMEM, "out of memory");
    }
    o->target = rename_target(path, &direct, err);
    struct stat old;
    int old_mode = o->target && stat(o->target, &old) == 0 ? (int)(old.st_mode & 07777) : -1;
    if (!o->target && !direct) {
        int rc = err->code ? err->code : PS_E_INTERNAL;
        ps_output_abort(o);
        return rc;
    }
    if (direct) {
        /* A device or pipe: opened as it is (O_CREAT for a dangling link). */
        int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
        if (fd < 0 || !(o->f = stream_on(fd, wants_gzip(path)))) {
            int e = errno;
            if (fd >= 0 && !wants_gzip(path)) close(fd);
            ps_output_abort(o);
            return ps_fail(err, PS_E_IO, "%s: cannot write: %s", path, strerror(e));
        }
        *out = o;
        return PS_OK;
    }
    size_t len = strlen(o->target);
    if (!(o->tmp = malloc(len + 16))) {
        ps_output_abort(o);
        return ps_fail(err, PS_E_NOMEM, "out of memory");
    }
    snprintf(o->tmp, len + 16, "%s.tmp.XXXXXX", o->target);
    int fd = mkstemp(o->tmp);
    if (fd < 0) {
        int e = errno;
        free(o->tmp);
        o->tmp = NULL;
        ps_output_abort(o);
        return ps_fail(err, PS_E_IO, "%s: cannot create output file: %s", path, strerror(e));
    }
    int rc = ps_cleanup_add(cl, o->tmp, err);
    if (rc < 0) {
        close(fd);
        ps_output_abort(o);
        return rc;
    }
    /* mkstemp makes the file private; give it the permissions of the file
     * it replaces, or those a plain fopen would give a new one. */
    mode_t mask = umask(0);
    umask(mask);
    mode_t mode = old_mode >= 0 ? (mode_t)old_mode : 0666 & ~mask;
    if (fchmod(fd, mode) != 0) {
        int e = errno;
        close(fd);
        ps_output_abort(o);
        return ps_fail(err, PS_E_IO, "%s: cannot write output file: %s", path, strerror(e));
    }
    /* A failed BGZF stream has closed fd already: bgzf_dopen closes it on
     * failure once it holds it, and bgzf_close after a failed fopencookie. */
    if (!(o->f = stream_on(fd, wants_gzip(path)))) {
        int e = errno;
        if (!wants_gzip(path)) close(fd);
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
        if (fflush(o->f) != 0 || ferror(o->f))
            rc = ps_fail(err, PS_E_IO, "error writing to %s: %s", o->f == stdout ? "standard output" : "the output",
                         strerror(errno));
        free(o);
        return rc;
    }
    int bad = ferror(o->f);
    if (fflush(o->f) != 0 || bad) rc = ps_fail(err, PS_E_IO, "%s: write error: %s", o->path, strerror(errno));
    if (fclose(o->f) != 0 && rc == PS_OK) rc = ps_fail(err, PS_E_IO, "%s: write error: %s", o->path, strerror(errno));
    o->f = NULL;
    if (rc == PS_OK && o->tmp && rename(o->tmp, o->target) != 0)
        rc = ps_fail(err, PS_E_IO, "%s: cannot rename output into place: %s", o->path, strerror(errno));
    if (o->tmp) {
        if (rc != PS_OK) unlink(o->tmp);
        ps_cleanup_drop(o->cl, o->tmp);
    }
    free(o->path);
    free(o->target);
    free(o->tmp);
    free(o);
    return rc;
}

void ps_output_abort(ps_output_t *o)
{
    if (!o) return;
    if (o->path && o->f) fclose(o->f);
    if (o->tmp) {
        unlink(o->tmp);
        ps_cleanup_drop(o->cl, o->tmp);
    }
    free(o->path);
    free(o->target);
    free(o->tmp);
    free(o);
}

/* The length of the well-formed UTF-8 sequence that begins at s (the
 * Unicode standard's table 3-7: no overlong forms, no surrogates, nothing
 * above U+10FFFF), or 0 where none does. Reads no further than a byte that
 * breaks the sequence, so never past the string's end. */
static size_t utf8_len(const unsigned char *s)
{
    unsigned c = s[0], lo = 0x80, hi = 0xbf;
    size_t n;
    if (c < 0x80) return 1;
    if (c >= 0xc2 && c <= 0xdf) {
        n = 2;
    } else if (c >= 0xe0 && c <= 0xef) {
        n = 3;
        lo = c == 0xe0 ? 0xa0 : 0x80;
        hi = c == 0xed ? 0x9f : 0xbf;
    } else if (c >= 0xf0 && c <= 0xf4) {
        n = 4;
        lo = c == 0xf0 ? 0x90 : 0x80;
        hi = c == 0xf4 ? 0x8f : 0xbf;
    } else {
        return 0;
    }
    if (s[1] < lo || s[1] > hi) return 0;
    for (size_t i = 2; i < n; i++)
        if (s[i] < 0x80 || s[i] > 0xbf) return 0;
    return n;
}

json_t *ps_json_text(const char *s)
{
    const unsigned char *u = (const unsigned char *)s;
    size_t len = strlen(s), bad = 0, n;
    for (size_t i = 0; i < len; i += n ? n : 1) bad += (n = utf8_len(u + i)) == 0;
    if (!bad) return json_stringn(s, len);
    /* Each stray byte becomes U+FFFD, three bytes in UTF-8. */
    char *t = malloc(len + 2 * bad + 1), *q = t;
    if (!t) return NULL;
    for (size_t i = 0; i < len; i += n ? n : 1) {
        if ((n = utf8_len(u + i)) == 0) {
            memcpy(q, "\xef\xbf\xbd", 3);
            q += 3;
        } else {
            memcpy(q, s + i, n);
            q += n;
        }
    }
    json_t *j = json_stringn(t, (size_t)(q - t));
    free(t);
    return j;
}

json_t *ps_json_seconds(double s) { return json_real(round(s * 1e6) / 1e6); }

json_t *ps_json_gpus(const ps_engine_info_t *in)
{
    json_t *a = json_array();
    for (int i = 0; a && i < in->n_gpus; i++) {
        const ps_gpu_share_t *g = &in->gpu[i];
        if (json_array_append_new(a, json_pack("{s:i, s:I, s:I, s:o}", "id", g->id, "chunks", (json_int_t)g->chunks,
                                               "bases", (json_int_t)g->symbols, "seconds",
                                               ps_json_seconds(g->seconds))) < 0) {
            json_decref(a);
            a = NULL;
        }
    }
    return a;
}

/* What jansson writes a value with: any value (not only objects and
 * arrays), members in the order they were set, reals to 15 digits (times
 * rounded to microseconds print as they were, 0.25 not 0.25000000000000001). */
#define JSON_FLAGS (JSON_ENCODE_ANY | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(15))

/* ps_json_save's layout (outfile.h); -1 on a write error. jansson writes
 * every key and value; only the line breaks and indents are written here. */
static int write_json(FILE *f, const json_t *obj)
{
    const char *key;
    json_t *v;
    int first = 1;
    if (!json_is_object(obj) || fputc('{', f) == EOF) return -1;
    json_object_foreach((json_t *)obj, key, v) {
        json_t *k = json_string(key);
        int bad = !k || fputs(first ? "\n  " : ",\n  ", f) == EOF || json_dumpf(k, f, JSON_FLAGS) < 0 ||
                  fputs(": ", f) == EOF;
        json_decref(k);
        if (bad) return -1;
        first = 0;
        if (!json_is_array(v) || json_array_size(v) == 0) {
            if (json_dumpf(v, f, JSON_FLAGS) < 0) return -1;
            continue;
        }
        size_t i;
        json_t *e;
        json_array_foreach(v, i, e) {
            if (fputs(i ? ",\n    " : "[\n    ", f) == EOF || json_dumpf(e, f, JSON_FLAGS) < 0) return -1;
        }
        if (fputs("\n  ]", f) == EOF) return -1;
    }
    return fputs(first ? "}\n" : "\n}\n", f) == EOF ? -1 : 0;
}

int ps_json_save(const char *path, json_t *obj, ps_cleanup_t *cl, ps_err_t *err)
{
    const char *name = path && strcmp(path, "-") ? path : "standard output";
    if (!obj) return ps_fail(err, PS_E_NOMEM, "%s: out of memory for the statistics", name);
    ps_output_t *out;
    int rc = ps_output_open(&out, path, cl, err);
    if (rc == PS_OK) {
        errno = 0;
        if (write_json(ps_output_stream(out), obj) < 0 || ferror(ps_output_stream(out))) {
            int e = errno;
            ps_output_abort(out);
            rc = ps_fail(err, PS_E_IO, "%s: write error%s%s", name, e ? ": " : "", e ? strerror(e) : "");
        } else {
            rc = ps_output_commit(out, err);
        }
    }
    json_decref(obj);
    return rc;
}
