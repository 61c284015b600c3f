/* probescan - count how often each of many equal-length probes occurs in
 * FASTA/FASTQ files.
 *
 * The data path, top to bottom:
 *   1. parse the command line                       (this file)
 *   2. load the probes                              probes.c
 *   3. build the Aho-Corasick DFA, leaves last       automaton.c
 *   4. pick an engine: GPU when usable, else CPU     kernels/, engine_cpu.c
 *   5. for each input: read + pack into chunks on    seqio.c, pack.c
 *      one thread, scan chunks on the engine's       scan.c
 *      workers, collect per-leaf counts
 *   6. map leaves back to probes and write the TSV   output.c
 * `probescan merge` (merge.c) sums the tables of scattered runs.
 * Errors travel up as codes with a message and are printed once, here. */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include <htslib/hts.h>

#include "automaton.h"
#include "engine_cpu.h"
#include "engine_gpu.h"
#include "engine_mixed.h"
#include "merge.h"
#include "output.h"
#include "probes.h"
#include "scan.h"

#ifndef PS_VERSION
#define PS_VERSION "unknown"
#endif

typedef enum { ENGINE_AUTO, ENGINE_CPU, ENGINE_GPU } engine_req_t;

typedef struct {
    const char *probes, *output, *stats, *kernel;
    ps_alpha_req_t alpha;
    int strand_set, both_strands;
    int threads, verbose, quiet, gpu_id, by_file, by_record;
    engine_req_t engine;
    char **inputs;
    int n_inputs;
} opts_t;

/* Progress line state; lives on main's stack and is touched only by the
 * reader thread while a file is scanned. */
typedef struct {
    int enabled;
    const char *path;
    int index, total_files;
    double start, last;
} progress_t;

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void usage_count(FILE *f)
{
    fprintf(f,
"Usage: probescan count [options] -p PROBES INPUT...\n"
"\n"
"Count exact, overlapping occurrences of every probe in FASTA/FASTQ inputs\n"
"(plain, gzip or BGZF; '-' reads standard input). All probes have one length k,\n"
"1 <= k <= %d. Output: TSV with a header, one row per probe in probe-file order.\n"
"\n"
"Options:\n"
"  -p, --probes FILE      probes: FASTA, one sequence per line, or name<TAB>sequence\n"
"  -a, --alphabet STR     dna, protein or auto (default auto: dna if probes are ACGTU)\n"
"  -s, --strand STR       both or forward (DNA; default both). Protein: forward only\n"
"  -o, --output FILE      write the table to FILE (default: standard output)\n"
"  -t, --threads N        worker threads (default: all %ld cores)\n"
"      --by-file          one count column per input file (a probe x sample matrix)\n"
"      --by-record        long table: record, probe and counts for every record\n"
"                         with a match (CPU engine)\n"
"      --stats FILE       write run statistics as JSON to FILE\n"
"      --engine STR       auto, gpu or cpu (default auto: the GPU where there is one, with\n"
"                         the CPU scanning while it starts; gpu: the GPU alone)\n"
"      --gpu ID           CUDA device to use (default 0)\n"
"      --kernel NAME      GPU kernel: best (default), kmer, leaf, compact, coalesced, shared,\n"
"                         baseline; all count the same, the others are for benchmarks\n"
"  -v, --verbose          report the alphabet, automaton, engine and timings on stderr\n"
"  -q, --quiet            no progress line\n"
"  -h, --help             this help\n"
"      --version          print the version and exit\n"
"\n"
"Counting: case-insensitive; U counts as T; a window with N or any other letter\n"
"outside the alphabet matches nothing; matches never span records. With both\n"
"strands, 'reverse' counts the probe's reverse complement and count = forward +\n"
"reverse (a palindromic probe counts twice per position).\n"
"\n"
"Example:\n"
"  probescan count -p probes.fa -t 8 genome.fa.gz > counts.tsv\n",
            PS_MAX_K, sysconf(_SC_NPROCESSORS_ONLN));
}

static void usage_main(FILE *f)
{
    fprintf(f,
"probescan %s - count equal-length probes in sequence files, on the GPU or all CPU cores\n"
"\n"
"Usage: probescan <command> [options]\n"
"\n"
"Commands:\n"
"  count    count probes in FASTA/FASTQ inputs (probescan count --help)\n"
"  merge    sum or join count tables of scattered chunks (probescan merge --help)\n"
"\n"
"  probescan --version    print the version\n",
            PS_VERSION);
}

static int parse_uint(const char *s, long max, long *out)
{
    char *end;
    long v = strtol(s, &end, 10);
    if (*s == '\0' || *end != '\0' || v < 0 || v > max) return -1;
    *out = v;
    return 0;
}

/* The column name for an input in --by-file: its base name without the
 * compression and format extensions. */
#define SAMPLE_NAME_MAX 4096
static void sample_name(const char *path, char *out, size_t n)
{
    if (!strcmp(path, "-")) {
        snprintf(out, n, "stdin");
        return;
    }
    const char *base = strrchr(path, '/');
    snprintf(out, n, "%s", base ? base + 1 : path);
    static const char *const zext[] = {".gz", ".bgz", ".bgzf", NULL};
    static const char *const fext[] = {".fa", ".fasta", ".fna", ".faa", ".fq", ".fastq", NULL};
    const char *const *lists[] = {zext, fext};
    for (int l = 0; l < 2; l++)
        for (const char *const *e = lists[l]; *e; e++) {
            size_t len = strlen(out), el = strlen(*e);
            if (len > el && !strcasecmp(out + len - el, *e)) {
                out[len - el] = '\0';
                break;
            }
        }
}

/* Returns 0 to go on, 1 when done (help printed), or a negative code. */
static int parse_count(int argc, char **argv, opts_t *o, ps_err_t *err)
{
    enum { OPT_VERSION = 256, OPT_ENGINE, OPT_GPU, OPT_KERNEL, OPT_BYFILE, OPT_BYRECORD, OPT_STATS };
    static const struct option lopts[] = {
        {"probes", required_argument, NULL, 'p'}, {"alphabet", required_argument, NULL, 'a'},
        {"strand", required_argument, NULL, 's'}, {"output", required_argument, NULL, 'o'},
        {"threads", required_argument, NULL, 't'}, {"verbose", no_argument, NULL, 'v'},
        {"quiet", no_argument, NULL, 'q'}, {"help", no_argument, NULL, 'h'},
        {"version", no_argument, NULL, OPT_VERSION}, {"engine", required_argument, NULL, OPT_ENGINE},
        {"gpu", required_argument, NULL, OPT_GPU}, {"kernel", required_argument, NULL, OPT_KERNEL},
        {"by-file", no_argument, NULL, OPT_BYFILE}, {"by-record", no_argument, NULL, OPT_BYRECORD}, {"stats", required_argument, NULL, OPT_STATS},
        {NULL, 0, NULL, 0}};
    memset(o, 0, sizeof *o);
    o->alpha = PS_ALPHA_AUTO;
    o->both_strands = 1;
    long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
    o->threads = ncpu > 0 ? (int)ncpu : 1;
    if (argc <= 1) {
        usage_count(stdout);
        return 1;
    }
    opterr = 0;
    optind = 1;
    int c;
    long v;
    while ((c = getopt_long(argc, argv, ":p:a:s:o:t:vqh", lopts, NULL)) != -1) {
        switch (c) {
        case 'p': o->probes = optarg; break;
        case 'o': o->output = optarg; break;
        case 'a':
            if (!strcmp(optarg, "dna")) o->alpha = PS_ALPHA_DNA;
            else if (!strcmp(optarg, "protein")) o->alpha = PS_ALPHA_PROTEIN;
            else if (!strcmp(optarg, "auto")) o->alpha = PS_ALPHA_AUTO;
            else return ps_fail(err, PS_E_USAGE, "--alphabet must be dna, protein or auto, not '%s'", optarg);
            break;
        case 's':
            o->strand_set = 1;
            if (!strcmp(optarg, "both")) o->both_strands = 1;
            else if (!strcmp(optarg, "forward")) o->both_strands = 0;
            else return ps_fail(err, PS_E_USAGE, "--strand must be both or forward, not '%s'", optarg);
            break;
        case 't':
            if (parse_uint(optarg, 4096, &v) || v < 1)
                return ps_fail(err, PS_E_USAGE, "--threads must be a number from 1 to 4096, not '%s'", optarg);
            o->threads = (int)v;
            break;
        case 'v': o->verbose = 1; break;
        case 'q': o->quiet = 1; break;
        case 'h': usage_count(stdout); return 1;
        case OPT_VERSION: puts(PS_VERSION); return 1;
        case OPT_ENGINE:
            if (!strcmp(optarg, "auto")) o->engine = ENGINE_AUTO;
            else if (!strcmp(optarg, "cpu")) o->engine = ENGINE_CPU;
            else if (!strcmp(optarg, "gpu")) o->engine = ENGINE_GPU;
            else return ps_fail(err, PS_E_USAGE, "--engine must be auto, gpu or cpu, not '%s'", optarg);
            break;
        case OPT_GPU:
            if (parse_uint(optarg, 1024, &v)) return ps_fail(err, PS_E_USAGE, "--gpu must be a device number, not '%s'", optarg);
            o->gpu_id = (int)v;
            break;
        case OPT_KERNEL: o->kernel = optarg; break;
        case OPT_BYFILE: o->by_file = 1; break;
        case OPT_BYRECORD: o->by_record = 1; break;
        case OPT_STATS: o->stats = optarg; break;
        case ':': return ps_fail(err, PS_E_USAGE, "option '%s' needs a value (see probescan count --help)", argv[optind - 1]);
        default: return ps_fail(err, PS_E_USAGE, "unknown option '%s' (see probescan count --help)", argv[optind - 1]);
        }
    }
    if (!o->probes) return ps_fail(err, PS_E_USAGE, "no probes given: use -p FILE (see probescan count --help)");
    o->inputs = argv + optind;
    o->n_inputs = argc - optind;
    if (o->n_inputs < 1) return ps_fail(err, PS_E_USAGE, "no input files given (use '-' for standard input)");
    if (o->by_file && o->by_record) return ps_fail(err, PS_E_USAGE, "--by-file and --by-record cannot be combined");
    if (o->kernel) {
        /* Checked here: with --engine auto the GPU starts in the background,
         * where a bad name would only show as a quiet fall-back. */
        const char *const *names = ps_gpu_kernel_names();
        int known = 0;
        char list[256] = "";
        for (const char *const *n = names; *n; n++) {
            known |= !strcmp(*n, o->kernel);
            snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s", n == names ? "" : ", ", *n);
        }
        if (!names[0]) return ps_fail(err, PS_E_USAGE, "--kernel: this probescan was built without CUDA");
        if (!known) return ps_fail(err, PS_E_USAGE, "--kernel must be one of %s, not '%s'", list, o->kernel);
    }
    if (o->by_file) {
        /* Column names must be unique, or a matrix (and its merge) would be ambiguous. */
        char a[SAMPLE_NAME_MAX], b[SAMPLE_NAME_MAX];
        for (int i = 0; i < o->n_inputs; i++) {
            sample_name(o->inputs[i], a, sizeof a);
            for (int j = 0; j < i; j++) {
                sample_name(o->inputs[j], b, sizeof b);
                if (!strcmp(a, b))
                    return ps_fail(err, PS_E_USAGE,
                                   "--by-file: inputs '%s' and '%s' would both be column '%s'; rename one",
                                   o->inputs[j], o->inputs[i], a);
            }
        }
    }
    if (o->by_record && o->engine == ENGINE_GPU)
        return ps_fail(err, PS_E_USAGE, "--by-record runs on the CPU engine; drop --engine gpu");
    return 0;
}

/* Called on the reader thread after every chunk; redraws at most twice a second. */
static void show_progress(void *ctx, const ps_reader_t *r)
{
    progress_t *pg = ctx;
    double t = now_s();
    if (t - pg->last < 0.5) return;
    pg->last = t;
    uint64_t done, total;
    ps_reader_progress(r, &done, &total);
    double rate = (t > pg->start) ? (double)done / (t - pg->start) : 0;
    if (total && done <= total && rate > 0)
        fprintf(stderr, "\rprobescan: [%d/%d] %s: %.1f/%.1f MB (%.0f%%), %.0f MB/s, ETA %.0f s   ", pg->index,
                pg->total_files, pg->path, done / 1e6, total / 1e6, 100.0 * done / total, rate / 1e6,
                (total - done) / rate);
    else
        fprintf(stderr, "\rprobescan: [%d/%d] %s: %.1f MB, %.0f MB/s   ", pg->index, pg->total_files, pg->path,
                done / 1e6, rate / 1e6);
}

static int write_by_file(FILE *f, const opts_t *o, const ps_probes_t *p, const ps_automaton_t *a,
                         const uint64_t *counts, ps_err_t *err)
{
    char(*names)[SAMPLE_NAME_MAX] = malloc((size_t)o->n_inputs * sizeof *names);
    const char **cols = malloc((size_t)o->n_inputs * sizeof *cols);
    int rc = PS_OK;
    if (!names || !cols) {
        rc = ps_fail(err, PS_E_NOMEM, "out of memory");
    } else {
        for (int i = 0; i < o->n_inputs; i++) {
            sample_name(o->inputs[i], names[i], sizeof names[i]);
            cols[i] = names[i];
        }
        rc = ps_write_matrix(f, p, a, counts, cols, o->n_inputs, err);
    }
    free(names);
    free(cols);
    return rc;
}

static void json_str(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; s++) {
        unsigned char ch = (unsigned char)*s;
        if (ch == '"' || ch == '\\') fprintf(f, "\\%c", ch);
        else if (ch < 0x20) fprintf(f, "\\u%04x", ch);
        else fputc(ch, f);
    }
    fputc('"', f);
}

typedef struct {
    double probes, build, engine, scan, output, total;
} timing_t;

static int write_stats(const opts_t *o, const ps_probes_t *p, const ps_automaton_t *a, const ps_engine_t *e,
                       const ps_scan_stats_t *st, const timing_t *tm, ps_err_t *err)
{
    ps_output_t *out;
    int rc = ps_output_open(&out, o->stats, err);
    if (rc < 0) return rc;
    FILE *f = ps_output_stream(out);
    uint64_t rec = 0, bases = 0, bytes = 0;
    for (int i = 0; i < o->n_inputs; i++) {
        rec += st[i].in.records;
        bases += st[i].in.symbols;
        bytes += st[i].in.bytes;
    }
    struct rusage ru;
    long maxrss = getrusage(RUSAGE_SELF, &ru) == 0 ? ru.ru_maxrss : 0;
    fprintf(f, "{\n  \"version\": ");
    json_str(f, PS_VERSION);
    fprintf(f, ",\n  \"engine\": ");
    json_str(f, e->name);
    fprintf(f, ",\n  \"device\": ");
    json_str(f, e->device);
    fprintf(f, ",\n  \"threads\": %d,\n  \"probes\": %u,\n  \"k\": %d,\n  \"alphabet\": \"%s\",\n  \"strands\": \"%s\",\n",
            o->threads, p->n, p->k, ps_alpha_name(p->alpha), a->both_strands ? "both" : "forward");
    fprintf(f, "  \"inputs\": [");
    for (int i = 0; i < o->n_inputs; i++) {
        fprintf(f, "%s\n    {\"path\": ", i ? "," : "");
        json_str(f, o->inputs[i]);
        fprintf(f, ", \"format\": \"%s\", \"records\": %" PRIu64 ", \"bases\": %" PRIu64 ", \"bytes\": %" PRIu64
                   ", \"seconds\": %.6f}",
                st[i].in.fastq ? "fastq" : "fasta", st[i].in.records, st[i].in.symbols, st[i].in.bytes, st[i].seconds);
    }
    fprintf(f, "\n  ],\n  \"records\": %" PRIu64 ",\n  \"bases_scanned\": %" PRIu64 ",\n  \"bytes_read\": %" PRIu64 ",\n",
            rec, bases, bytes);
    fprintf(f, "  \"seconds\": {\"load_probes\": %.6f, \"build_automaton\": %.6f, \"start_engine\": %.6f, \"scan\": %.6f, \"write_output\": %.6f, \"total\": %.6f},\n",
            tm->probes, tm->build, tm->engine, tm->scan, tm->output, tm->total);
    fprintf(f, "  \"peak_memory_bytes\": %" PRIu64 "\n}\n", (uint64_t)maxrss * 1024u);
    if (ferror(f)) {
        ps_output_abort(out);
        return ps_fail(err, PS_E_IO, "%s: write error", o->stats);
    }
    return ps_output_commit(out, err);
}

/* Picks the engine as asked. auto: where a GPU may be there, the GPU engine
 * starting in the background with the CPU scanning meanwhile (it checks the
 * GPU off the critical path and falls back to the CPU alone); else the CPU. */
static int make_engine(ps_engine_t **e, const opts_t *o, const ps_automaton_t *a, ps_err_t *err)
{
    char why[sizeof err->msg] = "no NVIDIA GPU device found";
    if (o->engine == ENGINE_GPU) {
        if (!ps_gpu_usable(o->gpu_id, why, sizeof why))
            return ps_fail(err, PS_E_GPU, "--engine gpu: no usable GPU %d: %s", o->gpu_id, why);
        return ps_gpu_engine_new(e, a, o->gpu_id, o->kernel, o->threads, err);
    }
    if (o->engine == ENGINE_AUTO && o->by_record) snprintf(why, sizeof why, "--by-record counts on the CPU");
    if (o->engine == ENGINE_AUTO && !o->by_record && ps_gpu_device_present())
        return ps_mixed_engine_new(e, a, o->gpu_id, o->kernel, o->threads, err);
    int rc = ps_cpu_engine_new(e, a, o->threads, err);
    if (rc == PS_OK && o->verbose)
        fprintf(stderr, "probescan: engine: cpu, %d threads%s%s%s\n", o->threads,
                o->engine == ENGINE_AUTO ? " (not the GPU: " : "", o->engine == ENGINE_AUTO ? why : "",
                o->engine == ENGINE_AUTO ? ")" : "");
    return rc;
}

static int run_count(const opts_t *o, ps_err_t *err)
{
    timing_t tm = {0};
    double t0 = now_s(), t;
    ps_probes_t *p = NULL;
    ps_automaton_t *a = NULL;
    ps_engine_t *e = NULL;
    ps_output_t *out = NULL;
    ps_record_writer_t *rw = NULL;
    uint64_t *counts = NULL;
    ps_scan_stats_t *st = calloc((size_t)o->n_inputs, sizeof *st);
    if (!st) return ps_fail(err, PS_E_NOMEM, "out of memory");

    int rc = ps_probes_load(&p, o->probes, o->alpha, err);
    if (rc < 0) goto done;
    int both = o->both_strands;
    if (p->alpha == PS_PROTEIN && both) {
        if (o->strand_set) {
            rc = ps_fail(err, PS_E_USAGE, "--strand both applies to DNA only; protein probes are counted forward");
            goto done;
        }
        both = 0;
    }
    if (o->verbose)
        fprintf(stderr, "probescan: %u probes of length %d; alphabet %s%s; strands: %s\n", p->n, p->k,
                ps_alpha_name(p->alpha),
                p->alpha_auto ? (p->alpha == PS_DNA ? " (auto: probes use only A, C, G, T, U)"
                                                    : " (auto: probes use letters other than A, C, G, T, U)")
                              : "",
                both ? "both" : "forward");
    t = now_s();
    tm.probes = t - t0;

    rc = ps_automaton_build(&a, p, both, err);
    if (rc < 0) goto done;
    tm.build = now_s() - t;
    if (o->verbose)
        fprintf(stderr, "probescan: automaton: %u states, %u leaves, %.1f MB table, built in %.3f s\n", a->n_states,
                a->n_leaves, ps_automaton_table_bytes(a) / 1e6, tm.build);

    t = now_s();
    rc = make_engine(&e, o, a, err);
    if (rc < 0) goto done;
    tm.engine = now_s() - t;
    if (o->verbose && strcmp(e->name, "cpu") != 0) fprintf(stderr, "probescan: engine: %s (%s)\n", e->name, e->device);

    /* Output opens before the scan so an unwritable path fails fast. */
    rc = ps_output_open(&out, o->output, err);
    if (rc < 0) goto done;

    size_t sets = o->by_file ? (size_t)o->n_inputs : 1;
    counts = calloc(sets * a->n_leaves, sizeof *counts);
    if (!counts) {
        rc = ps_fail(err, PS_E_NOMEM, "out of memory for counts");
        goto done;
    }
    ps_record_sink_t sink;
    if (o->by_record) {
        rc = ps_record_writer_new(&rw, ps_output_stream(out), p, a, err);
        if (rc < 0) goto done;
        sink = (ps_record_sink_t){ps_record_writer_emit, rw};
    }
    progress_t pg = {.enabled = !o->quiet && isatty(STDERR_FILENO), .total_files = o->n_inputs};
    t = now_s();
    for (int i = 0; i < o->n_inputs; i++) {
        pg.path = o->inputs[i];
        pg.index = i + 1;
        pg.start = pg.last = now_s();
        rc = ps_scan_file(e, a, o->inputs[i], o->threads, counts + (o->by_file ? (size_t)i * a->n_leaves : 0),
                          rw ? &sink : NULL, &st[i], pg.enabled ? show_progress : NULL, &pg, err);
        if (pg.enabled) fputs("\r\033[K", stderr);
        if (rc == PS_OK && rw) rc = ps_record_writer_flush(rw, err);
        if (rc < 0) goto done;
        if (o->verbose)
            fprintf(stderr, "probescan: %s: %" PRIu64 " records, %" PRIu64 " bases in %.3f s (%.1f Mbases/s)\n",
                    o->inputs[i], st[i].in.records, st[i].in.symbols, st[i].seconds,
                    st[i].seconds > 0 ? st[i].in.symbols / st[i].seconds / 1e6 : 0.0);
    }
    tm.scan = now_s() - t;
    if (o->verbose) fprintf(stderr, "probescan: scanned on %s\n", e->device);
    t = now_s();
    FILE *f = ps_output_stream(out);
    if (!o->by_record)
        rc = o->by_file ? write_by_file(f, o, p, a, counts, err) : ps_write_counts(f, p, a, counts, err);
    if (rc < 0) goto done;
    rc = ps_output_commit(out, err);
    out = NULL;
    if (rc < 0) goto done;
    tm.output = now_s() - t;
    tm.total = now_s() - t0;
    if (o->stats) rc = write_stats(o, p, a, e, st, &tm, err);
    if (o->verbose) {
        t = now_s();
        ps_engine_destroy(e);
        e = NULL;
        fprintf(stderr,
                "probescan: seconds: probes %.3f, automaton %.3f, engine start %.3f, scan %.3f, output %.3f, "
                "engine stop %.3f\n",
                tm.probes, tm.build, tm.engine, tm.scan, tm.output, now_s() - t);
    }

done:
    ps_record_writer_free(rw);
    ps_output_abort(out);
    free(counts);
    free(st);
    ps_engine_destroy(e);
    ps_automaton_free(a);
    ps_probes_free(p);
    return rc;
}

int main(int argc, char **argv)
{
    ps_err_t err = {0, ""};
    /* Errors reach the user as one line of ours; htslib's own logging
     * would add a second, differently worded one. */
    hts_set_log_level(HTS_LOG_OFF);
    if (argc < 2 || !strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
        usage_main(stdout);
        return 0;
    }
    if (!strcmp(argv[1], "--version")) {
        puts(PS_VERSION);
        return 0;
    }
    if (!strcmp(argv[1], "merge")) return ps_merge_main(argc - 1, argv + 1);
    if (strcmp(argv[1], "count") != 0) {
        fprintf(stderr, "probescan: unknown command '%s' (see probescan --help)\n", argv[1]);
        return 1;
    }
    opts_t o;
    int rc = parse_count(argc - 1, argv + 1, &o, &err);
    if (rc == 1) return 0;
    if (rc == 0) rc = run_count(&o, &err);
    if (rc < 0) {
        fprintf(stderr, "probescan: %s\n", err.msg);
        return 1;
    }
    return 0;
}
