//! straight, Rust version (kernel embassy): a block of exactly 100 data-processing
//! instructions between probe 2 and probe 3 in one asm! statement (the probes are the
//! target's three instructions, as lab::probe! and the C `lab_probe` macro emit them), run
//! 1000 times. Measures exactly 100 instructions, like the C benchmark.
//! Self-check: the block's result equals the same computation in Rust.
#![no_std]

use lab::{check, meta, MetaRec, PROBE_BASE_HI};

const STRAIGHT_ROUNDS: u32 = 1000;

meta!(MetaRec::interval("block_100", 2, 3, "a straight-line assembly block of exactly 100 instructions"));

#[inline(never)]
fn block(seed: u32) -> u32 {
    let mut r0 = seed;
    let r1: u32;
    // SAFETY: register arithmetic and the two probe stores into the probe region.
    unsafe {
        core::arch::asm!(
            "movs {r1}, #0",
            "movw r12, #(2 * 4)",
            "movt r12, #{hi}",
            "str r12, [r12]",
            ".rept 25",
            "adds {r0}, {r0}, #1",
            "eors {r1}, {r1}, {r0}",
            "add {r1}, {r1}, {r0}, lsl #1",
            "subs {r1}, {r1}, #3",
            ".endr",
            "movw r12, #(3 * 4)",
            "movt r12, #{hi}",
            "str r12, [r12]",
            r0 = inout(reg) r0,
            r1 = out(reg) r1,
            hi = const PROBE_BASE_HI,
            out("r12") _,
            options(nostack),
        );
    }
    let _ = r0;
    r1
}

fn reference(seed: u32) -> u32 {
    let mut r0 = seed;
    let mut r1: u32 = 0;
    for _ in 0..25 {
        r0 = r0.wrapping_add(1);
        r1 ^= r0;
        r1 = r1.wrapping_add(r0 << 1);
        r1 = r1.wrapping_sub(3);
    }
    r1
}

/// The benchmark's entry point (lab/bench.h), called by the harness.
#[no_mangle]
pub extern "C" fn lab_bench_run() {
    for i in 0..STRAIGHT_ROUNDS {
        let got = block(i);
        check!(got == reference(i));
    }
}
