/* The USART register layout of the STM32F1 and STM32F4 parts (RM0041 and RM0090, "USART
 * registers": the same offsets and bits on both), for the stm32vldiscovery and
 * netduinoplus2 targets; the base addresses come from the target's lab_board.h. Private to
 * the STM32 targets. */
#ifndef LAB_STM32_USART_H
#define LAB_STM32_USART_H

#include <stdint.h>

#define STM32_REG(addr) (*(volatile uint32_t *)(uintptr_t)(addr))

#define USART_SR(base) STM32_REG((base) + 0x00u)
#define USART_DR(base) STM32_REG((base) + 0x04u)
#define USART_BRR(base) STM32_REG((base) + 0x08u)
#define USART_CR1(base) STM32_REG((base) + 0x0Cu)
#define USART_SR_TXE 0x80u
#define USART_CR1_UE 0x2000u
#define USART_CR1_TE 0x0008u

#endif /* LAB_STM32_USART_H */
