# The Cortex-M code every target shares (firmware/arch/cortex-m/), included by a target's
# target.cmake before it lists its sources:
#   LAB_ARCH_DIR              this folder: startup.c (vectors, reset, fault capture) for
#                             LAB_TARGET_SOURCES
#   LAB_TARGET_INCLUDES       + this folder: lab_cortex_m.h (registers),
#                             lab_cortex_m_target.h (exit, IRQ API, stack bounds: included
#                             by the board's target.c), lab_cortex_m_board.h (what
#                             the real boards without UART or timer share),
#                             lab_probe_impl.h (after the
#                             target's own folder, so a target may replace it)
#   LAB_TARGET_LINK_DIRS      + this folder: the linker finds cortex_m_sections.ld, which
#                             the target's linker.ld INCLUDEs
#   LAB_TARGET_LINK_DEPENDS   + cortex_m_sections.ld (a change relinks)
set(LAB_ARCH_DIR ${CMAKE_CURRENT_LIST_DIR})
list(APPEND LAB_TARGET_INCLUDES ${LAB_ARCH_DIR})
list(APPEND LAB_TARGET_LINK_DIRS ${LAB_ARCH_DIR})
list(APPEND LAB_TARGET_LINK_DEPENDS ${LAB_ARCH_DIR}/cortex_m_sections.ld)
