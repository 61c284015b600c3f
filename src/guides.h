/* guides.h - CRISPR guides and primers: a PAM beside every probe, each
 * probe's own mismatch limit, and Cas-OFFinder's input files.
 *
 * PAM (--pam SEQ 3' of the probe, as for Cas9; --pam5 SEQ 5', as for
 * Cas12a): every probe becomes probe + PAM (or PAM + probe), the PAM's
 * positions marked fixed (probes.h: fixed): a site must match them (their
 * IUPAC classes), and mismatches are counted in the probe only. A site's
 * interval covers probe and PAM; the minus strand is the reverse
 * complement of both, as for any probe.
 *
 * Limits: a probe may carry its own mismatch limit (probes.h: limit); -m
 * is the limit of the rest, and the run searches up to the largest. A site
 * beyond its probe's limit is neither counted nor listed (the engines drop
 * its leaf: patset.h's leaf_drop).
 *
 * Cas-OFFinder's input file: its first line names a FASTA file or a folder
 * of them (the input when none is given), its second a pattern (IUPAC, N
 * for "any"; two more numbers are the DNA and RNA bulge sizes, probes.h's
 * bulge_dna and bulge_rna: bulges.h), then one line a guide:
 * `SEQ LIMIT [ID]`, SEQ as long as the pattern, read up to the first
 * blank line. A guide is matched as Cas-OFFinder matches it: where the
 * pattern names bases and the guide has N, the site must hold them
 * (fixed); where the pattern has N, the guide's bases are compared and
 * count as mismatches. A position where both name bases is taken when the
 * pattern's bases are among the guide's (no site that matches the pattern
 * can mismatch there), else refused. */
#ifndef PS_GUIDES_H
#define PS_GUIDES_H

#include "error.h"
#include "probes.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The guide options of count and locate. */
typedef struct {
    const char *pam; /* --pam or --pam5: the PAM, or NULL */
    int pam5;        /* the PAM is 5' of the probe (--pam5) */
    int dna_bulge, rna_bulge; /* --dna-bulge, --rna-bulge (bulges.h) */
    int bulge_given;          /* either was given, 0 included (a Cas-OFFinder file refuses them) */
    int exact_pieces; /* --exact-pieces: r of the guide index (guideset.h); 0 chooses */
} ps_guide_opts_t;

/* The bases an IUPAC letter stands for, either case, U as T (A=1 C=2 G=4
 * T=8; N=15); 0: none. */
unsigned ps_iupac_bits(int c);

/* The longest PAM. */
#define PS_PAM_MAX 32

/* --pam / --pam5: checks the PAM (IUPAC letters, 1 to PS_PAM_MAX). */
int ps_guides_check_pam(const char *pam, const char *option, ps_err_t *err);

/* Replaces *p by its probes with the PAM added, 3' (five_prime 0) or 5';
 * the probes must be DNA letters (IUPAC codes allowed), no PROSITE syntax. */
int ps_guides_add_pam(ps_probes_t **p, const char *pam, int five_prime, const char *path, ps_err_t *err);

/* Resolves the limits: PS_NO_LIMIT becomes mismatches; a limit over
 * PS_MAX_MM is refused naming its probe. *max_mm: the largest limit (at
 * least mismatches). Without limits, *max_mm = mismatches. */
int ps_guides_limits(ps_probes_t *p, int mismatches, int *max_mm, const char *path, ps_err_t *err);

/* 1 when path reads as a Cas-OFFinder input file (its first three lines'
 * shape: a pattern line, then a line of several words, or a guide where
 * the first line is no probe beside it), 2 when its pattern line also
 * gives two bulge sizes; then *genome (malloc'd) is its first line. 0
 * otherwise, also for a file that cannot be read from its start again (a
 * pipe; "-" where standard input is a regular file is read and put back
 * at its offset). A file so recognised is loaded by ps_casoff_load, which
 * says what is wrong in it, naming its line. */
int ps_casoff_detect(const char *path, char **genome);

/* The inputs a Cas-OFFinder genome line names: the file itself, or the
 * regular files of the folder, by name (malloc'd array of malloc'd paths). */
int ps_casoff_inputs(const char *genome, char ***inputs, int *n, ps_err_t *err);
void ps_casoff_inputs_free(char **inputs, int n);

/* Loads a Cas-OFFinder input file ("-": standard input, a regular file)
 * into *out: probe i the guide's pattern, named by its ID (else the guide
 * as written), its query the guide as written, its limit the guide's
 * (digits, maybe after '+': 0 to PS_MAX_MM; Cas-OFFinder's atoi would also
 * take a '-' or text after the digits, refused here naming the line). */
int ps_casoff_load(ps_probes_t **out, const char *path, ps_err_t *err);

#ifdef __cplusplus
}
#endif

#endif
