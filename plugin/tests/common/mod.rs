//! Helpers shared by the QEMU integration tests: tools, the plugin library, fixture
//! builds, running QEMU, and reading the trace straight from the layout in
//! docs/formats.md section 2 (independently of the crate's writer).

#![allow(dead_code)] // each test crate uses its own subset

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

pub const FIXTURE_DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures");
pub const END_ID: u32 = 0xFFFF_FFFF;
pub const CORE_TOTAL_ID: u32 = 0xFFFF_FFFE;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Rec {
    pub id: u32,
    pub core: u16,
    pub status: u32,
    pub insns: u64,
    pub cycles: u64,
    /// The machine's shared clock (all cores summed).
    pub m_insns: u64,
    pub m_cycles: u64,
}

#[derive(Debug)]
pub struct Trace {
    pub base: u32,
    pub size: u32,
    pub flags: u32,
    pub cores: u32,
    pub hits: Vec<Rec>,
    /// One core-total record per core, in core order.
    pub core_totals: Vec<Rec>,
    pub end: Rec,
}

fn u32_at(b: &[u8], o: usize) -> u32 {
    u32::from_le_bytes(b[o..o + 4].try_into().unwrap())
}
fn u64_at(b: &[u8], o: usize) -> u64 {
    u64::from_le_bytes(b[o..o + 8].try_into().unwrap())
}

pub fn parse_trace(path: &Path) -> Trace {
    let b = std::fs::read(path).unwrap_or_else(|e| panic!("reading {}: {e}", path.display()));
    assert!(b.len() >= 32, "{}: shorter than the header", path.display());
    assert_eq!(&b[0..8], b"RTLTRACE", "magic");
    assert_eq!(u32_at(&b, 8), 2, "version");
    assert_eq!(u32_at(&b, 12), 40, "record size");
    let cores = u32_at(&b, 28);
    assert!(cores >= 1, "cores");
    assert_eq!((b.len() - 32) % 40, 0, "whole records");
    let mut recs: Vec<Rec> = b[32..]
        .chunks_exact(40)
        .map(|r| Rec {
            id: u32_at(r, 0),
            core: u16::from_le_bytes([r[4], r[5]]),
            status: u32::from(u16::from_le_bytes([r[6], r[7]])),
            insns: u64_at(r, 8),
            cycles: u64_at(r, 16),
            m_insns: u64_at(r, 24),
            m_cycles: u64_at(r, 32),
        })
        .collect();
    let end = recs.pop().expect("no end record");
    assert_eq!(end.id, END_ID, "last record is the end record");
    let split = recs.len() - cores as usize;
    let core_totals = recs.split_off(split);
    for (i, t) in core_totals.iter().enumerate() {
        assert_eq!(
            (t.id, t.core as usize),
            (CORE_TOTAL_ID, i),
            "core totals before the end"
        );
    }
    for r in &recs {
        assert_ne!(r.id, END_ID, "end record only at the end");
        assert_ne!(r.id, CORE_TOTAL_ID, "core totals only before the end");
        assert_eq!(r.status, 0, "hit records have 0 in the status field");
        if cores == 1 {
            assert_eq!(
                (r.m_insns, r.m_cycles),
                (r.insns, r.cycles),
                "one core: shared = own"
            );
        }
    }
    Trace {
        base: u32_at(&b, 16),
        size: u32_at(&b, 20),
        flags: u32_at(&b, 24),
        cores,
        hits: recs,
        core_totals,
        end,
    }
}

pub fn on_path(tool: &str) -> bool {
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
pub fn tools_or_skip(test: &str) -> Option<()> {
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
pub fn plugin_path() -> PathBuf {
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
pub struct Scratch(PathBuf);

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

pub fn scratch_dir(test: &str) -> Scratch {
    let d = std::env::temp_dir().join(format!("rtoslab-plugin-{}-{test}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    Scratch(d)
}

/// A fixture assembled into its own scratch directory, ready to run under QEMU.
pub struct Fixture {
    pub dir: Scratch,
    pub elf: PathBuf,
}

/// The preamble of every QEMU test: check the tools (None, after saying so, when one is
/// missing: see `tools_or_skip`), make a scratch directory named after `test`, and
/// assemble `tests/fixtures/<source>.S` with `defines`.
pub fn fixture(test: &str, source: &str, defines: &[&str]) -> Option<Fixture> {
    tools_or_skip(test)?;
    let dir = scratch_dir(test);
    let elf = build_source(&dir, source, defines);
    Some(Fixture { dir, elf })
}

impl Fixture {
    /// Where `run` writes the trace.
    pub fn trace_path(&self) -> PathBuf {
        self.dir.join("t.bin")
    }

    /// Run under QEMU with `plugin_args` after `trace=` (see `run_qemu`).
    pub fn run(&self, plugin_args: &str, icount: bool) -> Output {
        run_qemu(&self.elf, &self.trace_path(), plugin_args, icount)
    }

    /// Run, require exit status 0 (else fail with QEMU's stderr), and read the trace.
    pub fn trace(&self, plugin_args: &str, icount: bool) -> Trace {
        self.trace_on("mps2-an385", plugin_args, icount)
    }

    /// `trace` on QEMU machine `machine`.
    pub fn trace_on(&self, machine: &str, plugin_args: &str, icount: bool) -> Trace {
        let out = run_qemu_on(machine, &self.elf, &self.trace_path(), plugin_args, icount);
        assert_eq!(
            out.status.code(),
            Some(0),
            "{plugin_args}: qemu stderr:\n{}",
            String::from_utf8_lossy(&out.stderr)
        );
        parse_trace(&self.trace_path())
    }

    /// Run with bad arguments: require QEMU to exit with `code` before running the guest
    /// and stderr to hold exactly one `rtoslab-plugin` line, containing `msg`.
    pub fn refuses(&self, plugin_args: &str, code: i32, msg: &str) {
        let out = self.run(plugin_args, true);
        assert_plugin_error(&out, plugin_args, code, msg);
    }
}

/// `out` is QEMU refusing the plugin: exit `code`, one `rtoslab-plugin` line with `msg`.
pub fn assert_plugin_error(out: &Output, what: &str, code: i32, msg: &str) {
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(code), "{what}: stderr:\n{stderr}");
    assert!(stderr.contains(msg), "{what}: stderr was:\n{stderr}");
    assert_eq!(
        stderr
            .lines()
            .filter(|l| l.contains("rtoslab-plugin"))
            .count(),
        1,
        "{what}: one line; stderr:\n{stderr}"
    );
}

/// Assemble `tests/fixtures/<name>.S` (linked with probe_test.ld) into `dir/<name>.elf`.
pub fn build_source(dir: &Path, name: &str, defines: &[&str]) -> PathBuf {
    let elf = dir.join(format!("{name}.elf"));
    let out = Command::new("arm-none-eabi-gcc")
        .args(["-mcpu=cortex-m3", "-mthumb", "-nostdlib", "-T"])
        .arg(Path::new(FIXTURE_DIR).join("probe_test.ld"))
        .args(defines)
        .arg("-o")
        .arg(&elf)
        .arg(Path::new(FIXTURE_DIR).join(format!("{name}.S")))
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
pub fn run_qemu(elf: &Path, trace: &Path, plugin_args: &str, icount: bool) -> Output {
    run_qemu_on("mps2-an385", elf, trace, plugin_args, icount)
}

/// `run_qemu` on QEMU machine `machine` (e.g. mps2-an386, the Cortex-M4 with FPU).
pub fn run_qemu_on(
    machine: &str,
    elf: &Path,
    trace: &Path,
    plugin_args: &str,
    icount: bool,
) -> Output {
    let mut plugin = format!("{},trace={}", plugin_path().display(), trace.display());
    if !plugin_args.is_empty() {
        plugin.push(',');
        plugin.push_str(plugin_args);
    }
    let mut cmd = Command::new("qemu-system-arm");
    cmd.args([
        "-M", machine, "-display", "none",
        // No audio backend (the board has none; probing the defaults can load another
        // installed QEMU's modules).
        "-audio", "none", "-monitor", "none", "-serial", "none",
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

/// Address of symbol `name` in `elf` (`arm-none-eabi-nm`).
pub fn symbol(elf: &Path, name: &str) -> u32 {
    let out = Command::new("arm-none-eabi-nm")
        .arg(elf)
        .output()
        .expect("running arm-none-eabi-nm");
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .find_map(|l| {
            let mut f = l.split_whitespace();
            let addr = f.next()?;
            let _kind = f.next()?;
            (f.next()? == name).then(|| u32::from_str_radix(addr, 16).ok())?
        })
        .unwrap_or_else(|| panic!("symbol {name} not in {}", elf.display()))
}
