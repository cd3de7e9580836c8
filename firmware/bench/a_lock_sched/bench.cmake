# The allocation workloads, the build's allocator (LAB_ALLOC) and the interrupt-latency
# trigger (workloads/irq_latency).
include(${LAB_ROOT}/workloads/alloc/alloc_bench.cmake)
list(APPEND LAB_BENCH_INCLUDES ${LAB_ROOT}/workloads/irq_latency)
