# A source file that does not exist: this benchmark's CMake configuration fails.
set(LAB_BENCH_SOURCES ${CMAKE_CURRENT_LIST_DIR}/missing.c)
