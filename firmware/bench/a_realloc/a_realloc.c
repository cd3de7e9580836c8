/*
 * a_realloc: realloc in 48 B steps, two blocks grown in turn (so growing in place is not
 * always possible) from 16 B to 4 KiB, then shrunk back (alloc_wl_realloc).
 * Measures: each growing and each shrinking realloc between its own probes.
 * Self-check: the kept prefix of every block is intact after each call; placement checks.
 * Needs LAB_ALLOC_HAS_REALLOC (rtoslab reports the others n/a with the allocator's reason).
 */
#include "alloc_workload.h"

#if !LAB_ALLOC_HAS_REALLOC
#error "a_realloc needs LAB_ALLOC_HAS_REALLOC"
#endif

ALLOC_REALLOC_META()

void lab_bench_run(void)
{
    alloc_wl_init();
    alloc_wl_realloc();
}
