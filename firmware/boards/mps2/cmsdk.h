/* Registers of the peripherals every MPS2 FPGA image (AN385, AN386, AN505) has, at the
 * base addresses the target's lab_board.h gives (UART0_BASE, TIMER0_BASE, FPGAIO_BASE):
 * the CMSDK APB UART and timer (Arm Cortex-M System Design Kit TRM, DDI 0479) and the
 * FPGA I/O LED register (the application notes' memory maps). Private to the MPS2 targets. */
#ifndef LAB_MPS2_CMSDK_H
#define LAB_MPS2_CMSDK_H

#include <stdint.h>

#include "lab_board.h"

#if !defined(UART0_BASE) || !defined(TIMER0_BASE) || !defined(TIMER0_IRQ) || !defined(FPGAIO_BASE)
#error "an MPS2 target's lab_board.h must define UART0_BASE, TIMER0_BASE, TIMER0_IRQ and FPGAIO_BASE"
#endif

#define MPS2_REG(addr) (*(volatile uint32_t *)(uintptr_t)(addr))

/* CMSDK APB UART0 */
#define UART0_DATA MPS2_REG(UART0_BASE + 0x000u)
#define UART0_STATE MPS2_REG(UART0_BASE + 0x004u)
#define UART0_CTRL MPS2_REG(UART0_BASE + 0x008u)
#define UART0_BAUDDIV MPS2_REG(UART0_BASE + 0x010u)
#define UART_STATE_TX_FULL 0x1u
#define UART_CTRL_TX_EN 0x1u

/* CMSDK APB timer 0: the benchmark timer (lab_target_timer_start), clocked at the board
 * clock; counts VALUE down and interrupts as it reloads from RELOAD. */
#define TIMER0_CTRL MPS2_REG(TIMER0_BASE + 0x000u)
#define TIMER0_VALUE MPS2_REG(TIMER0_BASE + 0x004u)
#define TIMER0_RELOAD MPS2_REG(TIMER0_BASE + 0x008u)
#define TIMER0_INTCLEAR MPS2_REG(TIMER0_BASE + 0x00Cu)
#define TIMER_CTRL_EN 0x1u
#define TIMER_CTRL_IRQ_EN 0x8u

/* FPGA system control and I/O: LED0, the output register (lab_target_output_reg()). */
#define FPGAIO_LED0_ADDR (FPGAIO_BASE + 0x000u)

#endif /* LAB_MPS2_CMSDK_H */
