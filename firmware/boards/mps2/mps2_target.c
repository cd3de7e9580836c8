/* The board part of lab/target.h for every MPS2 FPGA image (mps2-an385, mps2-an386,
 * mps2-an505, mps2-an521): CMSDK UART0 console, CMSDK timer 0 as the benchmark timer,
 * FPGA I/O LED0 as the output register; the addresses and IRQ numbers come from the target's lab_board.h. */
#include <stdint.h>

#include "lab/target.h"
#include "cmsdk.h"
#include "lab_board.h"
#include "lab_cortex_m.h"

void lab_target_init(void)
{
    lab_target_vectors_init();
    UART0_BAUDDIV = 16u;
    UART0_CTRL = UART_CTRL_TX_EN;
}

void lab_target_console_write(const char *buf, uint32_t len)
{
    lab_cm_console_ram_write(buf, len); /* buffer mode's RAM console; nothing otherwise */
    for (uint32_t i = 0; i < len; i++) {
        while ((UART0_STATE & UART_STATE_TX_FULL) != 0u) {
        }
        UART0_DATA = (uint8_t)buf[i];
    }
}

/* lab_target_exit (semihosting), the IRQ API, the main stack's bounds and the software
 * IRQ lines: the same on every Cortex-M target, defined here, inside this file, so that
 * the timer code below may have lab_target_irq_install/remove inlined
 * (lab_cortex_m_target.h). */
#include "lab_cortex_m_target.h"

static lab_irq_handler_t lab_timer_handler;

static void lab_target_timer_isr(void)
{
    TIMER0_INTCLEAR = 1u;
    lab_timer_handler();
}

int lab_target_timer_start(uint32_t period, lab_irq_handler_t handler, uint32_t priority)
{
    if (period == 0u || handler == 0) {
        return -1;
    }
    lab_target_timer_stop();
    lab_timer_handler = handler;
    /* The timer counts VALUE down to 0 and interrupts as it reloads: period - 1 + 1. */
    TIMER0_RELOAD = period - 1u;
    TIMER0_VALUE = period - 1u;
    TIMER0_INTCLEAR = 1u;
    if (lab_target_irq_install(TIMER0_IRQ, lab_target_timer_isr, priority) != 0) {
        return -1;
    }
    TIMER0_CTRL = TIMER_CTRL_EN | TIMER_CTRL_IRQ_EN;
    return 0;
}

void lab_target_timer_stop(void)
{
    TIMER0_CTRL = 0u;
    TIMER0_INTCLEAR = 1u;
    lab_target_irq_remove(TIMER0_IRQ);
}

uint32_t lab_target_clock_hz(void) { return (uint32_t)LAB_TARGET_CLOCK_HZ; }

volatile uint32_t *lab_target_output_reg(void) { return (volatile uint32_t *)(uintptr_t)FPGAIO_LED0_ADDR; }
