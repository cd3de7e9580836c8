# FreeRTOS SMP on rtoslab's own ARMv8-M mainline SMP port. The kernel's sources come from
# the crate freertos-next or the user's tree (LAB_KERNEL_SOURCE_DIR, as for the freertos port); the portable
# layer is this folder's (portmacro.h is found on the include path through LAB_PORT_DIR);
# the lab/port.h layer is the freertos port's port_freertos.c, compiled for SMP: port.toml
# declares `base = "freertos"`, so rtoslab passes that port's folder as LAB_PORT_BASE_DIR
# (also on the include path after this folder: its lab_port_types.h serves both).
# The kernel's folder: LAB_KERNEL_SOURCE_DIR, which rtoslab passes (port.toml [kernel_source]):
# the pinned crate's FreeRTOS-Kernel/ folder, or the user's tree (--kernel-source DIR).
if(NOT LAB_KERNEL_SOURCE_DIR)
  message(FATAL_ERROR
    "kernel freertos-smp: LAB_KERNEL_SOURCE_DIR is not set. rtoslab passes it (the folder "
    "FreeRTOS-Kernel/ of the crate freertos-next from `cargo metadata --manifest-path "
    "deps/Cargo.toml`, or --kernel-source DIR); when running CMake by hand add "
    "-DLAB_KERNEL_SOURCE_DIR=<that folder>, after `make setup`.")
endif()
set(LAB_FREERTOS_KERNEL ${LAB_KERNEL_SOURCE_DIR})
if(NOT EXISTS ${LAB_FREERTOS_KERNEL}/tasks.c)
  message(FATAL_ERROR
    "kernel freertos-smp: ${LAB_FREERTOS_KERNEL}/tasks.c does not exist: LAB_KERNEL_SOURCE_DIR "
    "must be a FreeRTOS-Kernel folder")
endif()
if(NOT LAB_KERNEL_CONFIG_DIR OR NOT EXISTS ${LAB_KERNEL_CONFIG_DIR}/FreeRTOSConfig.h)
  message(FATAL_ERROR
    "kernel freertos-smp: no FreeRTOSConfig.h in LAB_KERNEL_CONFIG_DIR ('${LAB_KERNEL_CONFIG_DIR}'): "
    "rtoslab renders it from ports/freertos-smp/FreeRTOSConfig.h.in; build through rtoslab")
endif()
# The portable layer is written for ARMv8-M mainline (PSPLIM, Secure-only EXC_RETURN).
if(NOT LAB_TARGET_CPU STREQUAL "cortex-m33")
  message(FATAL_ERROR
    "kernel freertos-smp: the port is written for ARMv8-M mainline (cortex-m33); target "
    "${LAB_TARGET} has cpu '${LAB_TARGET_CPU}': use mps2-an521")
endif()

if(NOT LAB_PORT_BASE_DIR OR NOT EXISTS ${LAB_PORT_BASE_DIR}/port_freertos.c)
  message(FATAL_ERROR
    "kernel freertos-smp: LAB_PORT_BASE_DIR ('${LAB_PORT_BASE_DIR}') is not the freertos "
    "port's folder: rtoslab passes it from port.toml's base; build through rtoslab")
endif()
set(LAB_PORT_SOURCES
    ${LAB_PORT_DIR}/port_smp.c
    ${LAB_PORT_DIR}/port_smp_asm.S
    ${LAB_PORT_BASE_DIR}/port_freertos.c)
set(LAB_PORT_KERNEL_SOURCES
    ${LAB_FREERTOS_KERNEL}/tasks.c
    ${LAB_FREERTOS_KERNEL}/list.c
    ${LAB_FREERTOS_KERNEL}/queue.c
    ${LAB_FREERTOS_KERNEL}/timers.c
    ${LAB_FREERTOS_KERNEL}/portable/MemMang/heap_4.c)
set(LAB_PORT_INCLUDES ${LAB_FREERTOS_KERNEL}/include)
