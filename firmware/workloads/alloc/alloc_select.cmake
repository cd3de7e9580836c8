# Picks the allocator of this build and loads its folder (firmware/allocators/<name>/).
# Inputs: LAB_ROOT (firmware/), LAB_DEFINES (the build's NAME=VALUE list; LAB_ALLOC=<name>
# chooses, tlsf without it), LAB_DEPS_<CRATE> (third-party folders, passed by rtoslab),
# LAB_ALLOC_HOST (set by tests/host/alloc: build for the host).
# Outputs (from the allocator's alloc.cmake): LAB_ALLOC, LAB_ALLOC_DIR, LAB_ALLOC_SOURCES
# (ours: strict warnings), LAB_ALLOC_THIRD_PARTY_SOURCES (theirs: own warning level, plus
# LAB_ALLOC_THIRD_PARTY_OPTIONS), LAB_ALLOC_INCLUDES, LAB_ALLOC_DEFINES (both kinds),
# LAB_ALLOC_OBJECTS (prebuilt objects or archives to link), LAB_ALLOC_HOST_NA (why no host build).
set(LAB_ALLOC_ROOT ${LAB_ROOT}/allocators)
set(LAB_ALLOC tlsf)
foreach(def IN LISTS LAB_DEFINES)
  if(def MATCHES "^LAB_ALLOC=(.*)$")
    set(LAB_ALLOC ${CMAKE_MATCH_1})
  endif()
endforeach()
set(LAB_ALLOC_DIR ${LAB_ALLOC_ROOT}/${LAB_ALLOC})
if(NOT EXISTS ${LAB_ALLOC_DIR}/alloc.cmake)
  file(GLOB lab_alloc_known RELATIVE ${LAB_ALLOC_ROOT} ${LAB_ALLOC_ROOT}/*/alloc.cmake)
  list(TRANSFORM lab_alloc_known REPLACE "/alloc.cmake$" "")
  string(REPLACE ";" ", " lab_alloc_known "${lab_alloc_known}")
  message(FATAL_ERROR "unknown allocator '${LAB_ALLOC}' (LAB_ALLOC): choose one of ${lab_alloc_known}")
endif()

# lab_alloc_require_dep(crate var): var = the fetched crate's folder, or a clear stop.
macro(lab_alloc_require_dep crate var)
  string(TOUPPER "LAB_DEPS_${crate}" lab_alloc_dep_var)
  string(REPLACE "-" "_" lab_alloc_dep_var ${lab_alloc_dep_var})
  if(NOT ${lab_alloc_dep_var} OR NOT EXISTS "${${lab_alloc_dep_var}}")
    message(FATAL_ERROR "allocator ${LAB_ALLOC}: ${lab_alloc_dep_var} is not set: rtoslab passes "
                        "the folder of crate ${crate} (deps/Cargo.toml, fetched by `make setup`)")
  endif()
  set(${var} ${${lab_alloc_dep_var}})
endmacro()

# lab_alloc_toolchain_lib(file var): var = the toolchain's library `file` (libc.a, libm.a)
# of the multilib that matches the target's cpu flags, or a clear stop.
macro(lab_alloc_toolchain_lib file var)
  execute_process(COMMAND ${CMAKE_C_COMPILER} ${LAB_TARGET_CPU_FLAGS} -print-file-name=${file}
                  OUTPUT_VARIABLE ${var} OUTPUT_STRIP_TRAILING_WHITESPACE)
  if(NOT IS_ABSOLUTE "${${var}}" OR NOT EXISTS "${${var}}")
    message(FATAL_ERROR "allocator ${LAB_ALLOC}: the compiler names no ${file} for "
                        "${LAB_TARGET_CPU_FLAGS}: install libnewlib-arm-none-eabi (make setup)")
  endif()
endmacro()

set(LAB_ALLOC_OBJECTS "")
set(LAB_ALLOC_HOST_NA "")
include(${LAB_ALLOC_DIR}/alloc.cmake)
