//! Known-answer tests of the cycle model under QEMU: tests/fixtures/cycles_test.S runs
//! on mps2-an385 with `core=...` and the modelled cycles between probes are compared
//! with values worked out by hand from the processors' Technical Reference Manuals.
//!
//! References (the TRM tables list cycle counts with zero-wait-state memory; P is the
//! pipeline refill of a taken branch, N the number of registers transferred):
//! * [M3] Cortex-M3 TRM r2p1 (ARM DDI 0337I), Table 3-1 "Cortex-M3 instruction set
//!   summary" and section 3.3.2 "Load/store timings";
//! * [M4] Cortex-M4 TRM r0p1 (ARM DDI 0439B), Table 3-1;
//! * [M0] Cortex-M0 TRM (ARM DDI 0432C) Table 3-1; [M0+] Cortex-M0+ TRM (ARM DDI 0484C)
//!   Table 3-1 and section 3.6.1 (15-cycle interrupt latency);
//! * exception entry 12 cycles, return 10, tail-chain 6 on the M3/M4 (TRM "Interrupt
//!   latency", "Tail-chaining"); M0 entry 16.
//!
//! The model's own choices where a TRM gives a range (P, "1 or 2", data-dependent
//! counts) are in docs/timing-model.md, config/src/cores/ and src/timing.rs.
//!
//! Every measured interval is probe 2n -> 2n+1 (see the fixture): the snippet plus the
//! probes' share. With zero wait states the share is 4 on every core: the first probe's
//! STR.W (M3/M4: 1, [M3] 3.3.2 "STR Rx,[Ry,#imm] is always one cycle", + 1 because its
//! address register was written by the MOVT just before it, 3.3.2 "Any load or store that
//! generates an address dependent on the result of a preceding data processing operation
//! stalls the pipeline for an additional cycle"; M0/M0+: STR 2) and the second probe's
//! MOVW and MOVT (1 each).

mod common;

use std::path::Path;

use common::*;

/// The probes' share of every interval with zero wait states (see above).
const SHARE: u64 = 4;

struct Run {
    hits: Vec<Rec>,
    flags: u32,
    end: Rec,
}

/// The cycles fixture (see `fixture`).
fn cycles_fixture(test: &str) -> Option<Fixture> {
    fixture(test, "cycles_test", &[])
}

fn handlers(elf: &Path) -> String {
    format!(
        "handlers={:#x};{:#x}",
        symbol(elf, "svc_handler"),
        symbol(elf, "pendsv_handler")
    )
}

fn run(fx: &Fixture, args: &str) -> Run {
    let t = fx.trace(args, true);
    assert_eq!(t.end.status, 0, "{args}: end status");
    Run {
        hits: t.hits,
        flags: t.flags,
        end: t.end,
    }
}

/// Cycles from a hit of `from` to the hit right after it, which must be `to`; the
/// pairs are looked up in execution order, each after the previous one.
fn intervals(r: &Run, pairs: &[(u32, u32)]) -> Vec<u64> {
    let mut at = 0usize;
    let mut out = Vec::new();
    for &(from, to) in pairs {
        let i = (at..r.hits.len().saturating_sub(1))
            .find(|&i| r.hits[i].id == from && r.hits[i + 1].id == to)
            .unwrap_or_else(|| panic!("no hit of probe {from} followed by {to} after hit {at}"));
        out.push(r.hits[i + 1].cycles - r.hits[i].cycles);
        at = i + 1;
    }
    out
}

/// Check `(case, snippet cycles, why)` rows: interval 2n -> 2n+1 = snippet + share.
fn check_cases(r: &Run, what: &str, share: u64, rows: &[(u32, u64, &str)]) {
    let pairs: Vec<(u32, u32)> = rows.iter().map(|&(n, _, _)| (2 * n, 2 * n + 1)).collect();
    let got = intervals(r, &pairs);
    let mut bad = Vec::new();
    for (&(n, want, why), &g) in rows.iter().zip(&got) {
        if g != want + share {
            bad.push(format!(
                "  case {n}: {g} cycles, want {} = {want} + {share} ({why})",
                want + share
            ));
        }
    }
    assert!(bad.is_empty(), "{what}:\n{}", bad.join("\n"));
}

/// Check explicit `(from, to, cycles, why)` intervals.
fn check_pairs(r: &Run, what: &str, rows: &[(u32, u32, u64, &str)]) {
    let pairs: Vec<(u32, u32)> = rows.iter().map(|&(a, b, _, _)| (a, b)).collect();
    let got = intervals(r, &pairs);
    let mut bad = Vec::new();
    for (&(a, b, want, why), &g) in rows.iter().zip(&got) {
        if g != want {
            bad.push(format!("  {a} -> {b}: {g} cycles, want {want} ({why})"));
        }
    }
    assert!(bad.is_empty(), "{what}:\n{}", bad.join("\n"));
}

/// Cortex-M3, zero wait states: one row per instruction class.
const M3_CASES: &[(u32, u64, &str)] = &[
    (
        0,
        0,
        "adjacent probes: the share alone (the calibration pair)",
    ),
    (1, 5, "[M3] NOP 1, ADD 1, MOVW 1, ADD 1, CMP 1"),
    (2, 6, "[M3] MUL 1, MUL 1, MLA 2, MLS 2"),
    (
        3,
        10,
        "[M3] UMULL 3 to 5, SMLAL 4 to 7: div=typ picks 4 and 6",
    ),
    (4, 14, "[M3] UDIV, SDIV 2 to 12: div=typ picks 7"),
    (5, 3, "NOP 1 + [M3] LDR 2"),
    (
        6,
        4,
        "NOP 1 + LDR 2 + LDR 1: [M3] 3.3.2 'LDR R0,[R1]; LDR R1,[R2] - normally three cycles total'",
    ),
    (
        7,
        5,
        "NOP 1 + LDR 2 + LDR 2: the second address is the first's result, no pipelining",
    ),
    (
        8,
        3,
        "LDR 2 + 1: [M3] 3.3.2 'nothing can be pipelined after the store' (the probe's STR)",
    ),
    (
        9,
        5,
        "NOP 1 + ADDS 1 + LDR 2 + 1 address-generation stall ([M3] 3.3.2)",
    ),
    (
        10,
        6,
        "NOP 1 + LDR literal 2 + NOP 1 + LDR register offset 2",
    ),
    (
        11,
        13,
        "NOP, STR imm 1 (3.3.2 'always one cycle'); NOP, STR reg 2; NOP, LDR 2, STR 1 \
         (pipelined after the LDR); NOP, STR 1, STR 1+1 (after a store)",
    ),
    (
        12,
        8,
        "NOP 1 + LDRD 3 + NOP 1 + STRD 3 ([M3] 1+N; 3.3.2 'LDRD ... 3 cycles')",
    ),
    (13, 19, "NOP 1 + PUSH 1+4 + POP 1+4 + LDM 1+3 + STM 1+3"),
    (
        14,
        2,
        "[M3] B 1+P, P = 1 (target computed in decode, aligned)",
    ),
    (
        15,
        3,
        "B 1+P, P = 2: the 32-bit target is at a halfword offset (two fetches)",
    ),
    (
        16,
        4,
        "BL 1+P (P 1) + BX LR 1+P (P 1: LR forwarded at decode, M3 TRM r2p0 Table 15-3)",
    ),
    (
        17,
        9,
        "BL 2 + PUSH {lr} 1+1 + POP {pc} 1+N+P (N 1, P 3: loaded target)",
    ),
    (
        18,
        4,
        "CMP 1 + B<c> not taken 1 ([M3] '1 or 1+P') + NOP 1 + NOP 1",
    ),
    (19, 3, "CMP 1 + B<c> taken 1+P (P 1)"),
    (
        20,
        9,
        "MOVS 1 + 3 x SUBS 1 + 2 x BNE taken 2 + BNE not taken 1",
    ),
    (
        21,
        3,
        "[M3] CBZ taken 1+P (P 2: target issued at execute, M3 TRM r2p0 Table 15-3)",
    ),
    (
        22,
        7,
        "NOP 1 + [M3] TBB 2+P; 3.3.2 'two cycles for the load, one cycle for the add, and three cycles for the pipeline reload'",
    ),
    (23, 5, "ADR 1 + ADDS 1 + BX r0 1+P (P 2)"),
    (24, 4, "CMP 1 + IT 1 + MOVEQ 1 + MOVNE 1 (skipped, still 1)"),
    (
        25,
        3,
        "CMP 1 + IT 1 + LDREQ skipped 1 (docs/timing-model.md, \"Conditional execution\")",
    ),
    (
        26,
        10,
        "[M3] MSR 1 or 2: 2; MRS 1 or 2: 1; CPSID 1; CPSIE 1; DMB 1+B: 1; DSB 1; ISB 1+B, B = a refill: 3",
    ),
    (
        30,
        6,
        "NOP 1 + LDR literal 2 + LDR 2 (an MMIO load; QEMU splits the block there) + NOP 1",
    ),
    (
        31,
        7,
        "BL 1+1 + MOV 1 + MOV LR 1 + BX LR 1+P (P 2: 'LR being written during decode', Table 15-3)",
    ),
];

/// The exception cases on the M3 (probes 100, 102: SVC handler; 104: PendSV handler).
fn m3_exceptions(entry: u64, ret: u64, tail: u64) -> Vec<(u32, u32, u64, &'static str)> {
    // SVC handler prologue: LDR literal 2, LDR 2 (address from the literal), ADDS 1,
    // STR 1, CMP 1: 7; then BEQ not taken 1 (first call) or taken 2 (second call).
    // Latencies overlap their cause (ARM knowledge article 103489845): the SVC's cycle
    // is the first of the entry, the BX LR's the first of the return or tail-chain.
    vec![
        (
            54,
            100,
            2 + entry + 7 + 1 + 2,
            "probe STR 2, SVC + entry, prologue 7, BEQ 1, MOVW+MOVT 2",
        ),
        (
            100,
            55,
            2 + ret + 2,
            "probe STR 2, BX LR + exception return, MOVW+MOVT 2",
        ),
        (
            56,
            104,
            2 + 3 + 1 + 1 + entry + 2,
            "probe STR 2, LDR literal 2+1 (after the STR), MOV.W 1, STR to ICSR 1, PendSV entry right after it, MOVW+MOVT 2",
        ),
        (104, 57, 2 + ret + 2, "return from PendSV"),
        (
            58,
            102,
            2 + entry + 7 + 2 + 2 + 1 + 1 + 2,
            "SVC + entry, prologue 7, BEQ taken 2, LDR literal 2, MOV.W 1, STR to ICSR 1 (PendSV pends)",
        ),
        (
            102,
            104,
            2 + tail + 2,
            "BX LR + exception return tail-chained into PendSV",
        ),
        (104, 59, 2 + ret + 2, "return from PendSV to the thread"),
    ]
}

#[test]
fn cortex_m3_known_answers() {
    let Some(fx) = cycles_fixture("cortex_m3_known_answers") else {
        return;
    };
    let r = run(&fx, &format!("core=cortex-m3,{}", handlers(&fx.elf)));
    assert_eq!(r.flags, 1, "header flag bit 0: cycles modelled");
    assert!(
        r.end.cycles >= r.end.insns,
        "every instruction costs at least 1 cycle here"
    );
    check_cases(&r, "cortex-m3", SHARE, M3_CASES);
    check_pairs(&r, "cortex-m3 exceptions", &m3_exceptions(12, 10, 6));
}

#[test]
fn cortex_m4_multiplies_are_single_cycle() {
    let Some(fx) = cycles_fixture("cortex_m4_multiplies_are_single_cycle") else {
        return;
    };
    let r = run(&fx, &format!("core=cortex-m4,{}", handlers(&fx.elf)));
    // [M4] Table 3-1: MUL, MLA, MLS, UMULL, SMLAL 1; divide 2 to 12 as the M3.
    let mut rows: Vec<(u32, u64, &str)> = vec![
        (2, 4, "[M4] MUL 1, MUL 1, MLA 1, MLS 1"),
        (3, 2, "[M4] UMULL 1, SMLAL 1"),
    ];
    // everything else as the M3
    rows.extend(M3_CASES.iter().filter(|c| c.0 != 2 && c.0 != 3));
    rows.sort_by_key(|c| c.0);
    check_cases(&r, "cortex-m4", SHARE, &rows);
    check_pairs(&r, "cortex-m4 exceptions", &m3_exceptions(12, 10, 6));
}

#[test]
fn div_policy_min_and_max() {
    let Some(fx) = cycles_fixture("div_policy_min_and_max") else {
        return;
    };
    for (div, mul, divide) in [("min", 3 + 4, 2 + 2), ("max", 5 + 7, 12 + 12)] {
        let r = run(&fx, &format!("core=cortex-m3,div={div}"));
        check_cases(
            &r,
            div,
            SHARE,
            &[
                (3, mul, "[M3] UMULL 3 to 5, SMLAL 4 to 7"),
                (4, divide, "[M3] UDIV, SDIV 2 to 12"),
                (5, 3, "unaffected"),
            ],
        );
    }
}

#[test]
fn cortex_m0_and_m0plus() {
    let Some(fx) = cycles_fixture("cortex_m0_and_m0plus") else {
        return;
    };
    // The fixture is ARMv7-M code (the emulated core is an M3); its Thumb-1 instructions
    // are costed from the ARMv6-M tables, the probe's MOVW/MOVT/STR.W as ALU 1 / STR 2,
    // so the share is still 4 (STR 2, no address-generation stall on ARMv6-M).
    let m0: &[(u32, u64, &str)] = &[
        (0, 0, "share: [M0] STR 2, MOVW 1, MOVT 1"),
        (6, 5, "NOP 1 + LDR 2 + LDR 2: no load pipelining"),
        (8, 2, "[M0] LDR 2: no store data-phase stall"),
        (13, 19, "NOP 1 + PUSH 1+N + POP 1+N + LDM 1+N + STM 1+N"),
        (14, 3, "[M0] B 3 (no alignment penalty on ARMv6-M)"),
        (15, 3, "[M0] B 3"),
        (16, 7, "[M0] BL 4 + BX 3"),
        (17, 11, "[M0] BL 4 + PUSH 1+1 + POP {pc} 4+N (N 1)"),
        (18, 4, "CMP 1 + [M0] B<c> not taken 1 + NOP + NOP"),
        (19, 4, "CMP 1 + [M0] B<c> taken 3"),
        (20, 11, "MOVS 1 + 3 x SUBS + 2 x BNE taken 3 + BNE 1"),
        (
            26,
            22,
            "[M0] MSR 4, MRS 4, CPSID 1, CPSIE 1, DMB 4, DSB 4, ISB 4",
        ),
    ];
    let r = run(&fx, &format!("core=cortex-m0,{}", handlers(&fx.elf)));
    check_cases(&r, "cortex-m0", SHARE, m0);
    // [M0] entry 16; return 12 = unstacking 1+8 + refill 3 (the model's derivation).
    // Prologue: LDR literal 2, LDR 2, ADDS 1, STR 2, CMP 1, BEQ not taken 1.
    check_pairs(
        &r,
        "cortex-m0 exceptions",
        &[
            (
                54,
                100,
                2 + 16 + 9 + 2,
                "STR 2, SVC + entry 16 (the SVC's cycle is the entry's first), prologue 9, MOVW+MOVT",
            ),
            (
                100,
                55,
                2 + 1 + 12 + 2,
                "STR 2, BX LR 1, return 12, MOVW+MOVT",
            ),
        ],
    );
    let m0p: &[(u32, u64, &str)] = &[
        (14, 2, "[M0+] B 2"),
        (16, 5, "[M0+] BL 3 + BX 2"),
        (17, 9, "[M0+] BL 3 + PUSH 1+1 + POP {pc} 3+N (N 1)"),
        (19, 3, "CMP 1 + [M0+] B<c> taken 2"),
        (
            26,
            17,
            "[M0+] MSR 3, MRS 3, CPSID 1, CPSIE 1, DMB 3, DSB 3, ISB 3",
        ),
    ];
    let r = run(&fx, &format!("core=cortex-m0plus,{}", handlers(&fx.elf)));
    check_cases(&r, "cortex-m0plus", SHARE, m0p);
    check_pairs(
        &r,
        "cortex-m0plus exceptions",
        &[
            (
                54,
                100,
                2 + 15 + 9 + 2,
                "[M0+] 3.6.1 entry 15, the SVC's cycle its first",
            ),
            (100, 55, 2 + 1 + 11 + 2, "return 11 = 1+8 + refill 2"),
        ],
    );
}

/// Flash wait states (code and literals at 0x0 in the flash region), with and without
/// the prefetch buffer. Without it the fetch unit runs one 32-bit word ahead of
/// execution: a word takes 1 + ws cycles to fetch, overlapped with the execution of the
/// previous word's instructions; the instruction that needs a new word waits for the
/// rest. The model's own rule (docs/timing-model.md), worked by hand here.
#[test]
fn flash_wait_states_and_prefetch() {
    let Some(fx) = cycles_fixture("flash_wait_states_and_prefetch") else {
        return;
    };
    let base = "core=cortex-m3,flash=0x0:0x400000,sram=0x20000000:0x10000";
    let r = run(&fx, &format!("{base},flash_ws=2,prefetch=off"));
    // STM32F1 flash (RM0008 3.3.3): a 64-bit line per read of 1 + 2 = 3 cycles; without
    // the prefetch buffer the read of a line starts when the core asks for its first word,
    // one 32-bit word ahead of execution, so a new line waits 3 - (cycles of the word
    // before it); a second word of the same line costs nothing. Calibration pair: STR.W
    // at 0x54 (line 0x50 already read) 2 | MOVW at 0x58 (new line, 3 - 2) 2 | MOVT 1 = 5.
    check_pairs(
        &r,
        "flash_ws=2 prefetch=off",
        &[
            (0, 1, 5, "STR.W 2, MOVW 1+1, MOVT 1"),
            // STR.W 2 | NOP 0x70 (new line, 3 - 2) 2 | ADDS 1 | MOVW 1 | ADD.W 0x78 (new
            // line, 3 - 1) 3 | CMP 1 | MOVW 0x7e (straddles into line 0x80, 3 - 1) 3 |
            // MOVT 1
            (2, 3, 2 + 2 + 1 + 1 + 3 + 1 + 3 + 1, "case 1: fetch-bound"),
            // STR.W 2 | NOP 0x198 (new line, 3 - 2) 2 | LDR literal 2 + 2 data wait states
            // (the literal is in flash) | NOP 1 | LDR [r4, r6] 2 (SRAM, 0 wait states) |
            // MOVW 0x1a0 (new line, 3 - 3 = 0) 1 | MOVT 1
            (
                20,
                21,
                2 + 2 + 4 + 1 + 2 + 1 + 1,
                "case 10: literal load pays flash_ws",
            ),
            // STR.W 2 | B 0x230 (new line, 3 - 2) 1+1, taken: P 1 + the target's line 2 |
            // MOVW 0x234 1 | MOVT 0x238 (new line, 3 - 1) 3
            (
                28,
                29,
                2 + 2 + 3 + 1 + 3,
                "case 14: a taken branch refetches with wait states",
            ),
        ],
    );
    let r = run(&fx, &format!("{base},flash_ws=2,prefetch=on"));
    // Prefetch buffer (two 64-bit lines): the next line is read while the current one
    // executes, so a new line waits 3 - (cycles executed in the line before it): free for
    // lines of 3 or more cycles, not for every line. Literal loads and branch targets pay
    // the wait states.
    check_pairs(
        &r,
        "flash_ws=2 prefetch=on",
        &[
            (0, 1, SHARE, "MOVW 0x58: line 0x50 ran 3 cycles: no wait"),
            // as at zero wait states, but MOVW 0x7e needs line 0x80 after 2 cycles of
            // line 0x78 (ADD.W, CMP): 1 wait
            (2, 3, SHARE + 5 + 1, "case 1: one line executes in 2 cycles"),
            (20, 21, SHARE + 6 + 2, "case 10: the literal load pays 2"),
            // the target's line 2; then MOVT 0x238 needs the next line 1 cycle after the
            // target's line arrived: 3 - 1 = 2
            (
                28,
                29,
                SHARE + 2 + 2 + 2,
                "case 14: the branch target fetch pays 2, its next line 2",
            ),
        ],
    );
    let z = run(&fx, "core=cortex-m3");
    assert!(
        r.end.cycles > z.end.cycles,
        "flash wait states raise the total: {} vs {}",
        r.end.cycles,
        z.end.cycles
    );
}

/// SRAM wait states: data accesses to SRAM (memory callbacks) and exception stacking.
#[test]
fn sram_wait_states() {
    let Some(fx) = cycles_fixture("sram_wait_states") else {
        return;
    };
    let r = run(
        &fx,
        &format!(
            "core=cortex-m3,sram=0x20000000:0x10000,sram_ws=1,{}",
            handlers(&fx.elf)
        ),
    );
    // The probe region (0x21000000) is outside the SRAM region: the share is unchanged.
    check_cases(
        &r,
        "sram_ws=1",
        SHARE,
        &[
            (0, 0, "no SRAM access"),
            (5, 3 + 1, "one SRAM load"),
            (11, 13 + 6, "six SRAM accesses (five stores, one load)"),
            (
                13,
                19 + 14,
                "PUSH 4, POP 4, LDM 3, STM 3 words, all in SRAM (the stack too)",
            ),
        ],
    );
    check_pairs(
        &r,
        "sram_ws=1 exceptions",
        &[
            (
                54,
                100,
                24 + 8 + 2,
                "entry stacks 8 words; the handler loads and stores a counter",
            ),
            (100, 55, 14 + 8, "return unstacks 8 words"),
        ],
    );
}

/// The handler list is no longer needed (it was: without it a tail-chain read as a return
/// and the PendSV handler's return as a plain BX LR).
#[test]
fn exceptions_need_no_handler_list() {
    // Without `handlers=` the plugin reads the machine where it decides something (the
    // PC value an exception-return-capable branch loads while an exception is active, and
    // the live vector table), so every exception case prices exactly as with the list.
    let Some(fx) = cycles_fixture("exceptions_need_no_handler_list") else {
        return;
    };
    let r = run(&fx, "core=cortex-m3");
    check_pairs(&r, "no handlers=", &m3_exceptions(12, 10, 6));
}

#[test]
fn no_model_and_bad_model_arguments() {
    let Some(fx) = cycles_fixture("no_model_and_bad_model_arguments") else {
        return;
    };
    for args in ["", "core=none", "core=none,flash=0x0:0x1000,flash_ws=3"] {
        let r = run(&fx, args);
        assert_eq!(r.flags, 0, "{args}: no model, flag bit 0 clear");
        assert!(
            r.hits.iter().all(|h| h.cycles == 0) && r.end.cycles == 0,
            "{args}"
        );
    }
    for (args, msg) in [
        (
            "core=cortex-m7",
            "rtoslab-plugin: core=cortex-m7: cortex-m7 timing is not modelled; use --timing core=none for instruction counts",
        ),
        (
            "core=cortex-m9",
            "rtoslab-plugin: core=cortex-m9: unknown core (known: cortex-m3",
        ),
        (
            "core=cortex-m3,div=avg",
            "rtoslab-plugin: div=avg: expected min, typ or max",
        ),
        (
            "core=cortex-m3,prefetch=1",
            "rtoslab-plugin: prefetch=1: expected on or off",
        ),
        (
            "core=cortex-m3,flash_ws=2",
            "rtoslab-plugin: flash_ws=2 needs the flash region",
        ),
        (
            "core=cortex-m3,prefetch=on",
            "rtoslab-plugin: prefetch=on needs the flash region",
        ),
        (
            "core=cortex-m3,sram=0x20000000",
            "rtoslab-plugin: sram=0x20000000: expected BASE:SIZE",
        ),
    ] {
        fx.refuses(args, 1, msg);
    }
}

/// A handler installed at run time into a RAM vector table, never declared: priced like
/// the declared one (tests/fixtures/runtime_vector_test.S). `handlers=` lists what the
/// host finds in the image (the handlers of its own table), as `rtoslab run` passes it.
#[test]
fn runtime_installed_handlers() {
    let Some(fx) = fixture("runtime_installed_handlers", "runtime_vector_test", &[]) else {
        return;
    };
    let declared = format!(
        "handlers={:#x};{:#x}",
        symbol(&fx.elf, "svc_handler"),
        symbol(&fx.elf, "pendsv_handler")
    );
    for args in [
        format!("core=cortex-m3,{declared}"),
        "core=cortex-m3".to_string(),
    ] {
        let r = run(&fx, &args);
        let first = intervals(&r, &[(0, 1), (1, 2), (2, 3)]);
        let late = intervals(&r, &[(10, 11), (11, 12), (12, 13)]);
        assert_eq!(
            late, first,
            "{args}: the installed handlers (probes 10..13) against the image's (0..3)"
        );
        // The BX LR's cycle is the first of the tail-chain or return (latencies overlap
        // their cause: see m3_exceptions).
        assert_eq!(
            first[1],
            2 + 6 + 2,
            "{args}: probe STR 2, BX LR + tail-chain 6, MOVW+MOVT 2"
        );
        assert_eq!(
            first[2],
            2 + 10 + 2,
            "{args}: probe STR 2, BX LR + return 10, MOVW+MOVT 2"
        );
    }
}

/// FP context stacking on a Cortex-M4 with FPU (mps2-an386; tests/fixtures/
/// fp_context_test.S): an exception taken with an active FP context (CONTROL.FPCA = 1)
/// costs the same as without while the handler uses no FP (lazy stacking: the space is
/// reserved, nothing is written); a handler that executes an FP instruction pays the
/// deferred save of the 17 FP words (S0-S15, FPSCR) and the return their restore; with
/// FPCCR.LSPEN = 0 they are saved on entry and restored on return (docs/timing-model.md,
/// "FP context"; ARM AN298). With the M3's table (no FPU priced) nothing changes.
#[test]
fn fp_context_stacking() {
    let Some(fx) = fixture("fp_context_stacking", "fp_context_test", &[]) else {
        return;
    };
    const W: u64 = 17;
    let scenario = |hits: &[Rec], a: u32, h: u32| -> [u64; 3] {
        let r = Run {
            hits: hits.to_vec(),
            flags: 0,
            end: hits[0],
        };
        let got = intervals(&r, &[(a, h), (h, h + 1), (h + 1, a + 3)]);
        [got[0], got[1], got[2]]
    };
    for core in ["cortex-m4", "cortex-m3"] {
        let args = format!("core={core},{}", handlers(&fx.elf));
        let t = fx.trace_on("mps2-an386", &args, true);
        assert_eq!(t.end.status, 0, "{args}");
        let svc_basic = scenario(&t.hits, 10, 1);
        let pend_basic = scenario(&t.hits, 20, 5);
        let svc_lazy = scenario(&t.hits, 30, 1);
        let pend_lazy = scenario(&t.hits, 40, 5);
        let svc_eager = scenario(&t.hits, 50, 1);
        let w = if core == "cortex-m4" { W } else { 0 };
        assert_eq!(
            svc_lazy, svc_basic,
            "{core}: lazy frame, no FP in the handler"
        );
        assert_eq!(
            pend_lazy,
            [pend_basic[0], pend_basic[1] + w, pend_basic[2] + w],
            "{core}: deferred save at the handler's VADD, restore on return"
        );
        assert_eq!(
            svc_eager,
            [svc_basic[0] + w, svc_basic[1], svc_basic[2] + w],
            "{core}: LSPEN = 0: saved on entry, restored on return"
        );
    }
}

/// Instructions skipped by their IT condition (tests/fixtures/it_cond_test.S, on
/// mps2-an386): a skipped instruction costs 1 cycle, like a NOP in its place
/// (docs/timing-model.md, "Conditional execution"); the same instruction whose condition
/// passes costs its Table 3-1 count. MOVS 1, CMP/TST 1, IT 1 in every case.
#[test]
fn it_condition() {
    let Some(fx) = fixture("it_condition", "it_cond_test", &[]) else {
        return;
    };
    // (case, M3 table, M4 table, why)
    let rows: &[(u32, u64, u64, &str)] = &[
        (0, 0, 0, "the calibration pair"),
        (1, 3 + 2, 3 + 2, "LDREQ passes: [M3] LDR 2"),
        (2, 3 + 1, 3 + 1, "LDREQ fails: 1"),
        (3, 3 + 5, 3 + 5, "STMEQ {r0-r3} passes: [M3] STM 1+N = 5"),
        (4, 3 + 1, 3 + 1, "STMEQ fails: 1"),
        (
            5,
            3 + 1 + 6,
            3 + 1 + 1,
            "LDREQ fails 1, UMLALNE runs: [M3] 4 to 7, div=typ 6; [M4] 1",
        ),
        (6, 3 + 2 + 1, 3 + 2 + 1, "LDREQ runs 2, UMLALNE fails 1"),
        (
            7,
            3 + 1,
            3 + 17,
            "VSTMDBEQ {s16-s31} passes: [M4] Table 7-1 VSTM 1+N = 17; the M3 table prices no FPU: 1",
        ),
        (8, 3 + 1, 3 + 1, "VSTMDBEQ fails: 1"),
        (
            9,
            2 + 1,
            2 + 1,
            "CMP 1, IT 1, LDREQ.W fails 1, in the next translation block (page crossing)",
        ),
        (10, 2 + 2, 2 + 2, "the same, passing: LDR 2"),
    ];
    for core in ["cortex-m3", "cortex-m4"] {
        let t = fx.trace_on("mps2-an386", &format!("core={core}"), true);
        assert_eq!(t.end.status, 0, "{core}: end status");
        let r = Run {
            hits: t.hits,
            flags: t.flags,
            end: t.end,
        };
        let case_rows: Vec<(u32, u64, &str)> = rows
            .iter()
            .map(|&(n, m3, m4, why)| (n, if core == "cortex-m3" { m3 } else { m4 }, why))
            .collect();
        check_cases(&r, core, SHARE, &case_rows);
    }
}
