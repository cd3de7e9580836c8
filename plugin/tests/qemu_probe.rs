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

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

const FIXTURE_DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures");
const END_ID: u32 = 0xFFFF_FFFF;

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

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Rec {
    id: u32,
    status: u32,
    insns: u64,
    cycles: u64,
}

#[derive(Debug)]
struct Trace {
    base: u32,
    size: u32,
    flags: u32,
    hits: Vec<Rec>,
    end: Rec,
}

fn u32_at(b: &[u8], o: usize) -> u32 {
    u32::from_le_bytes(b[o..o + 4].try_into().unwrap())
}
fn u64_at(b: &[u8], o: usize) -> u64 {
    u64::from_le_bytes(b[o..o + 8].try_into().unwrap())
}

fn parse_trace(path: &Path) -> Trace {
    let b = std::fs::read(path).unwrap_or_else(|e| panic!("reading {}: {e}", path.display()));
    assert!(b.len() >= 32, "{}: shorter than the header", path.display());
    assert_eq!(&b[0..8], b"RTLTRACE", "magic");
    assert_eq!(u32_at(&b, 8), 1, "version");
    assert_eq!(u32_at(&b, 12), 24, "record size");
    assert_eq!(u32_at(&b, 28), 0, "reserved");
    assert_eq!((b.len() - 32) % 24, 0, "whole records");
    let mut recs: Vec<Rec> = b[32..]
        .chunks_exact(24)
        .map(|r| Rec {
            id: u32_at(r, 0),
            status: u32_at(r, 4),
            insns: u64_at(r, 8),
            cycles: u64_at(r, 16),
        })
        .collect();
    let end = recs.pop().expect("no end record");
    assert_eq!(end.id, END_ID, "last record is the end record");
    for r in &recs {
        assert_ne!(r.id, END_ID, "end record only at the end");
        assert_eq!(r.status, 0, "hit records have 0 in the status field");
    }
    Trace {
        base: u32_at(&b, 16),
        size: u32_at(&b, 20),
        flags: u32_at(&b, 24),
        hits: recs,
        end,
    }
}

fn on_path(tool: &str) -> bool {
    Command::new(tool)
        .arg("--version")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .map(|s| s.success())
        .unwrap_or(false)
}

/// None when the external tools are missing, after saying so on stderr (written to the
/// stream directly so libtest's output capture does not hide it). With
/// `RTOSLAB_REQUIRE_QEMU=1` a missing tool fails the test instead.
fn tools_or_skip(test: &str) -> Option<()> {
    for tool in ["arm-none-eabi-gcc", "qemu-system-arm"] {
        if !on_path(tool) {
            if std::env::var_os("RTOSLAB_REQUIRE_QEMU").is_some_and(|v| v == "1") {
                panic!("{test}: {tool} not found on PATH and RTOSLAB_REQUIRE_QEMU=1");
            }
            let _ = writeln!(
                std::io::stderr(),
                "SKIPPED {test}: {tool} not found on PATH"
            );
            return None;
        }
    }
    Some(())
}

/// The plugin under test: `$RTOSLAB_PLUGIN_SO` if set, else the release build, which
/// this function brings up to date first (`cargo build --release --lib`, a no-op when
/// nothing changed: `cargo test` itself does not build the cdylib for integration tests).
fn plugin_path() -> PathBuf {
    static PATH: OnceLock<Result<PathBuf, String>> = OnceLock::new();
    PATH.get_or_init(|| {
        if let Some(p) = std::env::var_os("RTOSLAB_PLUGIN_SO") {
            let p = PathBuf::from(p);
            return if p.is_file() {
                Ok(p)
            } else {
                Err(format!("RTOSLAB_PLUGIN_SO={} is not a file", p.display()))
            };
        }
        let manifest = Path::new(env!("CARGO_MANIFEST_DIR")).join("Cargo.toml");
        let cargo = option_env!("CARGO").unwrap_or("cargo");
        let out = Command::new(cargo)
            .args(["build", "--release", "--lib", "--manifest-path"])
            .arg(&manifest)
            .stdin(Stdio::null())
            .output()
            .map_err(|e| format!("running {cargo}: {e}"))?;
        if !out.status.success() {
            return Err(format!(
                "cargo build --release failed:\n{}",
                String::from_utf8_lossy(&out.stderr)
            ));
        }
        let target = std::env::var_os("CARGO_TARGET_DIR")
            .map(PathBuf::from)
            .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("target"));
        let so = target.join("release").join("librtoslab_plugin.so");
        if so.is_file() {
            Ok(so)
        } else {
            Err(format!(
                "{} missing after the build; build it with: \
                 cargo build --release --manifest-path plugin/Cargo.toml",
                so.display()
            ))
        }
    })
    .clone()
    .unwrap_or_else(|e| panic!("plugin library: {e}"))
}

/// A scratch directory, removed when the test passes (kept for inspection on failure).
struct Scratch(PathBuf);

impl Drop for Scratch {
    fn drop(&mut self) {
        if !std::thread::panicking() {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }
}

impl std::ops::Deref for Scratch {
    type Target = Path;
    fn deref(&self) -> &Path {
        &self.0
    }
}

fn scratch_dir(test: &str) -> Scratch {
    let d = std::env::temp_dir().join(format!("rtoslab-plugin-{}-{test}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    Scratch(d)
}

fn build_fixture(dir: &Path, defines: &[&str]) -> PathBuf {
    let elf = dir.join("probe_test.elf");
    let out = Command::new("arm-none-eabi-gcc")
        .args(["-mcpu=cortex-m3", "-mthumb", "-nostdlib", "-T"])
        .arg(Path::new(FIXTURE_DIR).join("probe_test.ld"))
        .args(defines)
        .arg("-o")
        .arg(&elf)
        .arg(Path::new(FIXTURE_DIR).join("probe_test.S"))
        .output()
        .expect("running arm-none-eabi-gcc");
    assert!(
        out.status.success(),
        "assembling the fixture failed:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    elf
}

/// Run QEMU with the plugin; `plugin_args` are appended after `trace=`. Killed after 60 s.
fn run_qemu(elf: &Path, trace: &Path, plugin_args: &str, icount: bool) -> Output {
    let mut plugin = format!("{},trace={}", plugin_path().display(), trace.display());
    if !plugin_args.is_empty() {
        plugin.push(',');
        plugin.push_str(plugin_args);
    }
    let mut cmd = Command::new("qemu-system-arm");
    cmd.args([
        "-M",
        "mps2-an385",
        "-display",
        "none",
        "-monitor",
        "none",
        "-serial",
        "none",
    ])
    .args(["-semihosting-config", "enable=on,target=native"]);
    if icount {
        cmd.args(["-icount", "shift=0,align=off,sleep=off"]);
    }
    cmd.arg("-kernel").arg(elf).arg("-plugin").arg(plugin);
    let mut child = cmd
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("starting qemu-system-arm");
    let start = Instant::now();
    loop {
        if child.try_wait().unwrap().is_some() {
            break;
        }
        if start.elapsed() > Duration::from_secs(60) {
            child.kill().ok();
            let out = child.wait_with_output().unwrap();
            panic!(
                "qemu did not finish in 60 s; stderr:\n{}",
                String::from_utf8_lossy(&out.stderr)
            );
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    child.wait_with_output().unwrap()
}

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
    let Some(()) = tools_or_skip("probe_counts_exact_with_icount") else {
        return;
    };
    let dir = scratch_dir("icount");
    let elf = build_fixture(&dir, &[]);
    let trace = dir.join("t.bin");
    let out = run_qemu(&elf, &trace, "", true);
    assert_eq!(
        out.status.code(),
        Some(0),
        "qemu stderr:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    check_default_trace(&parse_trace(&trace));
}

#[test]
fn probe_counts_exact_without_icount() {
    // Without -icount the counts are the same, except that when the PendSV interrupt
    // is taken depends on host timing; the harness always runs with -icount.
    let Some(()) = tools_or_skip("probe_counts_exact_without_icount") else {
        return;
    };
    let dir = scratch_dir("noicount");
    let elf = build_fixture(&dir, &[]);
    let trace = dir.join("t.bin");
    let out = run_qemu(&elf, &trace, "", false);
    assert_eq!(
        out.status.code(),
        Some(0),
        "qemu stderr:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let t = parse_trace(&trace);
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
    let Some(()) = tools_or_skip("insn_limit_stops_a_hang") else {
        return;
    };
    let dir = scratch_dir("hang");
    let elf = build_fixture(&dir, &["-DHANG"]);
    let trace = dir.join("t.bin");
    let out = run_qemu(&elf, &trace, "insn_limit=100000", true);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(124), "exit code; stderr:\n{stderr}");
    assert!(
        stderr.contains("instruction limit 100000 reached"),
        "stderr:\n{stderr}"
    );
    let t = parse_trace(&trace);
    assert_eq!(
        t.hits,
        vec![Rec {
            id: 0,
            status: 0,
            insns: 2,
            cycles: 0
        }]
    );
    assert_eq!(t.end.status, 0b010, "status bit 1 only");
    // The limit is checked when a block that can loop is entered; `b .` is one block
    // of one instruction, so it stops exactly at the limit.
    assert_eq!(t.end.insns, 100_000);
}

#[test]
fn unaligned_probe_store_sets_status_bit_2() {
    let Some(()) = tools_or_skip("unaligned_probe_store_sets_status_bit_2") else {
        return;
    };
    let dir = scratch_dir("unaligned");
    let elf = build_fixture(&dir, &["-DUNALIGNED"]);
    let trace = dir.join("t.bin");
    let out = run_qemu(&elf, &trace, "", true);
    assert_eq!(
        out.status.code(),
        Some(0),
        "qemu stderr:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let t = parse_trace(&trace);
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
    let Some(()) = tools_or_skip("record_limit_drops_later_hits") else {
        return;
    };
    let dir = scratch_dir("maxrec");
    let elf = build_fixture(&dir, &[]);
    let trace = dir.join("t.bin");
    let out = run_qemu(&elf, &trace, "max_records=3", true);
    assert_eq!(
        out.status.code(),
        Some(0),
        "qemu stderr:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let t = parse_trace(&trace);
    let ids: Vec<(u32, u64)> = t.hits.iter().map(|r| (r.id, r.insns)).collect();
    assert_eq!(ids, vec![(0, 2), (1, 5), (2, 8)]);
    assert_eq!(t.end.status, 0b001);
    let full: u64 = EXPECTED.iter().map(|e| e.1).sum::<u64>() + TAIL;
    assert_eq!(t.end.insns, full, "counting goes on after recording stops");
}

#[test]
fn region_arguments_are_used() {
    let Some(()) = tools_or_skip("region_arguments_are_used") else {
        return;
    };
    let dir = scratch_dir("region");
    let elf = build_fixture(&dir, &[]);
    let trace = dir.join("t.bin");
    // Region of 4 words starting at probe 2's address: probes 2..5 become ids 0..3.
    let out = run_qemu(&elf, &trace, "base=0x21000008,size=16", true);
    assert_eq!(
        out.status.code(),
        Some(0),
        "qemu stderr:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let t = parse_trace(&trace);
    assert_eq!((t.base, t.size), (0x2100_0008, 16));
    let ids: Vec<(u32, u64)> = t.hits.iter().map(|r| (r.id, r.insns)).collect();
    assert_eq!(ids, vec![(0, 8), (1, 16), (2, 19), (3, 43)]);
}

#[test]
fn bad_arguments_fail_plugin_install() {
    let Some(()) = tools_or_skip("bad_arguments_fail_plugin_install") else {
        return;
    };
    let dir = scratch_dir("badargs");
    let elf = build_fixture(&dir, &[]);
    let trace = dir.join("t.bin");
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
        let out = run_qemu(&elf, &trace, args, true);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_ne!(out.status.code(), Some(0), "{args}: qemu must not run");
        assert!(stderr.contains(msg), "{args}: stderr was:\n{stderr}");
        assert_eq!(
            stderr
                .lines()
                .filter(|l| l.contains("rtoslab-plugin"))
                .count(),
            1,
            "one line"
        );
    }
    // trace= missing entirely
    let out = Command::new("qemu-system-arm")
        .args([
            "-M",
            "mps2-an385",
            "-display",
            "none",
            "-monitor",
            "none",
            "-serial",
            "none",
        ])
        .arg("-kernel")
        .arg(&elf)
        .arg("-plugin")
        .arg(format!("{},insn_limit=5", plugin_path().display()))
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_ne!(out.status.code(), Some(0));
    assert!(
        stderr.contains("rtoslab-plugin: missing required argument trace=<file>"),
        "{stderr}"
    );
    // an unwritable trace path
    let out = run_qemu(&elf, Path::new("/nonexistent-dir/t.bin"), "", true);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_ne!(out.status.code(), Some(0));
    assert!(
        stderr.contains("rtoslab-plugin: cannot create trace file /nonexistent-dir/t.bin"),
        "{stderr}"
    );
}
