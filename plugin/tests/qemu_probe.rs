//! End-to-end: assemble the test firmware (tests/fixtures/probe_test.S), run it under
//! qemu-system-arm (mps2-an385) with the built plugin, and check the trace exactly.
//!
//! Needs `arm-none-eabi-gcc` and `qemu-system-arm` on PATH; without them each test
//! prints that it skipped and passes (with `RTOSLAB_REQUIRE_QEMU=1` it fails instead).
//! The plugin used is target/release/librtoslab_plugin.so, which the tests first build
//! (or find up to date) with `cargo build --release`, or the file named by
//! `$RTOSLAB_PLUGIN_SO`.
//!
//! The trace is parsed here independently of the crate's writer, straight from the
//! layout in docs/formats.md section 2.

mod common;

use std::process::{Command, Stdio};

use common::*;

/// (probe id, instructions since the previous hit) for the default fixture, in hit
/// order; the first entry's distance is from reset. See the comments in probe_test.S.
const EXPECTED: &[(u32, u64)] = &[
    (0, 2),
    (1, 3),
    (2, 3),
    (3, 8), // five nops
    (4, 3),
    (5, 24), // counted loop, 10 rounds of subs+bne
    (6, 3),
    (7, 12), // MMIO load and MMIO store in the middle of a block
    (8, 3),
    (9, 6), // bl / bx lr
    (10, 3),
    (11, 4), // into the SVC handler
    (12, 4), // back from it
    (13, 3),
    (14, 6), // PendSV pended by an ICSR store, taken right after it
    (15, 4),
    (16, 3), // strb to an aligned probe address
    (20, 9), // stack stores and a store past the region are not hits
    (20, 5),
    (20, 5),
    (20, 5),
    (20, 5),
    (21, 5), // r12 form (str.w ip, [ip]), as the firmware's probe
    (22, 3),
    (4095, 3),
];
/// End record total = last hit + this many (its str, b exit, movs, ldr, bkpt).
const TAIL: u64 = 5;

/// (id, instructions since the previous hit) for each hit.
fn distances(t: &Trace) -> Vec<(u32, u64)> {
    t.hits
        .iter()
        .scan(0u64, |prev, r| {
            let d = r.insns - *prev;
            *prev = r.insns;
            Some((r.id, d))
        })
        .collect()
}

fn check_default_trace(t: &Trace) {
    assert_eq!((t.base, t.size), (0x2100_0000, 0x4000));
    assert_eq!(t.flags, 0, "no cycle model");
    assert_eq!(
        distances(t),
        EXPECTED,
        "probe ids and instruction distances"
    );
    assert!(
        t.hits.iter().all(|r| r.cycles == 0),
        "cycle column is 0 without a model"
    );
    assert_eq!(t.end.status, 0, "end status");
    assert_eq!(
        t.end.insns,
        t.hits.last().unwrap().insns + TAIL,
        "end record total"
    );
    assert_eq!(t.end.cycles, 0);
}

#[test]
fn probe_counts_exact_with_icount() {
    let Some(fx) = fixture("probe_counts_exact_with_icount", "probe_test", &[]) else {
        return;
    };
    check_default_trace(&fx.trace("", true));
}

#[test]
fn probe_counts_exact_without_icount() {
    // Without -icount the counts are the same, except that when the PendSV interrupt
    // is taken depends on host timing; the harness always runs with -icount.
    let Some(fx) = fixture("probe_counts_exact_without_icount", "probe_test", &[]) else {
        return;
    };
    let t = fx.trace("", false);
    let upto_13 = EXPECTED.iter().position(|e| e.0 == 13).unwrap() + 1;
    assert_eq!(distances(&t)[..upto_13], EXPECTED[..upto_13]);
    let mut ids: Vec<u32> = t.hits.iter().map(|r| r.id).collect();
    let mut want: Vec<u32> = EXPECTED.iter().map(|e| e.0).collect();
    ids.sort_unstable();
    want.sort_unstable();
    assert_eq!(ids, want, "same hits");
    let full: u64 = EXPECTED.iter().map(|e| e.1).sum::<u64>() + TAIL;
    assert_eq!(t.end.insns, full, "same total");
    assert_eq!(t.end.status, 0);
}

#[test]
fn insn_limit_stops_a_hang() {
    let Some(fx) = fixture("insn_limit_stops_a_hang", "probe_test", &["-DHANG"]) else {
        return;
    };
    let out = fx.run("insn_limit=100000", true);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(124), "exit code; stderr:\n{stderr}");
    assert!(
        stderr.contains("instruction limit 100000 reached"),
        "stderr:\n{stderr}"
    );
    let t = parse_trace(&fx.trace_path());
    assert_eq!(
        t.hits,
        vec![Rec {
            id: 0,
            core: 0,
            status: 0,
            insns: 2,
            cycles: 0,
            m_insns: 2,
            m_cycles: 0
        }]
    );
    assert_eq!(t.end.status, 0b010, "status bit 1 only");
    // The limit is checked when a block that can loop is entered; `b .` is one block
    // of one instruction, so it stops exactly at the limit.
    assert_eq!(t.end.insns, 100_000);
}

#[test]
fn unaligned_probe_store_sets_status_bit_2() {
    let test = "unaligned_probe_store_sets_status_bit_2";
    let Some(fx) = fixture(test, "probe_test", &["-DUNALIGNED"]) else {
        return;
    };
    let t = fx.trace("", true);
    let ids: Vec<(u32, u64)> = t.hits.iter().map(|r| (r.id, r.insns)).collect();
    assert_eq!(
        ids,
        vec![(0, 2), (1, 8)],
        "the unaligned store is not a hit"
    );
    assert_eq!(t.end.status, 0b100);
    assert_eq!(t.end.insns, 8 + TAIL);
}

#[test]
fn record_limit_drops_later_hits() {
    let Some(fx) = fixture("record_limit_drops_later_hits", "probe_test", &[]) else {
        return;
    };
    let t = fx.trace("max_records=3", true);
    let ids: Vec<(u32, u64)> = t.hits.iter().map(|r| (r.id, r.insns)).collect();
    assert_eq!(ids, vec![(0, 2), (1, 5), (2, 8)]);
    assert_eq!(t.end.status, 0b001);
    let full: u64 = EXPECTED.iter().map(|e| e.1).sum::<u64>() + TAIL;
    assert_eq!(t.end.insns, full, "counting goes on after recording stops");
}

#[test]
fn region_arguments_are_used() {
    let Some(fx) = fixture("region_arguments_are_used", "probe_test", &[]) else {
        return;
    };
    // Region of 4 words starting at probe 2's address: probes 2..5 become ids 0..3.
    let t = fx.trace("base=0x21000008,size=16", true);
    assert_eq!((t.base, t.size), (0x2100_0008, 16));
    let ids: Vec<(u32, u64)> = t.hits.iter().map(|r| (r.id, r.insns)).collect();
    assert_eq!(ids, vec![(0, 8), (1, 16), (2, 19), (3, 43)]);
}

#[test]
fn bad_arguments_fail_plugin_install() {
    let Some(fx) = fixture("bad_arguments_fail_plugin_install", "probe_test", &[]) else {
        return;
    };
    for (args, msg) in [
        ("bogus=1", "rtoslab-plugin: unknown argument 'bogus'"),
        (
            "insn_limit=lots",
            "rtoslab-plugin: insn_limit=lots: not an unsigned number",
        ),
        (
            "size=3",
            "rtoslab-plugin: size=0x3: must be a non-zero multiple of 4",
        ),
    ] {
        fx.refuses(args, 1, msg);
    }
    // trace= missing entirely
    let out = Command::new("qemu-system-arm")
        .args([
            "-M",
            "mps2-an385",
            "-display",
            "none",
            "-audio",
            "none",
            "-monitor",
            "none",
            "-serial",
            "none",
        ])
        .arg("-kernel")
        .arg(&fx.elf)
        .arg("-plugin")
        .arg(format!("{},insn_limit=5", plugin_path().display()))
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_plugin_error(
        &out,
        "no trace=",
        1,
        "rtoslab-plugin: missing required argument trace=<file>",
    );
    // an unwritable trace path
    let out = run_qemu(
        &fx.elf,
        std::path::Path::new("/nonexistent-dir/t.bin"),
        "",
        true,
    );
    assert_plugin_error(
        &out,
        "unwritable trace",
        1,
        "rtoslab-plugin: cannot create trace file /nonexistent-dir/t.bin",
    );
}
