//! Two cores under QEMU (`mps2-an521`: two Cortex-M33): per-core counts are exact, every
//! record names its core, the shared clock runs forward, and a run repeats bit for bit
//! (docs/timing-model.md, "Two cores"; fixture tests/fixtures/smp_test.S); the IT-condition
//! correction lands on the running core's counter.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use common::{
    CORE_TOTAL_ID, FIXTURE_DIR, Trace, assert_plugin_error, parse_trace, run_qemu_on,
    scratch_dir, tools_or_skip,
};

const MACHINE: &str = "mps2-an521";
const REGION: &str = "base=0x80000000,size=0x4000";

/// Assemble smp_test.S for the Cortex-M33 with its own linker script.
fn build(dir: &Path) -> PathBuf {
    let elf = dir.join("smp_test.elf");
    let fx = Path::new(FIXTURE_DIR);
    let out = Command::new("arm-none-eabi-gcc")
        .args(["-mcpu=cortex-m33", "-mthumb", "-nostdlib", "-T"])
        .arg(fx.join("smp_test.ld"))
        .arg("-o")
        .arg(&elf)
        .arg(fx.join("smp_test.S"))
        .output()
        .expect("running arm-none-eabi-gcc");
    assert!(
        out.status.success(),
        "assembling smp_test.S failed:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    elf
}

fn run(dir: &Path, elf: &Path, name: &str, args: &str) -> (Trace, Vec<u8>) {
    let path = dir.join(name);
    let out = run_qemu_on(MACHINE, elf, &path, &format!("{REGION},{args}"), true);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{args}: qemu stderr:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    (parse_trace(&path), std::fs::read(&path).unwrap())
}

/// (probe id, core, the core's own instructions before the store): smp_test.S's comments.
const EXPECTED: [(u32, u16, u64); 9] = [
    (0, 0, 2),
    (1, 0, 10),
    (2, 1, 2),
    (3, 1, 26),
    (4, 0, 0),
    (5, 1, 30),
    (6, 1, 37),
    (7, 1, 41),
    (8, 1, 48),
];

fn check(t: &Trace, modelled: bool) {
    assert_eq!(t.cores, 2, "the machine's two vCPUs");
    let mut ids: Vec<u32> = t.hits.iter().map(|h| h.id).collect();
    ids.sort_unstable();
    assert_eq!(ids, (0..9).collect::<Vec<u32>>(), "every probe once");
    for h in &t.hits {
        let (_, core, insns) = EXPECTED[h.id as usize];
        assert_eq!(h.core, core, "probe {} core", h.id);
        if h.id != 4 {
            // Probe 4 follows core 0's wait for core 1, whose length depends on where
            // QEMU switches cores: not a known answer.
            assert_eq!(h.insns, insns, "probe {} instructions on core {core}", h.id);
        }
        assert!(h.m_insns >= h.insns, "probe {}: shared clock below the core's", h.id);
    }
    for w in t.hits.windows(2) {
        assert!(w[1].m_insns >= w[0].m_insns, "shared instructions run forward");
        assert!(w[1].m_cycles >= w[0].m_cycles, "shared cycles run forward");
    }
    // Each core's own counters run forward too.
    for core in 0..2u16 {
        let own: Vec<(u64, u64)> = t
            .hits
            .iter()
            .filter(|h| h.core == core)
            .map(|h| (h.insns, h.cycles))
            .collect();
        assert!(own.windows(2).all(|w| w[1].0 >= w[0].0 && w[1].1 >= w[0].1));
    }
    assert_eq!(t.core_totals.len(), 2);
    assert!(t.core_totals.iter().all(|c| c.id == CORE_TOTAL_ID));
    let sum_i: u64 = t.core_totals.iter().map(|c| c.insns).sum();
    let sum_c: u64 = t.core_totals.iter().map(|c| c.cycles).sum();
    assert_eq!((t.end.insns, t.end.cycles), (sum_i, sum_c), "end = sum of the cores");
    assert_eq!(t.end.status, 0);
    // Core 1 ran: counted loop and its probes; its total includes them.
    assert!(t.core_totals[1].insns >= 26 + 3);
    if modelled {
        let p3 = t.hits.iter().find(|h| h.id == 3).unwrap();
        let p2 = t.hits.iter().find(|h| h.id == 2).unwrap();
        assert!(p3.cycles > p2.cycles, "core 1's loop costs cycles");
        // The same IT block of two loads on core 1, skipped (5 -> 6) and run (7 -> 8):
        // the skipped one is cheaper on core 1's own counter (a correction added to
        // another core's counter would leave the two equal).
        let at = |id: u32| t.hits.iter().find(|h| h.id == id).unwrap().cycles;
        let (skipped, run) = (at(6) - at(5), at(8) - at(7));
        assert!(skipped < run, "skipped loads {skipped} cycles, run {run}");
    } else {
        assert!(t.hits.iter().all(|h| h.cycles == 0 && h.m_cycles == 0));
    }
}

#[test]
fn two_cores_exact_per_core_counts() {
    let test = "two_cores_exact_per_core_counts";
    if tools_or_skip(test).is_none() {
        return;
    }
    let dir = scratch_dir(test);
    let elf = build(&dir);
    let (t, _) = run(&dir, &elf, "none.bin", "core=none");
    check(&t, false);
    let (t, _) = run(&dir, &elf, "m33.bin", "core=cortex-m33");
    check(&t, true);
}

#[test]
fn two_cores_repeat_bit_for_bit() {
    let test = "two_cores_repeat_bit_for_bit";
    if tools_or_skip(test).is_none() {
        return;
    }
    let dir = scratch_dir(test);
    let elf = build(&dir);
    let (_, a) = run(&dir, &elf, "a.bin", "core=cortex-m33");
    let (_, b) = run(&dir, &elf, "b.bin", "core=cortex-m33");
    assert_eq!(a, b, "the same two-core run twice: identical trace files");
}

#[test]
fn irq_windows_refused_on_two_cores() {
    let test = "irq_windows_refused_on_two_cores";
    if tools_or_skip(test).is_none() {
        return;
    }
    let dir = scratch_dir(test);
    let elf = build(&dir);
    let report = dir.join("w.json");
    let args = format!("{REGION},core=cortex-m33,irq_windows={}", report.display());
    let out = run_qemu_on(MACHINE, &elf, &dir.join("t.bin"), &args, true);
    assert_plugin_error(&out, "irq_windows", 1, "masked windows are tracked for single-core");
}
