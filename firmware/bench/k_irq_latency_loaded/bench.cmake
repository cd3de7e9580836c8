# Shared background load (firmware/workloads/bg_load).
set(LAB_BENCH_SOURCES ${LAB_ROOT}/workloads/bg_load/bg_load.c)
set(LAB_BENCH_INCLUDES ${LAB_ROOT}/workloads/bg_load)
