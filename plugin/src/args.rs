//! Plugin arguments.
//!
//! QEMU 7.2 passes `-plugin lib.so,trace=/x/y.bin,base=0x21000000` to the plugin as the
//! strings `trace=/x/y.bin`, `base=0x21000000`. Recognised keys:
//!
//! | key | default | meaning |
//! |---|---|---|
//! | `trace` | required | trace file to write (created or truncated) |
//! | `base` | `0x21000000` | probe region base address (word aligned) |
//! | `size` | `0x4000` | probe region size in bytes (multiple of 4, > 0) |
//! | `insn_limit` | `0` (none) | stop the guest with exit code 124 once this many instructions ran |
//! | `max_records` | `4000000` | hit records kept; later hits are dropped (status bit 0) |
//!
//! Timing model (docs/timing-model.md):
//!
//! | key | default | meaning |
//! |---|---|---|
//! | `core` | `none` | `cortex-m3`, `cortex-m4`, `cortex-m0`, `cortex-m0plus`, or `none` (no model: cycle column 0, flag bit 0 clear) |
//! | `flash` | none | `BASE:SIZE`, the code/flash region |
//! | `sram` | none | `BASE:SIZE[;BASE:SIZE...]`, the SRAM regions |
//! | `flash_ws` | `0` | wait states per flash access (instruction fetch or data) |
//! | `sram_ws` | `0` | wait states per SRAM access |
//! | `prefetch` | `off` | `on`: a flash prefetch buffer hides sequential fetch wait states |
//! | `div` | `typ` | `min`, `typ` or `max`: cycles of divides (and M3 long multiplies) |
//! | `handlers` | none | `ADDR[;ADDR...]`, exception handler entry addresses (the host reads them from the ELF) |
//!
//! Numbers are decimal or `0x` hexadecimal; `_` separators are allowed. Anything else
//! (unknown key, repeated key, missing `=`, bad number or value) is an error. With
//! `core=none` the other model settings are checked but have no effect.

use std::fmt;

use crate::timing::{Core, DivPolicy, ModelConfig, Region};

pub const DEFAULT_BASE: u32 = 0x2100_0000;
pub const DEFAULT_SIZE: u32 = 0x4000;
pub const DEFAULT_MAX_RECORDS: u64 = 4_000_000;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Config {
    pub trace: String,
    pub base: u32,
    pub size: u32,
    /// 0 = no limit.
    pub insn_limit: u64,
    pub max_records: u64,
    pub model: ModelConfig,
}

/// Largest accepted wait-state count (a sanity bound, not a hardware one).
pub const MAX_WS: u32 = 64;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ArgError(pub String);

impl fmt::Display for ArgError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for ArgError {}

fn err<T>(msg: String) -> Result<T, ArgError> {
    Err(ArgError(msg))
}

/// Parse an unsigned number: decimal or 0x-prefixed hex, `_` allowed between digits.
pub fn parse_u64(key: &str, value: &str) -> Result<u64, ArgError> {
    let cleaned: String = value.chars().filter(|&c| c != '_').collect();
    let parsed = if let Some(hex) = cleaned
        .strip_prefix("0x")
        .or_else(|| cleaned.strip_prefix("0X"))
    {
        if hex.is_empty() {
            None
        } else {
            u64::from_str_radix(hex, 16).ok()
        }
    } else if !cleaned.is_empty() && cleaned.bytes().all(|b| b.is_ascii_digit()) {
        cleaned.parse::<u64>().ok()
    } else {
        None
    };
    match parsed {
        Some(v) if !value.starts_with('_') && !value.ends_with('_') => Ok(v),
        _ => err(format!(
            "{key}={value}: not an unsigned number (decimal or 0x hex)"
        )),
    }
}

fn parse_u32(key: &str, value: &str) -> Result<u32, ArgError> {
    let v = parse_u64(key, value)?;
    u32::try_from(v).or_else(|_| err(format!("{key}={value}: does not fit in 32 bits")))
}

/// Parse `BASE:SIZE` (each a number as in `parse_u64`), a region inside 32-bit space.
fn parse_region(key: &str, value: &str) -> Result<Region, ArgError> {
    let bad = || {
        ArgError(format!(
            "{key}={value}: expected BASE:SIZE, e.g. 0x20000000:0x10000"
        ))
    };
    let (b, sz) = value.split_once(':').ok_or_else(bad)?;
    let base = parse_u64(key, b).map_err(|_| bad())?;
    let size = parse_u64(key, sz).map_err(|_| bad())?;
    if size == 0 || base + size > 1 << 32 {
        return err(format!(
            "{key}={value}: the region must be non-empty and inside the 32-bit address space"
        ));
    }
    Ok(Region {
        base: base as u32,
        size: size as u32,
    })
}

fn parse_ws(key: &str, value: &str) -> Result<u32, ArgError> {
    let v = parse_u64(key, value)?;
    if v > u64::from(MAX_WS) {
        return err(format!("{key}={value}: at most {MAX_WS} wait states"));
    }
    Ok(v as u32)
}

fn parse_handlers(value: &str) -> Result<Vec<u32>, ArgError> {
    let mut out = Vec::new();
    for item in value.split(';').filter(|s| !s.is_empty()) {
        let v = parse_u64("handlers", item)?;
        let v = u32::try_from(v)
            .or_else(|_| err(format!("handlers: {item} does not fit in 32 bits")))?;
        out.push(v & !1);
    }
    out.sort_unstable();
    out.dedup();
    Ok(out)
}

/// Parse the raw `key=value` arguments QEMU hands to the plugin.
pub fn parse_args<S: AsRef<str>>(args: &[S]) -> Result<Config, ArgError> {
    let mut trace: Option<String> = None;
    let mut base: Option<u32> = None;
    let mut size: Option<u32> = None;
    let mut insn_limit: Option<u64> = None;
    let mut max_records: Option<u64> = None;
    let mut core: Option<Core> = None;
    let mut flash: Option<Region> = None;
    let mut sram: Option<Vec<Region>> = None;
    let mut flash_ws: Option<u32> = None;
    let mut sram_ws: Option<u32> = None;
    let mut prefetch: Option<bool> = None;
    let mut div: Option<DivPolicy> = None;
    let mut handlers: Option<Vec<u32>> = None;

    for arg in args {
        let arg = arg.as_ref();
        let Some((key, value)) = arg.split_once('=') else {
            return err(format!("argument '{arg}' is not key=value"));
        };
        fn once<T>(slot: &mut Option<T>, key: &str, v: T) -> Result<(), ArgError> {
            if slot.is_some() {
                return err(format!("argument '{key}' given more than once"));
            }
            *slot = Some(v);
            Ok(())
        }
        match key {
            "trace" => {
                if value.is_empty() {
                    return err("trace= needs a file path".to_string());
                }
                once(&mut trace, key, value.to_string())?
            }
            "base" => once(&mut base, key, parse_u32(key, value)?)?,
            "size" => once(&mut size, key, parse_u32(key, value)?)?,
            "insn_limit" => once(&mut insn_limit, key, parse_u64(key, value)?)?,
            "max_records" => once(&mut max_records, key, parse_u64(key, value)?)?,
            "core" => {
                let c = Core::parse(value).ok_or_else(|| {
                    ArgError(format!(
                        "core={value}: unknown core (known: {})",
                        Core::NAMES
                    ))
                })?;
                once(&mut core, key, c)?
            }
            "flash" => once(&mut flash, key, parse_region(key, value)?)?,
            "sram" => {
                let regions = value
                    .split(';')
                    .map(|r| parse_region(key, r))
                    .collect::<Result<Vec<_>, _>>()?;
                once(&mut sram, key, regions)?
            }
            "flash_ws" => once(&mut flash_ws, key, parse_ws(key, value)?)?,
            "sram_ws" => once(&mut sram_ws, key, parse_ws(key, value)?)?,
            "prefetch" => {
                let on = match value {
                    "on" => true,
                    "off" => false,
                    _ => return err(format!("prefetch={value}: expected on or off")),
                };
                once(&mut prefetch, key, on)?
            }
            "div" => {
                let d = DivPolicy::parse(value)
                    .ok_or_else(|| ArgError(format!("div={value}: expected min, typ or max")))?;
                once(&mut div, key, d)?
            }
            "handlers" => once(&mut handlers, key, parse_handlers(value)?)?,
            _ => {
                return err(format!(
                    "unknown argument '{key}' (known: trace, base, size, insn_limit, \
                     max_records, core, flash, sram, flash_ws, sram_ws, prefetch, div, handlers)"
                ));
            }
        }
    }

    let Some(trace) = trace else {
        return err("missing required argument trace=<file>".to_string());
    };
    let base = base.unwrap_or(DEFAULT_BASE);
    let size = size.unwrap_or(DEFAULT_SIZE);
    if !base.is_multiple_of(4) {
        return err(format!("base=0x{base:x}: must be word aligned"));
    }
    if size == 0 || !size.is_multiple_of(4) {
        return err(format!("size=0x{size:x}: must be a non-zero multiple of 4"));
    }
    if u64::from(base) + u64::from(size) > 1 << 32 {
        return err(format!(
            "base=0x{base:x} size=0x{size:x}: region passes the end of the 32-bit address space"
        ));
    }
    let max_records = max_records.unwrap_or(DEFAULT_MAX_RECORDS);
    if max_records == 0 {
        return err("max_records=0: must be at least 1".to_string());
    }
    let sram = sram.unwrap_or_default();
    let flash_ws = flash_ws.unwrap_or(0);
    let sram_ws = sram_ws.unwrap_or(0);
    if flash_ws > 0 && flash.is_none() {
        return err(format!(
            "flash_ws={flash_ws} needs the flash region: flash=BASE:SIZE"
        ));
    }
    if sram_ws > 0 && sram.is_empty() {
        return err(format!(
            "sram_ws={sram_ws} needs the SRAM regions: sram=BASE:SIZE"
        ));
    }
    Ok(Config {
        trace,
        base,
        size,
        insn_limit: insn_limit.unwrap_or(0),
        max_records,
        model: ModelConfig {
            core: core.unwrap_or(Core::None),
            flash,
            sram,
            flash_ws,
            sram_ws,
            prefetch: prefetch.unwrap_or(false),
            div: div.unwrap_or(DivPolicy::Typ),
            handlers: handlers.unwrap_or_default(),
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn e(args: &[&str]) -> String {
        parse_args(args).unwrap_err().0
    }

    #[test]
    fn defaults() {
        let c = parse_args(&["trace=/tmp/t.bin"]).unwrap();
        assert_eq!(
            c,
            Config {
                trace: "/tmp/t.bin".into(),
                base: 0x2100_0000,
                size: 0x4000,
                insn_limit: 0,
                max_records: 4_000_000,
                model: ModelConfig::default(),
            }
        );
        assert_eq!(
            c.model.core,
            Core::None,
            "no core: no model (old command lines)"
        );
    }

    #[test]
    fn model_keys() {
        let c = parse_args(&[
            "trace=/t",
            "core=cortex-m3",
            "flash=0x0:0x400000",
            "sram=0x20000000:0x10000;0x20400000:0x1000",
            "flash_ws=2",
            "sram_ws=0",
            "prefetch=on",
            "div=max",
            "handlers=0x101;0x2a1;0x101;0x40",
        ])
        .unwrap();
        let m = c.model;
        assert_eq!(m.core, Core::CortexM3);
        assert_eq!(
            m.flash,
            Some(Region {
                base: 0,
                size: 0x40_0000
            })
        );
        assert_eq!(
            m.sram,
            vec![
                Region {
                    base: 0x2000_0000,
                    size: 0x1_0000
                },
                Region {
                    base: 0x2040_0000,
                    size: 0x1000
                }
            ]
        );
        assert_eq!((m.flash_ws, m.sram_ws, m.prefetch), (2, 0, true));
        assert_eq!(m.div, DivPolicy::Max);
        assert_eq!(
            m.handlers,
            vec![0x40, 0x100, 0x2a0],
            "sorted, deduplicated, bit 0 clear"
        );
        for core in ["cortex-m4", "cortex-m0", "cortex-m0plus", "none"] {
            assert!(parse_args(&["trace=/t", &format!("core={core}")]).is_ok());
        }
        assert!(
            parse_args(&["trace=/t", "handlers="])
                .unwrap()
                .model
                .handlers
                .is_empty()
        );
        // core=none accepts (and ignores) the other settings
        assert!(parse_args(&["trace=/t", "core=none", "flash=0:4", "flash_ws=1"]).is_ok());
    }

    #[test]
    fn model_errors() {
        let me = |a: &str| e(&["trace=/t", a]);
        assert!(me("core=cortex-m7").contains("core=cortex-m7: unknown core (known: cortex-m3"));
        assert!(me("flash=0x0").contains("expected BASE:SIZE"));
        assert!(me("flash=0x0:0").contains("non-empty"));
        assert!(me("flash=0xffff0000:0x20000").contains("32-bit address space"));
        assert!(me("sram=0x20000000:0x100;x").contains("expected BASE:SIZE"));
        assert!(me("flash_ws=two").contains("not an unsigned number"));
        assert!(me("flash_ws=65").contains("at most 64"));
        assert!(me("prefetch=yes").contains("prefetch=yes: expected on or off"));
        assert!(me("div=avg").contains("div=avg: expected min, typ or max"));
        assert!(me("handlers=0x100;zz").contains("handlers=zz"));
        assert!(me("flash_ws=1").contains("flash_ws=1 needs the flash region"));
        assert!(me("sram_ws=1").contains("sram_ws=1 needs the SRAM regions"));
        assert!(e(&["trace=/t", "core=none", "core=none"]).contains("more than once"));
    }

    #[test]
    fn all_keys() {
        let c = parse_args(&[
            "trace=/x/y.bin",
            "base=0x20000000",
            "size=256",
            "insn_limit=1_000_000",
            "max_records=0X10",
        ])
        .unwrap();
        assert_eq!(c.trace, "/x/y.bin");
        assert_eq!(c.base, 0x2000_0000);
        assert_eq!(c.size, 256);
        assert_eq!(c.insn_limit, 1_000_000);
        assert_eq!(c.max_records, 16);
        // A path may contain '='.
        assert_eq!(parse_args(&["trace=/a=b"]).unwrap().trace, "/a=b");
    }

    #[test]
    fn errors() {
        assert!(e(&[]).contains("missing required argument trace"));
        assert!(e(&["base=0x21000000"]).contains("trace"));
        assert!(e(&["trace=/t", "bogus=1"]).contains("unknown argument 'bogus'"));
        assert!(e(&["trace=/t", "insn_limit"]).contains("not key=value"));
        assert!(e(&["trace=/t", "insn_limit=ten"]).contains("insn_limit=ten"));
        assert!(e(&["trace=/t", "insn_limit=-1"]).contains("not an unsigned number"));
        assert!(e(&["trace=/t", "base=0x"]).contains("base=0x"));
        assert!(e(&["trace=/t", "base=0x1_0000_0000"]).contains("32 bits"));
        assert!(e(&["trace=/t", "base=0x21000002"]).contains("word aligned"));
        assert!(e(&["trace=/t", "size=0"]).contains("non-zero multiple of 4"));
        assert!(e(&["trace=/t", "size=6"]).contains("multiple of 4"));
        assert!(e(&["trace=/t", "base=0xfffffff0", "size=0x20"]).contains("end of the 32-bit"));
        assert!(e(&["trace=/t", "max_records=0"]).contains("at least 1"));
        assert!(e(&["trace="]).contains("needs a file path"));
        assert!(e(&["trace=/a", "trace=/b"]).contains("more than once"));
        assert!(e(&["trace=/t", "size=_4"]).contains("size=_4"));
        assert!(e(&["trace=/t", "size=+4"]).contains("size=+4"));
    }

    #[test]
    fn numbers() {
        assert_eq!(parse_u64("k", "0").unwrap(), 0);
        assert_eq!(parse_u64("k", "0x4000").unwrap(), 0x4000);
        assert_eq!(parse_u64("k", "18446744073709551615").unwrap(), u64::MAX);
        assert!(parse_u64("k", "18446744073709551616").is_err());
        assert!(parse_u64("k", "").is_err());
        assert!(parse_u64("k", "1e6").is_err());
        assert!(parse_u64("k", " 1").is_err());
    }
}
