# XCORE_HAND_OVER, shared by the cross-core benchmarks (firmware/workloads/xcore,
# header only).
set(LAB_BENCH_INCLUDES ${LAB_ROOT}/workloads/xcore)
