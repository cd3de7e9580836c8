/*
 * a_lock_sched: the allocation lab's lock experiment (workloads/alloc/alloc_contend.h, which
 * says what runs, what is measured and what is checked) with the strategy
 * scheduler suspended.
 */
#include "lab/bench.h"

#define ALLOC_LOCK ALLOC_LOCK_SCHED
#include "alloc_contend.h"

void lab_bench_run(void) { alloc_contend_run(); }
