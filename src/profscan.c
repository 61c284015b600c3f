/* profscan.c - PROSITE profiles over protein FASTA (profscan.h). */
#include "profscan.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <htslib/bgzf.h>
#include <htslib/kstring.h>

#include "engine_gpu.h"
#include "engine_gpus.h"
#include "parallel.h"
#include "parse.h"
#include "plan.h"
#include "scan.h"
#include "seqio.h"

/* ---- the profiles of a PROSITE data file ---- */

static int add_profile(ps_profiles_t *ps, size_t *cap, const char *text, size_t n, int level, const char *path,
                       ps_err_t *err)
{
    char why[256];
    ps_profile_t pr;
    int rc = ps_profile_parse(&pr, text, n, level, why, sizeof why);
    if (rc == -2) return ps_fail(err, PS_E_NOMEM, "out of memory reading profiles");
    if (rc < 0) {
        /* The entry's ID for the warning. */
        char id[64] = "?";
        const char *s = memmem(text, n, "ID   ", 5);
        if (s) {
            size_t i = 0;
            s += 5;
            while (s < text + n && *s != ';' && *s != '\n' && i + 1 < sizeof id) id[i++] = *s++;
            id[i] = '\0';
        }
        fprintf(stderr, "probescan: warning: %s: profile %s skipped: %s\n", path, id, why);
        ps->refused++;
        return 0;
    }
    if (ps->n == *cap) {
        size_t nc = *cap ? *cap * 2 : 64;
        ps_profile_t *g = realloc(ps->p, nc * sizeof *g);
        if (!g) {
            ps_profile_free(&pr);
            return ps_fail(err, PS_E_NOMEM, "out of memory reading profiles");
        }
        ps->p = g;
        *cap = nc;
    }
    ps->p[ps->n++] = pr;
    return 0;
}

/* The profiles in bundles whose lanes run about PS_PRF_BUNDLE_POSITIONS
 * positions (or the longest profile's): as few as hold them, filled as
 * lanes are (ps_prf_pack). */
static int make_bundles(ps_profiles_t *ps, ps_err_t *err)
{
    uint64_t total = 0;
    uint32_t longest = 0;
    for (uint32_t i = 0; i < ps->n; i++) {
        total += ps->p[i].len + 1u;
        longest = ps->p[i].len + 1u > longest ? ps->p[i].len + 1u : longest;
    }
    const uint64_t lane = longest > PS_PRF_BUNDLE_POSITIONS ? longest : PS_PRF_BUNDLE_POSITIONS;
    const uint32_t nb = (uint32_t)((total + lane * PS_PRF_LANES - 1) / (lane * PS_PRF_LANES));
    uint32_t *of = malloc(sizeof *of * ps->n), *taken = calloc(nb, sizeof *taken);
    const ps_profile_t **prs = malloc(sizeof *prs * ps->n);
    ps->n_bundle = nb;
    ps->bundle = calloc(nb, sizeof *ps->bundle);
    ps->bundle_from = calloc(nb + 1, sizeof *ps->bundle_from);
    ps->order = malloc(sizeof *ps->order * ps->n);
    int rc = 0;
    if (of && taken && prs)
        for (uint32_t i = 0; i < ps->n; i++) prs[i] = &ps->p[i];
    if (!of || !taken || !prs || !ps->bundle || !ps->bundle_from || !ps->order ||
        ps_prf_pack(prs, (int)ps->n, nb, of, NULL) < 0) {
        rc = ps_fail(err, PS_E_NOMEM, "out of memory");
        goto done;
    }
    for (uint32_t i = 0; i < ps->n; i++) ps->bundle_from[of[i] + 1]++;
    for (uint32_t b = 0; b < nb; b++) ps->bundle_from[b + 1] += ps->bundle_from[b];
    /* Bundle b's profiles in file order. */
    for (uint32_t i = 0; i < ps->n; i++) ps->order[ps->bundle_from[of[i]] + taken[of[i]]++] = i;
    for (uint32_t b = 0; b < nb; b++) {
        const uint32_t from = ps->bundle_from[b], n = ps->bundle_from[b + 1] - from;
        for (uint32_t k = 0; k < n; k++) prs[k] = &ps->p[ps->order[from + k]];
        if (ps_prf_bundle_new(&ps->bundle[b], prs, (int)n) < 0) {
            rc = ps_fail(err, PS_E_NOMEM, "out of memory");
            break;
        }
    }
done:
    free(of);
    free(taken);
    free(prs);
    return rc;
}

int ps_profiles_load(ps_profiles_t *out, const char *path, int level, int skip_frequent, ps_err_t *err)
{
    memset(out, 0, sizeof *out);
    struct stat sb;
    /* A pipe is read once, by probes.c: only files are looked at here. */
    if (!path || stat(path, &sb) != 0 || !S_ISREG(sb.st_mode)) return 0;
    BGZF *fp = bgzf_open(path, "r");
    if (!fp) return 0; /* probes.c says why */
    kstring_t line = {0, 0, NULL};
    char *entry = NULL;
    size_t elen = 0, ecap = 0, cap = 0;
    int rc = 0, first = 1, matrix = 0, pattern = 0, flagged = 0;
    while (rc == 0) {
        int got = bgzf_getline(fp, '\n', &line);
        if (got < 0) break;
        const char *s = line.s;
        size_t len = line.l;
        if (first) {
            if (len == 0 || s[0] == '#') continue;
            first = 0;
            if (!(len >= 5 && !memcmp(s, "ID   ", 5)) && !(len >= 2 && !memcmp(s, "CC", 2))) break;
            out->prosite = 1;
        }
        if (len >= 5 && !memcmp(s, "ID   ", 5)) {
            matrix = memmem(s, len, "; MATRIX", 8) != NULL;
            pattern = memmem(s, len, "; PATTERN", 9) != NULL;
            flagged = 0;
            elen = 0;
        }
        /* The patterns probes.c will read: --skip-frequent leaves out the
         * flagged ones, and a file of those alone is a run of profiles. */
        if (pattern && len >= 20 && !memcmp(s, "CC   /SKIP-FLAG=TRUE", 20)) flagged = 1;
        if (pattern && len >= 2 && s[0] == '/' && s[1] == '/') {
            out->patterns += !(skip_frequent && flagged);
            pattern = 0;
        }
        if (!matrix) continue;
        if (elen + len + 1 > ecap) {
            size_t nc = (elen + len + 1) * 2;
            char *g = realloc(entry, nc);
            if (!g) {
                rc = ps_fail(err, PS_E_NOMEM, "out of memory reading profiles");
                break;
            }
            entry = g;
            ecap = nc;
        }
        memcpy(entry + elen, s, len);
        elen += len;
        entry[elen++] = '\n';
        if (len >= 2 && s[0] == '/' && s[1] == '/') {
            if (!(skip_frequent && memmem(entry, elen, "\nCC   /SKIP-FLAG=TRUE", 21)))
                rc = add_profile(out, &cap, entry, elen, level, path, err);
            matrix = 0;
            elen = 0;
        }
    }
    free(line.s);
    free(entry);
    if (bgzf_close(fp) != 0 && rc == 0) rc = ps_fail(err, PS_E_IO, "%s: read error", path);
    if (rc == 0 && out->n) rc = make_bundles(out, err);
    if (rc < 0) ps_profiles_free(out);
    return rc;
}

void ps_profiles_free(ps_profiles_t *ps)
{
    for (uint32_t i = 0; ps && i < ps->n; i++) ps_profile_free(&ps->p[i]);
    for (uint32_t b = 0; ps && ps->bundle && b < ps->n_bundle; b++) ps_prf_bundle_free(ps->bundle[b]);
    if (ps) {
        for (int g = 0; g < ps->n_gpu; g++) ps_gprof_free(ps->gpu[g]);
        free(ps->bundle);
        free(ps->bundle_from);
        free(ps->order);
        free(ps->p);
        memset(ps, 0, sizeof *ps);
    }
}

int ps_profiles_open(ps_profiles_t *out, const char *probes, const ps_psopts_t *pso, ps_err_t *err)
{
    memset(out, 0, sizeof *out);
    if (pso->profiles == PS_PROFILES_NONE) return 0;
    int rc = ps_profiles_load(out, probes, pso->level, pso->skip_frequent, err);
    if (rc < 0) return rc;
    if (pso->profiles == PS_PROFILES_ONLY) {
        if (!out->n) rc = ps_fail(err, PS_E_USAGE, "--profiles-only: %s holds no profile that could be read", probes);
        out->patterns = 0; /* the patterns are left out */
    } else if (pso->level && !out->n) {
        rc = ps_fail(err, PS_E_USAGE, "--level: %s holds no profile that could be read", probes);
    }
    if (rc < 0) ps_profiles_free(out);
    return rc;
}

int ps_profiles_inputs_fit(const ps_profiles_t *ps, const char *const *inputs, int n, ps_err_t *err)
{
    if (!ps->n || !ps->patterns) return 0;
    for (int i = 0; i < n; i++) {
        struct stat sb;
        if (strcmp(inputs[i], "-") && stat(inputs[i], &sb) == 0 && S_ISREG(sb.st_mode)) continue;
        return ps_fail(err, PS_E_USAGE, "%s: patterns and profiles read each input twice, and %s can be read once; "
                                        "give a file, or --no-profiles or --profiles-only",
                       inputs[i], strcmp(inputs[i], "-") ? "this pipe" : "standard input");
    }
    return 0;
}

typedef struct {
    ps_profiles_t *ps;
    int rc[PS_GPUS_MAX];
    ps_err_t err[PS_GPUS_MAX];
    /* run_batch: */
    const uint8_t *letters;
    uint64_t n_letters;
    const uint64_t *off;
    const uint32_t *len;
    uint32_t n_seq;
    int32_t *best;
} gpus_job_t;

static void gpu_start(void *ctx, int g, int parts)
{
    (void)parts;
    gpus_job_t *j = ctx;
    ps_profiles_t *ps = j->ps;
    j->rc[g] = ps_gprof_new(&ps->gpu[g], ps->p + ps->gpu_from[g], ps->gpu_from[g + 1] - ps->gpu_from[g],
                            ps->gpu_id[g], &j->err[g]);
}

/* The profiles in n runs of about equal positions, each at least one. */
static void split_profiles(ps_profiles_t *ps, int n)
{
    uint64_t total = 0, acc = 0;
    for (uint32_t i = 0; i < ps->n; i++) total += ps->p[i].len;
    ps->gpu_from[0] = 0;
    uint32_t i = 0;
    for (int g = 1; g < n; g++) {
        const uint64_t goal = total * (uint64_t)g / (uint64_t)n;
        /* leave at least one profile to each GPU after this one */
        while (i < ps->n - (uint32_t)(n - g) && (i < ps->gpu_from[g - 1] + 1 || acc + ps->p[i].len / 2 < goal))
            acc += ps->p[i++].len;
        ps->gpu_from[g] = i;
    }
    ps->gpu_from[n] = ps->n;
}

int ps_profiles_engine(ps_profiles_t *ps, ps_engine_req_t req, const ps_gpus_t *gpus, double bytes, int threads,
                       int verbose, ps_err_t *err)
{
    if (!ps->n || req == PS_REQ_CPU) return 0;
    uint64_t positions = 0; /* the bundles' lanes' */
    for (uint32_t b = 0; b < ps->n_bundle; b++) positions += (uint64_t)ps_prf_bundle_positions(ps->bundle[b]) * PS_PRF_LANES;
    const double cpu_s = bytes * (double)positions * PS_PRF_CPU_NS * 1e-9 / (threads > 0 ? threads : 1);
    char why[384] = "";
    if (req == PS_REQ_AUTO) {
        /* The estimate first: asking whether a GPU is usable starts CUDA,
         * which a run the CPU finishes first should not pay for. */
        if (cpu_s <= PS_PRF_GPU_FROM_S) {
            if (verbose)
                fprintf(stderr, "probescan: profiles on CPU threads (about %.2f s of work there%s)\n", cpu_s,
                        bytes > 0 ? "" : ": input size unknown");
            return 0;
        }
        if (!ps_gpu_device_present()) {
            if (verbose) fprintf(stderr, "probescan: profiles on CPU threads (no NVIDIA GPU device found)\n");
            return 0;
        }
    }
    ps_gpus_t use;
    int rc = ps_plan_gpus(gpus, req, bytes > 0 ? cpu_s : -1, 1.0, &use, why, sizeof why, err);
    if (rc < 0) return rc;
    if (rc == 1) {
        if (verbose) fprintf(stderr, "probescan: profiles on CPU threads (no usable GPU: %s)\n", why);
        return 0;
    }
    if ((uint32_t)use.n > ps->n) use.n = (int)ps->n; /* a profile at least a GPU */
    ps->n_gpu = use.n;
    for (int g = 0; g < use.n; g++) ps->gpu_id[g] = use.id[g];
    split_profiles(ps, use.n);
    gpus_job_t j = {.ps = ps};
    ps_parallel_run(use.n, gpu_start, &j);
    for (int g = 0; g < use.n; g++)
        if (j.rc[g] < 0) {
            *err = j.err[g];
            rc = j.rc[g];
            break;
        }
    if (rc < 0) {
        for (int g = 0; g < use.n; g++) {
            ps_gprof_free(j.rc[g] == 0 ? ps->gpu[g] : NULL);
            ps->gpu[g] = NULL;
        }
        ps->n_gpu = 0;
        return rc;
    }
    if (verbose) {
        char name[96];
        ps_gpus_name(&use, name, sizeof name);
        fprintf(stderr, "probescan: profiles' best scores on %s (%s; CPU threads estimated at %.2f s), matches there "
                        "and on CPU threads\n", name, req == PS_REQ_GPU ? "asked for" : "auto", cpu_s);
    }
    return 0;
}

static void gpu_best(void *ctx, int g, int parts)
{
    (void)parts;
    gpus_job_t *j = ctx;
    const ps_profiles_t *ps = j->ps;
    j->rc[g] = ps_gprof_best(ps->gpu[g], j->letters, j->n_letters, j->off, j->len, j->n_seq,
                             j->best + (size_t)ps->gpu_from[g] * j->n_seq, &j->err[g]);
}

int ps_profiles_tsv_header(FILE *f)
{
    return fputs("input\trecord\tstart\tend\tname\tid\tprofile_start\tprofile_end\traw_score\tnorm_score\tlevel\n", f) <
                   0
               ? -1
               : 0;
}

/* ---- one input ---- */

typedef struct {
    uint64_t name, seq; /* offsets into the batch's names and residues */
    uint32_t len;
} rec_t;

typedef struct {
    uint32_t rec, prof;
    ps_prf_match_t m;
} hit_t;

/* A (record, profile) pair whose best score reaches the cut-off: searched
 * for its matches. */
typedef struct {
    uint32_t rec, prof;
    uint64_t cost; /* residues x positions: the longest first */
} pair_t;

typedef struct {
    hit_t *hit;
    size_t n, cap;
    pair_t *pair;          /* best_part: the part's pairs that reach their cut-off */
    size_t n_pair, cap_pair;
    uint64_t full;         /* pairs whose search stopped at PS_PRF_MAX_MATCHES */
    pair_t first_full;     /* the first of them in the batch's order */
    int failed;
} part_out_t;

/* Up to PS_PRF_SEARCH_LANES CPU pairs of one profile, searched side by
 * side: pair[from .. from + n). */
typedef struct {
    uint64_t from, cost; /* cost: the costliest's (the groups' order) */
    uint32_t n;
} group_t;

/* The pairs a GPU searches (ps_gprof_matches) and what it found. */
typedef struct {
    ps_gprof_pair_t *pair;
    uint64_t *of;         /* pair[i] is job pair of[i] */
    uint32_t n;
    int32_t *n_match;
    ps_prf_match_t *match; /* n x PS_GPROF_MATCHES */
    int rc;
    ps_err_t err;
} gpu_search_t;

typedef struct {
    const ps_profiles_t *ps;
    const rec_t *rec;
    uint32_t n_rec;
    const uint8_t *letters; /* the batch's residues as letter numbers */
    uint64_t residues;
    part_out_t *out;
    const int32_t *best;    /* n profiles x n_rec: the GPUs', or NULL: best_part on CPU threads */
    const pair_t *pair;     /* search_part: the pairs to search */
    uint64_t n_pair, next;  /* next: the first group not taken (atomic) */
    uint64_t chunks, next_chunk; /* best_part: the batch's shares of residues, the first not taken (atomic) */
    group_t *group;         /* the CPU's pairs in groups searched side by side */
    uint64_t n_group;
    uint64_t n_cpu;         /* pairs 0 .. n_cpu - 1 are the CPU threads'; the rest the GPUs' */
    gpu_search_t *gs;       /* per GPU (n_gpu of them), or NULL */
    uint64_t next_gpu;      /* range_part: the first GPU pair not taken (atomic; GPU by GPU) */
} job_t;

static int hit_cmp(const void *a, const void *b)
{
    const hit_t *x = a, *y = b;
    if (x->rec != y->rec) return x->rec < y->rec ? -1 : 1;
    if (x->m.from != y->m.from) return x->m.from < y->m.from ? -1 : 1;
    if (x->prof != y->prof) return x->prof < y->prof ? -1 : 1;
    return x->m.to < y->m.to ? -1 : x->m.to > y->m.to;
}

/* The first record whose residues start at or after residue r. */
static uint32_t rec_at(const job_t *j, uint64_t r)
{
    uint32_t lo = 0, hi = j->n_rec;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (j->rec[mid].seq < r) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

/* Adds pair (r, p) to the part's list; -1 when out of memory. */
static int add_pair(part_out_t *o, const job_t *j, uint32_t r, uint32_t p)
{
    if (o->n_pair == o->cap_pair) {
        size_t nc = o->cap_pair ? o->cap_pair * 2 : 256;
        pair_t *g = realloc(o->pair, nc * sizeof *g);
        if (!g) return -1;
        o->pair = g;
        o->cap_pair = nc;
    }
    o->pair[o->n_pair++] = (pair_t){r, p, (uint64_t)j->rec[r].len * (j->ps->p[p].len + 1u)};
    return 0;
}

/* The best scores of records [r0, r1) into o's pairs (best: n profiles'
 * room). */
static void best_records(const job_t *j, part_out_t *o, uint32_t r0, uint32_t r1, int32_t *best, ps_prf_work_t *w)
{
    for (uint32_t r = r0; r < r1 && !o->failed; r++) {
        const rec_t *rc = &j->rec[r];
        for (uint32_t b = 0; b < j->ps->n_bundle && !o->failed; b++) {
            ps_prf_bundle_best(j->ps->bundle[b], j->letters + rc->seq, rc->len, best, w);
            if (rc->len && best[0] == INT32_MIN) {
                o->failed = 1;
                break;
            }
            for (uint32_t k = j->ps->bundle_from[b]; k < j->ps->bundle_from[b + 1]; k++) {
                const uint32_t p = j->ps->order[k];
                if (best[k - j->ps->bundle_from[b]] >= ps_profile_cutoff(&j->ps->p[p], rc->len) && add_pair(o, j, r, p) < 0) {
                    o->failed = 1;
                    break;
                }
            }
        }
    }
}

/* The best score of every pair of the batch's records, the profiles in
 * bundles; the pairs that reach their cut-off go to the part's list. A
 * part takes the batch's chunks (even shares of its residues, the last to
 * the last record, empty ones included) one after another as it frees
 * up: with a share a thread, a batch waited for the slowest thread. */
static void best_part(void *ctx, int part, int parts)
{
    (void)parts;
    job_t *j = ctx;
    part_out_t *o = &j->out[part];
    ps_prf_work_t w = {0};
    int32_t *best = malloc(sizeof *best * j->ps->n);
    if (!best) o->failed = 1;
    for (uint64_t c; !o->failed && (c = __atomic_fetch_add(&j->next_chunk, 1, __ATOMIC_RELAXED)) < j->chunks;) {
        const uint32_t r0 = rec_at(j, ps_parallel_share(j->residues, (int)c, (int)j->chunks));
        const uint32_t r1 = c + 1 == j->chunks ? j->n_rec : rec_at(j, ps_parallel_share(j->residues, (int)c + 1, (int)j->chunks));
        best_records(j, o, r0, r1, best, &w);
    }
    free(best);
    ps_prf_work_free(&w);
}

/* A thread's scratch for the search: a lane's residues and matches each. */
typedef struct {
    ps_prf_work_t w;
    ps_prf_match_t *m[PS_PRF_SEARCH_LANES];
    size_t mcap[PS_PRF_SEARCH_LANES], idx_cap[PS_PRF_SEARCH_LANES];
    uint8_t *idx[PS_PRF_SEARCH_LANES];
} search_work_t;

static void search_work_free(search_work_t *sw)
{
    for (int i = 0; i < PS_PRF_SEARCH_LANES; i++) {
        free(sw->idx[i]);
        free(sw->m[i]);
    }
    ps_prf_work_free(&sw->w);
}

/* Pair pp's residues as its profile's indices into sw->idx[lane]; -1 when
 * out of memory. */
static int pair_index(const job_t *j, const pair_t *pp, search_work_t *sw, int lane)
{
    const rec_t *rc = &j->rec[pp->rec];
    if (rc->len > sw->idx_cap[lane]) {
        uint8_t *g = realloc(sw->idx[lane], rc->len);
        if (!g) return -1;
        sw->idx[lane] = g;
        sw->idx_cap[lane] = rc->len;
    }
    ps_profile_index(&j->ps->p[pp->prof], j->letters + rc->seq, rc->len, sw->idx[lane]);
    return 0;
}

/* Whether pair a comes before pair b by record, then profile (the first
 * pair named where searches stopped at PS_PRF_MAX_MATCHES). */
static int pair_before(const pair_t *a, const pair_t *b)
{
    return a->rec < b->rec || (a->rec == b->rec && a->prof < b->prof);
}

/* Adds k matches of pair pp to the part's hits; -1 when out of memory. */
static int add_hits(part_out_t *o, const pair_t *pp, const ps_prf_match_t *m, int k)
{
    if (o->n + (size_t)k > o->cap) {
        size_t nc = (o->n + (size_t)k) * 2 + 16;
        hit_t *gr = realloc(o->hit, nc * sizeof *gr);
        if (!gr) return -1;
        o->hit = gr;
        o->cap = nc;
    }
    for (int h = 0; h < k; h++) o->hit[o->n++] = (hit_t){pp->rec, pp->prof, m[h]};
    return 0;
}

/* Pairs pp[0 .. k) of one profile searched on this thread, side by side. */
static int search_pairs(const job_t *j, const pair_t *pp, int k, part_out_t *o, search_work_t *sw)
{
    const ps_profile_t *pr = &j->ps->p[pp->prof];
    const uint8_t *idx[PS_PRF_SEARCH_LANES];
    uint32_t n[PS_PRF_SEARCH_LANES];
    int32_t cut[PS_PRF_SEARCH_LANES];
    int nm[PS_PRF_SEARCH_LANES];
    for (int i = 0; i < k; i++) {
        if (pair_index(j, &pp[i], sw, i) < 0) return -1;
        idx[i] = sw->idx[i];
        n[i] = j->rec[pp[i].rec].len;
        cut[i] = ps_profile_cutoff(pr, n[i]);
    }
    if (ps_profile_matches_lanes(pr, k, idx, n, cut, &sw->w, sw->m, sw->mcap, nm) < 0) return -1;
    for (int i = 0; i < k; i++) {
        if (add_hits(o, &pp[i], sw->m[i], nm[i]) < 0) return -1;
        if (nm[i] >= PS_PRF_MAX_MATCHES) {
            if (!o->full || pair_before(&pp[i], &o->first_full)) o->first_full = pp[i];
            o->full++;
        }
    }
    return 0;
}

/* Parts under n_gpu first hand their GPU its pairs and wait for it; then
 * every part takes the CPU's groups in turn (the costliest first, so that
 * no part is left with a long one at the end) and searches each group's
 * pairs side by side for their matches. */
static void search_part(void *ctx, int part, int parts)
{
    (void)parts;
    job_t *j = ctx;
    part_out_t *o = &j->out[part];
    if (j->gs && part < j->ps->n_gpu) {
        gpu_search_t *gs = &j->gs[part];
        gs->rc = ps_gprof_matches(j->ps->gpu[part], j->letters, j->residues, gs->pair, gs->n, gs->n_match, gs->match,
                                  &gs->err);
    }
    search_work_t sw = {0};
    for (;;) {
        const uint64_t i = __atomic_fetch_add(&j->next, 1, __ATOMIC_RELAXED);
        if (i >= j->n_group || o->failed) break;
        if (search_pairs(j, &j->pair[j->group[i].from], (int)j->group[i].n, o, &sw) < 0) o->failed = 1;
    }
    search_work_free(&sw);
}

/* The GPUs' matches given their profile ranges (a pair with more matches
 * than the GPU keeps is searched here), GPU pairs taken in turn. */
static void range_part(void *ctx, int part, int parts)
{
    (void)parts;
    job_t *j = ctx;
    part_out_t *o = &j->out[part];
    uint64_t total = 0;
    for (int g = 0; g < j->ps->n_gpu; g++) total += j->gs[g].n;
    search_work_t sw = {0};
    for (;;) {
        uint64_t i = __atomic_fetch_add(&j->next_gpu, 1, __ATOMIC_RELAXED);
        if (i >= total || o->failed) break;
        int g = 0;
        while (i >= j->gs[g].n) i -= j->gs[g++].n;
        const gpu_search_t *gs = &j->gs[g];
        const pair_t *pp = &j->pair[gs->of[i]];
        const int k = gs->n_match[i];
        if (k < 0) {
            if (search_pairs(j, pp, 1, o, &sw) < 0) o->failed = 1;
            continue;
        }
        if (k == 0) continue;
        const ps_profile_t *pr = &j->ps->p[pp->prof];
        const uint32_t n = j->rec[pp->rec].len;
        ps_prf_match_t *m = gs->match + i * PS_GPROF_MATCHES;
        if (pair_index(j, pp, &sw, 0) < 0) {
            o->failed = 1;
            break;
        }
        for (int h = 0; h < k && !o->failed; h++)
            if (ps_profile_range(pr, sw.idx[0], n, &m[h], &sw.w) < 0) o->failed = 1;
        if (!o->failed && add_hits(o, pp, m, k) < 0) o->failed = 1;
    }
    search_work_free(&sw);
}

static int by_profile(const void *a, const void *b)
{
    const pair_t *x = a, *y = b;
    if (x->prof != y->prof) return x->prof < y->prof ? -1 : 1;
    if (x->cost != y->cost) return x->cost > y->cost ? -1 : 1;
    return x->rec < y->rec ? -1 : x->rec > y->rec;
}

static int costlier(const void *a, const void *b)
{
    const group_t *x = a, *y = b;
    if (x->cost != y->cost) return x->cost > y->cost ? -1 : 1;
    return x->from < y->from ? -1 : x->from > y->from;
}

/* The CPU's pairs (the first n_cpu) in groups of one profile and like
 * lengths, PS_PRF_SEARCH_LANES at most, the costliest first; -1 out of
 * memory. */
static int make_groups(job_t *j, pair_t *pair)
{
    j->group = NULL;
    j->n_group = 0;
    if (!j->n_cpu) return 0;
    qsort(pair, j->n_cpu, sizeof *pair, by_profile);
    group_t *g = malloc(sizeof *g * j->n_cpu);
    if (!g) return -1;
    uint64_t n = 0;
    for (uint64_t i = 0; i < j->n_cpu; n++) {
        uint32_t k = 1;
        while (k < PS_PRF_SEARCH_LANES && i + k < j->n_cpu && pair[i + k].prof == pair[i].prof) k++;
        g[n] = (group_t){.from = i, .cost = pair[i].cost, .n = k};
        i += k;
    }
    qsort(g, n, sizeof *g, costlier);
    j->group = g;
    j->n_group = n;
    return 0;
}

/* Where the CPU threads' share of the search ends (*k_out): pairs [0, k)
 * (the costliest, sorted so) stay on the `threads` CPU threads and the rest
 * go to the GPUs, which search them all at once, a warp each: their time is
 * about that of their costliest pair, PS_PRF_SEARCH_GPU_NS a node; the
 * CPU's the sum of its pairs over its threads, but at least its costliest
 * pair's, PS_PRF_SEARCH_CPU_NS a node. k is where the later of the two ends
 * first, leaving the GPUs at most PS_PRF_SEARCH_GPU_PAIRS pairs. */
static void cpu_share(const pair_t *pair, uint64_t n_pair, int threads, uint64_t *k_out)
{
    double sum = 0, least = 0;
    uint64_t best = 0;
    for (uint64_t k = 0; k <= n_pair; k++) {
        const double cpu = k ? fmax((double)pair[0].cost, sum / threads) * PS_PRF_SEARCH_CPU_NS : 0;
        const double gpu = k < n_pair ? (double)pair[k].cost * PS_PRF_SEARCH_GPU_NS : 0;
        const double t = fmax(cpu, gpu);
        if (k == 0 || t < least) {
            least = t;
            best = k;
        }
        if (cpu >= least || k == n_pair) break; /* the CPU's time only grows */
        sum += (double)pair[k].cost;
    }
    if (n_pair - best > PS_PRF_SEARCH_GPU_PAIRS) best = n_pair - PS_PRF_SEARCH_GPU_PAIRS;
    *k_out = best;
}

/* The GPU that holds profile p. */
static int gpu_of(const ps_profiles_t *ps, uint32_t p)
{
    int g = 0;
    while (p >= ps->gpu_from[g + 1]) g++;
    return g;
}

/* Hands the GPU pairs [k, n_pair) to the GPUs that hold their profiles. */
static int gpu_pairs(job_t *j, uint64_t k)
{
    const ps_profiles_t *ps = j->ps;
    if (!(j->gs = calloc((size_t)ps->n_gpu, sizeof *j->gs))) return -1;
    for (uint64_t i = k; i < j->n_pair; i++) j->gs[gpu_of(ps, j->pair[i].prof)].n++;
    for (int g = 0; g < ps->n_gpu; g++) {
        gpu_search_t *gs = &j->gs[g];
        if (!gs->n) continue;
        gs->pair = malloc(sizeof *gs->pair * gs->n);
        gs->of = malloc(sizeof *gs->of * gs->n);
        gs->n_match = malloc(sizeof *gs->n_match * gs->n);
        gs->match = malloc(sizeof *gs->match * gs->n * PS_GPROF_MATCHES);
        if (!gs->pair || !gs->of || !gs->n_match || !gs->match) return -1;
        gs->n = 0;
    }
    for (uint64_t i = k; i < j->n_pair; i++) {
        const pair_t *pp = &j->pair[i];
        const int g = gpu_of(ps, pp->prof);
        gpu_search_t *gs = &j->gs[g];
        const rec_t *rc = &j->rec[pp->rec];
        gs->of[gs->n] = i;
        gs->pair[gs->n++] = (ps_gprof_pair_t){rc->seq, rc->len, pp->prof - ps->gpu_from[g],
                                              ps_profile_cutoff(&ps->p[pp->prof], rc->len)};
    }
    return 0;
}

static void gpu_pairs_free(job_t *j)
{
    for (int g = 0; j->gs && g < j->ps->n_gpu; g++) {
        free(j->gs[g].pair);
        free(j->gs[g].of);
        free(j->gs[g].n_match);
        free(j->gs[g].match);
    }
    free(j->gs);
    j->gs = NULL;
}

static int pair_cmp(const void *a, const void *b)
{
    const pair_t *x = a, *y = b;
    if (x->cost != y->cost) return x->cost > y->cost ? -1 : 1;
    if (x->rec != y->rec) return x->rec < y->rec ? -1 : 1;
    return (x->prof > y->prof) - (x->prof < y->prof);
}

typedef struct {
    char *names, *seq;
    uint64_t names_len, names_cap, seq_len, seq_cap;
    rec_t *rec;
    uint32_t n_rec, cap_rec;
} batch_t;

static int batch_grow(char **b, uint64_t *cap, uint64_t need)
{
    if (need <= *cap) return 0;
    uint64_t nc = need * 2 < 4096 ? 4096 : need * 2;
    char *g = realloc(*b, nc);
    if (!g) return -1;
    *b = g;
    *cap = nc;
    return 0;
}

int ps_prf_rows_init(ps_prf_rows_t *r, const ps_profiles_t *ps, uint64_t max_hits)
{
    memset(r, 0, sizeof *r);
    r->max_hits = max_hits;
    if (ps->n && !(r->written = calloc(ps->n, sizeof *r->written))) return -1;
    return 0;
}

void ps_prf_rows_free(ps_prf_rows_t *r)
{
    if (r) free(r->written);
}

static int write_rows(const ps_profiles_t *ps, const batch_t *b, const hit_t *hit, size_t n_hit, FILE *f,
                      ps_sites_format_t format, const char *label, ps_prf_rows_t *cap)
{
    for (size_t i = 0; i < n_hit; i++) {
        const hit_t *h = &hit[i];
        if (cap && cap->max_hits && cap->written[h->prof] >= cap->max_hits) {
            if (cap->written[h->prof] == cap->max_hits) { /* its first row left out */
                cap->capped++;
                cap->written[h->prof]++;
            }
            cap->dropped++;
            continue;
        }
        if (cap) {
            cap->written[h->prof]++;
            cap->rows++;
        }
        const ps_profile_t *pr = &ps->p[h->prof];
        const rec_t *rc = &b->rec[h->rec];
        const char *name = b->names + rc->name;
        const ps_prf_match_t *m = &h->m;
        const float ns = ps_profile_nscore(pr, m->score, rc->len);
        const int level = ps_profile_level(pr, m->score, rc->len);
        char nsb[32] = "";
        if (!isnan(ns)) snprintf(nsb, sizeof nsb, "%.3f", ns);
        int w;
        if (format == PS_SITES_PFF)
            w = fprintf(f, "%s\t%u\t%u\t%s\t%d\t%d\t%d\t%s\t%d\n", name, m->from, m->to, pr->ac, m->pfrom, m->pto,
                        m->score, nsb, level);
        else if (format == PS_SITES_TSV)
            w = fprintf(f, "%s\t%s\t%u\t%u\t%s\t%s\t%d\t%d\t%d\t%s\t%d\n", label, name, m->from - 1, m->to, pr->ac,
                        pr->id, m->pfrom, m->pto, m->score, nsb, level);
        else
            w = fprintf(f, "%s\t%u\t%u\t%s\t%d\t+\n", name, m->from - 1, m->to, pr->ac, m->score);
        if (w < 0) return -1;
    }
    return 0;
}

/* The batch's best scores on the GPUs into *best (n profiles x n_rec). */
static int best_batch(const ps_profiles_t *ps, const batch_t *b, int32_t **best, ps_err_t *err)
{
    free(*best);
    *best = NULL;
    if (b->n_rec == 0) return 0;
    uint64_t *off = malloc(sizeof *off * b->n_rec);
    uint32_t *len = malloc(sizeof *len * b->n_rec);
    int32_t *gbest = malloc(sizeof *gbest * (size_t)b->n_rec * ps->n);
    int rc = off && len && gbest ? 0 : ps_fail(err, PS_E_NOMEM, "out of memory");
    if (rc == 0) {
        for (uint32_t r = 0; r < b->n_rec; r++) {
            off[r] = b->rec[r].seq;
            len[r] = b->rec[r].len;
        }
        gpus_job_t gj = {.ps = (ps_profiles_t *)ps, .letters = (const uint8_t *)b->seq, .n_letters = b->seq_len,
                         .off = off, .len = len, .n_seq = b->n_rec, .best = gbest};
        ps_parallel_run(ps->n_gpu, gpu_best, &gj);
        for (int g = 0; g < ps->n_gpu && rc == 0; g++)
            if (gj.rc[g] < 0) {
                *err = gj.err[g];
                rc = gj.rc[g];
            }
    }
    free(off);
    free(len);
    if (rc < 0) free(gbest);
    else *best = gbest;
    return rc;
}

/* Searches the batch's records for matches (best: the GPUs' best scores,
 * or NULL: bundles on the CPU threads first), counts and writes them in
 * record order, and empties the batch. */
/* The first pair of a run whose search stopped at PS_PRF_MAX_MATCHES (by
 * record, then profile, over the parts), into st once a batch. */
static void note_full(const ps_profiles_t *ps, const batch_t *b, const part_out_t *out, int parts,
                      ps_prf_scan_stats_t *st)
{
    const part_out_t *first = NULL;
    for (int p = 0; p < parts; p++) {
        const part_out_t *o = &out[p];
        if (!o->full) continue;
        if (!first || pair_before(&o->first_full, &first->first_full)) first = o;
        st->pairs_full += o->full;
    }
    if (!first || st->full_record[0]) return;
    snprintf(st->full_record, sizeof st->full_record, "%s", b->names + b->rec[first->first_full.rec].name);
    snprintf(st->full_profile, sizeof st->full_profile, "%s", ps->p[first->first_full.prof].ac);
}

static int search_batch(const ps_profiles_t *ps, batch_t *b, const int32_t *best, FILE *f, ps_sites_format_t format,
                        const char *label, ps_prf_rows_t *cap, uint64_t *counts, int threads, ps_prf_scan_stats_t *st,
                        ps_err_t *err)
{
    if (b->n_rec == 0) return 0;
    job_t j = {.ps = ps, .rec = b->rec, .n_rec = b->n_rec, .letters = (const uint8_t *)b->seq,
               .residues = b->seq_len, .best = best};
    const int most = threads > 0 ? threads : 1;
    const int n_out = most + ps->n_gpu; /* parts: the threads, at least one a GPU */
    int rc = 0;
    pair_t *pair = NULL;
    hit_t *hit = NULL;
    size_t n_hit = 0;
    uint64_t n_pair = 0;
    if (!(j.out = calloc((size_t)n_out, sizeof *j.out))) return ps_fail(err, PS_E_NOMEM, "out of memory");
    if (!best) {
        /* Best scores on the threads, a part about 16 Ki residues at least
         * and a record, in chunks of as much, eight a part; each part lists
         * its pairs that reach the cut-off. */
        int parts = ps_parallel_parts(threads, b->seq_len, 1u << 14);
        if ((uint32_t)parts > b->n_rec) parts = (int)b->n_rec;
        j.chunks = (uint64_t)ps_parallel_parts(parts * PS_PRF_CHUNKS, b->seq_len, 1u << 14);
        if (j.chunks > b->n_rec) j.chunks = b->n_rec;
        ps_parallel_run(parts, best_part, &j);
        for (int p = 0; p < parts && rc == 0; p++) {
            if (j.out[p].failed) rc = ps_fail(err, PS_E_NOMEM, "out of memory scoring profiles");
            n_pair += j.out[p].n_pair;
        }
        if (rc == 0 && n_pair && !(pair = malloc(n_pair * sizeof *pair))) rc = ps_fail(err, PS_E_NOMEM, "out of memory");
        n_pair = 0;
        for (int p = 0; p < parts && rc == 0; p++) {
            if (j.out[p].n_pair) memcpy(pair + n_pair, j.out[p].pair, j.out[p].n_pair * sizeof *pair);
            n_pair += j.out[p].n_pair;
        }
    } else {
        /* The GPUs' best scores: the pairs that reach the cut-off. */
        part_out_t *o = &j.out[0];
        for (uint32_t p = 0; p < ps->n && rc == 0; p++)
            for (uint32_t r = 0; r < b->n_rec; r++)
                if (best[(uint64_t)p * b->n_rec + r] >= ps_profile_cutoff(&ps->p[p], b->rec[r].len) &&
                    add_pair(o, &j, r, p) < 0) {
                    rc = ps_fail(err, PS_E_NOMEM, "out of memory");
                    break;
                }
        pair = o->pair;
        n_pair = o->n_pair;
        *o = (part_out_t){0};
    }
    for (int p = 0; p < n_out; p++) {
        free(j.out[p].pair);
        j.out[p].pair = NULL;
        j.out[p].n_pair = j.out[p].cap_pair = 0;
    }
    if (rc == 0 && n_pair) {
        qsort(pair, n_pair, sizeof *pair, pair_cmp);
        j.pair = pair;
        j.n_pair = n_pair;
        /* With GPUs, the cheaper pairs are searched there; a thread a GPU
         * waits for it before it takes CPU pairs. */
        j.n_cpu = n_pair;
        if (best && ps->n_gpu) cpu_share(pair, n_pair, most > ps->n_gpu ? most - ps->n_gpu : 1, &j.n_cpu);
        if (rc == 0 && j.n_cpu < n_pair && gpu_pairs(&j, j.n_cpu) < 0) rc = ps_fail(err, PS_E_NOMEM, "out of memory");
        if (rc == 0 && make_groups(&j, pair) < 0) rc = ps_fail(err, PS_E_NOMEM, "out of memory");
        int parts = n_pair < (uint64_t)most ? (int)n_pair : most;
        if (j.gs && parts < ps->n_gpu) parts = ps->n_gpu;
        if (rc == 0) ps_parallel_run(parts, search_part, &j);
        for (int g = 0; rc == 0 && j.gs && g < ps->n_gpu; g++)
            if (j.gs[g].rc < 0) {
                *err = j.gs[g].err;
                rc = j.gs[g].rc;
            }
        if (rc == 0 && j.gs) ps_parallel_run(parts, range_part, &j);
        gpu_pairs_free(&j);
        free(j.group);
        for (int p = 0; p < parts && rc == 0; p++)
            if (j.out[p].failed) rc = ps_fail(err, PS_E_NOMEM, "out of memory scoring profiles");
        for (int p = 0; p < parts; p++) n_hit += j.out[p].n;
        if (rc == 0) note_full(ps, b, j.out, parts, st);
        if (rc == 0 && n_hit && !(hit = malloc(n_hit * sizeof *hit))) rc = ps_fail(err, PS_E_NOMEM, "out of memory");
        n_hit = 0;
        for (int p = 0; p < parts && rc == 0; p++) {
            if (j.out[p].n) memcpy(hit + n_hit, j.out[p].hit, j.out[p].n * sizeof *hit);
            n_hit += j.out[p].n;
        }
        /* Record, start, profile, end: the rows' order whoever found them. */
        if (rc == 0 && n_hit > 1) qsort(hit, n_hit, sizeof *hit, hit_cmp);
    }
    for (size_t i = 0; rc == 0 && i < n_hit; i++) counts[hit[i].prof]++;
    if (rc == 0 && f && write_rows(ps, b, hit, n_hit, f, format, label, cap) < 0)
        rc = ps_fail(err, PS_E_IO, "write error: %s", strerror(errno));
    for (int p = 0; p < n_out; p++) free(j.out[p].hit);
    free(j.out);
    free(hit);
    free(pair);
    b->names_len = b->seq_len = 0;
    b->n_rec = 0;
    return rc;
}

/* ---- the pipeline: reading, best scores on the GPUs, matches ---------- */

/* Batches in flight: one read, one scored on the GPUs, one searched. */
enum { SLOTS = 3 };
enum { SLOT_FREE, SLOT_READ, SLOT_BEST };

typedef struct {
    const ps_profiles_t *ps;
    FILE *f;
    ps_sites_format_t format;
    const char *label;
    ps_prf_rows_t *cap;
    uint64_t *counts;
    int threads;
    ps_prf_scan_stats_t *st; /* the search stage's notes (pairs_full) */
    batch_t b[SLOTS];
    int32_t *best[SLOTS];
    int state[SLOTS];
    uint64_t n_in; /* batches the reader handed over */
    int done;      /* the reader handed over its last */
    int failed;    /* a stage failed: err says how; the others stop */
    ps_err_t err;
    double busy[2]; /* seconds of work of the GPU stage and the search stage */
    pthread_mutex_t m;
    pthread_cond_t c;
} pipe_t;

typedef struct {
    pipe_t *P;
    int stage;          /* 0: best scores on the GPUs, 1: search */
    int want, next;     /* the slot state it takes, and leaves */
} stage_t;

static void *stage_main(void *arg)
{
    stage_t *s = arg;
    pipe_t *P = s->P;
    for (uint64_t seq = 0;; seq++) {
        const int slot = (int)(seq % SLOTS);
        pthread_mutex_lock(&P->m);
        while (!P->failed && P->state[slot] != s->want && !(P->done && seq >= P->n_in)) pthread_cond_wait(&P->c, &P->m);
        const int go = !P->failed && P->state[slot] == s->want;
        pthread_mutex_unlock(&P->m);
        if (!go) break;
        ps_err_t err = {0};
        const double t0 = ps_now();
        int rc = s->stage == 0 ? best_batch(P->ps, &P->b[slot], &P->best[slot], &err)
                               : search_batch(P->ps, &P->b[slot], P->best[slot], P->f, P->format, P->label, P->cap,
                                              P->counts, P->threads, P->st, &err);
        P->busy[s->stage] += ps_now() - t0;
        if (s->stage == 1) { /* the batch's scores are done with */
            free(P->best[slot]);
            P->best[slot] = NULL;
        }
        pthread_mutex_lock(&P->m);
        if (rc < 0 && !P->failed) {
            P->failed = 1;
            P->err = err;
        }
        P->state[slot] = s->next;
        pthread_cond_broadcast(&P->c);
        pthread_mutex_unlock(&P->m);
    }
    return NULL;
}

/* Hands the reader's batch over and waits for the next slot to be free,
 * adding the wait to *waited; -1 when a stage failed. */
static int hand_over(pipe_t *P, uint64_t *seq, double *waited)
{
    const double t0 = ps_now();
    pthread_mutex_lock(&P->m);
    P->state[*seq % SLOTS] = SLOT_READ;
    P->n_in = ++*seq;
    pthread_cond_broadcast(&P->c);
    while (!P->failed && P->state[*seq % SLOTS] != SLOT_FREE) pthread_cond_wait(&P->c, &P->m);
    const int failed = P->failed;
    pthread_mutex_unlock(&P->m);
    *waited += ps_now() - t0;
    return failed ? -1 : 0;
}

int ps_profiles_scan(const ps_profiles_t *ps, const char *path, const char *label, FILE *f, ps_sites_format_t format,
                     ps_prf_rows_t *rows, uint64_t *counts, int threads, ps_prf_scan_stats_t *st, ps_err_t *err)
{
    memset(st, 0, sizeof *st);
    const double t_start = ps_now();
    ps_reader_t *r = NULL;
    int rc = ps_reader_open(&r, path, PS_PROTEIN, 1, NULL, err);
    if (rc < 0) return rc;
    rc = ps_reader_is_fasta(r, err);
    if (rc == 0) rc = ps_fail(err, PS_E_FORMAT, "%s: profiles are scored over FASTA input; this is not FASTA", path);
    pipe_t *P = rc < 0 ? NULL : calloc(1, sizeof *P);
    unsigned char *buf = rc < 0 ? NULL : malloc(1u << 20);
    if (rc >= 0 && (!P || !buf)) rc = ps_fail(err, PS_E_NOMEM, "out of memory");
    stage_t stage[2];
    pthread_t th[2];
    int n_th = 0, sync_ok = 0;
    if (rc >= 0) {
        *P = (pipe_t){.ps = ps, .f = f, .format = format, .label = label, .cap = rows, .counts = counts,
                      .threads = threads, .st = st};
        if (pthread_mutex_init(&P->m, NULL) != 0) {
            rc = ps_fail(err, PS_E_INTERNAL, "cannot make the profiles' pipeline");
        } else if (pthread_cond_init(&P->c, NULL) != 0) {
            pthread_mutex_destroy(&P->m);
            rc = ps_fail(err, PS_E_INTERNAL, "cannot make the profiles' pipeline");
        } else {
            sync_ok = 1;
        }
    }
    /* Without GPUs the search stage takes batches as read. */
    if (ps->n_gpu) {
        stage[0] = (stage_t){P, 0, SLOT_READ, SLOT_BEST};
        stage[1] = (stage_t){P, 1, SLOT_BEST, SLOT_FREE};
    } else {
        stage[0] = (stage_t){P, 1, SLOT_READ, SLOT_FREE};
    }
    for (int i = 0; rc >= 0 && i < (ps->n_gpu ? 2 : 1); i++) {
        if (pthread_create(&th[i], NULL, stage_main, &stage[i]) != 0) {
            rc = ps_fail(err, PS_E_INTERNAL, "cannot start a thread of the profiles' pipeline");
            break;
        }
        n_th++;
    }
    uint64_t seq = 0;
    double waited = 0;
    batch_t *b = P ? &P->b[0] : NULL;
    enum { LINE_START, HEADER_NAME, HEADER_REST, SEQ } state = LINE_START;
    int in_rec = 0;
    uint64_t name_at = 0, seq_at = 0;
    /* Closes the record in progress into the batch. */
#define END_RECORD()                                                                                              \
    do {                                                                                                          \
        if (in_rec) {                                                                                             \
            if (b->n_rec == b->cap_rec) {                                                                         \
                uint32_t nc = b->cap_rec ? b->cap_rec * 2 : 1024;                                                 \
                rec_t *g = realloc(b->rec, nc * sizeof *g);                                                       \
                if (!g) {                                                                                         \
                    rc = ps_fail(err, PS_E_NOMEM, "out of memory");                                               \
                    break;                                                                                        \
                }                                                                                                 \
                b->rec = g;                                                                                       \
                b->cap_rec = nc;                                                                                  \
            }                                                                                                     \
            b->rec[b->n_rec++] = (rec_t){name_at, seq_at, (uint32_t)(b->seq_len - seq_at)};                       \
            st->records++;                                                                                        \
            st->residues += b->seq_len - seq_at;                                                                  \
            in_rec = 0;                                                                                           \
        }                                                                                                         \
    } while (0)
    while (rc >= 0) {
        ssize_t got = ps_reader_read_raw(r, buf, 1u << 20, err);
        if (got < 0) {
            rc = (int)got;
            break;
        }
        if (got == 0) break;
        for (ssize_t i = 0; i < got && rc >= 0; i++) {
            const unsigned char c = buf[i];
            if (state == LINE_START && c == '>') {
                END_RECORD();
                if (rc < 0) break;
                if (b->seq_len >= PS_PRF_BATCH || (uint64_t)b->n_rec * ps->n >= PS_PRF_PAIRS) {
                    if (hand_over(P, &seq, &waited) < 0) {
                        rc = -1;
                        break;
                    }
                    b = &P->b[seq % SLOTS];
                }
                name_at = b->names_len;
                state = HEADER_NAME;
                in_rec = 1;
                continue;
            }
            if (state == HEADER_NAME || state == HEADER_REST) {
                if (c == '\n') {
                    if (batch_grow(&b->names, &b->names_cap, b->names_len + 1) < 0) {
                        rc = ps_fail(err, PS_E_NOMEM, "out of memory");
                        break;
                    }
                    b->names[b->names_len++] = '\0';
                    seq_at = b->seq_len;
                    state = LINE_START;
                } else if (state == HEADER_NAME && (c == ' ' || c == '\t' || c == '\r')) {
                    state = HEADER_REST;
                } else if (state == HEADER_NAME && b->names_len - name_at < PS_NAME_MAX) {
                    if (batch_grow(&b->names, &b->names_cap, b->names_len + 1) < 0) {
                        rc = ps_fail(err, PS_E_NOMEM, "out of memory");
                        break;
                    }
                    b->names[b->names_len++] = (char)c;
                }
                continue;
            }
            /* Sequence lines: letters are residues, kept as letter numbers
             * 0..25 (what every engine reads); pftools leaves the rest out. */
            state = c == '\n' ? LINE_START : SEQ;
            if (in_rec && ((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z'))) {
                if (batch_grow(&b->seq, &b->seq_cap, b->seq_len + 1) < 0) {
                    rc = ps_fail(err, PS_E_NOMEM, "out of memory");
                    break;
                }
                b->seq[b->seq_len++] = (char)((c & 0xDF) - 'A');
            }
        }
    }
    if (rc >= 0 && (state == HEADER_NAME || state == HEADER_REST)) { /* a last header without a newline */
        if (batch_grow(&b->names, &b->names_cap, b->names_len + 1) < 0) rc = ps_fail(err, PS_E_NOMEM, "out of memory");
        else b->names[b->names_len++] = '\0';
        seq_at = b->seq_len;
    }
    if (rc >= 0) END_RECORD();
#undef END_RECORD
    const double t_read = ps_now() - t_start - waited;
    if (n_th) {
        /* The last batch (a failed read hands over nothing more). */
        pthread_mutex_lock(&P->m);
        if (rc >= 0 && !P->failed) {
            P->state[seq % SLOTS] = SLOT_READ;
            P->n_in = ++seq;
        }
        P->done = 1;
        pthread_cond_broadcast(&P->c);
        pthread_mutex_unlock(&P->m);
        for (int i = 0; i < n_th; i++) pthread_join(th[i], NULL);
        /* A stage's failure is the run's (the reader then stopped: rc -1). */
        if (P->failed) rc = ps_fail(err, P->err.code, "%s", P->err.msg);
    }
    if (P) {
        st->best_s = P->busy[0];
        st->search_s = P->busy[1];
        for (int i = 0; i < SLOTS; i++) {
            free(P->b[i].names);
            free(P->b[i].seq);
            free(P->b[i].rec);
            free(P->best[i]);
        }
        if (sync_ok) {
            pthread_cond_destroy(&P->c);
            pthread_mutex_destroy(&P->m);
        }
    }
    st->read_s = t_read;
    st->seconds = ps_now() - t_start;
    if (rc >= 0 && st->pairs_full)
        fprintf(stderr,
                "probescan: warning: %s: %llu (record, profile) pair%s reached %d matches, where the search stops (as "
                "pfscanV3 does): their matches may be incomplete (the first: record '%s', profile %s)\n",
                path, (unsigned long long)st->pairs_full, st->pairs_full > 1 ? "s" : "", PS_PRF_MAX_MATCHES,
                st->full_record, st->full_profile);
    free(P);
    free(buf);
    ps_reader_close(r);
    return rc < 0 ? rc : 0;
}

void ps_prf_scan_say(const char *input, const ps_profiles_t *ps, const ps_prf_scan_stats_t *st)
{
    char gpu[64] = "";
    if (ps->n_gpu) snprintf(gpu, sizeof gpu, "best scores on %d GPU%s %.3f s, ", ps->n_gpu, ps->n_gpu > 1 ? "s" : "",
                            st->best_s);
    fprintf(stderr,
            "probescan: %s: %llu records, %llu residues, %u profiles in %.3f s (reading %.3f s, %s%s %.3f s, at "
            "once)\n",
            input, (unsigned long long)st->records, (unsigned long long)st->residues, ps->n, st->seconds, st->read_s,
            gpu, ps->n_gpu ? "matches on the GPUs and CPU threads" : "best scores and matches on CPU threads",
            st->search_s);
}
