/* The mps2-an521 board (two Cortex-M33, SSE-200 subsystem; core 0 runs the harness, core 1
 * starts through lab_target_core_start) for the shared target code: its
 * IRQ lines and the base addresses of its peripherals. lab_board.h is the board's part of
 * the target; the register layouts and code of the MPS2 images are in
 * firmware/boards/mps2/, the Cortex-M registers in firmware/arch/cortex-m/. Private to
 * this folder.
 *
 * The firmware runs in Secure state only (the core resets Secure and nothing configures the
 * SAU, so every address is Secure): peripherals are used through their Secure aliases
 * (0x5xxxxxxx; the IDAU marks addresses with bit 28 set Secure, QEMU
 * hw/arm/mps2-tz.c mps2_tz_idau_check), and the peripheral protection controllers keep
 * their reset state, which admits Secure accesses (AN521; QEMU hw/arm/mps2-tz.c gives AN521
 * the AN505 memory map and interrupt count). */
#ifndef MPS2_AN521_H
#define MPS2_AN521_H

#include <stdint.h>

/* The NVIC has 32 SSE-200 lines and 92 expansion lines; the firmware uses IRQ 0 .. 63. */
#define LAB_BOARD_IRQ_COUNT 64u

/* CMSDK APB UART0 (expansion APB, Secure alias): QEMU's first serial port. */
#define UART0_BASE 0x50200000u

/* SSE-200 CMSDK APB timer 0 (Secure alias): the benchmark timer (lab_target_timer_start),
 * IRQ 3, clocked at the board clock (MAINCLK). */
#define TIMER0_BASE 0x50000000u
#define TIMER0_IRQ 3u

/* FPGA system control and I/O (Secure alias): LED0 drives the board's user LEDs (QEMU
 * emulates the register, keeping the implemented bits). lab_target_output_reg(). */
#define FPGAIO_BASE 0x50302000u

/* IRQ lines 60 .. 63 (expansion lines 28 .. 31) have no device on AN521, as on AN505 (QEMU connects
 * UARTs to expansion lines 0 .. 15, Ethernet to 16, SPI to 51 .. 55, DMA to 56 .. 67):
 * software-only lines. target.toml's
 * irq_soft_top names the highest of them (LAB_TARGET_IRQ_SOFT_TOP). */

/* Two cores: core identity, core 1's release and the doorbell (MHU0, IRQ 6 on each core)
 * for the shared several-core code (target.toml cores = 2). */
#include "sse200_cores.h"

#endif /* MPS2_AN521_H */
