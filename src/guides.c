#include "guides.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bulges.h"
#include "patset.h"
#include "pattern.h"
#include "twobit.h"

unsigned ps_iupac_bits(int c)
{
    switch (toupper(c)) {
    case 'A': return 1;
    case 'C': return 2;
    case 'G': return 4;
    case 'T': case 'U': return 8;
    case 'R': return 1 | 4;
    case 'Y': return 2 | 8;
    case 'S': return 2 | 4;
    case 'W': return 1 | 8;
    case 'K': return 4 | 8;
    case 'M': return 1 | 2;
    case 'B': return 2 | 4 | 8;
    case 'D': return 1 | 4 | 8;
    case 'H': return 1 | 2 | 8;
    case 'V': return 1 | 2 | 4;
    case 'N': return 15;
    default: return 0;
    }
}

int ps_guides_check_pam(const char *pam, const char *option, ps_err_t *err)
{
    size_t n = strlen(pam);
    if (n < 1 || n > PS_PAM_MAX)
        return ps_fail(err, PS_E_USAGE, "%s takes 1 to %d IUPAC letters, not '%s'", option, PS_PAM_MAX, pam);
    for (size_t i = 0; i < n; i++)
        if (!ps_iupac_bits((unsigned char)pam[i]))
            return ps_fail(err, PS_E_USAGE, "%s '%s': '%c' is no IUPAC nucleotide code", option, pam, pam[i]);
    return PS_OK;
}

/* n texts back to back in one block, text[i] pointing into it. */
static int texts_new(char ***text, char **block, uint32_t n, size_t bytes)
{
    *text = malloc((n ? n : 1) * sizeof **text);
    *block = malloc(bytes ? bytes : 1);
    if (!*text || !*block) {
        free(*text);
        free(*block);
        *text = NULL;
        *block = NULL;
        return -1;
    }
    return 0;
}

/* Probes made from strings s[0..n) named names[], with the fixed flags
 * fx (n * longest, row i for string i), limits (may be NULL) and queries
 * q (may be NULL: none kept). */
static int make_set(ps_probes_t **out, uint32_t n, char **s, char **names, const uint8_t *fx, size_t fx_k,
                    const uint8_t *limits, char **q, ps_err_t *err)
{
    int rc = ps_probes_from_strings(out, n, (const char *const *)s, (const char *const *)names, PS_ALPHA_DNA, err);
    if (rc < 0) return rc;
    ps_probes_t *p = *out;
    const size_t k = (size_t)p->k;
    p->fixed = calloc((size_t)n * k > 0 ? (size_t)n * k : 1, 1);
    if (!p->fixed) goto oom;
    for (uint32_t i = 0; i < n; i++) memcpy(p->fixed + i * k, fx + i * fx_k, strlen(s[i]) < k ? strlen(s[i]) : k);
    if (limits) {
        if (!(p->limit = malloc(n ? n : 1))) goto oom;
        memcpy(p->limit, limits, n);
    }
    if (q) {
        size_t bytes = 0;
        for (uint32_t i = 0; i < n; i++) bytes += strlen(q[i]) + 1;
        if (texts_new(&p->query, &p->query_text, n, bytes)) goto oom;
        char *t = p->query_text;
        for (uint32_t i = 0; i < n; i++) {
            size_t l = strlen(q[i]) + 1;
            memcpy(t, q[i], l);
            p->query[i] = t;
            t += l;
        }
    }
    return PS_OK;
oom:
    ps_probes_free(p);
    *out = NULL;
    return ps_fail(err, PS_E_NOMEM, "out of memory for %u guides", n);
}

int ps_guides_add_pam(ps_probes_t **pp, const char *pam, int five_prime, const char *path, ps_err_t *err)
{
    ps_probes_t *p = *pp;
    const char *opt = five_prime ? "--pam5" : "--pam";
    if (p->alpha != PS_DNA)
        return ps_fail(err, PS_E_USAGE, "%s: %s applies to DNA probes; these are read as protein (-a dna?)", path, opt);
    const size_t L = strlen(pam);
    size_t longest = 0, bytes = 0;
    for (uint32_t i = 0; i < p->n; i++) {
        size_t m = strlen(p->seq[i]);
        if (ps_pattern_is_prosite(p->seq[i], m))
            return ps_fail(err, PS_E_USAGE, "%s: probe '%s' is a PROSITE pattern; %s goes beside plain probes "
                                            "(bases and IUPAC codes)", path, p->name[i], opt);
        if (m + L > PS_PATTERN_MAX)
            return ps_fail(err, PS_E_USAGE, "%s: probe '%s' with its PAM is %zu long; the limit is %d", path,
                           p->name[i], m + L, PS_PATTERN_MAX);
        if (m + L > longest) longest = m + L;
        bytes += m + L + 1;
    }
    char **s = NULL, *sb = NULL, **q = NULL, *qb = NULL;
    uint8_t *fx = calloc((size_t)p->n * longest > 0 ? (size_t)p->n * longest : 1, 1);
    if (!fx || texts_new(&s, &sb, p->n, bytes) || texts_new(&q, &qb, p->n, bytes)) {
        free(fx);
        free(s);
        free(sb);
        return ps_fail(err, PS_E_NOMEM, "out of memory for %u guides", p->n);
    }
    char *t = sb, *u = qb;
    for (uint32_t i = 0; i < p->n; i++) {
        const size_t m = strlen(p->seq[i]);
        s[i] = t;
        q[i] = u;
        /* The query column writes the PAM as N, as Cas-OFFinder's guides. */
        if (five_prime) {
            memcpy(t, pam, L);
            memcpy(t + L, p->seq[i], m);
            memset(u, 'N', L);
            memcpy(u + L, p->seq[i], m);
            memset(fx + i * longest, 1, L);
        } else {
            memcpy(t, p->seq[i], m);
            memcpy(t + m, pam, L);
            memcpy(u, p->seq[i], m);
            memset(u + m, 'N', L);
            memset(fx + i * longest + m, 1, L);
        }
        for (size_t j = 0; j < m + L; j++) {
            t[j] = (char)toupper((unsigned char)t[j]);
            u[j] = (char)toupper((unsigned char)u[j]);
        }
        t[m + L] = u[m + L] = '\0';
        t += m + L + 1;
        u += m + L + 1;
    }
    /* A probe named by its own sequence (a line without a name) is named by
     * its sequence with the PAM, and stays unnamed in Cas-OFFinder's rows. */
    char **names = malloc((p->n ? p->n : 1) * sizeof *names);
    if (!names) {
        free(fx);
        free(s);
        free(sb);
        free(q);
        free(qb);
        return ps_fail(err, PS_E_NOMEM, "out of memory for %u guides", p->n);
    }
    for (uint32_t i = 0; i < p->n; i++) names[i] = strcmp(p->name[i], p->seq[i]) ? p->name[i] : s[i];
    ps_probes_t *np = NULL;
    int rc = make_set(&np, p->n, s, names, fx, longest, p->limit, q, err);
    free(names);
    free(fx);
    free(s);
    free(sb);
    free(q);
    free(qb);
    if (rc < 0) return rc;
    ps_probes_free(p);
    *pp = np;
    return PS_OK;
}

int ps_guides_limits(ps_probes_t *p, int mismatches, int *max_mm, const char *path, ps_err_t *err)
{
    *max_mm = mismatches;
    if (!p->limit) return PS_OK;
    for (uint32_t i = 0; i < p->n; i++) {
        if (p->limit[i] == PS_NO_LIMIT) p->limit[i] = (uint8_t)mismatches;
        if (p->limit[i] > PS_MAX_MM)
            return ps_fail(err, PS_E_USAGE, "%s: probe '%s' asks for %u%s mismatches; the limit is %d", path,
                           p->name[i], p->limit[i], p->limit[i] >= PS_NO_LIMIT - 1 ? " or more" : "", PS_MAX_MM);
        if (p->limit[i] > *max_mm) *max_mm = p->limit[i];
    }
    return PS_OK;
}

/* ---- Cas-OFFinder's input files ----------------------------------------- */

/* The next line of f into *line (without '\n' or '\r'); its length, or -1. */
static ssize_t next_line(FILE *f, char **line, size_t *cap)
{
    ssize_t n = getline(line, cap, f);
    if (n < 0) return -1;
    while (n > 0 && ((*line)[n - 1] == '\n' || (*line)[n - 1] == '\r')) (*line)[--n] = '\0';
    return n;
}

/* Splits s at blanks into at most max words; how many there were. */
static int words(char *s, char **w, int max)
{
    int n = 0;
    for (char *t = strtok(s, " \t"); t; t = strtok(NULL, " \t")) {
        if (n < max) w[n] = t;
        n++;
    }
    return n;
}

static int all_iupac(const char *s)
{
    if (!*s) return 0;
    for (; *s; s++)
        if (!ps_iupac_bits((unsigned char)*s)) return 0;
    return 1;
}

static int all_digits(const char *s)
{
    if (!*s) return 0;
    for (; *s; s++)
        if (!isdigit((unsigned char)*s)) return 0;
    return 1;
}

/* The probe file path for reading from its start: standard input for "-"
 * where it is a regular file (count and locate make a pipe one first:
 * options.h, ps_opt_spool_stdin), *at its offset then; NULL where it cannot
 * be read from its start again. */
static FILE *open_again(const char *path, off_t *at)
{
    struct stat sb;
    *at = -1;
    if (strcmp(path, "-")) return stat(path, &sb) == 0 && S_ISREG(sb.st_mode) ? fopen(path, "r") : NULL;
    if (fstat(STDIN_FILENO, &sb) != 0 || !S_ISREG(sb.st_mode) || (*at = lseek(STDIN_FILENO, 0, SEEK_CUR)) < 0)
        return NULL;
    const int fd = dup(STDIN_FILENO);
    FILE *f = fd < 0 ? NULL : fdopen(fd, "r");
    if (!f && fd >= 0) close(fd);
    return f;
}

/* Closes what open_again opened, standard input back at its offset (the
 * descriptors share it) for the next reader. */
static void close_again(FILE *f, off_t at)
{
    fclose(f);
    if (at >= 0) (void)lseek(STDIN_FILENO, at, SEEK_SET);
}

int ps_casoff_detect(const char *path, char **genome)
{
    *genome = NULL;
    /* Only a file that can be read again from its start can be looked at:
     * a pipe (-p <(...)) would lose what the look took. */
    off_t at;
    FILE *f = open_again(path, &at);
    if (!f) return 0;
    char *l1 = NULL, *l2 = NULL, *l3 = NULL;
    size_t c1 = 0, c2 = 0, c3 = 0;
    int yes = 0;
    if (next_line(f, &l1, &c1) > 0 && next_line(f, &l2, &c2) > 0 && next_line(f, &l3, &c3) > 0 && l1[0] != '>' &&
        l1[0] != '#' && !strchr(l1, '\t')) {
        char *w2[4], *w3[4];
        char *g = strdup(l1);
        const size_t n1 = strlen(l1);
        const int l1_probe = all_iupac(l1);
        int n2 = words(l2, w2, 4), n3 = words(l3, w3, 4);
        /* A pattern, maybe with bulge sizes; then guide lines. A line of
         * several words is no probe of a plain list, so a third line of
         * them, the first a guide's letters, makes the file Cas-OFFinder's
         * whatever else is wrong in it (loading says what, naming its
         * line); a third line of one word only where it is as long as the
         * pattern, the pattern has an N (a guide's place) and the first line
         * is no probe of the pattern's length beside them. */
        const int pattern = (n2 == 1 || (n2 == 3 && all_digits(w2[1]) && all_digits(w2[2]))) && all_iupac(w2[0]);
        const size_t L = pattern ? strlen(w2[0]) : 0;
        /* A PROSITE file's first lines (probes.h) are no genome line. */
        const int prosite = !strncmp(l1, "ID   ", 5) || !strncmp(l1, "CC", 2);
        if (g && pattern && !prosite && n2 == 3) yes = 2;
        else if (g && pattern && !prosite && n3 >= 1 && all_iupac(w3[0]) &&
                 (n3 >= 2 || (strlen(w3[0]) == L && strpbrk(w2[0], "Nn") && !(l1_probe && n1 == L))))
            yes = 1;
        if (yes) *genome = g;
        else free(g);
    }
    free(l1);
    free(l2);
    free(l3);
    close_again(f, at);
    return yes;
}

static int by_name(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

void ps_casoff_inputs_free(char **inputs, int n)
{
    for (int i = 0; inputs && i < n; i++) free(inputs[i]);
    free(inputs);
}

int ps_casoff_inputs(const char *genome, char ***inputs, int *n, ps_err_t *err)
{
    *inputs = NULL;
    *n = 0;
    struct stat st;
    if (stat(genome, &st) != 0)
        return ps_fail(err, PS_E_IO, "%s: the genome that the Cas-OFFinder file names: %s", genome, strerror(errno));
    if (!S_ISDIR(st.st_mode)) {
        char **in = malloc(sizeof *in);
        if (!in || !(in[0] = strdup(genome))) {
            free(in);
            return ps_fail(err, PS_E_NOMEM, "out of memory");
        }
        *inputs = in;
        *n = 1;
        return PS_OK;
    }
    DIR *d = opendir(genome);
    if (!d) return ps_fail(err, PS_E_IO, "%s: cannot read the folder: %s", genome, strerror(errno));
    char **in = NULL;
    int cnt = 0, cap = 0, rc = PS_OK;
    for (struct dirent *e; (e = readdir(d));) {
        if (e->d_name[0] == '.') continue;
        size_t len = strlen(genome) + strlen(e->d_name) + 2;
        char *full = malloc(len);
        if (!full) {
            rc = ps_fail(err, PS_E_NOMEM, "out of memory");
            break;
        }
        snprintf(full, len, "%s/%s", genome, e->d_name);
        if (stat(full, &st) != 0 || !S_ISREG(st.st_mode)) {
            free(full);
            continue;
        }
        /* As Cas-OFFinder does, only sequence files: FASTA (plain or
         * gzip) or 2bit; an index or a note beside them is passed over.
         * FASTA as the reader takes it given as INPUT: after a UTF-8
         * byte-order mark and blank lines. */
        unsigned char head[4096];
        FILE *hf = fopen(full, "rb");
        const size_t got = hf ? fread(head, 1, sizeof head, hf) : 0;
        if (hf) fclose(hf);
        size_t at = got >= 3 && head[0] == 0xEF && head[1] == 0xBB && head[2] == 0xBF ? 3 : 0;
        while (at < got && (head[at] == '\n' || head[at] == '\r' || head[at] == ' ' || head[at] == '\t')) at++;
        if (!(at < got && head[at] == '>') && !(got >= 2 && head[0] == 0x1f && head[1] == 0x8b) &&
            !ps_twobit_magic(head, got)) {
            fprintf(stderr, "probescan: %s: neither FASTA nor 2bit, passed over\n", full);
            free(full);
            continue;
        }
        if (cnt == cap) {
            int nc = cap ? cap * 2 : 16;
            char **g = realloc(in, (size_t)nc * sizeof *g);
            if (!g) {
                free(full);
                rc = ps_fail(err, PS_E_NOMEM, "out of memory");
                break;
            }
            in = g;
            cap = nc;
        }
        in[cnt++] = full;
    }
    closedir(d);
    if (rc == PS_OK && cnt == 0) rc = ps_fail(err, PS_E_USAGE, "%s: the genome folder holds no files", genome);
    if (rc < 0) {
        ps_casoff_inputs_free(in, cnt);
        return rc;
    }
    qsort(in, (size_t)cnt, sizeof *in, by_name);
    *inputs = in;
    *n = cnt;
    return PS_OK;
}

int ps_casoff_load(ps_probes_t **out, const char *path, ps_err_t *err)
{
    *out = NULL;
    off_t at;
    FILE *f = open_again(path, &at);
    if (!f && strcmp(path, "-")) f = fopen(path, "r");
    if (!f) return ps_fail(err, PS_E_IO, "%s: cannot open: %s", path, strerror(errno ? errno : EINVAL));
    char *line = NULL, *pattern = NULL;
    size_t cap = 0;
    uint32_t n = 0, ncap = 0;
    char **seq = NULL, **name = NULL, **query = NULL;
    uint8_t *lim = NULL, *fx = NULL;
    int rc = PS_OK, fields = 0;
    unsigned long lineno = 2;
    size_t L = 0;
    int bulge[2] = {0, 0}; /* DNA, RNA */
    if (next_line(f, &line, &cap) < 0 || next_line(f, &line, &cap) < 0) {
        rc = ps_fail(err, PS_E_FORMAT, "%s: a Cas-OFFinder input file needs a genome line and a pattern line", path);
        goto done;
    }
    {
        char *w[4];
        int nw = words(line, w, 4);
        if (nw < 1 || !all_iupac(w[0])) {
            rc = ps_fail(err, PS_E_FORMAT, "%s: line 2: the pattern must be IUPAC letters", path);
            goto done;
        }
        if (nw == 3) {
            for (int b = 1; b <= 2; b++)
                if (!all_digits(w[b]) || strlen(w[b]) > 2 || atoi(w[b]) > PS_BULGE_MAX) {
                    rc = ps_fail(err, PS_E_USAGE, "%s: line 2: bulge sizes are 0 to %d bases, not '%s'", path,
                                 PS_BULGE_MAX, w[b]);
                    goto done;
                }
            bulge[0] = atoi(w[1]);
            bulge[1] = atoi(w[2]);
        }
        if (nw != 1 && nw != 3) {
            rc = ps_fail(err, PS_E_FORMAT, "%s: line 2: a pattern, or a pattern and two bulge sizes", path);
            goto done;
        }
        if (!(pattern = strdup(w[0]))) goto oom;
        L = strlen(pattern);
        for (size_t j = 0; j < L; j++) pattern[j] = (char)toupper((unsigned char)pattern[j]);
        if (L > PS_PATTERN_MAX) {
            rc = ps_fail(err, PS_E_USAGE, "%s: line 2: the pattern is %zu long; the limit is %d", path, L,
                         PS_PATTERN_MAX);
            goto done;
        }
    }
    for (ssize_t len; (len = next_line(f, &line, &cap)) >= 0;) {
        lineno++;
        if (len == 0) break; /* Cas-OFFinder reads guides up to a blank line */
        char *w[4];
        int nw = words(line, w, 4);
        if (nw != 2 && nw != 3) {
            rc = ps_fail(err, PS_E_FORMAT, "%s: line %lu: a guide line is `SEQUENCE MISMATCHES [ID]`", path, lineno);
            goto done;
        }
        if (fields && nw != fields) {
            rc = ps_fail(err, PS_E_FORMAT, "%s: line %lu: %d fields where the lines before have %d", path, lineno, nw,
                         fields);
            goto done;
        }
        fields = nw;
        if (strlen(w[0]) != L) {
            rc = ps_fail(err, PS_E_FORMAT, "%s: line %lu: the guide is %zu long, the pattern %zu", path, lineno,
                         strlen(w[0]), L);
            goto done;
        }
        /* Cas-OFFinder reads the limit with atoi: a sign and digits, the
         * rest of the word passed over; -1 is then 65535, every site. Taken
         * here: digits after an optional '+'; anything else is refused. */
        const char *lw = w[1] + (w[1][0] == '+');
        if (!all_digits(lw)) {
            rc = ps_fail(err, PS_E_FORMAT, "%s: line %lu: '%s' is no number of mismatches (0 to %d)", path, lineno,
                         w[1], PS_MAX_MM);
            goto done;
        }
        unsigned long t = strtoul(lw, NULL, 10);
        if (t > PS_MAX_MM) {
            rc = ps_fail(err, PS_E_USAGE, "%s: line %lu: %lu mismatches; probescan takes 0 to %d", path, lineno, t,
                         PS_MAX_MM);
            goto done;
        }
        if (n == ncap) {
            uint32_t nc = ncap ? ncap * 2 : 64;
            char **a = realloc(seq, nc * sizeof *a);
            if (a) seq = a;
            char **b = realloc(name, nc * sizeof *b);
            if (b) name = b;
            char **c = realloc(query, nc * sizeof *c);
            if (c) query = c;
            uint8_t *d = realloc(lim, nc);
            if (d) lim = d;
            uint8_t *e = realloc(fx, (size_t)nc * L);
            if (e) fx = e;
            if (!a || !b || !c || !d || !e) goto oom;
            ncap = nc;
        }
        char *g = w[0];
        for (size_t j = 0; j < L; j++) g[j] = (char)toupper((unsigned char)g[j]);
        char *s = malloc(L + 1), *q = strdup(g), *nm = strdup(nw == 3 ? w[2] : g);
        seq[n] = s;
        query[n] = q;
        name[n] = nm;
        lim[n] = (uint8_t)t;
        n++;
        if (!s || !q || !nm) goto oom;
        for (size_t j = 0; j < L; j++) {
            const unsigned pb = ps_iupac_bits(pattern[j]), gb = ps_iupac_bits(g[j]);
            uint8_t *fj = fx + (size_t)(n - 1) * L + j;
            if (!gb) {
                rc = ps_fail(err, PS_E_FORMAT, "%s: line %lu: '%c' is no IUPAC nucleotide code", path, lineno, g[j]);
                goto done;
            }
            if (pb == 15) {
                s[j] = g[j];
                *fj = 0;
            } else if (gb == 15 || (pb & ~gb) == 0) {
                /* The site must hold the pattern's bases, which the guide
                 * takes: never a mismatch here. */
                s[j] = pattern[j];
                *fj = 1;
            } else {
                rc = ps_fail(err, PS_E_USAGE, "%s: line %lu: position %zu: the pattern asks for %c and the guide for "
                                              "%c; probescan takes a base of the pattern only where the guide has N "
                                              "or takes that base", path, lineno, j + 1, pattern[j], g[j]);
                goto done;
            }
        }
        s[L] = '\0';
    }
    if (ferror(f)) {
        rc = ps_fail(err, PS_E_IO, "%s: read error", path);
        goto done;
    }
    if (n == 0) {
        rc = ps_fail(err, PS_E_FORMAT, "%s: no guide lines after the pattern", path);
        goto done;
    }
    rc = make_set(out, n, seq, name, fx, L, lim, query, err);
    if (rc == PS_OK) {
        (*out)->bulge_dna = (uint8_t)bulge[0];
        (*out)->bulge_rna = (uint8_t)bulge[1];
        (*out)->casoff = 1;
    }
    goto done;
oom:
    rc = ps_fail(err, PS_E_NOMEM, "out of memory reading %s", path);
done:
    for (uint32_t i = 0; i < n; i++) {
        free(seq[i]);
        free(name[i]);
        free(query[i]);
    }
    free(seq);
    free(name);
    free(query);
    free(lim);
    free(fx);
    free(pattern);
    free(line);
    close_again(f, at);
    return rc;
}
