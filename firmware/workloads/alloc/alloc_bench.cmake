# Shared by the allocation benchmarks (firmware/bench/a_*/bench.cmake): the workload
# library (this folder) and the build's allocator (alloc_select.cmake).
include(${LAB_ROOT}/workloads/alloc/alloc_select.cmake)
set(LAB_BENCH_SOURCES ${LAB_ROOT}/workloads/alloc/alloc_workload.c ${LAB_ALLOC_SOURCES}
    ${LAB_ALLOC_THIRD_PARTY_SOURCES} ${LAB_ALLOC_OBJECTS})
set(LAB_BENCH_INCLUDES ${LAB_ROOT}/workloads/alloc ${LAB_ROOT}/workloads/alloc/traces ${LAB_ALLOC_INCLUDES})
if(LAB_ALLOC_DEFINES)
  set_source_files_properties(${LAB_ALLOC_SOURCES} ${LAB_ALLOC_THIRD_PARTY_SOURCES}
                              PROPERTIES COMPILE_DEFINITIONS "${LAB_ALLOC_DEFINES}")
endif()
if(LAB_ALLOC_THIRD_PARTY_SOURCES)
  # third-party code keeps its own warning level (as kernel sources do)
  set_source_files_properties(${LAB_ALLOC_THIRD_PARTY_SOURCES} PROPERTIES
                              COMPILE_OPTIONS "-w;-Wno-error;${LAB_ALLOC_THIRD_PARTY_OPTIONS}")
endif()
if(LAB_ALLOC_OBJECTS)
  set_source_files_properties(${LAB_ALLOC_OBJECTS} PROPERTIES EXTERNAL_OBJECT TRUE GENERATED TRUE)
endif()
