/* The mps2-an386 board (Cortex-M4F) for the shared target code: its IRQ lines and the
 * base addresses of its peripherals. lab_board.h is the board's part of the target; the
 * register layouts and code of the MPS2 images are in firmware/boards/mps2/, the Cortex-M
 * registers in firmware/arch/cortex-m/. Private to this folder. */
#ifndef MPS2_AN386_H
#define MPS2_AN386_H

#include <stdint.h>

/* Device interrupt lines the vector table holds (firmware/arch/cortex-m/lab_cortex_m.h). */
#define LAB_BOARD_IRQ_COUNT 32u

/* CMSDK APB UART0 */
#define UART0_BASE 0x40004000u

/* CMSDK APB timer 0: the benchmark timer (lab_target_timer_start), IRQ 8, clocked at the
 * board clock. */
#define TIMER0_BASE 0x40000000u
#define TIMER0_IRQ 8u

/* FPGA system control and I/O: LED0 drives the board's user LEDs (2 bits on AN386; QEMU
 * emulates the register, keeping the implemented bits). lab_target_output_reg(). */
#define FPGAIO_BASE 0x40028000u

/* IRQ lines 24 .. 31 have no device on AN386 (QEMU connects none): software-only lines. target.toml's
 * irq_soft_top names the highest of them (LAB_TARGET_IRQ_SOFT_TOP). */

#endif /* MPS2_AN386_H */
