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
 * Not yet counted, and refused with a message saying so: a variable repeat
 * e(n,m) with n != m, and the anchors '<' and '>'.
 *
 * Letters are case-insensitive, except that in PROSITE syntax both 'x' and
 * 'X' mean any symbol. Positions are at most PS_PATTERN_MAX. */
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

/* Reads s[0..n) into cls[0..*len) (room for PS_PATTERN_MAX). Returns 0, or
 * -1 with why[0..why_len) saying what is wrong (the caller adds where). */
int ps_pattern_parse(ps_alpha_t a, const char *s, size_t n, ps_class_t *cls, uint32_t *len, char *why,
                     size_t why_len);

/* 1 when every class holds a single symbol (the probe is an exact string). */
int ps_pattern_is_exact(const ps_class_t *cls, uint32_t len);

/* The reverse complement of a DNA pattern: positions reversed, each class
 * complemented base by base. out may not alias in. */
void ps_pattern_revcomp(const ps_class_t *in, uint32_t len, ps_class_t *out);

#ifdef __cplusplus
}
#endif

#endif
