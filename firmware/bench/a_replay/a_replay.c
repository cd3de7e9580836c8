/*
 * a_replay: the allocation trace of the packet/message pipeline (alloc_pipeline.h: receive
 * buffers, descriptors, copies of small packets, a 12-deep transmit queue), recorded once
 * on the host into workloads/alloc/traces/pipeline.trace, replayed on the build's
 * allocator: the same request sequence for every allocator.
 * Measures: each malloc and each free of the trace between its own probes.
 * Reports: replay_events, replay_failures, peak_used_bytes (LAB-KV).
 * Self-check: placement and contents of every block (alloc_workload.c); the trace header.
 */
#include "alloc_workload.h"

ALLOC_REPLAY_META()

extern const uint32_t alloc_trace_pipeline[];

void lab_bench_run(void)
{
    alloc_wl_init();
    alloc_wl_replay(alloc_trace_pipeline);
}
