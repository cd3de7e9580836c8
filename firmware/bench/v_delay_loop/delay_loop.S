/* A two-instruction delay loop (SUBS, BHI), the shape whose cycles per iteration
 * blaatschaap.be "Wait a microsecond" reports for Cortex-M0, M0+ and M3 parts, written
 * here in ARMv6-M encodings so the same code runs on every core model.
 *
 * uint32_t lab_v_delay_loop(uint32_t n), n >= 1: runs the loop n times (the BHI is taken
 * n - 1 times) and returns 0. Probe 2 before the first SUBS, probe 3 after the last BHI.
 * Guarantee: the loop's two 16-bit instructions share one 32-bit word (.balign 4).
 *
 * lab_v_delay_sram_a / lab_v_delay_sram_b: the same loop, executed from SRAM (the parts
 * of the source ran it from RAM): their code is in a .lab_ramcode section, which the
 * shared linker script places in .data, so the startup copies it into RAM (on the Cortex-M3/M4 the System bus region, 0x20000000 and up) and
 * the linker reaches it from flash through a long-branch veneer. Probes 4/5 (a) and 6/7
 * (b) around the loop; called with n and 1, the difference of the two intervals is n - 1
 * whole iterations (SUBS and a taken BHI), the probes, the call and the last, not-taken
 * BHI cancelling out. Same guarantee on the loop's word. */
#include "lab_probe_impl.h"

    .syntax unified
    .thumb
    .text

    .global lab_v_delay_loop
    .type lab_v_delay_loop, %function
    .balign 4
    .thumb_func
lab_v_delay_loop:
    lab_probe 2
1:
    subs r0, r0, #1
    bhi 1b
    lab_probe 3
    bx lr
    .size lab_v_delay_loop, . - lab_v_delay_loop

/* One SRAM-resident copy of the loop between probes \first and \first + 1. */
    .macro lab_v_delay_sram name, first
    .global \name
    .type \name, %function
    .balign 4
    .thumb_func
\name:
    lab_probe \first
    .balign 4
2:
    subs r0, r0, #1
    bhi 2b
    lab_probe (\first + 1)
    bx lr
    .size \name, . - \name
    .endm

    .section .lab_ramcode.v_delay_loop, "ax", %progbits
    lab_v_delay_sram lab_v_delay_sram_a, 4
    lab_v_delay_sram lab_v_delay_sram_b, 6
