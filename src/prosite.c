#include "prosite.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "alphabet.h"
#include "pattern.h"

enum { EL_ANY, EL_POS, EL_NEG };

/* One element: a class and its repeat. */
typedef struct {
    uint32_t cls;      /* protein codes it matches (ps_scan's: B, Z and X added) */
    uint16_t lo, hi;
    uint8_t kind;      /* EL_ANY (x), EL_POS ([...] or a letter), EL_NEG ({...}) */
    uint8_t repeat;    /* written with (n) or (n,m): its text is padded to hi */
    uint8_t or_start;  /* [<M]: or the sequence's start, taking nothing */
    uint8_t or_end;    /* [G>]: or the sequence's end, taking nothing */
} el_t;

struct ps_psrule {
    uint32_t n, max_len;
    uint8_t start, end; /* '<' and '>' */
    uint8_t x;          /* the code of the residue X */
    el_t el[];
};

int ps_psopts_given(const ps_psopts_t *o)
{
    return o->included || o->no_overlaps || o->shortest || o->skip_frequent || o->max_x;
}

static int code_of(char ch)
{
    ch = (char)toupper((unsigned char)ch);
    for (int c = 0; c < PS_PROTEIN_SIGMA; c++)
        if (ps_alpha_letter(PS_PROTEIN, c) == ch) return c;
    return -1;
}

#define BIT(ch) ((uint32_t)1 << code_of(ch))

uint32_t ps_psscan_class(uint32_t letters, int negated)
{
    const uint32_t B = BIT('B'), Z = BIT('Z');
    if (letters & B) letters |= BIT('N') | BIT('D');
    else if (!negated && (letters & (BIT('N') | BIT('D')))) letters |= B;
    if (letters & Z) letters |= BIT('Q') | BIT('E');
    else if (!negated && (letters & (BIT('Q') | BIT('E')))) letters |= Z;
    return letters;
}

static int bad(char *why, size_t len, const char *what, size_t at)
{
    snprintf(why, len, "%s at character %zu", what, at + 1);
    return -1;
}

int ps_psrule_compile(const char *s, size_t n, ps_psrule_t **out, char *why, size_t why_len)
{
    *out = NULL;
    if (n && s[n - 1] == '.') n--;
    ps_psrule_t *r = calloc(1, sizeof *r + (n + 1) * sizeof(el_t));
    if (!r) {
        snprintf(why, why_len, "out of memory");
        return -1;
    }
    const uint32_t all = ((uint32_t)1 << PS_PROTEIN_SIGMA) - 1, X = BIT('X');
    size_t i = 0;
    r->x = (uint8_t)code_of('X');
    if (i < n && s[i] == '<') r->start = 1, i++;
    while (i < n) {
        el_t *e = &r->el[r->n];
        uint32_t letters = 0;
        char ch = s[i];
        if (ch == 'x' || ch == 'X') {
            e->kind = EL_ANY;
            i++;
        } else if (ch == '[' || ch == '{') {
            const char close = ch == '[' ? ']' : '}';
            e->kind = ch == '[' ? EL_POS : EL_NEG;
            for (i++; i < n && s[i] != close; i++) {
                if (s[i] == '<') e->or_start = 1;
                else if (s[i] == '>') e->or_end = 1;
                else if (code_of(s[i]) >= 0) letters |= (uint32_t)1 << code_of(s[i]);
                else return ps_psrule_free(r), bad(why, why_len, "not a residue", i);
            }
            if (i == n) return ps_psrule_free(r), bad(why, why_len, "an unclosed class", i);
            i++;
        } else if (code_of(ch) >= 0) {
            e->kind = EL_POS;
            letters = (uint32_t)1 << code_of(ch);
            i++;
        } else {
            return ps_psrule_free(r), bad(why, why_len, "not an element", i);
        }
        e->cls = e->kind == EL_ANY ? all
                 : e->kind == EL_POS ? ps_psscan_class(letters, 0) | X
                                     : all & ~ps_psscan_class(letters, 1);
        e->lo = e->hi = 1;
        if (i < n && s[i] == '(') {
            char *end;
            e->repeat = 1;
            unsigned long lo = strtoul(s + i + 1, &end, 10), hi = lo;
            if (*end == ',') hi = strtoul(end + 1, &end, 10);
            if (*end != ')' || hi < lo || hi > PS_PATTERN_MAX)
                return ps_psrule_free(r), bad(why, why_len, "a bad repeat", i);
            e->lo = (uint16_t)lo;
            e->hi = (uint16_t)hi;
            i = (size_t)(end - s) + 1;
        }
        r->max_len += e->hi;
        r->n++;
        if (i < n && s[i] == '>') r->end = 1, i++;
        if (i < n && s[i] == '-') i++;
        else if (i < n) return ps_psrule_free(r), bad(why, why_len, "expected '-'", i);
    }
    if (!r->n) return ps_psrule_free(r), bad(why, why_len, "no elements", 0);
    *out = r;
    return 0;
}

void ps_psrule_free(ps_psrule_t *r) { free(r); }
uint32_t ps_psrule_max_len(const ps_psrule_t *r) { return r->max_len; }
uint32_t ps_psrule_elements(const ps_psrule_t *r) { return r->n; }

/* The search state of one start. */
typedef struct {
    const ps_psrule_t *r;
    const uint8_t *text;
    uint32_t n;
    int rec_start, rec_end, lazy;
    uint64_t *failed;  /* (element, position) pairs known to fail: bit i * (n + 1) + t */
    uint16_t *took;
} search_t;

/* Whether elements i.. match from position t on, in Perl's order; took[]
 * holds what each element took on the first success. */
static int from(search_t *s, uint32_t i, uint32_t t)
{
    const ps_psrule_t *r = s->r;
    if (i == r->n) return !r->end || (t == s->n && s->rec_end);
    const uint64_t bit = (uint64_t)i * (s->n + 1) + t;
    if (s->failed[bit >> 6] >> (bit & 63) & 1) return 0;
    const el_t *e = &r->el[i];
    uint32_t run = 0;
    while (run < e->hi && t + run < s->n && (e->cls >> s->text[t + run] & 1)) run++;
    if (run >= e->lo) {
        if (s->lazy) {
            for (uint32_t c = e->lo; c <= run; c++)
                if (from(s, i + 1, t + c)) return s->took[i] = (uint16_t)c, 1;
        } else {
            for (uint32_t c = run + 1; c-- > e->lo;)
                if (from(s, i + 1, t + c)) return s->took[i] = (uint16_t)c, 1;
        }
    }
    /* (?:[M]|^) and (?:[G]|$): the edge, after the class. */
    if ((e->or_start && t == 0 && s->rec_start) || (e->or_end && t == s->n && s->rec_end))
        if (from(s, i + 1, t)) return s->took[i] = 0, 1;
    s->failed[bit >> 6] |= (uint64_t)1 << (bit & 63);
    return 0;
}

int ps_psrule_match(const ps_psrule_t *r, const uint8_t *text, uint32_t n, int rec_start, int rec_end, int lazy,
                    ps_psmatch_t *m, uint16_t *counts)
{
    if (r->start && !rec_start) return 0;
    if (n > r->max_len) {
        n = r->max_len;
        rec_end = 0;
    }
    uint16_t took_local[PS_PATTERN_MAX + 1];
    uint64_t failed_local[64];
    const uint64_t bits = (uint64_t)r->n * (n + 1);
    uint64_t *failed = bits <= 64 * 64 ? failed_local : calloc((size_t)(bits + 63) / 64, sizeof *failed);
    if (!failed) return -1;
    if (failed == failed_local) memset(failed_local, 0, (size_t)(bits + 63) / 64 * sizeof *failed);
    search_t s = {r, text, n, rec_start, rec_end, lazy, failed, counts ? counts : took_local};
    int ok = from(&s, 0, 0);
    if (ok) {
        uint32_t t = 0, nx = 0;
        for (uint32_t i = 0; i < r->n; i++) {
            if (r->el[i].kind == EL_POS)
                for (uint32_t j = 0; j < s.took[i]; j++) nx += text[t + j] == r->x;
            t += s.took[i];
        }
        m->len = t;
        m->n_x = nx;
    }
    if (failed != failed_local) free(failed);
    return ok;
}

size_t ps_psrule_text(const ps_psrule_t *r, const uint8_t *text, const uint16_t *counts, char *out)
{
    size_t o = 0, t = 0;
    for (uint32_t i = 0; i < r->n; i++) {
        const el_t *e = &r->el[i];
        for (uint32_t j = 0; j < counts[i]; j++) {
            char ch = ps_alpha_letter(PS_PROTEIN, text[t++]);
            out[o++] = e->kind == EL_ANY ? (char)tolower((unsigned char)ch) : ch;
        }
        if (e->repeat)
            for (uint32_t j = counts[i]; j < e->hi; j++) out[o++] = '.';
    }
    out[o] = '\0';
    return o;
}

int ps_psscan_report(const ps_psopts_t *o, ps_psstate_t *s, uint64_t rec, uint64_t start, uint64_t end,
                     uint32_t n_x)
{
    if (s->rec != rec + 1) {
        s->rec = rec + 1;
        s->prevstop = s->nextpos = 0;
    }
    if (o->no_overlaps) {
        /* The search goes on from the end of every match it finds. */
        if (start < s->nextpos) return 0;
        s->nextpos = end;
    }
    if (!o->included && end <= s->prevstop) return 0;
    if (n_x > (uint32_t)o->max_x) return 0;
    s->prevstop = end;
    return 1;
}
