/* probes.h - the probe set: names, sequences, and symbol codes or classes.
 *
 * Accepted files (plain or gzip, read through htslib; '-' is stdin; bzip2,
 * xz and zstd are refused, naming the command that decompresses them):
 *   FASTA            name = first word of the header; sequence lines are joined
 *   PROSITE data     (prosite.dat: a first line starting "ID   " or "CC")
 *                    each PATTERN entry, named by its accession (AC), its ID
 *                    kept in id; MATRIX and RULE entries are counted, not
 *                    read; the alphabet is protein unless asked otherwise
 *   name<TAB>seq     one probe a line; a third column that is a whole number
 *                    (blanks around it and a '+' allowed, as Cas-OFFinder
 *                    reads its limits) is the probe's own mismatch limit
 *                    (limit[]; a '-' before digits, or over PS_MAX_MM, is
 *                    refused naming the line), one that is other text is
 *                    ignored
 *   seq              one probe a line; the name is the sequence itself
 * Blank lines and lines starting with '#' are skipped in the line formats,
 * and so is a header row: a first probe line whose sequence column reads
 * as a column title (sequence, seq, probe, primer, pattern, motif, guide,
 * oligo, target ...: header_row in probes.c).
 * Letters are case-insensitive; DNA accepts U for T. A probe is an exact
 * string of its alphabet's letters, or a pattern (pattern.h): IUPAC codes in
 * DNA, PROSITE syntax in either alphabet. When every probe is an exact
 * string of one length k (1 <= k <= PS_MAX_K), they are symbol codes; else
 * (a pattern, or lengths that differ) every probe is read into classes
 * (patterns = 1) and k is the longest. */
#ifndef PS_PROBES_H
#define PS_PROBES_H

#include <stdint.h>

#include "alphabet.h"
#include "error.h"
#include "pattern.h"

#ifdef __cplusplus
extern "C" {
#endif

#define PS_MAX_K 256
#define PS_NO_LIMIT 0xFF
#define PS_NOTE_MAX 512

typedef enum { PS_ALPHA_AUTO = -1, PS_ALPHA_DNA = PS_DNA, PS_ALPHA_PROTEIN = PS_PROTEIN } ps_alpha_req_t;

typedef struct {
    uint32_t n;        /* number of probes */
    int k;             /* common length */
    ps_alpha_t alpha;  /* chosen alphabet */
    int alpha_auto;    /* 1 when the alphabet was inferred from the probes */
    char alpha_note[PS_NOTE_MAX]; /* when the probes did not agree on it: what was chosen and why ("" else) */
    char **name;       /* n names (the seq array itself where every name is its sequence) */
    char **seq;        /* n sequences as upper-case letters (U kept as written) */
    uint8_t *code;     /* n * k symbol codes, probe i at code + i*k (NULL for patterns) */
    int patterns;      /* the probes are read into classes: one has a class, or lengths differ */
    uint32_t *len;     /* patterns: probe i's positions, optional ones included */
    ps_class_t *cls;   /* patterns: n * k classes, probe i at cls + i*k */
    uint8_t *opt;      /* patterns: n * k flags, 1 where a match may skip the position */
    uint8_t *anchors;  /* patterns: n anchor sets (PS_ANCHOR_*) */
    char **id;         /* a PROSITE file: each row's entry ID (its name is the accession); else NULL */
    char *id_text;
    uint32_t *psinfo;  /* a PROSITE file: each row's PS_PSINFO_* (what ps_scan's gff says of it); else NULL */
    uint32_t skipped_matrix, skipped_rule; /* a PROSITE file: entries that are no pattern */
    uint32_t skipped_frequent; /* PS_LOAD_SKIP_FREQUENT: patterns flagged SKIP-FLAG=TRUE left out */
    /* Guides (guides.h): */
    uint8_t *limit;    /* n mismatch limits, one a probe (a line's third column, a Cas-OFFinder file);
                        * PS_NO_LIMIT where none was given; NULL: none was given anywhere */
    uint8_t *fixed;    /* patterns: n * k flags, 1 where a site must match without a mismatch (a PAM);
                        * NULL: none */
    uint8_t bulge_dna, bulge_rna; /* the most bases of a DNA, an RNA bulge a site may hold (bulges.h) */
    uint8_t exact_pieces; /* a guide library's index: exact pieces a site shares (guideset.h); 0 chooses */
    int casoff;        /* read from a Cas-OFFinder input file (guides.h) */
    char **query;      /* n texts for --format cas-offinder's query column (the guide with N over the
                        * PAM); NULL: the sequence */
    char *query_text;
    char *name_text;   /* all names back to back, where name[i] points; NULL where every name is its
                        * sequence (name is then seq) */
    char *seq_text;    /* all sequences back to back, where seq[i] points (ps_probes_free
                        * frees the two blocks; a name or sequence is never freed alone) */
} ps_probes_t;

/* Loads probes from path. With PS_ALPHA_AUTO the alphabet is protein when
 * any probe is in PROSITE syntax (a PROSITE file too), else DNA when every
 * probe looks like DNA (its letters all ACGTU or IUPAC codes, at least half
 * of them ACGTU or N), else protein;
 * a choice the probes disagree on is described in alpha_note. The probes
 * are coded on up to `threads` threads (parallel.h); errors name the first
 * bad probe in the file, whatever the threads. */
int ps_probes_load(ps_probes_t **out, const char *path, ps_alpha_req_t req, int threads, ps_err_t *err);

/* A PROSITE entry: flagged SKIP-FLAG=TRUE (frequent matches); its DR lines
 * list true positives, and COUNT of them are false positives. */
#define PS_PSINFO_SKIP 0x80000000u
#define PS_PSINFO_FALSEPOS 0x40000000u
#define PS_PSINFO_COUNT 0x3fffffffu

/* The same with flags: PS_LOAD_SKIP_FREQUENT leaves out the PROSITE
 * entries flagged SKIP-FLAG=TRUE (ps_scan -s). Where that leaves no
 * pattern, the set is empty (n = 0: nothing to match, as ps_scan -s
 * matches nothing), not an error. */
#define PS_LOAD_SKIP_FREQUENT 1
int ps_probes_load_flags(ps_probes_t **out, const char *path, ps_alpha_req_t req, int threads, int flags,
                         ps_err_t *err);

/* Builds a probe set from in-memory sequences (tests and tools); names may be
 * NULL, in which case each name is its sequence. */
int ps_probes_from_strings(ps_probes_t **out, uint32_t n, const char *const *seqs,
                           const char *const *names, ps_alpha_req_t req, ps_err_t *err);

/* Tells stderr what the user should know of a loaded set from path: a
 * disputed alphabet, PROSITE entries that are no pattern. */
void ps_probes_warn(const ps_probes_t *p, const char *path);

/* Frees the exact probes' symbol codes where the index no longer needs
 * them (plan.c; code is then NULL): ten million 31-mers hold 310 MB less
 * while they are counted. Patterns keep theirs. */
void ps_probes_drop_codes(ps_probes_t *p);
void ps_probes_free(ps_probes_t *p);

#ifdef __cplusplus
}
#endif

#endif
