/* nRF52840 DK implementation of lab/target.h (a board: buffer mode only). */
#include <stdint.h>

#include "lab/target.h"
#include "lab_board.h"
#include "lab_cortex_m.h"

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

/* The console (the RAM console), lab_target_exit, the IRQ API, the probe buffer, the
 * timer this board lacks, the clock and the output register: what every board without a
 * UART or timer shares. */
#include "lab_cortex_m_board.h"
