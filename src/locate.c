/* locate.c - `probescan locate`: its options, the index and engine it
 * scans with, and the run.
 *
 * The data path: the probes (probes.c) go into the index that plan.c
 * chooses, as for `count` (the automaton, the k-mer set or the pattern
 * set), and plan.c chooses the engine; each input
 * goes through count's pipeline (scan.c: FASTA in blocks on the pool where
 * the probes have one length, else chunk by chunk in order), the sites
 * found on the pool's threads (an engine's scan_sites) and written in
 * input order by the site writer (sites.c). */
#include "locate.h"

#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include <jansson.h>

#include "host.h"
#include "options.h"
#include "plan.h"
#include "outfile.h"
#include "parse.h"
#include "probes.h"
#include "profscan.h"
#include "progress.h"
#include "samples.h"
#include "scan.h"
#include "seqio.h"
#include "nsites.h"
#include "sites.h"

#ifndef PS_VERSION
#define PS_VERSION "unknown"
#endif

typedef struct {
    ps_run_opts_t r;         /* the options count shares (options.h) */
    ps_sites_format_t format;
    uint64_t max_hits;
    ps_cleanup_t *cleanup;
} opts_t;

static void usage_locate(FILE *f)
{
    fprintf(f,
"Usage: probescan locate [options] -p PROBES INPUT...\n"
"       probescan locate [options] -p CAS-OFFINDER-INPUT [INPUT...]\n"
"\n"
"Report where every probe lies in FASTA/FASTQ inputs (plain, gzip or BGZF; '-'\n"
"reads standard input), in 2bit genomes and in SAM, BAM or CRAM reads: one BED6\n"
"row per site, ordered by input, record, start, then probe order, for bedtools\n"
"and friends.\n"
"The probes, alphabets, strands and patterns are those of probescan count.\n"
"\n"
"Options:\n"
"  -p, --probes FILE      probes: FASTA, one sequence per line, or name<TAB>sequence;\n"
"                         a probe may be a pattern: IUPAC codes (DNA) or PROSITE syntax;\n"
"                         or a PROSITE data file (prosite.dat): a row per PATTERN entry,\n"
"                         and per MATRIX entry (a profile, scored as pfscanV3 -n scores it);\n"
"                         or a Cas-OFFinder input file (its genome is the input if none is\n"
"                         given); a third column name<TAB>sequence<TAB>D is the probe's own -m\n"
"  -m, --mismatches D     also report sites within D substitutions (0 to %d)\n"
PS_OPT_GUIDE_HELP
"  -a, --alphabet STR     dna, protein or auto (default auto: protein if a probe is a PROSITE\n"
"                         pattern, else dna if the probes' letters are bases or IUPAC codes,\n"
"                         at least half ACGTUN)\n"
"  -s, --strand STR       both or forward (DNA; default both). Protein: forward only\n"
"  -o, --output FILE      write the sites to FILE (default or '-': standard output);\n"
"                         a name ending in .gz or .bgz is written compressed (BGZF)\n"
"  -t, --threads N        threads that load probes, parse and scan (default: the %d CPUs\n"
"                         this process may use; at most 4 a CPU are started)\n"
"      --format STR       bed, tsv, pff, gff, psa or cas-offinder (default bed). tsv: a header,\n"
"                         the input, and the probe and matched letters after the BED columns;\n"
"                         pff, gff, psa (protein): ps_scan's rows (1-based, inclusive);\n"
"                         cas-offinder (DNA): Cas-OFFinder's rows\n"
"      --max-hits N       report at most N sites per probe (with bulges, per guide) over the\n"
"                         run (default: all);\n"
"                         stderr and --stats say how many were left out\n"
"      --stats FILE       write run statistics as JSON to FILE\n"
"      --engine STR       auto, gpu or cpu (default auto: patterns and mismatches on the\n"
"                         GPU where one is present and the work repays starting it, patterns\n"
"                         of up to 64 positions; exact probes, as fast as the input is read,\n"
"                         on the CPU; gpu: the GPU for exact probes too)\n"
"      --gpu LIST         CUDA devices to use: 0, 0,1 or all (default: every visible\n"
"                         GPU the work repays, one per second of CPU work; pattern\n"
"                         sets other than DNA windows, at most one per 500 words\n"
"                         x mismatch levels)\n"
"  -v, --verbose          report the index, engine and timings on stderr\n"
"  -q, --quiet            no progress line\n"
"  -h, --help             this help\n"
"      --version          print the version and exit\n"
PS_OPT_PSSCAN_HELP
"\n"
"Rows: record  start  end  name  score  strand. Coordinates are 0-based and\n"
"half-open, counting every letter of the record (N included); score is the\n"
"number of mismatches (0 for an exact site); strand '-' is the probe's reverse\n"
"complement, placed on the record as written. A site is reported where count\n"
"counts it: once, at its fewest mismatches; a pattern of variable length\n"
"(e(n,m), anchors) ends where its shortest match at that distance ends, except\n"
"under ps_scan's rules (above). Summed per record and probe, the rows give\n"
"count --by-record's table.\n"
"\n"
"Examples:\n"
"  probescan locate -p guides.txt -m 3 genome.fa.gz > sites.bed\n"
"  probescan locate -p spacers.txt --pam NGG -m 3 --format tsv genome.fa.gz > offtargets.tsv\n"
"  probescan locate -p cas-offinder-input.txt --format cas-offinder -o out.txt\n"
"  probescan locate -p probes.fa genome.fa | bedtools intersect -a - -b genes.bed\n"
"  probescan locate -p prosite.dat --format pff uniprot_sprot.fasta.gz > motifs.pff\n",
            PS_MAX_MM, ps_host_cpus());
}

static int parse_locate(int argc, char **argv, opts_t *o, ps_err_t *err)
{
    enum { OPT_VERSION = 256, OPT_FORMAT, OPT_MAX_HITS };
    static const struct option lopts[] = {
        PS_RUN_LONGOPTS, {"help", no_argument, NULL, 'h'}, {"version", no_argument, NULL, OPT_VERSION},
        {"format", required_argument, NULL, OPT_FORMAT}, {"max-hits", required_argument, NULL, OPT_MAX_HITS},
        {NULL, 0, NULL, 0}};
    memset(o, 0, sizeof *o);
    ps_run_opts_init(&o->r);
    o->format = PS_SITES_BED;
    if (argc <= 1) {
        usage_locate(stdout);
        return 1;
    }
    opterr = 0;
    optind = 1;
    int c, rc = PS_OK;
    uint64_t v;
    while (rc == PS_OK && (c = getopt_long(argc, argv, PS_RUN_SHORTOPTS "h", lopts, NULL)) != -1) {
        if ((rc = ps_run_opt(c, optarg, &o->r, err)) != 0) {
            if (rc > 0) rc = PS_OK;
            continue;
        }
        switch (c) {
        case 'h': usage_locate(stdout); return 1;
        case OPT_VERSION: puts(PS_VERSION); return 1;
        case OPT_FORMAT:
            if (!strcmp(optarg, "bed")) o->format = PS_SITES_BED;
            else if (!strcmp(optarg, "tsv")) o->format = PS_SITES_TSV;
            else if (!strcmp(optarg, "pff")) o->format = PS_SITES_PFF;
            else if (!strcmp(optarg, "gff")) o->format = PS_SITES_GFF;
            else if (!strcmp(optarg, "psa")) o->format = PS_SITES_PSA;
            else if (!strcmp(optarg, "cas-offinder")) o->format = PS_SITES_CASOFF;
            else return ps_fail(err, PS_E_USAGE, "--format must be bed, tsv, pff, gff, psa or cas-offinder, not '%s'",
                                optarg);
            break;
        case OPT_MAX_HITS:
            /* at most what --stats can hold as a JSON integer */
            if (ps_opt_uint(optarg, INT64_MAX, &v) || v < 1)
                return ps_fail(err, PS_E_USAGE, "--max-hits must be a number from 1 to %" PRId64 ", not '%s'",
                               INT64_MAX, optarg);
            o->max_hits = v;
            break;
        case ':': return ps_fail(err, PS_E_USAGE, "option '%s' needs a value (see probescan locate --help)", argv[optind - 1]);
        default: return ps_fail(err, PS_E_USAGE, "unknown option '%s' (see probescan locate --help)", argv[optind - 1]);
        }
    }
    if (rc < 0) return rc;
    if ((rc = ps_run_opts_check(&o->r, "locate", err)) < 0) return rc;
    o->r.inputs = argv + optind;
    o->r.n_inputs = argc - optind;
    if ((rc = ps_run_opts_inputs(&o->r, NULL, err)) < 0) return rc;
    int rc_in;
    /* The TSV's input column holds each input's name: refused before
     * anything is read or written, as count refuses it for its tables. */
    char name[PS_SAMPLE_NAME_MAX];
    for (int i = 0; o->format == PS_SITES_TSV && i < o->r.n_inputs; i++)
        if ((rc_in = ps_opt_input_name(o->r.inputs[i], "--format tsv", name, sizeof name, err)) < 0) return rc_in;
    return ps_check_outputs(o->r.output, o->r.stats, (const char *const *)o->r.inputs, o->r.n_inputs, o->r.probes, NULL, err);
}

/* --stats: JSON made by jansson (outfile.h), so any file name gives valid
 * JSON; keys and layout as count's, the inputs one a line. */
static int write_stats(const opts_t *o, const ps_probes_t *p, const ps_leaves_t *lv, const ps_scan_stats_t *st,
                       const ps_site_stats_t *ss, const ps_prf_rows_t *pr, const ps_engine_t *e, double seconds,
                       ps_err_t *err)
{
    ps_engine_info_t in;
    ps_engine_info(e, &in);
    static const char *const asked[] = {[PS_REQ_AUTO] = "auto", [PS_REQ_CPU] = "cpu", [PS_REQ_GPU] = "gpu"};
    struct rusage ru;
    long maxrss = getrusage(RUSAGE_SELF, &ru) == 0 ? ru.ru_maxrss : 0;
    uint64_t rec = 0, bases = 0;
    json_t *ins = json_array();
    for (int i = 0; ins && i < o->r.n_inputs; i++) {
        if (json_array_append_new(ins, json_pack("{s:o, s:I, s:I, s:o}", "path", ps_json_text(o->r.inputs[i]),
                                                 "records", (json_int_t)st[i].in.records, "bases",
                                                 (json_int_t)st[i].in.symbols, "seconds",
                                                 ps_json_seconds(st[i].seconds))) < 0) {
            json_decref(ins);
            ins = NULL;
        }
        rec += st[i].in.records;
        bases += st[i].in.symbols;
    }
    /* A NULL member (out of memory) fails the whole json_pack. */
    json_t *j = json_pack("{s:s, s:s, s:s, s:s, s:i, s:I, s:s, s:s, s:i, s:o, s:I, s:I, s:I, s:I, s:I, s:I, s:o, s:I, "
                          "s:I, s:I, s:o}",
                          "version", PS_VERSION, "command", "locate", "engine", ps_engine_ran(&in),
                          "engine_requested", asked[o->r.engine], "threads", o->r.threads, "probes", (json_int_t)p->n,
                          "alphabet", ps_alpha_name(p->alpha), "strands", lv->both_strands ? "both" : "forward",
                          "mismatches", lv->levels - 1, "inputs", ins, "records", (json_int_t)rec, "bases_scanned",
                          (json_int_t)bases, "sites_written", (json_int_t)ss->rows, "max_hits",
                          (json_int_t)o->max_hits, "sites_left_out", (json_int_t)ss->dropped, "probes_capped",
                          (json_int_t)ss->probes_capped, "seconds", ps_json_seconds(seconds), "peak_memory_bytes",
                          (json_int_t)maxrss * 1024, "profile_matches_written", (json_int_t)(pr ? pr->rows : 0),
                          "profile_matches_left_out", (json_int_t)(pr ? pr->dropped : 0), "gpus", ps_json_gpus(&in));
    return ps_json_save(o->r.stats, j, o->cleanup, err);
}

/* The profiles' rows: those --max-hits left out, and (-v) those written. */
static void profile_rows_said(const opts_t *o, const ps_prf_rows_t *pr)
{
    if (pr->dropped)
        fprintf(stderr, "probescan: --max-hits %" PRIu64 ": %u profile%s had more matches; %" PRIu64 " match%s not reported\n",
                o->max_hits, pr->capped, pr->capped == 1 ? "" : "s", pr->dropped, pr->dropped == 1 ? "" : "es");
    if (o->r.verbose) fprintf(stderr, "probescan: %" PRIu64 " profile matches written\n", pr->rows);
}

/* A PROSITE file of profiles and no patterns: the profiles alone. */
static int run_profiles(opts_t *o, const ps_profiles_t *prf, ps_err_t *err)
{
    ps_output_t *out = NULL;
    uint64_t *counts = calloc(prf->n, sizeof *counts);
    if (!counts) return ps_fail(err, PS_E_NOMEM, "out of memory");
    int rc = ps_output_open(&out, o->r.output, o->cleanup, err);
    if (rc == 0 && o->format == PS_SITES_TSV && ps_profiles_tsv_header(ps_output_stream(out)) < 0)
        rc = ps_fail(err, PS_E_IO, "write error");
    char name[PS_SAMPLE_NAME_MAX];
    ps_prf_rows_t pr;
    if (ps_prf_rows_init(&pr, prf, o->max_hits) < 0 && rc == 0) rc = ps_fail(err, PS_E_NOMEM, "out of memory");
    for (int i = 0; rc == 0 && i < o->r.n_inputs; i++) {
        ps_prf_scan_stats_t pst;
        ps_sample_name(o->r.inputs[i], name, sizeof name);
        rc = ps_profiles_scan(prf, o->r.inputs[i], name, ps_output_stream(out), o->format, &pr, counts, o->r.threads,
                              &pst, err);
        if (rc == 0 && pst.records == 0) fprintf(stderr, "probescan: warning: %s: empty input, no records\n", o->r.inputs[i]);
        if (rc == 0 && o->r.verbose) ps_prf_scan_say(o->r.inputs[i], prf, &pst);
    }
    if (rc == 0) {
        rc = ps_output_commit(out, err);
        out = NULL;
    }
    if (rc == 0) profile_rows_said(o, &pr);
    ps_prf_rows_free(&pr);
    ps_output_abort(out);
    free(counts);
    return rc;
}

/* What profiles take of locate's options. */
static int profiles_fit(const opts_t *o, const ps_profiles_t *prf, ps_err_t *err)
{
    if (o->format != PS_SITES_BED && o->format != PS_SITES_PFF && o->format != PS_SITES_TSV)
        return ps_fail(err, PS_E_USAGE, "%s: profile rows are written as bed, pff or tsv, not %s%s", o->r.probes,
                       o->format == PS_SITES_GFF ? "gff" : o->format == PS_SITES_PSA ? "psa" : "cas-offinder",
                       prf->patterns ? " (--no-profiles: the patterns alone)" : "");
    if (o->format == PS_SITES_TSV && prf->patterns)
        return ps_fail(err, PS_E_USAGE, "%s: --format tsv: patterns and profiles have different columns; use pff or "
                                        "bed, or one kind: --no-profiles or --profiles-only", o->r.probes);
    if (o->r.mm_set && !prf->patterns)
        return ps_fail(err, PS_E_USAGE, "-m: %s: profiles are scored, not matched with mismatches; leave out -m "
                                        "for profiles alone", o->r.probes);
    if (o->r.alpha == PS_ALPHA_DNA) return ps_fail(err, PS_E_USAGE, "%s: profiles are protein; not with -a dna", o->r.probes);
    if (o->r.stats && !prf->patterns)
        return ps_fail(err, PS_E_USAGE, "--stats: not written for a run of profiles alone");
    return ps_profiles_inputs_fit(prf, (const char *const *)o->r.inputs, o->r.n_inputs, err);
}

static int run_locate(opts_t *o, ps_err_t *err)
{
    double t0 = ps_now();
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
    uint64_t *pcounts = prf.n ? calloc(prf.n, sizeof *pcounts) : NULL;
    ps_prf_rows_t prows;
    if (ps_prf_rows_init(&prows, &prf, o->max_hits) < 0) {
        free(pcounts);
        pcounts = NULL; /* said below as out of memory */
    }
    ps_probes_t *p = NULL;
    ps_plan_t pl = {0};
    ps_engine_t *e = NULL;
    ps_scanner_t *sc = NULL;
    ps_output_t *out = NULL;
    ps_site_writer_t *w = NULL;
    ps_nsites_t ns = {0};
    ps_scan_stats_t *st = calloc((size_t)o->r.n_inputs, sizeof *st);
    if (!st) return ps_fail(err, PS_E_NOMEM, "out of memory");

    int both;
    int rc = ps_opt_probes(&p, o->r.probes, o->r.alpha, o->r.threads, o->r.both_strands, o->r.strand_set, &o->r.pso, &o->r.go,
                           &o->r.mismatches, "located", &both, err);
    if (rc < 0) goto done;
    if (p->n == 0) {
        /* --skip-frequent left no pattern: no row (tsv: its header). */
        fprintf(stderr, "probescan: %s: no pattern left to locate: no rows\n", o->r.probes);
        const ps_leaves_t none = {.levels = 1};
        if ((rc = ps_output_open(&out, o->r.output, o->cleanup, err)) < 0 ||
            (rc = ps_site_writer_new(&w, ps_output_stream(out), p, &none, o->format, o->max_hits, err)) < 0)
            goto done;
        rc = ps_output_commit(out, err);
        out = NULL;
        goto done;
    }
    if (o->format == PS_SITES_CASOFF && p->alpha != PS_DNA) {
        rc = ps_fail(err, PS_E_USAGE, "--format cas-offinder is for DNA guides; these probes are protein");
        goto done;
    }
    if (o->format >= PS_SITES_PFF && o->format <= PS_SITES_PSA && p->alpha != PS_PROTEIN) {
        rc = ps_fail(err, PS_E_USAGE, "--format %s is ps_scan's, for protein; DNA sites have strands: bed or tsv",
                     o->format == PS_SITES_PFF ? "pff" : o->format == PS_SITES_GFF ? "gff" : "psa");
        goto done;
    }
    const ps_plan_opts_t po = {.locate = 1, .engine = o->r.engine, .index = PS_INDEX_AUTO, .gpus = o->r.gpus,
                               .threads = o->r.threads, .verbose = o->r.verbose, .mismatches = o->r.mismatches,
                               .bytes = ps_inputs_bytes((const char *const *)o->r.inputs, o->r.n_inputs),
                               .casoff_rows = o->format == PS_SITES_CASOFF, .probes = o->r.probes};
    if ((rc = ps_plan_index(&pl, &po, p, both, err)) < 0) goto done;

    ps_engine_info_t info = {.kind = PS_ENGINE_CPU};
    ps_scan_opts_t so;
    ps_scan_opts_init(&so, &info, o->r.threads);
    int on_gpu;
    if ((rc = ps_plan_engine(&e, &pl, &po, p, ps_scan_workers(&so), &on_gpu, err)) < 0) goto done;
    ps_engine_info(e, &info);
    ps_scan_opts_init(&so, &info, o->r.threads);
    if ((rc = ps_scanner_new(&sc, e, pl.lv, &so, err)) < 0) goto done;
    if ((rc = ps_output_open(&out, o->r.output, o->cleanup, err)) < 0) goto done;
    if ((rc = pl.bs ? ps_site_writer_new_bulges(&w, ps_output_stream(out), pl.bs, o->format, o->max_hits, err)
                    : ps_site_writer_new(&w, ps_output_stream(out), p, pl.lv, o->format, o->max_hits, err)) < 0)
        goto done;
    uint32_t n_rules = 0;
    if (ps_opt_psscan_rules(p, o->r.mismatches) && (rc = ps_site_writer_rules(w, &o->r.pso, &n_rules, err)) < 0) goto done;
    if (o->r.verbose && n_rules)
        fprintf(stderr, "probescan: locate: %u PROSITE patterns reported by ps_scan's rules\n", n_rules);
    ps_record_sink_t sink = {NULL, w, ps_site_writer_rows, ps_site_writer_emit_rows, ps_site_writer_emit_block,
                             ps_site_writer_free_rows, 0};
    /* Cas-OFFinder's rule for N: its sites are listed before each input is
     * scanned, and written among the engines' rows. */
    const int nrule = ps_opt_nsites_rule(p, o->format == PS_SITES_CASOFF);
    for (int i = 0; nrule && rc == PS_OK && i < o->r.n_inputs; i++) rc = ps_opt_nsites_input(o->r.inputs[i], err);
    if (rc < 0) goto done;
    /* The progress line as count draws it; not where the rows themselves
     * go to the terminal, which it would break into. */
    int out_fd = fileno(ps_output_stream(out));
    ps_progress_t pg;
    ps_progress_init(&pg, !o->r.quiet && !(out_fd >= 0 && isatty(out_fd)), o->r.n_inputs);
    char name[PS_SAMPLE_NAME_MAX];
    ps_opt_check_protein_input(p, o->r.alpha, (const char *const *)o->r.inputs, o->r.n_inputs);
    for (int i = 0; i < o->r.n_inputs; i++) {
        ps_sample_name(o->r.inputs[i], name, sizeof name); /* as count --by-record names it */
        rc = ps_site_writer_input(w, name, err);
        if (rc == PS_OK && nrule && (rc = ps_nsites_find(&ns, o->r.inputs[i], p, both, o->r.mismatches, err)) == PS_OK)
            ps_site_writer_nsites(w, &ns);
        ps_progress_begin(&pg, o->r.inputs[i], i + 1);
        if (rc == PS_OK)
            rc = ps_scanner_run(sc, o->r.inputs[i], NULL, &sink, &st[i], pg.enabled ? ps_progress_show : NULL, &pg, err);
        ps_progress_end(&pg);
        if (rc == PS_OK) rc = ps_site_writer_flush(w, err);
        if (rc == PS_OK && prf.n) {
            ps_prf_scan_stats_t pst;
            rc = pcounts ? ps_profiles_scan(&prf, o->r.inputs[i], name, ps_output_stream(out), o->format, &prows,
                                            pcounts, o->r.threads, &pst, err)
                         : ps_fail(err, PS_E_NOMEM, "out of memory");
            if (rc == PS_OK && o->r.verbose) ps_prf_scan_say(o->r.inputs[i], &prf, &pst);
        }
        if (rc < 0) goto done;
        if (st[i].in.records == 0) fprintf(stderr, "probescan: warning: %s: empty input, no records\n", o->r.inputs[i]);
        if (st[i].in.names_cut)
            fprintf(stderr, "probescan: warning: %s: %llu record name%s longer than %d bytes, cut to %d in the rows\n",
                    o->r.inputs[i], (unsigned long long)st[i].in.names_cut, st[i].in.names_cut == 1 ? " is" : "s are",
                    PS_NAME_MAX, PS_NAME_MAX);
        if (o->r.verbose)
            fprintf(stderr, "probescan: %s: %" PRIu64 " records, %" PRIu64 " bases in %.3f s\n", o->r.inputs[i],
                    st[i].in.records, st[i].in.symbols, st[i].seconds);
    }
    ps_opt_check_dna_input(p, (const char *const *)o->r.inputs, o->r.n_inputs, st);
    rc = ps_output_commit(out, err);
    out = NULL;
    if (rc < 0) goto done;
    ps_site_stats_t ss;
    ps_site_writer_stats(w, &ss);
    if (ss.dropped)
        fprintf(stderr, "probescan: --max-hits %" PRIu64 ": %u probe%s had more sites; %" PRIu64 " site%s not reported\n",
                o->max_hits, ss.probes_capped, ss.probes_capped == 1 ? "" : "s", ss.dropped, ss.dropped == 1 ? "" : "s");
    if (o->r.verbose) fprintf(stderr, "probescan: %" PRIu64 " sites written in %.3f s\n", ss.rows, ps_now() - t0);
    if (prf.n) profile_rows_said(o, &prows);
    if (o->r.stats) rc = write_stats(o, p, pl.lv, st, &ss, prf.n ? &prows : NULL, e, ps_now() - t0, err);

done:
    ps_output_abort(out);
    if (prf.n) ps_prf_rows_free(&prows);
    ps_profiles_free(&prf);
    free(pcounts);
    ps_site_writer_free(w);
    ps_nsites_free(&ns);
    ps_scanner_free(sc);
    ps_engine_destroy(e);
    ps_plan_free(&pl);
    ps_probes_free(p);
    free(st);
    return rc;
}

int ps_locate_main(int argc, char **argv, ps_cleanup_t *cl, ps_err_t *err)
{
    opts_t o;
    int rc = parse_locate(argc, argv, &o, err);
    if (rc == 0) {
        o.cleanup = cl;
        rc = run_locate(&o, err);
    }
    ps_casoff_inputs_free(o.r.casoff_inputs, o.r.n_casoff);
    return rc;
}
