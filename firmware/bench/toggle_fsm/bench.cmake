# Shared workload code (firmware/workloads/toggle) and the execution-model framework.
set(LAB_BENCH_SOURCES ${LAB_ROOT}/workloads/toggle/toggle.c ${LAB_ROOT}/workloads/exec_models/fsm.c)
set(LAB_BENCH_INCLUDES ${LAB_ROOT}/workloads/toggle ${LAB_ROOT}/workloads/exec_models)
