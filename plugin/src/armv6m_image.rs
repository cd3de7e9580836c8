//! Test only: the decoder on a real ARMv6-M image: tests/fixtures/armv6m_image.c built with
//! `-mcpu=cortex-m0` and linked with newlib-nano and libgcc (their ARMv6-M builds), then
//! disassembled with arm-none-eabi-objdump. Every instruction objdump lists must decode
//! to its length and to the class its mnemonic implies, none as undefined or coprocessor
//! (an undefined decode would be taken for an exception by the flow tracker).

use std::path::Path;
use std::process::Command;

use crate::thumb::{Class, Flow, Mem, decode};

const FIXTURE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/armv6m_image.c");

/// The compiler and objdump are on PATH; otherwise say so and skip (fail when
/// RTOSLAB_REQUIRE_QEMU=1, as the QEMU tests do).
fn tools() -> bool {
    let ok = ["arm-none-eabi-gcc", "arm-none-eabi-objdump"]
        .iter()
        .all(|t| {
            Command::new(t)
                .arg("--version")
                .output()
                .is_ok_and(|o| o.status.success())
        });
    if !ok {
        assert!(
            std::env::var_os("RTOSLAB_REQUIRE_QEMU").is_none_or(|v| v != "1"),
            "arm-none-eabi-gcc/objdump not found and RTOSLAB_REQUIRE_QEMU=1"
        );
        eprintln!("SKIPPED armv6m_image_decodes: arm-none-eabi-gcc/objdump not found");
    }
    ok
}

/// The class an ARMv6-M mnemonic (without condition/width suffix) implies.
fn class_of(m: &str) -> Class {
    match m {
        "ldr" | "ldrb" | "ldrh" | "ldrsb" | "ldrsh" => Class::Load,
        "str" | "strb" | "strh" => Class::Store,
        "push" | "stmia" | "stm" => Class::StoreMulti,
        "pop" | "ldmia" | "ldm" => Class::LoadMulti,
        "bl" | "bx" | "blx" | "b" => Class::Branch,
        "svc" | "bkpt" | "udf" => Class::Exception,
        "cpsid" | "cpsie" | "dmb" | "dsb" | "isb" | "mrs" | "msr" => Class::System,
        "nop" | "wfi" | "wfe" | "sev" | "yield" => Class::Hint,
        "muls" => Class::Mul,
        _ => Class::Alu,
    }
}

fn base_mnemonic(m: &str) -> &str {
    let m = m.trim_end_matches(".n").trim_end_matches(".w");
    // conditional branches: b<cc>
    if m.len() == 3
        && m.starts_with('b')
        && [
            "eq", "ne", "cs", "cc", "mi", "pl", "vs", "vc", "hi", "ls", "ge", "lt", "gt", "le",
            "hs", "lo",
        ]
        .contains(&&m[1..])
    {
        return "b";
    }
    m
}

#[cfg(test)]
#[test]
fn armv6m_image_decodes() {
    if !tools() {
        return;
    }
    let dir = std::env::temp_dir().join(format!("rtoslab-v6m-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let elf = dir.join("v6.elf");
    let out = Command::new("arm-none-eabi-gcc")
        .args([
            "-mcpu=cortex-m0",
            "-mthumb",
            "-O2",
            "-specs=nano.specs",
            "-specs=nosys.specs",
            "-nostartfiles",
            "-Wl,-e,main",
            "-o",
        ])
        .arg(&elf)
        .arg(Path::new(FIXTURE))
        .output()
        .expect("running arm-none-eabi-gcc");
    assert!(
        out.status.success(),
        "building the ARMv6-M image failed:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let dis = Command::new("arm-none-eabi-objdump")
        .arg("-d")
        .arg(&elf)
        .output()
        .expect("running arm-none-eabi-objdump");
    let text = String::from_utf8_lossy(&dis.stdout);
    let mut seen = 0usize;
    let mut bad = Vec::new();
    for line in text.lines() {
        // "    8a4c:\tf000 f8a2 \tbl\t8b94 <foo>"
        let f: Vec<&str> = line.split('\t').collect();
        if f.len() < 3 || !f[0].trim_end().ends_with(':') {
            continue;
        }
        let mnemonic = f[2].split_whitespace().next().unwrap_or("");
        if mnemonic.starts_with('.') {
            continue; // literal data (.word, .short)
        }
        let hws: Vec<u16> = f[1]
            .split_whitespace()
            .map(|h| u16::from_str_radix(h, 16).expect("halfword"))
            .collect();
        let insn = decode(hws[0], hws.get(1).copied().unwrap_or(0));
        // objdump shows MOV r8, r8 (the ARMv6-M padding) as "nop": it is a MOV
        let want = if hws == [0x46c0] {
            Class::Alu
        } else {
            class_of(base_mnemonic(mnemonic))
        };
        let mut class = insn.class;
        // a branch through the PC by MOV/ADD/POP is classified by what it does
        if class == Class::Branch && matches!(mnemonic, "mov" | "add") {
            class = Class::Alu;
        }
        if usize::from(insn.len) != 2 * hws.len()
            || class != want
            || (want == Class::Load && insn.mem != Mem::Load)
            || (want == Class::Store && insn.mem != Mem::Store)
            || (want == Class::Alu && insn.flow == Flow::Exception)
        {
            bad.push(format!("{}: {insn:?}, want {want:?}", line.trim()));
        }
        seen += 1;
    }
    let _ = std::fs::remove_dir_all(&dir);
    assert!(seen > 1000, "only {seen} instructions disassembled");
    assert!(
        bad.is_empty(),
        "{} of {seen} instructions misdecoded:\n{}",
        bad.len(),
        bad.join("\n")
    );
}
