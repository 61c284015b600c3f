/* test_data.c - the core on the real data in $PS_DATA, against an
 * independent counter: each file is decompressed with zlib here, split into
 * records, and every k-symbol window is looked up in a hash of the probes
 * (and their reverse complements) with a rolling code. Probes are sampled
 * from the data with fixed seeds.
 *
 * Suite "data" checks the CPU engine; suite "gpu_data" runs the same cases
 * and, for every scan, every GPU kernel and the default (mixed) engine too,
 * which must give the CPU engine's counts exactly. Each test is added only
 * where its file is found ($PS_DATA, or the E. coli genome fasta/ ships),
 * and otherwise reported skipped, naming the file; gpu_data runs only where
 * a GPU is usable (check_main.c). */
#include <check.h>
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "automaton.h"
#include "engine.h"
#include "engine_cpu.h"
#include "engine_gpu.h"
#include "engine_mixed.h"
#include "kmerset.h"
#include "probes.h"
#include "scan.h"
#include "testutil.h"

/* The mixed engine on device 0 alone, as before several GPUs. */
static const ps_gpus_t gpu0 = {.n = 1, .id = {0}};

static const char protein_syms[] = "ACDEFGHIKLMNPQRSTVWYBZXUOJ*";

/* Path of a data file (malloc'd); the suite added the test only where it
 * was found (TU_ADD_DATA_TEST). */
static char *data_file(const char *name)
{
    char why[1024];
    char *path = tu_data_file(name, why, sizeof why);
    ck_assert_msg(path != NULL, "%s", why);
    return path;
}

#define ECOLI "ecoli_K12_MG1655.fa.gz"
#define YEAST "yeast_S288C_R64-1-1.bgzf.fa.gz"
#define ILLUMINA "illumina_hiseqX_10k.fq.gz"
#define ONT "ont_cDNA_5k.fq.gz"
#define UNIPROT "uniprot_20k.fa.gz"

/* ---- the data, decompressed and split into records here ---- */

typedef struct {
    char *seq;       /* all records' sequence letters, back to back */
    size_t *start, *len;
    size_t n;
} records_t;

static void records_free(records_t *r)
{
    free(r->seq);
    free(r->start);
    free(r->len);
}

/* FASTA (any line length) or four-line FASTQ. */
static records_t load_records(const char *path)
{
    size_t n = 0;
    char *text = tu_read_gz(path, &n);
    ck_assert_msg(text != NULL, "zlib could not read %s", path);
    records_t r = {0};
    r.seq = malloc(n + 1);
    size_t cap = 1024;
    r.start = malloc(cap * sizeof *r.start);
    r.len = malloc(cap * sizeof *r.len);
    ck_assert(r.seq && r.start && r.len);
    int fastq = text[0] == '@';
    ck_assert_msg(fastq || text[0] == '>', "%s is not FASTA or FASTQ", path);
    size_t out = 0, line_no = 0;
    for (size_t i = 0; i < n;) {
        size_t e = i;
        while (e < n && text[e] != '\n') e++;
        size_t le = e;
        if (le > i && text[le - 1] == '\r') le--;
        int header = fastq ? line_no % 4 == 0 : text[i] == '>';
        int seqline = fastq ? line_no % 4 == 1 : !header;
        if (header) {
            if (r.n == cap) {
                cap *= 2;
                r.start = realloc(r.start, cap * sizeof *r.start);
                r.len = realloc(r.len, cap * sizeof *r.len);
                ck_assert(r.start && r.len);
            }
            r.start[r.n] = out;
            r.len[r.n] = 0;
            r.n++;
        } else if (seqline && r.n > 0) {
            memcpy(r.seq + out, text + i, le - i);
            out += le - i;
            r.len[r.n - 1] += le - i;
        }
        line_no++;
        i = e + 1;
    }
    r.seq[out] = '\0';
    free(text);
    return r;
}

/* ---- the independent counter ---- */

static int sym_code(ps_alpha_t a, char ch)
{
    int up = toupper((unsigned char)ch);
    if (a == PS_DNA) {
        switch (up) {
        case 'A': return 0;
        case 'C': return 1;
        case 'G': return 2;
        case 'T':
        case 'U': return 3;
        default: return -1;
        }
    }
    const char *p = up ? strchr(protein_syms, up) : NULL;
    return p ? (int)(p - protein_syms) : -1;
}

/* Open addressing from packed k-mer code to a pattern slot. */
typedef struct {
    uint64_t *key;
    int32_t *slot;
    size_t cap;
    uint32_t n;
    uint64_t *count; /* per slot */
} kmer_table_t;

static size_t kh(uint64_t key, size_t cap)
{
    key ^= key >> 31;
    key *= 0x7fb5d329728ea185ull;
    key ^= key >> 27;
    return (size_t)key & (cap - 1);
}

static int32_t kt_find(const kmer_table_t *t, uint64_t key)
{
    for (size_t i = kh(key, t->cap);; i = (i + 1) & (t->cap - 1)) {
        if (t->slot[i] < 0) return -1;
        if (t->key[i] == key) return t->slot[i];
    }
}

static int32_t kt_add(kmer_table_t *t, uint64_t key)
{
    size_t i = kh(key, t->cap);
    for (; t->slot[i] >= 0; i = (i + 1) & (t->cap - 1))
        if (t->key[i] == key) return t->slot[i];
    t->key[i] = key;
    t->slot[i] = (int32_t)t->n;
    return (int32_t)t->n++;
}

static uint64_t pack_kmer(ps_alpha_t a, const char *s, int k)
{
    int bits = a == PS_DNA ? 2 : 5;
    uint64_t v = 0;
    for (int j = 0; j < k; j++) {
        int c = sym_code(a, s[j]);
        ck_assert_int_ge(c, 0);
        v = (v << bits) | (uint64_t)c;
    }
    return v;
}

static uint64_t pack_rc(const char *s, int k)
{
    uint64_t v = 0;
    for (int j = k - 1; j >= 0; j--) v = (v << 2) | (uint64_t)(3 - sym_code(PS_DNA, s[j]));
    return v;
}

/* Counts per probe: fwd occurrences of the probe, rev of its reverse
 * complement (rev NULL: forward only); returns the symbols seen. */
static uint64_t independent_counts(const records_t *r, ps_alpha_t a, int k, char *const *probes,
                                   uint32_t n, uint64_t *fwd, uint64_t *rev)
{
    int bits = a == PS_DNA ? 2 : 5;
    ck_assert_int_le(k * bits, 64);
    kmer_table_t t = {0};
    t.cap = 1;
    while (t.cap < (size_t)n * 8) t.cap *= 2;
    t.key = malloc(t.cap * sizeof *t.key);
    t.slot = malloc(t.cap * sizeof *t.slot);
    t.count = calloc((size_t)n * 2, sizeof *t.count);
    int32_t *fs = malloc(n * sizeof *fs), *rs = malloc(n * sizeof *rs);
    ck_assert(t.key && t.slot && t.count && fs && rs);
    for (size_t i = 0; i < t.cap; i++) t.slot[i] = -1;
    for (uint32_t i = 0; i < n; i++) {
        fs[i] = kt_add(&t, pack_kmer(a, probes[i], k));
        rs[i] = rev ? kt_add(&t, pack_rc(probes[i], k)) : -1;
    }
    uint64_t mask = k * bits == 64 ? ~0ull : (1ull << (k * bits)) - 1;
    uint64_t symbols = 0;
    for (size_t rec = 0; rec < r->n; rec++) {
        const char *s = r->seq + r->start[rec];
        uint64_t v = 0;
        int run = 0;
        for (size_t i = 0; i < r->len[rec]; i++) {
            int c = sym_code(a, s[i]);
            if (c < 0) {
                run = 0;
                continue;
            }
            symbols++;
            v = ((v << bits) | (uint64_t)c) & mask;
            if (++run >= k) {
                int32_t slot = kt_find(&t, v);
                if (slot >= 0) t.count[slot]++;
            }
        }
    }
    for (uint32_t i = 0; i < n; i++) {
        fwd[i] = t.count[fs[i]];
        if (rev) rev[i] = t.count[rs[i]];
    }
    free(t.key);
    free(t.slot);
    free(t.count);
    free(fs);
    free(rs);
    return symbols;
}

/* ---- the core under test ---- */

typedef struct {
    uint64_t *fwd, *rev;
    ps_scan_stats_t st;
} scan_result_t;

/* The same input through every GPU kernel and the default (mixed) engine
 * must give the CPU engine's leaf counts exactly. */
static void gpu_agrees(const char *path, const ps_automaton_t *am, const uint64_t *want, int threads,
                       size_t block_bytes)
{
    uint64_t *got = calloc(am->n_leaves, sizeof *got);
    ck_assert_ptr_nonnull(got);
    const char *const *names = ps_gpu_kernel_names();
    int n_names = 0;
    while (names[n_names]) n_names++;
    for (int i = 0; i <= n_names; i++) {
        /* Every kernel, then the mixed engine (kn NULL). */
        ps_engine_t *e = NULL;
        ps_err_t err = {0};
        const char *kn = names[i];
        int rc = kn ? ps_gpu_engine_new(&e, am, 0, kn, threads + 1, &err)
                    : ps_mixed_engine_new(&e, am, &gpu0, -1, NULL, threads + 1, &err);
        ck_assert_msg(rc == PS_OK, "%s: %s", kn ? kn : "mixed", err.msg);
        memset(got, 0, am->n_leaves * sizeof *got);
        ps_engine_info_t in;
        ps_engine_info(e, &in);
        ps_scan_opts_t so;
        ps_scan_opts_init(&so, &in, threads);
        so.block_bytes = block_bytes;
        rc = ps_scan_file(e, &am->leaves, path, &so, got, NULL, NULL, NULL, NULL, &err);
        ck_assert_msg(rc == PS_OK, "GPU %s scanning %s: %s", kn ? kn : "mixed", path, err.msg);
        for (uint32_t l = 0; l < am->n_leaves; l++)
            ck_assert_msg(got[l] == want[l], "%s, GPU %s: leaf %u: %llu, CPU %llu", path, kn ? kn : "mixed", l,
                          (unsigned long long)got[l], (unsigned long long)want[l]);
        ps_engine_destroy(e);
    }
    free(got);
}

/* The same probes (DNA, k <= 32) in a k-mer set, through the GPU k-mer set
 * engine and the default (mixed) one: each probe's counts must be the
 * automaton's on the CPU (the set numbers its leaves differently). */
static void gpu_kset_agrees(const char *path, const ps_probes_t *p, int both, const uint64_t *fwd,
                            const uint64_t *rev, int threads, size_t block_bytes)
{
    ps_kmerset_t *ks = NULL;
    ps_err_t err = {0};
    ck_assert_msg(ps_kmerset_build(&ks, p, both, threads, &err) == PS_OK, "%s", err.msg);
    uint64_t *got = calloc(ks->leaves.n_leaves ? ks->leaves.n_leaves : 1, sizeof *got);
    ck_assert_ptr_nonnull(got);
    for (int mixed = 0; mixed < 2; mixed++) {
        ps_engine_t *e = NULL;
        int rc = mixed ? ps_mixed_kmer_engine_new(&e, ks, &gpu0, -1, threads + 1, &err)
                       : ps_gpu_kmer_engine_new(&e, ks, 0, threads + 1, &err);
        ck_assert_msg(rc == PS_OK, "k-mer set, %s: %s", mixed ? "mixed" : "GPU", err.msg);
        memset(got, 0, ks->leaves.n_leaves * sizeof *got);
        ps_engine_info_t in;
        ps_engine_info(e, &in);
        ck_assert_int_eq(in.kmer_set, 1);
        ps_scan_opts_t so;
        ps_scan_opts_init(&so, &in, threads);
        so.block_bytes = block_bytes;
        rc = ps_scan_file(e, &ks->leaves, path, &so, got, NULL, NULL, NULL, NULL, &err);
        ck_assert_msg(rc == PS_OK, "k-mer set on the GPU scanning %s: %s", path, err.msg);
        ps_engine_info(e, &in);
        if (!mixed) {
            ck_assert_int_eq(in.kind, PS_ENGINE_GPU);
            ck_assert_uint_gt(in.chunks_gpu, 0);
        }
        for (uint32_t i = 0; i < p->n; i++) {
            ck_assert_msg(got[ks->leaves.probe_leaf[0][i]] == fwd[i], "%s, k-mer set %s: probe %u forward: %llu, CPU %llu",
                          path, mixed ? "mixed" : "GPU", i, (unsigned long long)got[ks->leaves.probe_leaf[0][i]],
                          (unsigned long long)fwd[i]);
            if (both)
                ck_assert_msg(got[ks->leaves.probe_leaf[1][i]] == rev[i],
                              "%s, k-mer set %s: probe %u reverse: %llu, CPU %llu", path, mixed ? "mixed" : "GPU", i,
                              (unsigned long long)got[ks->leaves.probe_leaf[1][i]], (unsigned long long)rev[i]);
        }
        ps_engine_destroy(e);
    }
    free(got);
    ps_kmerset_free(ks);
}

/* The CPU engine's counts of the probes in path; gpu: every GPU engine must
 * agree (gpu_agrees, and gpu_kset_agrees where the probes fit a k-mer set). */
static scan_result_t core_counts(int gpu, const char *path, ps_alpha_t a, char *const *probes, uint32_t n,
                                 int both, int threads, int io_threads, size_t block_bytes)
{
    ps_probes_t *p = NULL;
    ps_automaton_t *am = NULL;
    ps_engine_t *e = NULL;
    ps_err_t err = {0};
    ck_assert_msg(ps_probes_from_strings(&p, n, (const char *const *)probes, NULL,
                                         (ps_alpha_req_t)a, &err) == PS_OK,
                  "%s", err.msg);
    ck_assert_msg(ps_automaton_build(&am, p, both, &err) == PS_OK, "%s", err.msg);
    /* One thread budget: more than one thread reads FASTA in blocks. */
    if (io_threads > threads) threads = io_threads;
    ck_assert_msg(ps_cpu_engine_new(&e, am, threads + 1, &err) == PS_OK, "%s", err.msg);
    ps_engine_info_t in;
    ps_engine_info(e, &in);
    ps_scan_opts_t so;
    ps_scan_opts_init(&so, &in, threads);
    so.block_bytes = block_bytes;
    uint64_t *leaf = calloc(am->n_leaves, sizeof *leaf);
    ck_assert_ptr_nonnull(leaf);
    scan_result_t res;
    memset(&res, 0, sizeof res);
    int rc = ps_scan_file(e, &am->leaves, path, &so, leaf, NULL, &res.st, NULL, NULL, &err);
    ck_assert_msg(rc == PS_OK, "scanning %s: %s", path, err.msg);
    if (gpu) gpu_agrees(path, am, leaf, threads, block_bytes);
    res.fwd = calloc(n, sizeof *res.fwd);
    res.rev = calloc(n, sizeof *res.rev);
    ck_assert(res.fwd && res.rev);
    for (uint32_t i = 0; i < n; i++) {
        res.fwd[i] = leaf[am->leaves.probe_leaf[0][i]];
        if (both) res.rev[i] = leaf[am->leaves.probe_leaf[1][i]];
    }
    if (gpu && ps_kmerset_fits(p)) gpu_kset_agrees(path, p, both, res.fwd, res.rev, threads, block_bytes);
    free(leaf);
    ps_engine_destroy(e);
    ps_automaton_free(am);
    ps_probes_free(p);
    return res;
}

static void result_free(scan_result_t *r)
{
    free(r->fwd);
    free(r->rev);
}

/* Samples n windows of k symbols (all in the alphabet) from the records. */
static char **sample_probes(const records_t *r, ps_alpha_t a, int k, uint32_t n, uint64_t seed)
{
    tu_rng_t rng;
    tu_rng_seed(&rng, seed);
    size_t total = 0;
    for (size_t i = 0; i < r->n; i++) total += r->len[i];
    char **p = calloc(n, sizeof *p);
    ck_assert_ptr_nonnull(p);
    for (uint32_t i = 0; i < n; i++) {
        p[i] = malloc((size_t)k + 1);
        ck_assert_ptr_nonnull(p[i]);
        for (int tries = 0;; tries++) {
            ck_assert_msg(tries < 100000, "no clean %d-symbol window found", k);
            size_t rec = tu_rng_below(&rng, r->n);
            if (tries < 100) { /* weighted by length: pick a position overall */
                size_t pos = tu_rng_below(&rng, total), acc = 0;
                for (rec = 0; rec + 1 < r->n && acc + r->len[rec] <= pos; rec++) acc += r->len[rec];
            }
            if (r->len[rec] < (size_t)k) continue;
            size_t at = r->start[rec] + tu_rng_below(&rng, r->len[rec] - (size_t)k + 1);
            int clean = 1;
            for (int j = 0; j < k && clean; j++) clean = sym_code(a, r->seq[at + (size_t)j]) >= 0;
            if (!clean) continue;
            memcpy(p[i], r->seq + at, (size_t)k);
            p[i][k] = '\0';
            break;
        }
    }
    return p;
}

static void free_probes(char **p, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++) free(p[i]);
    free(p);
}

static void compare(const char *what, char *const *probes, uint32_t n, const scan_result_t *got,
                    const uint64_t *fwd, const uint64_t *rev)
{
    if (getenv("PS_TEST_VERBOSE")) {
        uint64_t f = 0, r = 0;
        for (uint32_t i = 0; i < n; i++) {
            f += got->fwd[i];
            r += got->rev[i];
        }
        printf("%s: %u probes, %llu forward and %llu reverse matches, %llu records, %llu symbols\n",
               what, n, (unsigned long long)f, (unsigned long long)r,
               (unsigned long long)got->st.in.records, (unsigned long long)got->st.in.symbols);
    }
    for (uint32_t i = 0; i < n; i++) {
        ck_assert_msg(got->fwd[i] == fwd[i], "%s: probe %u %s forward %llu, expected %llu", what, i,
                      probes[i], (unsigned long long)got->fwd[i], (unsigned long long)fwd[i]);
        if (rev)
            ck_assert_msg(got->rev[i] == rev[i], "%s: probe %u %s reverse %llu, expected %llu",
                          what, i, probes[i], (unsigned long long)got->rev[i],
                          (unsigned long long)rev[i]);
    }
}

static void ecoli(int gpu)
{
    char *path = data_file(ECOLI);
    records_t r = load_records(path);
    ck_assert_uint_eq(r.n, 1);
    const uint32_t sampled = 1000, n = 1100;
    const int k = 21;
    char **probes = sample_probes(&r, PS_DNA, k, sampled, 2024);
    probes = realloc(probes, n * sizeof *probes);
    ck_assert_ptr_nonnull(probes);
    tu_rng_t rng;
    tu_rng_seed(&rng, 77);
    for (uint32_t i = sampled; i < n; i++) { /* random ones: mostly absent */
        probes[i] = malloc((size_t)k + 1);
        ck_assert_ptr_nonnull(probes[i]);
        for (int j = 0; j < k; j++) probes[i][j] = "ACGT"[tu_rng_below(&rng, 4)];
        probes[i][k] = '\0';
    }
    uint64_t *fwd = malloc(n * sizeof *fwd), *rev = malloc(n * sizeof *rev);
    ck_assert(fwd && rev);
    uint64_t symbols = independent_counts(&r, PS_DNA, k, probes, n, fwd, rev);
    ck_assert_uint_eq(symbols, 4639675);
    scan_result_t got = core_counts(gpu, path, PS_DNA, probes, n, 1, 2, 1, 0);
    for (uint32_t i = 0; i < sampled; i++)
        ck_assert_msg(got.fwd[i] >= 1, "sampled probe %u %s not found", i, probes[i]);
    compare("E. coli", probes, n, &got, fwd, rev);
    ck_assert_uint_eq(got.st.in.records, 1);
    ck_assert_uint_eq(got.st.in.symbols, 4639675);
    ck_assert_int_eq(got.st.in.fastq, 0);
    result_free(&got);
    free(fwd);
    free(rev);
    free_probes(probes, n);
    records_free(&r);
    free(path);
}

START_TEST(test_ecoli) { ecoli(0); }
END_TEST

START_TEST(test_gpu_ecoli) { ecoli(1); }
END_TEST

/* Short probes over the genome: matches everywhere, so every place where
 * the engine may cut the one long record (threads, batches) is crossed by
 * some match. */
static void ecoli_short_probes(int gpu)
{
    char *path = data_file(ECOLI);
    records_t r = load_records(path);
    const uint32_t n = 64;
    const int k = 5;
    char **probes = sample_probes(&r, PS_DNA, k, n, 555);
    uint64_t *fwd = malloc(n * sizeof *fwd), *rev = malloc(n * sizeof *rev);
    ck_assert(fwd && rev);
    independent_counts(&r, PS_DNA, k, probes, n, fwd, rev);
    for (int threads = 1; threads <= 3; threads += 2) {
        scan_result_t got = core_counts(gpu, path, PS_DNA, probes, n, 1, threads, 1, 0);
        compare("E. coli 5-mers", probes, n, &got, fwd, rev);
        result_free(&got);
    }
    /* FASTA packed on several threads from small blocks: many cuts. */
    scan_result_t got = core_counts(gpu, path, PS_DNA, probes, n, 1, 2, 3, 50000);
    compare("E. coli 5-mers, 50 kB blocks", probes, n, &got, fwd, rev);
    ck_assert_uint_eq(got.st.in.records, 1);
    ck_assert_uint_eq(got.st.in.symbols, 4639675);
    result_free(&got);
    free(fwd);
    free(rev);
    free_probes(probes, n);
    records_free(&r);
    free(path);
}

START_TEST(test_ecoli_short_probes) { ecoli_short_probes(0); }
END_TEST

START_TEST(test_gpu_ecoli_short_probes) { ecoli_short_probes(1); }
END_TEST

static void yeast_bgzf_threads(int gpu)
{
    char *path = data_file(YEAST);
    records_t r = load_records(path);
    ck_assert_uint_eq(r.n, 17);
    const uint32_t sampled = 1000;
    const uint32_t n = sampled + 1;
    const int k = 25;
    char **probes = sample_probes(&r, PS_DNA, k, sampled, 5150);
    probes = realloc(probes, n * sizeof *probes);
    ck_assert_ptr_nonnull(probes);
    /* The end of chromosome I joined to the start of II: only where it
     * occurs inside a record may it count. */
    probes[sampled] = malloc((size_t)k + 1);
    ck_assert_ptr_nonnull(probes[sampled]);
    memcpy(probes[sampled], r.seq + r.start[0] + r.len[0] - 12, 12);
    memcpy(probes[sampled] + 12, r.seq + r.start[1], (size_t)k - 12);
    probes[sampled][k] = '\0';
    uint64_t *fwd = malloc(n * sizeof *fwd), *rev = malloc(n * sizeof *rev);
    ck_assert(fwd && rev);
    uint64_t symbols = independent_counts(&r, PS_DNA, k, probes, n, fwd, rev);
    ck_assert_uint_eq(symbols, 12157105);
    scan_result_t one = core_counts(gpu, path, PS_DNA, probes, n, 1, 1, 1, 0);
    scan_result_t four = core_counts(gpu, path, PS_DNA, probes, n, 1, 4, 4, 0);
    compare("yeast, 1 thread", probes, n, &one, fwd, rev);
    compare("yeast, 4 threads", probes, n, &four, one.fwd, one.rev);
    scan_result_t blocks = core_counts(gpu, path, PS_DNA, probes, n, 1, 2, 3, 300000);
    compare("yeast, 300 kB blocks", probes, n, &blocks, one.fwd, one.rev);
    ck_assert_uint_eq(blocks.st.in.records, 17);
    ck_assert_uint_eq(blocks.st.in.symbols, 12157105);
    result_free(&blocks);
    for (uint32_t i = 0; i < sampled; i++) ck_assert_uint_ge(one.fwd[i], 1);
    ck_assert_uint_eq(one.st.in.records, 17);
    ck_assert_uint_eq(four.st.in.records, 17);
    ck_assert_uint_eq(one.st.in.symbols, 12157105);
    ck_assert_uint_eq(four.st.in.symbols, 12157105);
    result_free(&one);
    result_free(&four);
    free(fwd);
    free(rev);
    free_probes(probes, n);
    records_free(&r);
    free(path);
}

START_TEST(test_yeast_bgzf_threads) { yeast_bgzf_threads(0); }
END_TEST

START_TEST(test_gpu_yeast_bgzf_threads) { yeast_bgzf_threads(1); }
END_TEST

static void fastq_case(int gpu, const char *name, int k, uint32_t n, uint64_t seed, uint64_t reads)
{
    char *path = data_file(name);
    records_t r = load_records(path);
    ck_assert_uint_eq(r.n, reads);
    char **probes = sample_probes(&r, PS_DNA, k, n, seed);
    uint64_t *fwd = malloc(n * sizeof *fwd), *rev = malloc(n * sizeof *rev);
    ck_assert(fwd && rev);
    uint64_t symbols = independent_counts(&r, PS_DNA, k, probes, n, fwd, rev);
    scan_result_t got = core_counts(gpu, path, PS_DNA, probes, n, 1, 2, 1, 0);
    for (uint32_t i = 0; i < n; i++) ck_assert_uint_ge(got.fwd[i], 1);
    compare(name, probes, n, &got, fwd, rev);
    ck_assert_uint_eq(got.st.in.records, reads);
    ck_assert_uint_eq(got.st.in.symbols, symbols);
    ck_assert_int_eq(got.st.in.fastq, 1);
    /* Forward only gives the forward column alone. */
    scan_result_t fw = core_counts(gpu, path, PS_DNA, probes, n, 0, 2, 1, 0);
    compare(name, probes, n, &fw, fwd, NULL);
    result_free(&fw);
    result_free(&got);
    free(fwd);
    free(rev);
    free_probes(probes, n);
    records_free(&r);
    free(path);
}

static void illumina(int gpu) { fastq_case(gpu, ILLUMINA, 31, 500, 31337, 10000); }
static void ont(int gpu) { fastq_case(gpu, ONT, 17, 500, 4242, 5000); }

START_TEST(test_illumina) { illumina(0); }
END_TEST

START_TEST(test_gpu_illumina) { illumina(1); }
END_TEST

START_TEST(test_ont) { ont(0); }
END_TEST

START_TEST(test_gpu_ont) { ont(1); }
END_TEST

static void uniprot(int gpu)
{
    char *path = data_file(UNIPROT);
    records_t r = load_records(path);
    ck_assert_uint_eq(r.n, 20000);
    const int k = 8;
    uint32_t sampled = 1000;
    char **probes = sample_probes(&r, PS_PROTEIN, k, sampled, 8888);
    /* Windows around every rare letter present (B, Z and X in this set),
     * up to 10 of each, and peptides with U, O, J and '*' that may be absent. */
    uint32_t cap = sampled + 64, n = sampled;
    probes = realloc(probes, cap * sizeof *probes);
    ck_assert_ptr_nonnull(probes);
    const char *rare = "BZXUO";
    for (const char *c = rare; *c; c++) {
        int found = 0;
        for (size_t rec = 0; rec < r.n && found < 10; rec++) {
            const char *s = r.seq + r.start[rec];
            for (size_t i = 0; i < r.len[rec] && found < 10; i++) {
                if (s[i] != *c) continue;
                size_t from = i >= (size_t)k / 2 ? i - (size_t)k / 2 : 0;
                if (from + (size_t)k > r.len[rec]) continue;
                probes[n] = malloc((size_t)k + 1);
                ck_assert_ptr_nonnull(probes[n]);
                memcpy(probes[n], s + from, (size_t)k);
                probes[n][k] = '\0';
                n++;
                found++;
                i += (size_t)k;
            }
        }
    }
    const char *made[4] = {"MKUVLAOG", "JJJJJJJJ", "MKVLAAG*", "mkvlaagw"};
    for (int i = 0; i < 4; i++) probes[n++] = strdup(made[i]);
    ck_assert_ptr_nonnull(probes[n - 1]);
    uint64_t *fwd = malloc(n * sizeof *fwd);
    ck_assert_ptr_nonnull(fwd);
    uint64_t symbols = independent_counts(&r, PS_PROTEIN, k, probes, n, fwd, NULL);
    scan_result_t got = core_counts(gpu, path, PS_PROTEIN, probes, n, 0, 2, 3, 100000);
    for (uint32_t i = 0; i < n - 4; i++)
        ck_assert_msg(got.fwd[i] >= 1, "peptide %u %s not found", i, probes[i]);
    compare("UniProt", probes, n, &got, fwd, NULL);
    ck_assert_uint_eq(got.st.in.records, 20000);
    ck_assert_uint_eq(got.st.in.symbols, symbols);
    result_free(&got);
    free(fwd);
    free_probes(probes, n);
    records_free(&r);
    free(path);
}

START_TEST(test_uniprot) { uniprot(0); }
END_TEST

START_TEST(test_gpu_uniprot) { uniprot(1); }
END_TEST

Suite *suite_data(tu_data_plan_t *plan)
{
    Suite *s = suite_create("data");
    TCase *tc = tcase_create("data");
    tcase_set_timeout(tc, 300);
    TU_ADD_DATA_TEST(tc, test_ecoli, plan, ECOLI);
    TU_ADD_DATA_TEST(tc, test_ecoli_short_probes, plan, ECOLI);
    TU_ADD_DATA_TEST(tc, test_yeast_bgzf_threads, plan, YEAST);
    TU_ADD_DATA_TEST(tc, test_illumina, plan, ILLUMINA);
    TU_ADD_DATA_TEST(tc, test_ont, plan, ONT);
    TU_ADD_DATA_TEST(tc, test_uniprot, plan, UNIPROT);
    suite_add_tcase(s, tc);
    return s;
}

Suite *suite_gpu_data(tu_data_plan_t *plan)
{
    Suite *s = suite_create("gpu_data");
    TCase *tc = tcase_create("gpu_data");
    tcase_set_timeout(tc, 600);
    TU_ADD_DATA_TEST(tc, test_gpu_ecoli, plan, ECOLI);
    TU_ADD_DATA_TEST(tc, test_gpu_ecoli_short_probes, plan, ECOLI);
    TU_ADD_DATA_TEST(tc, test_gpu_yeast_bgzf_threads, plan, YEAST);
    TU_ADD_DATA_TEST(tc, test_gpu_illumina, plan, ILLUMINA);
    TU_ADD_DATA_TEST(tc, test_gpu_ont, plan, ONT);
    TU_ADD_DATA_TEST(tc, test_gpu_uniprot, plan, UNIPROT);
    suite_add_tcase(s, tc);
    return s;
}
