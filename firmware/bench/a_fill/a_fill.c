/*
 * a_fill: how much of the heap the allocator hands out before the first failure.
 * Fills the heap with blocks of 16, 64, 256 and 1024 B in turn until malloc fails
 * (LAB-KV fill_<size>_count, _permille of the heap handed out, _overhead bytes per block
 * where the allocator reports free bytes), freeing all between; then a bimodal mix that
 * allocates twice as often as it frees until its first failure (mix_fail_*).
 * Measures: successful mallocs while filling, and the failing malloc (for list-walking
 * allocators the slowest call: it searches every free block).
 * Self-check: placement and contents of every block; the failing call returns NULL.
 */
#include "alloc_workload.h"

ALLOC_FILL_META()

void lab_bench_run(void)
{
    alloc_wl_init();
    alloc_wl_fill(16u);
    alloc_wl_fill(64u);
    alloc_wl_fill(256u);
    alloc_wl_fill(1024u);
    alloc_wl_mix_to_failure(ALLOC_DIST_BIMODAL);
}
