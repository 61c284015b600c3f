/* options.h - the options `count` and `locate` share: one loop's worth of
 * them (ps_run_opts_t, ps_run_opt: each command reads only its own beside
 * them) and their inputs settled in one place, how each value is read, the
 * probes they name (loaded, warned about, their strands), and the checks on
 * the files a run writes.
 *
 * Each other ps_opt_* reads one option's value into *out and returns 0, or a
 * PS_E_USAGE code with a message naming the option and what it takes.
 * ps_check_outputs refuses, before anything is read, an output or a
 * statistics file that is one of the inputs, the probe file or the sample
 * sheet (it would be overwritten), the two naming one file, both going to
 * standard output, and an empty name. */
#ifndef PS_OPTIONS_H
#define PS_OPTIONS_H

#include <stdint.h>

#include "error.h"
#include "guides.h"
#include "probes.h"
#include "prosite.h"
#include "scan.h"

#ifdef __cplusplus
extern "C" {
#endif

/* --engine: where the scanning runs. */
typedef enum { PS_REQ_AUTO, PS_REQ_CPU, PS_REQ_GPU } ps_engine_req_t;

/* A whole number from 0 to max, digits only; -1 otherwise. */
int ps_opt_uint(const char *s, uint64_t max, uint64_t *out);

int ps_opt_alphabet(const char *arg, ps_alpha_req_t *out, ps_err_t *err);  /* -a: dna, protein, auto */
int ps_opt_strand(const char *arg, int *both, ps_err_t *err);             /* -s: both, forward */
/* -t: 1 to 4096, of which at most PS_THREADS_PER_CPU a CPU the process may use are started. */
#define PS_THREADS_PER_CPU 4
int ps_opt_threads(const char *arg, int *out, ps_err_t *err);
int ps_opt_mismatches(const char *arg, int *out, ps_err_t *err);          /* -m: 0 to PS_MAX_MM */
int ps_opt_engine(const char *arg, ps_engine_req_t *out, ps_err_t *err);  /* --engine: auto, cpu, gpu */
int ps_opt_gpu(const char *arg, ps_gpus_t *out, ps_err_t *err);           /* --gpu: 0 / 0,1 / all */
/* --gpu's devices where a GPU may run (not --engine cpu): each must be one
 * the driver shows, else a usage error naming it (on a build without CUDA,
 * or a host without a GPU, every one). Starts the CUDA driver when a list
 * was given. */
int ps_opt_gpus_exist(const ps_gpus_t *g, ps_engine_req_t engine, ps_err_t *err);

/* Loads the probe file path (on up to threads threads), or a Cas-OFFinder
 * input file (guides.h), adds the PAM of go, tells stderr what the user
 * should know of it (ps_probes_warn), and decides the strands they are
 * matched on into *both_out: both as asked (-s), except that protein has
 * one; -s both said outright for protein is refused, saying that protein
 * probes are `done` forward. *mismatches (-m) becomes the most any probe
 * takes (its own limit, guides.h). *p is set whenever loading succeeded
 * (the caller frees it, also on a refusal). */
int ps_opt_probes(ps_probes_t **p, const char *path, ps_alpha_req_t alpha, int threads, int both, int strand_set,
                  const ps_psopts_t *pso, const ps_guide_opts_t *go, int *mismatches, const char *done, int *both_out,
                  ps_err_t *err);

/* --pam, --pam5, --dna-bulge and --rna-bulge, the same in count and
 * locate: their getopt keys, their lines of --help, and ps_opt_guide, which
 * reads the option of key into *o (1), or returns 0 for another key (or a
 * PS_E_USAGE code). */
enum { PS_OPT_PAM = 420, PS_OPT_PAM5, PS_OPT_DNA_BULGE, PS_OPT_RNA_BULGE, PS_OPT_EXACT_PIECES };
#define PS_OPT_GUIDE_LONGOPTS                                                                                \
    {"pam", required_argument, NULL, PS_OPT_PAM}, {"pam5", required_argument, NULL, PS_OPT_PAM5},            \
    {"dna-bulge", required_argument, NULL, PS_OPT_DNA_BULGE}, {"rna-bulge", required_argument, NULL, PS_OPT_RNA_BULGE},        \
    {"exact-pieces", required_argument, NULL, PS_OPT_EXACT_PIECES}
#define PS_OPT_GUIDE_HELP                                                                                    \
    "      --pam SEQ          a PAM 3' of every probe (IUPAC; NGG for SpCas9, NNGRRT for SaCas9):\n"       \
    "                         it must match, and mismatches count in the probe only\n"                      \
    "      --pam5 SEQ         a PAM 5' of every probe (TTTV for Cas12a)\n"                                  \
    "      --dna-bulge N      also sites with up to N extra genome bases at one place in the\n"            \
    "                         protospacer (0 to 8; with a PAM, as Cas-OFFinder 3 defines bulges)\n"        \
    "      --rna-bulge N      also sites lacking up to N of the guide's bases at one place\n"              \
    "      --exact-pieces N   a library within D mismatches: look guides up by N exact pieces of\n"       \
    "                         D + N (1 to 4; by default the least work); sites are the same\n"
int ps_opt_guide(int key, const char *arg, ps_guide_opts_t *o, ps_err_t *err);

/* -p -: where standard input is no regular file (a pipe), copies it into
 * an unnamed temporary file that becomes standard input, at its start, so
 * that the probe file can be looked at (a Cas-OFFinder file?) and then
 * read, as a file named on the command line can. Nothing for another path,
 * or where an input reads standard input too (refused later). */
int ps_opt_spool_stdin(const char *probes, const char *const *inputs, int n_inputs, ps_err_t *err);

/* Whether sites that hold letters that are no base are found under
 * Cas-OFFinder's rule (nsites.h): for a Cas-OFFinder input file (count
 * and locate) and for Cas-OFFinder's rows (casoff_rows), with DNA guides
 * and no bulges. */
int ps_opt_nsites_rule(const ps_probes_t *p, int casoff_rows);
/* Under that rule each input is read twice: one that cannot be (standard
 * input, a pipe) is refused, naming it. */
int ps_opt_nsites_input(const char *input, ps_err_t *err);

/* Where no input is given and the probe file is a Cas-OFFinder input
 * file: the inputs its first line names (*inputs malloc'd, freed with
 * ps_casoff_inputs_free); else *n = 0. */
int ps_opt_casoff_inputs(const char *probes, char ***inputs, int *n, ps_err_t *err);

/* ps_scan's options (prosite.h), the same in count and locate: their
 * getopt keys, their lines of --help, and ps_opt_psscan, which reads the
 * option of key into *o (1), or returns 0 for another key (or a PS_E_USAGE
 * code). ps_opt_probes loads with --skip-frequent, refuses the options
 * where no probe takes ps_scan's rules, and lets X match every class of a
 * rule's pattern where --max-x or --no-overlaps needs it. */
enum { PS_OPT_INCLUDED = 400, PS_OPT_SKIP_FREQUENT, PS_OPT_MAX_X, PS_OPT_NO_OVERLAPS, PS_OPT_SHORTEST,
       PS_OPT_NO_PROFILES, PS_OPT_PROFILES_ONLY, PS_OPT_LEVEL };
#define PS_OPT_PSSCAN_LONGOPTS                                                                              \
    {"included", no_argument, NULL, PS_OPT_INCLUDED}, {"skip-frequent", no_argument, NULL, PS_OPT_SKIP_FREQUENT}, \
        {"max-x", required_argument, NULL, PS_OPT_MAX_X}, {"no-overlaps", no_argument, NULL, PS_OPT_NO_OVERLAPS}, \
        {"shortest", no_argument, NULL, PS_OPT_SHORTEST}, {"no-profiles", no_argument, NULL, PS_OPT_NO_PROFILES},     \
        {"profiles-only", no_argument, NULL, PS_OPT_PROFILES_ONLY}, {"level", required_argument, NULL, PS_OPT_LEVEL}
#define PS_OPT_PSSCAN_HELP                                                                                  \
    "  PROSITE patterns over proteins, matched exactly, are reported as ps_scan reports them:\n"           \
    "      --included         every start, also a site that ends within the one before (ps_scan -i)\n"      \
    "      --no-overlaps      look for the next site after the end of the last (ps_scan -v)\n"              \
    "      --shortest         repeats e(n,m) as short as can be, not as long (ps_scan -g)\n"                \
    "      --max-x N          a site may take N X residues where residues are named (ps_scan -x; 0)\n"      \
    "      --skip-frequent    leave out entries flagged SKIP-FLAG=TRUE (ps_scan -s)\n"                    \
    "  A PROSITE data file's MATRIX entries are profiles, scored as pfscanV3 -n scores them:\n"          \
    "      --no-profiles      its patterns only (ps_scan -r)\n"                                          \
    "      --profiles-only    its profiles only (ps_scan -m)\n"                                          \
    "      --level L          the profiles' cut-off level L, -99 to 99 (ps_scan -l; default 0)\n"
int ps_opt_psscan(int key, const char *arg, ps_psopts_t *o, ps_err_t *err);
/* 1 when probes take ps_scan's rules: protein, exact (mismatches 0), a
 * PROSITE pattern among them. */
int ps_opt_psscan_rules(const ps_probes_t *p, int mismatches);

/* Before a run: where -a auto read the probes as protein, the first input
 * that is a regular file (never standard input, a pipe or a FIFO, which the
 * run could not read again) is sampled (its first stretch, read as DNA); one warning on stderr when its letters are nearly all A, C, G,
 * T, U or N: DNA patterns that needed -a dna. Nothing is consumed; an input
 * that cannot be read is left for the run to report. */
void ps_opt_check_protein_input(const ps_probes_t *p, ps_alpha_req_t req, const char *const *inputs, int n);
/* After a DNA run: one warning on stderr when inputs held mostly letters
 * that are no nucleotide (st[i].in.foreign against the letters read):
 * proteins counted as DNA. */
void ps_opt_check_dna_input(const ps_probes_t *p, const char *const *inputs, int n, const ps_scan_stats_t *st);

/* An input's name in the output (ps_sample_name: a --by-file column, the
 * input column of --by-record and locate's TSV) into name[0..n); a tab or
 * line break in it, which no row can hold, is refused before anything is
 * read, naming `what` (the option that writes it). */
int ps_opt_input_name(const char *path, const char *what, char *name, size_t n, ps_err_t *err);

/* Refuses one file given twice among the inputs, however spelt (a.fa,
 * ./a.fa, a full path, a link): compared by device and inode, so its counts
 * cannot be added twice. Inputs that cannot be looked at ("-", a missing
 * file) are left for the run to report. sheet: the --samples file naming
 * them, for the message (NULL: the command line). */
int ps_check_inputs_distinct(const char *const *inputs, int n, const char *sheet, ps_err_t *err);

/* output and stats may be NULL or "-" (standard output), never ""; sheet
 * (the --samples file) may be NULL. */
int ps_check_outputs(const char *output, const char *stats, const char *const *inputs, int n_inputs,
                     const char *probes, const char *sheet, ps_err_t *err);

/* What count and locate share, read by one loop: the probes and how they
 * are read, the run's budget and engine, ps_scan's and the guides'
 * options, the statistics file, the inputs. Each command reads its own
 * options beside them. */
typedef struct {
    const char *probes, *output, *stats;
    ps_alpha_req_t alpha;
    int strand_set, both_strands;
    int threads, verbose, quiet, mismatches, mm_set; /* -m, and whether it was given */
    ps_engine_req_t engine;
    ps_gpus_t gpus;
    ps_psopts_t pso;       /* ps_scan's rules (prosite.h) */
    ps_guide_opts_t go;    /* --pam, --pam5, bulges (guides.h) */
    char **inputs;
    int n_inputs;
    char **casoff_inputs;  /* the inputs a Cas-OFFinder file names, when none are given */
    int n_casoff;
} ps_run_opts_t;

/* The shared options' getopt keys, short ones (to begin the command's
 * string) and long ones (to begin its table). */
enum { PS_OPT_STATS = 440, PS_OPT_ENGINE, PS_OPT_GPU };
#define PS_RUN_SHORTOPTS ":p:a:s:o:t:m:vq"
#define PS_RUN_LONGOPTS                                                                                                \
    {"probes", required_argument, NULL, 'p'}, {"alphabet", required_argument, NULL, 'a'},                              \
    {"strand", required_argument, NULL, 's'}, {"output", required_argument, NULL, 'o'},                                \
    {"threads", required_argument, NULL, 't'}, {"mismatches", required_argument, NULL, 'm'},                           \
    {"verbose", no_argument, NULL, 'v'}, {"quiet", no_argument, NULL, 'q'},                                            \
    {"stats", required_argument, NULL, PS_OPT_STATS}, {"engine", required_argument, NULL, PS_OPT_ENGINE},              \
    {"gpu", required_argument, NULL, PS_OPT_GPU}, PS_OPT_PSSCAN_LONGOPTS, PS_OPT_GUIDE_LONGOPTS

/* The defaults: alphabet auto, both strands, a thread a CPU the process may use. */
void ps_run_opts_init(ps_run_opts_t *o);
/* The option of key c (value arg) into o: 1 when it is one of the shared
 * options, 0 when it is not, or a PS_E_USAGE code. */
int ps_run_opt(int c, const char *arg, ps_run_opts_t *o, ps_err_t *err);
/* After the loop, before the inputs: probes given, --gpu's devices there
 * (cmd names the command in the message). */
int ps_run_opts_check(const ps_run_opts_t *o, const char *cmd, ps_err_t *err);
/* The inputs (o->inputs, o->n_inputs set by the command): -p - through a
 * pipe kept in a file, a Cas-OFFinder file's genome where none is given,
 * at least one, and none given twice (samples: the sample sheet, whose
 * files they are, or NULL). */
int ps_run_opts_inputs(ps_run_opts_t *o, const char *samples, ps_err_t *err);

#ifdef __cplusplus
}
#endif

#endif
