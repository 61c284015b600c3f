#include "pattern.h"

#include "prosite.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

int ps_pattern_is_prosite(const char *s, size_t n)
{
    if (n && s[n - 1] == '.') return 1;
    for (size_t i = 0; i < n; i++)
        if (strchr("-[]{}()<>", s[i]) && s[i]) return 1;
    return 0;
}

int ps_pattern_syntax_byte(unsigned char b)
{
    return (b && strchr("-[]{}()<>.,xX", b)) || isdigit(b);
}

static ps_class_t all_symbols(ps_alpha_t a) { return (ps_class_t)((1ull << ps_alpha_sigma(a)) - 1); }

/* The class of one letter; 0 when it is not one of the alphabet. */
static ps_class_t letter_class(ps_alpha_t a, unsigned char ch)
{
    ch = (unsigned char)toupper(ch);
    if (a == PS_DNA) {
        enum { A = 1, C = 2, G = 4, T = 8 };
        switch (ch) {
        case 'A': return A;
        case 'C': return C;
        case 'G': return G;
        case 'T': case 'U': return T;
        case 'R': return A | G;
        case 'Y': return C | T;
        case 'S': return C | G;
        case 'W': return A | T;
        case 'K': return G | T;
        case 'M': return A | C;
        case 'B': return C | G | T;
        case 'D': return A | G | T;
        case 'H': return A | C | T;
        case 'V': return A | C | G;
        case 'N': return A | C | G | T;
        default: return 0;
        }
    }
    for (int c = 0; c < PS_PROTEIN_SIGMA; c++)
        if (ps_alpha_letter(a, c) == (char)ch) return (ps_class_t)1 << c;
    return 0;
}

static int why_letter(char *why, size_t len, ps_alpha_t a, unsigned char ch)
{
    if (isprint(ch))
        snprintf(why, len, "'%c' is not a %s letter%s", ch, ps_alpha_name(a),
                 a == PS_DNA ? " (A, C, G, T, U or an IUPAC code)" : "");
    else
        snprintf(why, len, "byte 0x%02x is not a %s letter", ch, ps_alpha_name(a));
    return -1;
}

static int parse_plain(ps_alpha_t a, const char *s, size_t n, ps_pattern_t *out, char *why, size_t why_len)
{
    if (n > PS_PATTERN_MAX) {
        snprintf(why, why_len, "it is %zu long; the limit is %d", n, PS_PATTERN_MAX);
        return -1;
    }
    for (size_t i = 0; i < n; i++)
        if (!(out->cls[i] = letter_class(a, (unsigned char)s[i])))
            return why_letter(why, why_len, a, (unsigned char)s[i]);
    out->len = out->min_len = (uint32_t)n;
    return 0;
}

/* A number at s[*i]; -1 when there is none or it is too large. */
/* The decimal number at s[*i], moving *i past it: -1 when there is none,
 * -2 when it is over PS_PATTERN_MAX (all its digits read). */
static long read_number(const char *s, size_t n, size_t *i)
{
    long v = -1;
    int big = 0;
    while (*i < n && isdigit((unsigned char)s[*i])) {
        if (!big) v = (v < 0 ? 0 : v * 10) + (s[*i] - '0');
        if (v > PS_PATTERN_MAX) big = 1;
        (*i)++;
    }
    return big ? -2 : v;
}

static int fail(char *why, size_t why_len, const char *fmt, size_t at)
{
    snprintf(why, why_len, fmt, at + 1);
    return -1;
}

static int parse_prosite(ps_alpha_t a, const char *s, size_t n, ps_pattern_t *out, char *why, size_t why_len)
{
    if (n && s[n - 1] == '.') n--;
    uint32_t m = 0;
    size_t i = 0;
    out->anchors = 0;
    if (i < n && s[i] == '<') {
        out->anchors |= PS_ANCHOR_START;
        i++;
    }
    if (i == n) return fail(why, why_len, "the pattern has no elements (character %zu)", i);
    for (int first = 1;; first = 0) {
        if (i == n || s[i] == '-') return fail(why, why_len, "an element is missing at character %zu", i);
        ps_class_t c = 0;
        int anchored = 0; /* a class with '<' or '>' */
        unsigned char ch = (unsigned char)s[i];
        if (ch == 'x' || ch == 'X') {
            c = all_symbols(a);
            i++;
        } else if (ch == '[' || ch == '{') {
            char close = ch == '[' ? ']' : '}';
            size_t open = i++;
            while (i < n && s[i] != close) {
                if (s[i] == '<' || s[i] == '>') {
                    if (ch == '{') return fail(why, why_len, "an anchor inside {} at character %zu", i);
                    if (s[i] == '<' && !first)
                        return fail(why, why_len, "'<' at character %zu: only the first element may hold it", i);
                    anchored |= s[i] == '<' ? PS_ANCHOR_START_OR : PS_ANCHOR_END_OR;
                    i++;
                    continue;
                }
                ps_class_t l = letter_class(a, (unsigned char)s[i]);
                if (!l) return why_letter(why, why_len, a, (unsigned char)s[i]);
                c |= l;
                i++;
            }
            if (i == n) {
                snprintf(why, why_len, "'%c' at character %zu is not closed", ch, open + 1);
                return -1;
            }
            if (i == open + 1) {
                snprintf(why, why_len, "'%c%c' at character %zu is empty", ch, close, open + 1);
                return -1;
            }
            i++;
            if (a == PS_PROTEIN) c = ps_psscan_class(c, ch == '{');
            if (ch == '{') c = all_symbols(a) & ~c;
            if (!c) return fail(why, why_len, "the class at character %zu matches nothing", open);
        } else {
            if (!(c = letter_class(a, ch))) return why_letter(why, why_len, a, ch);
            if (a == PS_PROTEIN) c = ps_psscan_class(c, 0);
            i++;
        }
        long lo = 1, hi = 1;
        if (i < n && s[i] == '(') {
            size_t open = i++;
            lo = read_number(s, n, &i);
            hi = lo;
            if (i < n && s[i] == ',') {
                i++;
                hi = read_number(s, n, &i);
            }
            if (lo == -2 || hi == -2) {
                snprintf(why, why_len, "the repeat at character %zu is longer than a pattern may be (%d positions)",
                         open + 1, PS_PATTERN_MAX);
                return -1;
            }
            if (lo < 0 || hi < 0 || i == n || s[i] != ')')
                return fail(why, why_len, "the repeat at character %zu is not (n) or (n,m)", open);
            if (hi < lo) return fail(why, why_len, "the repeat at character %zu has m < n", open);
            if (anchored) return fail(why, why_len, "the repeat at character %zu is on a class with an anchor", open);
            i++;
        }
        if (m + (uint64_t)hi > PS_PATTERN_MAX) {
            snprintf(why, why_len, "it has more than %d positions", PS_PATTERN_MAX);
            return -1;
        }
        for (long r = 0; r < hi; r++) {
            out->cls[m] = c;
            out->opt[m++] = r >= lo;
        }
        int last = i == n || s[i] == '>';
        if ((anchored & PS_ANCHOR_END_OR) && !last)
            return fail(why, why_len, "'>' inside a class before character %zu: only the last element may hold it", i);
        out->anchors |= (uint8_t)anchored;
        if (i < n && s[i] == '>') {
            out->anchors |= PS_ANCHOR_END;
            if (++i != n) return fail(why, why_len, "'>' before character %zu: it must end the pattern", i);
        }
        if (i == n) break;
        if (s[i] != '-') {
            snprintf(why, why_len, "'%c' at character %zu: expected '-' between elements", s[i], i + 1);
            return -1;
        }
        i++;
    }
    uint32_t need = 0;
    for (uint32_t j = 0; j < m; j++) need += !out->opt[j];
    /* An element that may stand for the record's edge is also skipped; a
     * match needs a position besides it. */
    uint32_t floor = 1 + !!(out->anchors & PS_ANCHOR_START_OR) + !!(out->anchors & PS_ANCHOR_END_OR);
    if (need < floor) {
        snprintf(why, why_len, "the pattern can match an empty string");
        return -1;
    }
    out->len = m;
    out->min_len = need;
    return 0;
}

int ps_pattern_parse(ps_alpha_t a, const char *s, size_t n, ps_pattern_t *out, char *why, size_t why_len)
{
    memset(out->opt, 0, sizeof out->opt);
    out->anchors = 0;
    if (ps_pattern_is_prosite(s, n)) return parse_prosite(a, s, n, out, why, why_len);
    return parse_plain(a, s, n, out, why, why_len);
}

int ps_pattern_is_window(const ps_pattern_t *p)
{
    return p->anchors == 0 && p->min_len == p->len;
}

int ps_pattern_is_exact(const ps_pattern_t *p)
{
    if (!ps_pattern_is_window(p)) return 0;
    for (uint32_t i = 0; i < p->len; i++)
        if (p->cls[i] & (p->cls[i] - 1)) return 0;
    return 1;
}

void ps_pattern_revcomp(const ps_pattern_t *in, ps_pattern_t *out)
{
    const uint32_t len = in->len;
    for (uint32_t i = 0; i < len; i++) {
        ps_class_t c = in->cls[len - 1 - i], r = 0;
        for (int b = 0; b < 4; b++)
            if (c >> b & 1) r |= (ps_class_t)1 << (3 - b);
        out->cls[i] = r;
        out->opt[i] = in->opt[len - 1 - i];
    }
    out->len = len;
    out->min_len = in->min_len;
    uint8_t an = in->anchors;
    out->anchors = (uint8_t)(((an & PS_ANCHOR_START) ? PS_ANCHOR_END : 0) | ((an & PS_ANCHOR_END) ? PS_ANCHOR_START : 0) |
                             ((an & PS_ANCHOR_START_OR) ? PS_ANCHOR_END_OR : 0) |
                             ((an & PS_ANCHOR_END_OR) ? PS_ANCHOR_START_OR : 0));
}

int ps_pattern_match_len(const ps_pattern_t *p, const uint8_t *text, uint32_t n, int d, int rec_start, int rec_end)
{
    const uint32_t len = p->len;
    const uint8_t an = p->anchors;
    if ((an & PS_ANCHOR_START) && !rec_start) return -1;
    /* dist[j]: the fewest mismatches with which text[0..t) matches the
     * positions before j (optional ones skipped or not). */
    uint32_t dist[PS_PATTERN_MAX + 1], next[PS_PATTERN_MAX + 1];
    const uint32_t FAR = UINT32_MAX / 2;
    for (uint32_t j = 0; j <= len; j++) dist[j] = FAR;
    dist[0] = 0;
    if ((an & PS_ANCHOR_START_OR) && rec_start) dist[1] = 0; /* [<M]: the record's start stands for it */
    for (uint32_t t = 0;; t++) {
        /* Skipping an optional position costs nothing. */
        for (uint32_t j = 0; j < len; j++)
            if (p->opt[j] && dist[j] < dist[j + 1]) dist[j + 1] = dist[j];
        if (t > 0) {
            int at_end = t == n && rec_end;
            if (dist[len] <= (uint32_t)d && (!(an & PS_ANCHOR_END) || at_end)) return (int)t;
            if ((an & PS_ANCHOR_END_OR) && at_end && dist[len - 1] <= (uint32_t)d) return (int)t;
        }
        if (t == n || t == len) return -1;
        next[0] = FAR;
        for (uint32_t j = 0; j < len; j++)
            next[j + 1] = dist[j] >= FAR ? FAR : dist[j] + !(p->cls[j] >> text[t] & 1);
        memcpy(dist, next, (len + 1) * sizeof *dist);
    }
}
