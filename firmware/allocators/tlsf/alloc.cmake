# tlsf: our two-level segregated fit allocator (alloc_tlsf.c). No third-party sources.
# Sets the allocator interface of firmware/workloads/alloc/alloc_select.cmake.
set(LAB_ALLOC_SOURCES ${LAB_ALLOC_DIR}/alloc_tlsf.c)
set(LAB_ALLOC_THIRD_PARTY_SOURCES "")
set(LAB_ALLOC_INCLUDES ${LAB_ALLOC_DIR})
set(LAB_ALLOC_THIRD_PARTY_OPTIONS "")
set(LAB_ALLOC_DEFINES "")
