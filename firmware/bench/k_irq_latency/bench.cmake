# The interrupt-latency measurement shared with k_irq_latency_loaded
# (firmware/workloads/irq_latency, header only).
set(LAB_BENCH_INCLUDES ${LAB_ROOT}/workloads/irq_latency)
