# Shared background load (firmware/workloads/bg_load) and the interrupt-latency
# measurement (firmware/workloads/irq_latency, header only).
set(LAB_BENCH_SOURCES ${LAB_ROOT}/workloads/bg_load/bg_load.c)
set(LAB_BENCH_INCLUDES ${LAB_ROOT}/workloads/bg_load ${LAB_ROOT}/workloads/irq_latency)
