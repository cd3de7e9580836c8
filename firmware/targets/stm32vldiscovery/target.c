/* stm32vldiscovery (STM32F100) implementation of lab/target.h: the benchmark timer and
 * the output register (the console: firmware/boards/stm32/stm32_console.h). */
#include <stdint.h>

#include "lab/target.h"
#include "lab_board.h"
#include "lab_cortex_m.h"

/* lab_target_init and the console on USART1, shared by the STM32 targets. */
#include "stm32_console.h"

/* lab_target_exit (semihosting), the IRQ API, the main stack's bounds and the software
 * IRQ lines: the same on every Cortex-M target, defined here, inside this file, so that
 * the timer code below may have lab_target_irq_install/remove inlined
 * (lab_cortex_m_target.h). */
#include "lab_cortex_m_target.h"

/* No benchmark timer: QEMU's stm32vldiscovery models none of the part's timers (TIM1 ..
 * TIM17 are unimplemented-device stubs that never interrupt), and SysTick belongs to the
 * kernel. lab_target_timer_start() reports that it cannot start (the benchmark's check
 * fails with that reason); README.md lists the benchmarks this affects. */
#include "lab_cortex_m_no_timer.h"

volatile uint32_t *lab_target_output_reg(void) { return &USART_BRR(USART3_BASE); }
