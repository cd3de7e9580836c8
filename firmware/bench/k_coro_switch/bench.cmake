# The coroutine executor (header-only: the idle hook below is this benchmark's).
set(LAB_BENCH_INCLUDES ${LAB_ROOT}/workloads/coro)
