# Shared workload code (firmware/workloads/toggle); the kernel comes through lab/port.h.
set(LAB_BENCH_SOURCES ${LAB_ROOT}/workloads/toggle/toggle.c)
set(LAB_BENCH_INCLUDES ${LAB_ROOT}/workloads/toggle)
