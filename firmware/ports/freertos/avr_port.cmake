# FreeRTOS on the AVR (included by port.cmake for an AVR target): the kernel's GCC/ATMega323
# port, adapted to the ATmega328P and to rtoslab's target seam. Three changes to the
# kernel's port.c, each made at a place found by name (a function, a symbol), never by a
# diff quoting the kernel's text; a place not found stops the configure step naming it.
# The patched copy is written to the build folder; the fetched sources are not touched.
#
#  1. prvSetupTimerInterrupt's body becomes lab_target_tick_start(configTICK_RATE_HZ):
#     the target owns timer 1 (the ATMega323's TIMSK is TIMSK1 on the 328P, and the
#     target programs the timer in CTC mode at the core clock, lab/target.h).
#  2. The tick ISR TIMER1_COMPA_vect is renamed SysTick_Handler: the target's vector for
#     timer 1 compare A jumps to that name (firmware/targets/arduino-uno/target.c), as on
#     every target the kernel's tick handler has the CMSIS name.
#  3. vPortYieldFromTick calls lab_tick_hook_enter() right after it saved the context and
#     lab_tick_hook_exit() right before it restores one (lab/port.h tick hooks, defined
#     weak in port_freertos.c), so the hooks bracket the kernel's tick work as on Arm.
set(lab_avr_src ${LAB_FREERTOS_PORTABLE}/port.c)
set(lab_avr_out ${CMAKE_CURRENT_BINARY_DIR}/freertos-avr/port.c)
file(READ ${lab_avr_src} lab_text)

function(lab_avr_fail what)
  message(FATAL_ERROR "kernel freertos (AVR): ${lab_avr_src}: ${what} not found: the kernel's "
                      "ATMega323 port changed; adapt ports/freertos/avr_port.cmake")
endfunction()

# 1. The timer setup's body.
string(REGEX MATCH "static void prvSetupTimerInterrupt\\( void \\)[ \t\r\n]*{[^}]*}" lab_m "${lab_text}")
if(NOT lab_m)
  lab_avr_fail("the definition of prvSetupTimerInterrupt")
endif()
string(REPLACE "${lab_m}" "static void prvSetupTimerInterrupt( void )\n{\n    /* rtoslab: the target starts the tick (lab/target.h). */\n    ( void ) lab_target_tick_start( ( uint32_t ) configTICK_RATE_HZ );\n}" lab_text "${lab_text}")

# 2. The tick ISR's name.
string(FIND "${lab_text}" "TIMER1_COMPA_vect" lab_at)
if(lab_at EQUAL -1)
  lab_avr_fail("the tick ISR TIMER1_COMPA_vect")
endif()
string(REPLACE "TIMER1_COMPA_vect" "SysTick_Handler" lab_text "${lab_text}")

# 3. The tick hooks in vPortYieldFromTick (its first context save and restore).
string(FIND "${lab_text}" "void vPortYieldFromTick( void )\n{" lab_at)
if(lab_at EQUAL -1)
  lab_avr_fail("the definition of vPortYieldFromTick")
endif()
string(SUBSTRING "${lab_text}" 0 ${lab_at} lab_head)
string(SUBSTRING "${lab_text}" ${lab_at} -1 lab_tail)
# (No CMake lists here: the statements' semicolons would split them.)
function(lab_avr_first_replace from to)
  string(FIND "${lab_tail}" "${from}" i)
  if(i EQUAL -1)
    lab_avr_fail("${from} in vPortYieldFromTick")
  endif()
  string(LENGTH "${from}" n)
  string(SUBSTRING "${lab_tail}" 0 ${i} a)
  math(EXPR j "${i} + ${n}")
  string(SUBSTRING "${lab_tail}" ${j} -1 b)
  set(lab_tail "${a}${to}${b}" PARENT_SCOPE)
endfunction()
lab_avr_first_replace("portSAVE_CONTEXT();" "portSAVE_CONTEXT();\n    lab_tick_hook_enter(); /* rtoslab */")
lab_avr_first_replace("portRESTORE_CONTEXT();" "lab_tick_hook_exit(); /* rtoslab */\n    portRESTORE_CONTEXT();")
set(lab_text "/* Patched by rtoslab (ports/freertos/avr_port.cmake) from ${LAB_FREERTOS_ARCH_NAME}/port.c. */\n#include <stdint.h>\nint lab_target_tick_start(uint32_t hz);\nvoid lab_tick_hook_enter(void);\nvoid lab_tick_hook_exit(void);\n${lab_head}${lab_tail}")

# Written only when it changed (no needless rebuilds); the configure step reruns when the
# kernel's port.c or this script changes.
set(lab_old "")
if(EXISTS ${lab_avr_out})
  file(READ ${lab_avr_out} lab_old)
endif()
if(NOT lab_old STREQUAL lab_text)
  file(WRITE ${lab_avr_out} "${lab_text}")
endif()
set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${lab_avr_src} ${CMAKE_CURRENT_LIST_FILE})
set(LAB_FREERTOS_PORTABLE_SOURCES ${lab_avr_out})
