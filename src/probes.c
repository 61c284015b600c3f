#include "probes.h"

#include "pattern.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <htslib/bgzf.h>

#include "parallel.h"
#include "patset.h"
#include "seqio.h"

/* encode() turns arrays of offsets into arrays of pointers in place. */
_Static_assert(sizeof(size_t) == sizeof(char *), "an offset and a pointer take the same room");

/* A growing block of NUL-terminated strings, back to back. */
typedef struct {
    char *s;
    size_t len, cap;
} text_t;

/* Room for extra more bytes. */
static int text_reserve(text_t *t, size_t extra)
{
    if (extra <= t->cap - t->len) return 0;
    size_t cap = t->cap ? t->cap : 1 << 16;
    while (cap - t->len < extra) {
        if (cap > SIZE_MAX / 2) return -1;
        cap *= 2;
    }
    char *s = realloc(t->s, cap);
    if (!s) return -1;
    t->s = s;
    t->cap = cap;
    return 0;
}

/* Raw probes as read, before the alphabet is known. Names and sequences
 * live in two blocks, not a malloc each (which was most of the time a
 * million probes took to load); the sequences alone in theirs, so that the
 * checks below run over one block. Offsets, not pointers: the blocks move
 * as they grow. */
typedef struct {
    uint32_t n, cap;
    size_t *name_at, *seq_at;
    uint64_t *line;
    uint8_t *limit;     /* per row: its own mismatch limit (a line's third column), or PS_NO_LIMIT */
    int limits;         /* some row has one */
    text_t names, seqs;
    /* A PROSITE file: each row's entry ID, and the entries skipped. */
    int prosite;
    int skip_frequent;  /* --skip-frequent: entries flagged SKIP-FLAG=TRUE are left out */
    size_t *id_at;
    uint32_t *psinfo;   /* per row: PS_PSINFO_* */
    text_t ids;
    uint32_t skipped_matrix, skipped_rule, skipped_frequent;
} raw_t;

static void raw_free(raw_t *r)
{
    free(r->name_at);
    free(r->seq_at);
    free(r->line);
    free(r->limit);
    free(r->names.s);
    free(r->seqs.s);
    free(r->id_at);
    free(r->psinfo);
    free(r->ids.s);
}

/* Sequences follow each other in seqs, so each ends where the next starts. */
static size_t raw_seq_len(const raw_t *r, uint32_t i)
{
    size_t end = i + 1 < r->n ? r->seq_at[i + 1] : r->seqs.len;
    return end - r->seq_at[i] - 1;
}

/* A slot for one more probe. */
static int raw_grow(raw_t *r)
{
    if (r->n < r->cap) return 0;
    if (r->cap > UINT32_MAX / 2) return -1;
    uint32_t cap = r->cap ? r->cap * 2 : 256;
    size_t *na = realloc(r->name_at, cap * sizeof *na);
    if (na) r->name_at = na;
    size_t *sa = realloc(r->seq_at, cap * sizeof *sa);
    if (sa) r->seq_at = sa;
    uint64_t *nl = realloc(r->line, cap * sizeof *nl);
    if (nl) r->line = nl;
    uint8_t *li = realloc(r->limit, cap);
    if (li) r->limit = li;
    if (!na || !sa || !nl || !li) return -1;
    if (r->prosite) {
        size_t *ia = realloc(r->id_at, cap * sizeof *ia);
        if (ia) r->id_at = ia;
        uint32_t *pi = realloc(r->psinfo, cap * sizeof *pi);
        if (pi) r->psinfo = pi;
        if (!ia || !pi) return -1;
    }
    r->cap = cap;
    return 0;
}

/* isspace() of the C locale, the one this program runs in. */
static inline int space_byte(unsigned char c) { return c == ' ' || (unsigned char)(c - '\t') < 5; }

/* Copies the bytes of s that are not whitespace to d; returns how many.
 * Sequences rarely hold any: a scan the compiler vectorises, and memcpy. */
static size_t copy_nonspace(char *d, const char *s, size_t len)
{
    int any = 0;
    for (size_t j = 0; j < len; j++) any |= space_byte((unsigned char)s[j]);
    if (!any) {
        memmove(d, s, len);
        return len;
    }
    size_t o = 0;
    for (size_t j = 0; j < len; j++)
        if (!space_byte((unsigned char)s[j])) d[o++] = s[j];
    return o;
}

/* Appends s[0 .. len) and a NUL to t; the offset where it starts. */
static size_t text_put(text_t *t, const char *s, size_t len)
{
    size_t at = t->len;
    memcpy(t->s + at, s, len);
    t->s[at + len] = '\0';
    t->len += len + 1;
    return at;
}

/* name_at of a probe whose name is its sequence's text: a line of the
 * sequence alone, already as the probe keeps it (no lower-case letter),
 * whose name is then not copied (ten million 31-mers: 320 MB). */
#define NAME_IS_SEQ SIZE_MAX

static const char *raw_name(const raw_t *r, uint32_t i)
{
    return r->name_at[i] == NAME_IS_SEQ ? r->seqs.s + r->seq_at[i] : r->names.s + r->name_at[i];
}

/* A new probe with this name and an empty sequence, which raw_append can
 * extend: it ends seqs. */
static int raw_add(raw_t *r, const char *name, size_t name_len, uint64_t line)
{
    if (raw_grow(r) || name_len == SIZE_MAX || text_reserve(&r->names, name_len + 1) || text_reserve(&r->seqs, 1))
        return -1;
    uint32_t i = r->n++;
    r->name_at[i] = text_put(&r->names, name, name_len);
    r->seq_at[i] = text_put(&r->seqs, "", 0);
    r->line[i] = line;
    r->limit[i] = PS_NO_LIMIT;
    return 0;
}

/* Appends s to the last probe's sequence as it is: drop_spaces() takes out
 * whitespace later, in one pass over all sequences, and only when there is
 * any. */
static int raw_append(raw_t *r, const char *s, size_t len)
{
    if (text_reserve(&r->seqs, len)) return -1;
    /* Write over the sequence's NUL, the last byte of seqs, and end it again. */
    char *d = r->seqs.s + r->seqs.len - 1;
    memcpy(d, s, len);
    d[len] = '\0';
    r->seqs.len += len;
    return 0;
}

/* Takes whitespace out of every sequence. */
static void drop_spaces(raw_t *r)
{
    char *t = r->seqs.s;
    size_t w = 0;
    for (uint32_t i = 0; i < r->n; i++) {
        size_t from = r->seq_at[i], end = i + 1 < r->n ? r->seq_at[i + 1] : r->seqs.len;
        r->seq_at[i] = w;
        w += copy_nonspace(t + w, t + from, end - from - 1);
        t[w++] = '\0';
    }
    r->seqs.len = w;
}

/* A probe named by its own sequence (a line without a tab): the sequence
 * without whitespace, and that as its name. */
static int raw_add_unnamed(raw_t *r, const char *s, size_t len, uint64_t line)
{
    if (raw_grow(r) || len == SIZE_MAX || text_reserve(&r->seqs, len + 1)) return -1;
    uint32_t i = r->n++;
    char *seq = r->seqs.s + r->seqs.len;
    size_t o = copy_nonspace(seq, s, len);
    seq[o] = '\0';
    r->seq_at[i] = r->seqs.len;
    r->seqs.len += o + 1;
    /* Sequences are upper-cased in place later: a name with a lower-case
     * letter keeps its own text, as written. */
    int lower = 0;
    for (size_t q = 0; q < o; q++) lower |= seq[q] >= 'a' && seq[q] <= 'z';
    if (!lower) {
        r->name_at[i] = NAME_IS_SEQ;
    } else {
        if (text_reserve(&r->names, o + 1)) return -1;
        seq = r->seqs.s + r->seq_at[i];
        r->name_at[i] = text_put(&r->names, seq, o);
    }
    r->line[i] = line;
    r->limit[i] = PS_NO_LIMIT;
    return 0;
}

/* The whole probe file in memory, taken a block at a time as htslib
 * inflates it, so that a damaged file fails after the bytes before the
 * damage: those are still parsed, and a bad line among them is reported
 * as one thread reading line by line would report it. */
typedef struct {
    char *buf;
    size_t len, cap;
    int failed;  /* -1: a read error after len bytes; -2: out of memory */
} whole_t;

/* A plain file read by several threads at once (pread), which spreads the
 * copies and the new buffer's page faults too. */
typedef struct {
    int fd;
    char *buf;
    size_t size;
    int bad;
} pread_job_t;

static void pread_part(void *ctx, int part, int parts)
{
    pread_job_t *j = ctx;
    uint64_t at = ps_parallel_share(j->size, part, parts), end = ps_parallel_share(j->size, part + 1, parts);
    while (at < end) {
        ssize_t got = pread(j->fd, j->buf + at, (size_t)(end - at), (off_t)at);
        if (got < 0 && errno == EINTR) continue;
        if (got <= 0) {
            __atomic_store_n(&j->bad, 1, __ATOMIC_RELAXED);
            return;
        }
        at += (uint64_t)got;
    }
}

/* Bytes of plain probe file a thread reads at least. */
#define READ_GRAIN (1u << 20)

static void read_whole(BGZF *fp, const char *path, int threads, whole_t *w)
{
    /* A plain file's size is known: one allocation, no copies as it grows;
     * a large one is read on several threads, past htslib. */
    struct stat st;
    if (!fp->is_compressed && strcmp(path, "-") != 0 && stat(path, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0 &&
        (uint64_t)st.st_size < SIZE_MAX / 2 && (w->buf = malloc((size_t)st.st_size + 1))) {
        w->cap = (size_t)st.st_size + 1;
        int parts = ps_parallel_parts(threads, (uint64_t)st.st_size, READ_GRAIN);
        pread_job_t j = {.fd = parts > 1 ? open(path, O_RDONLY) : -1, .buf = w->buf, .size = (size_t)st.st_size};
        if (j.fd >= 0) {
            ps_parallel_run(parts, pread_part, &j);
            close(j.fd);
            if (!j.bad) {
                w->len = j.size;
                return;
            }
        }
    }
    for (;;) {
        int avail = fp->block_length - fp->block_offset;
        if (avail <= 0) {
            if (bgzf_read_block(fp) != 0) {
                w->failed = -1;
                return;
            }
            if (fp->block_length == 0) return;
            continue;
        }
        if ((size_t)avail > w->cap - w->len) {
            size_t cap = w->cap ? w->cap : 1 << 17;
            while (cap - w->len < (size_t)avail) {
                if (cap > SIZE_MAX / 2) {
                    w->failed = -2;
                    return;
                }
                cap *= 2;
            }
            char *b = realloc(w->buf, cap);
            if (!b) {
                w->failed = -2;
                return;
            }
            w->buf = b;
            w->cap = cap;
        }
        /* Within the current block: a copy, never a read that could fail. */
        if (bgzf_read(fp, w->buf + w->len, (size_t)avail) != avail) {
            w->failed = -1;
            return;
        }
        w->len += (size_t)avail;
    }
}

/* Bytes up to the first space or tab, as strcspn(s, " \t") on a string of n. */
static size_t word_len(const char *s, size_t n)
{
    size_t i = 0;
    while (i < n && s[i] != ' ' && s[i] != '\t') i++;
    return i;
}

/* One entry of a PROSITE file while its lines are read. */
typedef struct {
    char id[96], ac[32];
    char type[16];      /* PATTERN, MATRIX or RULE */
    uint64_t line;      /* of its ID line */
    int added;          /* its PA lines started a row */
    int skip_flag;      /* CC   /SKIP-FLAG=TRUE */
    int dr_true;        /* a DR line lists a true positive (", T;") */
    uint32_t dr_false;  /* the false positives (", F;") its DR lines list */
} entry_t;

/* Copies the field of a PROSITE line s[5..len) up to the first ';' into d. */
static void entry_field(char *d, size_t cap, const char *s, size_t len)
{
    size_t i = 5, o = 0;
    while (i < len && s[i] == ' ') i++;
    while (i < len && s[i] != ';' && o + 1 < cap) d[o++] = s[i++];
    d[o] = '\0';
}

/* A line of a PROSITE data file (prosite.dat): PATTERN entries become rows
 * named by their accession, with the ID kept; MATRIX and RULE entries are
 * counted and skipped. Returns 0, or -1 out of memory. */
static int prosite_line(raw_t *r, entry_t *e, const char *s, size_t len, uint64_t line)
{
    if (len >= 2 && s[0] == '/' && s[1] == '/') {
        if (!strcmp(e->type, "MATRIX")) r->skipped_matrix++;
        else if (!strcmp(e->type, "RULE")) r->skipped_rule++;
        if (e->added && e->skip_flag && r->skip_frequent) {
            /* The entry's row is the last one added: taken back whole. */
            r->n--;
            r->names.len = r->name_at[r->n];
            r->seqs.len = r->seq_at[r->n];
            r->ids.len = r->id_at[r->n];
            r->skipped_frequent++;
        } else if (e->added) {
            r->psinfo[r->n - 1] = (e->skip_flag ? PS_PSINFO_SKIP : 0u) |
                                  (e->dr_true ? PS_PSINFO_FALSEPOS | (e->dr_false & PS_PSINFO_COUNT) : 0u);
        }
        memset(e, 0, sizeof *e);
        return 0;
    }
    /* What ps_scan reads of an entry besides its pattern: the flag of
     * frequent matches, and the false positives its DR lines list. */
    if (len >= 20 && !memcmp(s, "CC   /SKIP-FLAG=TRUE", 20)) e->skip_flag = 1;
    if (len >= 2 && !memcmp(s, "DR", 2))
        for (size_t i = 0; i + 4 <= len; i++) {
            if (!memcmp(s + i, ", T;", 4)) e->dr_true = 1;
            if (!memcmp(s + i, ", F;", 4)) e->dr_false++;
        }
    if (len < 5 || memcmp(s + 2, "   ", 3) != 0) return 0;
    if (!memcmp(s, "ID", 2)) {
        memset(e, 0, sizeof *e);
        entry_field(e->id, sizeof e->id, s, len);
        const char *semi = memchr(s, ';', len);
        if (semi) {
            size_t i = (size_t)(semi - s) + 1, o = 0;
            while (i < len && s[i] == ' ') i++;
            while (i < len && s[i] != '.' && s[i] != ' ' && o + 1 < sizeof e->type) e->type[o++] = s[i++];
        }
        e->line = line;
    } else if (!memcmp(s, "AC", 2)) {
        entry_field(e->ac, sizeof e->ac, s, len);
    } else if (!memcmp(s, "PA", 2) && !strcmp(e->type, "PATTERN")) {
        if (!e->added) {
            const char *name = e->ac[0] ? e->ac : e->id;
            if (raw_add(r, name, strlen(name), e->line) || text_reserve(&r->ids, strlen(e->id) + 1)) return -1;
            r->id_at[r->n - 1] = text_put(&r->ids, e->id, strlen(e->id));
            r->psinfo[r->n - 1] = 0;
            e->added = 1;
        }
        if (raw_append(r, s + 5, len - 5)) return -1;
    }
    return 0;
}

/* The line at buf[at ..): its length without the '\n' or the trailing
 * '\r' and spaces, and where the next one starts. */
static size_t line_at(const char *buf, size_t at, size_t end, size_t *next)
{
    const char *nl = memchr(buf + at, '\n', end - at);
    size_t stop = nl ? (size_t)(nl - buf) : end;
    *next = nl ? stop + 1 : end;
    while (stop > at && (buf[stop - 1] == '\r' || buf[stop - 1] == ' ')) stop--;
    return stop - at;
}

/* Lines of a probe file past its first probe line, in one part of the file
 * (a PROSITE file is one part; FASTA parts start at a '>' line). */
typedef struct {
    raw_t r;
    size_t from, to;    /* buf[from .. to) */
    uint64_t line;      /* the line number at from */
    int rc;
    int header_checked; /* part 0: its first probe line was looked at as a header */
    ps_err_t err;
} part_t;

typedef struct {
    const char *buf, *path;
    int fasta;
    part_t *part;
} parse_job_t;

/* 1 when a line-format probe file's first probe line is a header row
 * (primer sheets usually have one): its sequence column (the second field,
 * or the whole line) holds, as a word of its own, a column title:
 * "sequence", "Seq", "primer_seq", "Forward primer (5'-3')". Words are
 * split at anything but letters, so a probe is never one: SEQVLK is one
 * word that is no title, S-E-Q three that are none. Read as a probe, such
 * a title is a valid peptide, which would turn every probe into protein. */
static int header_row(const char *s, size_t len)
{
    static const char *const titles[] = {"sequence", "seq", "probe", "primer", "pattern", "motif", "guide",
                                         "spacer", "oligo", "oligonucleotide", "target", "kmer", "grna", "sgrna",
                                         "protospacer"};
    const char *tab = memchr(s, '\t', len);
    const char *f = tab ? tab + 1 : s;
    size_t n = tab ? len - (size_t)(f - s) : len;
    const char *end = memchr(f, '\t', n);
    if (end) n = (size_t)(end - f);
    for (size_t i = 0; i < n;) {
        char w[24];
        size_t wl = 0;
        while (i < n && !isalpha((unsigned char)f[i])) i++;
        while (i < n && isalpha((unsigned char)f[i])) {
            if (wl + 1 < sizeof w) w[wl] = (char)tolower((unsigned char)f[i]);
            wl++, i++;
        }
        if (wl < 3 || wl + 1 >= sizeof w) continue;
        if (w[wl - 1] == 's') wl--; /* plurals */
        w[wl] = '\0';
        for (size_t t = 0; t < sizeof titles / sizeof *titles; t++)
            if (!strcmp(w, titles[t])) return 1;
    }
    return 0;
}

static void parse_part(void *ctx, int part, int parts)
{
    (void)parts;
    parse_job_t *j = ctx;
    part_t *pt = &j->part[part];
    raw_t *r = &pt->r;
    const char *buf = j->buf, *path = j->path;
    entry_t entry = {0};
    uint64_t line = pt->line - 1;
    /* Lines are searched for a NUL only where the part holds one. */
    const int nul = pt->to > pt->from && memchr(buf + pt->from, '\0', pt->to - pt->from) != NULL;
    for (size_t at = pt->from, next; at < pt->to; at = next) {
        size_t len = line_at(buf, at, pt->to, &next);
        const char *s = buf + at;
        line++;
        ps_err_t *err = &pt->err;
        if (nul && memchr(s, '\0', len)) {
            pt->rc = ps_fail(err, PS_E_FORMAT, "%s: line %llu: binary data in probe file", path, (unsigned long long)line);
            return;
        }
        int bad = 0;
        if (r->prosite) {
            bad = prosite_line(r, &entry, s, len, line);
        } else if (j->fasta) {
            if (len && s[0] == '>') {
                bad = raw_add(r, s + 1, word_len(s + 1, len - 1), line);
            } else if (len) {
                if (r->n == 0) {
                    pt->rc = ps_fail(err, PS_E_FORMAT, "%s: line %llu: sequence before the first '>' header", path,
                                     (unsigned long long)line);
                    return;
                }
                bad = raw_append(r, s, len);
            }
        } else if (len && s[0] != '#') {
            const char *tab = memchr(s, '\t', len);
            if (part == 0 && r->n == 0 && !pt->header_checked) {
                pt->header_checked = 1;
                if (header_row(s, len)) continue;
            }
            if (tab) {
                /* name<TAB>seq; a further tab ends the sequence, and a
                 * whole number after it is the probe's mismatch limit. */
                const char *seq = tab + 1;
                const char *end = memchr(seq, '\t', len - (size_t)(seq - s));
                size_t seq_len = end ? (size_t)(end - seq) : len - (size_t)(seq - s);
                bad = raw_add(r, s, (size_t)(tab - s), line) || raw_append(r, seq, seq_len);
                if (!bad && end) {
                    const char *f = end + 1, *fe = memchr(f, '\t', len - (size_t)(f - s));
                    size_t fl = fe ? (size_t)(fe - f) : len - (size_t)(f - s);
                    while (fl && (f[fl - 1] == ' ' || f[fl - 1] == '\r')) fl--;
                    while (fl && f[0] == ' ') f++, fl--;
                    /* A number, as Cas-OFFinder's limit column reads one
                     * (blanks around it, a '+'), is the limit; a '-' before
                     * digits is refused (Cas-OFFinder would take -1 as
                     * 65535: every site); other text is a note, passed over. */
                    const int sign = fl > 1 && (f[0] == '+' || f[0] == '-');
                    size_t q = (size_t)sign;
                    unsigned v = 0;
                    for (; q < fl && f[q] >= '0' && f[q] <= '9'; q++)
                        if (v < 1000) v = v * 10 + (unsigned)(f[q] - '0');
                    if (fl && q == fl && f[0] == '-') {
                        pt->rc = ps_fail(err, PS_E_FORMAT, "%s: line %llu: a mismatch limit of '%.*s'; limits are 0 "
                                                           "and up", path, (unsigned long long)line, (int)fl, f);
                        return;
                    }
                    if (fl && q == fl && v > PS_MAX_MM) {
                        pt->rc = ps_fail(err, PS_E_USAGE, "%s: line %llu: probe '%.*s' asks for %u%s mismatches; the "
                                                          "limit is %d", path, (unsigned long long)line,
                                         (int)(tab - s), s, v, v >= 1000 ? " or more" : "", PS_MAX_MM);
                        return;
                    }
                    if (fl && q == fl) {
                        r->limit[r->n - 1] = (uint8_t)(v < PS_NO_LIMIT ? v : PS_NO_LIMIT - 1);
                        r->limits = 1;
                    }
                }
            } else {
                /* The name is the sequence, without surrounding blanks. */
                bad = raw_add_unnamed(r, s, len, line);
            }
        }
        if (bad) {
            pt->rc = ps_fail(err, PS_E_NOMEM, "out of memory reading probes");
            return;
        }
    }
}

static void count_lines(void *ctx, int part, int parts)
{
    (void)parts;
    parse_job_t *j = ctx;
    part_t *pt = &j->part[part];
    uint64_t n = 0;
    for (size_t i = pt->from; i < pt->to; i++) n += j->buf[i] == '\n';
    pt->line = n;
}

/* The parts' probes, back to back in r: r takes the first part's blocks,
 * grown in place to the whole (realloc, which remaps large blocks rather
 * than copying them), and each later part is copied onto their ends and
 * freed before the next, so that the probes are held about once and one
 * part again, not twice. A part is copied on up to `threads` threads, each
 * a share of its probes and of its text. */
typedef struct {
    raw_t *r;
    const raw_t *pr;        /* the part being copied */
    uint32_t first;         /* its first probe in r */
    size_t names, seqs;     /* where its text starts in r's */
} join_job_t;

static void join_share(void *ctx, int part, int parts)
{
    join_job_t *j = ctx;
    raw_t *r = j->r;
    const raw_t *pr = j->pr;
    uint64_t lo = ps_parallel_share(pr->names.len, part, parts), hi = ps_parallel_share(pr->names.len, part + 1, parts);
    /* A part may hold no probe (a long run of comment lines): no text. */
    if (hi > lo) memcpy(r->names.s + j->names + lo, pr->names.s + lo, hi - lo);
    lo = ps_parallel_share(pr->seqs.len, part, parts);
    hi = ps_parallel_share(pr->seqs.len, part + 1, parts);
    if (hi > lo) memcpy(r->seqs.s + j->seqs + lo, pr->seqs.s + lo, hi - lo);
    lo = ps_parallel_share(pr->n, part, parts);
    hi = ps_parallel_share(pr->n, part + 1, parts);
    for (uint64_t i = lo; i < hi; i++) {
        r->name_at[j->first + i] = pr->name_at[i] == NAME_IS_SEQ ? NAME_IS_SEQ : pr->name_at[i] + j->names;
        r->seq_at[j->first + i] = pr->seq_at[i] + j->seqs;
        r->line[j->first + i] = pr->line[i];
        r->limit[j->first + i] = pr->limit[i];
    }
}

/* Probes a thread copies at least while parts are joined. */
#define JOIN_GRAIN 65536

static int join_parts(raw_t *r, part_t *part, int parts, int threads)
{
    uint64_t n = 0;
    size_t nl = 0, sl = 0;
    int limits = 0;
    for (int i = 0; i < parts; i++) {
        n += part[i].r.n;
        limits |= part[i].r.limits;
        nl += part[i].r.names.len;
        sl += part[i].r.seqs.len;
    }
    *r = part[0].r;
    memset(&part[0].r, 0, sizeof part[0].r);
    if (parts == 1) return 0;
    r->limits = limits;
    /* One part alone stops at 2^31 probes (raw_grow): so do the parts together. */
    if (n > (1ull << 31)) return -1;
    size_t *na = realloc(r->name_at, (n ? n : 1) * sizeof *na);
    if (na) r->name_at = na;
    size_t *sa = na ? realloc(r->seq_at, (n ? n : 1) * sizeof *sa) : NULL;
    if (sa) r->seq_at = sa;
    uint64_t *li = sa ? realloc(r->line, (n ? n : 1) * sizeof *li) : NULL;
    if (li) r->line = li;
    uint8_t *lm = li ? realloc(r->limit, n ? n : 1) : NULL;
    if (lm) r->limit = lm;
    char *ns = lm ? realloc(r->names.s, nl ? nl : 1) : NULL;
    if (ns) r->names.s = ns;
    char *ss = ns ? realloc(r->seqs.s, sl ? sl : 1) : NULL;
    if (!ss) return -1; /* r is freed whole by its owner */
    r->seqs.s = ss;
    r->names.cap = nl ? nl : 1;
    r->seqs.cap = sl ? sl : 1;
    r->cap = (uint32_t)(n ? n : 1);
    for (int i = 1; i < parts; i++) {
        raw_t *pr = &part[i].r;
        join_job_t j = {r, pr, r->n, r->names.len, r->seqs.len};
        uint64_t most = pr->n > pr->seqs.len / 16 ? pr->n : pr->seqs.len / 16;
        ps_parallel_run(ps_parallel_parts(threads, most, JOIN_GRAIN), join_share, &j);
        r->n += pr->n;
        r->names.len += pr->names.len;
        r->seqs.len += pr->seqs.len;
        raw_free(pr);
        memset(pr, 0, sizeof *pr);
    }
    return 0;
}

/* Bytes of probe file a thread parses at least. */
#define PARSE_GRAIN (1u << 20)

/* Where a part after the first may start, at or after at: the start of a
 * line, and in FASTA the start of a '>' line. */
static size_t part_start(const char *buf, size_t at, size_t end, int fasta)
{
    if (at >= end) return end;
    if (at == 0) at = 1; /* buf[0] starts a line, but not a later part */
    for (;;) {
        const char *nl = memchr(buf + at - 1, '\n', end - (at - 1));
        if (!nl) return end;
        at = (size_t)(nl - buf) + 1;
        if (!fasta || at >= end || buf[at] == '>') return at;
        at++;
    }
}

static int read_raw(raw_t *r, const char *path, int threads, ps_err_t *err)
{
    BGZF *fp = bgzf_open(path, "r");
    if (!fp)
        return ps_fail(err, PS_E_IO, "%s: cannot open probe file: %s", path,
                       errno ? strerror(errno) : "unknown error");
    whole_t w = {0};
    read_whole(fp, path, threads, &w);
    int closed = bgzf_close(fp);
    if (w.failed == -2) {
        free(w.buf);
        return ps_fail(err, PS_E_NOMEM, "out of memory reading probes");
    }
    const char *buf = w.buf;
    const size_t len = w.len;
    const char *tool, *comp = ps_unread_compression(buf, len, &tool);
    if (comp) {
        free(w.buf);
        return ps_fail(err, PS_E_FORMAT, "%s: a %s-compressed probe file is not read directly (plain or gzip are); "
                                         "decompress it first, e.g. -p <(%s %s)",
                       path, comp, tool, path);
    }

    /* The first probe line (not blank, not a '#' comment) says the format:
     * FASTA, a PROSITE data file or lines. */
    int fasta = 0, prosite = 0, found = 0;
    uint64_t line = 0;
    size_t at = 0, next;
    for (; at < len; at = next) {
        size_t start = at, n = line_at(buf, at, len, &next);
        line++;
        /* A UTF-8 byte-order mark (editors on Windows write one) is not text. */
        if (line == 1 && n >= 3 && !memcmp(buf, "\xef\xbb\xbf", 3)) {
            start += 3;
            n -= 3;
        }
        if (memchr(buf + start, '\0', n)) {
            free(w.buf);
            return ps_fail(err, PS_E_FORMAT, "%s: line %llu: binary data in probe file", path, (unsigned long long)line);
        }
        if (n == 0 || buf[start] == '#') continue;
        fasta = buf[start] == '>';
        prosite = (n >= 5 && !memcmp(buf + start, "ID   ", 5)) ||
                  (n >= 2 && !memcmp(buf + start, "CC", 2) && (n == 2 || buf[start + 2] == ' '));
        at = start;
        found = 1;
        break;
    }
    int parts = found && !prosite ? ps_parallel_parts(threads, len - at, PARSE_GRAIN) : 1;
    part_t *part = calloc((size_t)parts, sizeof *part);
    if (!part) {
        free(w.buf);
        return ps_fail(err, PS_E_NOMEM, "out of memory reading probes");
    }
    parse_job_t job = {buf, path, fasta, part};
    for (int i = 0; i < parts; i++) {
        part[i].r.prosite = prosite;
        part[i].r.skip_frequent = r->skip_frequent;
        part[i].from = i ? part_start(buf, at + (size_t)ps_parallel_share(len - at, i, parts), len, fasta) : at;
        if (i && part[i].from < part[i - 1].from) part[i].from = part[i - 1].from;
    }
    for (int i = 0; i < parts; i++) part[i].to = i + 1 < parts ? part[i + 1].from : len;
    if (parts > 1) ps_parallel_run(parts, count_lines, &job);
    int rc = PS_OK;
    if (found) {
        /* Absolute line numbers: the first part starts at the first probe
         * line, the others after the lines of the parts before them. */
        uint64_t at_line = line;
        for (int i = 0; i < parts; i++) {
            uint64_t lines = part[i].line;
            part[i].line = at_line;
            at_line += lines;
        }
        ps_parallel_run(parts, parse_part, &job);
        for (int i = 0; i < parts && rc == PS_OK; i++)
            if (part[i].rc < 0) {
                rc = part[i].rc;
                *err = part[i].err;
            }
    }
    /* Lines read before a failed read still count, as they were parsed. */
    uint64_t lines_read = 0;
    if (rc == PS_OK && w.failed == -1) {
        for (size_t i = 0; i < len; i++) lines_read += buf[i] == '\n';
        lines_read += len && buf[len - 1] != '\n';
    }
    free(w.buf);
    if (rc == PS_OK) {
        /* A PROSITE file is one part, which moves to r whole. */
        if (join_parts(r, part, parts, threads)) rc = ps_fail(err, PS_E_NOMEM, "out of memory reading probes");
    }
    for (int i = 0; i < parts; i++) raw_free(&part[i].r);
    free(part);
    if (rc == PS_OK && w.failed == -1)
        rc = ps_fail(err, PS_E_IO, "%s: read error or truncated file after line %llu", path,
                     (unsigned long long)lines_read);
    if (rc == PS_OK && closed < 0) rc = ps_fail(err, PS_E_IO, "%s: error closing probe file", path);
    return rc;
}

/* 1 when every byte of text is A, C, G, T or U in either case, or a NUL
 * (the ends of the strings in a text_t); so also when there is no
 * whitespace. Only letters turn into one of those under & 0xDF. The byte is
 * one of them when one of its XORs with them is 0: a minimum, which the
 * compiler vectorises (comparisons it turns into a bit test), so that a
 * million probes are checked in a few milliseconds. */
static int only_acgtu(const char *text, size_t n)
{
    static const unsigned char want[5] = {'A', 'C', 'G', 'T', 'U'};
    const unsigned char *s = (const unsigned char *)text;
    unsigned char bad = 0;
    for (size_t i = 0; i < n; i++) {
        unsigned char u = s[i] & 0xDF, m = s[i];
        for (int w = 0; w < 5; w++) {
            unsigned char x = u ^ want[w];
            m = x < m ? x : m;
        }
        bad |= m;
    }
    return !bad;
}

/* How infer_alphabet sees a byte: one of A C G T U, a degenerate IUPAC code
 * (more than one base), or anything else (0). */
enum { CLS_ACGTU = 1, CLS_IUPAC = 2 };

/* The degenerate IUPAC codes, either case. */
static const char iupac_codes[] = "RYSWKMBDHVNryswkmbdhvn";

/* -a auto: protein when any probe is in PROSITE syntax (PROSITE documents
 * protein motifs, and most such motifs, G-x-G-x(2)-G say, are spelt in
 * letters that are IUPAC codes too: read as DNA they would silently find
 * nothing in proteins; a DNA pattern takes -a dna). Else DNA when every
 * probe looks like DNA, that is when all its letters are A, C, G, T, U or
 * IUPAC codes and at least half of them A, C, G, T, U or N (a degenerate
 * primer; a peptide of those letters alone is rare, and -a protein says
 * so); else protein. A choice the probes do not agree on is described in
 * note, for the user. acgtu: only_acgtu() of all sequences. */
static int infer_alphabet(const raw_t *r, int acgtu, ps_alpha_t *alpha, char *note, size_t note_len)
{
    /* The usual case, at the speed of one pass: nothing but ACGTU, and no
     * probe empty (that one would not look like DNA). */
    uint32_t i = 0;
    while (acgtu && i < r->n && raw_seq_len(r, i) > 0) i++;
    if (acgtu && i == r->n) {
        *alpha = PS_DNA;
        return PS_OK;
    }
    uint8_t cls[256] = {0};
    for (const char *c = "ACGTUacgtu"; *c; c++) cls[(unsigned char)*c] = CLS_ACGTU;
    for (const char *c = iupac_codes; *c; c++) cls[(unsigned char)*c] = CLS_IUPAC;
    uint32_t n_dna = 0, first_dna = UINT32_MAX, first_other = UINT32_MAX, first_prosite = UINT32_MAX;
    for (i = 0; i < r->n; i++) {
        const char *text = r->seqs.s + r->seq_at[i];
        const unsigned char *s = (const unsigned char *)text;
        size_t len = raw_seq_len(r, i), acgt = 0, other = 0;
        if (ps_pattern_is_prosite(text, len)) {
            if (first_prosite == UINT32_MAX) first_prosite = i;
            if (first_other == UINT32_MAX) first_other = i;
            continue;
        }
        for (size_t j = 0; j < len; j++) {
            uint8_t c = cls[s[j]];
            if ((c & CLS_ACGTU) || s[j] == 'N' || s[j] == 'n') acgt++;
            else if (!(c & CLS_IUPAC)) other++;
        }
        if (!other && len && acgt * 2 >= len) {
            n_dna++;
            if (first_dna == UINT32_MAX) first_dna = i;
        } else if (first_other == UINT32_MAX) {
            first_other = i;
        }
    }
    *alpha = n_dna == r->n ? PS_DNA : PS_PROTEIN;
    if (*alpha == PS_PROTEIN && n_dna)
        snprintf(note, note_len,
                 "%u of %u probes look like DNA (such as '%.60s', line %llu) but '%.60s' (line %llu) %s: "
                 "all are counted as protein; give -a dna or -a protein to choose",
                 n_dna, r->n, raw_name(r, first_dna), (unsigned long long)r->line[first_dna],
                 raw_name(r, first_other), (unsigned long long)r->line[first_other],
                 first_other == first_prosite ? "is a PROSITE pattern" : "does not");
    return PS_OK;
}

/* Pattern mode (some probe has a class, or the lengths differ): every probe
 * read into classes, k the longest. PS_OK, or the message for the first
 * probe that is not a pattern of the alphabet. */
static int encode_patterns(ps_probes_t *p, raw_t *r, const char *src, ps_err_t *err)
{
    ps_pattern_t pat;
    char why[160];
    p->len = malloc((size_t)r->n * sizeof *p->len);
    p->anchors = malloc((size_t)r->n);
    if (!p->len || !p->anchors) return ps_fail(err, PS_E_NOMEM, "out of memory");
    uint32_t k = 0;
    for (int pass = 0; pass < 2; pass++) {
        for (uint32_t i = 0; i < r->n; i++) {
            if (ps_pattern_parse(p->alpha, r->seqs.s + r->seq_at[i], raw_seq_len(r, i), &pat, why, sizeof why) < 0)
                return ps_fail(err, PS_E_FORMAT, "%s: line %llu: probe '%s': %s", src,
                               (unsigned long long)r->line[i], raw_name(r, i), why);
            p->len[i] = pat.len;
            p->anchors[i] = pat.anchors;
            if (pat.len > k) k = pat.len;
            if (pass) {
                memcpy(p->cls + (size_t)i * k, pat.cls, pat.len * sizeof *pat.cls);
                memcpy(p->opt + (size_t)i * k, pat.opt, pat.len);
            }
        }
        if (!pass) {
            p->cls = calloc((size_t)r->n * k, sizeof *p->cls);
            p->opt = calloc((size_t)r->n * k, 1);
            if (!p->cls || !p->opt) return ps_fail(err, PS_E_NOMEM, "out of memory for %u patterns", r->n);
        }
    }
    p->k = (int)k;
    p->patterns = 1;
    return PS_OK;
}

/* 1 when probe i must be read as a pattern: PROSITE syntax, or a DNA
 * letter that is an IUPAC code. */
static int needs_pattern(const raw_t *r, uint32_t i, ps_alpha_t alpha)
{
    const char *s = r->seqs.s + r->seq_at[i];
    size_t len = raw_seq_len(r, i);
    if (ps_pattern_is_prosite(s, len)) return 1;
    if (alpha != PS_DNA) return 0;
    for (size_t j = 0; j < len; j++)
        if (s[j] && strchr(iupac_codes, s[j])) return 1;
    return 0;
}

/* Codes and upper-cases probe i's k letters; PS_OK, or the message for the
 * first letter outside the alphabet. */
static int encode_probe(raw_t *r, uint32_t i, size_t k, ps_alpha_t alpha, const uint8_t *tab,
                        uint8_t *code, const char *src, ps_err_t *err)
{
    unsigned char *s = (unsigned char *)r->seqs.s + r->seq_at[i];
    const uint8_t sigma = (uint8_t)ps_alpha_sigma(alpha);
    for (size_t j = 0; j < k; j++) {
        unsigned char ch = s[j];
        uint8_t c = tab[ch];
        if (c >= sigma) {
            const char *name = raw_name(r, i);
            if (isprint(ch))
                return ps_fail(err, PS_E_FORMAT, "%s: line %llu: probe '%s' has '%c', not a %s letter%s", src,
                               (unsigned long long)r->line[i], name, ch, ps_alpha_name(alpha),
                               alpha == PS_DNA ? " (A, C, G, T or U)" : "");
            return ps_fail(err, PS_E_FORMAT, "%s: line %llu: probe '%s' has byte 0x%02x, not a %s letter", src,
                           (unsigned long long)r->line[i], name, ch, ps_alpha_name(alpha));
        }
        code[j] = c;
        s[j] = (unsigned char)toupper(ch);
    }
    return PS_OK;
}

/* The same for DNA known to be only ACGTU, without a table, so that the
 * compiler vectorises it: A C G T U (any case) are 0 1 2 3 3 in the low
 * bits of (c >> 1) ^ (c >> 2), and & 0xDF upper-cases a letter. The
 * letters pass through a local copy: written in place, they might alias
 * code, which would keep the compiler to a byte at a time. */
static void encode_acgtu16(unsigned char *s, uint8_t *code)
{
    unsigned char v[16], c[16];
    memcpy(v, s, 16);
    for (int j = 0; j < 16; j++) {
        c[j] = (uint8_t)(((v[j] >> 1) ^ (v[j] >> 2)) & 3);
        v[j] &= 0xDF;
    }
    memcpy(s, v, 16);
    memcpy(code, c, 16);
}

static void encode_acgtu(char *seq, size_t k, uint8_t *code)
{
    unsigned char *s = (unsigned char *)seq;
    if (k < 16) {
        for (size_t j = 0; j < k; j++) {
            code[j] = (uint8_t)(((s[j] >> 1) ^ (s[j] >> 2)) & 3);
            s[j] &= 0xDF;
        }
        return;
    }
    /* Whole vectors; the last one overlaps the one before it rather than
     * leaving a tail byte by byte (coding a letter twice changes nothing). */
    size_t j = 0;
    for (; j + 16 <= k; j += 16) encode_acgtu16(s + j, code + j);
    if (j < k) encode_acgtu16(s + k - 16, code + k - 16);
}

/* Probes are coded on several threads, each a share of them; the first
 * probe of a share that is not of the alphabet is kept with its message, and
 * the message of the first such probe overall is the one returned, as one
 * thread would. */
typedef struct {
    raw_t *r;
    ps_probes_t *p;
    const char *src;
    int acgtu;
    const uint8_t *tab;
    struct {
        uint32_t bad;  /* the first probe that failed; UINT32_MAX when none did */
        int rc;
        ps_err_t err;
        int same_names; /* every name of the part is its sequence */
    } *part;
} encode_job_t;

static void encode_share(void *ctx, int part, int parts)
{
    encode_job_t *j = ctx;
    ps_probes_t *p = j->p;
    const size_t k = (size_t)p->k;
    uint32_t lo = (uint32_t)ps_parallel_share(p->n, part, parts), hi = (uint32_t)ps_parallel_share(p->n, part + 1, parts);
    j->part[part].bad = UINT32_MAX;
    for (uint32_t i = lo; i < hi; i++) {
        uint8_t *code = p->code + (size_t)i * k;
        if (p->alpha == PS_DNA && j->acgtu) {
            encode_acgtu(j->r->seqs.s + j->r->seq_at[i], k, code);
        } else {
            int rc = encode_probe(j->r, i, k, p->alpha, j->tab, code, j->src, &j->part[part].err);
            if (rc < 0) {
                j->part[part].bad = i;
                j->part[part].rc = rc;
                return;
            }
        }
    }
}

/* name_at and seq_at become p->name and p->seq where they are: each offset
 * is read and its slot then written as a pointer of the same size
 * (allocated memory takes the type it is written with). A million probes
 * are spared 16 MB of fresh pages, a large part of their time. */
static void pointers_share(void *ctx, int part, int parts)
{
    encode_job_t *j = ctx;
    raw_t *r = j->r;
    ps_probes_t *p = j->p;
    uint32_t lo = (uint32_t)ps_parallel_share(r->n, part, parts), hi = (uint32_t)ps_parallel_share(r->n, part + 1, parts);
    char **name = (char **)(void *)r->name_at, **seq = (char **)(void *)r->seq_at;
    for (uint32_t i = lo; i < hi; i++) {
        const size_t at = r->name_at[i], sat = r->seq_at[i];
        name[i] = at == NAME_IS_SEQ ? p->seq_text + sat : p->name_text + at;
        seq[i] = p->seq_text + sat;
    }
    if (r->prosite) {
        char **id = (char **)(void *)r->id_at;
        for (uint32_t i = lo; i < hi; i++) {
            size_t at = r->id_at[i];
            id[i] = p->id_text + at;
        }
    }
}

/* Whether every name of the part is its probe's sequence, letter for letter. */
static void same_names_share(void *ctx, int part, int parts)
{
    encode_job_t *j = ctx;
    const ps_probes_t *p = j->p;
    const uint32_t lo = (uint32_t)ps_parallel_share(p->n, part, parts),
                   hi = (uint32_t)ps_parallel_share(p->n, part + 1, parts);
    int same = 1;
    for (uint32_t i = lo; i < hi && same; i++) same = strcmp(p->name[i], p->seq[i]) == 0;
    j->part[part].same_names = same;
}

/* Probes a thread codes at least. */
#define ENCODE_GRAIN 32768

/* What one share of the probes looked like before coding. */
typedef struct {
    int acgtu;             /* only A, C, G, T, U (no whitespace either) */
    int differ;            /* a length other than the first probe's */
    uint32_t first_empty;  /* UINT32_MAX: none */
    uint32_t first_long;   /* longer than PS_MAX_K; UINT32_MAX: none */
} survey_t;

typedef struct {
    const raw_t *r;
    survey_t *sv;
} survey_job_t;

static void survey_share(void *ctx, int part, int parts)
{
    survey_job_t *j = ctx;
    const raw_t *r = j->r;
    uint32_t lo = (uint32_t)ps_parallel_share(r->n, part, parts), hi = (uint32_t)ps_parallel_share(r->n, part + 1, parts);
    survey_t *sv = &j->sv[part];
    *sv = (survey_t){.first_empty = UINT32_MAX, .first_long = UINT32_MAX};
    size_t from = r->seq_at[lo], to = hi < r->n ? r->seq_at[hi] : r->seqs.len;
    sv->acgtu = only_acgtu(r->seqs.s + from, to - from);
    const size_t k = raw_seq_len(r, 0);
    for (uint32_t i = lo; i < hi; i++) {
        size_t len = raw_seq_len(r, i);
        sv->differ |= len != k;
        if (len == 0 && sv->first_empty == UINT32_MAX) sv->first_empty = i;
        if (len > PS_MAX_K && sv->first_long == UINT32_MAX) sv->first_long = i;
    }
}

/* Encodes the raw set, checking alphabet and lengths; on success its
 * names and sequences move to *out. */
static int encode(ps_probes_t **out, raw_t *r, const char *path, ps_alpha_req_t req, int threads, ps_err_t *err)
{
    const char *src = path ? path : "probes";
    if (r->n == 0 && r->prosite && r->skipped_frequent) {
        /* --skip-frequent left out every pattern: nothing to match, and no
         * error (ps_scan -s writes nothing and succeeds). An empty set of
         * protein PROSITE patterns, each list empty but allocated. */
        ps_probes_t *p = calloc(1, sizeof *p);
        if (!p || !(p->id = calloc(1, sizeof *p->id)) || !(p->name = calloc(1, sizeof *p->name)) ||
            !(p->seq = calloc(1, sizeof *p->seq))) {
            ps_probes_free(p);
            return ps_fail(err, PS_E_NOMEM, "out of memory");
        }
        p->alpha = PS_PROTEIN;
        p->patterns = 1;
        p->skipped_matrix = r->skipped_matrix;
        p->skipped_rule = r->skipped_rule;
        p->skipped_frequent = r->skipped_frequent;
        *out = p;
        return PS_OK;
    }
    if (r->n == 0 && r->prosite)
        return ps_fail(err, PS_E_FORMAT,
                       "%s: no PATTERN entries and no MATRIX entry that could be read (%u MATRIX, %u RULE "
                       "entries)",
                       src, r->skipped_matrix, r->skipped_rule);
    if (r->n == 0) return ps_fail(err, PS_E_FORMAT, "%s: no probes found (empty probe file?)", src);

    /* One pass over the probes on the threads: their letters, and the
     * first empty, over-long or differently long one in each share. */
    const int parts = ps_parallel_parts(threads, r->n, ENCODE_GRAIN);
    survey_t *sv = calloc((size_t)parts, sizeof *sv);
    if (!sv) return ps_fail(err, PS_E_NOMEM, "out of memory");
    survey_job_t sj = {r, sv};
    ps_parallel_run(parts, survey_share, &sj);
    int acgtu = 1, differ = 0;
    uint32_t first_empty = UINT32_MAX, first_long = UINT32_MAX;
    for (int i = 0; i < parts; i++) {
        acgtu &= sv[i].acgtu;
        differ |= sv[i].differ;
        if (first_empty == UINT32_MAX) first_empty = sv[i].first_empty;
        if (first_long == UINT32_MAX) first_long = sv[i].first_long;
    }
    free(sv);
    /* Exact probes of one length in A, C, G, T, U alone: the survey is
     * all that is needed, and it stays true (no whitespace to take out). */
    const int plain = acgtu && !differ;
    if (!acgtu) {
        drop_spaces(r);
        acgtu = only_acgtu(r->seqs.s, r->seqs.len);
    }
    ps_alpha_t alpha;
    int inferred = 0;
    char note[PS_NOTE_MAX] = "";
    if (req == PS_ALPHA_AUTO && r->prosite) {
        alpha = PS_PROTEIN; /* PROSITE documents protein motifs */
    } else if (req == PS_ALPHA_AUTO) {
        inferred = 1;
        if (plain && first_empty == UINT32_MAX) alpha = PS_DNA; /* what infer_alphabet would say */
        else infer_alphabet(r, acgtu, &alpha, note, sizeof note);
    } else {
        alpha = (ps_alpha_t)req;
    }

    size_t k = raw_seq_len(r, 0);
    int patterns = 0;
    if (!plain) {
        /* Spaces taken out, or lengths that differ: look again. */
        first_empty = first_long = UINT32_MAX;
        for (uint32_t i = 0; i < r->n; i++) {
            size_t len = raw_seq_len(r, i);
            if (len == 0 && first_empty == UINT32_MAX) first_empty = i;
            if (len > PS_MAX_K && first_long == UINT32_MAX) first_long = i;
        }
        for (uint32_t i = 0; i < r->n && !patterns; i++)
            patterns = raw_seq_len(r, i) != k || (!acgtu && needs_pattern(r, i, alpha));
    }
    /* The first probe that is empty, or too long for exact probes. */
    uint32_t bad = first_empty;
    if (!patterns && first_long < bad) bad = first_long;
    if (bad != UINT32_MAX) {
        size_t len = raw_seq_len(r, bad);
        const char *name = raw_name(r, bad);
        if (len == 0)
            return ps_fail(err, PS_E_FORMAT, "%s: line %llu: probe '%s' is empty", src,
                           (unsigned long long)r->line[bad], name);
        return ps_fail(err, PS_E_FORMAT, "%s: line %llu: probe '%s' is %zu long; the limit is %d", src,
                       (unsigned long long)r->line[bad], name, len, PS_MAX_K);
    }

    ps_probes_t *p = calloc(1, sizeof *p);
    if (!p) return ps_fail(err, PS_E_NOMEM, "out of memory");
    p->n = r->n;
    p->k = (int)k;
    p->alpha = alpha;
    p->alpha_auto = inferred;
    snprintf(p->alpha_note, sizeof p->alpha_note, "%s", note);
    if (patterns) {
        int rc = encode_patterns(p, r, src, err);
        if (rc < 0) {
            ps_probes_free(p);
            return rc;
        }
    } else if (!(p->code = malloc((size_t)r->n * k))) {
        ps_probes_free(p);
        return ps_fail(err, PS_E_NOMEM, "out of memory for %u probes", r->n);
    }
    uint8_t tab[256];
    ps_alpha_table(alpha, tab);
    encode_job_t job = {.r = r, .p = p, .src = src, .acgtu = acgtu, .tab = tab};
    if (!(job.part = calloc((size_t)parts, sizeof *job.part))) {
        ps_probes_free(p);
        return ps_fail(err, PS_E_NOMEM, "out of memory");
    }
    if (!patterns) {
        ps_parallel_run(parts, encode_share, &job);
        for (int i = 0; i < parts; i++)
            if (job.part[i].bad != UINT32_MAX) {
                int rc = job.part[i].rc;
                *err = job.part[i].err;
                free(job.part);
                ps_probes_free(p);
                return rc;
            }
    }
    /* The text moves to p, given back the room it had to grow (large
     * blocks shrink in place). */
    char *t = r->names.len ? realloc(r->names.s, r->names.len) : NULL;
    p->name_text = t ? t : r->names.s;
    t = realloc(r->seqs.s, r->seqs.len);
    p->seq_text = t ? t : r->seqs.s;
    r->names.s = r->seqs.s = NULL;
    if (r->prosite) {
        p->id_text = r->ids.s;
        r->ids.s = NULL;
    }
    ps_parallel_run(parts, pointers_share, &job);
    p->name = (char **)(void *)r->name_at;
    p->seq = (char **)(void *)r->seq_at;
    /* Names that are their sequences (a file of sequences alone) point at
     * the sequences' text: ten million 31-mers hold 320 MB less. */
    if (!r->prosite && !patterns) {
        ps_parallel_run(parts, same_names_share, &job);
        int same = 1;
        for (int i = 0; i < parts; i++) same &= job.part[i].same_names;
        if (same) {
            free(p->name);
            p->name = p->seq;
            free(p->name_text);
            p->name_text = NULL;
        }
    }
    free(job.part);
    if (r->prosite) {
        p->skipped_matrix = r->skipped_matrix;
        p->skipped_rule = r->skipped_rule;
        p->skipped_frequent = r->skipped_frequent;
        p->id = (char **)(void *)r->id_at;
        p->psinfo = r->psinfo;
        r->id_at = NULL;
        r->psinfo = NULL;
    }
    r->name_at = r->seq_at = NULL;
    if (r->limits) {
        p->limit = r->limit;
        r->limit = NULL;
    }
    *out = p;
    return PS_OK;
}

int ps_probes_load(ps_probes_t **out, const char *path, ps_alpha_req_t req, int threads, ps_err_t *err)
{
    return ps_probes_load_flags(out, path, req, threads, 0, err);
}

int ps_probes_load_flags(ps_probes_t **out, const char *path, ps_alpha_req_t req, int threads, int flags,
                         ps_err_t *err)
{
    raw_t r = {0};
    r.skip_frequent = (flags & PS_LOAD_SKIP_FREQUENT) != 0;
    *out = NULL;
    int rc = read_raw(&r, path, threads, err);
    if (rc == PS_OK) rc = encode(out, &r, path, req, threads, err);
    raw_free(&r);
    return rc;
}

int ps_probes_from_strings(ps_probes_t **out, uint32_t n, const char *const *seqs,
                           const char *const *names, ps_alpha_req_t req, ps_err_t *err)
{
    raw_t r = {0};
    *out = NULL;
    int rc = PS_OK;
    for (uint32_t i = 0; i < n && rc == PS_OK; i++) {
        const char *name = names ? names[i] : seqs[i];
        if (raw_add(&r, name, strlen(name), i + 1) || raw_append(&r, seqs[i], strlen(seqs[i])))
            rc = ps_fail(err, PS_E_NOMEM, "out of memory");
    }
    if (rc == PS_OK) rc = encode(out, &r, NULL, req, 1, err);
    raw_free(&r);
    return rc;
}

void ps_probes_free(ps_probes_t *p)
{
    if (!p) return;
    if (p->name != p->seq) free(p->name);
    free(p->seq);
    free(p->name_text);
    free(p->seq_text);
    free(p->code);
    free(p->len);
    free(p->cls);
    free(p->opt);
    free(p->anchors);
    free(p->id);
    free(p->psinfo);
    free(p->id_text);
    free(p->limit);
    free(p->fixed);
    free(p->query);
    free(p->query_text);
    free(p);
}

void ps_probes_drop_codes(ps_probes_t *p)
{
    if (p->patterns) return;
    free(p->code);
    p->code = NULL;
}

void ps_probes_warn(const ps_probes_t *p, const char *path)
{
    if (p->alpha_note[0]) fprintf(stderr, "probescan: warning: %s: %s\n", path, p->alpha_note);
    if (p->id && (p->skipped_matrix || p->skipped_rule))
        fprintf(stderr, "probescan: %s: %u PROSITE patterns; %u MATRIX entries (profiles, scored apart) and %u RULE entries not patterns\n",
                path, p->n, p->skipped_matrix, p->skipped_rule);
    if (p->skipped_frequent)
        fprintf(stderr, "probescan: %s: --skip-frequent: %u patterns flagged SKIP-FLAG=TRUE left out\n", path,
                p->skipped_frequent);
}
