/*
 * a_aligned: 20 aligned allocations of 100 B at each alignment 16, 32, 64, 128, 256, each
 * filled, checked and freed (alloc_wl_aligned).
 * Measures: the aligned allocation and the free, each between its own probes.
 * Self-check: the address is a multiple of the alignment; placement and contents checks.
 * Needs LAB_ALLOC_HAS_ALIGNED (rtoslab reports the others n/a with the allocator's reason).
 */
#include "alloc_workload.h"

#if !LAB_ALLOC_HAS_ALIGNED
#error "a_aligned needs LAB_ALLOC_HAS_ALIGNED"
#endif

ALLOC_ALIGNED_META()

void lab_bench_run(void)
{
    alloc_wl_init();
    alloc_wl_aligned();
}
