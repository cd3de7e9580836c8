# mps2-an521: the target's sources and linker script. Its facts (cpu, clock, priority
# bits, probe region, memory regions) are in target.toml; rtoslab passes them in.
set(LAB_TARGET_SOURCES ${LAB_TARGET_DIR}/startup.c ${LAB_TARGET_DIR}/target.c)
set(LAB_TARGET_LINKER_SCRIPT ${LAB_TARGET_DIR}/linker.ld)
