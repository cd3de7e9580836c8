/* Registers of the STM32F401 (Nucleo-F401RE) used by the target code. Private to this
 * folder. Addresses: RM0368 (STM32F401xB/C/D/E reference manual) 2.3 (memory map), 6.3
 * (RCC), 3.8.1 (FLASH_ACR), 8.4 (GPIO). */
#ifndef STM32F401_BOARD_H
#define STM32F401_BOARD_H

#include <stdint.h>

#define F4_REG(addr) (*(volatile uint32_t *)(uintptr_t)(addr))

/* Vector table positions 0..84 (RM0368 Table 38). */
#define LAB_BOARD_IRQ_COUNT 85u

#define RCC_CR F4_REG(0x40023800u)
#define RCC_PLLCFGR F4_REG(0x40023804u)
#define RCC_CFGR F4_REG(0x40023808u)
#define RCC_AHB1ENR F4_REG(0x40023830u)
#define RCC_CR_HSIRDY (1u << 1)
#define RCC_CR_PLLON (1u << 24)
#define RCC_CR_PLLRDY (1u << 25)
/* PLLM = 16, PLLN = 336, PLLP = 4 (field 01), PLLQ = 7, source HSI (PLLSRC 0):
 * VCO 336 MHz, SYSCLK 84 MHz, 48 MHz domain 48 MHz. */
#define RCC_PLLCFGR_84MHZ (16u | (336u << 6) | (1u << 16) | (7u << 24))
#define RCC_CFGR_PPRE1_DIV2 (4u << 10)
#define RCC_CFGR_SW_PLL 2u
#define RCC_CFGR_SWS_MASK (3u << 2)
#define RCC_CFGR_SWS_PLL (2u << 2)
#define RCC_AHB1ENR_GPIOAEN 1u

#define FLASH_ACR F4_REG(0x40023C00u)
#define FLASH_ACR_LATENCY_2 2u
#define FLASH_ACR_PRFTEN (1u << 8)
#define FLASH_ACR_ICEN (1u << 9)
#define FLASH_ACR_DCEN (1u << 10)

/* GPIOA ODR (the Nucleo's LD2 is PA5): the output register. */
#define LAB_BOARD_OUTPUT_ADDR 0x40020014u

#define F4_CLOCK_POLLS 1000000u

#endif /* STM32F401_BOARD_H */
