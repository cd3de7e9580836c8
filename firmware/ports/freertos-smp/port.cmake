# FreeRTOS SMP on rtoslab's own ARMv8-M mainline SMP port. The kernel's sources come from
# the crate freertos-next or the user's tree (LAB_KERNEL_SOURCE_DIR, as for the freertos port); the portable
# layer is this folder's (portmacro.h is found on the include path through LAB_PORT_DIR);
# the lab/port.h layer is the freertos port's port_freertos.c, compiled for SMP: port.toml
# declares `base = "freertos"`, so rtoslab passes that port's folder as LAB_PORT_BASE_DIR
# (also on the include path after this folder: its lab_port_types.h serves both).
if(NOT LAB_PORT_BASE_DIR OR NOT EXISTS ${LAB_PORT_BASE_DIR}/port_freertos.c)
  message(FATAL_ERROR
    "kernel freertos-smp: LAB_PORT_BASE_DIR ('${LAB_PORT_BASE_DIR}') is not the freertos "
    "port's folder: rtoslab passes it from port.toml's base; build through rtoslab")
endif()
# The kernel's folder (LAB_FREERTOS_KERNEL) and its rendered configuration, checked as the
# freertos port checks them:
include(${LAB_PORT_BASE_DIR}/freertos_kernel.cmake)
# The portable layer is written for ARMv8-M mainline (PSPLIM, Secure-only EXC_RETURN).
if(NOT LAB_TARGET_CPU STREQUAL "cortex-m33")
  message(FATAL_ERROR
    "kernel freertos-smp: the port is written for ARMv8-M mainline (cortex-m33); target "
    "${LAB_TARGET} has cpu '${LAB_TARGET_CPU}': use mps2-an521")
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
