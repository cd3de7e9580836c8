# mps2-an385: Cortex-M3. Everything target-specific the build needs.
set(LAB_TARGET_CPU_FLAGS -mcpu=cortex-m3 -mthumb -mfloat-abi=soft)
set(LAB_TARGET_SOURCES ${LAB_TARGET_DIR}/startup.c ${LAB_TARGET_DIR}/target.c)
set(LAB_TARGET_LINKER_SCRIPT ${LAB_TARGET_DIR}/linker.ld)
if(NOT DEFINED LAB_TARGET_CLOCK_HZ)
  set(LAB_TARGET_CLOCK_HZ 25000000)
endif()
set(LAB_TARGET_DEFINES LAB_TARGET_CLOCK_HZ=${LAB_TARGET_CLOCK_HZ}u)
