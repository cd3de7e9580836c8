/* Registers of the mps2-an385 board used by the target code (lab_board.h: the board's
 * part of the target; the Cortex-M registers are firmware/arch/cortex-m's). Private to
 * this folder. */
#ifndef MPS2_AN385_H
#define MPS2_AN385_H

#include <stdint.h>

#define MPS2_REG(addr) (*(volatile uint32_t *)(uintptr_t)(addr))

#define LAB_BOARD_IRQ_COUNT 32u

/* CMSDK APB UART0 */
#define UART0_BASE 0x40004000u
#define UART0_DATA MPS2_REG(UART0_BASE + 0x000u)
#define UART0_STATE MPS2_REG(UART0_BASE + 0x004u)
#define UART0_CTRL MPS2_REG(UART0_BASE + 0x008u)
#define UART0_BAUDDIV MPS2_REG(UART0_BASE + 0x010u)
#define UART_STATE_TX_FULL 0x1u
#define UART_CTRL_TX_EN 0x1u

/* CMSDK APB timer 0: the benchmark timer (lab_target_timer_start), IRQ 8, clocked at the
 * board clock. */
#define TIMER0_BASE 0x40000000u
#define TIMER0_IRQ 8u
#define TIMER0_CTRL MPS2_REG(TIMER0_BASE + 0x000u)
#define TIMER0_VALUE MPS2_REG(TIMER0_BASE + 0x004u)
#define TIMER0_RELOAD MPS2_REG(TIMER0_BASE + 0x008u)
#define TIMER0_INTCLEAR MPS2_REG(TIMER0_BASE + 0x00Cu)
#define TIMER_CTRL_EN 0x1u
#define TIMER_CTRL_IRQ_EN 0x8u

/* FPGA system control and I/O: LED0 drives the board's user LEDs (2 bits on AN385; QEMU
 * emulates the register, keeping the implemented bits). lab_target_output_reg(). */
#define FPGAIO_BASE 0x40028000u
#define FPGAIO_LED0_ADDR (FPGAIO_BASE + 0x000u)

/* IRQ lines 24 .. 31 have no device on AN385 (QEMU connects none): software-only lines. */
#define LAB_BOARD_SOFT_IRQ_TOP 31u

#endif /* MPS2_AN385_H */
