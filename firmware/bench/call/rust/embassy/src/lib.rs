//! call, Rust version (kernel embassy): probe 2 -> probe 3 around one call of an empty
//! function that is never inlined, as the C benchmark (../../call.c) measures it: the `bl`,
//! the body as compiled (just the return) and the return. With the C smoke benchmarks this
//! proves that Rust probes and .lab_meta records measure exactly what the C ones do (the
//! smoke test expects 2 instructions, as for C).
//! Self-check: the function ran once per sample (it counts its calls).
#![no_std]

use core::sync::atomic::{AtomicU32, Ordering};
use lab::{check, meta, probe, MetaRec};

const CALL_ROUNDS: u32 = 1000;

meta!(MetaRec::interval(
    "empty_call",
    2,
    3,
    "bl to an empty non-inlined function and its return"
));

static CALLS: AtomicU32 = AtomicU32::new(0);

#[inline(never)]
#[no_mangle]
pub extern "C" fn lab_rs_call_empty() {
    // An empty asm: the function is not pure, so it is neither removed nor inlined away.
    // SAFETY: no instructions.
    unsafe { core::arch::asm!("", options(nostack, preserves_flags)) }
}

/// The benchmark's entry point (lab/bench.h), called by the harness.
#[no_mangle]
pub extern "C" fn lab_bench_run() {
    for _ in 0..CALL_ROUNDS {
        probe!(2);
        lab_rs_call_empty();
        probe!(3);
        CALLS.store(CALLS.load(Ordering::Relaxed) + 1, Ordering::Relaxed);
    }
    check!(CALLS.load(Ordering::Relaxed) == CALL_ROUNDS);
}
