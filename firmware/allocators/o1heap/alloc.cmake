# o1heap: from the crate o1heap (deps/Cargo.toml), unmodified; our adapter alloc_o1heap.c.
# Its assertions are off on the target (a release build), on for the host tests.
lab_alloc_require_dep(o1heap LAB_O1HEAP_DIR)
set(LAB_ALLOC_SOURCES ${LAB_ALLOC_DIR}/alloc_o1heap.c)
set(LAB_ALLOC_THIRD_PARTY_SOURCES ${LAB_O1HEAP_DIR}/o1heap/o1heap/o1heap.c)
set(LAB_ALLOC_INCLUDES ${LAB_ALLOC_DIR} ${LAB_O1HEAP_DIR}/o1heap/o1heap)
set(LAB_ALLOC_THIRD_PARTY_OPTIONS "")
if(LAB_ALLOC_HOST)
  set(LAB_ALLOC_DEFINES "")
else()
  set(LAB_ALLOC_DEFINES "O1HEAP_CONFIG_HEADER=<lab_o1heap_cfg.h>")
endif()
