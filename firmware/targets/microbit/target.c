/* microbit (nRF51822, Cortex-M0) implementation of lab/target.h. */
#include <stdint.h>

#include "lab/target.h"
#include "lab_board.h"
#include "lab_cortex_m.h"

/* Polls of EVENTS_TXDRDY before a byte counts as lost: QEMU's UART raises it as soon as
 * the byte is handed on, so this bound only matters when the UART is not connected; then
 * the console drops output instead of hanging, and the host reports the missing lines. */
#define UART_TX_POLLS 100000u

void lab_target_init(void)
{
    lab_target_vectors_init();
    UART_ENABLE = UART_ENABLE_ENABLED;
    UART_TASKS_STARTTX = 1u;
}

void lab_target_console_write(const char *buf, uint32_t len)
{
    lab_cm_console_ram_write(buf, len); /* buffer mode's RAM console; nothing otherwise */
    for (uint32_t i = 0; i < len; i++) {
        UART_EVENTS_TXDRDY = 0u;
        UART_TXD = (uint8_t)buf[i];
        for (uint32_t n = 0; n < UART_TX_POLLS && UART_EVENTS_TXDRDY == 0u; n++) {
        }
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
    TIMER_EVENTS_COMPARE0 = 0u;
    lab_timer_handler();
}

int lab_target_timer_start(uint32_t period, lab_irq_handler_t handler, uint32_t priority)
{
    /* The timer counts at 16 MHz (prescaler 0); a period in core cycles becomes ticks at
     * the rate QEMU runs the machine's CPU clock (LAB_TARGET_MACHINE_HZ, the one clock). */
    uint64_t ticks = ((uint64_t)period * TIMER_CLOCK_HZ) / (uint64_t)LAB_TARGET_MACHINE_HZ;
    if (period == 0u || handler == 0 || ticks == 0u || ticks > 0xFFFFFFFFull) {
        return -1;
    }
    lab_target_timer_stop();
    lab_timer_handler = handler;
    TIMER_MODE = 0u;
    TIMER_BITMODE = TIMER_BITMODE_32;
    TIMER_PRESCALER = 0u;
    TIMER_CC0 = (uint32_t)ticks;
    TIMER_SHORTS = TIMER_SHORTS_COMPARE0_CLEAR;
    TIMER_TASKS_CLEAR = 1u;
    TIMER_EVENTS_COMPARE0 = 0u;
    if (lab_target_irq_install(TIMER0_IRQ, lab_target_timer_isr, priority) != 0) {
        return -1;
    }
    TIMER_INTENSET = TIMER_INT_COMPARE0;
    TIMER_TASKS_START = 1u;
    return 0;
}

void lab_target_timer_stop(void)
{
    TIMER_TASKS_STOP = 1u;
    TIMER_INTENCLR = TIMER_INT_COMPARE0;
    TIMER_EVENTS_COMPARE0 = 0u;
    lab_target_irq_remove(TIMER0_IRQ);
}

uint32_t lab_target_clock_hz(void) { return (uint32_t)LAB_TARGET_CLOCK_HZ; }

volatile uint32_t *lab_target_output_reg(void) { return (volatile uint32_t *)(uintptr_t)GPIO_OUT_ADDR; }
