# The FTL core (firmware/workloads/ftl/core), the shared host side (ftl/app) and this
# build's glue. Shared settings: ftl/app/ftl_app.cmake.
include(${LAB_ROOT}/workloads/ftl/app/ftl_app.cmake)
set(LAB_BENCH_SOURCES ${LAB_FTL_APP_SOURCES})
set(LAB_BENCH_INCLUDES ${LAB_FTL_APP_INCLUDES})
