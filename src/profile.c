/* profile.c - a PROSITE MATRIX entry read as pftools reads it (profile.h). */
#include "profile.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MLOW (PS_PRF_NLOW / 4 * 3) /* pftools' floor for begin and end sums */
#define ROW 28                     /* 0 unknown, 1..26 letters, 27 the deletion score */
#define DEL 27

/* Insertion-position values besides scores: the begin and end terms. */
enum { B0, B1, E0, E1, BM, BI, BD, BE, ME, IE, DE, NB };

typedef struct {
    int32_t match[ROW], ins[ROW], bound[NB], trans[16];
    char sym;
} defaults_t;

typedef struct {
    int mode, func, prio;
    float r[5];
} norm_t;

typedef struct {
    int level, score, n_ns, modes[PS_PRF_MAX_CUTS];
    float ns[PS_PRF_MAX_CUTS];
} cut_t;

#define MAX_NORMS 8

typedef struct {
    ps_profile_t *pr;
    defaults_t d;
    int32_t *bound;     /* (L + 1) * NB */
    int ic, mc;         /* insertion and match lines so far (pftools' counters) */
    int alpha_len;
    norm_t norm[MAX_NORMS];
    int n_norm;
    cut_t cut[PS_PRF_MAX_CUTS];
    int n_cut;
    int disjoint_seen;
    char *why;
    size_t why_len;
} reader_t;

static int refuse(reader_t *r, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->why, r->why_len, fmt, ap);
    va_end(ap);
    return -1;
}

static void defaults_init(defaults_t *d)
{
    memset(d, 0, sizeof *d);
    d->bound[BI] = d->bound[BD] = d->bound[BE] = d->bound[DE] = d->bound[IE] = PS_PRF_NLOW;
    d->trans[PS_PRF_M * 4 + PS_PRF_I] = d->trans[PS_PRF_M * 4 + PS_PRF_D] = PS_PRF_NLOW;
    d->trans[PS_PRF_I * 4 + PS_PRF_D] = d->trans[PS_PRF_I * 4 + PS_PRF_M] = PS_PRF_NLOW;
    d->trans[PS_PRF_D * 4 + PS_PRF_M] = d->trans[PS_PRF_D * 4 + PS_PRF_I] = PS_PRF_NLOW;
    d->sym = 'X';
}

/* One value: '*' is NLOW; else an integer of 16 bits. */
static int read_score(reader_t *r, const char *v, int32_t *out)
{
    while (*v == ' ' || *v == '\'') v++;
    if (*v == '*') {
        *out = PS_PRF_NLOW;
        return 0;
    }
    char *end;
    errno = 0;
    long x = strtol(v, &end, 10);
    if (end == v || errno) return refuse(r, "'%s' is no score", v);
    if (x < -32768 || x > 32767) return refuse(r, "score %ld out of pftools' 16-bit range", x);
    *out = (int32_t)x;
    return 0;
}

/* A list "a,b,c" into dst[0..]; one value fills every letter. */
static int read_scores(reader_t *r, const char *v, int32_t *dst)
{
    int n = 1;
    for (const char *s = v; *s; s++) n += *s == ',';
    if (n == 1) {
        int32_t x;
        if (read_score(r, v, &x) < 0) return -1;
        for (int i = 0; i < 26; i++) dst[i] = x;
        return 0;
    }
    if (n > 26) return refuse(r, "%d scores where the alphabet has at most 26 letters", n);
    const char *s = v;
    for (int i = 0; i < n; i++) {
        if (read_score(r, s, &dst[i]) < 0) return -1;
        while (*s && *s != ',') s++;
        if (*s) s++;
    }
    return 0;
}

/* The begin, end and transition keys of /I: and DEFAULT lines. */
static int32_t *ins_key(const char *k, int32_t *bound, int32_t *trans)
{
    static const char *const bk[NB] = {"B0", "B1", "E0", "E1", "BM", "BI", "BD", "BE", "ME", "IE", "DE"};
    for (int i = 0; i < NB; i++)
        if (!strcmp(k, bk[i])) return &bound[i];
    static const char st[3] = {'M', 'I', 'D'};
    if (strlen(k) == 2)
        for (int a = 0; a < 3; a++)
            for (int b = 0; b < 3; b++)
                if (k[0] == st[a] && k[1] == st[b]) return &trans[a * 4 + b];
    return NULL;
}

/* Splits "k=v; k=v;" in place: keys and values trimmed. */
static int split_pairs(char *s, char **keys, char **vals, int max)
{
    int n = 0;
    while (*s && n < max) {
        char *semi = strchr(s, ';');
        if (semi) *semi = '\0';
        char *eq = strchr(s, '=');
        if (eq) {
            *eq = '\0';
            char *k = s, *v = eq + 1;
            while (*k == ' ') k++;
            char *ke = k + strlen(k);
            while (ke > k && ke[-1] == ' ') *--ke = '\0';
            while (*v == ' ') v++;
            char *ve = v + strlen(v);
            while (ve > v && (ve[-1] == ' ' || ve[-1] == '\r')) *--ve = '\0';
            keys[n] = k;
            vals[n] = v;
            n++;
        }
        if (!semi) break;
        s = semi + 1;
    }
    return n;
}

static const char *unquote(char *v)
{
    if (*v == '\'') {
        v++;
        char *q = strchr(v, '\'');
        if (q) *q = '\0';
    }
    return v;
}

/* Room for the scores once LENGTH is known. */
static int alloc_rows(reader_t *r, uint32_t L)
{
    ps_profile_t *pr = r->pr;
    pr->len = L;
    pr->match = calloc((size_t)(L + 1) * ROW, sizeof(int32_t));
    pr->ins = calloc((size_t)(L + 1) * ROW, sizeof(int32_t));
    pr->trans = calloc((size_t)(L + 1) * 16, sizeof(int32_t));
    pr->first = calloc((size_t)(L + 1) * 4, sizeof(int32_t));
    pr->last = calloc((size_t)(L + 1) * 4, sizeof(int32_t));
    pr->consensus = calloc((size_t)L + 2, 1);
    r->bound = calloc((size_t)(L + 1) * NB, sizeof(int32_t));
    if (!pr->match || !pr->ins || !pr->trans || !pr->first || !pr->last || !pr->consensus || !r->bound) return -2;
    return 0;
}

static void ins_defaults(reader_t *r, int row)
{
    memcpy(r->pr->ins + (size_t)row * ROW, r->d.ins, sizeof r->d.ins);
    memcpy(r->bound + (size_t)row * NB, r->d.bound, sizeof r->d.bound);
    memcpy(r->pr->trans + (size_t)row * 16, r->d.trans, sizeof r->d.trans);
}

static int ma_line(reader_t *r, const char *sub, int cont, char *rest)
{
    ps_profile_t *pr = r->pr;
    char *keys[40], *vals[40];
    int n = split_pairs(rest, keys, vals, 40);
    if (!strcmp(sub, "GENERAL_SPEC")) {
        for (int i = 0; i < n; i++) {
            if (!strcmp(keys[i], "ALPHABET")) {
                const char *a = unquote(vals[i]);
                size_t al = strlen(a);
                if (al > 26) return refuse(r, "an alphabet of %zu letters", al);
                memset(pr->map, 0, sizeof pr->map);
                for (size_t j = 0; j < al; j++) {
                    int c = toupper((unsigned char)a[j]);
                    if (c < 'A' || c > 'Z') return refuse(r, "'%c' in the alphabet", a[j]);
                    pr->map[c - 'A'] = (uint8_t)(j + 1);
                }
                r->alpha_len = (int)al;
            } else if (!strcmp(keys[i], "LENGTH")) {
                long L = strtol(vals[i], NULL, 10);
                if (L < 1 || L > 100000) return refuse(r, "LENGTH=%s", vals[i]);
                if (pr->match) return refuse(r, "LENGTH given twice");
                int rc = alloc_rows(r, (uint32_t)L);
                if (rc < 0) return rc;
            }
        }
        if (!pr->match) return refuse(r, "no LENGTH in GENERAL_SPEC");
        return 0;
    }
    if (!strcmp(sub, "DISJOINT")) {
        r->disjoint_seen = 1;
        pr->n1 = 1;
        pr->n2 = pr->len;
        for (int i = 0; i < n; i++) {
            if (!strcmp(keys[i], "N1")) pr->n1 = (uint32_t)strtol(vals[i], NULL, 10);
            else if (!strcmp(keys[i], "N2")) pr->n2 = (uint32_t)strtol(vals[i], NULL, 10);
            else if (!strcmp(keys[i], "DEFINITION") && strcmp(vals[i], "PROTECT") && strcmp(vals[i], "UNIQUE"))
                return refuse(r, "DISJOINT DEFINITION=%s", vals[i]);
        }
        return 0;
    }
    if (!strcmp(sub, "NORMALIZATION")) {
        /* A continuation line adds to the same normalisation. */
        if (!cont) {
            if (r->n_norm == MAX_NORMS) return refuse(r, "more than %d NORMALIZATION lines", MAX_NORMS);
            norm_t *nm = &r->norm[r->n_norm];
            memset(nm, 0, sizeof *nm);
            nm->mode = nm->prio = r->n_norm; /* pftools' defaults */
            nm->func = -1;
            r->n_norm++;
        }
        if (r->n_norm == 0) return refuse(r, "a NORMALIZATION continuation without its line");
        norm_t *nm = &r->norm[r->n_norm - 1];
        for (int i = 0; i < n; i++) {
            const char *k = keys[i], *v = vals[i];
            if (!strcmp(k, "FUNCTION")) {
                if (!strcmp(v, "LINEAR")) nm->func = 1;
                else if (!strcmp(v, "GLE_ZSCORE") || !strcmp(v, "GRIBSKOV")) nm->func = 2;
                else if (!strcmp(v, "GLE_ZSCAVE")) nm->func = 3;
                else return refuse(r, "normalisation FUNCTION=%s", v);
            } else if (!strcmp(k, "MODE")) nm->mode = (int)strtol(v, NULL, 10);
            else if (!strcmp(k, "PRIORITY")) nm->prio = (int)strtol(v, NULL, 10);
            else if (k[0] == 'R' && k[1] >= '1' && k[1] <= '5' && !k[2]) {
                char *end;
                nm->r[k[1] - '1'] = strtof(v, &end);
                if (end == v) return refuse(r, "%s=%s is no number", k, v);
            }
        }
        return 0;
    }
    if (!strcmp(sub, "CUT_OFF")) {
        if (cont) return refuse(r, "a CUT_OFF continuation line");
        if (r->n_cut == PS_PRF_MAX_CUTS) return refuse(r, "more than %d CUT_OFF lines", PS_PRF_MAX_CUTS);
        cut_t *c = &r->cut[r->n_cut++];
        memset(c, 0, sizeof *c);
        for (int i = 0; i < n; i++) {
            const char *k = keys[i];
            char *v = vals[i];
            if (!strcmp(k, "LEVEL")) c->level = (int)strtol(v, NULL, 10);
            else if (!strcmp(k, "SCORE")) c->score = (int)strtol(v, NULL, 10);
            else if (!strcmp(k, "N_SCORE") || !strcmp(k, "MODE")) {
                int m = 0;
                for (char *s = v; *s && m < PS_PRF_MAX_CUTS;) {
                    char *end;
                    if (k[0] == 'N') c->ns[m] = strtof(s, &end);
                    else c->modes[m] = (int)strtol(s, &end, 10);
                    if (end == s) return refuse(r, "%s=%s", k, v);
                    m++;
                    s = end;
                    while (*s == ',' || *s == ' ') s++;
                }
                if (k[0] == 'N') c->n_ns = m;
            }
        }
        return 0;
    }
    if (!strcmp(sub, "DEFAULT")) {
        if (n == 0) {
            defaults_init(&r->d);
            return 0;
        }
        for (int i = 0; i < n; i++) {
            const char *k = keys[i], *v = vals[i];
            if (!strcmp(k, "SY_M")) r->d.sym = unquote(vals[i])[0];
            else if (!strcmp(k, "SY_I")) continue;
            else if (!strcmp(k, "M0")) {
                if (read_score(r, v, &r->d.match[0]) < 0) return -1;
            } else if (!strcmp(k, "M")) {
                if (read_scores(r, v, r->d.match + 1) < 0) return -1;
            } else if (!strcmp(k, "D")) {
                if (read_score(r, v, &r->d.match[DEL]) < 0) return -1;
            } else if (!strcmp(k, "I0")) {
                if (read_score(r, v, &r->d.ins[0]) < 0) return -1;
            } else if (!strcmp(k, "I")) {
                if (read_scores(r, v, r->d.ins + 1) < 0) return -1;
            } else {
                int32_t *dst = ins_key(k, r->d.bound, r->d.trans);
                if (!dst) return refuse(r, "unknown DEFAULT key %s", k);
                if (read_score(r, v, dst) < 0) return -1;
            }
        }
        return 0;
    }
    if (!pr->match && (!strcmp(sub, "I") || !strcmp(sub, "M"))) return refuse(r, "/%s: before GENERAL_SPEC", sub);
    const int L = (int)pr->len;
    if (!strcmp(sub, "I")) {
        if (cont) r->ic--;
        else if (r->ic + 1 <= L) ins_defaults(r, r->ic + 1);
        if (r->mc < r->ic + 1) { /* an implied /M: between two /I: */
            if (r->mc >= L) return refuse(r, "more match positions than LENGTH=%d", L);
            memcpy(pr->match + (size_t)r->mc * ROW, r->d.match, sizeof r->d.match);
            pr->consensus[r->mc] = r->d.sym;
            r->mc++;
        }
        const int row = r->ic + 1;
        if (row > L) return refuse(r, "more insertion positions than LENGTH=%d", L);
        for (int i = 0; i < n; i++) {
            const char *k = keys[i], *v = vals[i];
            if (!strncmp(k, "SY", 2)) continue;
            if (!strcmp(k, "I0")) {
                if (read_score(r, v, &pr->ins[(size_t)row * ROW]) < 0) return -1;
            } else if (!strcmp(k, "I")) {
                if (read_scores(r, v, pr->ins + (size_t)row * ROW + 1) < 0) return -1;
            } else {
                int32_t *dst = ins_key(k, r->bound + (size_t)row * NB, pr->trans + (size_t)row * 16);
                if (!dst) return refuse(r, "unknown /I: key %s", k);
                if (read_score(r, v, dst) < 0) return -1;
            }
        }
        r->ic++;
        return 0;
    }
    if (!strcmp(sub, "M")) {
        if (cont) r->mc--;
        else if (r->mc < L) memcpy(pr->match + (size_t)r->mc * ROW, r->d.match, sizeof r->d.match);
        if (r->ic < r->mc) { /* an implied /I: between two /M: */
            if (r->ic + 1 > L) return refuse(r, "more insertion positions than LENGTH=%d", L);
            ins_defaults(r, r->ic + 1);
            r->ic++;
        }
        const int row = r->mc;
        if (row >= L) return refuse(r, "more match positions than LENGTH=%d", L);
        int sy = 0;
        for (int i = 0; i < n; i++) {
            const char *k = keys[i], *v = vals[i];
            if (!strcmp(k, "SY")) {
                pr->consensus[row] = unquote(vals[i])[0];
                sy = 1;
            } else if (!strcmp(k, "M0")) {
                if (read_score(r, v, &pr->match[(size_t)row * ROW]) < 0) return -1;
            } else if (!strcmp(k, "M")) {
                if (read_scores(r, v, pr->match + (size_t)row * ROW + 1) < 0) return -1;
            } else if (!strcmp(k, "D")) {
                if (read_score(r, v, &pr->match[(size_t)row * ROW + DEL]) < 0) return -1;
            } /* pftools passes over other keys of /M: */
        }
        if (!sy && !cont) pr->consensus[row] = r->d.sym;
        r->mc++;
        return 0;
    }
    return 0; /* other MA lines: not scores */
}

/* pftools' begin and end sums: 16 bits, kept at or above MLOW. */
static int sum16(reader_t *r, int32_t a, int32_t b, int32_t *out)
{
    int32_t s = a + b;
    if (s < -32768 || s > 32767) return refuse(r, "a begin or end sum %d out of pftools' 16-bit range", s);
    *out = s > MLOW ? s : MLOW;
    return 0;
}

/* The begins and ends of each insertion position, by the protected range. */
static int prepare(reader_t *r)
{
    ps_profile_t *pr = r->pr;
    const uint32_t L = pr->len;
    for (uint32_t i = 0; i <= L; i++) {
        const int32_t *b = r->bound + (size_t)i * NB;
        int32_t *t = pr->trans + (size_t)i * 16, *f = pr->first + (size_t)i * 4, *l = pr->last + (size_t)i * 4;
        const int enter = i < pr->n2, leave = i >= pr->n1;
        const int32_t b1 = enter ? b[B1] : PS_PRF_NLOW, b0 = enter ? b[B0] : PS_PRF_NLOW;
        const int32_t e1 = leave ? b[E1] : PS_PRF_NLOW, e0 = leave ? b[E0] : PS_PRF_NLOW;
        if (sum16(r, b1, b[BM], &t[PS_PRF_X * 4 + PS_PRF_M]) || sum16(r, b1, b[BI], &t[PS_PRF_X * 4 + PS_PRF_I]) ||
            sum16(r, b1, b[BD], &t[PS_PRF_X * 4 + PS_PRF_D]) || sum16(r, e1, b[ME], &t[PS_PRF_M * 4 + PS_PRF_X]) ||
            sum16(r, e1, b[IE], &t[PS_PRF_I * 4 + PS_PRF_X]) || sum16(r, e1, b[DE], &t[PS_PRF_D * 4 + PS_PRF_X]) ||
            sum16(r, b0, b[BM], &f[PS_PRF_M]) || sum16(r, b0, b[BI], &f[PS_PRF_I]) ||
            sum16(r, b0, b[BD], &f[PS_PRF_D]) || sum16(r, e0, b[ME], &l[PS_PRF_M]) ||
            sum16(r, e0, b[IE], &l[PS_PRF_I]) || sum16(r, e0, b[DE], &l[PS_PRF_D]))
            return -1;
        t[PS_PRF_X * 4 + PS_PRF_X] = PS_PRF_NLOW;
        f[PS_PRF_X] = l[PS_PRF_X] = PS_PRF_NLOW;
    }
    return 0;
}

/* The normalisation of mode 1, and the level's cut-off. */
static int settle(reader_t *r, int level)
{
    ps_profile_t *pr = r->pr;
    int best = -1;
    for (int i = 0; i < r->n_norm; i++)
        if (r->norm[i].mode == 1 && (best < 0 || r->norm[i].prio < r->norm[best].prio)) best = i;
    if (best >= 0) {
        if (r->norm[best].func == 3) return refuse(r, "normalisation GLE_ZSCAVE is not read");
        if (r->norm[best].func < 1) return refuse(r, "a NORMALIZATION without FUNCTION");
        pr->norm = r->norm[best].func;
        memcpy(pr->r, r->norm[best].r, sizeof pr->r);
        if (pr->norm == 1 && pr->r[1] == 0.0f) return refuse(r, "LINEAR normalisation with R2=0");
    }
    int zero = 0, at = -1;
    for (int i = 0; i < r->n_cut; i++) {
        zero |= r->cut[i].level == 0;
        if (r->cut[i].level == level) {
            if (at >= 0) return refuse(r, "two CUT_OFF lines of LEVEL=%d", level);
            at = i;
        }
    }
    if (!zero) return refuse(r, "no CUT_OFF of LEVEL=0");
    if (at < 0) return refuse(r, "no CUT_OFF of LEVEL=%d", level);
    pr->level = level;
    pr->n_cuts = r->n_cut;
    for (int i = 0; i < r->n_cut; i++) {
        const cut_t *c = &r->cut[i];
        pr->cut_level[i] = c->level;
        pr->cut_score[i] = c->score;
        pr->cut_nscore[i] = NAN;
        for (int j = 0; j < c->n_ns; j++)
            if (c->modes[j] == 1) pr->cut_nscore[i] = c->ns[j];
        /* pfscan 2's rule where SCORE says nothing: the least raw score
         * that reaches N_SCORE. */
        if (c->score == 0 && pr->norm == 1 && !isnan(pr->cut_nscore[i]))
            pr->cut_score[i] = (int32_t)ceilf((pr->cut_nscore[i] - pr->r[0]) / pr->r[1]);
    }
    pr->cut = pr->cut_score[at];
    pr->cut_by_length = pr->norm == 2 && r->cut[at].score == 0 && !isnan(pr->cut_nscore[at]);
    return 0;
}

int ps_profile_parse(ps_profile_t *out, const char *text, size_t n, int level, char *why, size_t why_len)
{
    ps_profile_t pr;
    memset(&pr, 0, sizeof pr);
    reader_t r;
    memset(&r, 0, sizeof r);
    r.pr = &pr;
    r.ic = -1;
    r.why = why;
    r.why_len = why_len;
    defaults_init(&r.d);
    char line[4096], sub[32] = "";
    int rc = 0;
    size_t at = 0;
    while (at < n && rc == 0) {
        size_t e = at;
        while (e < n && text[e] != '\n') e++;
        size_t len = e - at;
        if (len >= sizeof line) {
            rc = refuse(&r, "a line of %zu bytes", len);
            break;
        }
        memcpy(line, text + at, len);
        line[len] = '\0';
        if (len && line[len - 1] == '\r') line[--len] = '\0';
        at = e + 1;
        if (len >= 5 && !memcmp(line, "ID   ", 5)) {
            size_t i = 5, o = 0;
            while (line[i] && line[i] != ';' && o + 1 < sizeof pr.id) pr.id[o++] = line[i++];
            pr.id[o] = '\0';
        } else if (len >= 5 && !memcmp(line, "AC   ", 5)) {
            size_t i = 5, o = 0;
            while (line[i] && line[i] != ';' && o + 1 < sizeof pr.ac) pr.ac[o++] = line[i++];
            pr.ac[o] = '\0';
        } else if (len >= 2 && !memcmp(line, "MA", 2)) {
            char *s = line + 2;
            while (*s == ' ') s++;
            int cont = 1;
            if (*s == '/') {
                s++;
                char *colon = strchr(s, ':');
                if (!colon) {
                    rc = refuse(&r, "an MA line without ':'");
                    break;
                }
                size_t sl = (size_t)(colon - s);
                if (sl >= sizeof sub) sl = sizeof sub - 1;
                memcpy(sub, s, sl);
                sub[sl] = '\0';
                s = colon + 1;
                cont = 0;
            } else if (!sub[0]) {
                rc = refuse(&r, "an MA continuation line first");
                break;
            }
            rc = ma_line(&r, sub, cont, s);
        }
    }
    if (rc == 0 && !pr.match) rc = refuse(&r, "no GENERAL_SPEC LENGTH");
    if (rc == 0) {
        const int L = (int)pr.len;
        if (r.ic == L - 1) { /* the last /I: of defaults */
            ins_defaults(&r, L);
            r.ic++;
        }
        if (r.mc != L) rc = refuse(&r, "%d match positions where LENGTH=%d", r.mc, L);
        else if (r.ic != L) rc = refuse(&r, "%d insertion positions where LENGTH=%d", r.ic, L);
        else if (!r.alpha_len) rc = refuse(&r, "no ALPHABET");
    }
    if (rc == 0) {
        if (!r.disjoint_seen) {
            pr.n1 = 1;
            pr.n2 = pr.len;
        }
        if (pr.n1 == 0 || pr.n1 > pr.len) pr.n1 = 1;
        if (pr.n2 == 0 || pr.n2 > pr.len) pr.n2 = pr.len;
        if (pr.n2 < pr.n1) {
            uint32_t t = pr.n1;
            pr.n1 = pr.n2;
            pr.n2 = t;
        }
        rc = settle(&r, level);
    }
    if (rc == 0) rc = prepare(&r);
    free(r.bound);
    if (rc != 0) {
        ps_profile_free(&pr);
        return rc;
    }
    *out = pr;
    return 0;
}

void ps_profile_free(ps_profile_t *pr)
{
    if (!pr) return;
    free(pr->match);
    free(pr->ins);
    free(pr->trans);
    free(pr->first);
    free(pr->last);
    free(pr->consensus);
    memset(pr, 0, sizeof *pr);
}

/* GLE_ZSCORE's length factor, pfscan 2's R1 * (1 - exp(R2 * L - R3)). */
static float gle_factor(const ps_profile_t *pr, uint32_t n)
{
    return pr->r[0] * (1.0f - expf(pr->r[1] * (float)n - pr->r[2]));
}

static int32_t cut_of(const ps_profile_t *pr, int i, uint32_t n)
{
    if (pr->norm == 2 && pr->cut_score[i] == 0 && !isnan(pr->cut_nscore[i]))
        return (int32_t)ceilf(gle_factor(pr, n) * (pr->r[4] * pr->cut_nscore[i] + pr->r[3]));
    return pr->cut_score[i];
}

int32_t ps_profile_cutoff(const ps_profile_t *pr, uint32_t n)
{
    if (!pr->cut_by_length) return pr->cut;
    for (int i = 0; i < pr->n_cuts; i++)
        if (pr->cut_level[i] == pr->level) return cut_of(pr, i, n);
    return pr->cut;
}

float ps_profile_nscore(const ps_profile_t *pr, int32_t s, uint32_t n)
{
    if (pr->norm == 1) return pr->r[0] + pr->r[1] * (float)s;
    if (pr->norm == 2) return ((float)s / gle_factor(pr, n) - pr->r[3]) / pr->r[4];
    return NAN;
}

int ps_profile_level(const ps_profile_t *pr, int32_t s, uint32_t n)
{
    int level = -1;
    for (int i = 0; i < pr->n_cuts; i++) {
        const int32_t c = cut_of(pr, i, n);
        if (pr->cut_level[i] == 0 && c == 0) break; /* pfscanV3 stops at a level 0 of SCORE=0 */
        if (s >= c) return pr->cut_level[i];
        level = pr->cut_level[i] - 1;
    }
    return level;
}

void ps_profile_index(const ps_profile_t *pr, const uint8_t *letters, uint32_t n, uint8_t *idx)
{
    for (uint32_t i = 0; i < n; i++) idx[i] = pr->map[letters[i]];
}

void ps_prf_work_free(ps_prf_work_t *w)
{
    if (!w) return;
    free(w->v);
    free(w->pos);
    free(w->lock);
    free(w->trace);
    free(w->v8);
    memset(w, 0, sizeof *w);
}
