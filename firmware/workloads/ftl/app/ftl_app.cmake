# Sources shared by every build of the FTL firmware (ftl_os, ftl_fsm): the core and the
# host side. Included from their bench.cmake.
set(LAB_FTL_CORE ${LAB_ROOT}/workloads/ftl/core)
file(GLOB LAB_FTL_CORE_SOURCES CONFIGURE_DEPENDS ${LAB_FTL_CORE}/*.c)
set(LAB_FTL_APP_SOURCES ${LAB_FTL_CORE_SOURCES} ${LAB_ROOT}/workloads/ftl/app/ftl_app.c)
set(LAB_FTL_APP_INCLUDES ${LAB_FTL_CORE} ${LAB_ROOT}/workloads/ftl/app)
# The simulated chip (page data and spare records) lives in the target's bulk memory
# (lab/target.h LAB_TARGET_BULK): it is the NAND, not the microcontroller's RAM.
set_source_files_properties(${LAB_FTL_CORE}/nand_sim.c PROPERTIES COMPILE_DEFINITIONS
                            "FTL_NAND_STORAGE_ATTR=__attribute__((section(\".bss.lab_bulk\")))")
