# pool: our fixed-block pool (alloc_pool.c; block size LAB_ALLOC_POOL_BLOCK, default 4096).
set(LAB_ALLOC_SOURCES ${LAB_ALLOC_DIR}/alloc_pool.c)
set(LAB_ALLOC_THIRD_PARTY_SOURCES "")
set(LAB_ALLOC_INCLUDES ${LAB_ALLOC_DIR})
set(LAB_ALLOC_THIRD_PARTY_OPTIONS "")
set(LAB_ALLOC_DEFINES "")
