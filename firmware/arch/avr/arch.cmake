# The AVR code every AVR target shares (firmware/arch/avr/), included by a target's
# target.cmake before it lists its sources:
#   LAB_ARCH_DIR              this folder
#   LAB_TARGET_INCLUDES       + this folder: lab_probe_impl.h (the probe: one STS), after
#                             the target's own folder, so a target may replace it
#   LAB_TARGET_LINK_DIRS      + this folder: the linker finds avr_sections.ld, which the
#                             target's linker.ld INCLUDEs
#   LAB_TARGET_LINK_DEPENDS   + avr_sections.ld (a change relinks)
#   LAB_TARGET_DEFINES        + LAB_TARGET_EXIT_WINDOW (target.toml exit_window): the
#                             data-space window whose stores end the emulator
# Startup (vectors, stack pointer, .data copy, .bss clear) is avr-libc's crt for the -mmcu
# part, linked as usual; the vectors jump to the __vector_N handlers a target defines.
set(LAB_ARCH_DIR ${CMAKE_CURRENT_LIST_DIR})
list(APPEND LAB_TARGET_INCLUDES ${LAB_ARCH_DIR})
list(APPEND LAB_TARGET_LINK_DIRS ${LAB_ARCH_DIR})
list(APPEND LAB_TARGET_LINK_DEPENDS ${LAB_ARCH_DIR}/avr_sections.ld)
if(NOT DEFINED LAB_TARGET_EXIT_WINDOW OR "${LAB_TARGET_EXIT_WINDOW}" STREQUAL "")
  message(FATAL_ERROR "LAB_TARGET_EXIT_WINDOW is not set: rtoslab passes it from target.toml exit_window")
endif()
list(APPEND LAB_TARGET_DEFINES LAB_TARGET_EXIT_WINDOW=${LAB_TARGET_EXIT_WINDOW})
