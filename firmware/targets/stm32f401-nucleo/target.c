/* STM32F401 Nucleo implementation of lab/target.h (a board: buffer mode only). */
#include <stdint.h>

#include "lab/target.h"
#include "lab_board.h"
#include "lab_cortex_m.h"

#ifndef LAB_TARGET_CLOCK_HZ
#error "LAB_TARGET_CLOCK_HZ must be set by the build (target.toml clock_hz)"
#endif
#if LAB_TARGET_CLOCK_HZ != 84000000
#error "stm32f401-nucleo: target.c sets up 84 MHz; another clock_hz needs its own PLL setting"
#endif

/* 1 when SYSCLK runs from the PLL at 84 MHz (docs/boards.md). */
volatile uint32_t lab_board_clock_ok;

static int f4_wait(uint32_t mask, uint32_t want, volatile uint32_t *reg)
{
    for (uint32_t n = 0; n < F4_CLOCK_POLLS; n++) {
        if ((*reg & mask) == want) {
            return 1;
        }
    }
    return 0;
}

/* 84 MHz from HSI: flash 2 wait states with prefetch and both ART caches (before raising
 * the clock), main PLL, APB1 = HCLK / 2 (42 MHz maximum), SYSCLK = PLL (RM0368 6.3, 3.4).
 * Voltage scale 2 (the reset value) allows 84 MHz. */
static void f4_clock_84mhz(void)
{
    if (!f4_wait(RCC_CR_HSIRDY, RCC_CR_HSIRDY, &RCC_CR)) {
        return;
    }
    FLASH_ACR = FLASH_ACR_LATENCY_2 | FLASH_ACR_PRFTEN | FLASH_ACR_ICEN | FLASH_ACR_DCEN;
    RCC_PLLCFGR = RCC_PLLCFGR_84MHZ;
    RCC_CR |= RCC_CR_PLLON;
    if (!f4_wait(RCC_CR_PLLRDY, RCC_CR_PLLRDY, &RCC_CR)) {
        return;
    }
    RCC_CFGR = RCC_CFGR_PPRE1_DIV2 | RCC_CFGR_SW_PLL;
    lab_board_clock_ok = f4_wait(RCC_CFGR_SWS_MASK, RCC_CFGR_SWS_PLL, &RCC_CFGR) ? 1u : 0u;
}

void lab_target_init(void)
{
    f4_clock_84mhz();
    lab_target_vectors_init();
    RCC_AHB1ENR |= RCC_AHB1ENR_GPIOAEN;
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
