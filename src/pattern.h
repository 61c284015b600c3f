/* pattern.h - probes with classes: IUPAC codes and PROSITE syntax, read into
 * one class (a set of symbols) per position.
 *
 * A probe is one of:
 *   plain    letters only. DNA letters may be IUPAC codes (R=AG, Y=CT, S=CG,
 *            W=AT, K=GT, M=AC, B=CGT, D=AGT, H=ACT, V=ACG, N=any; U reads as
 *            T); a protein letter is that residue alone (X is the residue X).
 *   PROSITE  elements separated by '-': a letter (DNA: an IUPAC code), 'x'
 *            (any symbol of the alphabet, rare residues included), [ABC] (any
 *            of them), {ABC} (any symbol but them), each optionally repeated
 *            with (n); a final '.' is allowed. A probe is read as PROSITE when
 *            it holds any of - [ ] { } ( ) < > or ends in '.'.
 * PROSITE repeats may vary, e(n,m): n copies of the element and m - n
 * optional ones, which a match may skip. Anchors: '<' before the first
 * element ties the pattern to the start of a record, '>' after the last one
 * to its end; inside a class, [<M] as the first element also matches the
 * record's start (the pattern without that element, anchored there), and
 * [G>] as the last element also matches its end.
 *
 * Letters are case-insensitive, except that in PROSITE syntax both 'x' and
 * 'X' mean any symbol ([X] is the residue X). Positions are at most
 * PS_PATTERN_MAX, optional ones included. */
#ifndef PS_PATTERN_H
#define PS_PATTERN_H

#include <stddef.h>
#include <stdint.h>

#include "alphabet.h"

#ifdef __cplusplus
extern "C" {
#endif

#define PS_PATTERN_MAX 256

/* Bit c set: symbol code c matches (sigma <= 27). */
typedef uint32_t ps_class_t;

/* 1 when s[0..n) is written in PROSITE syntax (see above). */
int ps_pattern_is_prosite(const char *s, size_t n);

/* 1 when byte b may appear in a pattern without being a letter of it
 * (syntax, digits, 'x'), for guessing the alphabet from the letters alone. */
int ps_pattern_syntax_byte(unsigned char b);

enum {
    PS_ANCHOR_START = 1,    /* '<': the match starts at the record's first letter */
    PS_ANCHOR_END = 2,      /* '>': the match ends at the record's last letter */
    PS_ANCHOR_START_OR = 4, /* [<M]: or, without its first position, starts at the record's start */
    PS_ANCHOR_END_OR = 8    /* [G>]: or, without its last position, ends at the record's end */
};

typedef struct {
    uint32_t len;                 /* positions, optional ones included: the longest match */
    uint32_t min_len;             /* positions that are not optional */
    uint8_t anchors;              /* PS_ANCHOR_* */
    ps_class_t cls[PS_PATTERN_MAX];
    uint8_t opt[PS_PATTERN_MAX];  /* 1: a match may skip this position (the extra copies of e(n,m)) */
} ps_pattern_t;

/* Reads s[0..n) into *out. Returns 0, or -1 with why[0..why_len) saying
 * what is wrong (the caller adds where). */
int ps_pattern_parse(ps_alpha_t a, const char *s, size_t n, ps_pattern_t *out, char *why, size_t why_len);

/* 1 when the pattern is an exact string: one symbol a position, no
 * optional position, no anchor. */
int ps_pattern_is_exact(const ps_pattern_t *p);

/* 1 when every match has the same length and no anchor applies. */
int ps_pattern_is_window(const ps_pattern_t *p);

/* The reverse complement of a DNA pattern: positions reversed, each class
 * complemented base by base, anchors swapped start for end. */
void ps_pattern_revcomp(const ps_pattern_t *in, ps_pattern_t *out);

/* The length of the shortest match of p that starts at text[0] with at most
 * d mismatches, text[0..n) being the rest of its segment (at least the
 * longest match, or up to the segment's end): the end `locate` reports for a
 * pattern of variable length. rec_start: text[0] is its record's first
 * letter; rec_end: text[n - 1] is its record's last. -1 when none. */
int ps_pattern_match_len(const ps_pattern_t *p, const uint8_t *text, uint32_t n, int d, int rec_start, int rec_end);

#ifdef __cplusplus
}
#endif

#endif
