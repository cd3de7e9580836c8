# heap5: FreeRTOS's heap_5.c (heap_4's algorithm over caller-given regions) from the crate
# freertos-next, unmodified; the settings (configuration, renames) are heap4's.
include(${LAB_ALLOC_ROOT}/heap4/alloc.cmake)
set(LAB_ALLOC_SOURCES ${LAB_ALLOC_DIR}/alloc_heap5.c)
set(LAB_ALLOC_THIRD_PARTY_SOURCES ${LAB_ALLOC_DIR}/lab_heap_5.c)
