/* tests/fuzz/profile.c - a libFuzzer target for PROSITE profiles: the
 * parser (profile.c), the best score, the exact search one pair at a time
 * and side by side, and the bundles' 16-bit rows (profile_dp.c,
 * profile_lanes.c).
 *
 * Input: a MATRIX entry (its lines, ID to //), then a line "SQ", then the
 * protein's letters (anything that is not a letter left out, as the
 * scanner leaves it out). An entry the parser refuses ends the run there.
 * What must hold for every entry it reads, whatever its values:
 *   - every call returns (libFuzzer's -timeout catches a search that does
 *     not) within bounded memory (-rss_limit_mb);
 *   - the search finds at most PS_PRF_MAX_MATCHES matches, each a stretch
 *     of the sequence (or the place between two residues) scoring at or
 *     above the cut-off and no more than the
 *     best score;
 *   - the lanes (three copies of the pair side by side) find the same
 *     matches as the search one pair at a time;
 *   - a bundle's score is never under the exact best.
 *
 *   make fuzz FUZZ_SECONDS=1800      (clang with libFuzzer; ASan and UBSan) */
#include "profile.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The entry's end: the start of the "SQ" line, or the input's end. */
static size_t entry_end(const uint8_t *d, size_t n)
{
    for (size_t i = 0; i + 2 <= n; i++)
        if ((i == 0 || d[i - 1] == '\n') && d[i] == 'S' && d[i + 1] == 'Q') return i;
    return n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > 1u << 16) return 0;
    const size_t cut = entry_end(data, size);
    ps_profile_t pr;
    char why[256];
    if (ps_profile_parse(&pr, (const char *)data, cut, 0, why, sizeof why) != 0) return 0;
    /* The protein: letters past the SQ line, as letter numbers 0..25. */
    uint8_t *letters = malloc(size - cut + 1), *idx = malloc(size - cut + 1);
    if (!letters || !idx) abort();
    uint32_t n = 0;
    for (size_t i = cut + 2; i < size; i++) {
        const uint8_t c = data[i];
        if ((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z')) letters[n++] = (uint8_t)((c & 0xDF) - 'A');
    }
    ps_profile_index(&pr, letters, n, idx);
    ps_prf_work_t w = {0};
    const int32_t best = ps_profile_best(&pr, idx, n, &w);
    const int32_t cutoff = ps_profile_cutoff(&pr, n);

    ps_prf_match_t *m = NULL;
    size_t cap = 0;
    const int found = ps_profile_matches(&pr, idx, n, cutoff, &w, &m, &cap);
    if (found < 0 || found > PS_PRF_MAX_MATCHES) abort();
    for (int i = 0; i < found; i++)
        if (m[i].from < 1 || m[i].to > n || m[i].from > m[i].to + 1 || m[i].score < cutoff || m[i].score > best) abort();

    enum { K = 3 };
    const uint8_t *li[K];
    uint32_t ln[K];
    int32_t lc[K];
    ps_prf_match_t *lm[K] = {0};
    size_t lcap[K] = {0};
    int nm[K];
    for (int k = 0; k < K; k++) li[k] = idx, ln[k] = n, lc[k] = cutoff;
    if (ps_profile_matches_lanes(&pr, K, li, ln, lc, &w, lm, lcap, nm) < 0) abort();
    for (int k = 0; k < K; k++) {
        if (nm[k] != found) abort();
        for (int i = 0; i < found; i++)
            if (lm[k][i].from != m[i].from || lm[k][i].to != m[i].to || lm[k][i].score != m[i].score ||
                lm[k][i].pfrom != m[i].pfrom || lm[k][i].pto != m[i].pto)
                abort();
        free(lm[k]);
    }

    const ps_profile_t *one = &pr;
    ps_prf_bundle_t *b = NULL;
    if (ps_prf_bundle_new(&b, &one, 1) == 0) {
        int32_t bb = 0;
        ps_prf_bundle_best(b, letters, n, &bb, &w);
        if (bb != INT32_MIN && bb < best) abort();
        ps_prf_bundle_free(b);
    }
    free(m);
    ps_prf_work_free(&w);
    free(letters);
    free(idx);
    ps_profile_free(&pr);
    return 0;
}
