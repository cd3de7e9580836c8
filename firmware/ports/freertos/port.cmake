# FreeRTOS: the kernel's own sources come from the crate freertos-next, which cargo fetched,
# or from the user's tree; our port code is port_freertos.c.
# The kernel's folder (LAB_FREERTOS_KERNEL) and its rendered configuration, checked:
include(${LAB_PORT_DIR}/freertos_kernel.cmake)

# FreeRTOS's architecture seam is its portable/GCC/<arch> folder. Which one fits a target
# is kernel knowledge, so it lives here, keyed by the target's cpu and fpu (target.toml,
# passed as LAB_TARGET_CPU / LAB_TARGET_FPU). The CM3 port also serves a Cortex-M4 without
# FPU, as FreeRTOS documents. Add a line for a new core; port_freertos.c uses only the
# kernel's portable API.
set(LAB_FREERTOS_ARCH_cortex-m3_none ARM_CM3)
set(LAB_FREERTOS_ARCH_cortex-m4_none ARM_CM3)
set(LAB_FREERTOS_ARCH_cortex-m4_fpv4-sp-d16 ARM_CM4F)
set(LAB_FREERTOS_ARCH_cortex-m0_none ARM_CM0)
set(LAB_FREERTOS_ARCH_cortex-m0plus_none ARM_CM0)
# ARMv8-M mainline: the port without TrustZone support, run Secure-only
# (configRUN_FREERTOS_SECURE_ONLY in FreeRTOSConfig.h.in); with or without the FPU.
set(LAB_FREERTOS_ARCH_cortex-m33_none ARM_CM33_NTZ/non_secure)
set(LAB_FREERTOS_ARCH_cortex-m33_fpv5-sp-d16 ARM_CM33_NTZ/non_secure)
# The ATmega328P (Arduino Uno): the kernel's ATMega323 port, adapted by avr_port.cmake.
set(LAB_FREERTOS_ARCH_atmega328p_none ATMega323)
set(LAB_FREERTOS_ARCH_VAR LAB_FREERTOS_ARCH_${LAB_TARGET_CPU}_${LAB_TARGET_FPU})
if(NOT DEFINED ${LAB_FREERTOS_ARCH_VAR})
  message(FATAL_ERROR
    "kernel freertos: no FreeRTOS port for cpu '${LAB_TARGET_CPU}' with fpu '${LAB_TARGET_FPU}' "
    "(target.toml of ${LAB_TARGET}): add set(${LAB_FREERTOS_ARCH_VAR} <portable/GCC folder>) "
    "to ports/freertos/port.cmake")
endif()
set(LAB_FREERTOS_ARCH_NAME ${${LAB_FREERTOS_ARCH_VAR}})
set(LAB_FREERTOS_PORTABLE ${LAB_FREERTOS_KERNEL}/portable/GCC/${LAB_FREERTOS_ARCH_NAME})
# Every C file of the folder: ARM_CM3 and ARM_CM4F have port.c only; the ARMv6-M and
# ARMv8-M folders add portasm.c (the handlers) and mpu_wrappers_v2_asm.c (empty without
# the MPU).
file(GLOB LAB_FREERTOS_PORTABLE_SOURCES ${LAB_FREERTOS_PORTABLE}/*.c)
# Those ports name their tick handler SysTick_Handler themselves; port_freertos.c defines
# SysTick_Handler around xPortSysTickHandler (the tick hooks), as the older ports name it.
# So their port.c is compiled with the older name.
file(STRINGS ${LAB_FREERTOS_PORTABLE}/port.c LAB_FREERTOS_OWN_SYSTICK REGEX "^void SysTick_Handler\\( void \\)")
if(LAB_FREERTOS_OWN_SYSTICK)
  set_source_files_properties(${LAB_FREERTOS_PORTABLE}/port.c PROPERTIES
                              COMPILE_DEFINITIONS SysTick_Handler=xPortSysTickHandler)
endif()

if(LAB_FREERTOS_ARCH_NAME STREQUAL "ATMega323")
  include(${LAB_PORT_DIR}/avr_port.cmake)  # replaces LAB_FREERTOS_PORTABLE_SOURCES
endif()

set(LAB_PORT_SOURCES ${LAB_PORT_DIR}/port_freertos.c)
set(LAB_PORT_KERNEL_SOURCES
    ${LAB_FREERTOS_KERNEL}/tasks.c
    ${LAB_FREERTOS_KERNEL}/list.c
    ${LAB_FREERTOS_KERNEL}/queue.c
    ${LAB_FREERTOS_KERNEL}/timers.c
    ${LAB_FREERTOS_PORTABLE_SOURCES}
    ${LAB_FREERTOS_KERNEL}/portable/MemMang/heap_4.c)
set(LAB_PORT_INCLUDES
    ${LAB_FREERTOS_KERNEL}/include
    ${LAB_FREERTOS_PORTABLE})
