/* profscan.c - PROSITE profiles over protein FASTA (profscan.h). */
#include "profscan.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <htslib/bgzf.h>
#include <htslib/kstring.h>

#include "engine_gpu.h"
#include "parallel.h"
#include "parse.h"
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

static int by_length(const void *a, const void *b, void *ctx)
{
    const ps_profile_t *p = ctx;
    const uint32_t x = p[*(const uint32_t *)a].len, y = p[*(const uint32_t *)b].len;
    return x < y ? -1 : x > y;
}

/* Profiles of like lengths side by side: PS_PRF_LANES a bundle. */
static int make_bundles(ps_profiles_t *ps, ps_err_t *err)
{
    const uint32_t W = PS_PRF_LANES;
    ps->n_bundle = (ps->n + W - 1) / W;
    ps->bundle = calloc(ps->n_bundle, sizeof *ps->bundle);
    ps->lane = malloc(sizeof *ps->lane * ps->n_bundle * W);
    if (!ps->bundle || !ps->lane) return ps_fail(err, PS_E_NOMEM, "out of memory");
    for (uint32_t i = 0; i < ps->n; i++) ps->lane[i] = i;
    qsort_r(ps->lane, ps->n, sizeof *ps->lane, by_length, ps->p);
    for (uint32_t b = 0; b < ps->n_bundle; b++) {
        const ps_profile_t *lanes[PS_PRF_LANES];
        int k = 0;
        for (; k < (int)W && b * W + (uint32_t)k < ps->n; k++) lanes[k] = &ps->p[ps->lane[b * W + (uint32_t)k]];
        if (ps_prf_bundle_new(&ps->bundle[b], lanes, k) < 0) return ps_fail(err, PS_E_NOMEM, "out of memory");
    }
    return 0;
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
    int rc = 0, first = 1, matrix = 0;
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
            out->patterns += memmem(s, len, "; PATTERN", 9) != NULL;
            elen = 0;
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
        ps_gprof_free(ps->gpu);
        free(ps->bundle);
        free(ps->lane);
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

int ps_profiles_engine(ps_profiles_t *ps, ps_engine_req_t req, int gpu_id, double bytes, int threads, int verbose,
                       ps_err_t *err)
{
    if (!ps->n || req == PS_REQ_CPU) return 0;
    uint64_t positions = 0;
    for (uint32_t i = 0; i < ps->n; i++) positions += ps->p[i].len + 1u;
    const double cpu_s = bytes * (double)positions * PS_PRF_CPU_NS * 1e-9 / (threads > 0 ? threads : 1);
    char why[384] = "";
    if (req == PS_REQ_AUTO) {
        /* The estimate first: asking whether a GPU is usable starts CUDA,
         * which a run the CPU finishes first should not pay for. */
        if (cpu_s <= 1.0) {
            if (verbose)
                fprintf(stderr, "probescan: profiles on CPU threads (about %.2f s of work there%s)\n", cpu_s,
                        bytes > 0 ? "" : ": input size unknown");
            return 0;
        }
        if (!ps_gpu_device_present() || !ps_gpu_usable(gpu_id, why, sizeof why)) {
            if (verbose) fprintf(stderr, "probescan: profiles on CPU threads (no usable GPU%s%s)\n", why[0] ? ": " : "", why);
            return 0;
        }
    }
    int rc = ps_gprof_new(&ps->gpu, ps->p, ps->n, gpu_id, err);
    if (rc < 0) return rc;
    if (verbose)
        fprintf(stderr, "probescan: profiles' best scores on GPU %d (%s; CPU threads estimated at %.2f s), matches on CPU "
                        "threads\n", gpu_id, req == PS_REQ_GPU ? "asked for" : "auto", cpu_s);
    return 0;
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

typedef struct {
    hit_t *hit;
    size_t n, cap;
    int failed;
} part_out_t;

typedef struct {
    const ps_profiles_t *ps;
    const rec_t *rec;
    uint32_t n_rec;
    const uint8_t *letters; /* the batch's residues as letter numbers */
    uint64_t residues;
    part_out_t *out;
    const int32_t *best; /* the GPU's best scores, n profiles x n_rec, or NULL: bundles on the CPU */
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

/* A part's records, one at a time against each bundle of profiles (the
 * filter), matches where a profile's best reaches its cut-off. */
static void score_part(void *ctx, int part, int parts)
{
    job_t *j = ctx;
    part_out_t *o = &j->out[part];
    const uint32_t r0 = rec_at(j, ps_parallel_share(j->residues, part, parts));
    const uint32_t r1 = rec_at(j, ps_parallel_share(j->residues, part + 1, parts));
    if (r1 <= r0) return;
    ps_prf_work_t w = {0};
    ps_prf_match_t *m = NULL;
    size_t mcap = 0;
    uint32_t maxlen = 1;
    for (uint32_t r = r0; r < r1; r++) maxlen = j->rec[r].len > maxlen ? j->rec[r].len : maxlen;
    uint8_t *idx = malloc(maxlen);
    if (!idx) o->failed = 1;
    for (uint32_t r = r0; r < r1 && !o->failed; r++) {
        const rec_t *rc = &j->rec[r];
        const uint8_t *letters = j->letters + rc->seq;
        for (uint32_t b = 0; b < j->ps->n_bundle && !o->failed; b++) {
            int32_t best[PS_PRF_LANES];
            if (j->best) {
                for (uint32_t l = 0; l < PS_PRF_LANES && b * PS_PRF_LANES + l < j->ps->n; l++)
                    best[l] = j->best[(uint64_t)j->ps->lane[b * PS_PRF_LANES + l] * j->n_rec + r];
            } else {
                ps_prf_bundle_best(j->ps->bundle[b], letters, rc->len, best, &w);
                if (rc->len && best[0] == INT32_MIN) {
                    o->failed = 1;
                    break;
                }
            }
            for (uint32_t l = 0; l < PS_PRF_LANES && b * PS_PRF_LANES + l < j->ps->n && !o->failed; l++) {
                const uint32_t p = j->ps->lane[b * PS_PRF_LANES + l];
                const ps_profile_t *pr = &j->ps->p[p];
                const int32_t cut = ps_profile_cutoff(pr, rc->len);
                if (best[l] < cut) continue;
                ps_profile_index(pr, letters, rc->len, idx);
                int k = ps_profile_matches(pr, idx, rc->len, cut, &w, &m, &mcap);
                if (k < 0) {
                    o->failed = 1;
                    break;
                }
                if (o->n + (size_t)k > o->cap) {
                    size_t nc = (o->n + (size_t)k) * 2 + 16;
                    hit_t *gr = realloc(o->hit, nc * sizeof *gr);
                    if (!gr) {
                        o->failed = 1;
                        break;
                    }
                    o->hit = gr;
                    o->cap = nc;
                }
                for (int i = 0; i < k; i++) o->hit[o->n++] = (hit_t){r, p, m[i]};
            }
        }
    }
    if (o->n > 1) qsort(o->hit, o->n, sizeof *o->hit, hit_cmp);
    free(idx);
    free(m);
    ps_prf_work_free(&w);
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

static int write_rows(const ps_profiles_t *ps, const batch_t *b, const part_out_t *out, int parts, FILE *f,
                      ps_sites_format_t format, const char *label, ps_prf_rows_t *cap)
{
    for (int p = 0; p < parts; p++)
        for (size_t i = 0; i < out[p].n; i++) {
            const hit_t *h = &out[p].hit[i];
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

/* Scores the batch's records and writes their rows. */
static int run_batch(const ps_profiles_t *ps, batch_t *b, FILE *f, ps_sites_format_t format, const char *label,
                     ps_prf_rows_t *cap, uint64_t *counts, int threads, ps_err_t *err)
{
    if (b->n_rec == 0) return 0;
    job_t j = {ps, b->rec, b->n_rec, (const uint8_t *)b->seq, b->seq_len, NULL, NULL};
    int32_t *gbest = NULL;
    if (ps->gpu) {
        /* The best scores of the whole batch on the GPU; matches on the threads. */
        uint64_t *off = malloc(sizeof *off * b->n_rec);
        uint32_t *len = malloc(sizeof *len * b->n_rec);
        gbest = malloc(sizeof *gbest * (size_t)b->n_rec * ps->n);
        int rc = off && len && gbest ? 0 : ps_fail(err, PS_E_NOMEM, "out of memory");
        if (rc == 0) {
            for (uint32_t r = 0; r < b->n_rec; r++) {
                off[r] = b->rec[r].seq;
                len[r] = b->rec[r].len;
            }
            rc = ps_gprof_best(ps->gpu, j.letters, b->seq_len, off, len, b->n_rec, gbest, err);
        }
        free(off);
        free(len);
        if (rc < 0) {
            free(gbest);
            return rc;
        }
        j.best = gbest;
    }
    /* A part is worth about 64 Ki residues a profile position... at least
     * a record; the threads of the budget at most. */
    int parts = ps_parallel_parts(threads, b->seq_len, 1u << 14);
    if ((uint32_t)parts > b->n_rec) parts = (int)b->n_rec;
    if (!(j.out = calloc((size_t)parts, sizeof *j.out))) {
        free(gbest);
        return ps_fail(err, PS_E_NOMEM, "out of memory");
    }
    ps_parallel_run(parts, score_part, &j);
    int rc = 0;
    for (int p = 0; p < parts && rc == 0; p++)
        if (j.out[p].failed) rc = ps_fail(err, PS_E_NOMEM, "out of memory scoring profiles");
    for (int p = 0; p < parts && rc == 0; p++)
        for (size_t i = 0; i < j.out[p].n; i++) counts[j.out[p].hit[i].prof]++;
    if (rc == 0 && f && write_rows(ps, b, j.out, parts, f, format, label, cap) < 0)
        rc = ps_fail(err, PS_E_IO, "write error: %s", strerror(errno));
    for (int p = 0; p < parts; p++) free(j.out[p].hit);
    free(j.out);
    free(gbest);
    b->names_len = b->seq_len = 0;
    b->n_rec = 0;
    return rc;
}

int ps_profiles_scan(const ps_profiles_t *ps, const char *path, const char *label, FILE *f, ps_sites_format_t format,
                     ps_prf_rows_t *rows, uint64_t *counts, int threads, uint64_t *records, uint64_t *residues,
                     ps_err_t *err)
{
    *records = *residues = 0;
    ps_reader_t *r = NULL;
    int rc = ps_reader_open(&r, path, PS_PROTEIN, 1, NULL, err);
    if (rc < 0) return rc;
    rc = ps_reader_is_fasta(r, err);
    if (rc == 0) rc = ps_fail(err, PS_E_FORMAT, "%s: profiles are scored over FASTA input; this is not FASTA", path);
    batch_t b = {0};
    enum { LINE_START, HEADER_NAME, HEADER_REST, SEQ } st = LINE_START;
    int in_rec = 0;
    uint64_t name_at = 0, seq_at = 0;
    unsigned char *buf = rc < 0 ? NULL : malloc(1u << 20);
    if (rc >= 0 && !buf) rc = ps_fail(err, PS_E_NOMEM, "out of memory");
    /* Closes the record in progress into the batch. */
#define END_RECORD()                                                                                              \
    do {                                                                                                          \
        if (in_rec) {                                                                                             \
            if (b.n_rec == b.cap_rec) {                                                                           \
                uint32_t nc = b.cap_rec ? b.cap_rec * 2 : 1024;                                                   \
                rec_t *g = realloc(b.rec, nc * sizeof *g);                                                        \
                if (!g) {                                                                                         \
                    rc = ps_fail(err, PS_E_NOMEM, "out of memory");                                               \
                    break;                                                                                        \
                }                                                                                                 \
                b.rec = g;                                                                                        \
                b.cap_rec = nc;                                                                                   \
            }                                                                                                     \
            b.rec[b.n_rec++] = (rec_t){name_at, seq_at, (uint32_t)(b.seq_len - seq_at)};                          \
            (*records)++;                                                                                         \
            *residues += b.seq_len - seq_at;                                                                      \
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
            if (st == LINE_START && c == '>') {
                END_RECORD();
                if (rc < 0) break;
                if (b.seq_len >= PS_PRF_BATCH && (rc = run_batch(ps, &b, f, format, label, rows, counts, threads, err)) < 0)
                    break;
                name_at = b.names_len;
                st = HEADER_NAME;
                in_rec = 1;
                continue;
            }
            if (st == HEADER_NAME || st == HEADER_REST) {
                if (c == '\n') {
                    if (batch_grow(&b.names, &b.names_cap, b.names_len + 1) < 0) {
                        rc = ps_fail(err, PS_E_NOMEM, "out of memory");
                        break;
                    }
                    b.names[b.names_len++] = '\0';
                    seq_at = b.seq_len;
                    st = LINE_START;
                } else if (st == HEADER_NAME && (c == ' ' || c == '\t' || c == '\r')) {
                    st = HEADER_REST;
                } else if (st == HEADER_NAME && b.names_len - name_at < PS_NAME_MAX) {
                    if (batch_grow(&b.names, &b.names_cap, b.names_len + 1) < 0) {
                        rc = ps_fail(err, PS_E_NOMEM, "out of memory");
                        break;
                    }
                    b.names[b.names_len++] = (char)c;
                }
                continue;
            }
            /* Sequence lines: letters are residues, kept as letter numbers
             * 0..25 (what every engine reads); pftools leaves the rest out. */
            st = c == '\n' ? LINE_START : SEQ;
            if (in_rec && ((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z'))) {
                if (batch_grow(&b.seq, &b.seq_cap, b.seq_len + 1) < 0) {
                    rc = ps_fail(err, PS_E_NOMEM, "out of memory");
                    break;
                }
                b.seq[b.seq_len++] = (char)((c & 0xDF) - 'A');
            }
        }
    }
    if (rc >= 0 && (st == HEADER_NAME || st == HEADER_REST)) { /* a last header without a newline */
        if (batch_grow(&b.names, &b.names_cap, b.names_len + 1) < 0) rc = ps_fail(err, PS_E_NOMEM, "out of memory");
        else b.names[b.names_len++] = '\0';
        seq_at = b.seq_len;
    }
    if (rc >= 0) END_RECORD();
    if (rc >= 0) rc = run_batch(ps, &b, f, format, label, rows, counts, threads, err);
#undef END_RECORD
    free(buf);
    free(b.names);
    free(b.seq);
    free(b.rec);
    ps_reader_close(r);
    return rc < 0 ? rc : 0;
}
