/* Registers of the STM32F100RB (QEMU machine stm32vldiscovery) used by the target code (lab_board.h: the
 * board's part of the target; the Cortex-M registers are firmware/arch/cortex-m's). Private
 * to this folder. Addresses: RM0041
 * (STM32F100xx reference manual), section 2.3 memory map; IRQ numbers: RM0041 vector table. */
#ifndef STM32F100_H
#define STM32F100_H

#include <stdint.h>

#define STM32_REG(addr) (*(volatile uint32_t *)(uintptr_t)(addr))

/* The firmware uses IRQ 0 .. 47 (the part's lines run to 55). */
#define LAB_BOARD_IRQ_COUNT 48u

/* USART1 (APB2): QEMU's first serial port. QEMU's USART model sends a byte written to DR
 * at once when CR1.UE and CR1.TE are set; no baud-rate setup is needed. */
#define USART1_BASE 0x40013800u
#define USART_SR(base) STM32_REG((base) + 0x00u)
#define USART_DR(base) STM32_REG((base) + 0x04u)
#define USART_BRR(base) STM32_REG((base) + 0x08u)
#define USART_CR1(base) STM32_REG((base) + 0x0Cu)
#define USART_SR_TXE 0x80u
#define USART_CR1_UE 0x2000u
#define USART_CR1_TE 0x0008u

/* USART3: not used as a UART. Its baud-rate register is the output register
 * (lab_target_output_reg): QEMU does not model the GPIO ports of this board (they are
 * unimplemented-device stubs that read as 0), and BRR is a device register QEMU keeps as
 * written, with no other effect. */
#define USART3_BASE 0x40004800u

/* IRQ lines 44 .. 47 (TIM13, TIM14 and reserved lines on the real part) have no device in
 * QEMU's model: software-only lines. */
#define LAB_BOARD_SOFT_IRQ_TOP 47u

#endif /* STM32F100_H */
