/* count.c - `probescan count`: its options, the checks on how they
 * combine, the run and its statistics (plan.c chooses index and engine).
 *
 * The data path, top to bottom (ps_count_main):
 *   1. parse and check the options                  parse_count
 *   2. load the probes                              probes.c
 *   3. build the index: the Aho-Corasick DFA,        automaton.c
 *      leaves last, for many DNA k-mers the           kmerset.c
 *      k-mer set, or the pattern set                 patset.c (plan.c chooses)
 *   4. choose the engine                            plan.c (engine_*.c, kernels/)
 *   5. scan each input on one thread pool:          scan.c
 *      read (seqio.c), parse and pack (parse.c,
 *      blocks.c for parallel FASTA), scan chunks
 *   6. map leaves back to probes and write the TSV   output.c
 * Errors travel up as codes with a message; main prints them. */
#include "count.h"

#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <jansson.h>

#include "automaton.h"
#include "engine_gpu.h"
#include "engine_kmer.h"
#include "gpu_plan.h"
#include "host.h"
#include "kmerset.h"
#include "options.h"
#include "plan.h"
#include "output.h"
#include "probes.h"
#include "profscan.h"
#include "progress.h"
#include "samples.h"
#include "table.h"
#include "scan.h"
#include "sites.h"
#include "seqio.h"

#ifndef PS_VERSION
#define PS_VERSION "unknown"
#endif


typedef struct {
    ps_run_opts_t r;         /* the options locate shares (options.h) */
    const char *kernel;
    int by_file, by_record;
    ps_index_req_t index;
    ps_cleanup_t *cleanup;   /* removes temporary outputs on a signal */
    const char *samples_path;
    ps_samples_t *samples;   /* --samples: the inputs are its files, a column per sample */
    char **names;            /* --by-file, --by-record: each input's ps_sample_name */
} opts_t;

static void usage_count(FILE *f)
{
    char kernels[128];
    ps_gpu_variant_list(kernels, sizeof kernels);
    fprintf(f,
"Usage: probescan count [options] -p PROBES INPUT...\n"
"       probescan count [options] -p CAS-OFFINDER-INPUT [INPUT...]\n"
"\n"
"Count exact, overlapping occurrences of every probe in FASTA/FASTQ inputs\n"
"(plain, gzip or BGZF; '-' reads standard input), in 2bit genomes and in SAM,\n"
"BAM or CRAM reads.\n"
"Probes are exact strings (up to %d letters) or patterns with classes, of any\n"
"lengths. Output: TSV with a header, one row per probe in probe-file order.\n"
"\n"
"Options:\n"
"  -p, --probes FILE      probes: FASTA, one sequence per line, or name<TAB>sequence;\n"
"                         a probe may be a pattern: IUPAC codes (DNA) or PROSITE syntax;\n"
"                         or a PROSITE data file (prosite.dat): a row per PATTERN entry,\n"
"                         and per MATRIX entry (a profile, scored as pfscanV3 -n scores it);\n"
"                         or a Cas-OFFinder input file (its genome is the input if none is\n"
"                         given); a third column name<TAB>sequence<TAB>D is the probe's own -m\n"
"  -m, --mismatches D     also count sites within D substitutions (0 to %d); adds the\n"
"                         columns mm0 ... mmD, sites at exactly that distance\n"
PS_OPT_GUIDE_HELP
"  -a, --alphabet STR     dna, protein or auto (default auto: protein if a probe is a PROSITE\n"
"                         pattern, else dna if the probes' letters are bases or IUPAC codes,\n"
"                         at least half ACGTUN)\n"
"  -s, --strand STR       both or forward (DNA; default both). Protein: forward only\n"
"  -o, --output FILE      write the table to FILE (default or '-': standard output);\n"
"                         a name ending in .gz or .bgz is written compressed (BGZF)\n"
"  -t, --threads N        threads that load probes, parse, scan and write (default: the\n"
"                         %d CPUs this process may use; at most 4 a CPU are started);\n"
"                         several inputs are read up to N at a time, each on one more\n"
"                         thread that inflates gzip or waits for the others\n"
"      --by-file          one count column per input file (a probe x sample matrix)\n"
"      --samples FILE     one count column per sample: FILE has 'sample<TAB>file' lines,\n"
"                         several files per sample summed (R1 and R2, lanes)\n"
"      --by-record        long table: input, record, probe and counts for every record\n"
"                         with a match (CPU engine)\n"
"      --stats FILE       write run statistics as JSON to FILE\n"
"      --engine STR       auto, gpu or cpu (default auto: the CPU, or where a GPU is present\n"
"                         and the input is large or of unknown size, the GPU with the CPU\n"
"                         scanning while it starts; gpu: the GPU alone)\n"
"      --index STR        auto, automaton or kmer-set: what probes are looked up in\n"
"                         (default auto: the k-mer set for DNA probes of k <= 32 from\n"
"                         %d strings on; else the automaton)\n"
"      --gpu LIST         CUDA devices to use: 0, 0,1 or all (default: every visible\n"
"                         GPU the work repays, one per second of CPU work; pattern\n"
"                         sets other than DNA windows, at most one per 500 words\n"
"                         x mismatch levels)\n"
"      --kernel NAME      GPU kernel, default best; all count the same, the others are\n"
"                         for benchmarks: %s\n"
"  -v, --verbose          report the alphabet, automaton, engine and timings on stderr\n"
"  -q, --quiet            no progress line\n"
"  -h, --help             this help\n"
"      --version          print the version and exit\n"
PS_OPT_PSSCAN_HELP
"                         (count counts the sites locate lists with the same options)\n"
"\n"
"Counting: case-insensitive; U counts as T; a window with N or any other letter\n"
"outside the alphabet (in DNA also '.', '-', '*') matches nothing, not even a\n"
"probe's N or x; a site counts once, at its fewest mismatches; matches never\n"
"span records; an empty input counts zero records, with a warning. With both\n"
"strands, 'reverse' counts the probe's reverse complement and count = forward +\n"
"reverse (a palindromic probe counts twice per position).\n"
"\n"
"Example:\n"
"  probescan count -p probes.fa -t 8 genome.fa.gz > counts.tsv\n",
            PS_MAX_K, PS_MAX_MM, ps_host_cpus(), PS_KMER_SET_FROM, kernels);
}

/* Returns 0 to go on, 1 when done (help printed), or a negative code. */
static int parse_count(int argc, char **argv, opts_t *o, ps_err_t *err)
{
    enum { OPT_VERSION = 256, OPT_KERNEL, OPT_BYFILE, OPT_BYRECORD, OPT_SAMPLES, OPT_INDEX };
    static const struct option lopts[] = {
        PS_RUN_LONGOPTS, {"help", no_argument, NULL, 'h'}, {"version", no_argument, NULL, OPT_VERSION},
        {"kernel", required_argument, NULL, OPT_KERNEL}, {"by-file", no_argument, NULL, OPT_BYFILE},
        {"by-record", no_argument, NULL, OPT_BYRECORD}, {"samples", required_argument, NULL, OPT_SAMPLES},
        {"index", required_argument, NULL, OPT_INDEX}, {NULL, 0, NULL, 0}};
    memset(o, 0, sizeof *o);
    ps_run_opts_init(&o->r);
    if (argc <= 1) {
        usage_count(stdout);
        return 1;
    }
    opterr = 0;
    optind = 1;
    int c, rc = PS_OK;
    while (rc == PS_OK && (c = getopt_long(argc, argv, PS_RUN_SHORTOPTS "h", lopts, NULL)) != -1) {
        if ((rc = ps_run_opt(c, optarg, &o->r, err)) != 0) {
            if (rc > 0) rc = PS_OK;
            continue;
        }
        switch (c) {
        case 'h': usage_count(stdout); return 1;
        case OPT_VERSION: puts(PS_VERSION); return 1;
        case OPT_INDEX:
            if (!strcmp(optarg, "auto")) o->index = PS_INDEX_AUTO;
            else if (!strcmp(optarg, "automaton")) o->index = PS_INDEX_AUTOMATON;
            else if (!strcmp(optarg, "kmer-set")) o->index = PS_INDEX_KMER_SET;
            else return ps_fail(err, PS_E_USAGE, "--index must be auto, automaton or kmer-set, not '%s'", optarg);
            break;
        case OPT_KERNEL: o->kernel = optarg; break;
        case OPT_BYFILE: o->by_file = 1; break;
        case OPT_BYRECORD: o->by_record = 1; break;
        case OPT_SAMPLES: o->samples_path = optarg; break;
        case ':': return ps_fail(err, PS_E_USAGE, "option '%s' needs a value (see probescan count --help)", argv[optind - 1]);
        default: return ps_fail(err, PS_E_USAGE, "unknown option '%s' (see probescan count --help)", argv[optind - 1]);
        }
    }
    if (rc < 0) return rc;
    if ((rc = ps_run_opts_check(&o->r, "count", err)) < 0) return rc;
    o->r.inputs = argv + optind;
    o->r.n_inputs = argc - optind;
    if (o->samples_path) {
        if (o->r.n_inputs) return ps_fail(err, PS_E_USAGE, "--samples names the inputs: give no INPUT besides it");
        if (o->by_file || o->by_record)
            return ps_fail(err, PS_E_USAGE, "--samples makes a column per sample: drop %s",
                           o->by_file ? "--by-file" : "--by-record");
        int rc = ps_samples_load(&o->samples, o->samples_path, err);
        if (rc < 0) return rc;
        o->r.inputs = o->samples->file;
        o->r.n_inputs = (int)o->samples->n_files;
    }
    if ((rc = ps_run_opts_inputs(&o->r, o->samples_path, err)) < 0) return rc;
    if (o->by_file && o->by_record) return ps_fail(err, PS_E_USAGE, "--by-file and --by-record cannot be combined");
    if (o->kernel) {
        /* Checked here: with --engine auto the GPU starts in the background,
         * where a bad name would only show as a quiet fall-back. */
        if (ps_gpu_variant(o->kernel) < 0) {
            char list[128];
            ps_gpu_variant_list(list, sizeof list);
            return ps_fail(err, PS_E_USAGE, "--kernel must be one of %s, not '%s'", list, o->kernel);
        }
        if (!ps_gpu_kernel_names()[0]) return ps_fail(err, PS_E_USAGE, "--kernel: this probescan was built without CUDA");
    }
    if (o->by_file || o->by_record) {
        /* Column names (and by-record input names) must be unique, or a
         * matrix and its merge would be ambiguous. */
        if (!(o->names = calloc((size_t)o->r.n_inputs, sizeof *o->names)))
            return ps_fail(err, PS_E_NOMEM, "out of memory");
        char name[PS_SAMPLE_NAME_MAX];
        for (int i = 0; i < o->r.n_inputs; i++) {
            int rc_name = ps_opt_input_name(o->r.inputs[i], o->by_file ? "--by-file" : "--by-record", name, sizeof name,
                                            err);
            if (rc_name < 0) return rc_name;
            if (!(o->names[i] = strdup(name))) return ps_fail(err, PS_E_NOMEM, "out of memory");
            const char *a = o->names[i];
            if (o->by_file && ps_table_reserved_column(a))
                return ps_fail(err, PS_E_USAGE,
                               "--by-file: input '%s' would name a column '%s', a column of the table itself, which "
                               "merge and summary would then misread; rename it",
                               o->r.inputs[i], a);
            for (int j = 0; j < i; j++) {
                if (!strcmp(a, o->names[j]))
                    return ps_fail(err, PS_E_USAGE,
                                   "%s: inputs '%s' and '%s' would both be named '%s'; rename one",
                                   o->by_file ? "--by-file" : "--by-record", o->r.inputs[j], o->r.inputs[i], a);
            }
        }
    }
    if (o->by_record && o->r.engine == PS_REQ_GPU)
        return ps_fail(err, PS_E_USAGE, "--by-record runs on the CPU engine; drop --engine gpu");
    if (o->index == PS_INDEX_KMER_SET && o->kernel && strcmp(o->kernel, "best") != 0 && o->r.engine != PS_REQ_CPU &&
        !o->by_record)
        return ps_fail(err, PS_E_USAGE, "--kernel %s walks the automaton; --index kmer-set has a GPU kernel of its own",
                       o->kernel);
    return ps_check_outputs(o->r.output, o->r.stats, (const char *const *)o->r.inputs, o->r.n_inputs, o->r.probes,
                            o->samples_path, err);
}

typedef struct {
    double probes, build, engine, scan, output, total;
} timing_t;

/* --stats: JSON made by jansson (outfile.h), so any file name gives valid
 * JSON. engine is where the scanning ran, engine_requested what --engine
 * asked for (auto by default). */
static int write_stats(const opts_t *o, const ps_probes_t *p, const ps_leaves_t *lv, const ps_engine_t *const *es,
                       int n_engines, const ps_scan_stats_t *st, const timing_t *tm, ps_err_t *err)
{
    static const char *const asked[] = {[PS_REQ_AUTO] = "auto", [PS_REQ_CPU] = "cpu", [PS_REQ_GPU] = "gpu"};
    uint64_t rec = 0, bases = 0, bytes = 0, other = 0;
    json_t *ins = json_array();
    for (int i = 0; ins && i < o->r.n_inputs; i++) {
        const ps_reader_stats_t *in = &st[i].in;
        if (json_array_append_new(
                ins, json_pack("{s:o, s:s, s:I, s:I, s:I, s:I, s:o}", "path", ps_json_text(o->r.inputs[i]), "format",
                               in->format ? in->format : in->fastq ? "fastq" : "fasta", "records",
                               (json_int_t)in->records, "bases", (json_int_t)in->symbols, "other_symbols",
                               (json_int_t)in->other, "bytes", (json_int_t)in->bytes, "seconds",
                               ps_json_seconds(st[i].seconds))) < 0) {
            json_decref(ins);
            ins = NULL;
        }
        rec += in->records;
        bases += in->symbols;
        bytes += in->bytes;
        other += in->other;
    }
    struct rusage ru;
    long maxrss = getrusage(RUSAGE_SELF, &ru) == 0 ? ru.ru_maxrss : 0;
    ps_engine_info_t in;
    ps_engine_info(es[0], &in);
    for (int j = 1; j < n_engines; j++) {
        ps_engine_info_t more_in;
        ps_engine_info(es[j], &more_in);
        in.chunks_cpu += more_in.chunks_cpu;
        in.chunks_gpu += more_in.chunks_gpu;
    }
    char device[512];
    ps_engine_describe(&in, o->r.threads, device, sizeof device);
    /* A NULL member (out of memory) fails the whole json_pack. */
    json_t *j = json_pack(
        "{s:s, s:s, s:s, s:o, s:b, s:s?, s:s, s:b, s:{s:I, s:I}, s:i, s:i, s:I, s:i, s:s, s:s, s:i, s:o, s:I, s:I,"
        " s:I, s:I, s:{s:o, s:o, s:o, s:o, s:o, s:o}, s:I, s:o}",
        "version", PS_VERSION, "engine", ps_engine_ran(&in), "engine_requested", asked[o->r.engine], "device",
        ps_json_text(device), "gpu_started", in.gpu_started, "kernel", in.kernel[0] ? in.kernel : NULL, "index",
        in.bulges ? "bulges" : in.guides ? "guides" : in.patterns ? "patterns" : in.kmer_set ? "kmer_set" : "automaton", "kmer_path", in.kmer_path, "chunks", "cpu",
        (json_int_t)in.chunks_cpu, "gpu", (json_int_t)in.chunks_gpu, "readers", n_engines, "threads", o->r.threads,
        "probes", (json_int_t)p->n, "k", p->k, "alphabet", ps_alpha_name(p->alpha), "strands",
        lv->both_strands ? "both" : "forward", "mismatches", lv->levels - 1, "inputs", ins, "records",
        (json_int_t)rec, "bases_scanned", (json_int_t)bases, "other_symbols", (json_int_t)other, "bytes_read",
        (json_int_t)bytes, "seconds", "load_probes", ps_json_seconds(tm->probes), "build_index",
        ps_json_seconds(tm->build), "start_engine", ps_json_seconds(tm->engine), "scan", ps_json_seconds(tm->scan),
        "write_output", ps_json_seconds(tm->output), "total", ps_json_seconds(tm->total), "peak_memory_bytes",
        (json_int_t)maxrss * 1024, "gpus", ps_json_gpus(&in));
    return ps_json_save(o->r.stats, j, o->cleanup, err);
}

/* Count columns of the table: samples, inputs (--by-file) or one. */
static uint64_t count_columns(const opts_t *o)
{
    return o->samples ? o->samples->n_samples : o->by_file ? (uint64_t)o->r.n_inputs : 1;
}

/* Reading threads for several inputs at once: with CPU engines only (one
 * GPU serves one stream), not --by-record (its rows follow input order),
 * up to the thread budget (a reader inflates plain gzip and otherwise
 * sleeps while the pool works: 48 FASTQ.gz samples on 2 cores took 0.38 s
 * with one reader, 0.18 s with two, plain FASTA 0.10 and 0.09 s), and no
 * more engines than 512 MB of their per-thread counts allow. 1 means one
 * input after another. */
#define PARALLEL_COUNTS_MAX (512ull << 20)
static int parallel_readers(const opts_t *o, const ps_engine_info_t *in, const ps_leaves_t *lv)
{
    if (o->r.n_inputs < 2 || o->by_record || in->kind != PS_ENGINE_CPU) return 1;
    int r = o->r.threads < o->r.n_inputs ? o->r.threads : o->r.n_inputs;
    uint64_t per = (uint64_t)in->workers * (lv->n_leaves ? lv->n_leaves : 1) * sizeof(uint64_t);
    if (in->kmer_set && per > PS_KMER_LOCAL_COUNTS_MAX) per = (uint64_t)lv->n_leaves * sizeof(uint64_t); /* one shared array */
    if ((uint64_t)r * per > PARALLEL_COUNTS_MAX) r = (int)(PARALLEL_COUNTS_MAX / per);
    return r < 1 ? 1 : r;
}

static int run_patterns(opts_t *o, const ps_profiles_t *prf, ps_err_t *err);

/* Each profile's row: accession, ID, consensus, count, then as many fields
 * as the patterns' header has after count (-m: mm0 ... mmD), so that the
 * table stays rectangular for merge and summary: a profile's matches are
 * scored, never counted by mismatches, so all of them stand in mm0 and the
 * other levels are 0 (count stays the sum of the mm columns). */
static int write_profile_rows(FILE *f, const ps_profiles_t *prf, const uint64_t *counts, int mm)
{
    for (uint32_t j = 0; j < prf->n; j++) {
        if (fprintf(f, "%s\t%s\t%s\t%" PRIu64, prf->p[j].ac, prf->p[j].id, prf->p[j].consensus, counts[j]) < 0)
            return -1;
        for (int d = 0; d < mm; d++)
            if (fprintf(f, "\t%" PRIu64, d ? (uint64_t)0 : counts[j]) < 0) return -1;
        if (fputc('\n', f) == EOF) return -1;
    }
    return 0;
}

/* A PROSITE file of profiles and no patterns: their table alone. */
static int run_profiles(opts_t *o, const ps_profiles_t *prf, ps_err_t *err)
{
    ps_output_t *out = NULL;
    uint64_t *counts = calloc(prf->n, sizeof *counts);
    if (!counts) return ps_fail(err, PS_E_NOMEM, "out of memory");
    int rc = ps_output_open(&out, o->r.output, o->cleanup, err);
    for (int i = 0; rc == 0 && i < o->r.n_inputs; i++) {
        ps_prf_scan_stats_t pst;
        rc = ps_profiles_scan(prf, o->r.inputs[i], o->r.inputs[i], NULL, PS_SITES_BED, NULL, counts, o->r.threads, &pst, err);
        if (rc == 0 && pst.records == 0) fprintf(stderr, "probescan: warning: %s: empty input, no records\n", o->r.inputs[i]);
        if (rc == 0 && o->r.verbose) ps_prf_scan_say(o->r.inputs[i], prf, &pst);
    }
    if (rc == 0) {
        FILE *f = ps_output_stream(out);
        if (ps_table_write_header_ex(f, PS_TABLE_TOTALS, 0, NULL, 0, 0, 1) < 0 || write_profile_rows(f, prf, counts, 0) < 0)
            rc = ps_fail(err, PS_E_IO, "write error");
    }
    if (rc == 0) {
        rc = ps_output_commit(out, err);
        out = NULL;
    }
    ps_output_abort(out);
    free(counts);
    return rc;
}

/* What profiles take of count's options. */
static int profiles_fit(const opts_t *o, const ps_profiles_t *prf, ps_err_t *err)
{
    if (o->by_record || o->by_file || o->samples)
        return ps_fail(err, PS_E_USAGE, "%s: profiles are counted in totals; --by-record, --by-file and --samples are "
                                        "not taken with them yet (use locate and group its rows%s)", o->r.probes,
                       prf->patterns ? ", or --no-profiles for the patterns alone" : "");
    if (o->r.mm_set && !prf->patterns)
        return ps_fail(err, PS_E_USAGE, "-m: %s: profiles are scored, not matched with mismatches; leave out -m "
                                        "for profiles alone", o->r.probes);
    if (o->r.alpha == PS_ALPHA_DNA) return ps_fail(err, PS_E_USAGE, "%s: profiles are protein; not with -a dna", o->r.probes);
    if (o->r.stats && !prf->patterns)
        return ps_fail(err, PS_E_USAGE, "--stats: not written for a run of profiles alone");
    return ps_profiles_inputs_fit(prf, (const char *const *)o->r.inputs, o->r.n_inputs, err);
}

static int run_count(opts_t *o, ps_err_t *err)
{
    ps_profiles_t prf;
    int prc = ps_profiles_open(&prf, o->r.probes, &o->r.pso, err);
    if (prc < 0) return prc;
    if (prf.n && (prc = profiles_fit(o, &prf, err)) == 0)
        prc = ps_profiles_engine(&prf, o->r.engine, &o->r.gpus,
                                 ps_inputs_bytes((const char *const *)o->r.inputs, o->r.n_inputs), o->r.threads, o->r.verbose,
                                 err);
    if (prc < 0) {
        ps_profiles_free(&prf);
        return prc;
    }
    if (prf.n && !prf.patterns) {
        prc = run_profiles(o, &prf, err);
        ps_profiles_free(&prf);
        return prc;
    }
    prc = run_patterns(o, &prf, err);
    ps_profiles_free(&prf);
    return prc;
}

static int run_patterns(opts_t *o, const ps_profiles_t *prf, ps_err_t *err)
{
    timing_t tm = {0};
    double t0 = ps_now(), t;
    ps_probes_t *p = NULL;
    ps_plan_t pl = {0}; /* the index, and the parts of a split engine */
    const ps_leaves_t *lv = NULL;
    ps_engine_t *e = NULL;
    ps_engine_t **more = NULL; /* engines of the other reading threads */
    int readers = 1;
    size_t *cols = NULL;
    ps_scanner_t *sc = NULL;
    ps_output_t *out = NULL;
    ps_record_writer_t *rw = NULL;
    ps_site_writer_t *sw = NULL; /* ps_scan's rules or N (nsites.h): sites counted as locate lists them */
    ps_nsites_t ns = {0};
    uint64_t *counts = NULL;
    uint64_t *pcounts = prf->n ? calloc(prf->n, sizeof *pcounts) : NULL;
    ps_scan_stats_t *st = calloc((size_t)o->r.n_inputs, sizeof *st);
    if (prf->n && !pcounts) {
        free(st);
        return ps_fail(err, PS_E_NOMEM, "out of memory");
    }
    if (!st) return ps_fail(err, PS_E_NOMEM, "out of memory");

    int both;
    int rc = ps_opt_probes(&p, o->r.probes, o->r.alpha, o->r.threads, o->r.both_strands, o->r.strand_set, &o->r.pso, &o->r.go,
                           &o->r.mismatches, "counted", &both, err);
    if (rc < 0) goto done;
    if (p->n == 0) {
        /* --skip-frequent left no pattern: the table's header alone. */
        fprintf(stderr, "probescan: %s: no pattern left to count: the table is its header alone\n", o->r.probes);
        if ((rc = ps_output_open(&out, o->r.output, o->cleanup, err)) < 0) goto done;
        if (ps_table_write_header_ex(ps_output_stream(out), PS_TABLE_TOTALS, 0, NULL, 0,
                                     o->r.mm_set ? o->r.mismatches + 1 : 0, 1) < 0) {
            rc = ps_fail(err, PS_E_IO, "write error");
            goto done;
        }
        rc = ps_output_commit(out, err);
        out = NULL;
        goto done;
    }
    if (p->limit) o->r.mm_set = 1; /* probes of their own limits: a column per level */
    if ((p->bulge_dna || p->bulge_rna) && (o->by_record || o->by_file || o->samples)) {
        rc = ps_fail(err, PS_E_USAGE, "bulges: count writes one table of guides (columns by bulge and mismatches); "
                                      "--by-record, --by-file and --samples are not taken with bulges, "
                                      "use locate and group its rows");
        goto done;
    }
    if (o->r.verbose)
        fprintf(stderr, "probescan: %u probes of length %d; alphabet %s%s; strands: %s\n", p->n, p->k,
                ps_alpha_name(p->alpha),
                p->alpha_auto ? (p->alpha == PS_DNA ? " (auto: probes use only A, C, G, T, U)"
                                                    : " (auto: not every probe is DNA)")
                              : "",
                both ? "both" : "forward");
    t = ps_now();
    tm.probes = t - t0;

    /* ps_scan's rules: windows need no rule and are counted, not listed,
     * unless an X may join a site (--max-x) or end a search (--no-overlaps). */
    const ps_plan_opts_t po = {.locate = 0, .engine = o->r.engine, .index = o->index, .kernel = o->kernel,
                               .gpus = o->r.gpus, .threads = o->r.threads, .verbose = o->r.verbose,
                               .by_record = o->by_record, .mismatches = o->r.mismatches,
                               .count_windows = !(ps_opt_psscan_rules(p, o->r.mismatches) &&
                                                  (o->r.pso.max_x > 0 || o->r.pso.no_overlaps)),
                               .bytes = ps_inputs_bytes((const char *const *)o->r.inputs, o->r.n_inputs),
                               .columns = count_columns(o), .probes = o->r.probes};
    if ((rc = ps_plan_index(&pl, &po, p, both, err)) < 0) goto done;
    {
        /* -m 0 on exact probes: the exact index, and its one column. */
        ps_leaves_t *own = pl.bs ? &pl.bs->leaves : pl.ps ? &pl.ps->leaves : pl.ks ? &pl.ks->leaves : &pl.a->leaves;
        own->mm_columns = o->r.mm_set;
        lv = own;
    }
    tm.build = ps_now() - t;
    if (o->r.verbose && pl.bs) {
        fprintf(stderr, "probescan: bulge set: %u guides, %u variants (DNA bulges up to %d, RNA up to %d), up to %d "
                        "mismatches\n", pl.bs->n_guides, pl.bs->n_var, pl.bs->dna, pl.bs->rna, o->r.mismatches);
    } else if (o->r.verbose && pl.ps) {
        const ps_patset_t *f = pl.ps->fwd;
        fprintf(stderr, "probescan: pattern set: %u strings, %u bit words%s, up to %d mismatches, built in %.3f s\n",
                pl.ps->n_strings + (f ? f->n_strings : 0), pl.ps->n_words + (f ? f->n_words : 0),
                f ? " (the minus strand of patterns that are no window matched forward)" : "", o->r.mismatches,
                tm.build);
    } else if (o->r.verbose && pl.ks) {
        fprintf(stderr, "probescan: k-mer set (%s): %u leaves, %.1f MB table, built in %.3f s\n", pl.why,
                lv->n_leaves, (double)(pl.ks->n_slots * sizeof *pl.ks->slot) / 1e6, tm.build);
    } else if (o->r.verbose) {
        fprintf(stderr, "probescan: automaton (%s): %u states, %u leaves, %.1f MB table, built in %.3f s\n", pl.why,
                pl.a->n_states, pl.a->n_leaves, ps_automaton_table_bytes(pl.a) / 1e6, tm.build);
    }

    /* One thread budget: -t pool threads parse, scan and inflate; the
     * calling thread reads. */
    t = ps_now();
    ps_scan_opts_t so;
    ps_engine_info_t info = {.kind = o->r.engine == PS_REQ_CPU || o->by_record ? PS_ENGINE_CPU
                                     : o->r.engine == PS_REQ_GPU ? PS_ENGINE_GPU : PS_ENGINE_AUTO};
    ps_scan_opts_init(&so, &info, o->r.threads);
    int on_gpu;
    rc = ps_plan_engine(&e, &pl, &po, p, ps_scan_workers(&so), &on_gpu, err);
    if (rc < 0) goto done;
    ps_engine_info(e, &info);
    ps_scan_opts_init(&so, &info, o->r.threads);
    /* Under ps_scan's rules a site counts by the sites before it in its
     * record: sites are placed and pass the rules in input order, as
     * locate's rows do, on one reading thread. */
    const int rules = ps_opt_psscan_rules(p, o->r.mismatches);
    /* Cas-OFFinder's rule for N (nsites.h): its sites are listed before
     * each input is scanned and counted among the engines' sites, as
     * locate writes them, on one reading thread. */
    const int nrule = ps_opt_nsites_rule(p, 0);
    for (int i = 0; nrule && i < o->r.n_inputs; i++)
        if ((rc = ps_opt_nsites_input(o->r.inputs[i], err)) < 0) goto done;
    readers = rules || nrule ? 1 : parallel_readers(o, &info, lv);
    if (readers > 1) {
        if (!(more = calloc((size_t)readers, sizeof *more))) {
            rc = ps_fail(err, PS_E_NOMEM, "out of memory");
            goto done;
        }
        more[0] = e;
        for (int j = 1; j < readers; j++)
            if ((rc = ps_plan_cpu_engine(&more[j], &pl, ps_scan_workers(&so), err)) < 0) goto done;
        if (o->r.verbose)
            fprintf(stderr, "probescan: %d inputs, %d at a time (a reading thread each, %d pool threads)\n",
                    o->r.n_inputs, readers, o->r.threads);
    } else {
        rc = ps_scanner_new(&sc, e, lv, &so, err);
        if (rc < 0) goto done;
    }
    tm.engine = ps_now() - t;
    char device[512];
    ps_engine_describe(&info, o->r.threads, device, sizeof device);
    if (o->r.verbose && info.kind != PS_ENGINE_CPU) fprintf(stderr, "probescan: engine: %s (%s)\n", ps_engine_ran(&info), device);

    /* Output opens before the scan so an unwritable path fails fast. */
    rc = ps_output_open(&out, o->r.output, o->cleanup, err);
    if (rc < 0) goto done;

    size_t sets = (size_t)count_columns(o);
    counts = calloc(sets * lv->n_leaves, sizeof *counts);
    if (!counts) {
        rc = ps_fail(err, PS_E_NOMEM, "out of memory for counts");
        goto done;
    }
    ps_record_sink_t sink;
    if (o->by_record) {
        rc = ps_record_writer_new(&rw, ps_output_stream(out), p, lv, err);
        if (rc < 0) goto done;
        sink = (ps_record_sink_t){ps_record_writer_emit, rw, NULL, NULL, NULL, NULL, 0};
    }
    if (rules || nrule) {
        uint32_t n_rules = 0;
        if ((rc = ps_site_writer_new(&sw, NULL, p, lv, PS_SITES_BED, 0, err)) < 0 ||
            (rules && (rc = ps_site_writer_rules(sw, &o->r.pso, &n_rules, err)) < 0) ||
            (rc = ps_site_writer_counting(sw, rw, err)) < 0)
            goto done;
        sink = (ps_record_sink_t){NULL, sw, ps_site_writer_rows, ps_site_writer_emit_rows, ps_site_writer_emit_block,
                                  ps_site_writer_free_rows, 1};
        if (o->r.verbose && rules)
            fprintf(stderr, "probescan: %u PROSITE patterns counted by ps_scan's rules (their sites placed in order)\n",
                    n_rules);
    }
    ps_progress_t pg;
    ps_progress_init(&pg, !o->r.quiet, o->r.n_inputs);
    if (!(cols = calloc((size_t)o->r.n_inputs, sizeof *cols))) {
        rc = ps_fail(err, PS_E_NOMEM, "out of memory");
        goto done;
    }
    for (int i = 0; i < o->r.n_inputs; i++) cols[i] = o->samples ? (size_t)o->samples->sample[i] : o->by_file ? (size_t)i : 0;
    /* Once the run is set to go: a refused run says one line only. */
    ps_opt_check_protein_input(p, o->r.alpha, (const char *const *)o->r.inputs, o->r.n_inputs);
    t = ps_now();
    if (readers > 1) {
        rc = ps_scan_inputs(more, readers, lv, &so, (const char *const *)o->r.inputs, o->r.n_inputs, cols, counts, st,
                            err);
        if (rc < 0) goto done;
    }
    for (int i = 0; i < o->r.n_inputs; i++) {
        if (readers == 1) {
            ps_progress_begin(&pg, o->r.inputs[i], i + 1);
            if (rw) ps_record_writer_input(rw, o->names[i]);
            if (sw) rc = ps_site_writer_input(sw, o->r.inputs[i], err);
            if (rc == PS_OK && nrule &&
                (rc = ps_nsites_find(&ns, o->r.inputs[i], p, both, o->r.mismatches, err)) == PS_OK)
                ps_site_writer_nsites(sw, &ns);
            if (rc == PS_OK)
                rc = ps_scanner_run(sc, o->r.inputs[i], counts + cols[i] * lv->n_leaves, rw || sw ? &sink : NULL, &st[i],
                                    pg.enabled ? ps_progress_show : NULL, &pg, err);
            ps_progress_end(&pg);
            if (rc == PS_OK && sw && (rc = ps_site_writer_flush(sw, err)) == PS_OK) {
                /* The sites listed, and those an engine counted itself
                 * (windows: ps_split_windows_new). */
                ps_site_writer_take_counts(sw, counts + cols[i] * lv->n_leaves);
                rc = e->collect(e, counts + cols[i] * lv->n_leaves, err);
            }
            if (rc == PS_OK && rw) rc = ps_record_writer_flush(rw, err);
            if (rc < 0) goto done;
        }
        if (prf->n) {
            ps_prf_scan_stats_t pst;
            rc = ps_profiles_scan(prf, o->r.inputs[i], o->r.inputs[i], NULL, PS_SITES_BED, NULL, pcounts, o->r.threads, &pst,
                                  err);
            if (rc < 0) goto done;
            if (o->r.verbose) ps_prf_scan_say(o->r.inputs[i], prf, &pst);
        }
        /* One empty sample must not stop a workflow: it counts zero. */
        if (st[i].in.records == 0) fprintf(stderr, "probescan: warning: %s: empty input, no records\n", o->r.inputs[i]);
        if (o->by_record && st[i].in.names_cut)
            fprintf(stderr, "probescan: warning: %s: %llu record name%s longer than %d bytes, cut to %d in the table\n",
                    o->r.inputs[i], (unsigned long long)st[i].in.names_cut, st[i].in.names_cut == 1 ? " is" : "s are",
                    PS_NAME_MAX, PS_NAME_MAX);
        if (o->r.verbose)
            fprintf(stderr, "probescan: %s: %" PRIu64 " record%s, %" PRIu64 " bases in %.3f s (%.1f Mbases/s)\n",
                    o->r.inputs[i], st[i].in.records, st[i].in.records == 1 ? "" : "s", st[i].in.symbols, st[i].seconds,
                    st[i].seconds > 0 ? st[i].in.symbols / st[i].seconds / 1e6 : 0.0);
    }
    tm.scan = ps_now() - t;
    ps_opt_check_dna_input(p, (const char *const *)o->r.inputs, o->r.n_inputs, st);
    if (o->r.verbose) {
        ps_engine_info(e, &info);
        ps_engine_describe(&info, o->r.threads, device, sizeof device);
        fprintf(stderr, "probescan: scanned on %s%s\n", device, readers > 1 ? ", per reading thread" : "");
    }
    t = ps_now();
    FILE *f = ps_output_stream(out);
    if (pl.bs)
        rc = ps_bulges_write_counts(f, pl.bs, counts, err);
    else if (!o->by_record)
        rc = o->samples ? ps_write_matrix(f, p, lv, counts, (const char *const *)o->samples->name,
                                          (int)o->samples->n_samples, o->r.threads, err)
             : o->by_file ? ps_write_matrix(f, p, lv, counts, (const char *const *)o->names, o->r.n_inputs, o->r.threads, err)
                          : ps_write_counts(f, p, lv, counts, o->r.threads, err);
    /* Protein patterns, the only ones beside profiles: no strand columns. */
    if (rc == 0 && prf->n && write_profile_rows(f, prf, pcounts, lv->mm_columns ? lv->levels : 0) < 0)
        rc = ps_fail(err, PS_E_IO, "write error");
    if (rc < 0) goto done;
    rc = ps_output_commit(out, err);
    out = NULL;
    if (rc < 0) goto done;
    tm.output = ps_now() - t;
    tm.total = ps_now() - t0;
    if (o->r.stats) rc = write_stats(o, p, lv, (const ps_engine_t *const *)(more ? more : &e), readers, st, &tm, err);
    if (o->r.verbose) {
        t = ps_now();
        ps_scanner_free(sc);
        sc = NULL;
        ps_engine_destroy(e);
        e = NULL;
        fprintf(stderr,
                "probescan: seconds: probes %.3f, index %.3f, engine start %.3f, scan %.3f, output %.3f, "
                "engine stop %.3f\n",
                tm.probes, tm.build, tm.engine, tm.scan, tm.output, ps_now() - t);
    }

done:
    free(pcounts);
    ps_site_writer_free(sw);
    ps_nsites_free(&ns);
    ps_record_writer_free(rw);
    ps_output_abort(out);
    free(counts);
    free(st);
    ps_scanner_free(sc);
    ps_engine_destroy(e);
    for (int j = 1; more && j < readers; j++) ps_engine_destroy(more[j]);
    free(more);
    free(cols);
    ps_plan_free(&pl);
    ps_probes_free(p);
    return rc;
}


int ps_count_main(int argc, char **argv, ps_cleanup_t *cl, ps_err_t *err)
{
    opts_t o;
    int rc = parse_count(argc, argv, &o, err);
    if (rc == 0) {
        o.cleanup = cl;
        rc = run_count(&o, err);
    }
    ps_samples_free(o.samples);
    ps_casoff_inputs_free(o.r.casoff_inputs, o.r.n_casoff);
    for (int i = 0; o.names && i < o.r.n_inputs; i++) free(o.names[i]);
    free(o.names);
    return rc;
}
