# newlib_nano: the toolchain's newlib-nano malloc (the image links --specs=nano.specs,
# cmake/flags.toml) over our _sbrk (alloc_newlib.c). Target only: no host build.
if(LAB_ALLOC_HOST)
  set(LAB_ALLOC_HOST_NA "newlib-nano is prebuilt for ARM only (libc_nano.a)")
endif()
set(LAB_ALLOC_SOURCES ${LAB_ALLOC_DIR}/alloc_newlib.c)
set(LAB_ALLOC_THIRD_PARTY_SOURCES "")
set(LAB_ALLOC_INCLUDES ${LAB_ALLOC_DIR})
set(LAB_ALLOC_DEFINES "")
set(LAB_ALLOC_THIRD_PARTY_OPTIONS "")
