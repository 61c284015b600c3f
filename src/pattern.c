#include "pattern.h"

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

static int parse_plain(ps_alpha_t a, const char *s, size_t n, ps_class_t *cls, uint32_t *len, char *why,
                       size_t why_len)
{
    if (n > PS_PATTERN_MAX) {
        snprintf(why, why_len, "it is %zu long; the limit is %d", n, PS_PATTERN_MAX);
        return -1;
    }
    for (size_t i = 0; i < n; i++)
        if (!(cls[i] = letter_class(a, (unsigned char)s[i]))) return why_letter(why, why_len, a, (unsigned char)s[i]);
    *len = (uint32_t)n;
    return 0;
}

/* A number at s[*i]; -1 when there is none or it is too large. */
static long read_number(const char *s, size_t n, size_t *i)
{
    long v = -1;
    while (*i < n && isdigit((unsigned char)s[*i])) {
        v = (v < 0 ? 0 : v * 10) + (s[*i] - '0');
        if (v > PS_PATTERN_MAX) return -1;
        (*i)++;
    }
    return v;
}

static int parse_prosite(ps_alpha_t a, const char *s, size_t n, ps_class_t *cls, uint32_t *len, char *why,
                         size_t why_len)
{
    if (n && s[n - 1] == '.') n--;
    uint32_t m = 0;
    size_t i = 0;
    if (n == 0) {
        snprintf(why, why_len, "the pattern has no elements");
        return -1;
    }
    for (;;) {
        if (i < n && (s[i] == '<' || s[i] == '>')) {
            snprintf(why, why_len, "the anchor '%c' is not counted yet", s[i]);
            return -1;
        }
        if (i == n || s[i] == '-') {
            snprintf(why, why_len, "an element is missing at character %zu", i + 1);
            return -1;
        }
        ps_class_t c = 0;
        unsigned char ch = (unsigned char)s[i];
        if (ch == 'x' || ch == 'X') {
            c = all_symbols(a);
            i++;
        } else if (ch == '[' || ch == '{') {
            char close = ch == '[' ? ']' : '}';
            size_t open = i++;
            while (i < n && s[i] != close) {
                if (s[i] == '<' || s[i] == '>') {
                    snprintf(why, why_len, "the anchor '%c' is not counted yet", s[i]);
                    return -1;
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
            if (ch == '{') c = all_symbols(a) & ~c;
            if (!c) {
                snprintf(why, why_len, "the class at character %zu matches nothing", open + 1);
                return -1;
            }
        } else {
            if (!(c = letter_class(a, ch))) return why_letter(why, why_len, a, ch);
            i++;
        }
        long rep = 1;
        if (i < n && s[i] == '(') {
            size_t open = i++;
            long lo = read_number(s, n, &i), hi = lo;
            if (i < n && s[i] == ',') {
                i++;
                hi = read_number(s, n, &i);
            }
            if (lo < 0 || hi < 0 || i == n || s[i] != ')') {
                snprintf(why, why_len, "the repeat at character %zu is not (n) or (n,m)", open + 1);
                return -1;
            }
            i++;
            if (hi != lo) {
                snprintf(why, why_len, "the variable repeat (%ld,%ld) is not counted yet", lo, hi);
                return -1;
            }
            rep = lo;
        }
        if (m + (uint64_t)rep > PS_PATTERN_MAX) {
            snprintf(why, why_len, "it has more than %d positions", PS_PATTERN_MAX);
            return -1;
        }
        for (long r = 0; r < rep; r++) cls[m++] = c;
        if (i == n) break;
        if (s[i] != '-') {
            if (s[i] == '<' || s[i] == '>') {
                snprintf(why, why_len, "the anchor '%c' is not counted yet", s[i]);
                return -1;
            }
            snprintf(why, why_len, "'%c' at character %zu: expected '-' between elements", s[i], i + 1);
            return -1;
        }
        i++;
    }
    if (m == 0) {
        snprintf(why, why_len, "the pattern has no positions");
        return -1;
    }
    *len = m;
    return 0;
}

int ps_pattern_parse(ps_alpha_t a, const char *s, size_t n, ps_class_t *cls, uint32_t *len, char *why,
                     size_t why_len)
{
    if (ps_pattern_is_prosite(s, n)) return parse_prosite(a, s, n, cls, len, why, why_len);
    return parse_plain(a, s, n, cls, len, why, why_len);
}

int ps_pattern_is_exact(const ps_class_t *cls, uint32_t len)
{
    for (uint32_t i = 0; i < len; i++)
        if (cls[i] & (cls[i] - 1)) return 0;
    return 1;
}

void ps_pattern_revcomp(const ps_class_t *in, uint32_t len, ps_class_t *out)
{
    for (uint32_t i = 0; i < len; i++) {
        ps_class_t c = in[len - 1 - i], r = 0;
        for (int b = 0; b < 4; b++)
            if (c >> b & 1) r |= (ps_class_t)1 << (3 - b);
        out[i] = r;
    }
}
