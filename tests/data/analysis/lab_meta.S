/* Source of lab_meta.o, a fixture for tests/unit/test_meta_elf.py.
 * Regenerate with:
 *   arm-none-eabi-gcc -mcpu=cortex-m3 -mthumb -c lab_meta.S -o lab_meta.o
 * Two probe metadata records (docs/formats.md section 3) in a non-loaded section.
 */
    .macro lab_meta kind, start, end, flags, name, description
    .word 0x5042414C          /* magic "LABP" */
    .hword 1                  /* version */
    .hword \kind
    .hword \start
    .hword \end
    .word \flags
0:  .ascii "\name"
    .fill 32 - (. - 0b), 1, 0
1:  .ascii "\description"
    .fill 112 - (. - 1b), 1, 0
    .endm

    .section .lab_meta, "", %progbits
    .balign 4
    lab_meta 0, 0, 1, 1, "calibration", "probe cost"
    lab_meta 1, 2, 2, 0, "tick_period", "time between two ticks"

    .text
    .thumb
    .global answer
answer:
    movs r0, #42
    bx lr
