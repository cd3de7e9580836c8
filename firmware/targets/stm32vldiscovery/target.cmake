# stm32vldiscovery: the target's sources and linker script. Its facts (cpu, clock, priority
# bits, probe region, memory regions) are in target.toml; rtoslab passes them in.
# The Cortex-M code every target shares (startup, IRQ API, probe, linker sections):
include(${LAB_ROOT}/arch/cortex-m/arch.cmake)
# The STM32 USART registers and console (firmware/boards/stm32/):
list(APPEND LAB_TARGET_INCLUDES ${LAB_ROOT}/boards/stm32)
set(LAB_TARGET_SOURCES ${LAB_ARCH_DIR}/startup.c ${LAB_TARGET_DIR}/target.c)
set(LAB_TARGET_LINKER_SCRIPT ${LAB_TARGET_DIR}/linker.ld)
