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
//! Numbers are decimal or `0x` hexadecimal; `_` separators are allowed. Anything else
//! (unknown key, repeated key, missing `=`, bad number) is an error.

use std::fmt;

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
}

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

/// Parse the raw `key=value` arguments QEMU hands to the plugin.
pub fn parse_args<S: AsRef<str>>(args: &[S]) -> Result<Config, ArgError> {
    let mut trace: Option<String> = None;
    let mut base: Option<u32> = None;
    let mut size: Option<u32> = None;
    let mut insn_limit: Option<u64> = None;
    let mut max_records: Option<u64> = None;

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
            _ => {
                return err(format!(
                    "unknown argument '{key}' (known: trace, base, size, insn_limit, max_records)"
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
    Ok(Config {
        trace,
        base,
        size,
        insn_limit: insn_limit.unwrap_or(0),
        max_records,
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
                max_records: 4_000_000
            }
        );
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
