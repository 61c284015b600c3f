/* pattern_gpu_bench.cu - the GPU pattern kernel alone (engine_pattern_gpu.h)
 * on real genome text: probes sampled from the genome, both strands, for
 * each mismatch level the kernel's time with CUDA events (median of the
 * runs after a warm-up, the text already on the device), its throughput,
 * and the sites found at each distance. Before timing, each level's counts
 * are checked against the CPU pattern engine on the first symbols.
 *
 *   pattern_gpu_bench GENOME.fa [-n probes] [-k length] [-m max_mm] [-r runs] [-c check_syms] [-s seed]
 *
 * Defaults: 1,000 probes of length 20, -m 0 to 5, 5 runs, 65,536 symbols
 * checked. GENOME.fa is plain FASTA: each record, and each letter other
 * than A, C, G, T, starts a new segment. About 1 Gbp of real text is the
 * yeast genome 84 times over:
 *
 *   gzip -dc yeast_S288C_R64-1-1.bgzf.fa.gz > /tmp/y.fa
 *   for i in $(seq 84); do cat /tmp/y.fa; done > /tmp/y84.fa
 *   make build/bench/pattern_gpu_bench && build/bench/pattern_gpu_bench /tmp/y84.fa */
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <algorithm>

#include "alphabet.h"
#include "engine_pattern.h"
#include "engine_pattern_gpu.h"
#include "pack.h"
#include "patset.h"
#include "probes.h"

#define CK(call)                                                                                   \
    do {                                                                                           \
        cudaError_t e_ = (call);                                                                   \
        if (e_ != cudaSuccess) {                                                                   \
            fprintf(stderr, "pattern_gpu_bench: %s:%d: %s: %s\n", __FILE__, __LINE__, #call,     \
                    cudaGetErrorString(e_));                                                       \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)

[[noreturn]] static void die(const char *what, const ps_err_t *err)
{
    fprintf(stderr, "pattern_gpu_bench: %s: %s\n", what, err ? err->msg : "failed");
    exit(1);
}

static uint64_t mix64(uint64_t x)
{
    x += 0x9E3779B97F4A7C15ull;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
    return x ^ (x >> 31);
}

/* The FASTA file packed into one chunk: headers and non-ACGT letters
 * become restarts. */
static void read_fasta(const char *path, ps_chunk_t *c)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        perror(path);
        exit(1);
    }
    if (fseeko(f, 0, SEEK_END) != 0) die("cannot seek in the genome", NULL);
    const off_t size = ftello(f);
    rewind(f);
    if (size <= 0 || (uint64_t)size >= (1ull << 32) - 64) die("the genome must hold 1 to 2^32 - 64 bytes", NULL);
    ps_err_t err;
    if (ps_chunk_init(c, PS_DNA, (uint64_t)size + 1, 1u << 24, NULL, &err) != PS_OK) die("chunk", &err);
    uint8_t table[256];
    ps_alpha_table(PS_DNA, table);
    static char buf[1 << 20];
    int at_line_start = 1, in_header = 0;
    size_t got;
    while ((got = fread(buf, 1, sizeof buf, f)) > 0) {
        for (size_t i = 0; i < got; i++) {
            const unsigned char ch = (unsigned char)buf[i];
            if (in_header) {
                if (ch == '\n') in_header = 0, at_line_start = 1;
                continue;
            }
            if (at_line_start && ch == '>') {
                in_header = 1;
                if (ps_chunk_restart(c) < 0) die("too many records and breaks", NULL);
                continue;
            }
            at_line_start = ch == '\n';
            const uint8_t s = table[ch];
            if (s < PS_DNA_SIGMA) ps_chunk_push(c, s);
            else if (s != PS_SYM_SKIP && ps_chunk_restart(c) < 0) die("too many records and breaks", NULL);
        }
    }
    if (ferror(f)) die("reading the genome", NULL);
    fclose(f);
}

/* n probes of length k at random positions of the text, none across a restart. */
static ps_probes_t *sample_probes(const ps_chunk_t *c, uint32_t n, int k, uint64_t seed)
{
    char **seqs = (char **)calloc(n, sizeof *seqs);
    if (!seqs || c->n < (uint64_t)k) die("no room for probes", NULL);
    uint64_t r = seed;
    for (uint32_t i = 0; i < n; i++) {
        uint64_t at;
        for (int tries = 0;; tries++) {
            r = mix64(r);
            at = r % (c->n - (uint64_t)k + 1);
            const uint32_t next = ps_chunk_restart_after(c, at);
            if (next == c->n_restart || c->restart[next] >= at + (uint64_t)k) break;
            if (tries > 1000000) die("no probe sites without breaks", NULL);
        }
        seqs[i] = (char *)malloc((size_t)k + 1);
        if (!seqs[i]) die("out of memory", NULL);
        for (int j = 0; j < k; j++) seqs[i][j] = ps_alpha_letter(PS_DNA, (int)ps_chunk_sym(c, at + (uint64_t)j));
        seqs[i][k] = 0;
    }
    ps_probes_t *p = NULL;
    ps_err_t err;
    if (ps_probes_from_strings(&p, n, (const char *const *)seqs, NULL, PS_ALPHA_DNA, &err) != PS_OK) die("probes", &err);
    for (uint32_t i = 0; i < n; i++) free(seqs[i]);
    free(seqs);
    return p;
}

int main(int argc, char **argv)
{
    uint32_t n_probes = 1000, check = 1u << 16;
    int k = 20, max_mm = 5, runs = 5;
    uint64_t seed = 1;
    int opt;
    while ((opt = getopt(argc, argv, "n:k:m:r:c:s:")) != -1) {
        switch (opt) {
        case 'n': n_probes = (uint32_t)strtoul(optarg, NULL, 10); break;
        case 'k': k = atoi(optarg); break;
        case 'm': max_mm = atoi(optarg); break;
        case 'r': runs = atoi(optarg); break;
        case 'c': check = (uint32_t)strtoul(optarg, NULL, 10); break;
        case 's': seed = strtoull(optarg, NULL, 10); break;
        default: goto usage;
        }
    }
    if (optind + 1 != argc || n_probes < 1 || k < 1 || k > PS_GPU_PATTERN_MAX_LEN || max_mm < 0 || max_mm > PS_MAX_MM ||
        runs < 1 || runs > 64)
        goto usage;
    {
        cudaDeviceProp prop;
        CK(cudaSetDevice(0));
        CK(cudaGetDeviceProperties(&prop, 0));
        int rt = 0;
        CK(cudaRuntimeGetVersion(&rt));
        printf("device: %s, %d SMs, %.0f GiB, compute capability %d.%d, CUDA runtime %d.%d\n", prop.name,
               prop.multiProcessorCount, prop.totalGlobalMem / 1073741824.0, prop.major, prop.minor, rt / 1000,
               rt % 1000 / 10);

        ps_chunk_t c;
        read_fasta(argv[optind], &c);
        printf("text: %s: %.3f Gbp, %u restarts (records and breaks)\n", argv[optind], c.n / 1e9, c.n_restart);
        ps_probes_t *p = sample_probes(&c, n_probes, k, seed);
        printf("probes: %u of length %d sampled from the text (seed %llu), both strands\n", n_probes, k,
               (unsigned long long)seed);

        const size_t text_bytes = ps_chunk_text_bytes(&c);
        uint32_t *d_text = NULL, *d_restart = NULL;
        CK(cudaMalloc(&d_text, text_bytes + 64));
        CK(cudaMemset(d_text, 0, text_bytes + 64));
        CK(cudaMemcpy(d_text, c.text, text_bytes, cudaMemcpyHostToDevice));
        CK(cudaMalloc(&d_restart, (size_t)(c.n_restart ? c.n_restart : 1) * sizeof(uint32_t)));
        if (c.n_restart) CK(cudaMemcpy(d_restart, c.restart, (size_t)c.n_restart * 4u, cudaMemcpyHostToDevice));
        cudaEvent_t e0, e1;
        CK(cudaEventCreate(&e0));
        CK(cudaEventCreate(&e1));

        /* The first check_syms symbols, for the CPU engine. */
        ps_chunk_t head = c;
        head.n = c.n < check ? c.n : check;
        head.n_restart = ps_chunk_restart_after(&c, head.n - 1);
        head.n_ctx = 0;

        int failed = 0;
        printf("%-3s %6s %12s %10s %8s  %s\n", "-m", "words", "kernel ms", "Gbp/s", "check", "sites at distance 0, 1, ...");
        for (int mm = 0; mm <= max_mm; mm++) {
            ps_err_t err;
            ps_patset_t *ps = NULL;
            if (ps_patset_build(&ps, p, 1, mm, &err) != PS_OK) die("pattern set", &err);
            ps_gpat_t *g = NULL;
            if (ps_gpat_new(&g, ps, &err) != PS_OK) die("GPU layout", &err);
            const uint32_t nl = ps->leaves.n_leaves;
            uint64_t *want = (uint64_t *)calloc(nl, 8), *got = (uint64_t *)calloc(nl, 8);
            if (!want || !got) die("out of memory", NULL);

            ps_engine_t *e = NULL;
            if (ps_pattern_engine_new(&e, ps, 1, &err) != PS_OK || e->scan(e, 0, &head, &err) != PS_OK ||
                e->collect(e, want, &err) != PS_OK)
                die("CPU engine", &err);
            ps_engine_destroy(e);
            if (ps_gpat_launch(g, d_text, head.n, 0, d_restart, NULL, head.n_restart, 0, PS_EDGE_CLOSED, NULL, &err) != PS_OK ||
                ps_gpat_collect(g, got, &err) != PS_OK)
                die("GPU kernel", &err);
            uint32_t bad = 0;
            for (uint32_t l = 0; l < nl; l++) bad += got[l] != want[l];

            /* The warm-up gives the counts; then the timed runs. */
            memset(got, 0, (size_t)nl * 8);
            if (ps_gpat_launch(g, d_text, c.n, 0, d_restart, NULL, c.n_restart, 0, PS_EDGE_CLOSED, NULL, &err) != PS_OK ||
                ps_gpat_collect(g, got, &err) != PS_OK)
                die("GPU kernel", &err);
            uint64_t at_d[PS_MAX_MM + 1] = {0};
            for (uint32_t l = 0; l < nl; l++) at_d[l % (uint32_t)(mm + 1)] += got[l];
            double ms[64];
            for (int i = 0; i < runs; i++) {
                CK(cudaEventRecord(e0));
                if (ps_gpat_launch(g, d_text, c.n, 0, d_restart, NULL, c.n_restart, 0, PS_EDGE_CLOSED, NULL, &err) != PS_OK)
                    die("GPU kernel", &err);
                CK(cudaEventRecord(e1));
                CK(cudaEventSynchronize(e1));
                float f = 0;
                CK(cudaEventElapsedTime(&f, e0, e1));
                ms[i] = f;
            }
            std::sort(ms, ms + runs);
            if (ps_gpat_collect(g, got, &err) != PS_OK) die("GPU kernel", &err);
            const double med = ms[runs / 2];
            printf("%-3d %6u %12.1f %10.3f %8s ", mm, ps_gpat_words(g), med, c.n / (med * 1e6), bad ? "FAILED" : "ok");
            for (int d = 0; d <= mm; d++) printf(" %llu", (unsigned long long)at_d[d]);
            printf("\n");
            fflush(stdout);
            failed |= bad != 0;
            if (bad) fprintf(stderr, "pattern_gpu_bench: -m %d: %u of %u leaves differ from the CPU engine on the first %llu symbols\n",
                             mm, bad, nl, (unsigned long long)head.n);
            free(want);
            free(got);
            ps_gpat_free(g);
            ps_patset_free(ps);
        }
        CK(cudaEventDestroy(e0));
        CK(cudaEventDestroy(e1));
        CK(cudaFree(d_text));
        CK(cudaFree(d_restart));
        ps_probes_free(p);
        ps_chunk_free(&c, NULL);
        return failed;
    }
usage:
    fprintf(stderr, "usage: pattern_gpu_bench GENOME.fa [-n probes] [-k length] [-m max_mm] [-r runs] [-c check_syms] [-s seed]\n");
    return 2;
}
