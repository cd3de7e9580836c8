# newlib: newlib's full malloc as the toolchain ships it in libc.a. The image links
# newlib-nano (--specs=nano.specs, cmake/flags.toml), so the full library's malloc objects
# are taken out of the libc.a matching the target's cpu flags and linked ahead of it:
# they define _malloc_r, _free_r, ... and libc_nano's versions are then never pulled in.
# The adapter is newlib_nano's alloc_newlib.c (_sbrk over the region). Target only.
if(LAB_ALLOC_HOST)
  set(LAB_ALLOC_HOST_NA "newlib is prebuilt for ARM only (libc.a)")
endif()
set(LAB_ALLOC_SOURCES ${LAB_ALLOC_ROOT}/newlib_nano/alloc_newlib.c)
set(LAB_ALLOC_THIRD_PARTY_SOURCES "")
set(LAB_ALLOC_INCLUDES ${LAB_ALLOC_DIR})
set(LAB_ALLOC_DEFINES "")
set(LAB_ALLOC_THIRD_PARTY_OPTIONS "")
if(NOT LAB_ALLOC_HOST)
  lab_alloc_toolchain_lib(libc.a lab_newlib_libc)
  set(lab_newlib_objs lib_a-mallocr.o lib_a-freer.o lib_a-reallocr.o lib_a-malignr.o
      lib_a-mallinfor.o)
  set(lab_newlib_dir ${CMAKE_BINARY_DIR}/alloc_newlib_full)
  file(MAKE_DIRECTORY ${lab_newlib_dir})
  execute_process(COMMAND ${CMAKE_AR} x ${lab_newlib_libc} ${lab_newlib_objs}
                  WORKING_DIRECTORY ${lab_newlib_dir} RESULT_VARIABLE lab_newlib_rc)
  if(NOT lab_newlib_rc EQUAL 0)
    message(FATAL_ERROR "allocator newlib: could not extract ${lab_newlib_objs} from ${lab_newlib_libc}")
  endif()
  list(TRANSFORM lab_newlib_objs PREPEND ${lab_newlib_dir}/)
  set(LAB_ALLOC_OBJECTS ${lab_newlib_objs})
endif()
