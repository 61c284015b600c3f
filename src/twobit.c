#include "twobit.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define MAGIC 0x1A412743u
#define PACKED_BUF (1u << 20) /* packed bytes read at a time: 4 Mbases */

struct ps_twobit {
    FILE *f;
    char *path;
    uint64_t file_size;
    int swap;                 /* written in the other byte order */
    uint32_t n_seq, cur;      /* sequences; the one being handed out */
    char **name;
    uint64_t *off;            /* each sequence's record */
    /* The current sequence. */
    int state;                /* 0: its header, 1: its bases, 2: its line end, 3: the next one */
    char hdr[264];
    size_t hdr_len, hdr_off;
    uint64_t size, pos;       /* bases, bases handed out */
    uint64_t dna_at;          /* where its packed bases start in the file */
    uint32_t n_nb, nb;        /* N runs, and the first that may still lie ahead */
    uint32_t *n_start, *n_size;
    unsigned char *packed;    /* packed bytes [packed_from, packed_from + packed_len) of its bases */
    uint64_t packed_from, packed_len;
    uint64_t consumed;
};

int ps_twobit_magic(const unsigned char *b, size_t n)
{
    if (n < 4) return 0;
    const uint32_t le = (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
    return le == MAGIC || le == __builtin_bswap32(MAGIC);
}

static int bad(ps_twobit_t *t, ps_err_t *err, const char *what)
{
    return ps_fail(err, PS_E_FORMAT, "%s: not a valid 2bit file: %s", t->path, what);
}

/* A 32-bit word of the file, in its byte order; -1 at a short read. */
static int get32(ps_twobit_t *t, uint32_t *v)
{
    unsigned char b[4];
    if (fread(b, 1, 4, t->f) != 4) return -1;
    uint32_t x = (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
    *v = t->swap ? __builtin_bswap32(x) : x;
    return 0;
}

static int get64(ps_twobit_t *t, uint64_t *v)
{
    uint32_t a, b;
    if (get32(t, &a) || get32(t, &b)) return -1;
    *v = t->swap ? (uint64_t)a << 32 | b : (uint64_t)b << 32 | a;
    return 0;
}

void ps_twobit_close(ps_twobit_t *t)
{
    if (!t) return;
    if (t->f) fclose(t->f);
    for (uint32_t i = 0; t->name && i < t->n_seq; i++) free(t->name[i]);
    free(t->name);
    free(t->off);
    free(t->n_start);
    free(t->n_size);
    free(t->packed);
    free(t->path);
    free(t);
}

int ps_twobit_open(ps_twobit_t **out, const char *path, ps_err_t *err)
{
    *out = NULL;
    ps_twobit_t *t = calloc(1, sizeof *t);
    if (!t || !(t->path = strdup(path)) || !(t->packed = malloc(PACKED_BUF))) {
        ps_twobit_close(t);
        return ps_fail(err, PS_E_NOMEM, "out of memory");
    }
    struct stat sb;
    if (!(t->f = fopen(path, "rb")) || fstat(fileno(t->f), &sb) != 0) {
        int e = errno;
        ps_twobit_close(t);
        return ps_fail(err, PS_E_IO, "%s: cannot open: %s", path, strerror(e));
    }
    if (!S_ISREG(sb.st_mode)) {
        ps_twobit_close(t);
        return ps_fail(err, PS_E_USAGE, "%s: a 2bit file is read from a regular file (it is read by offsets)", path);
    }
    t->file_size = (uint64_t)sb.st_size;
    unsigned char m[4];
    uint32_t version = 0, reserved;
    int rc = PS_OK;
    if (fread(m, 1, 4, t->f) != 4 || !ps_twobit_magic(m, 4)) {
        rc = bad(t, err, "no 2bit magic number");
        goto fail;
    }
    t->swap = ((uint32_t)m[0] | (uint32_t)m[1] << 8 | (uint32_t)m[2] << 16 | (uint32_t)m[3] << 24) != MAGIC;
    if (get32(t, &version) || get32(t, &t->n_seq) || get32(t, &reserved)) {
        rc = bad(t, err, "its header is cut short");
        goto fail;
    }
    if (version > 1) {
        rc = ps_fail(err, PS_E_FORMAT, "%s: 2bit version %u (probescan reads versions 0 and 1)", path, version);
        goto fail;
    }
    /* Each index entry takes 5 bytes at least. */
    if ((uint64_t)t->n_seq * 5 > t->file_size) {
        rc = bad(t, err, "more sequences than the file could hold");
        goto fail;
    }
    t->name = calloc(t->n_seq ? t->n_seq : 1, sizeof *t->name);
    t->off = malloc((t->n_seq ? t->n_seq : 1) * sizeof *t->off);
    if (!t->name || !t->off) {
        rc = ps_fail(err, PS_E_NOMEM, "out of memory for the index of %s", path);
        goto fail;
    }
    for (uint32_t i = 0; i < t->n_seq; i++) {
        int len = fgetc(t->f);
        char nm[256];
        uint32_t o32;
        if (len == EOF || fread(nm, 1, (size_t)len, t->f) != (size_t)len ||
            (version == 0 ? get32(t, &o32) : get64(t, &t->off[i]))) {
            rc = bad(t, err, "its index is cut short");
            goto fail;
        }
        if (version == 0) t->off[i] = o32;
        nm[len] = '\0';
        if (len == 0 || memchr(nm, '\0', (size_t)len) || strpbrk(nm, " \t\n\r")) {
            rc = bad(t, err, "a sequence name that is empty or holds a blank");
            goto fail;
        }
        if (!(t->name[i] = strdup(nm))) {
            rc = ps_fail(err, PS_E_NOMEM, "out of memory for the index of %s", path);
            goto fail;
        }
        if (t->off[i] >= t->file_size) {
            rc = bad(t, err, "a sequence's offset past the end of the file");
            goto fail;
        }
    }
    t->state = 3;
    t->cur = 0;
    *out = t;
    return PS_OK;
fail:
    ps_twobit_close(t);
    return rc;
}

static int by_start(const void *a, const void *b)
{
    const uint32_t *x = a, *y = b;
    return (x[0] > y[0]) - (x[0] < y[0]);
}

/* Reads sequence t->cur's record: its size, N runs and where its bases are. */
static int start_sequence(ps_twobit_t *t, ps_err_t *err)
{
    uint32_t size, n_nb, n_mask, reserved;
    if (fseeko(t->f, (off_t)t->off[t->cur], SEEK_SET) != 0 || get32(t, &size) || get32(t, &n_nb))
        return bad(t, err, "a sequence's record is cut short");
    if ((uint64_t)n_nb * 8 > t->file_size) return bad(t, err, "more N runs than the file could hold");
    uint32_t *pairs = malloc(((size_t)n_nb * 2 + 2) * sizeof *pairs);
    uint32_t *st = realloc(t->n_start, ((size_t)n_nb + 1) * sizeof *st);
    if (st) t->n_start = st;
    uint32_t *sz = realloc(t->n_size, ((size_t)n_nb + 1) * sizeof *sz);
    if (sz) t->n_size = sz;
    if (!pairs || !st || !sz) {
        free(pairs);
        return ps_fail(err, PS_E_NOMEM, "out of memory for the N runs of %s", t->name[t->cur]);
    }
    int rc = PS_OK;
    for (uint32_t i = 0; i < n_nb && rc == PS_OK; i++)
        if (get32(t, &pairs[2 * i])) rc = bad(t, err, "N runs cut short");
    for (uint32_t i = 0; i < n_nb && rc == PS_OK; i++)
        if (get32(t, &pairs[2 * i + 1])) rc = bad(t, err, "N runs cut short");
    for (uint32_t i = 0; i < n_nb && rc == PS_OK; i++)
        if ((uint64_t)pairs[2 * i] + pairs[2 * i + 1] > size) rc = bad(t, err, "an N run past its sequence's end");
    /* The soft mask is skipped: matching ignores case. */
    if (rc == PS_OK && (get32(t, &n_mask) || (uint64_t)n_mask * 8 > t->file_size ||
                        fseeko(t->f, (off_t)n_mask * 8, SEEK_CUR) != 0 || get32(t, &reserved)))
        rc = bad(t, err, "a sequence's record is cut short");
    if (rc == PS_OK) {
        qsort(pairs, n_nb, 2 * sizeof *pairs, by_start);
        for (uint32_t i = 0; i < n_nb; i++) {
            t->n_start[i] = pairs[2 * i];
            t->n_size[i] = pairs[2 * i + 1];
        }
        off_t at = ftello(t->f);
        if (at < 0 || (uint64_t)at + ((uint64_t)size + 3) / 4 > t->file_size)
            rc = bad(t, err, "a sequence's bases run past the end of the file");
        else t->dna_at = (uint64_t)at;
    }
    free(pairs);
    if (rc < 0) return rc;
    t->size = size;
    t->pos = 0;
    t->n_nb = n_nb;
    t->nb = 0;
    t->packed_len = 0;
    t->packed_from = 0;
    int n = snprintf(t->hdr, sizeof t->hdr, ">%s\n", t->name[t->cur]);
    t->hdr_len = (size_t)n;
    t->hdr_off = 0;
    t->state = 0;
    return PS_OK;
}

/* Up to n bases from t->pos into d, as letters with the N runs written in. */
static int bases(ps_twobit_t *t, unsigned char *d, uint64_t n, ps_err_t *err)
{
    static const char letter[4] = {'T', 'C', 'A', 'G'};
    for (uint64_t done = 0; done < n;) {
        const uint64_t p = t->pos + done, byte = p / 4;
        if (byte < t->packed_from || byte >= t->packed_from + t->packed_len) {
            const uint64_t total = (t->size + 3) / 4, want = total - byte < PACKED_BUF ? total - byte : PACKED_BUF;
            if (fseeko(t->f, (off_t)(t->dna_at + byte), SEEK_SET) != 0 || fread(t->packed, 1, want, t->f) != want)
                return ps_fail(err, PS_E_IO, "%s: read error in the bases of %s", t->path, t->name[t->cur]);
            t->packed_from = byte;
            t->packed_len = want;
            t->consumed = t->dna_at + byte + want;
        }
        /* The bases this buffer holds from p on. */
        const uint64_t last = (t->packed_from + t->packed_len) * 4;
        const uint64_t k = (last - p < n - done ? last - p : n - done);
        for (uint64_t i = 0; i < k; i++) {
            const uint64_t q = p + i;
            d[done + i] = (unsigned char)letter[t->packed[q / 4 - t->packed_from] >> (6 - 2 * (q % 4)) & 3];
        }
        done += k;
    }
    /* N runs over [pos, pos + n). */
    const uint64_t a = t->pos, b = t->pos + n;
    while (t->nb < t->n_nb && (uint64_t)t->n_start[t->nb] + t->n_size[t->nb] <= a) t->nb++;
    for (uint32_t i = t->nb; i < t->n_nb && t->n_start[i] < b; i++) {
        const uint64_t s = t->n_start[i] > a ? t->n_start[i] : a;
        const uint64_t e = (uint64_t)t->n_start[i] + t->n_size[i] < b ? (uint64_t)t->n_start[i] + t->n_size[i] : b;
        if (s < e) memset(d + (s - a), 'N', e - s);
    }
    return PS_OK;
}

ssize_t ps_twobit_read(ps_twobit_t *t, unsigned char *dst, size_t len, ps_err_t *err)
{
    size_t have = 0;
    while (have < len) {
        if (t->state == 3) {
            if (t->cur == t->n_seq) {
                t->consumed = t->file_size; /* every sequence handed out */
                break;
            }
            int rc = start_sequence(t, err);
            if (rc < 0) return rc;
        }
        if (t->state == 0) {
            size_t k = t->hdr_len - t->hdr_off < len - have ? t->hdr_len - t->hdr_off : len - have;
            memcpy(dst + have, t->hdr + t->hdr_off, k);
            t->hdr_off += k;
            have += k;
            if (t->hdr_off == t->hdr_len) t->state = 1;
        } else if (t->state == 1) {
            uint64_t k = t->size - t->pos < len - have ? t->size - t->pos : len - have;
            int rc = bases(t, dst + have, k, err);
            if (rc < 0) return rc;
            t->pos += k;
            have += (size_t)k;
            if (t->pos == t->size) t->state = 2;
        } else {
            dst[have++] = '\n';
            t->state = 3;
            t->cur++;
        }
    }
    return (ssize_t)have;
}

uint64_t ps_twobit_consumed(const ps_twobit_t *t) { return t->consumed; }
