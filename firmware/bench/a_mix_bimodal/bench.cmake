# The allocation workloads and the build's allocator (LAB_ALLOC, default tlsf).
include(${LAB_ROOT}/workloads/alloc/alloc_bench.cmake)
