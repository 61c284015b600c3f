/* gpu_bench.cu - GPU-resident kernel timings: every kernel variant on
 * uniform random text generated on the device, timed with CUDA events
 * (median of several runs after a warm-up), counts cross-checked against the
 * baseline kernel.
 *
 *   gpu_bench [-L log2_len] [-r reps] [-s seed] [-q] [-K]
 *
 * Prints the main table (k = 8, N = 1,000 .. 50,000, beside the seed paper's
 * H100 times), k = 9, 21 and 31, protein k = 8, the ablation (the DFA
 * kernels, best with its k-mer path off, kmer), both sides of the
 * shared/global counter switch, and the k-mer set kernel (k = 31, 10^4 to
 * 10^7 probes, both strands; the filter in shared and in global memory;
 * the whole text in one launch and in launches of 1 Mi symbols, the
 * pipeline's chunks). -q runs a small quick version. */
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <algorithm>

#include "automaton.h"
#include "gpu_scan.h"
#include "kmerset.h"
#include "pack.h"
#include "probes.h"

#define CK(call)                                                                                   \
    do {                                                                                           \
        cudaError_t e_ = (call);                                                                   \
        if (e_ != cudaSuccess) {                                                                   \
            fprintf(stderr, "gpu_bench: %s:%d: %s: %s\n", __FILE__, __LINE__, #call,             \
                    cudaGetErrorString(e_));                                                       \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)

__host__ __device__ static inline uint64_t mix64(uint64_t x)
{
    x += 0x9E3779B97F4A7C15ull;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
    return x ^ (x >> 31);
}

/* Word i of the random text: 16 uniform DNA symbols, or 6 uniform residues
 * (27 symbols) from 10 bits each. The host recomputes words to cut probes. */
__host__ __device__ static inline uint32_t text_word(uint64_t seed, uint64_t i, int bits)
{
    const uint64_t x = mix64(seed ^ (i * 0xD1B54A32D192ED03ull));
    if (bits == 2) return (uint32_t)x;
    uint32_t w = 0;
    for (int j = 0; j < 6; j++) w |= (uint32_t)((((x >> (10 * j)) & 1023u) * 27u) >> 10) << (5 * j);
    return w;
}

__global__ void gen_text(uint32_t *t, uint64_t nw, uint64_t seed, int bits)
{
    for (uint64_t i = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x; i < nw; i += (uint64_t)gridDim.x * blockDim.x)
        t[i] = text_word(seed, i, bits);
}

typedef struct {
    uint32_t *d_text;
    uint64_t n, nw;
    int bits;
    uint64_t seed;
} text_t;

static uint32_t sym_at(const text_t *t, uint64_t p)
{
    uint32_t pw = PS_PER_WORD(t->bits);
    return (text_word(t->seed, p / pw, t->bits) >> ((p % pw) * t->bits)) & ((1u << t->bits) - 1u);
}

/* N probes of length k cut at uniformly random positions of the text. */
static ps_probes_t *make_probes(const text_t *t, int k, uint32_t N, uint64_t seed)
{
    ps_alpha_t al = t->bits == 2 ? PS_DNA : PS_PROTEIN;
    char **seqs = (char **)calloc(N, sizeof *seqs);
    if (!seqs) exit(1);
    uint64_t r = seed;
    for (uint32_t i = 0; i < N; i++) {
        r = mix64(r);
        uint64_t at = r % (t->n - (uint64_t)k);
        if (!(seqs[i] = (char *)malloc((size_t)k + 1))) exit(1);
        for (int j = 0; j < k; j++) seqs[i][j] = ps_alpha_letter(al, (int)sym_at(t, at + (uint64_t)j));
        seqs[i][k] = 0;
    }
    ps_probes_t *p = NULL;
    ps_err_t err;
    if (ps_probes_from_strings(&p, N, (const char *const *)seqs, NULL, al == PS_DNA ? PS_ALPHA_DNA : PS_ALPHA_PROTEIN,
                               &err) != PS_OK) {
        fprintf(stderr, "gpu_bench: %s\n", err.msg);
        exit(1);
    }
    for (uint32_t i = 0; i < N; i++) free(seqs[i]);
    free(seqs);
    return p;
}

static ps_automaton_t *make_automaton(const text_t *t, int k, uint32_t N, uint64_t seed)
{
    ps_probes_t *p = make_probes(t, k, N, seed);
    ps_automaton_t *a = NULL;
    ps_err_t err;
    if (ps_automaton_build(&a, p, 0, &err) != PS_OK) {
        fprintf(stderr, "gpu_bench: %s\n", err.msg);
        exit(1);
    }
    ps_probes_free(p);
    return a;
}

/* The text in launches of `chunk` symbols (a multiple of 16; 0: one launch). */
static void launch_text(const ps_gplan_t *pl, const text_t *t, uint64_t chunk)
{
    if (!chunk) chunk = t->n;
    for (uint64_t at = 0; at < t->n; at += chunk)
        CK(ps_gpu_launch(pl, t->d_text + at / 16u, std::min(chunk, t->n - at), 0, NULL, 0, 0));
}

/* Median kernel time in ms; the counts of one extra run into out (if set). */
static double time_plan(ps_gplan_t *pl, const text_t *t, int reps, uint64_t *out, uint64_t chunk = 0)
{
    cudaEvent_t e0, e1;
    CK(cudaEventCreate(&e0));
    CK(cudaEventCreate(&e1));
    double ms[64];
    if (reps > 64) reps = 64;
    for (int i = 0; i < 2; i++) launch_text(pl, t, chunk); /* warm-up */
    CK(cudaDeviceSynchronize());
    for (int i = 0; i < reps; i++) {
        CK(cudaEventRecord(e0));
        launch_text(pl, t, chunk);
        CK(cudaEventRecord(e1));
        CK(cudaEventSynchronize(e1));
        float f = 0;
        CK(cudaEventElapsedTime(&f, e0, e1));
        ms[i] = f;
    }
    std::sort(ms, ms + reps);
    if (out) {
        CK(cudaMemset(pl->d_counts, 0, (size_t)pl->n_leaves * 8u));
        launch_text(pl, t, chunk);
        CK(cudaMemcpy(out, pl->d_counts, (size_t)pl->n_leaves * 8u, cudaMemcpyDeviceToHost));
    }
    CK(cudaEventDestroy(e0));
    CK(cudaEventDestroy(e1));
    return ms[reps / 2];
}

typedef struct {
    ps_automaton_t *a;
    ps_gplan_t tables;
    uint64_t *ref;
} bcase_t;

static void case_open(bcase_t *c, const text_t *t, int k, uint32_t N, uint64_t seed)
{
    memset(c, 0, sizeof *c);
    c->a = make_automaton(t, k, N, seed);
    CK(ps_gpu_tables_upload(&c->tables, c->a));
    c->ref = NULL;
}

static void case_close(bcase_t *c)
{
    ps_gpu_tables_free(&c->tables);
    ps_automaton_free(c->a);
    free(c->ref);
}

/* Times one variant; checks its counts against the first variant timed on
 * the case (the reference). no_kmer: best keeps the DFA walk. force_global:
 * leaf counters all in global memory, planned as such (grid included). */
static double run_variant(bcase_t *c, const text_t *t, int variant, int no_kmer, int reps, int force_global,
                          int verbose, int *mismatch)
{
    ps_gplan_t pl = c->tables;
    pl.no_kmer = no_kmer;
    pl.no_shared_counts = force_global;
    CK(ps_gpu_plan(&pl, variant, c->a, 0));
    if (verbose) {
        char d[400];
        ps_gpu_plan_describe(&pl, d, sizeof d);
        printf("#   %s\n", d);
    }
    uint64_t *got = (uint64_t *)malloc((size_t)c->a->n_leaves * 8u);
    double ms = time_plan(&pl, t, reps, got);
    uint64_t total = 0;
    for (uint32_t i = 0; i < c->a->n_leaves; i++) total += got[i];
    if (!c->ref) {
        c->ref = got;
        if (verbose) printf("#   matches: %llu (%.3f per position)\n", (unsigned long long)total, (double)total / t->n);
    } else {
        if (memcmp(got, c->ref, (size_t)c->a->n_leaves * 8u) != 0) {
            *mismatch = 1;
            printf("# MISMATCH: variant %s%s%s differs from the reference counts\n", ps_gpu_variant_names()[variant],
                   no_kmer ? ", k-mer path off" : "", force_global ? ", global counters" : "");
        }
        free(got);
    }
    return ms;
}

static void text_make(text_t *t, int bits, uint64_t n, uint64_t seed)
{
    t->bits = bits;
    t->n = n;
    t->nw = (n + PS_PER_WORD(bits) - 1) / PS_PER_WORD(bits);
    t->seed = seed;
    CK(cudaMalloc(&t->d_text, t->nw * 4u + 16u));
    gen_text<<<1024, 256>>>(t->d_text, t->nw, seed, bits);
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());
}

int main(int argc, char **argv)
{
    int log2_len = 30, reps = 9, quick = 0, kset_only = 0;
    uint64_t seed = (uint64_t)time(NULL);
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "-L") && i + 1 < argc) log2_len = atoi(argv[++i]);
        else if (!strcmp(argv[i], "-r") && i + 1 < argc) reps = atoi(argv[++i]);
        else if (!strcmp(argv[i], "-s") && i + 1 < argc) seed = strtoull(argv[++i], NULL, 10);
        else if (!strcmp(argv[i], "-q")) quick = 1;
        else if (!strcmp(argv[i], "-K")) kset_only = 1;
        else {
            fprintf(stderr, "usage: gpu_bench [-L log2_len] [-r reps] [-s seed] [-q] [-K]\n");
            return 2;
        }
    }
    if (quick) log2_len = log2_len < 24 ? log2_len : 24;
    cudaDeviceProp prop;
    CK(cudaGetDeviceProperties(&prop, 0));
    printf("# device: %s, %d SMs, %.0f GiB, %zu KiB shared/block opt-in\n", prop.name, prop.multiProcessorCount,
           prop.totalGlobalMem / 1073741824.0, prop.sharedMemPerBlockOptin / 1024);
    printf("# text: uniform random, L = 2^%d symbols, seed %llu; probes cut at uniform random positions; "
           "median of %d runs after 2 warm-ups\n",
           log2_len, (unsigned long long)seed, reps);
    const uint64_t L = 1ull << log2_len;
    int mismatch = 0;

    text_t dna;
    text_make(&dna, 2, L, seed);
    static const uint32_t Ns[] = {1000, 4000, 8000, 16000, 50000};
    static const double seed_ms[] = {2.54, 5.16, 7.98, 10.52, 21.13};
    const int nN = 5;
    const int nv = PS_K_COUNT;
    /* abl: each variant as planned (best takes the k-mer path here); dfa:
     * best with the k-mer path off; glob, kglob: those two with every
     * counter a global atomic (both sides of the counter switch). */
    double abl[PS_K_COUNT][5], dfa[5], glob[5], kglob[5];

    for (int i = 0; i < (kset_only ? 0 : nN); i++) {
        bcase_t c;
        case_open(&c, &dna, 8, Ns[i], seed + (uint64_t)i);
        printf("# DNA k=8 N=%u: %u states\n", Ns[i], c.a->n_states);
        /* The baseline first: it is the reference the others are checked against. */
        abl[PS_K_BASELINE][i] = run_variant(&c, &dna, PS_K_BASELINE, 0, reps, 0, 1, &mismatch);
        for (int v = 0; v < nv; v++)
            if (v != PS_K_BASELINE) abl[v][i] = run_variant(&c, &dna, v, 0, reps, 0, 1, &mismatch);
        dfa[i] = run_variant(&c, &dna, PS_K_BEST, 1, reps, 0, 1, &mismatch);
        glob[i] = run_variant(&c, &dna, PS_K_BEST, 1, reps, 1, 0, &mismatch);
        kglob[i] = run_variant(&c, &dna, PS_K_KMER, 0, reps, 1, 0, &mismatch);
        case_close(&c);
    }

    if (kset_only) goto kset;
    printf("\n## (a) best kernel, GPU-resident, DNA k=8, L=2^%d\n", log2_len);
    printf("| N | best ms | Gbases/s | seed paper ms (L=2^30) | speed-up | target 4x |\n|---|---|---|---|---|---|\n");
    for (int i = 0; i < nN; i++) {
        double ms = abl[PS_K_BEST][i], scaled = seed_ms[i] * (double)L / 1073741824.0;
        printf("| %u | %.3f | %.0f | %.2f | %.2fx | %s |\n", Ns[i], ms, L / ms / 1e6, seed_ms[i], scaled / ms,
               scaled / ms >= 4.0 ? "met" : "missed");
    }

    printf("\n## (a) other probe lengths and protein (best kernel)\n| case | states | ms | Gsymbols/s |\n|---|---|---|---|\n");
    static const int ks[] = {9, 21, 31};
    for (int i = 0; i < 3; i++) {
        bcase_t c;
        case_open(&c, &dna, ks[i], 10000, seed + 100u + (uint64_t)i);
        run_variant(&c, &dna, PS_K_BASELINE, 0, 3, 0, 0, &mismatch);
        double ms = run_variant(&c, &dna, PS_K_BEST, 0, reps, 0, 1, &mismatch);
        printf("| DNA k=%d N=10000 | %u | %.3f | %.0f |\n", ks[i], c.a->n_states, ms, L / ms / 1e6);
        case_close(&c);
    }
kset:
    /* (c) The k-mer set kernel. Its filter goes to shared memory for the
     * small set only (no_shared_counts forces it global: both sides of the
     * switch). Counts must agree between the filter placements; the chunked
     * launches lose the windows across their cuts, so they are compared
     * among themselves. */
    printf("\n## (c) k-mer set kernel, DNA k=31, both strands, L=2^%d\n", log2_len);
    printf("| N | strings | filter | whole text ms (Gbases/s) | 1 Mi-symbol launches ms (Gbases/s) | hits |\n"
           "|---|---|---|---|---|---|\n");
    static const uint32_t kN[] = {10000, 100000, 1000000, 10000000};
    for (int i = 0; i < (quick ? 2 : 4); i++) {
        ps_probes_t *p = make_probes(&dna, 31, kN[i], seed + 300u + (uint64_t)i);
        ps_kmerset_t *ks = NULL;
        ps_err_t err;
        if (ps_kmerset_build(&ks, p, 1, 16, &err) != PS_OK) {
            fprintf(stderr, "gpu_bench: %s\n", err.msg);
            return 1;
        }
        ps_gplan_t up;
        memset(&up, 0, sizeof up);
        CK(ps_gpu_kset_upload(&up, ks));
        const size_t nl = ks->leaves.n_leaves;
        uint64_t *ref = NULL;
        for (int glob = 0; glob < 2; glob++) {
            ps_gplan_t pl = up;
            pl.no_shared_counts = glob;
            CK(ps_gpu_plan_kmerset(&pl, ks, 0));
            if (glob && ref && !up.filter_shared) break; /* planned global already: no other side */
            uint64_t *got = (uint64_t *)malloc(nl * 8u), *gotc = (uint64_t *)malloc(nl * 8u);
            const double whole = time_plan(&pl, &dna, reps, got), chunked = time_plan(&pl, &dna, reps, gotc, 1u << 20);
            uint64_t hits = 0;
            for (size_t j = 0; j < nl; j++) hits += got[j];
            if (!ref) {
                ref = got;
                up.filter_shared = pl.filter_shared; /* how it was planned unforced */
            } else {
                if (memcmp(got, ref, nl * 8u) != 0) {
                    mismatch = 1;
                    printf("# MISMATCH: k-mer set N=%u, the filter's placements count differently\n", kN[i]);
                }
                free(got);
            }
            free(gotc);
            printf("| %u | %u | %llu KiB %s | %.3f (%.1f) | %.3f (%.1f) | %llu |\n", kN[i], nl ? (uint32_t)(2u * kN[i]) : 0u,
                   (8ull << pl.filter_bits) >> 10, pl.filter_shared ? "shared" : "global", whole, L / whole / 1e6,
                   chunked, L / chunked / 1e6, (unsigned long long)hits);
        }
        free(ref);
        ps_gpu_tables_free(&up);
        ps_kmerset_free(ks);
        ps_probes_free(p);
    }

    if (kset_only) {
        CK(cudaFree(dna.d_text));
        printf("\n# counts identical across the filter's placements: %s\n", mismatch ? "NO" : "yes");
        return mismatch ? 1 : 0;
    }
    CK(cudaFree(dna.d_text));
    text_t prot;
    text_make(&prot, 5, L, seed ^ 0xABCDu);
    static const uint32_t pN[] = {1000, 10000};
    for (int i = 0; i < 2; i++) {
        bcase_t c;
        case_open(&c, &prot, 8, pN[i], seed + 200u + (uint64_t)i);
        run_variant(&c, &prot, PS_K_BASELINE, 0, 3, 0, 0, &mismatch);
        double ms = run_variant(&c, &prot, PS_K_BEST, 0, reps, 0, 1, &mismatch);
        printf("| protein k=8 N=%u | %u | %.3f | %.0f |\n", pN[i], c.a->n_states, ms, L / ms / 1e6);
        case_close(&c);
    }
    CK(cudaFree(prot.d_text));

    printf("\n## (b) ablation, DNA k=8, L=2^%d, ms (Gbases/s)\n| kernel |", log2_len);
    for (int i = 0; i < nN; i++) printf(" N=%u |", Ns[i]);
    printf("\n|---|---|---|---|---|---|\n");
    static const int order[] = {PS_K_BASELINE, PS_K_SHARED, PS_K_COALESCED, PS_K_COMPACT, PS_K_LEAF};
    for (int oi = 0; oi < 5; oi++) {
        int v = order[oi];
        printf("| %s |", ps_gpu_variant_names()[v]);
        for (int i = 0; i < nN; i++) printf(" %.3f (%.0f) |", abl[v][i], L / abl[v][i] / 1e6);
        printf("\n");
    }
    const struct {
        const char *name;
        const double *ms;
    } rows[] = {{"best, DFA walk (k-mer path off)", dfa},
                {"kmer", abl[PS_K_KMER]},
                {"best (as planned: k-mer path)", abl[PS_K_BEST]},
                {"best DFA walk, counters forced to global atomics", glob},
                {"kmer, counters forced to global atomics", kglob}};
    for (size_t r = 0; r < sizeof rows / sizeof *rows; r++) {
        printf("| %s |", rows[r].name);
        for (int i = 0; i < nN; i++) printf(" %.3f (%.0f) |", rows[r].ms[i], L / rows[r].ms[i] / 1e6);
        printf("\n");
    }
    printf("\n# counts identical across all kernels: %s\n", mismatch ? "NO" : "yes");
    return mismatch ? 1 : 0;
}
