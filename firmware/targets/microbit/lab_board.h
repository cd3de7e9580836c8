/* Registers of the nRF51822 (QEMU machine microbit) used by the target code (lab_board.h:
 * the board's part of the target; the Cortex-M0 registers are in firmware/arch/cortex-m/).
 * Private to this folder. Addresses and IRQ numbers: nRF51 Series Reference Manual v3.0
 * (instance table, chapter 10) and the nRF51822 Product Specification v3.x (memory map). */
#ifndef NRF51_H
#define NRF51_H

#include <stdint.h>

#define NRF_REG(addr) (*(volatile uint32_t *)(uintptr_t)(addr))

/* The nRF51 has 32 device interrupt lines. */
#define LAB_BOARD_IRQ_COUNT 32u

/* UART0, IRQ 2: QEMU's first serial port (hw/char/nrf51_uart.c). A byte written to TXD is
 * sent when the UART is enabled and STARTTX was triggered; EVENTS_TXDRDY then reads 1. */
#define UART0_BASE 0x40002000u
#define UART_TASKS_STARTTX NRF_REG(UART0_BASE + 0x008u)
#define UART_EVENTS_TXDRDY NRF_REG(UART0_BASE + 0x11Cu)
#define UART_ENABLE NRF_REG(UART0_BASE + 0x500u)
#define UART_TXD NRF_REG(UART0_BASE + 0x51Cu)
#define UART_ENABLE_ENABLED 4u

/* TIMER0, IRQ 8: the benchmark timer. 16 MHz / 2^PRESCALER; compare 0 clears the counter
 * through SHORTS and raises the interrupt. */
#define TIMER0_BASE 0x40008000u
#define TIMER0_IRQ 8u
#define TIMER_TASKS_START NRF_REG(TIMER0_BASE + 0x000u)
#define TIMER_TASKS_STOP NRF_REG(TIMER0_BASE + 0x004u)
#define TIMER_TASKS_CLEAR NRF_REG(TIMER0_BASE + 0x00Cu)
#define TIMER_EVENTS_COMPARE0 NRF_REG(TIMER0_BASE + 0x140u)
#define TIMER_SHORTS NRF_REG(TIMER0_BASE + 0x200u)
#define TIMER_INTENSET NRF_REG(TIMER0_BASE + 0x304u)
#define TIMER_INTENCLR NRF_REG(TIMER0_BASE + 0x308u)
#define TIMER_MODE NRF_REG(TIMER0_BASE + 0x504u)
#define TIMER_BITMODE NRF_REG(TIMER0_BASE + 0x508u)
#define TIMER_PRESCALER NRF_REG(TIMER0_BASE + 0x510u)
#define TIMER_CC0 NRF_REG(TIMER0_BASE + 0x540u)
#define TIMER_SHORTS_COMPARE0_CLEAR 0x1u
#define TIMER_INT_COMPARE0 (1u << 16)
#define TIMER_BITMODE_32 3u
#define TIMER_CLOCK_HZ 16000000u

/* GPIO OUT register: the output register (lab_target_output_reg); QEMU models the port. */
#define GPIO_OUT_ADDR 0x50000504u

/* IRQ lines 22 .. 25 are SWI2 .. SWI5, the part's software interrupts (no peripheral). target.toml's
 * irq_soft_top names the highest of them (LAB_TARGET_IRQ_SOFT_TOP). */

#endif /* NRF51_H */
