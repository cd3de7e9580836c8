# arduino-uno: the target's sources and linker script. Its facts (part, clock, probe
# region, exit window, memory regions) are in target.toml; rtoslab passes them in.
include(${LAB_ROOT}/arch/avr/arch.cmake)
set(LAB_TARGET_SOURCES ${LAB_TARGET_DIR}/target.c)
set(LAB_TARGET_LINKER_SCRIPT ${LAB_TARGET_DIR}/linker.ld)
