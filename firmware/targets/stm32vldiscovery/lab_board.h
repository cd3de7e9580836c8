/* Registers of the STM32F100RB (QEMU machine stm32vldiscovery) used by the target code
 * (lab_board.h: the board's part of the target; the Cortex-M registers are in
 * firmware/arch/cortex-m/). Private to this folder. Addresses: RM0041 (STM32F100xx
 * reference manual), section 2.3 memory map; IRQ numbers: RM0041 vector table. */
#ifndef STM32F100_H
#define STM32F100_H

#include <stdint.h>

#include "stm32_usart.h" /* STM32_REG and the USART registers (firmware/boards/stm32/) */

/* The firmware uses IRQ 0 .. 47 (the part's lines run to 55). */
#define LAB_BOARD_IRQ_COUNT 48u

/* USART1 (APB2): QEMU's first serial port. QEMU's USART model sends a byte written to DR
 * at once when CR1.UE and CR1.TE are set; no baud-rate setup is needed. */
#define USART1_BASE 0x40013800u

/* USART3: not used as a UART. Its baud-rate register is the output register
 * (lab_target_output_reg): QEMU does not model the GPIO ports of this board (they are
 * unimplemented-device stubs that read as 0), and BRR is a device register QEMU keeps as
 * written, with no other effect. */
#define USART3_BASE 0x40004800u

/* IRQ lines 44 .. 47 (TIM13, TIM14 and reserved lines on the real part) have no device in
 * QEMU's model: software-only lines. target.toml's
 * irq_soft_top names the highest of them (LAB_TARGET_IRQ_SOFT_TOP). */

#endif /* STM32F100_H */
