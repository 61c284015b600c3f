/* test_profile.c - PROSITE profiles (profile.h): an entry read as pftools
 * reads it, and the best score against a reference dynamic programming
 * written from the model (every node of every row kept), over random
 * profiles and sequences. tests/profiles.sh compares the matches
 * themselves with pfscanV3. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "profile.h"
#include "profile_gpu.h"
#include "testutil.h"

static const char *const ALPHA = "ACDEFGHIKLMNPQRSTVWY";

#define TR(pr, p, a, b) (pr)->trans[(size_t)(p) * 16 + (a) * 4 + (b)]

START_TEST(test_parse)
{
    /* Two match positions; the /I: before the first, an implied /I:
     * between them and a last one of defaults. */
    char text[4096];
    char m1[256] = "", m2[256] = "";
    for (int i = 0; i < 20; i++) {
        char b[16];
        snprintf(b, sizeof b, "%s%d", i ? "," : "", ALPHA[i] == 'C' ? 10 : -5);
        strcat(m1, b);
        snprintf(b, sizeof b, "%s%s", i ? "," : "", ALPHA[i] == 'H' ? "12" : "*");
        strcat(m2, b);
    }
    snprintf(text, sizeof text,
             "ID   T; MATRIX.\nAC   PS1;\n"
             "MA   /GENERAL_SPEC: ALPHABET='%s'; LENGTH=2;\n"
             "MA   /DISJOINT: DEFINITION=PROTECT; N1=1; N2=2;\n"
             "MA   /NORMALIZATION: MODE=1; FUNCTION=LINEAR; R1=0.5; R2=0.1;\n"
             "MA   /CUT_OFF: LEVEL=1; SCORE=30; N_SCORE=3.5; MODE=1;\n"
             "MA   /CUT_OFF: LEVEL=0; SCORE=15; N_SCORE=2.0; MODE=1;\n"
             "MA   /DEFAULT: D=-20; I=-7; B1=-3; E1=-4; MI=-100; MD=-100; IM=-100; DM=-100;\n"
             "MA   /I: B1=0; BI=-9;\n"
             "MA   /M: SY='C'; M=%s;\n"
             "MA   /M: SY='H'; M=%s; D=-11;\n"
             "//\n",
             ALPHA, m1, m2);
    ps_profile_t pr;
    char why[256];
    ck_assert_int_eq(ps_profile_parse(&pr, text, strlen(text), 0, why, sizeof why), 0);
    ck_assert_str_eq(pr.id, "T");
    ck_assert_str_eq(pr.ac, "PS1");
    ck_assert_str_eq(pr.consensus, "CH");
    ck_assert_uint_eq(pr.len, 2);
    ck_assert_int_eq(pr.cut, 15);
    ck_assert_int_eq(pr.n1, 1);
    ck_assert_int_eq(pr.n2, 2);
    const int c = pr.map['C' - 'A'], h = pr.map['H' - 'A'];
    ck_assert_int_eq(pr.match[0 * 28 + c], 10);
    ck_assert_int_eq(pr.match[1 * 28 + h], 12);
    ck_assert_int_eq(pr.match[1 * 28 + c], PS_PRF_NLOW); /* '*' */
    ck_assert_int_eq(pr.match[0 * 28 + 27], -20);          /* D of the defaults */
    ck_assert_int_eq(pr.match[1 * 28 + 27], -11);
    ck_assert_int_eq(pr.match[0 * 28 + 0], 0);             /* M0: a residue outside the alphabet */
    ck_assert_int_eq(pr.ins[1 * 28 + c], -7);              /* the implied /I: takes the defaults */
    /* Position 0 lies before N1: a begin (B1 + BM = 0 + 0), no end
     * (E1 forbidden: NLOW + ME, kept at pftools' floor). */
    ck_assert_int_eq(TR(&pr, 0, PS_PRF_X, PS_PRF_M), 0);
    ck_assert_int_eq(TR(&pr, 0, PS_PRF_X, PS_PRF_I), -9);
    ck_assert_int_eq(TR(&pr, 0, PS_PRF_M, PS_PRF_X), PS_PRF_NLOW / 4 * 3);
    /* Position 1 (N1 <= 1 < N2): B1 -3, E1 -4 of the defaults. */
    ck_assert_int_eq(TR(&pr, 1, PS_PRF_X, PS_PRF_M), -3);
    ck_assert_int_eq(TR(&pr, 1, PS_PRF_M, PS_PRF_X), -4);
    /* Position 2 (at N2): no begin. */
    ck_assert_int_eq(TR(&pr, 2, PS_PRF_X, PS_PRF_M), PS_PRF_NLOW / 4 * 3);
    ck_assert_int_eq(TR(&pr, 2, PS_PRF_M, PS_PRF_X), -4);
    ck_assert_int_eq(TR(&pr, 1, PS_PRF_M, PS_PRF_I), -100);
    /* Levels: 1 from 30, 0 from 15, -1 below (one less than the last). */
    ck_assert_int_eq(ps_profile_level(&pr, 31, 10), 1);
    ck_assert_int_eq(ps_profile_level(&pr, 20, 10), 0);
    ck_assert_int_eq(ps_profile_level(&pr, 3, 10), -1);
    ck_assert(ps_profile_nscore(&pr, 20, 10) > 2.49f && ps_profile_nscore(&pr, 20, 10) < 2.51f);
    /* CH scores 22 (B1 0 at position 0, E0 0 at the end). */
    ps_prf_work_t w = {0};
    uint8_t idx[8];
    static const uint8_t aacha[5] = {'A' - 'A', 'A' - 'A', 'C' - 'A', 'H' - 'A', 'A' - 'A'};
    ps_profile_index(&pr, aacha, 5, idx);
    ck_assert_int_eq(ps_profile_best(&pr, idx, 5, &w), 22 - 4);
    ps_prf_match_t *m = NULL;
    size_t cap = 0;
    ck_assert_int_eq(ps_profile_matches(&pr, idx, 5, pr.cut, &w, &m, &cap), 1);
    ck_assert_uint_eq(m[0].from, 3);
    ck_assert_uint_eq(m[0].to, 4);
    ck_assert_int_eq(m[0].score, 18);
    ck_assert_int_eq(m[0].pfrom, 1);
    ck_assert_int_eq(m[0].pto, -1);
    free(m);
    ps_prf_work_free(&w);
    ps_profile_free(&pr);

    /* Refused, with the reason. */
    static const char *const bad[][2] = {
        {"ID   B; MATRIX.\nMA   /GENERAL_SPEC: ALPHABET='ACD'; LENGTH=1;\nMA   /CUT_OFF: LEVEL=0; SCORE=1;\n"
         "MA   /M: M=40000,1,1;\n//\n",
         "16-bit"},
        {"ID   B; MATRIX.\nMA   /GENERAL_SPEC: ALPHABET='ACD'; LENGTH=2;\nMA   /CUT_OFF: LEVEL=0; SCORE=1;\n"
         "MA   /M: M=1,1,1;\n//\n",
         "1 match positions where LENGTH=2"},
        {"ID   B; MATRIX.\nMA   /GENERAL_SPEC: ALPHABET='ACD'; LENGTH=1;\nMA   /CUT_OFF: LEVEL=0; SCORE=1;\n"
         "MA   /CUT_OFF: LEVEL=0; SCORE=2;\nMA   /M: M=1,1,1;\n//\n",
         "two CUT_OFF lines of LEVEL=0"},
        {"ID   B; MATRIX.\nMA   /GENERAL_SPEC: ALPHABET='ACD'; LENGTH=1;\nMA   /CUT_OFF: LEVEL=1; SCORE=1;\n"
         "MA   /M: M=1,1,1;\n//\n",
         "no CUT_OFF of LEVEL=0"},
        {"ID   B; MATRIX.\nMA   /GENERAL_SPEC: ALPHABET='ACD'; LENGTH=1;\nMA   /CUT_OFF: LEVEL=0; SCORE=1;\n"
         "MA   /I: QQ=1;\nMA   /M: M=1,1,1;\n//\n",
         "unknown /I: key QQ"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        ck_assert_int_eq(ps_profile_parse(&pr, bad[i][0], strlen(bad[i][0]), 0, why, sizeof why), -1);
        ck_assert_msg(strstr(why, bad[i][1]) != NULL, "case %zu: '%s' lacks '%s'", i, why, bad[i][1]);
    }
}
END_TEST

/* A random profile's text (testutil.h): random scores, '*' now and then,
 * begin and end terms on some insertion positions, a protected range;
 * transitions I to D and D to I (which PROSITE never allows) only where
 * id_di. */
size_t tu_random_profile(tu_rng_t *r, char *t, size_t cap, int max_len, int id_di)
{
    const int L = (int)tu_rng_range(r, 1, (uint64_t)max_len);
    const int n1 = (int)tu_rng_range(r, 1, (uint64_t)L), n2 = (int)tu_rng_range(r, (uint64_t)n1, (uint64_t)L);
    size_t o = (size_t)snprintf(t, cap,
                                "ID   R; MATRIX.\nMA   /GENERAL_SPEC: ALPHABET='%s'; LENGTH=%d;\n"
                                "MA   /DISJOINT: DEFINITION=PROTECT; N1=%d; N2=%d;\n"
                                "MA   /CUT_OFF: LEVEL=0; SCORE=%d;\n"
                                "MA   /DEFAULT: D=%d; I=%d; B1=%d; E1=%d; MI=%d; MD=%d; IM=%d; DM=%d; M0=%d;\n",
                                ALPHA, L, n1, n2, (int)tu_rng_range(r, 0, 60), -(int)tu_rng_range(r, 1, 30),
                                -(int)tu_rng_range(r, 1, 20), -(int)tu_rng_range(r, 0, 80),
                                -(int)tu_rng_range(r, 0, 80), -(int)tu_rng_range(r, 10, 150),
                                -(int)tu_rng_range(r, 10, 150), -(int)tu_rng_range(r, 0, 150),
                                -(int)tu_rng_range(r, 0, 150), -(int)tu_rng_range(r, 0, 10));
    static const char *const keys[] = {"MI", "MD", "IM", "DM", "II", "MM", "DD", "B1", "E1", "BI", "BD",
                                       "ME", "IE", "DE", "B0", "E0", "I", "ID", "DI"};
    const uint64_t n_keys = sizeof keys / sizeof *keys - (id_di ? 0 : 2);
    for (int p = 0; p <= L; p++) {
        o += (size_t)snprintf(t + o, cap - o, "MA   /I:");
        for (int k = (int)tu_rng_below(r, 4); k > 0; k--) {
            const char *key = keys[tu_rng_below(r, n_keys)];
            if (tu_rng_chance(r, 5)) o += (size_t)snprintf(t + o, cap - o, " %s=*;", key);
            else o += (size_t)snprintf(t + o, cap - o, " %s=%d;", key, -(int)tu_rng_range(r, 0, 160));
        }
        o += (size_t)snprintf(t + o, cap - o, "\n");
        if (p == L) break;
        o += (size_t)snprintf(t + o, cap - o, "MA   /M: SY='%c'; M=", ALPHA[tu_rng_below(r, 20)]);
        for (int i = 0; i < 20; i++)
            o += (size_t)snprintf(t + o, cap - o, "%s%d", i ? "," : "", (int)tu_rng_range(r, 0, 60) - 25);
        if (tu_rng_chance(r, 30)) o += (size_t)snprintf(t + o, cap - o, "; D=%d", -(int)tu_rng_range(r, 1, 40));
        o += (size_t)snprintf(t + o, cap - o, ";\n");
    }
    o += (size_t)snprintf(t + o, cap - o, "//\n");
    return o;
}

size_t tu_random_profile_read(tu_rng_t *r, char *t, size_t cap, int max_len, int id_di, ps_profile_t *pr)
{
    const size_t len = tu_random_profile(r, t, cap, max_len, id_di);
    char why[256];
    ck_assert_msg(ps_profile_parse(pr, t, len, 0, why, sizeof why) == 0, "%s", why);
    return len;
}

static int32_t mx(int32_t a, int32_t b) { return a > b ? a : b; }

/* The best score from the model: node[j][p][t] the best path that has used
 * residues 1..j and profile positions 1..p and goes on in t; ends from a
 * state at row j take E0 terms at the last residue, E1 terms before. */
static int32_t reference_best(const ps_profile_t *pr, const uint8_t *s, uint32_t n)
{
    const uint32_t L = pr->len;
    int32_t *N = malloc(sizeof(int32_t) * 3 * (L + 1) * (n + 1));
#define ND(j, p, t) N[((size_t)(j) * (L + 1) + (p)) * 3 + (t)]
#define MS(p, c) pr->match[(size_t)((p) - 1) * 28 + (c)]
#define IS(p, c) pr->ins[(size_t)(p) * 28 + (c)]
    for (uint32_t p = 0; p <= L; p++)
        for (int t = 0; t < 3; t++) {
            int32_t v = pr->first[p * 4 + t];
            if (p) v = mx(v, ND(0, p - 1, PS_PRF_D) + MS(p, 27) + TR(pr, p, PS_PRF_D, t));
            ND(0, p, t) = v;
        }
    int32_t best = PS_PRF_NLOW;
    for (uint32_t j = 1; j <= n; j++) {
        const unsigned c = s[j - 1];
        for (uint32_t p = 0; p <= L; p++) {
            const int32_t ki = ND(j - 1, p, PS_PRF_I) + IS(p, c);
            const int32_t km = p ? ND(j - 1, p - 1, PS_PRF_M) + MS(p, c) : 0;
            const int32_t kd = p ? ND(j, p - 1, PS_PRF_D) + MS(p, 27) : 0;
            for (int t = 0; t < 3; t++) {
                int32_t v = mx(TR(pr, p, PS_PRF_X, t), ki + TR(pr, p, PS_PRF_I, t));
                if (p) v = mx(v, mx(km + TR(pr, p, PS_PRF_M, t), kd + TR(pr, p, PS_PRF_D, t)));
                ND(j, p, t) = v;
            }
            const int32_t *l = pr->last + p * 4;
            const int end = j == n;
            best = mx(best, ki + (end ? l[PS_PRF_I] : TR(pr, p, PS_PRF_I, PS_PRF_X)));
            if (p) {
                best = mx(best, km + (end ? l[PS_PRF_M] : TR(pr, p, PS_PRF_M, PS_PRF_X)));
                best = mx(best, kd + (end ? l[PS_PRF_D] : TR(pr, p, PS_PRF_D, PS_PRF_X)));
            }
        }
    }
    free(N);
    return best;
#undef ND
#undef MS
#undef IS
}

START_TEST(test_random_best)
{
    tu_rng_t r;
    tu_rng_seed(&r, tu_seed() ^ 0x9f0f11eull);
    char *text = malloc(1 << 16);
    ps_prf_work_t w = {0};
    ps_prf_match_t *m = NULL;
    size_t cap = 0;
    static const char letters[] = "ACDEFGHIKLMNPQRSTVWYBZX";
    for (int k = 0; k < 300; k++) {
        size_t len = tu_random_profile(&r, text, 1 << 16, 14, k % 2);
        ps_profile_t pr;
        char why[256];
        ck_assert_msg(ps_profile_parse(&pr, text, len, 0, why, sizeof why) == 0, "case %d (seed %llu): %s", k,
                      (unsigned long long)tu_seed(), why);
        for (int q = 0; q < 8; q++) {
            char seq[80];
            uint8_t idx[80];
            const uint32_t n = (uint32_t)tu_rng_range(&r, 1, 70);
            for (uint32_t i = 0; i < n; i++)
                seq[i] = tu_rng_chance(&r, 50) ? pr.consensus[i % pr.len] : letters[tu_rng_below(&r, 23)];
            uint8_t let[80];
            for (uint32_t i = 0; i < n; i++) let[i] = (uint8_t)(seq[i] - 'A');
            ps_profile_index(&pr, let, n, idx);
            const int32_t want = reference_best(&pr, idx, n), got = ps_profile_best(&pr, idx, n, &w);
            ck_assert_msg(got == want, "case %d.%d (seed %llu): best %d, the model says %d\n%s%.*s", k, q,
                          (unsigned long long)tu_seed(), got, want, text, (int)n, seq);
            /* Matches: at or above the cut-off, none above the best, none
             * where the best is under it; ranges inside the sequence and
             * the profile. */
            const int nm = ps_profile_matches(&pr, idx, n, pr.cut, &w, &m, &cap);
            ck_assert_int_ge(nm, 0);
            if (want < pr.cut) ck_assert_int_eq(nm, 0);
            for (int i = 0; i < nm; i++) {
                ck_assert_msg(m[i].score >= pr.cut && m[i].score <= want, "case %d.%d (seed %llu): score %d", k, q,
                              (unsigned long long)tu_seed(), m[i].score);
                ck_assert(m[i].from >= 1 && m[i].from <= m[i].to + 1 && m[i].to <= n);
                ck_assert(m[i].pfrom >= 1 && m[i].pfrom <= (int32_t)pr.len);
                ck_assert(m[i].pto <= -1 && m[i].pto >= -(int32_t)pr.len - 1);
            }
        }
        ps_profile_free(&pr);
    }
    free(m);
    free(text);
    ps_prf_work_free(&w);
}
END_TEST

/* A profile that follows another in its lane starts afresh: PS_PRF_LANES
 * profiles scoring near the top of 16 bits fill the lanes, and one more,
 * whose only begin costs 9000, comes after the first of them. Were the
 * first's M and D values let into its position 0, a path there would end
 * at about 30000 - 32768, above its true best. */
START_TEST(test_bundle_barrier)
{
    char text[8192];
    size_t o = (size_t)snprintf(text, sizeof text,
                                "ID   HIGH; MATRIX.\nMA   /GENERAL_SPEC: ALPHABET='%s'; LENGTH=30;\n"
                                "MA   /CUT_OFF: LEVEL=0; SCORE=1;\nMA   /DEFAULT: B1=0; E1=0;\n",
                                ALPHA);
    for (int p = 0; p < 30; p++) {
        o += (size_t)snprintf(text + o, sizeof text - o, "MA   /I: I=-100;\nMA   /M: SY='W'; M=");
        for (int i = 0; i < 20; i++) o += (size_t)snprintf(text + o, sizeof text - o, "%s%d", i ? "," : "", ALPHA[i] == 'W' ? 1000 : -100);
        o += (size_t)snprintf(text + o, sizeof text - o, ";\n");
    }
    snprintf(text + o, sizeof text - o, "MA   /I: I=-100;\n//\n");
    static const char low[] = "ID   LOW; MATRIX.\nMA   /GENERAL_SPEC: ALPHABET='ACDEFGHIKLMNPQRSTVWY'; LENGTH=2;\n"
                              "MA   /CUT_OFF: LEVEL=0; SCORE=1;\nMA   /DEFAULT: B0=*; B1=*; E1=0; MM=0; I=-1;\n"
                              "MA   /I: B0=-9000; B1=-9000;\nMA   /M: M=0;\nMA   /I:\nMA   /M: M=0;\nMA   /I:\n//\n";
    ps_profile_t pr[PS_PRF_LANES + 1];
    const ps_profile_t *lane[PS_PRF_LANES + 1];
    char why[256];
    for (int i = 0; i <= PS_PRF_LANES; i++) {
        const char *s = i < PS_PRF_LANES ? text : low;
        ck_assert_msg(ps_profile_parse(&pr[i], s, strlen(s), 0, why, sizeof why) == 0, "%s", why);
        lane[i] = &pr[i];
    }
    ps_prf_bundle_t *b;
    ck_assert_int_eq(ps_prf_bundle_new(&b, lane, PS_PRF_LANES + 1), 0);
    ck_assert_uint_eq(ps_prf_bundle_positions(b), 31 + 3);
    uint8_t letters[40], idx[40];
    for (int i = 0; i < 40; i++) letters[i] = 'W' - 'A';
    ps_prf_work_t w = {0};
    int32_t best[PS_PRF_LANES + 1];
    ps_prf_bundle_best(b, letters, 40, best, &w);
    for (int i = 0; i <= PS_PRF_LANES; i++) {
        ps_profile_index(&pr[i], letters, 40, idx);
        const int32_t one = ps_profile_best(&pr[i], idx, 40, &w);
        ck_assert_msg(best[i] == one, "profile %d: %d in the bundle, %d alone", i, best[i], one);
    }
    ck_assert_int_eq(best[0], 30000);
    ck_assert_int_lt(best[PS_PRF_LANES], -8000);
    ps_prf_bundle_free(b);
    for (int i = 0; i <= PS_PRF_LANES; i++) ps_profile_free(&pr[i]);
    ps_prf_work_free(&w);
}
END_TEST

/* A bundle's scores of letters[0..n) (into best) against each of its np
 * profiles alone (into one): never under, and equal where no sum fell
 * under -32768. */
static void check_bundle(const ps_prf_bundle_t *b, const ps_profile_t *pr, int np, const uint8_t *letters, uint32_t n,
                         int k, ps_prf_work_t *w, int32_t *best, int32_t *one)
{
    uint8_t idx[128];
    ck_assert(n <= sizeof idx);
    ps_prf_bundle_best(b, letters, n, best, w);
    for (int i = 0; i < np; i++) {
        ps_profile_index(&pr[i], letters, n, idx);
        one[i] = ps_profile_best(&pr[i], idx, n, w);
        ck_assert_msg(best[i] >= one[i] && (best[i] == one[i] || one[i] < -16000),
                      "bundle %d of %d profiles, profile %d (seed %llu): %d, alone %d", k, np, i,
                      (unsigned long long)tu_seed(), best[i], one[i]);
    }
}

/* n residues (letter numbers) near profile pr's consensus: in stretches
 * (the consensus repeated, then random residues, by turns) or scattered,
 * 85% of the near ones the consensus's. */
static void near_consensus(tu_rng_t *r, const ps_profile_t *pr, uint8_t *letters, uint32_t n)
{
    const int stretch = tu_rng_chance(r, 50);
    for (uint32_t j = 0; j < n; j++) {
        const int near = stretch ? (j / (2 * pr->len + 7)) % 2 == 0 : tu_rng_chance(r, 60);
        letters[j] = near && tu_rng_chance(r, 85) ? (uint8_t)(pr->consensus[j % pr->len] - 'A')
                                                  : (uint8_t)tu_rng_below(r, 26);
    }
}

/* Pairs of one random profile searched side by side
 * (ps_profile_matches_lanes): each pair's matches, in order, with their
 * ranges and scores, those of ps_profile_matches. Groups of 1 to
 * PS_PRF_SEARCH_LANES pairs of unlike lengths (some empty), cut-offs at the
 * profile's own, at the pair's best and under it, so that lanes take
 * several passes, lock residues and end apart. */
START_TEST(test_random_search_lanes)
{
    tu_rng_t r;
    tu_rng_seed(&r, tu_seed() ^ 0x5ea4c8ull);
    char *text = malloc(1 << 16);
    ps_prf_work_t w = {0};
    enum { K = PS_PRF_SEARCH_LANES, MAXN = 1200 };
    uint8_t *letters = malloc(K * MAXN), *idx = malloc(K * MAXN);
    ps_prf_match_t *out[K] = {0}, *m = NULL;
    size_t cap[K] = {0}, mcap = 0;
    int pairs = 0, found = 0, several = 0;
    for (int g = 0; g < 300; g++) {
        ps_profile_t pr;
        tu_random_profile_read(&r, text, 1 << 16, g % 10 == 0 ? 120 : 30, g % 2, &pr);
        const int k = (int)tu_rng_range(&r, 1, K);
        const uint8_t *ix[K];
        uint32_t n[K];
        int32_t cut[K];
        int nm[K];
        for (int i = 0; i < k; i++) {
            /* Long ones too, the consensus in stretches: passes that run
             * past check points before a match is accepted. */
            n[i] = tu_rng_chance(&r, 5) ? 0 : (uint32_t)tu_rng_range(&r, 1, tu_rng_chance(&r, 30) ? MAXN : 260);
            near_consensus(&r, &pr, letters + i * MAXN, n[i]);
            ps_profile_index(&pr, letters + i * MAXN, n[i], idx + i * MAXN);
            ix[i] = idx + i * MAXN;
            const int32_t best = n[i] ? ps_profile_best(&pr, ix[i], n[i], &w) : PS_PRF_NLOW;
            const int how = (int)tu_rng_below(&r, 3);
            cut[i] = how == 0 ? pr.cut : how == 1 ? best : best - (int32_t)tu_rng_below(&r, 120);
        }
        ck_assert_int_eq(ps_profile_matches_lanes(&pr, k, ix, n, cut, &w, out, cap, nm), 0);
        for (int i = 0; i < k; i++) {
            const int want = ps_profile_matches(&pr, ix[i], n[i], cut[i], &w, &m, &mcap);
            ck_assert_int_ge(want, 0);
            ck_assert_msg(nm[i] == want, "group %d, pair %d of %d (profile length %u, sequence %u, cut %d, seed %llu): %d matches side by side, %d alone",
                          g, i, k, pr.len, n[i], cut[i], (unsigned long long)tu_seed(), nm[i], want);
            for (int h = 0; h < want; h++)
                ck_assert_msg(out[i][h].from == m[h].from && out[i][h].to == m[h].to && out[i][h].score == m[h].score &&
                                  out[i][h].pfrom == m[h].pfrom && out[i][h].pto == m[h].pto,
                              "group %d, pair %d, match %d (seed %llu): %u-%u %d [%d %d] side by side, %u-%u %d [%d %d] alone",
                              g, i, h, (unsigned long long)tu_seed(), out[i][h].from, out[i][h].to, out[i][h].score,
                              out[i][h].pfrom, out[i][h].pto, m[h].from, m[h].to, m[h].score, m[h].pfrom, m[h].pto);
            pairs++;
            found += want > 0;
            several += want > 1;
        }
        ps_profile_free(&pr);
    }
    /* The inputs find matches, several to a pair too. */
    ck_assert_msg(found * 4 > pairs && several * 20 > pairs, "%d pairs, %d with matches, %d with several (seed %llu)",
                  pairs, found, several, (unsigned long long)tu_seed());
    for (int i = 0; i < K; i++) free(out[i]);
    free(m);
    free(letters);
    free(idx);
    free(text);
    ps_prf_work_free(&w);
}
END_TEST

/* A random profile of large values: scores and transitions of thousands,
 * either sign, so that a lane's sums pass +32767 and -32768; transitions
 * I to D and D to I only where id_di. */
static size_t random_high_profile(tu_rng_t *r, char *t, size_t cap, int id_di)
{
    const int L = (int)tu_rng_range(r, 1, 24);
#define V(lo, hi) ((int)tu_rng_range(r, 0, (uint64_t)((hi) - (lo))) + (lo))
    size_t o = (size_t)snprintf(t, cap,
                                "ID   H; MATRIX.\nMA   /GENERAL_SPEC: ALPHABET='%s'; LENGTH=%d;\n"
                                "MA   /CUT_OFF: LEVEL=0; SCORE=1;\n"
                                "MA   /DEFAULT: D=%d; I=%d; B1=%d; E1=%d; MI=%d; MD=%d; IM=%d; DM=%d; MM=%d; M0=%d;\n",
                                ALPHA, L, V(-600, 600), V(-900, 300), V(-3000, 0), V(-3000, 0), V(-3000, 3000),
                                V(-3000, 3000), V(-3000, 3000), V(-3000, 3000), V(-1000, 4000), V(-500, 0));
    static const char *const keys[] = {"MI", "MD", "IM", "DM", "II", "MM", "DD", "ME", "IE", "DE", "E0", "I", "ID", "DI"};
    const uint64_t n_keys = sizeof keys / sizeof *keys - (id_di ? 0 : 2);
    for (int p = 0; p <= L; p++) {
        o += (size_t)snprintf(t + o, cap - o, "MA   /I:");
        for (int k = (int)tu_rng_below(r, 4); k > 0; k--)
            o += (size_t)snprintf(t + o, cap - o, " %s=%d;", keys[tu_rng_below(r, n_keys)], V(-4000, 4000));
        o += (size_t)snprintf(t + o, cap - o, "\n");
        if (p == L) break;
        o += (size_t)snprintf(t + o, cap - o, "MA   /M: SY='%c'; M=", ALPHA[tu_rng_below(r, 20)]);
        for (int i = 0; i < 20; i++) o += (size_t)snprintf(t + o, cap - o, "%s%d", i ? "," : "", V(-2000, 3000));
        o += (size_t)snprintf(t + o, cap - o, ";\n");
    }
#undef V
    o += (size_t)snprintf(t + o, cap - o, "//\n");
    return o;
}

/* Bundles of such profiles against sequences near their consensus: every
 * score equals the profile's best (in 32 bits) where that is above the
 * 16-bit floor, however far over +32767 its sums went. */
START_TEST(test_random_high_bundles)
{
    tu_rng_t r;
    tu_rng_seed(&r, tu_seed() ^ 0x41647ull);
    char *text = malloc(1 << 16);
    ps_prf_work_t w = {0};
    ps_profile_t pr[2 * PS_PRF_LANES];
    const ps_profile_t *lane[2 * PS_PRF_LANES];
    int32_t best[2 * PS_PRF_LANES], one[2 * PS_PRF_LANES];
    int compared = 0, over = 0, near = 0, lean = 0;
    for (int k = 0; k < 150; k++) {
        const int np = (int)tu_rng_range(&r, 1, 2 * PS_PRF_LANES);
        for (int i = 0; i < np; i++) {
            const size_t len = random_high_profile(&r, text, 1 << 16, k % 2);
            char why[256];
            ck_assert_msg(ps_profile_parse(&pr[i], text, len, 0, why, sizeof why) == 0, "%s", why);
            lane[i] = &pr[i];
        }
        ps_prf_bundle_t *b;
        ck_assert_int_eq(ps_prf_bundle_new(&b, lane, np), 0);
        lean += ps_prf_bundle_lean(b);
        for (int s = 0; s < 20; s++) {
            uint8_t letters[64];
            const uint32_t n = (uint32_t)tu_rng_range(&r, 1, 60);
            const ps_profile_t *like = &pr[tu_rng_below(&r, (uint64_t)np)];
            for (uint32_t i = 0; i < n; i++)
                letters[i] = tu_rng_chance(&r, 80) ? (uint8_t)(like->consensus[i % like->len] - 'A') : (uint8_t)tu_rng_below(&r, 26);
            check_bundle(b, pr, np, letters, n, k, &w, best, one);
            for (int i = 0; i < np; i++) {
                over += one[i] > 32767;
                near += one[i] > 16000 && one[i] <= 32767;
                compared++;
            }
        }
        ps_prf_bundle_free(b);
        for (int i = 0; i < np; i++) ps_profile_free(&pr[i]);
    }
    /* The inputs reach the top of 16 bits, and pass it; bundles of both
     * kinds (lean: the even ones and odd ones that drew no I to D or D to
     * I; their sums through those come over the begins now and then). */
    ck_assert_msg(over > 0 && near > 0, "%d of %d scores over 32767, %d over 16000 (seed %llu)", over, compared, near,
                  (unsigned long long)tu_seed());
    ck_assert_msg(lean >= 75 && lean < 150, "%d of 150 bundles lean (seed %llu)", lean, (unsigned long long)tu_seed());
    free(text);
    ps_prf_work_free(&w);
}
END_TEST

/* The profile of `text` scored over letters[0..n) alone (ps_profile_best)
 * and in a bundle of its own, whose ps_prf_bundle_lean goes to *lean
 * (unless NULL). */
static void alone_and_bundled(const char *text, const uint8_t *letters, uint32_t n, int32_t *alone, int32_t *bundled,
                              int *lean)
{
    ps_profile_t pr;
    char why[256];
    ck_assert_msg(ps_profile_parse(&pr, text, strlen(text), 0, why, sizeof why) == 0, "%s", why);
    const ps_profile_t *one = &pr;
    ps_prf_bundle_t *b;
    ck_assert_int_eq(ps_prf_bundle_new(&b, &one, 1), 0);
    if (lean) *lean = ps_prf_bundle_lean(b);
    uint8_t *idx = malloc(n);
    ck_assert_ptr_nonnull(idx);
    ps_prf_work_t w = {0};
    ps_prf_bundle_best(b, letters, n, bundled, &w);
    ps_profile_index(&pr, letters, n, idx);
    *alone = ps_profile_best(&pr, idx, n, &w);
    free(idx);
    ps_prf_bundle_free(b);
    ps_profile_free(&pr);
    ps_prf_work_free(&w);
}

/* A sum that met +32767 is never taken for a bundle's score: eleven
 * matches of 2,600 (28,600, under the lanes' margin) and a transition of
 * 4,500 from the eleventh to the twelfth make 33,100, which a 16-bit lane
 * holds at 32,767; the twelfth match's -1,500 then brings the lane under
 * the margin again, 300 under the true 31,600. The lane's margin takes its
 * largest transition into account, so the profile is scored exactly. */
START_TEST(test_bundle_high)
{
    char text[8192];
    size_t o = (size_t)snprintf(text, sizeof text,
                                "ID   TOP; MATRIX.\nMA   /GENERAL_SPEC: ALPHABET='%s'; LENGTH=12;\n"
                                "MA   /CUT_OFF: LEVEL=0; SCORE=1;\nMA   /DEFAULT: B1=0; E1=0;\n",
                                ALPHA);
    for (int p = 1; p <= 12; p++) {
        o += (size_t)snprintf(text + o, sizeof text - o, "MA   /I:%s\nMA   /M: SY='W'; M=", p == 12 ? " MM=4500;" : "");
        for (int i = 0; i < 20; i++)
            o += (size_t)snprintf(text + o, sizeof text - o, "%s%d", i ? "," : "", ALPHA[i] != 'W' ? -100 : p < 12 ? 2600 : -1500);
        o += (size_t)snprintf(text + o, sizeof text - o, ";\n");
    }
    snprintf(text + o, sizeof text - o, "MA   /I:\n//\n");
    uint8_t letters[12];
    for (int i = 0; i < 12; i++) letters[i] = 'W' - 'A';
    int32_t alone, best;
    alone_and_bundled(text, letters, 12, &alone, &best, NULL);
    ck_assert_int_eq(alone, 31600);
    ck_assert_int_eq(best, 31600);
}
END_TEST

/* A lean bundle's rows leave out the sums through I to D and D to I, and
 * must run in full where one of those could count. Two profiles whose
 * best path takes one (-16383, '*'; ends and begins left out are -12285,
 * pftools' floor): DTOI, a match of 12,000, a deletion, D to I and an
 * insertion of 12,000: 7,617 over "ACD..."; ITOD, a match and an insertion
 * of 12,000 each, I to D, then a match of 12,000: 19,617. Without those
 * terms their best would be -285 and 12,000. */
START_TEST(test_bundle_lean)
{
    static const char *const text[2] = {
        "ID   DTOI; MATRIX.\nMA   /GENERAL_SPEC: ALPHABET='ACD'; LENGTH=2;\nMA   /CUT_OFF: LEVEL=0; SCORE=1;\n"
        "MA   /DEFAULT: B0=0; B1=0; E0=0; E1=0; BI=*; BD=*; MI=*; MD=0; IM=*; ID=*; DM=*; DI=*; II=*; DD=*; ME=*; "
        "DE=*; IE=0; I=*; D=0;\n"
        "MA   /I:\nMA   /M: M=12000,*,*;\nMA   /I:\nMA   /M: M=*;\nMA   /I: I=12000;\n//\n",
        "ID   ITOD; MATRIX.\nMA   /GENERAL_SPEC: ALPHABET='ACD'; LENGTH=3;\nMA   /CUT_OFF: LEVEL=0; SCORE=1;\n"
        "MA   /DEFAULT: B0=0; B1=0; E0=0; E1=0; BI=*; BD=*; MI=0; MD=*; IM=*; ID=*; DM=0; DI=*; II=*; DD=*; ME=0; "
        "DE=*; IE=*; I=*; D=0;\n"
        "MA   /I:\nMA   /M: M=12000,*,*;\nMA   /I: I=12000;\nMA   /M: M=*;\nMA   /I:\nMA   /M: M=*,*,12000;\n"
        "MA   /I:\n//\n"};
    static const int32_t want[2] = {7617, 19617};
    for (int i = 0; i < 2; i++) /* a bundle each: its rows run in full or not as a whole */
        for (uint32_t n = 3; n <= 12; n++) { /* the path in sweeps of four rows and of one, and in the last row */
            uint8_t letters[12];
            for (uint32_t k = 0; k < n; k++) letters[k] = (uint8_t)((k == 0 ? 'A' : k == 1 ? 'C' : 'D') - 'A');
            int32_t alone, best;
            int lean;
            alone_and_bundled(text[i], letters, n, &alone, &best, &lean);
            ck_assert_int_eq(lean, 1);
            ck_assert_int_eq(alone, want[i]);
            ck_assert_msg(best == want[i], "%s, %u residues: %d in the bundle, %d alone", i ? "ITOD" : "DTOI", n, best,
                          want[i]);
        }
}
END_TEST

/* An exit at position 0 adds its term to the best of the rows' insertion
 * sums there; sums under the lanes' floor (-16383) must not be floored
 * before the term is added. Insertions at position 0 sum -18000 on every
 * row; their exit term is -16383 + 30000 (no end there, E1 being '*'
 * before N1): the true best is -4383 (every other path is lower), where a
 * floored sum would give -2766. */
START_TEST(test_bundle_exit_floor)
{
    static const char text[] =
        "ID   FLOOR; MATRIX.\nMA   /GENERAL_SPEC: ALPHABET='ACDEFGHIKLMNPQRSTVWY'; LENGTH=1;\n"
        "MA   /CUT_OFF: LEVEL=0; SCORE=1;\n"
        "MA   /DEFAULT: B0=*; B1=-9000; E0=*; E1=0; BI=0; BD=*; MI=*; MD=*; IM=*; ID=*; DM=*; DI=*; I=-9000;\n"
        "MA   /I: IE=30000;\nMA   /M: M=-9000;\nMA   /I:\n//\n";
    for (uint32_t n = 2; n <= 12; n++) { /* sweeps of four rows and of one */
        uint8_t letters[12];
        for (uint32_t i = 0; i < n; i++) letters[i] = (uint8_t)(ALPHA[i % 20] - 'A');
        int32_t alone, best;
        alone_and_bundled(text, letters, n, &alone, &best, NULL);
        ck_assert_int_eq(alone, -4383);
        ck_assert_msg(best == -4383, "%u residues: %d in the bundle, -4383 alone", n, best);
    }
}
END_TEST

/* Bundles of 1 to 4 * PS_PRF_LANES random profiles of unlike lengths, so
 * that lanes hold one profile or several end to end: each profile's score
 * is its best, or above it where sums met the 16-bit floor; the bundle's
 * positions are its fullest lane's. */
#define BUNDLE_MAX (4 * PS_PRF_LANES)
START_TEST(test_random_bundles)
{
    int compared = 0, saturated = 0, shared = 0, lean = 0;
    tu_rng_t r;
    tu_rng_seed(&r, tu_seed() ^ 0xb0d1e5ull);
    char *text = malloc(1 << 16);
    ps_prf_work_t w = {0};
    ps_profile_t *pr = malloc(sizeof *pr * BUNDLE_MAX);
    const ps_profile_t **lane = malloc(sizeof *lane * BUNDLE_MAX);
    int32_t *best = malloc(sizeof *best * BUNDLE_MAX), *one = malloc(sizeof *one * BUNDLE_MAX);
    for (int k = 0; k < 60; k++) {
        const int np = (int)tu_rng_range(&r, 1, k < 20 ? PS_PRF_LANES : BUNDLE_MAX);
        uint32_t positions = 0, longest = 0;
        for (int i = 0; i < np; i++) {
            size_t len = tu_random_profile(&r, text, 1 << 16, tu_rng_chance(&r, 20) ? 40 : 14, k % 2);
            char why[256];
            ck_assert_int_eq(ps_profile_parse(&pr[i], text, len, 0, why, sizeof why), 0);
            lane[i] = &pr[i];
            positions += pr[i].len + 1;
            longest = pr[i].len + 1 > longest ? pr[i].len + 1 : longest;
        }
        ps_prf_bundle_t *b;
        ck_assert_int_eq(ps_prf_bundle_new(&b, lane, np), 0);
        /* The longest first, each to the emptiest lane: no lane runs past
         * the average by more than the longest profile. */
        const uint32_t q = ps_prf_bundle_positions(b);
        ck_assert_msg(q >= longest && q >= (positions + PS_PRF_LANES - 1) / PS_PRF_LANES &&
                          q <= positions / PS_PRF_LANES + longest,
                      "%d profiles of %u positions, the longest %u: the bundle runs %u", np, positions, longest, q);
        if (np > PS_PRF_LANES) shared++;
        lean += ps_prf_bundle_lean(b);
        for (int s = 0; s < 10; s++) {
            char seq[120];
            uint8_t letters[120];
            const uint32_t n = (uint32_t)tu_rng_range(&r, 1, 110);
            const ps_profile_t *like = &pr[tu_rng_below(&r, (uint64_t)np)];
            for (uint32_t i = 0; i < n; i++)
                seq[i] = tu_rng_chance(&r, 50) ? like->consensus[i % like->len] : (char)('A' + tu_rng_below(&r, 26));
            for (uint32_t i = 0; i < n; i++) letters[i] = (uint8_t)(seq[i] - 'A');
            check_bundle(b, pr, np, letters, n, k, &w, best, one);
            for (int i = 0; i < np; i++) {
                if (best[i] != one[i]) saturated++;
                compared++;
            }
        }
        ps_prf_bundle_free(b);
        for (int i = 0; i < np; i++) ps_profile_free(&pr[i]);
    }
    ck_assert_msg(saturated * 10 < compared, "%d of %d profiles above their best (seed %llu)", saturated, compared,
                  (unsigned long long)tu_seed());
    ck_assert_int_gt(shared, 20);
    /* The even bundles, and the odd ones whose I to D and D to I are all
     * '*', are lean. */
    ck_assert_msg(lean >= 30 && lean < 60, "%d of 60 bundles lean (seed %llu)", lean, (unsigned long long)tu_seed());
    free(pr);
    free(lane);
    free(best);
    free(one);
    free(text);
    ps_prf_work_free(&w);
}
END_TEST

/* The GPU search's own code (profile_gpu.cu's wavefront: a warp a pair,
 * lane t on a strip of positions one row behind lane t - 1, lane 31's
 * decisions), run on the host lane after lane: each pair's matches, in
 * order, with their residues and scores, those of ps_profile_matches, or
 * -1 where it has more than PS_GPROF_MATCHES. Profiles of 1 to 30
 * positions (strips of one position, lanes left empty) and up to 400
 * (strips of 13), protected ranges anywhere; sequences of 1 to 1,200
 * residues, the consensus in stretches or scattered, cut-offs at the
 * profile's own, at the pair's best and under it, so that passes restart,
 * lock residues and run past check points. Needs a build with CUDA. */
START_TEST(test_gpu_search_host)
{
    tu_rng_t r;
    tu_rng_seed(&r, tu_seed() ^ 0x3a7e51ull);
    char *text = malloc(1 << 17);
    ps_prf_work_t w = {0};
    enum { MAXN = 1200 };
    uint8_t *letters = malloc(MAXN), *idx = malloc(MAXN);
    ps_prf_match_t gm[PS_GPROF_MATCHES], *m = NULL;
    size_t mcap = 0;
    int pairs = 0, found = 0, several = 0, over = 0;
    ck_assert(text && letters && idx);
    for (int g = 0; g < 160; g++) {
        ps_profile_t pr;
        tu_random_profile_read(&r, text, 1 << 17, g % 8 == 0 ? 400 : 30, g % 2, &pr);
        for (int q = 0; q < 4; q++) {
            const uint32_t n = (uint32_t)tu_rng_range(&r, 1, tu_rng_chance(&r, 30) ? MAXN : 260);
            near_consensus(&r, &pr, letters, n);
            ps_profile_index(&pr, letters, n, idx);
            const int32_t best = ps_profile_best(&pr, idx, n, &w);
            const int how = (int)tu_rng_below(&r, 3);
            const int32_t cut = how == 0 ? pr.cut : how == 1 ? best : best - (int32_t)tu_rng_below(&r, 120);
            int32_t nm = 0;
            ps_err_t err = {0};
            ck_assert_msg(ps_gprof_matches_host(&pr, letters, n, cut, &nm, gm, &err) == 0, "%s", err.msg);
            const int want = ps_profile_matches(&pr, idx, n, cut, &w, &m, &mcap);
            ck_assert_int_ge(want, 0);
            pairs++;
            if (want > PS_GPROF_MATCHES) {
                ck_assert_msg(nm == -1, "profile %d (length %u), sequence of %u, seed %llu: %d matches, the kernel says %d",
                              g, pr.len, n, (unsigned long long)tu_seed(), want, nm);
                over++;
                continue;
            }
            ck_assert_msg(nm == want, "profile %d (length %u, N1 %u, N2 %u), sequence of %u, cut %d, seed %llu: the kernel %d matches, ps_profile_matches %d",
                          g, pr.len, pr.n1, pr.n2, n, cut, (unsigned long long)tu_seed(), nm, want);
            for (int h = 0; h < want; h++)
                ck_assert_msg(gm[h].from == m[h].from && gm[h].to == m[h].to && gm[h].score == m[h].score,
                              "profile %d, match %d (seed %llu): the kernel %u-%u %d, ps_profile_matches %u-%u %d", g, h,
                              (unsigned long long)tu_seed(), gm[h].from, gm[h].to, gm[h].score, m[h].from, m[h].to,
                              m[h].score);
            found += want > 0;
            several += want > 1;
        }
        ps_profile_free(&pr);
    }
    ck_assert_msg(found * 4 > pairs && several * 20 > pairs, "%d pairs, %d with matches, %d with several (seed %llu)",
                  pairs, found, several, (unsigned long long)tu_seed());
    (void)over;
    free(m);
    free(letters);
    free(idx);
    free(text);
    ps_prf_work_free(&w);
}
END_TEST

/* The GPU's best-score kernel for long sequences (profile_gpu.cu's
 * wave_best_kernel: a warp a pair, lanes on strips of positions), run on
 * the host lane after lane: ps_profile_best of each pair, profiles of 1
 * to 400 positions, sequences of 1 to 3,000 residues (the kernel takes
 * those of PS_GPROF_WAVE_FROM or more; its code takes any). Needs a build
 * with CUDA. */
START_TEST(test_gpu_wave_best_host)
{
    tu_rng_t r;
    tu_rng_seed(&r, tu_seed() ^ 0xbe57ull);
    char *text = malloc(1 << 17);
    ps_prf_work_t w = {0};
    enum { MAXN = 3000 };
    uint8_t *letters = malloc(MAXN), *idx = malloc(MAXN);
    ck_assert(text && letters && idx);
    int pairs = 0;
    for (int g = 0; g < 80; g++) {
        ps_profile_t pr;
        tu_random_profile_read(&r, text, 1 << 17, g % 8 == 0 ? 400 : 40, g % 2, &pr);
        for (int q = 0; q < 3; q++) {
            const uint32_t n = (uint32_t)tu_rng_range(&r, 1, tu_rng_chance(&r, 30) ? MAXN : 300);
            for (uint32_t j = 0; j < n; j++)
                letters[j] = tu_rng_chance(&r, 60) ? (uint8_t)(pr.consensus[j % pr.len] - 'A')
                                                   : (uint8_t)tu_rng_below(&r, 26);
            ps_profile_index(&pr, letters, n, idx);
            int32_t got = 0;
            ps_err_t err = {0};
            ck_assert_msg(ps_gprof_best_host(&pr, letters, n, &got, &err) == 0, "%s", err.msg);
            const int32_t want = ps_profile_best(&pr, idx, n, &w);
            ck_assert_msg(got == want, "profile %d (length %u), sequence of %u, seed %llu: the kernel %d, ps_profile_best %d",
                          g, pr.len, n, (unsigned long long)tu_seed(), got, want);
            pairs++;
        }
        ps_profile_free(&pr);
    }
    ck_assert_int_eq(pairs, 240);
    free(letters);
    free(idx);
    free(text);
    ps_prf_work_free(&w);
}
END_TEST

/* A profile whose search accepts the same match again and again: two
 * positions, one residue scoring 21500 over a cut-off of 3450, against
 * the one-residue protein G (its acceptance locks no new residue). The
 * search must end at PS_PRF_MAX_MATCHES, as pfscanV3 ends (1,023 rows:
 * 21500 once, then 5117), one pair at a time and side by side. */
START_TEST(test_endless_search)
{
    FILE *f = fopen(TU_SRCDIR "/tests/fuzz/endless.dat", "rb");
    ck_assert_ptr_nonnull(f);
    char text[4096];
    const size_t len = fread(text, 1, sizeof text, f);
    fclose(f);
    ps_profile_t pr;
    char why[256];
    ck_assert_int_eq(ps_profile_parse(&pr, text, len, 0, why, sizeof why), 0);
    const uint8_t letters[2] = {'G' - 'A', 'G' - 'A'};
    uint8_t idx[2];
    ps_profile_index(&pr, letters, 1, idx);
    idx[1] = idx[0];
    ps_prf_work_t w = {0};
    ps_prf_match_t *m = NULL;
    size_t cap = 0;
    const int nm = ps_profile_matches(&pr, idx, 1, pr.cut, &w, &m, &cap);
    ck_assert_int_eq(nm, PS_PRF_MAX_MATCHES);
    ck_assert_int_eq(m[0].score, 21500);
    for (int i = 1; i < nm; i++) ck_assert(m[i].score == 5117 && m[i].from == 1 && m[i].to == 1);
    const uint8_t *li[2] = {idx, idx};
    const uint32_t ln[2] = {1, 1};
    const int32_t lc[2] = {pr.cut, pr.cut};
    ps_prf_match_t *lm[2] = {NULL, NULL};
    size_t lcap[2] = {0, 0};
    int lnm[2];
    ck_assert_int_eq(ps_profile_matches_lanes(&pr, 2, li, ln, lc, &w, lm, lcap, lnm), 0);
    for (int k = 0; k < 2; k++) {
        ck_assert_int_eq(lnm[k], nm);
        for (int i = 0; i < nm; i++) ck_assert(lm[k][i].score == m[i].score && lm[k][i].to == m[i].to);
        free(lm[k]);
    }
    free(m);
    ps_prf_work_free(&w);
    ps_profile_free(&pr);
}
END_TEST

Suite *suite_profile(void)
{
    Suite *s = suite_create("profile");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_parse);
    tcase_add_test(tc, test_random_best);
    tcase_add_test(tc, test_random_bundles);
    tcase_add_test(tc, test_bundle_barrier);
    tcase_add_test(tc, test_bundle_high);
    tcase_add_test(tc, test_bundle_exit_floor);
    tcase_add_test(tc, test_bundle_lean);
    tcase_add_test(tc, test_random_high_bundles);
    tcase_add_test(tc, test_random_search_lanes);
    tcase_add_test(tc, test_endless_search);
    suite_add_tcase(s, tc);
    return s;
}

/* The GPU search's code on the host: needs a build with CUDA, not a GPU. */
Suite *suite_gpu_host(int *n_checks)
{
    Suite *s = suite_create("gpu_host");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 300);
    TU_ADD_TEST(tc, test_gpu_search_host, n_checks);
    TU_ADD_TEST(tc, test_gpu_wave_best_host, n_checks);
    suite_add_tcase(s, tc);
    return s;
}
