/* nRF52840 DK implementation of lab/target.h (a board: buffer mode only). */
#include <stdint.h>

#include "lab/target.h"
#include "lab_board.h"
#include "lab_cortex_m.h"

#ifndef LAB_TARGET_CLOCK_HZ
#error "LAB_TARGET_CLOCK_HZ must be set by the build (target.toml clock_hz)"
#endif
#if LAB_TARGET_CLOCK_HZ != 64000000
#error "nrf52840-dk: the CPU runs at 64 MHz only"
#endif

/* 1 when HFCLK runs from the crystal (docs/boards.md). */
volatile uint32_t lab_board_clock_ok;

void lab_target_init(void)
{
    /* HFXO: the 64 MHz clock from the 32 MHz crystal instead of the RC oscillator (PS 6.4). */
    CLOCK_EVENTS_HFCLKSTARTED = 0u;
    CLOCK_TASKS_HFCLKSTART = 1u;
    for (uint32_t n = 0; n < N52_CLOCK_POLLS && CLOCK_EVENTS_HFCLKSTARTED == 0u; n++) {
    }
    lab_board_clock_ok = CLOCK_EVENTS_HFCLKSTARTED != 0u ? 1u : 0u;
    NVMC_ICACHECNF = NVMC_ICACHECNF_CACHEEN;
    lab_target_vectors_init();
}

void lab_target_console_write(const char *buf, uint32_t len)
{
    /* No UART is wired up: a board run's console is the RAM console the GDB runner reads
     * (lab_cortex_m.h; docs/boards.md, "Console"). */
    lab_cm_console_ram_write(buf, len);
}

/* lab_target_exit (buffer mode: lab_board_halt), the IRQ API, the main stack's bounds,
 * the software IRQ lines and the probe buffer: the Cortex-M code every target shares. */
#include "lab_cortex_m_target.h"

/* The benchmark timer is not written for this board yet ([lacks] timer in target.toml):
 * benchmarks that need it are n/a here. */
int lab_target_timer_start(uint32_t period, lab_irq_handler_t handler, uint32_t priority)
{
    (void)period;
    (void)handler;
    (void)priority;
    return -1;
}

void lab_target_timer_stop(void) {}

uint32_t lab_target_clock_hz(void) { return (uint32_t)LAB_TARGET_CLOCK_HZ; }

volatile uint32_t *lab_target_output_reg(void) { return (volatile uint32_t *)(uintptr_t)LAB_BOARD_OUTPUT_ADDR; }
