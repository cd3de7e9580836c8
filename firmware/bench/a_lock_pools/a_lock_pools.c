/*
 * a_lock_pools: the allocation lab's lock experiment (workloads/alloc/alloc_contend.h, which
 * says what runs, what is measured and what is checked) with the strategy
 * per-task fixed-block pools (no shared heap, no lock).
 */
#include "lab/bench.h"

#define ALLOC_LOCK ALLOC_LOCK_POOLS
#include "alloc_contend.h"

void lab_bench_run(void) { alloc_contend_run(); }
