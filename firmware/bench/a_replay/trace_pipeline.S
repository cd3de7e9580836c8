/* The recorded pipeline trace (workloads/alloc/traces/pipeline.trace, written by
 * scripts/alloc_trace.py), embedded as read-only data: 4-byte aligned words. */
    .section .rodata.alloc_trace_pipeline, "a"
    .balign 4
    .global alloc_trace_pipeline
alloc_trace_pipeline:
    .incbin "pipeline.trace"
