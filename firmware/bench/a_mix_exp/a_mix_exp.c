/*
 * a_mix_exp: a random mix of request sizes (about exponential, mean 64 B, cut at 512 B) with lifetimes of 1..200 steps
 * (uniform), at most 64 blocks live, 3000 steps, seeded (LAB_ALLOC_SEED, LAB-KV alloc_seed).
 * Measures: malloc and free per size class its sizes fall in (small <= 64 B, medium
 * <= 512 B, large).
 * Reports (LAB-KV): mix_allocs, mix_failures, peak_used_bytes, frag_permille_max.
 * Self-check: placement and contents of every block (alloc_workload.c).
 */
#include "alloc_workload.h"

ALLOC_MIX_META_SMALL()
ALLOC_MIX_META_MEDIUM()

void lab_bench_run(void)
{
    alloc_wl_init();
    alloc_wl_mix(ALLOC_DIST_EXPONENTIAL, 3000u, 200u);
    alloc_wl_free_all();
}
