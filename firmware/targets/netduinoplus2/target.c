/* netduinoplus2 (STM32F405) implementation of lab/target.h: the benchmark timer and the
 * output register (the console: firmware/boards/stm32/stm32_console.h). */
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

static lab_irq_handler_t lab_timer_handler;

/* QEMU clocks the STM32F4 timers at a fixed 1 GHz of virtual time (hw/arm/stm32f405_soc.c
 * sets the timers' clock-frequency property; the real part clocks TIM2 from APB1 x 2 =
 * 84 MHz at 168 MHz). A period in core cycles is converted to timer ticks of that clock
 * through the rate at which QEMU runs the machine's CPU clock (LAB_TARGET_MACHINE_HZ: on
 * the one clock one core cycle is 1 / LAB_TARGET_MACHINE_HZ of virtual time, whatever
 * core clock the image is built for; docs/timing-model.md, "One clock"). */
#define STM32_TIM_QEMU_HZ 1000000000ull

static void lab_target_timer_isr(void)
{
    TIM_SR = ~TIM_SR_UIF & 0xFFFFu; /* rc_w0: writing 0 clears the update flag */
    lab_timer_handler();
}

int lab_target_timer_start(uint32_t period, lab_irq_handler_t handler, uint32_t priority)
{
    if (period == 0u || handler == 0) {
        return -1;
    }
    uint64_t ticks = ((uint64_t)period * STM32_TIM_QEMU_HZ) / (uint64_t)LAB_TARGET_MACHINE_HZ;
    if (ticks < 2u || ticks > 0xFFFFFFFFull) {
        return -1;
    }
    lab_target_timer_stop();
    lab_timer_handler = handler;
    /* QEMU 10.0's model of this timer (hw/timer/stm32f2xx_timer.c) does not count like
     * the part (0 .. ARR, an interrupt every ARR + 1 ticks). It interrupts ARR + offset
     * ticks after the write to ARR and then every ARR + offset ticks, where offset is the
     * time (in ticks) of the last write to CNT, or of reset: a write to CNT here made the
     * period this start's virtual time plus ARR (a 499-cycle period came out as 10,300 ns
     * instead of 2,970 ns). So CNT is never written, offset stays the reset time (0), and
     * ARR holds the period itself. */
    TIM_PSC = 0u;
    TIM_ARR = (uint32_t)ticks;
    TIM_SR = 0u;
    if (lab_target_irq_install(TIM2_IRQ, lab_target_timer_isr, priority) != 0) {
        return -1;
    }
    TIM_DIER = TIM_DIER_UIE;
    TIM_CR1 = TIM_CR1_CEN;
    return 0;
}

void lab_target_timer_stop(void)
{
    TIM_CR1 = 0u;
    TIM_DIER = 0u;
    TIM_SR = 0u;
    lab_target_irq_remove(TIM2_IRQ);
}

uint32_t lab_target_clock_hz(void) { return (uint32_t)LAB_TARGET_CLOCK_HZ; }

volatile uint32_t *lab_target_output_reg(void) { return &USART_BRR(USART3_BASE); }
