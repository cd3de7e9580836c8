# mps2-an505: the target's sources and linker script. Its facts (cpu, clock, priority
# bits, probe region, memory regions) are in target.toml; rtoslab passes them in.
# The Cortex-M code every target shares (startup, IRQ API, probe, linker sections):
include(${LAB_ROOT}/arch/cortex-m/arch.cmake)
# The board code every MPS2 FPGA image shares (CMSDK UART and timer, FPGA I/O):
set(LAB_MPS2_DIR ${LAB_ROOT}/boards/mps2)
list(APPEND LAB_TARGET_INCLUDES ${LAB_MPS2_DIR})
set(LAB_TARGET_SOURCES ${LAB_ARCH_DIR}/startup.c ${LAB_MPS2_DIR}/mps2_target.c)
set(LAB_TARGET_LINKER_SCRIPT ${LAB_TARGET_DIR}/linker.ld)
