/* Registers of the nRF52840 used by the target code. Private to this folder. Addresses:
 * nRF52840 Product Specification v1.x, 6.1.7 (instantiation table), 6.4 (CLOCK), 6.18
 * (NVMC ICACHECNF), 6.9 (GPIO). */
#ifndef NRF52840_BOARD_H
#define NRF52840_BOARD_H

#include <stdint.h>

#define N52_REG(addr) (*(volatile uint32_t *)(uintptr_t)(addr))

/* 48 device interrupt lines (IDs 0..47). */
#define LAB_BOARD_IRQ_COUNT 48u

#define CLOCK_TASKS_HFCLKSTART N52_REG(0x40000000u)
#define CLOCK_EVENTS_HFCLKSTARTED N52_REG(0x40000100u)
#define NVMC_ICACHECNF N52_REG(0x4001E540u)
#define NVMC_ICACHECNF_CACHEEN 1u

/* P0 OUT: the output register (the DK's LED1 is P0.13). */
#define LAB_BOARD_OUTPUT_ADDR 0x50000504u

#define N52_CLOCK_POLLS 1000000u

#endif /* NRF52840_BOARD_H */
