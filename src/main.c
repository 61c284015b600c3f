/* probescan - find many probes in sequence files, on the GPU or all CPU
 * cores. This file only dispatches to the subcommands, each of which owns
 * its options (count.c, locate.c, merge.c, summary.c), and prints the one error line.
 * Whatever a command printed on standard output (a table, --help, the
 * version) is flushed here before exit 0: a write that failed there (a full
 * disk, /dev/full) is an error, exit 1 with one line, never a silent success. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <htslib/hts.h>

#include "cleanup.h"
#include "count.h"
#include "engine_gpu.h"
#include "error.h"
#include "locate.h"
#include "merge.h"
#include "summary.h"

#ifndef PS_VERSION
#define PS_VERSION "unknown"
#endif
#ifndef PS_CUDA_ARCHS
#define PS_CUDA_ARCHS ""
#endif

static void usage(FILE *f)
{
    fprintf(f,
"probescan %s - count probes and patterns in sequence files, on the GPU or all CPU cores\n"
"\n"
"Usage: probescan <command> [options]\n"
"\n"
"Commands:\n"
"  count    count probes in FASTA/FASTQ inputs (probescan count --help)\n"
"  locate   every site of every probe, as BED (probescan locate --help)\n"
"  merge    sum or join count tables of scattered chunks (probescan merge --help)\n"
"  summary  MultiQC report files from count tables (probescan summary --help)\n"
"  version  the versions of probescan, htslib and CUDA, and the GPU architectures built\n"
"\n"
"  probescan --version    print the version\n",
            PS_VERSION);
}

/* 0 when everything written to stdout has reached it; else one error line
 * and 1. fflush, not fclose: a closed stdout that was never written to is
 * not an error. */
static int finish_stdout(void)
{
    errno = 0;
    int bad = fflush(stdout) != 0;
    int e = errno;
    if (ferror(stdout)) bad = 1;
    if (!bad) return 0;
    fprintf(stderr, "probescan: error writing standard output: %s\n", e ? strerror(e) : "write failed");
    return 1;
}

int main(int argc, char **argv)
{
    ps_err_t err = {0, ""};
    /* Errors reach the user as one line of ours; htslib's own logging
     * would add a second, differently worded one. */
    hts_set_log_level(HTS_LOG_OFF);
    if (argc < 2 || !strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
        usage(stdout);
        return finish_stdout();
    }
    if (!strcmp(argv[1], "--version")) {
        puts(PS_VERSION);
        return finish_stdout();
    }
    if (!strcmp(argv[1], "version")) {
        /* What a bug report needs; --version stays the bare number. */
        char cuda[128];
        ps_gpu_versions(cuda, sizeof cuda);
        printf("probescan %s\nhtslib %s\nCUDA %s\nGPU architectures built: %s\n", PS_VERSION, hts_version(), cuda,
               PS_CUDA_ARCHS[0] ? PS_CUDA_ARCHS : "none");
        return finish_stdout();
    }
    /* First, before any thread: every thread then has the stop signals
     * blocked and one watcher removes temporary outputs when one comes. */
    ps_cleanup_t *cl = NULL;
    int rc = ps_cleanup_start(&cl, &err);
    if (rc < 0) {
        fprintf(stderr, "probescan: %s\n", err.msg);
        return 1;
    }
    if (!strcmp(argv[1], "count")) rc = ps_count_main(argc - 1, argv + 1, cl, &err);
    else if (!strcmp(argv[1], "locate")) rc = ps_locate_main(argc - 1, argv + 1, cl, &err);
    else if (!strcmp(argv[1], "merge")) rc = ps_merge(argc - 1, argv + 1, stdout, stderr, cl, &err);
    else if (!strcmp(argv[1], "summary")) rc = ps_summary_main(argc - 1, argv + 1, cl, &err);
    else rc = ps_fail(&err, PS_E_USAGE, "unknown command '%s' (see probescan --help)", argv[1]);
    if (rc < 0) {
        fprintf(stderr, "probescan: %s\n", err.msg);
        return 1;
    }
    return finish_stdout();
}
