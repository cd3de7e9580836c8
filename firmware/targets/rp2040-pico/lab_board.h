/* Registers of the RP2040 (Raspberry Pi Pico) used by the target code. Private to this
 * folder. Addresses: RP2040 datasheet 2.2 (address map), 2.14 (subsystem resets), 2.15
 * (clocks), 2.16 (XOSC), 2.18 (PLL), 2.3.1.7 (SIO GPIO). */
#ifndef RP2040_BOARD_H
#define RP2040_BOARD_H

#include <stdint.h>

#define RP_REG(addr) (*(volatile uint32_t *)(uintptr_t)(addr))
#define RP_CLR(addr) RP_REG((addr) + 0x3000u) /* atomic clear alias */

/* 32 NVIC lines; 26..31 tied to zero (datasheet 2.3.2). */
#define LAB_BOARD_IRQ_COUNT 32u

#define RESETS_RESET 0x4000C000u
#define RESETS_RESET_DONE RP_REG(0x4000C008u)
#define RESETS_PLL_SYS (1u << 12)

#define XOSC_CTRL RP_REG(0x40024000u)
#define XOSC_STATUS RP_REG(0x40024004u)
#define XOSC_STARTUP RP_REG(0x4002400Cu)
#define XOSC_CTRL_1_15MHZ_ENABLE (0xAA0u | (0xFABu << 12))
#define XOSC_STATUS_STABLE (1u << 31)
#define XOSC_STARTUP_12MHZ 47u /* ((12 MHz / 1000) + 128) / 256: about 1 ms */

#define PLL_SYS_CS RP_REG(0x40028000u)
#define PLL_SYS_PWR RP_REG(0x40028004u)
#define PLL_SYS_FBDIV RP_REG(0x40028008u)
#define PLL_SYS_PRIM RP_REG(0x4002800Cu)
#define PLL_CS_LOCK (1u << 31)
#define PLL_PWR_PD 1u
#define PLL_PWR_VCOPD (1u << 5)
#define PLL_PWR_POSTDIVPD (1u << 3)
/* VCO = 12 MHz x 133 = 1596 MHz; / 6 / 2 = 133 MHz. */
#define PLL_FBDIV_133MHZ 133u
#define PLL_PRIM_6_2 ((6u << 16) | (2u << 12))

#define CLK_REF_CTRL RP_REG(0x40008030u)
#define CLK_REF_SELECTED RP_REG(0x40008038u)
#define CLK_SYS_CTRL RP_REG(0x4000803Cu)
#define CLK_SYS_SELECTED RP_REG(0x40008044u)
#define CLK_REF_SRC_XOSC 2u
#define CLK_SYS_SRC_AUX 1u /* AUXSRC 0: clksrc_pll_sys */

/* SIO GPIO_OUT: the output register (GPIO 25 drives the Pico's LED). */
#define LAB_BOARD_OUTPUT_ADDR 0xD0000010u

#define RP_CLOCK_POLLS 1000000u

#endif /* RP2040_BOARD_H */
