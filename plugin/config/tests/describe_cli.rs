//! The `rtoslab-plugin-describe` executable as the host runs it: exit codes, stdout,
//! stderr. The JSON is checked with Python's json module (the host's own reader).

use std::process::{Command, Output};

use rtoslab_plugin_config::cores::{self, CORES};

fn run(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_rtoslab-plugin-describe"))
        .args(args)
        .output()
        .expect("running rtoslab-plugin-describe")
}

fn text(b: &[u8]) -> String {
    String::from_utf8(b.to_vec()).expect("UTF-8 output")
}

/// Exit 2, nothing on stdout, exactly `line` (and a newline) on stderr.
fn assert_fails(args: &[&str], line: &str) {
    let out = run(args);
    assert_eq!(out.status.code(), Some(2), "{args:?}");
    assert_eq!(text(&out.stdout), "", "{args:?}: stdout");
    assert_eq!(text(&out.stderr), format!("{line}\n"), "{args:?}: stderr");
}

#[test]
fn describe_prints_one_json_document() {
    let out = run(&["describe"]);
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(text(&out.stderr), "");
    let json = text(&out.stdout);
    assert_eq!(json.lines().count(), 1, "one line");
    // Python parses it and answers facts about it, one per line.
    let script = r#"
import json, sys
d = json.load(sys.stdin)
s = {x["key"]: x for x in d["settings"]}
print(d["schema"])
print(d["plugin_version"])
print(",".join(s))
print(s["core"]["kind"], ",".join(s["core"]["choices"]), s["core"]["default"])
print(s["flash"]["kind"], s["flash"]["max_regions"], s["flash"]["default"])
print(s["sram"]["kind"], s["sram"]["max_regions"])
print(s["flash_ws"]["kind"], s["flash_ws"]["min"], s["flash_ws"]["max"], s["flash_ws"]["default"], ",".join(s["flash_ws"]["requires"]))
print(",".join(s["sram_ws"]["requires"]), ",".join(s["prefetch"]["requires"]), s["div"]["default"])
print(all(x["doc"] for x in d["settings"]))
print(",".join(c["name"] + ":" + c["arch"] for c in d["cores"]))
print(all(c["description"] and c["source"] for c in d["cores"]))
h = {x["key"]: x for x in d["host_settings"]}
print(",".join(h), h["clock_hz"]["min"], h["clock_hz"]["max"], h["clock_hz"]["unit"], ",".join(h["time"]["choices"]))
print(all(x["what"] and x["doc"] for x in d["settings"] + d["host_settings"]))
"#;
    let mut py = Command::new("python3")
        .args(["-c", script])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("python3 (needed to check the JSON) not found");
    use std::io::Write;
    py.stdin.take().unwrap().write_all(json.as_bytes()).unwrap();
    let out = py.wait_with_output().unwrap();
    assert!(out.status.success(), "python: {}", text(&out.stderr));
    let facts = text(&out.stdout);
    let cores: Vec<String> = CORES
        .iter()
        .map(|t| format!("{}:{}", t.name, t.arch))
        .chain(cores::AVR_CORES.iter().map(|t| format!("{}:avr", t.name)))
        .collect();
    assert!(cores.join(",").starts_with(
        "cortex-m3:armv7-m,cortex-m4:armv7e-m,cortex-m0:armv6-m,cortex-m0plus:armv6-m"
    ));
    let want = format!(
        "rtoslab.plugin-describe/2\n{}\n\
         core,flash,sram,flash_ws,sram_ws,prefetch,div,accel\n\
         choice {} none\n\
         regions 1 None\n\
         regions None\n\
         int 0 64 0 flash\n\
         sram flash typ\n\
         True\n\
         {}\n\
         True\n\
         clock_hz,time 1 4294967295 Hz one-clock,instruction\n\
         True\n",
        env!("CARGO_PKG_VERSION"),
        cores::choices().join(","),
        cores.join(","),
    );
    assert_eq!(facts, want);
}

#[test]
fn check_accepts_valid_settings_silently() {
    for args in [
        vec!["check"],
        vec![
            "check",
            "core=cortex-m3",
            "flash=0x0:0x400000",
            "flash_ws=2",
            "prefetch=on",
        ],
        vec![
            "check",
            "core=cortex-m0plus",
            "sram=0x20000000:0x10000;0x20400000:0x1000",
            "sram_ws=1",
            "div=max",
        ],
        vec!["check", "core=none", "flash_ws=0", "prefetch=off"],
    ] {
        let out = run(&args);
        assert_eq!(
            out.status.code(),
            Some(0),
            "{args:?}: {}",
            text(&out.stderr)
        );
        assert_eq!(
            (text(&out.stdout), text(&out.stderr)),
            (String::new(), String::new())
        );
    }
}

#[test]
fn check_rejects_with_one_line() {
    assert_fails(
        &["check", "core=cortex-m3", "flash_ws=65"],
        "rtoslab-plugin: flash_ws=65: at most 64 wait states",
    );
    assert_fails(
        &["check", "core=cortex-m7"],
        "rtoslab-plugin: core=cortex-m7: cortex-m7 timing is not modelled; use --timing core=none for instruction counts",
    );
    assert_fails(
        &["check", "core=cortex-m9"],
        &format!(
            "rtoslab-plugin: core=cortex-m9: unknown core (known: {})",
            cores::choices().join(", ")
        ),
    );
    assert_fails(
        &["check", "core=cortex-m3", "flash_ws=2"],
        "rtoslab-plugin: flash_ws=2 needs the flash region: give flash=BASE:SIZE as well (or flash_ws=0)",
    );
    assert_fails(
        &["check", "sram_ws=1", "flash=0x0:0x1000"],
        "rtoslab-plugin: sram_ws=1 needs the SRAM regions: give sram=BASE:SIZE as well (or sram_ws=0)",
    );
    assert_fails(
        &["check", "prefetch=on"],
        "rtoslab-plugin: prefetch=on needs the flash region: give flash=BASE:SIZE as well (or prefetch=off)",
    );
    assert_fails(
        &["check", "trace=/tmp/t.bin"],
        "rtoslab-plugin: unknown timing-model setting 'trace' (known: core, flash, sram, flash_ws, sram_ws, prefetch, div, accel)",
    );
}

#[test]
fn usage_errors() {
    let usage =
        "usage: rtoslab-plugin-describe describe | rtoslab-plugin-describe check KEY=VALUE ...";
    assert_fails(
        &[],
        &format!("rtoslab-plugin-describe: no mode given ({usage})"),
    );
    assert_fails(
        &["list"],
        &format!("rtoslab-plugin-describe: unknown mode 'list' ({usage})"),
    );
    assert_fails(
        &["describe", "core=none"],
        &format!("rtoslab-plugin-describe: describe takes no arguments ({usage})"),
    );
}
