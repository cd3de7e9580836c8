//! straight, Rust version (kernel embassy): a block of exactly 100 data-processing
//! instructions between probe 2 and probe 3 in one asm! statement (the probes are the
//! target's three instructions, as lab::probe! and the C `lab_probe` macro emit them), run
//! 1000 times. Measures exactly 100 instructions, like the C benchmark: 25 x 4 on a core
//! with Thumb-2, 20 x 5 on ARMv6-M (no shifted-register add; the same arithmetic with a
//! scratch register, as straight_block.S).
//! Self-check: the block's result equals the same computation in Rust.
#![no_std]

use lab::{check, meta, MetaRec};

const STRAIGHT_ROUNDS: u32 = 1000;

meta!(MetaRec::interval(
    "block_100",
    2,
    3,
    "a straight-line assembly block of exactly 100 instructions"
));

#[cfg(target_feature = "thumb2")]
const ROUNDS_PER_BLOCK: u32 = 25;
#[cfg(not(target_feature = "thumb2"))]
const ROUNDS_PER_BLOCK: u32 = 20;

#[cfg(target_feature = "thumb2")]
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
            hi = const lab::PROBE_BASE_HI,
            out("r12") _,
            options(nostack),
        );
    }
    let _ = r0;
    r1
}

#[cfg(not(target_feature = "thumb2"))]
#[inline(never)]
fn block(seed: u32) -> u32 {
    let mut r0 = seed;
    let r1: u32;
    // SAFETY: register arithmetic and the two probe stores into the probe region (the
    // ARMv6-M probe: r3 from a literal jumped over, as lab::probe!).
    unsafe {
        core::arch::asm!(
            "movs r1, #0",
            "ldr r3, 1f",
            "b 2f",
            ".p2align 2",
            "1:",
            ".word {p2}",
            "2:",
            "str r3, [r3]",
            ".rept 20",
            "adds r0, r0, #1",
            "eors r1, r1, r0",
            "lsls r2, r0, #1",
            "adds r1, r1, r2",
            "subs r1, r1, #3",
            ".endr",
            "ldr r3, 3f",
            "b 4f",
            ".p2align 2",
            "3:",
            ".word {p3}",
            "4:",
            "str r3, [r3]",
            inout("r0") r0,
            out("r1") r1,
            out("r2") _,
            out("r3") _,
            p2 = const lab::PROBE_REGION_BASE + 2 * 4,
            p3 = const lab::PROBE_REGION_BASE + 3 * 4,
            options(nostack),
        );
    }
    let _ = r0;
    r1
}

fn reference(seed: u32) -> u32 {
    let mut r0 = seed;
    let mut r1: u32 = 0;
    for _ in 0..ROUNDS_PER_BLOCK {
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
