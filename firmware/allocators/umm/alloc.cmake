# umm: umm_malloc from the crate umm-malloc-sys (deps/Cargo.toml), unmodified; our adapter
# alloc_umm.c and configuration lab_umm_cfg.h. umm_malloc.c #includes its umm_info.c etc.
lab_alloc_require_dep(umm-malloc-sys LAB_UMM_DIR)
set(LAB_ALLOC_SOURCES ${LAB_ALLOC_DIR}/alloc_umm.c ${LAB_ALLOC_DIR}/umm_sqrtf.c)
set(LAB_ALLOC_THIRD_PARTY_SOURCES ${LAB_UMM_DIR}/umm_malloc/src/umm_malloc.c)
set(LAB_ALLOC_INCLUDES ${LAB_ALLOC_DIR} ${LAB_UMM_DIR}/umm_malloc/src)
# umm_info's fragmentation metric (lab_alloc_stats does not use it) calls sqrtf; the
# images link no libm, so that call goes to umm_sqrtf.c
set(LAB_ALLOC_DEFINES "UMM_CFGFILE=<lab_umm_cfg.h>" sqrtf=lab_umm_sqrtf)
set(LAB_ALLOC_THIRD_PARTY_OPTIONS "")
