# FreeRTOS: the kernel's own sources come from the crate freertos-next, which cargo fetched
# (rtoslab passes its folder as LAB_DEPS_FREERTOS_NEXT); our port code is port_freertos.c.
if(NOT LAB_DEPS_FREERTOS_NEXT)
  message(FATAL_ERROR
    "kernel freertos: LAB_DEPS_FREERTOS_NEXT is not set. rtoslab passes it (the folder of "
    "the crate freertos-next from `cargo metadata --manifest-path deps/Cargo.toml`); when "
    "running CMake by hand add -DLAB_DEPS_FREERTOS_NEXT=<that folder>, after `make setup`.")
endif()
set(LAB_FREERTOS_KERNEL ${LAB_DEPS_FREERTOS_NEXT}/FreeRTOS-Kernel)
if(NOT EXISTS ${LAB_FREERTOS_KERNEL}/tasks.c)
  message(FATAL_ERROR
    "kernel freertos: ${LAB_FREERTOS_KERNEL}/tasks.c does not exist: LAB_DEPS_FREERTOS_NEXT "
    "must be the folder of crate freertos-next (it contains FreeRTOS-Kernel/)")
endif()
if(NOT LAB_KERNEL_CONFIG_DIR OR NOT EXISTS ${LAB_KERNEL_CONFIG_DIR}/FreeRTOSConfig.h)
  message(FATAL_ERROR
    "kernel freertos: no FreeRTOSConfig.h in LAB_KERNEL_CONFIG_DIR ('${LAB_KERNEL_CONFIG_DIR}'): "
    "rtoslab renders it from ports/freertos/FreeRTOSConfig.h.in; build through rtoslab")
endif()

set(LAB_PORT_SOURCES ${LAB_PORT_DIR}/port_freertos.c)
set(LAB_PORT_KERNEL_SOURCES
    ${LAB_FREERTOS_KERNEL}/tasks.c
    ${LAB_FREERTOS_KERNEL}/list.c
    ${LAB_FREERTOS_KERNEL}/queue.c
    ${LAB_FREERTOS_KERNEL}/timers.c
    ${LAB_FREERTOS_KERNEL}/portable/GCC/ARM_CM3/port.c
    ${LAB_FREERTOS_KERNEL}/portable/MemMang/heap_4.c)
set(LAB_PORT_INCLUDES
    ${LAB_FREERTOS_KERNEL}/include
    ${LAB_FREERTOS_KERNEL}/portable/GCC/ARM_CM3)
