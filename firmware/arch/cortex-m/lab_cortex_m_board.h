/*
 * The rest of lab/target.h for a real board run through a GDB server with no UART wired up
 * and no benchmark timer written yet (the boards of docs/boards.md: stm32f103-bluepill,
 * stm32f401-nucleo, rp2040-pico, nrf52840-dk): the console is the RAM console the GDB
 * runner reads, then the Cortex-M code every target shares (lab_cortex_m_target.h), the
 * timer declared missing ([lacks] timer in target.toml: benchmarks that need it are n/a),
 * the clock from the build (LAB_TARGET_CLOCK_HZ) and the output register from the board's
 * lab_board.h (LAB_BOARD_OUTPUT_ADDR).
 *
 * Function definitions, not declarations: included once per image by the board's
 * target.c, after its own lab_target_init (its clock setup), the same place and order
 * these definitions had when every board carried its own copy, so the image is what it
 * was. A board that gets a UART or a timer stops including this file and defines those
 * itself, as the emulator targets do.
 */
#ifndef LAB_CORTEX_M_BOARD_H
#define LAB_CORTEX_M_BOARD_H

#include <stdint.h>

#include "lab/target.h"
#include "lab_board.h"
#include "lab_cortex_m.h"

#if !defined(LAB_BOARD_OUTPUT_ADDR)
#error "the board's lab_board.h must define LAB_BOARD_OUTPUT_ADDR (lab_target_output_reg)"
#endif

void lab_target_console_write(const char *buf, uint32_t len)
{
    /* No UART is wired up: a board run's console is the RAM console the GDB runner reads
     * (lab_cortex_m.h; docs/boards.md, "Console"). */
    lab_cm_console_ram_write(buf, len);
}

/* lab_target_exit (buffer mode: lab_board_halt), the IRQ API, the main stack's bounds,
 * the software IRQ lines and the probe buffer. */
#include "lab_cortex_m_target.h"

/* The benchmark timer is not written for these boards yet ([lacks] timer in target.toml):
 * benchmarks that need it are n/a there. The clock: the build's. */
#include "lab_cortex_m_no_timer.h"

volatile uint32_t *lab_target_output_reg(void) { return (volatile uint32_t *)(uintptr_t)LAB_BOARD_OUTPUT_ADDR; }

#endif /* LAB_CORTEX_M_BOARD_H */
