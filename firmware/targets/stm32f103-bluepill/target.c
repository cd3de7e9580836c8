/* STM32F103 Blue Pill implementation of lab/target.h (a board: buffer mode only). */
#include <stdint.h>

#include "lab/target.h"
#include "lab_board.h"
#include "lab_cortex_m.h"

#ifndef LAB_TARGET_CLOCK_HZ
#error "LAB_TARGET_CLOCK_HZ must be set by the build (target.toml clock_hz)"
#endif
#if LAB_TARGET_CLOCK_HZ != 72000000
#error "stm32f103-bluepill: target.c sets up 72 MHz (HSE 8 MHz x 9); another clock_hz needs its own PLL setting"
#endif

/* 1 when SYSCLK runs from the PLL at 72 MHz (read by the GDB runner's user, docs/boards.md). */
volatile uint32_t lab_board_clock_ok;

static int f1_wait(uint32_t mask, uint32_t want, volatile uint32_t *reg)
{
    for (uint32_t n = 0; n < F1_CLOCK_POLLS; n++) {
        if ((*reg & mask) == want) {
            return 1;
        }
    }
    return 0;
}

/* 72 MHz: HSE on, flash 2 wait states with the prefetch buffer (before raising the clock),
 * PLL = HSE x 9, APB1 = HCLK / 2 (36 MHz maximum), SYSCLK = PLL (RM0008 7.2, 3.3.3). */
static void f1_clock_72mhz(void)
{
    RCC_CR |= RCC_CR_HSEON;
    if (!f1_wait(RCC_CR_HSERDY, RCC_CR_HSERDY, &RCC_CR)) {
        return;
    }
    FLASH_ACR = FLASH_ACR_LATENCY_2 | FLASH_ACR_PRFTBE;
    RCC_CFGR = RCC_CFGR_PLLSRC_HSE | RCC_CFGR_PLLMUL_9 | RCC_CFGR_PPRE1_DIV2;
    RCC_CR |= RCC_CR_PLLON;
    if (!f1_wait(RCC_CR_PLLRDY, RCC_CR_PLLRDY, &RCC_CR)) {
        return;
    }
    RCC_CFGR |= RCC_CFGR_SW_PLL;
    lab_board_clock_ok = f1_wait(RCC_CFGR_SWS_MASK, RCC_CFGR_SWS_PLL, &RCC_CFGR) ? 1u : 0u;
}

void lab_target_init(void)
{
    f1_clock_72mhz();
    lab_target_vectors_init();
    RCC_APB2ENR |= RCC_APB2ENR_IOPCEN;
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
