/* The GPU engine's entry points in a build without CUDA: nothing is usable. */
#include "engine_gpu.h"
#include "engine_pattern_gpu.h"
#include "profile_gpu.h"

#include <stdio.h>

/* Why this build has no CUDA, as the Makefile knew it (NO_CUDA=1, no nvcc). */
#ifndef PS_NO_CUDA_WHY
#define PS_NO_CUDA_WHY "no nvcc"
#endif

int ps_gpu_device_present(void) { return 0; }

int ps_gpu_count(void) { return 0; }

int ps_gpu_usable(int device, char *why, size_t why_len)
{
    (void)device;
    if (why && why_len) snprintf(why, why_len, "this probescan was built without CUDA (" PS_NO_CUDA_WHY ")");
    return 0;
}

void ps_gpu_versions(char *buf, size_t len)
{
    if (buf && len) snprintf(buf, len, "built without CUDA (" PS_NO_CUDA_WHY ")");
}

const char *const *ps_gpu_kernel_names(void)
{
    static const char *const none[] = {NULL};
    return none;
}

int ps_gpu_engine_new(ps_engine_t **out, const ps_automaton_t *a, int device, const char *kernel,
                      int host_threads, ps_err_t *err)
{
    (void)a, (void)device, (void)kernel, (void)host_threads;
    *out = NULL;
    return ps_fail(err, PS_E_GPU, "GPU engine unavailable: this probescan was built without CUDA");
}

int ps_gpu_kmer_engine_new(ps_engine_t **out, const ps_kmerset_t *ks, int device, int host_threads, ps_err_t *err)
{
    (void)ks, (void)device, (void)host_threads;
    *out = NULL;
    return ps_fail(err, PS_E_GPU, "GPU engine unavailable: this probescan was built without CUDA");
}

int ps_gpu_pattern_engine_new(ps_engine_t **out, const ps_patset_t *ps, int gpu_id, int workers, ps_err_t *err)
{
    (void)ps, (void)gpu_id, (void)workers;
    *out = NULL;
    return ps_fail(err, PS_E_GPU, "GPU pattern engine unavailable: this probescan was built without CUDA");
}

int ps_gpu_bulge_engine_new(ps_engine_t **out, const ps_bulgeset_t *b, int gpu_id, int workers, ps_err_t *err)
{
    (void)b, (void)gpu_id, (void)workers;
    *out = NULL;
    return ps_fail(err, PS_E_GPU, "GPU bulge engine unavailable: this probescan was built without CUDA");
}

int ps_gprof_new(ps_gprof_t **out, const ps_profile_t *prs, uint32_t n_prof, int gpu_id, ps_err_t *err)
{
    (void)prs, (void)n_prof, (void)gpu_id;
    *out = NULL;
    return ps_fail(err, PS_E_GPU, "GPU profile engine unavailable: this probescan was built without CUDA");
}

int ps_gprof_best(ps_gprof_t *g, const uint8_t *letters, uint64_t n_letters, const uint64_t *off, const uint32_t *len,
                  uint32_t n_seq, int32_t *best, ps_err_t *err)
{
    (void)g, (void)letters, (void)n_letters, (void)off, (void)len, (void)n_seq, (void)best;
    return ps_fail(err, PS_E_GPU, "GPU profile engine unavailable: this probescan was built without CUDA");
}

int ps_gprof_matches(ps_gprof_t *g, const uint8_t *letters, uint64_t n_letters, const ps_gprof_pair_t *pairs,
                     uint32_t n_pair, int32_t *n_match, ps_prf_match_t *match, ps_err_t *err)
{
    (void)g, (void)letters, (void)n_letters, (void)pairs, (void)n_pair, (void)n_match, (void)match;
    return ps_fail(err, PS_E_GPU, "GPU profile engine unavailable: this probescan was built without CUDA");
}

void ps_gprof_free(ps_gprof_t *g) { (void)g; }

int ps_gprof_matches_host(const ps_profile_t *pr, const uint8_t *letters, uint32_t n, int32_t cut, int32_t *n_match,
                          ps_prf_match_t *match, ps_err_t *err)
{
    (void)pr, (void)letters, (void)n, (void)cut, (void)n_match, (void)match;
    return ps_fail(err, PS_E_GPU, "the GPU search's code is not built: this probescan was built without CUDA");
}

int ps_gprof_best_host(const ps_profile_t *pr, const uint8_t *letters, uint32_t n, int32_t *best, ps_err_t *err)
{
    (void)pr, (void)letters, (void)n, (void)best;
    return ps_fail(err, PS_E_GPU, "the GPU search's code is not built: this probescan was built without CUDA");
}
