# The throughput suite's shared start and report (firmware/workloads/throughput).
set(LAB_BENCH_SOURCES ${LAB_ROOT}/workloads/throughput/tp.c)
set(LAB_BENCH_INCLUDES ${LAB_ROOT}/workloads/throughput)
