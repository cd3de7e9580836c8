/* STM32F401 Nucleo implementation of lab/target.h (a board: buffer mode only). */
#include <stdint.h>

#include "lab/target.h"
#include "lab_board.h"
#include "lab_cortex_m.h"

#if LAB_TARGET_CLOCK_HZ != 84000000
#error "stm32f401-nucleo: target.c sets up 84 MHz; another clock_hz needs its own PLL setting"
#endif

/* 1 when SYSCLK runs from the PLL at 84 MHz (docs/boards.md). */
volatile uint32_t lab_board_clock_ok;

/* 84 MHz from HSI: flash 2 wait states with prefetch and both ART caches (before raising
 * the clock), main PLL, APB1 = HCLK / 2 (42 MHz maximum), SYSCLK = PLL (RM0368 6.3, 3.4).
 * Voltage scale 2 (the reset value) allows 84 MHz. */
static void f4_clock_84mhz(void)
{
    if (!lab_cm_wait(&RCC_CR, RCC_CR_HSIRDY, RCC_CR_HSIRDY, F4_CLOCK_POLLS)) {
        return;
    }
    FLASH_ACR = FLASH_ACR_LATENCY_2 | FLASH_ACR_PRFTEN | FLASH_ACR_ICEN | FLASH_ACR_DCEN;
    RCC_PLLCFGR = RCC_PLLCFGR_84MHZ;
    RCC_CR |= RCC_CR_PLLON;
    if (!lab_cm_wait(&RCC_CR, RCC_CR_PLLRDY, RCC_CR_PLLRDY, F4_CLOCK_POLLS)) {
        return;
    }
    RCC_CFGR = RCC_CFGR_PPRE1_DIV2 | RCC_CFGR_SW_PLL;
    lab_board_clock_ok = lab_cm_wait(&RCC_CFGR, RCC_CFGR_SWS_MASK, RCC_CFGR_SWS_PLL, F4_CLOCK_POLLS) ? 1u : 0u;
}

void lab_target_init(void)
{
    f4_clock_84mhz();
    lab_target_vectors_init();
    RCC_AHB1ENR |= RCC_AHB1ENR_GPIOAEN;
}

/* The console (the RAM console), lab_target_exit, the IRQ API, the probe buffer, the
 * timer this board lacks, the clock and the output register: what every board without a
 * UART or timer shares. */
#include "lab_cortex_m_board.h"
