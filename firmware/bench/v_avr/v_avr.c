/*
 * v_avr (validation suite, AVR targets): straight-line AVR instruction sequences
 * (v_avr_seq.S), each between its own probe pair, whose cycles the AVR Instruction Set
 * Manual gives exactly (AVRe column, 16-bit PC): every instruction class of the model,
 * taken and not-taken branches, skips over one and two words, calls and returns, and I/O
 * registers reached through the data space. Reference figures: bench.toml [[validation]].
 * Self-check: the sequence ran to its end.
 */
#include "lab/bench.h"

#define V_AVR_ROUNDS 20

LAB_INTERVAL(alu, 2, 3, "ten one-cycle ALU instructions (ADD SUB AND OR EOR MOV LDI INC SWAP CPI)");
LAB_INTERVAL(data_mem, 4, 5, "LD X+, ST X, LD -X, LDD, STD, LDS, STS, PUSH, POP (SRAM)");
LAB_INTERVAL(mul_word, 6, 7, "MUL, CLR, ADIW, SBIW, MOVW");
LAB_INTERVAL(calls, 8, 9, "CALL+RET, RCALL+RET, ICALL+RET (16-bit PC)");
LAB_INTERVAL(jumps, 10, 11, "RJMP, JMP, IJMP");
LAB_INTERVAL(branches, 12, 13, "SEZ, BREQ taken, CLZ, BREQ not taken");
LAB_INTERVAL(skips, 14, 15, "CPSE/SBRS/SBRC/SBIC/SBIS skipping one word, two words, none; SBI, CBI");
LAB_INTERVAL(lpm, 16, 17, "LPM Rd Z+, LPM Rd Z, LPM");
LAB_INTERVAL(reti, 18, 19, "PUSH, PUSH, RETI");
LAB_INTERVAL(io_data, 20, 21, "LDS, STS, LD, ST on an I/O register (UBRR0L) through the data space");

uint8_t lab_v_avr_run(void);

void lab_bench_run(void)
{
    for (int r = 0; r < V_AVR_ROUNDS; r++) {
        LAB_CHECK(lab_v_avr_run() == 0x5Au);
    }
}
