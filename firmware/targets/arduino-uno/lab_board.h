/*
 * arduino-uno board facts for target.c: the ATmega328P's register names come from
 * avr-libc (<avr/io.h>, chosen by -mmcu=atmega328p); what this board adds is below.
 */
#ifndef LAB_BOARD_H
#define LAB_BOARD_H

/* USART0 baud divisor for 115200 baud at 16 MHz (U2X0 = 0: 16e6 / 16 / (8 + 1)); QEMU
 * sends each byte at once whatever the divisor. */
#define LAB_BOARD_UBRR0 8u

/* Timer 1 counts core cycles (prescaler 1): its longest period in counts. */
#define LAB_BOARD_T1_MAX_PERIOD 65536u

#endif /* LAB_BOARD_H */
