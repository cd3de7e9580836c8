/* The console of the STM32 targets (stm32vldiscovery, netduinoplus2): lab_target_init()
 * and lab_target_console_write() on USART1, whose base address comes from the target's
 * lab_board.h (the register layout: stm32_usart.h).
 *
 * Function definitions, not declarations: included once per image, by the board's
 * target.c, where its own console code would stand. In one translation unit with the
 * board's timer code the compiler lays the functions out as it did when each board had
 * its own copy, so the image is byte-identical to that (a separate object file moved
 * netduinoplus2's timer interrupt handler). */
#ifndef LAB_STM32_CONSOLE_H
#define LAB_STM32_CONSOLE_H

#include <stdint.h>

#include "lab/target.h"
#include "lab_board.h"
#include "lab_cortex_m.h"

void lab_target_init(void)
{
    lab_target_vectors_init();
    USART_CR1(USART1_BASE) = USART_CR1_UE | USART_CR1_TE;
}

void lab_target_console_write(const char *buf, uint32_t len)
{
    lab_cm_console_ram_write(buf, len); /* buffer mode's RAM console; nothing otherwise */
    for (uint32_t i = 0; i < len; i++) {
        while ((USART_SR(USART1_BASE) & USART_SR_TXE) == 0u) {
        }
        USART_DR(USART1_BASE) = (uint8_t)buf[i];
    }
}

#endif /* LAB_STM32_CONSOLE_H */
