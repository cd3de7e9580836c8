/* Registers of the STM32F405 (QEMU machine netduinoplus2) used by the target code
 * (lab_board.h: the board's part of the target; the Cortex-M registers are in
 * firmware/arch/cortex-m/). Private to this folder. Addresses: RM0090 (STM32F405/415
 * reference manual), section 2.3 memory map; IRQ numbers: RM0090 table 61 (vector table). */
#ifndef STM32F405_H
#define STM32F405_H

#include <stdint.h>

#include "stm32_usart.h" /* STM32_REG and the USART registers (firmware/boards/stm32/) */

/* The part has 82 device interrupts; the firmware uses IRQ 0 .. 63. */
#define LAB_BOARD_IRQ_COUNT 64u

/* USART1 (APB2): QEMU's first serial port. QEMU's USART model sends a byte written to DR
 * at once when CR1.UE and CR1.TE are set; no baud-rate setup is needed. */
#define USART1_BASE 0x40011000u

/* USART3: not used as a UART. Its baud-rate register is the output register
 * (lab_target_output_reg): QEMU does not model the GPIO ports of this board (they are
 * unimplemented-device stubs that read as 0), and BRR is a device register QEMU keeps as
 * written, with no other effect. */
#define USART3_BASE 0x40004800u

/* TIM2 (32-bit general-purpose timer, APB1): the benchmark timer, IRQ 28. */
#define TIM2_BASE 0x40000000u
#define TIM2_IRQ 28u
#define TIM_CR1 STM32_REG(TIM2_BASE + 0x00u)
#define TIM_DIER STM32_REG(TIM2_BASE + 0x0Cu)
#define TIM_SR STM32_REG(TIM2_BASE + 0x10u)
#define TIM_EGR STM32_REG(TIM2_BASE + 0x14u)
#define TIM_CNT STM32_REG(TIM2_BASE + 0x24u)
#define TIM_PSC STM32_REG(TIM2_BASE + 0x28u)
#define TIM_ARR STM32_REG(TIM2_BASE + 0x2Cu)
#define TIM_CR1_CEN 0x1u
#define TIM_DIER_UIE 0x1u
#define TIM_SR_UIF 0x1u
#define TIM_EGR_UG 0x1u

/* IRQ lines 60 .. 63 (DMA2 stream 5 .. 7 and the Ethernet lines on the real part) have no
 * device in QEMU's model: software-only lines. target.toml's
 * irq_soft_top names the highest of them (LAB_TARGET_IRQ_SOFT_TOP). */

#endif /* STM32F405_H */
