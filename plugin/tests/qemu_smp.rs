//! Two cores under QEMU (`mps2-an521`: two Cortex-M33): per-core counts are exact, every
//! record names its core, the shared clock runs forward, and a run repeats bit for bit
//! (docs/timing-model.md, "Two cores"; fixture tests/fixtures/smp_test.S); the IT-condition
//! correction lands on the running core's counter. With exceptions and masking on both
//! cores (tests/fixtures/smp_irq_test.S): the event file (version 2) names each event's
//! core with the shared clock, the masked-window report is per core, and both repeat
//! bit for bit.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use common::{
    CORE_TOTAL_ID, FIXTURE_DIR, Trace, parse_trace, run_qemu_on, scratch_dir, tools_or_skip,
};

const MACHINE: &str = "mps2-an521";
const REGION: &str = "base=0x80000000,size=0x4000";

/// Assemble smp_test.S for the Cortex-M33 with its own linker script.
fn build(dir: &Path) -> PathBuf {
    build_named(dir, "smp_test")
}

/// Assemble fixture `name`.S (two cores, smp_test.ld).
fn build_named(dir: &Path, name: &str) -> PathBuf {
    build_with(dir, name, &[])
}

/// Assemble fixture `name`.S with preprocessor `defines` (`-DNAME=VALUE`).
fn build_with(dir: &Path, name: &str, defines: &[&str]) -> PathBuf {
    let tag: String = defines.iter().map(|d| format!("-{d}")).collect();
    let elf = dir.join(format!("{name}{tag}.elf"));
    let fx = Path::new(FIXTURE_DIR);
    let out = Command::new("arm-none-eabi-gcc")
        .args(["-mcpu=cortex-m33", "-mthumb", "-nostdlib"])
        .args(defines.iter().map(|d| format!("-D{d}")))
        .arg("-T")
        .arg(fx.join("smp_test.ld"))
        .arg("-o")
        .arg(&elf)
        .arg(fx.join(format!("{name}.S")))
        .output()
        .expect("running arm-none-eabi-gcc");
    assert!(
        out.status.success(),
        "assembling {name}.S failed:\n{}",
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
        assert!(
            h.m_insns >= h.insns,
            "probe {}: shared clock below the core's",
            h.id
        );
    }
    for w in t.hits.windows(2) {
        assert!(
            w[1].m_insns >= w[0].m_insns,
            "shared instructions run forward"
        );
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
    assert_eq!(
        (t.end.insns, t.end.cycles),
        (sum_i, sum_c),
        "end = sum of the cores"
    );
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

/// One event record of a version 2 event file: (kind, core, pc, insns, cycles, shared
/// insns, shared cycles).
type Ev = (u16, u16, u32, u64, u64, u64, u64);

fn parse_events_v2(b: &[u8]) -> Vec<Ev> {
    assert_eq!(&b[0..8], b"RTLEVENT");
    let u32_at = |at: usize| u32::from_le_bytes(b[at..at + 4].try_into().unwrap());
    assert_eq!(
        (u32_at(8), u32_at(12)),
        (2, 40),
        "two vCPUs: event file version 2"
    );
    b[32..]
        .chunks_exact(40)
        .map(|r| {
            let u16_at = |at: usize| u16::from_le_bytes(r[at..at + 2].try_into().unwrap());
            let u64_at = |at: usize| u64::from_le_bytes(r[at..at + 8].try_into().unwrap());
            let pc = u32::from_le_bytes(r[4..8].try_into().unwrap());
            (
                u16_at(0),
                u16_at(2),
                pc,
                u64_at(8),
                u64_at(16),
                u64_at(24),
                u64_at(32),
            )
        })
        .collect()
}

/// smp_irq_test.S with events and masked windows: (trace bytes, trace, event file
/// bytes, masked-window report).
fn run_irq(dir: &Path, elf: &Path, tag: &str) -> (Vec<u8>, Trace, Vec<u8>, String) {
    let ev = dir.join(format!("{tag}.ev"));
    let win = dir.join(format!("{tag}.json"));
    let args = format!(
        "core=cortex-m33,prio_bits=3,events={},irq_windows={}",
        ev.display(),
        win.display()
    );
    let (t, bytes) = run(dir, elf, &format!("{tag}.bin"), &args);
    (
        bytes,
        t,
        std::fs::read(&ev).unwrap(),
        std::fs::read_to_string(&win).unwrap(),
    )
}

#[test]
fn two_cores_events_carry_core_and_shared_clock() {
    let test = "two_cores_events_carry_core_and_shared_clock";
    if tools_or_skip(test).is_none() {
        return;
    }
    let dir = scratch_dir(test);
    let elf = build_named(&dir, "smp_irq_test");
    let (_, t, ev, _) = run_irq(&dir, &elf, "a");
    let evs = parse_events_v2(&ev);
    let (end, evs) = evs.split_last().unwrap();
    assert_eq!(end.0, 0xFFFF, "end record");
    assert_eq!(
        (end.3, end.4),
        (t.end.insns, t.end.cycles),
        "end: the machine's totals"
    );
    // An SVC entry and its return on each core, in order on each core.
    for core in 0..2u16 {
        let kinds: Vec<u16> = evs.iter().filter(|e| e.1 == core).map(|e| e.0).collect();
        assert_eq!(kinds, vec![1, 2], "core {core}: entry, return");
    }
    // The handler's probe (11) on each core lies between that core's entry and return,
    // on the core's own counts and on the shared clock.
    for core in 0..2u16 {
        let on: Vec<&Ev> = evs.iter().filter(|e| e.1 == core).collect();
        let h = t
            .hits
            .iter()
            .find(|h| h.id == 11 && h.core == core)
            .expect("probe 11");
        assert!(
            on[0].3 <= h.insns && h.insns <= on[1].3,
            "core {core} own counts"
        );
        assert!(
            on[0].5 <= h.m_insns && h.m_insns <= on[1].5,
            "core {core} shared clock"
        );
        assert!(
            on[0].5 >= on[0].3,
            "shared clock at or above the core's own"
        );
    }
    assert!(
        evs.windows(2).all(|w| w[1].5 >= w[0].5 && w[1].6 >= w[0].6),
        "the shared clock runs forward across cores"
    );
}

/// The level objects of a several-core masked-window report: (core, level, count,
/// masked instructions) per level.
fn levels(report: &str) -> Vec<(u64, u64, u64, u64)> {
    let field = |obj: &str, key: &str| -> u64 {
        let at = obj
            .find(&format!("\"{key}\":"))
            .unwrap_or_else(|| panic!("{key} in {obj}"));
        obj[at + key.len() + 3..]
            .chars()
            .take_while(char::is_ascii_digit)
            .collect::<String>()
            .parse()
            .unwrap()
    };
    let body = &report[report.find("\"levels\":[").unwrap()..];
    body.split("{\"level\":")
        .skip(1)
        .map(|obj| {
            let obj = format!("{{\"level\":{obj}");
            (
                field(&obj, "core"),
                field(&obj, "level"),
                field(&obj, "count"),
                field(&obj, "masked_insns"),
            )
        })
        .collect()
}

#[test]
fn irq_windows_per_core() {
    let test = "irq_windows_per_core";
    if tools_or_skip(test).is_none() {
        return;
    }
    let dir = scratch_dir(test);
    let elf = build_named(&dir, "smp_irq_test");
    let (_, _, _, report) = run_irq(&dir, &elf, "a");
    assert!(report.contains("\"cores\":2,"), "{report}");
    let lv = levels(&report);
    assert_eq!(lv.len(), 16, "8 levels (prio_bits=3) on each of 2 cores");
    for &(core, level, count, masked) in &lv {
        // Core 0: a PRIMASK window (every level) and its SVC handler (every level).
        // Core 1: a BASEPRI window at 0x40 (levels 2..7: group priority >= 0x40) and its
        // SVC handler (every level).
        // Masked instructions, from the fixture: PRIMASK 4 (probe 10 and CPSIE),
        // BASEPRI 5 (probe 12, MOVS, MSR), each SVC handler 4 (probe 11, BX LR).
        let want = match (core, level) {
            (0, _) => (2, 4 + 4),
            (_, 0..=1) => (1, 4),
            _ => (2, 5 + 4),
        };
        assert_eq!(
            (count, masked),
            want,
            "core {core} level {level}: windows, instructions"
        );
    }
    // The PRIMASK window is core 0's alone, the BASEPRI one core 1's alone.
    let core_part = |c: &str| {
        let at = report.find(&format!("\"core\":{c}}}")).unwrap();
        report[..at].to_string()
    };
    assert!(core_part("0").contains("\"cause\":\"primask\""));
    assert!(!core_part("0").contains("\"cause\":\"basepri\""));
    assert!(report.contains("\"cause\":\"basepri\""));
}

#[test]
fn irq_windows_of_a_one_core_program_on_two_cores() {
    let test = "irq_windows_of_a_one_core_program_on_two_cores";
    if tools_or_skip(test).is_none() {
        return;
    }
    let dir = scratch_dir(test);
    let elf = build_with(&dir, "smp_irq_test", &["ONE_CORE=1"]);
    let (_, t, _, report) = run_irq(&dir, &elf, "a");
    assert_eq!(t.core_totals[1].insns, 0, "core 1 never left reset");
    // The one-core report: no core keys, core 0's 8 levels (PRIMASK and SVC windows).
    assert!(
        !report.contains("\"cores\"") && !report.contains("\"core\""),
        "{report}"
    );
    assert_eq!(report.matches("{\"level\":").count(), 8);
    assert_eq!(report.matches("\"cause\":\"primask\"").count(), 8);
}

#[test]
fn two_cores_with_events_repeat_bit_for_bit() {
    let test = "two_cores_with_events_repeat_bit_for_bit";
    if tools_or_skip(test).is_none() {
        return;
    }
    let dir = scratch_dir(test);
    let elf = build_named(&dir, "smp_irq_test");
    let a = run_irq(&dir, &elf, "a");
    let b = run_irq(&dir, &elf, "b");
    assert_eq!(a.0, b.0, "identical trace files");
    assert_eq!(a.2, b.2, "identical event files");
    assert_eq!(a.3, b.3, "identical masked-window reports");
}

/// A cross-core interval (probe 2 on core 0 -> probe 3 on core 1) split by core: each
/// core's own (instructions, cycles) between the two stores. With two cores the shared
/// clock is the sum of both cores' counts, so the split is exact: core 0's count when
/// probe 3 is stored is the shared count minus core 1's own.
fn split(t: &Trace) -> ((u64, u64), (u64, u64)) {
    let p2 = t.hits.iter().find(|h| h.id == 2).unwrap();
    let p3 = t.hits.iter().find(|h| h.id == 3).unwrap();
    assert_eq!((p2.core, p3.core), (0, 1));
    let core0 = (
        (p3.m_insns - p3.insns) - p2.insns,
        (p3.m_cycles - p3.cycles) - p2.cycles,
    );
    let core1 = (
        p3.insns - (p2.m_insns - p2.insns),
        p3.cycles - (p2.m_cycles - p2.cycles),
    );
    assert_eq!(
        (core0.0 + core1.0, core0.1 + core1.1),
        (p3.m_insns - p2.m_insns, p3.m_cycles - p2.m_cycles),
        "the parts add up to the shared-clock interval"
    );
    (core0, core1)
}

/// What the shared clock gives for an interval from core 0 to core 1
/// (tests/fixtures/smp_clock_test.S; docs/timing-model.md, "Two cores", where these
/// figures are discussed against a real dual-core chip). Under -icount QEMU runs one vCPU
/// until it sleeps (WFI/WFE) or its time slice ends; raising the other core's interrupt
/// does not switch. So the interval holds core 0's work from probe 2 until it sleeps, and
/// core 1's work from when it is resumed to probe 3, whatever core 1 was doing.
#[test]
fn shared_clock_across_cores() {
    let test = "shared_clock_across_cores";
    if tools_or_skip(test).is_none() {
        return;
    }
    let dir = scratch_dir(test);
    // (mode, core 0's part, core 1's part), each (instructions, cycles) on the M33 model.
    // Core 0 runs until its WFE: probe store, signalling store, ldr, wfe (4 instructions);
    // modes 2 and 3 add its loop (ldr + 1000 x (subs, bne): 2001 instructions).
    // Core 1, modes 0-2: the 12-cycle exception entry, then movw, movt (2 instructions):
    // it runs nothing else between the probes, not even when spinning (modes 1 and 2).
    // Core 1, mode 3: its slice had ended just after a poll `ldr` that read 0, so it
    // resumes with cmp and beq (taken), polls once more (ldr, cmp, beq not taken), then
    // movw, movt: 7 instructions.
    let cases = [
        (0, (4, 8), (2, 14)),
        (1, (4, 8), (2, 14)),
        (2, (2005, 3007), (2, 14)),
        (3, (2005, 3007), (7, 9)),
    ];
    for (mode, core0, core1) in cases {
        let def = format!("MODE={mode}");
        let elf = build_with(&dir, "smp_clock_test", &[def.as_str()]);
        let (t, _) = run(&dir, &elf, &format!("m{mode}.bin"), "core=cortex-m33");
        assert_eq!(
            split(&t),
            (core0, core1),
            "mode {mode}: (core 0, core 1) parts"
        );
    }
}
