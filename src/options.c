#include "options.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bulges.h"
#include "engine_gpu.h"
#include "guideset.h"
#include "host.h"
#include "patset.h"
#include "samples.h"
#include "seqio.h"

int ps_opt_uint(const char *s, uint64_t max, uint64_t *out)
{
    char *end;
    if (*s < '0' || *s > '9') return -1;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || *end || v > max) return -1;
    *out = v;
    return 0;
}

int ps_opt_alphabet(const char *arg, ps_alpha_req_t *out, ps_err_t *err)
{
    if (!strcmp(arg, "dna")) *out = PS_ALPHA_DNA;
    else if (!strcmp(arg, "protein")) *out = PS_ALPHA_PROTEIN;
    else if (!strcmp(arg, "auto")) *out = PS_ALPHA_AUTO;
    else return ps_fail(err, PS_E_USAGE, "--alphabet must be dna, protein or auto, not '%s'", arg);
    return PS_OK;
}

int ps_opt_strand(const char *arg, int *both, ps_err_t *err)
{
    if (!strcmp(arg, "both")) *both = 1;
    else if (!strcmp(arg, "forward")) *both = 0;
    else return ps_fail(err, PS_E_USAGE, "--strand must be both or forward, not '%s'", arg);
    return PS_OK;
}

int ps_opt_threads(const char *arg, int *out, ps_err_t *err)
{
    uint64_t v;
    if (ps_opt_uint(arg, 4096, &v) || v < 1)
        return ps_fail(err, PS_E_USAGE, "--threads must be a number from 1 to 4096, not '%s'", arg);
    /* Threads beyond a few a CPU only cost memory (buffers, counts and a
     * stack each): the budget stops there, so memory stays bounded. */
    const int cpus = ps_host_cpus();
    uint64_t most = (uint64_t)PS_THREADS_PER_CPU * (uint64_t)cpus;
    *out = (int)(v < most ? v : most);
    /* A number asked for and not kept is said, once, on stderr. */
    if (v > most)
        fprintf(stderr, "probescan: -t %s: %d threads started, at most %d a CPU (%d CPU%s usable)\n", arg, *out,
                PS_THREADS_PER_CPU, cpus, cpus == 1 ? "" : "s");
    return PS_OK;
}

int ps_opt_mismatches(const char *arg, int *out, ps_err_t *err)
{
    uint64_t v;
    if (ps_opt_uint(arg, PS_MAX_MM, &v))
        return ps_fail(err, PS_E_USAGE, "--mismatches must be a number from 0 to %d, not '%s'", PS_MAX_MM, arg);
    *out = (int)v;
    return PS_OK;
}

int ps_opt_engine(const char *arg, ps_engine_req_t *out, ps_err_t *err)
{
    if (!strcmp(arg, "auto")) *out = PS_REQ_AUTO;
    else if (!strcmp(arg, "cpu")) *out = PS_REQ_CPU;
    else if (!strcmp(arg, "gpu")) *out = PS_REQ_GPU;
    else return ps_fail(err, PS_E_USAGE, "--engine must be auto, gpu or cpu, not '%s'", arg);
    return PS_OK;
}

int ps_opt_gpu(const char *arg, ps_gpus_t *out, ps_err_t *err)
{
    memset(out, 0, sizeof *out);
    if (!strcmp(arg, "all")) {
        out->all = 1;
        return PS_OK;
    }
    const char *at = arg;
    for (;;) {
        const char *end = strchr(at, ',');
        char one[16];
        const size_t len = end ? (size_t)(end - at) : strlen(at);
        uint64_t v;
        if (len == 0 || len >= sizeof one) return ps_fail(err, PS_E_USAGE, "--gpu takes device numbers (0,1) or all, not '%s'", arg);
        memcpy(one, at, len);
        one[len] = '\0';
        if (ps_opt_uint(one, 1024, &v))
            return ps_fail(err, PS_E_USAGE, "--gpu takes device numbers (0,1) or all, not '%s'", arg);
        for (int i = 0; i < out->n; i++)
            if (out->id[i] == (int)v) return ps_fail(err, PS_E_USAGE, "--gpu names device %d twice in '%s'", (int)v, arg);
        if (out->n == PS_GPUS_MAX) return ps_fail(err, PS_E_USAGE, "--gpu takes at most %d devices", PS_GPUS_MAX);
        out->id[out->n++] = (int)v;
        if (!end) return PS_OK;
        at = end + 1;
    }
}

int ps_opt_gpus_exist(const ps_gpus_t *g, ps_engine_req_t engine, ps_err_t *err)
{
    /* CPU threads take no GPU: a list there changes nothing (scripts share one). */
    if (g->n == 0 || engine == PS_REQ_CPU) return PS_OK;
    const int visible = ps_gpu_count();
    if (visible == 0) {
        char why[256];
        (void)ps_gpu_usable(g->id[0], why, sizeof why);
        return ps_fail(err, PS_E_USAGE, "--gpu: no GPU to use here: %s (leave out --gpu, or give --engine cpu)", why);
    }
    for (int i = 0; i < g->n; i++)
        if (g->id[i] >= visible)
            return ps_fail(err, PS_E_USAGE, "--gpu %d: no such GPU; %d %s visible (0%s%.0d)", g->id[i], visible,
                           visible == 1 ? "is" : "are", visible > 1 ? " to " : "", visible - 1);
    return PS_OK;
}

int ps_check_outputs(const char *output, const char *stats, const char *const *inputs, int n_inputs,
                     const char *probes, const char *sheet, ps_err_t *err)
{
    if ((output && !*output) || (stats && !*stats))
        return ps_fail(err, PS_E_USAGE, "%s takes a file name, not an empty one ('-' is standard output)",
                       output && !*output ? "-o" : "--stats");
    /* Every file the run reads, with what it is to the user: reader i is the
     * probe file, the sheet, then the inputs. */
    const int n = n_inputs + 2;
#define READER(i) ((i) == 0 ? probes : (i) == 1 ? sheet : inputs[(i) - 2])
#define ROLE(i) ((i) == 0 ? "the probe file" : (i) == 1 ? "the --samples sheet" : "the input")
    /* Standard input can be read once. */
    for (int i = 0, first = -1; i < n; i++) {
        if (!READER(i) || strcmp(READER(i), "-")) continue;
        if (first >= 0)
            return ps_fail(err, PS_E_USAGE, "%s and %s both read standard input ('-'), which can be read once; "
                                            "give one of them as a file",
                           ROLE(first), first >= 2 ? "another input" : ROLE(i));
        first = i;
    }
    /* Writing over an input (or one output over the other) would lose data
     * before the run could even fail. */
    const char *outs[2] = {output, stats};
    for (int w = 0; w < 2; w++) {
        struct stat so, si;
        if (!outs[w] || !strcmp(outs[w], "-") || stat(outs[w], &so) != 0 || !S_ISREG(so.st_mode)) continue;
        for (int i = 0; i <= n; i++) {
            const char *in = i < n ? READER(i) : w == 0 ? stats : NULL;
            if (in && strcmp(in, "-") && stat(in, &si) == 0 && si.st_dev == so.st_dev && si.st_ino == so.st_ino)
                return ps_fail(err, PS_E_USAGE, "%s '%s' is %s '%s'; it would be overwritten", w ? "--stats" : "-o",
                               outs[w], i < n ? ROLE(i) : "--stats file", in);
        }
    }
#undef READER
#undef ROLE
    if (output && stats && strcmp(output, "-") && !strcmp(output, stats))
        return ps_fail(err, PS_E_USAGE, "-o and --stats both name '%s'", output);
    if (stats && !strcmp(stats, "-") && (!output || !strcmp(output, "-")))
        return ps_fail(err, PS_E_USAGE, "--stats - and the output would both go to standard output; give -o FILE "
                                        "or --stats FILE");
    return PS_OK;
}

int ps_opt_psscan(int key, const char *arg, ps_psopts_t *o, ps_err_t *err)
{
    uint64_t v;
    switch (key) {
    case PS_OPT_INCLUDED: o->included = 1; return 1;
    case PS_OPT_SKIP_FREQUENT: o->skip_frequent = 1; return 1;
    case PS_OPT_NO_OVERLAPS: o->no_overlaps = 1; return 1;
    case PS_OPT_SHORTEST: o->shortest = 1; return 1;
    case PS_OPT_NO_PROFILES:
    case PS_OPT_PROFILES_ONLY:
        if (o->profiles && o->profiles != (key == PS_OPT_NO_PROFILES ? PS_PROFILES_NONE : PS_PROFILES_ONLY))
            return ps_fail(err, PS_E_USAGE, "--no-profiles and --profiles-only: give one of them");
        o->profiles = key == PS_OPT_NO_PROFILES ? PS_PROFILES_NONE : PS_PROFILES_ONLY;
        return 1;
    case PS_OPT_LEVEL: {
        char *end;
        long l = strtol(arg, &end, 10);
        if (end == arg || *end || l < -99 || l > 99)
            return ps_fail(err, PS_E_USAGE, "--level must be a whole number from -99 to 99, not '%s'", arg);
        o->level = (int)l;
        return 1;
    }
    case PS_OPT_MAX_X:
        if (ps_opt_uint(arg, PS_PATTERN_MAX, &v))
            return ps_fail(err, PS_E_USAGE, "--max-x must be a number from 0 to %d, not '%s'", PS_PATTERN_MAX, arg);
        o->max_x = (int)v;
        return 1;
    default: return 0;
    }
}

int ps_opt_psscan_rules(const ps_probes_t *p, int mismatches)
{
    if (p->alpha != PS_PROTEIN || !p->patterns || mismatches > 0) return 0;
    if (p->n == 0 && p->id) return 1; /* a PROSITE file whose patterns --skip-frequent all left out */
    for (uint32_t i = 0; i < p->n; i++)
        if (ps_pattern_is_prosite(p->seq[i], strlen(p->seq[i]))) return 1;
    return 0;
}

int ps_opt_guide(int key, const char *arg, ps_guide_opts_t *o, ps_err_t *err)
{
    if (key == PS_OPT_DNA_BULGE || key == PS_OPT_RNA_BULGE) {
        uint64_t v;
        if (ps_opt_uint(arg, PS_BULGE_MAX, &v))
            return ps_fail(err, PS_E_USAGE, "%s takes 0 to %d bases, not '%s'",
                           key == PS_OPT_DNA_BULGE ? "--dna-bulge" : "--rna-bulge", PS_BULGE_MAX, arg);
        if (key == PS_OPT_DNA_BULGE) o->dna_bulge = (int)v;
        else o->rna_bulge = (int)v;
        o->bulge_given = 1;
        return 1;
    }
    if (key == PS_OPT_EXACT_PIECES) {
        uint64_t v;
        if (ps_opt_uint(arg, PS_GUIDESET_MAX_NEED, &v) || v == 0)
            return ps_fail(err, PS_E_USAGE, "--exact-pieces takes 1 to %d, not '%s'", PS_GUIDESET_MAX_NEED, arg);
        o->exact_pieces = (int)v;
        return 1;
    }
    if (key != PS_OPT_PAM && key != PS_OPT_PAM5) return 0;
    int rc = ps_guides_check_pam(arg, key == PS_OPT_PAM ? "--pam" : "--pam5", err);
    if (rc < 0) return rc;
    if (o->pam && o->pam5 != (key == PS_OPT_PAM5))
        return ps_fail(err, PS_E_USAGE, "--pam and --pam5 name one PAM, 3' or 5' of the probe: give one of them");
    o->pam = arg;
    o->pam5 = key == PS_OPT_PAM5;
    return 1;
}

int ps_opt_spool_stdin(const char *probes, const char *const *inputs, int n_inputs, ps_err_t *err)
{
    struct stat st;
    if (!probes || strcmp(probes, "-")) return PS_OK;
    for (int i = 0; i < n_inputs; i++)
        if (!strcmp(inputs[i], "-")) return PS_OK;
    if (fstat(STDIN_FILENO, &st) == 0 && S_ISREG(st.st_mode)) return PS_OK;
    FILE *t = tmpfile();
    if (!t) return ps_fail(err, PS_E_IO, "-: cannot make a temporary file for the probes on standard input: %s",
                           strerror(errno));
    char buf[65536];
    ssize_t got;
    int rc = PS_OK;
    while ((got = read(STDIN_FILENO, buf, sizeof buf)) != 0) {
        if (got < 0) {
            if (errno == EINTR) continue;
            rc = ps_fail(err, PS_E_IO, "-: cannot read the probes on standard input: %s", strerror(errno));
            break;
        }
        if (fwrite(buf, 1, (size_t)got, t) != (size_t)got) {
            rc = ps_fail(err, PS_E_IO, "-: cannot keep the probes on standard input in a temporary file: %s",
                         strerror(errno));
            break;
        }
    }
    if (rc == PS_OK && (fflush(t) != 0 || dup2(fileno(t), STDIN_FILENO) < 0 || lseek(STDIN_FILENO, 0, SEEK_SET) != 0))
        rc = ps_fail(err, PS_E_IO, "-: cannot read the probes on standard input again: %s", strerror(errno));
    /* Standard input holds the file now; the stream's descriptor goes. */
    fclose(t);
    return rc;
}

int ps_opt_nsites_rule(const ps_probes_t *p, int casoff_rows)
{
    return p->alpha == PS_DNA && !p->bulge_dna && !p->bulge_rna && (casoff_rows || p->casoff);
}

int ps_opt_nsites_input(const char *input, ps_err_t *err)
{
    struct stat st;
    if (strcmp(input, "-") != 0 && stat(input, &st) == 0 && S_ISREG(st.st_mode)) return PS_OK;
    return ps_fail(err, PS_E_USAGE,
                   "%s: Cas-OFFinder's rule for N (sites that hold a letter that is no base) reads each input "
                   "twice: give a file, not standard input or a pipe",
                   input);
}

int ps_opt_casoff_inputs(const char *probes, char ***inputs, int *n, ps_err_t *err)
{
    char *genome = NULL;
    *inputs = NULL;
    *n = 0;
    if (!ps_casoff_detect(probes, &genome)) return PS_OK;
    int rc = ps_casoff_inputs(genome, inputs, n, err);
    free(genome);
    return rc;
}

int ps_opt_probes(ps_probes_t **p, const char *path, ps_alpha_req_t alpha, int threads, int both, int strand_set,
                  const ps_psopts_t *pso, const ps_guide_opts_t *go, int *mismatches, const char *done, int *both_out,
                  ps_err_t *err)
{
    char *genome = NULL;
    const int casoff = ps_casoff_detect(path, &genome);
    free(genome);
    int rc;
    if (casoff) {
        if (alpha == PS_ALPHA_PROTEIN)
            return ps_fail(err, PS_E_USAGE, "%s is a Cas-OFFinder input file: DNA guides, not -a protein", path);
        if (go->pam)
            return ps_fail(err, PS_E_USAGE, "%s is a Cas-OFFinder input file, whose pattern line holds the PAM; "
                                            "leave out %s", path, go->pam5 ? "--pam5" : "--pam");
        /* An explicit 0 too: the file's sizes are not overridden. */
        if (go->bulge_given && casoff == 2)
            return ps_fail(err, PS_E_USAGE, "%s is a Cas-OFFinder input file, whose pattern line holds the bulge "
                                            "sizes; leave out --dna-bulge and --rna-bulge", path);
        if (go->bulge_given)
            return ps_fail(err, PS_E_USAGE, "%s is a Cas-OFFinder input file, whose pattern line sets the bulge "
                                            "sizes (none on it now); write them there as `PATTERN DNA RNA` "
                                            "(Cas-OFFinder 3) and leave out --dna-bulge and --rna-bulge", path);
        rc = ps_casoff_load(p, path, err);
        if (rc == PS_OK) (*p)->exact_pieces = (uint8_t)go->exact_pieces;
    } else {
        rc = ps_probes_load_flags(p, path, alpha, threads, pso->skip_frequent ? PS_LOAD_SKIP_FREQUENT : 0, err);
        if (rc == PS_OK && go->pam) rc = ps_guides_add_pam(p, go->pam, go->pam5, path, err);
        if (rc == PS_OK) {
            (*p)->bulge_dna = (uint8_t)go->dna_bulge;
            (*p)->bulge_rna = (uint8_t)go->rna_bulge;
            (*p)->exact_pieces = (uint8_t)go->exact_pieces;
        }
    }
    if (rc < 0) return rc;
    /* A number in a third column changes what is counted: said aloud. */
    uint32_t own = 0;
    for (uint32_t i = 0; !casoff && (*p)->limit && i < (*p)->n; i++) own += (*p)->limit[i] != PS_NO_LIMIT;
    if ((rc = ps_guides_limits(*p, *mismatches, mismatches, path, err)) < 0) return rc;
    if (own)
        fprintf(stderr, "probescan: %s: %u probe%s own mismatch limit (the number in the third column)\n", path,
                own, own == 1 ? " takes its" : "s take their");
    *both_out = both && (*p)->alpha != PS_PROTEIN;
    if (both && (*p)->alpha == PS_PROTEIN && strand_set)
        return ps_fail(err, PS_E_USAGE, "--strand both applies to DNA only; protein probes are %s forward", done);
    if (ps_psopts_given(pso) && !ps_opt_psscan_rules(*p, *mismatches))
        return ps_fail(err, PS_E_USAGE, "%s: --included, --skip-frequent, --max-x, --no-overlaps and --shortest are "
                                        "ps_scan's rules for protein PROSITE patterns matched exactly%s",
                       path, *mismatches > 0 ? "; -m counts every start at its fewest mismatches" : "");
    if (pso->skip_frequent && !(*p)->id)
        return ps_fail(err, PS_E_USAGE, "--skip-frequent: %s is no PROSITE data file (its entries carry the flag)", path);
    /* A match that takes an X where a residue is named may count (--max-x),
     * or end a search (--no-overlaps): the engines then let X match every
     * class, as ps_scan's expressions do; else such starts cannot count and
     * are left out at once. */
    if (ps_opt_psscan_rules(*p, *mismatches) && (pso->max_x > 0 || pso->no_overlaps)) {
        uint8_t code[256];
        ps_alpha_table(PS_PROTEIN, code);
        const ps_class_t x = (ps_class_t)1 << code['X'];
        for (uint32_t i = 0; i < (*p)->n; i++)
            if (ps_pattern_is_prosite((*p)->seq[i], strlen((*p)->seq[i])))
                for (uint32_t j = 0; j < (*p)->len[i]; j++) (*p)->cls[(size_t)i * (size_t)(*p)->k + j] |= x;
    }
    ps_probes_warn(*p, path);
    return PS_OK;
}

/* Letters sampled from an input, and the share of them that must be
 * nucleotides for a protein run to warn. */
#define SAMPLE_SYMBOLS (1u << 20)
#define SAMPLE_MIN_LETTERS 100

/* Whether a probe is written in PROSITE syntax (a dash, a class, a
 * repeat), not a plain string of letters. */
static int prosite_syntax(const ps_probes_t *p)
{
    for (uint32_t i = 0; i < p->n; i++)
        if (ps_pattern_is_prosite(p->seq[i], strlen(p->seq[i]))) return 1;
    return 0;
}

void ps_opt_check_protein_input(const ps_probes_t *p, ps_alpha_req_t req, const char *const *inputs, int n)
{
    if (req != PS_ALPHA_AUTO || p->alpha != PS_PROTEIN) return;
    /* Only a regular file can be read twice: a pipe, a FIFO or <(...)
     * would lose what the sample read. */
    int i = 0;
    struct stat st_in;
    while (i < n && (stat(inputs[i], &st_in) != 0 || !S_ISREG(st_in.st_mode))) i++;
    if (i == n) return;
    ps_reader_t *r = NULL;
    ps_chunk_t c;
    ps_err_t e;
    if (ps_reader_open(&r, inputs[i], PS_DNA, 1, NULL, &e) < 0) return;
    if (ps_chunk_init(&c, PS_DNA, SAMPLE_SYMBOLS, 1u << 16, NULL, &e) < 0) {
        ps_reader_close(r);
        return;
    }
    int rc = ps_reader_next(r, &c, &e);
    const ps_reader_stats_t *st = ps_reader_stats(r);
    uint64_t letters = st->symbols + st->other;
    /* At most one in twenty letters no nucleotide: DNA, with room for the
     * IUPAC codes of assemblies; proteins hold far more (E, F, I, L, P, Q). */
    /* Said of what the user gave: a PROSITE file, probes in PROSITE
     * syntax, or protein strings (peptides). */
    const int syntax = !p->id && p->patterns && prosite_syntax(p);
    if (rc >= 0 && letters >= SAMPLE_MIN_LETTERS && st->foreign * 20 <= letters)
        fprintf(stderr,
                "probescan: warning: %s looks like DNA (%.1f%% of its first %" PRIu64 " letters are A, C, G, T, U "
                "or N) but the probes are read as protein%s, on the forward strand; give -a dna %s, or -a protein "
                "to keep this\n",
                inputs[i], 100.0 * (double)(letters - st->foreign) / (double)letters, letters,
                p->id    ? " (PROSITE patterns are protein unless -a dna)"
                : syntax ? " (patterns in PROSITE syntax are protein unless -a dna)"
                         : " (peptides: not every probe is bases or IUPAC codes)",
                p->id || syntax ? "to count DNA patterns on both strands" : "if the probes are DNA");
    ps_chunk_free(&c, NULL);
    ps_reader_close(r);
}

void ps_opt_check_dna_input(const ps_probes_t *p, const char *const *inputs, int n, const ps_scan_stats_t *st)
{
    if (p->alpha != PS_DNA) return;
    int bad = 0, first = -1;
    for (int i = 0; i < n; i++) {
        uint64_t letters = st[i].in.symbols + st[i].in.other;
        if (letters && st[i].in.foreign * 2 >= letters) {
            if (first < 0) first = i;
            bad++;
        }
    }
    if (first < 0) return;
    uint64_t letters = st[first].in.symbols + st[first].in.other;
    char more[64] = "";
    if (bad > 1) snprintf(more, sizeof more, " (and %d more input%s)", bad - 1, bad > 2 ? "s" : "");
    fprintf(stderr,
            "probescan: warning: %s%s: %.1f%% of the %" PRIu64 " letters are not A, C, G, T, U or N, yet the "
            "probes were counted as DNA (windows with such letters match nothing): is it protein? give -a protein\n",
            inputs[first], more, 100.0 * (double)st[first].in.foreign / (double)letters, letters);
}

int ps_opt_input_name(const char *path, const char *what, char *name, size_t n, ps_err_t *err)
{
    ps_sample_name(path, name, n);
    if (strpbrk(name, "\t\n\r"))
        return ps_fail(err, PS_E_USAGE, "%s: input '%s' has a tab or line break in its name, which no row can hold; "
                                        "rename it",
                       what, path);
    return PS_OK;
}

typedef struct {
    dev_t dev;
    ino_t ino;
    int idx;
} file_id_t;

static int cmp_file_id(const void *x, const void *y)
{
    const file_id_t *a = x, *b = y;
    if (a->dev != b->dev) return a->dev < b->dev ? -1 : 1;
    if (a->ino != b->ino) return a->ino < b->ino ? -1 : 1;
    return (a->idx > b->idx) - (a->idx < b->idx);
}

int ps_check_inputs_distinct(const char *const *inputs, int n, const char *sheet, ps_err_t *err)
{
    file_id_t *id = malloc(((size_t)n + 1) * sizeof *id);
    if (!id) return ps_fail(err, PS_E_NOMEM, "out of memory");
    int m = 0;
    for (int i = 0; i < n; i++) {
        struct stat st;
        if (strcmp(inputs[i], "-") && stat(inputs[i], &st) == 0) id[m++] = (file_id_t){st.st_dev, st.st_ino, i};
    }
    qsort(id, (size_t)m, sizeof *id, cmp_file_id);
    /* The first repeat in input order. */
    int a = -1, b = -1;
    for (int j = 1; j < m; j++)
        if (id[j].dev == id[j - 1].dev && id[j].ino == id[j - 1].ino && (b < 0 || id[j].idx < b)) {
            a = id[j - 1].idx;
            b = id[j].idx;
        }
    free(id);
    if (b < 0) return PS_OK;
    if (sheet)
        return ps_fail(err, PS_E_USAGE, "%s: '%s' and '%s' are one file (files %d and %d of the sheet), which would "
                                        "be read twice",
                       sheet, inputs[a], inputs[b], a + 1, b + 1);
    return ps_fail(err, PS_E_USAGE, "inputs '%s' and '%s' are one file (inputs %d and %d), which would be read "
                                    "twice: give it once",
                   inputs[a], inputs[b], a + 1, b + 1);
}

void ps_run_opts_init(ps_run_opts_t *o)
{
    memset(o, 0, sizeof *o);
    o->alpha = PS_ALPHA_AUTO;
    o->both_strands = 1;
    o->threads = ps_host_cpus();
}

int ps_run_opt(int c, const char *arg, ps_run_opts_t *o, ps_err_t *err)
{
    int rc = PS_OK;
    switch (c) {
    case 'p': o->probes = arg; break;
    case 'o': o->output = arg; break;
    case 'a': rc = ps_opt_alphabet(arg, &o->alpha, err); break;
    case 's':
        o->strand_set = 1;
        rc = ps_opt_strand(arg, &o->both_strands, err);
        break;
    case 't': rc = ps_opt_threads(arg, &o->threads, err); break;
    case 'm':
        rc = ps_opt_mismatches(arg, &o->mismatches, err);
        o->mm_set = 1;
        break;
    case 'v': o->verbose = 1; break;
    case 'q': o->quiet = 1; break;
    case PS_OPT_STATS: o->stats = arg; break;
    case PS_OPT_ENGINE: rc = ps_opt_engine(arg, &o->engine, err); break;
    case PS_OPT_GPU: rc = ps_opt_gpu(arg, &o->gpus, err); break;
    case PS_OPT_INCLUDED: case PS_OPT_SKIP_FREQUENT: case PS_OPT_MAX_X: case PS_OPT_NO_OVERLAPS: case PS_OPT_SHORTEST:
    case PS_OPT_NO_PROFILES: case PS_OPT_PROFILES_ONLY: case PS_OPT_LEVEL:
        rc = ps_opt_psscan(c, arg, &o->pso, err);
        break;
    case PS_OPT_PAM: case PS_OPT_PAM5: case PS_OPT_DNA_BULGE: case PS_OPT_RNA_BULGE: case PS_OPT_EXACT_PIECES:
        rc = ps_opt_guide(c, arg, &o->go, err);
        break;
    default: return 0;
    }
    return rc < 0 ? rc : 1;
}

int ps_run_opts_check(const ps_run_opts_t *o, const char *cmd, ps_err_t *err)
{
    if (!o->probes) return ps_fail(err, PS_E_USAGE, "no probes given: use -p FILE (see probescan %s --help)", cmd);
    return ps_opt_gpus_exist(&o->gpus, o->engine, err);
}

int ps_run_opts_inputs(ps_run_opts_t *o, const char *samples, ps_err_t *err)
{
    int rc = ps_opt_spool_stdin(o->probes, (const char *const *)o->inputs, o->n_inputs, err);
    if (rc < 0) return rc;
    if (o->n_inputs < 1) {
        if ((rc = ps_opt_casoff_inputs(o->probes, &o->casoff_inputs, &o->n_casoff, err)) < 0) return rc;
        o->inputs = o->casoff_inputs;
        o->n_inputs = o->n_casoff;
    }
    if (o->n_inputs < 1) return ps_fail(err, PS_E_USAGE, "no input files given (use '-' for standard input)");
    return ps_check_inputs_distinct((const char *const *)o->inputs, o->n_inputs, samples, err);
}
