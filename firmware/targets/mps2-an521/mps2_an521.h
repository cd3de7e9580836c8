/* Registers of the mps2-an521 board (two Cortex-M33, SSE-200 subsystem; the firmware
 * runs on core 0) and the ARMv8-M
 * system control space used by the target code. Private to this folder.
 *
 * The firmware runs in Secure state only (the core resets Secure and nothing configures the
 * SAU, so every address is Secure): peripherals are used through their Secure aliases
 * (0x5xxxxxxx; the IDAU marks addresses with bit 28 set Secure, QEMU
 * hw/arm/mps2-tz.c mps2_tz_idau_check), and the peripheral protection controllers keep
 * their reset state, which admits Secure accesses (AN521; QEMU hw/arm/mps2-tz.c gives AN521 the AN505 memory map and
 * interrupt count). */
#ifndef MPS2_AN521_H
#define MPS2_AN521_H

#include <stdint.h>

#define MPS2_REG(addr) (*(volatile uint32_t *)(uintptr_t)(addr))
#define MPS2_REG8(addr) (*(volatile uint8_t *)(uintptr_t)(addr))

/* The NVIC has 32 SSE-200 lines and 92 expansion lines; the firmware uses IRQ 0 .. 63. */
#define MPS2_IRQ_COUNT 64u
#define MPS2_VECTOR_COUNT (16u + MPS2_IRQ_COUNT)

/* CMSDK APB UART0 (expansion APB, Secure alias): QEMU's first serial port. */
#define UART0_BASE 0x50200000u
#define UART0_DATA MPS2_REG(UART0_BASE + 0x000u)
#define UART0_STATE MPS2_REG(UART0_BASE + 0x004u)
#define UART0_CTRL MPS2_REG(UART0_BASE + 0x008u)
#define UART0_BAUDDIV MPS2_REG(UART0_BASE + 0x010u)
#define UART_STATE_TX_FULL 0x1u
#define UART_CTRL_TX_EN 0x1u

/* SSE-200 CMSDK APB timer 0 (Secure alias): the benchmark timer (lab_target_timer_start),
 * IRQ 3, clocked at the board clock (MAINCLK). */
#define TIMER0_BASE 0x50000000u
#define TIMER0_IRQ 3u
#define TIMER0_CTRL MPS2_REG(TIMER0_BASE + 0x000u)
#define TIMER0_VALUE MPS2_REG(TIMER0_BASE + 0x004u)
#define TIMER0_RELOAD MPS2_REG(TIMER0_BASE + 0x008u)
#define TIMER0_INTCLEAR MPS2_REG(TIMER0_BASE + 0x00Cu)
#define TIMER_CTRL_EN 0x1u
#define TIMER_CTRL_IRQ_EN 0x8u

/* FPGA system control and I/O (Secure alias): LED0 drives the board's user LEDs (QEMU
 * emulates the register, keeping the implemented bits). lab_target_output_reg(). */
#define FPGAIO_BASE 0x50302000u
#define FPGAIO_LED0_ADDR (FPGAIO_BASE + 0x000u)

/* IRQ lines 60 .. 63 (expansion lines 28 .. 31) have no device on AN521 (as on AN505) (QEMU connects
 * UARTs to expansion lines 0 .. 15, Ethernet to 16, SPI to 51 .. 55, DMA to 56 .. 67):
 * software-only lines. */
#define MPS2_SOFT_IRQ_TOP 63u

/* System control block */
#define SCB_VTOR MPS2_REG(0xE000ED08u)
#define SCB_CCR MPS2_REG(0xE000ED14u)
#define SCB_CPACR MPS2_REG(0xE000ED88u)
#define SCB_CFSR MPS2_REG(0xE000ED28u)
#define SCB_HFSR MPS2_REG(0xE000ED2Cu)
#define SCB_MMFAR MPS2_REG(0xE000ED34u)
#define SCB_BFAR MPS2_REG(0xE000ED38u)

/* NVIC */
#define NVIC_ISER(n) MPS2_REG(0xE000E100u + 4u * (n))
#define NVIC_ICER(n) MPS2_REG(0xE000E180u + 4u * (n))
#define NVIC_ICPR(n) MPS2_REG(0xE000E280u + 4u * (n))
#define NVIC_IPR(irq) MPS2_REG8(0xE000E400u + (irq))
#define NVIC_STIR MPS2_REG(0xE000EF00u)

void lab_target_vectors_init(void);
void lab_target_default_handler(void);

#endif /* MPS2_AN521_H */
