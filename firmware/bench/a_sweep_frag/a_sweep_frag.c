/*
 * a_sweep_frag: as a_sweep, on a fragmented heap: alloc_wl_fragment hands out a quarter of the
 * heap as pairs of 16..96 B blocks and frees one of each pair, leaving ~75 holes.
 * Measures: each malloc(size) and free between its own pair of probes. Comparing with
 * a_sweep shows which allocators' worst case depends on heap state.
 * Self-check: placement and contents of every block (alloc_workload.c).
 */
#include "alloc_workload.h"

ALLOC_SWEEP_META()

void lab_bench_run(void)
{
    alloc_wl_init();
    alloc_wl_fragment();
    alloc_wl_sweep(50u);
}
