#include "alphabet.h"

#include <stddef.h>

static const char dna_letters[PS_DNA_SIGMA + 1] = "ACGT";
/* Order fixes the protein codes: the 20 standard residues first. */
static const char protein_letters[PS_PROTEIN_SIGMA + 1] = "ACDEFGHIKLMNPQRSTVWYBZXUOJ*";

void ps_alpha_table(ps_alpha_t a, uint8_t t[256])
{
    for (int c = 0; c < 256; c++) {
        if (c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\v' || c == '\f')
            t[c] = PS_SYM_SKIP;
        else if ((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z'))
            t[c] = PS_SYM_BREAK;
        else
            t[c] = PS_SYM_BAD;
    }
    const char *letters = a == PS_DNA ? dna_letters : protein_letters;
    for (int i = 0; letters[i]; i++) {
        int up = (unsigned char)letters[i];
        t[up] = (uint8_t)i;
        if (up >= 'A' && up <= 'Z') t[up + 32] = (uint8_t)i;
    }
    /* No-call and gap characters of read and alignment files are not bases:
     * they break windows as N does (jellyfish, BBDuk and seqkit agree), in
     * protein too (gapped alignments). */
    t['.'] = t['-'] = PS_SYM_BREAK;
    if (a == PS_DNA) {
        t['U'] = t['u'] = 3;
        t['*'] = PS_SYM_BREAK;
    }
}

int ps_alpha_sigma(ps_alpha_t a) { return a == PS_DNA ? PS_DNA_SIGMA : PS_PROTEIN_SIGMA; }
int ps_alpha_bits(ps_alpha_t a) { return a == PS_DNA ? 2 : 5; }
const char *ps_alpha_name(ps_alpha_t a) { return a == PS_DNA ? "dna" : "protein"; }

char ps_alpha_letter(ps_alpha_t a, int c)
{
    if (c < 0 || c >= ps_alpha_sigma(a)) return '?';
    return a == PS_DNA ? dna_letters[c] : protein_letters[c];
}
