/* alphabet.h - the two symbol alphabets and how input bytes map onto them.
 *
 * DNA: A=0 C=1 G=2 T=3 (U reads as T), 2 bits a symbol; the complement of x
 * is 3-x. Protein: the 20 standard residues plus B Z X U O J and '*', 27
 * symbols, 5 bits a symbol, matched literally. Letters are case-insensitive. */
#ifndef PS_ALPHABET_H
#define PS_ALPHABET_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum { PS_DNA = 0, PS_PROTEIN = 1 } ps_alpha_t;

#define PS_DNA_SIGMA 4
#define PS_PROTEIN_SIGMA 27

/* Classes returned by ps_sym_class() for bytes that are not symbols. */
#define PS_SYM_BREAK 0xFD /* a letter outside the alphabet (N, IUPAC codes), '.', '-', and in DNA
                           * also '*': matching restarts */
#define PS_SYM_SKIP 0xFE  /* whitespace inside a record: ignored */
#define PS_SYM_BAD 0xFF   /* any other byte: an input error */

/* Number of symbols in the alphabet. */
int ps_alpha_sigma(ps_alpha_t a);
/* Bits used to pack one symbol (2 or 5). */
int ps_alpha_bits(ps_alpha_t a);
/* "dna" or "protein". */
const char *ps_alpha_name(ps_alpha_t a);

/* Fills the per-byte class table for sequence text: for each byte, a symbol
 * code 0..sigma-1 or one of the PS_SYM_* classes above. */
void ps_alpha_table(ps_alpha_t a, uint8_t table[256]);

/* Upper-case letter of symbol code c ('T' for DNA 3). */
char ps_alpha_letter(ps_alpha_t a, int c);

#ifdef __cplusplus
}
#endif

#endif
