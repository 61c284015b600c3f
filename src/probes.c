#include "probes.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <htslib/bgzf.h>
#include <htslib/kstring.h>

/* Raw probes as read, before the alphabet is known. */
typedef struct {
    uint32_t n, cap;
    char **name, **seq;
    uint64_t *line;
} raw_t;

static void raw_free(raw_t *r)
{
    for (uint32_t i = 0; i < r->n; i++) {
        free(r->name[i]);
        free(r->seq[i]);
    }
    free(r->name);
    free(r->seq);
    free(r->line);
}

static int raw_add(raw_t *r, const char *name, size_t name_len, uint64_t line)
{
    if (r->n == r->cap) {
        uint32_t cap = r->cap ? r->cap * 2 : 256;
        char **nn = realloc(r->name, cap * sizeof *nn);
        if (nn) r->name = nn;
        char **ns = realloc(r->seq, cap * sizeof *ns);
        if (ns) r->seq = ns;
        uint64_t *nl = realloc(r->line, cap * sizeof *nl);
        if (nl) r->line = nl;
        if (!nn || !ns || !nl) return -1;
        r->cap = cap;
    }
    r->name[r->n] = strndup(name, name_len);
    r->seq[r->n] = strdup("");
    r->line[r->n] = line;
    if (!r->name[r->n] || !r->seq[r->n]) {
        free(r->name[r->n]);
        free(r->seq[r->n]);
        return -1;
    }
    r->n++;
    return 0;
}

/* Appends the non-whitespace bytes of s to probe i. */
static int raw_append(raw_t *r, uint32_t i, const char *s, size_t len)
{
    size_t old = strlen(r->seq[i]);
    char *p = realloc(r->seq[i], old + len + 1);
    if (!p) return -1;
    size_t o = old;
    for (size_t j = 0; j < len; j++)
        if (!isspace((unsigned char)s[j])) p[o++] = s[j];
    p[o] = '\0';
    r->seq[i] = p;
    return 0;
}

static int read_raw(raw_t *r, const char *path, ps_err_t *err)
{
    BGZF *fp = bgzf_open(path, "r");
    if (!fp)
        return ps_fail(err, PS_E_IO, "%s: cannot open probe file: %s", path,
                       errno ? strerror(errno) : "unknown error");
    kstring_t ks = {0, 0, NULL};
    int fasta = -1, rc = PS_OK, got;
    uint64_t line = 0;
    while ((got = bgzf_getline(fp, '\n', &ks)) >= 0) {
        line++;
        /* A UTF-8 byte-order mark (editors on Windows write one) is not text. */
        if (line == 1 && ks.l >= 3 && !memcmp(ks.s, "\xef\xbb\xbf", 3)) {
            memmove(ks.s, ks.s + 3, ks.l - 2);
            ks.l -= 3;
        }
        size_t len = ks.l;
        while (len && (ks.s[len - 1] == '\r' || ks.s[len - 1] == ' ')) len--;
        ks.s[len] = '\0';
        if (memchr(ks.s, '\0', len)) {
            rc = ps_fail(err, PS_E_FORMAT, "%s: line %llu: binary data in probe file", path,
                         (unsigned long long)line);
            break;
        }
        if (fasta < 0) {
            if (len == 0 || ks.s[0] == '#') continue;
            fasta = ks.s[0] == '>';
        }
        if (fasta) {
            if (ks.s[0] == '>') {
                const char *name = ks.s + 1;
                size_t nl = strcspn(name, " \t");
                if (raw_add(r, name, nl, line)) { rc = ps_fail(err, PS_E_NOMEM, "out of memory reading probes"); break; }
            } else if (len) {
                if (r->n == 0) { rc = ps_fail(err, PS_E_FORMAT, "%s: line %llu: sequence before the first '>' header", path, (unsigned long long)line); break; }
                if (raw_append(r, r->n - 1, ks.s, len)) { rc = ps_fail(err, PS_E_NOMEM, "out of memory reading probes"); break; }
            }
        } else {
            if (len == 0 || ks.s[0] == '#') continue;
            char *tab = memchr(ks.s, '\t', len);
            const char *name = ks.s, *seq = ks.s;
            size_t name_len = len, seq_len = len;
            if (tab) {
                name_len = (size_t)(tab - ks.s);
                seq = tab + 1;
                seq_len = strcspn(seq, "\t");
            }
            if (raw_add(r, name, name_len, line) || raw_append(r, r->n - 1, seq, seq_len)) {
                rc = ps_fail(err, PS_E_NOMEM, "out of memory reading probes");
                break;
            }
            if (!tab) { /* the name is the sequence, without surrounding blanks */
                free(r->name[r->n - 1]);
                r->name[r->n - 1] = strdup(r->seq[r->n - 1]);
                if (!r->name[r->n - 1]) { rc = ps_fail(err, PS_E_NOMEM, "out of memory reading probes"); break; }
            }
        }
    }
    if (rc == PS_OK && got < -1)
        rc = ps_fail(err, PS_E_IO, "%s: read error or truncated file after line %llu", path,
                     (unsigned long long)line);
    free(ks.s);
    if (bgzf_close(fp) < 0 && rc == PS_OK) rc = ps_fail(err, PS_E_IO, "%s: error closing probe file", path);
    return rc;
}

/* IUPAC codes for more than one base. */
static int iupac_degenerate(int c) { return c && strchr("RYSWKMBDHVNryswkmbdhvn", c) != NULL; }

/* -a auto: DNA when every probe looks like DNA, that is when at least 90%
 * of its letters are A, C, G, T or U and the rest IUPAC codes; else
 * protein. A choice the probes do not agree on is described in note, for
 * the user; a degenerate DNA probe is an error until such probes are
 * counted, rather than silently turning the whole set into peptides. */
static int infer_alphabet(const raw_t *r, const char *src, ps_alpha_t *alpha, char *note, size_t note_len,
                          ps_err_t *err)
{
    uint32_t n_dna = 0, first_dna = UINT32_MAX, first_other = UINT32_MAX, first_degenerate = UINT32_MAX;
    char degenerate_letter = 0;
    for (uint32_t i = 0; i < r->n; i++) {
        size_t acgt = 0, iupac = 0, other = 0;
        char first_iupac = 0;
        for (const char *s = r->seq[i]; *s; s++) {
            if (strchr("ACGTUacgtu", *s)) acgt++;
            else if (iupac_degenerate(*s)) {
                if (!iupac++) first_iupac = *s;
            } else other++;
        }
        size_t len = acgt + iupac + other;
        if (!other && len && acgt * 10 >= len * 9) {
            n_dna++;
            if (first_dna == UINT32_MAX) first_dna = i;
            if (iupac && first_degenerate == UINT32_MAX) {
                first_degenerate = i;
                degenerate_letter = first_iupac;
            }
        } else if (first_other == UINT32_MAX) {
            first_other = i;
        }
    }
    *alpha = n_dna == r->n ? PS_DNA : PS_PROTEIN;
    if (*alpha == PS_DNA && first_degenerate != UINT32_MAX)
        return ps_fail(err, PS_E_FORMAT,
                       "%s: line %llu: probe '%s' is DNA with the IUPAC code '%c'; degenerate probes are not "
                       "counted yet: list its expansions as probes (or give -a protein to count letters as peptides)",
                       src, (unsigned long long)r->line[first_degenerate], r->name[first_degenerate],
                       degenerate_letter);
    if (*alpha == PS_PROTEIN && n_dna)
        snprintf(note, note_len,
                 "%u of %u probes look like DNA (such as '%.60s', line %llu) but '%.60s' (line %llu) does not: "
                 "all are counted as protein; give -a dna or -a protein to choose",
                 n_dna, r->n, r->name[first_dna], (unsigned long long)r->line[first_dna], r->name[first_other],
                 (unsigned long long)r->line[first_other]);
    return PS_OK;
}

/* Encodes the raw set, checking alphabet and lengths. where(i) names a probe in messages. */
static int encode(ps_probes_t **out, raw_t *r, const char *path, ps_alpha_req_t req, ps_err_t *err)
{
    const char *src = path ? path : "probes";
    if (r->n == 0) return ps_fail(err, PS_E_FORMAT, "%s: no probes found (empty probe file?)", src);

    ps_alpha_t alpha;
    int inferred = 0;
    char note[PS_NOTE_MAX] = "";
    if (req == PS_ALPHA_AUTO) {
        inferred = 1;
        int rc = infer_alphabet(r, src, &alpha, note, sizeof note, err);
        if (rc < 0) return rc;
    } else {
        alpha = (ps_alpha_t)req;
    }

    size_t k = strlen(r->seq[0]);
    for (uint32_t i = 0; i < r->n; i++) {
        size_t len = strlen(r->seq[i]);
        if (len == 0)
            return ps_fail(err, PS_E_FORMAT, "%s: line %llu: probe '%s' is empty", src,
                           (unsigned long long)r->line[i], r->name[i]);
        if (len > PS_MAX_K)
            return ps_fail(err, PS_E_FORMAT, "%s: line %llu: probe '%s' is %zu long; the limit is %d",
                           src, (unsigned long long)r->line[i], r->name[i], len, PS_MAX_K);
        if (len != k)
            return ps_fail(err, PS_E_FORMAT,
                           "%s: line %llu: probe '%s' has length %zu but the first probe has %zu; all probes must have one length",
                           src, (unsigned long long)r->line[i], r->name[i], len, k);
    }

    ps_probes_t *p = calloc(1, sizeof *p);
    if (!p) return ps_fail(err, PS_E_NOMEM, "out of memory");
    p->n = r->n;
    p->k = (int)k;
    p->alpha = alpha;
    p->alpha_auto = inferred;
    snprintf(p->alpha_note, sizeof p->alpha_note, "%s", note);
    p->code = malloc((size_t)r->n * k);
    if (!p->code) {
        free(p);
        return ps_fail(err, PS_E_NOMEM, "out of memory for %u probes", r->n);
    }
    uint8_t tab[256];
    ps_alpha_table(alpha, tab);
    for (uint32_t i = 0; i < r->n; i++) {
        for (size_t j = 0; j < k; j++) {
            unsigned char ch = (unsigned char)r->seq[i][j];
            uint8_t c = tab[ch];
            if (c >= ps_alpha_sigma(alpha)) {
                free(p->code);
                free(p);
                if (isprint(ch))
                    return ps_fail(err, PS_E_FORMAT, "%s: line %llu: probe '%s' has '%c', not a %s letter%s",
                                   src, (unsigned long long)r->line[i], r->name[i], ch, ps_alpha_name(alpha),
                                   alpha == PS_DNA ? " (A, C, G, T or U)" : "");
                return ps_fail(err, PS_E_FORMAT, "%s: line %llu: probe '%s' has byte 0x%02x, not a %s letter",
                               src, (unsigned long long)r->line[i], r->name[i], ch, ps_alpha_name(alpha));
            }
            p->code[(size_t)i * k + j] = c;
            r->seq[i][j] = (char)toupper(ch);
        }
    }
    /* Ownership of names and sequences moves to p. */
    p->name = r->name;
    p->seq = r->seq;
    free(r->line);
    memset(r, 0, sizeof *r);
    *out = p;
    return PS_OK;
}

int ps_probes_load(ps_probes_t **out, const char *path, ps_alpha_req_t req, ps_err_t *err)
{
    raw_t r = {0};
    *out = NULL;
    int rc = read_raw(&r, path, err);
    if (rc == PS_OK) rc = encode(out, &r, path, req, err);
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
        if (raw_add(&r, name, strlen(name), i + 1) || raw_append(&r, i, seqs[i], strlen(seqs[i])))
            rc = ps_fail(err, PS_E_NOMEM, "out of memory");
    }
    if (rc == PS_OK) rc = encode(out, &r, NULL, req, err);
    raw_free(&r);
    return rc;
}

void ps_probes_free(ps_probes_t *p)
{
    if (!p) return;
    for (uint32_t i = 0; i < p->n; i++) {
        free(p->name[i]);
        free(p->seq[i]);
    }
    free(p->name);
    free(p->seq);
    free(p->code);
    free(p);
}
