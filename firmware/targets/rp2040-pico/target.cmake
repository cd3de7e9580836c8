# rp2040-pico: the target's sources and linker script. Its facts (cpu, clock, priority bits,
# probe mode and buffer, memory regions) are in target.toml; rtoslab passes them in.
# The Cortex-M code every target shares (startup, IRQ API, probe, linker sections):
include(${LAB_ROOT}/arch/cortex-m/arch.cmake)
set(LAB_TARGET_SOURCES ${LAB_ARCH_DIR}/startup.c ${LAB_TARGET_DIR}/target.c)
set(LAB_TARGET_LINKER_SCRIPT ${LAB_TARGET_DIR}/linker.ld)
