/* Registers of the STM32F103 (Blue Pill) used by the target code. Private to this folder.
 * Addresses: RM0008 (STM32F101/102/103/105/107 reference manual) 3.3 (memory map), 7.3
 * (RCC), 3.3.3 (FLASH_ACR), 9.2 (GPIO). */
#ifndef STM32F103_BOARD_H
#define STM32F103_BOARD_H

#include <stdint.h>

#define F1_REG(addr) (*(volatile uint32_t *)(uintptr_t)(addr))

/* Medium-density parts: 43 maskable interrupt lines (RM0008 Table 63). */
#define LAB_BOARD_IRQ_COUNT 43u

#define RCC_CR F1_REG(0x40021000u)
#define RCC_CFGR F1_REG(0x40021004u)
#define RCC_APB2ENR F1_REG(0x40021018u)
#define RCC_CR_HSEON (1u << 16)
#define RCC_CR_HSERDY (1u << 17)
#define RCC_CR_PLLON (1u << 24)
#define RCC_CR_PLLRDY (1u << 25)
#define RCC_CFGR_PLLSRC_HSE (1u << 16)
#define RCC_CFGR_PLLMUL_9 (7u << 18)
#define RCC_CFGR_PPRE1_DIV2 (4u << 8)
#define RCC_CFGR_SW_PLL 2u
#define RCC_CFGR_SWS_MASK (3u << 2)
#define RCC_CFGR_SWS_PLL (2u << 2)
#define RCC_APB2ENR_IOPCEN (1u << 4)

#define FLASH_ACR F1_REG(0x40022000u)
#define FLASH_ACR_LATENCY_2 2u
#define FLASH_ACR_PRFTBE (1u << 4)

/* GPIOC ODR (the Blue Pill's LED is PC13): the output register. */
#define LAB_BOARD_OUTPUT_ADDR 0x4001100Cu

/* Polls before a clock source counts as not starting (then the board stays on HSI 8 MHz
 * and lab_target_init records it: the measured clock would be wrong). */
#define F1_CLOCK_POLLS 1000000u

#endif /* STM32F103_BOARD_H */
