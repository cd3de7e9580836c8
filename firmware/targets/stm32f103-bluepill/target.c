/* STM32F103 Blue Pill implementation of lab/target.h (a board: buffer mode only). */
#include <stdint.h>

#include "lab/target.h"
#include "lab_board.h"
#include "lab_cortex_m.h"

#if LAB_TARGET_CLOCK_HZ != 72000000
#error "stm32f103-bluepill: target.c sets up 72 MHz (HSE 8 MHz x 9); another clock_hz needs its own PLL setting"
#endif

/* 1 when SYSCLK runs from the PLL at 72 MHz (read by the GDB runner's user, docs/boards.md). */
volatile uint32_t lab_board_clock_ok;

/* 72 MHz: HSE on, flash 2 wait states with the prefetch buffer (before raising the clock),
 * PLL = HSE x 9, APB1 = HCLK / 2 (36 MHz maximum), SYSCLK = PLL (RM0008 7.2, 3.3.3). */
static void f1_clock_72mhz(void)
{
    RCC_CR |= RCC_CR_HSEON;
    if (!lab_cm_wait(&RCC_CR, RCC_CR_HSERDY, RCC_CR_HSERDY, F1_CLOCK_POLLS)) {
        return;
    }
    FLASH_ACR = FLASH_ACR_LATENCY_2 | FLASH_ACR_PRFTBE;
    RCC_CFGR = RCC_CFGR_PLLSRC_HSE | RCC_CFGR_PLLMUL_9 | RCC_CFGR_PPRE1_DIV2;
    RCC_CR |= RCC_CR_PLLON;
    if (!lab_cm_wait(&RCC_CR, RCC_CR_PLLRDY, RCC_CR_PLLRDY, F1_CLOCK_POLLS)) {
        return;
    }
    RCC_CFGR |= RCC_CFGR_SW_PLL;
    lab_board_clock_ok = lab_cm_wait(&RCC_CFGR, RCC_CFGR_SWS_MASK, RCC_CFGR_SWS_PLL, F1_CLOCK_POLLS) ? 1u : 0u;
}

void lab_target_init(void)
{
    f1_clock_72mhz();
    lab_target_vectors_init();
    RCC_APB2ENR |= RCC_APB2ENR_IOPCEN;
}

/* The console (the RAM console), lab_target_exit, the IRQ API, the probe buffer, the
 * timer this board lacks, the clock and the output register: what every board without a
 * UART or timer shares. */
#include "lab_cortex_m_board.h"
