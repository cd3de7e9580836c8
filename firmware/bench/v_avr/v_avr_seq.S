/* v_avr's instruction sequences (AVR, avr-gcc's assembler), each between its own probe
 * pair: the cycles of each are the sum of the AVR Instruction Set Manual's AVRe counts
 * (16-bit PC) listed beside it; bench.toml [[validation]] states the sums.
 *
 * uint8_t lab_v_avr_run(void): run every sequence once and return 0x5A. Uses only the
 * call-used registers (r18-r27, r30, r31, r0) and restores r1 to 0 after MUL. */
#include <avr/io.h>
#include "lab_probe_impl.h"

    .section .data.v_avr_buf, "aw"
v_avr_buf:
    .byte 1, 2, 3, 4, 5, 6, 7, 8

    .section .progmem.v_avr_table, "a"
v_avr_table:
    .byte 0x11, 0x22, 0x33, 0x44

    .text
v_avr_ret:
    ret                         /* 4 */

    .global lab_v_avr_run
    .type lab_v_avr_run, @function
lab_v_avr_run:
    /* ALU: ten one-cycle instructions = 10 */
    ldi r19, 3
    lab_probe 2
    add r18, r19                /* 1 */
    sub r18, r19                /* 1 */
    and r18, r19                /* 1 */
    or r18, r19                 /* 1 */
    eor r18, r18                /* 1 */
    mov r18, r19                /* 1 */
    ldi r18, 5                  /* 1 */
    inc r18                     /* 1 */
    swap r18                    /* 1 */
    cpi r18, 0x50               /* 1 */
    lab_probe 3

    /* Data memory: nine two-cycle accesses = 18 */
    ldi r26, lo8(v_avr_buf)
    ldi r27, hi8(v_avr_buf)
    ldi r30, lo8(v_avr_buf)
    ldi r31, hi8(v_avr_buf)
    lab_probe 4
    ld r18, X+                  /* 2 */
    st X, r18                   /* 2 */
    ld r19, -X                  /* 2 */
    ldd r18, Z+1                /* 2 */
    std Z+2, r18                /* 2 */
    lds r18, v_avr_buf          /* 2 */
    sts v_avr_buf+3, r18        /* 2 */
    push r18                    /* 2 */
    pop r18                     /* 2 */
    lab_probe 5

    /* Multiply and word arithmetic: MUL 2, CLR 1, ADIW 2, SBIW 2, MOVW 1 = 8 */
    ldi r18, 7
    ldi r19, 6
    lab_probe 6
    mul r18, r19                /* 2 */
    clr r1                      /* 1 */
    adiw r24, 1                 /* 2 */
    sbiw r24, 1                 /* 2 */
    movw r20, r18               /* 1 */
    lab_probe 7

    /* Calls and returns: CALL 4 + RET 4, RCALL 3 + RET 4, ICALL 3 + RET 4 = 22 */
    ldi r30, pm_lo8(v_avr_ret)
    ldi r31, pm_hi8(v_avr_ret)
    lab_probe 8
    call v_avr_ret              /* 4 + 4 */
    rcall v_avr_ret             /* 3 + 4 */
    icall                       /* 3 + 4 */
    lab_probe 9

    /* Jumps: RJMP 2, JMP 3, IJMP 2 = 7 */
    ldi r30, pm_lo8(3f)
    ldi r31, pm_hi8(3f)
    lab_probe 10
    rjmp 1f                     /* 2 */
1:  jmp 2f                      /* 3 */
2:  ijmp                        /* 2 */
3:  lab_probe 11

    /* Conditional branches: SEZ 1, BREQ taken 2, CLZ 1, BREQ not taken 1 = 5 */
    lab_probe 12
    sez                         /* 1 */
    breq 1f                     /* 2 (taken) */
1:  clz                         /* 1 */
    breq 2f                     /* 1 (not taken) */
2:  lab_probe 13

    /* Skips: 1 without a skip, 2 over one word, 3 over two words. Each skips (or not) an
     * instruction whose cycles differ from its words (ADIW: one word, two cycles), so a
     * wrong outcome shows. TIFR1 reads 0 (timer 1 stopped); GPIOR0 is written only.
     * CPSE skip ADIW 2, CPSE skip LDS 3, CPSE no skip 1 + ADIW 2, SBRS skip ADIW 2,
     * SBRC no skip 1 + ADIW 2, SBIC skip ADIW 2, SBIS no skip 1 + ADIW 2, SBI 2, CBI 2 = 22 */
    ldi r18, 1
    ldi r19, 2
    lab_probe 14
    cpse r18, r18               /* 2 (skips one word) */
    adiw r24, 0
    cpse r18, r18               /* 3 (skips two words) */
    lds r20, v_avr_buf
    cpse r18, r19               /* 1 (no skip) */
    adiw r24, 0                 /* 2 */
    sbrs r18, 0                 /* 2 (skips one word) */
    adiw r24, 0
    sbrc r18, 0                 /* 1 (no skip) */
    adiw r24, 0                 /* 2 */
    sbic _SFR_IO_ADDR(TIFR1), 0 /* 2 (skips one word) */
    adiw r24, 0
    sbis _SFR_IO_ADDR(TIFR1), 0 /* 1 (no skip) */
    adiw r24, 0                 /* 2 */
    sbi _SFR_IO_ADDR(GPIOR0), 0 /* 2 */
    cbi _SFR_IO_ADDR(GPIOR0), 0 /* 2 */
    lab_probe 15

    /* Program memory: LPM Rd, Z+ 3, LPM Rd, Z 3, LPM 3 = 9 */
    ldi r30, lo8(v_avr_table)
    ldi r31, hi8(v_avr_table)
    lab_probe 16
    lpm r18, Z+                 /* 3 */
    lpm r19, Z                  /* 3 */
    lpm                         /* 3 */
    lab_probe 17

    /* Return from interrupt: PUSH 2, PUSH 2, RETI 4 = 8 (RETI sets I: SREG restored after) */
    in r22, _SFR_IO_ADDR(SREG)
    ldi r30, pm_lo8(1f)
    ldi r31, pm_hi8(1f)
    lab_probe 18
    push r30                    /* 2 */
    push r31                    /* 2 */
    reti                        /* 4 */
1:  lab_probe 19
    out _SFR_IO_ADDR(SREG), r22

    /* I/O registers through the data space (QEMU runs these accesses in its full-access
     * mode): LDS 2, STS 2, LD 2, ST 2 = 8 */
    ldi r26, lo8(UBRR0L)
    ldi r27, hi8(UBRR0L)
    lab_probe 20
    lds r18, UBRR0L             /* 2 */
    sts UBRR0L, r18             /* 2 */
    ld r19, X                   /* 2 */
    st X, r19                   /* 2 */
    lab_probe 21

    ldi r24, 0x5A
    ret
    .size lab_v_avr_run, . - lab_v_avr_run
