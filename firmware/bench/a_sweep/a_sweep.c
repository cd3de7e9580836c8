/*
 * a_sweep: malloc/free pairs of each size of ALLOC_SWEEP_SIZES (8 B .. 4 KiB), 50 per
 * size, on an empty heap (right after init), with the build's allocator (LAB_ALLOC).
 * Measures: each malloc(size) and each free between its own pair of probes.
 * Self-check: every block lies in the region, is aligned and keeps its contents
 * (alloc_workload.c); no malloc may fail on the empty heap (sweep_failures 0 for every
 * allocator that serves 4 KiB from a 32 KiB heap).
 */
#include "alloc_workload.h"

ALLOC_SWEEP_META()

void lab_bench_run(void)
{
    alloc_wl_init();
    alloc_wl_report_state("empty");
    alloc_wl_sweep(50u);
}
