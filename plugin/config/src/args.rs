//! The plugin's arguments.
//!
//! QEMU 7.2 passes `-plugin lib.so,trace=/x/y.bin,base=0x21000000` to the plugin as the
//! strings `trace=/x/y.bin`, `base=0x21000000`. The host sets these itself:
//!
//! | key | default | meaning |
//! |---|---|---|
//! | `trace` | required | trace file to write (created or truncated) |
//! | `base` | `0x21000000` | probe region base address (word aligned) |
//! | `size` | `0x4000` | probe region size in bytes (multiple of 4, > 0) |
//! | `insn_limit` | `0` (none) | stop the guest with exit code 124 once this many instructions ran |
//! | `max_records` | `4000000` | hit records kept; later hits are dropped (status bit 0) |
//! | `handlers` | none | `ADDR[;ADDR...]`, exception handler entry addresses (the host reads them from the ELF) |
//! | `events` | none (off) | exception event file to write (docs/timeline.md; needs a timing model) |
//! | `irq_windows` | none | file to write the masked-window report to (docs/formats.md §9); needs a timing model for cycles |
//! | `prio_bits` | `8` | implemented NVIC priority bits (1-8): the priority levels `irq_windows` reports |
//! | `exit` | none | AVR guests: a 256-byte data-space window; a store to `exit + N` ends QEMU with exit status N (an AVR machine has no semihosting) |
//! | `time_hz` | none (off) | one clock: QEMU's virtual time follows the modelled cycles, counted at this rate (the emulated machine's CPU clock); needs a timing model and rtoslab's patched QEMU (docs/timing-model.md, "One clock") |
//!
//! Every other key is a timing-model setting (`model.rs`, docs/timing-model.md).
//! Numbers are decimal or `0x` hexadecimal; `_` separators are allowed. Anything else
//! (unknown key, repeated key, missing `=`, bad number or value, a broken cross-setting
//! rule) is an error.

use crate::model::{self, DefaultValue, Kind, ModelArgs, ModelConfig, Setting};
use crate::values::{ArgError, err, once, parse_u32, parse_u64};

/// QEMU's exit status when the instruction limit (`insn_limit=`) stops the guest, as
/// timeout(1) exits; the host reads it from `rtoslab-plugin-describe describe`.
pub const EXIT_INSN_LIMIT: i32 = 124;

/// The fastest core clock, in Hz, the plugin (`time_hz=`) and the firmware (which holds
/// `LAB_TARGET_CLOCK_HZ` in 32 bits) take; `describe` reports it as `clock_hz`'s range.
pub const MAX_CLOCK_HZ: u64 = u32::MAX as u64;

/// The two timing settings the host takes beside the plugin's ([`model::SETTINGS`]) and
/// translates before the plugin sees them: `clock_hz` (the firmware is built for it and
/// cycles convert to time at it; with `time=one-clock` it becomes `time_hz=`) and `time`
/// (what QEMU's virtual time follows). Declared here, with `time_hz=`'s bounds, so the
/// host reads them from `describe` like every other setting. Their default is the host's
/// (null): the target's clock, and one-clock when a core is modelled.
pub const HOST_SETTINGS: &[Setting] = &[
    Setting {
        key: "clock_hz",
        kind: Kind::Int {
            min: 1,
            max: MAX_CLOCK_HZ,
            unit: "Hz",
        },
        default: DefaultValue::Null,
        requires: &[],
        what: "the core clock",
        doc: "the core clock: the firmware is built for it, cycles convert to time at it; default: the target's clock_hz (target.toml)",
    },
    Setting {
        key: "time",
        kind: Kind::Choice(&["one-clock", "instruction"]),
        default: DefaultValue::Null,
        requires: &[],
        what: "what QEMU's virtual time follows",
        doc: "one-clock: QEMU's virtual time follows the modelled cycles at clock_hz (time_hz=; needs a core); instruction: QEMU's instruction clock, one instruction = 1 ns; default: one-clock when a core is modelled, else instruction",
    },
];

pub const DEFAULT_BASE: u32 = 0x2100_0000;
pub const DEFAULT_SIZE: u32 = 0x4000;
pub const DEFAULT_MAX_RECORDS: u64 = 4_000_000;

/// The arguments the host sets itself (not timing-model settings).
pub const HOST_KEYS: &[&str] = &[
    "trace",
    "base",
    "size",
    "insn_limit",
    "max_records",
    "handlers",
    "events",
    "irq_windows",
    "prio_bits",
    "time_hz",
    "exit",
];

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Config {
    pub trace: String,
    pub base: u32,
    pub size: u32,
    /// 0 = no limit.
    pub insn_limit: u64,
    pub max_records: u64,
    pub model: ModelConfig,
    /// Exception event file (`events=`), None when the timeline is off.
    pub events: Option<String>,
    /// Masked-window report file (`irq_windows=`), None: not tracked.
    pub irq_windows: Option<String>,
    /// Implemented NVIC priority bits (`prio_bits=`, 1-8).
    pub prio_bits: u8,
    /// One clock (`time_hz=`): the rate, in Hz, at which QEMU's virtual time follows the
    /// modelled cycles; None: QEMU's instruction clock.
    pub time_hz: Option<u64>,
    /// AVR guests (`exit=`): stores to `[exit, exit + 256)` end QEMU with the offset as
    /// the exit status; None: no such window.
    pub exit: Option<u32>,
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
    let mut handlers: Option<Vec<u32>> = None;
    let mut events: Option<String> = None;
    let mut irq_windows: Option<String> = None;
    let mut prio_bits: Option<u32> = None;
    let mut time_hz: Option<u64> = None;
    let mut exit: Option<u32> = None;
    let mut model = ModelArgs::default();

    for arg in args {
        let arg = arg.as_ref();
        let Some((key, value)) = arg.split_once('=') else {
            return err(format!("argument '{arg}' is not key=value"));
        };
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
            "handlers" => once(&mut handlers, key, parse_handlers(value)?)?,
            "events" => {
                if value.is_empty() {
                    return err("events= needs a file path".to_string());
                }
                once(&mut events, key, value.to_string())?
            }
            "irq_windows" => {
                if value.is_empty() {
                    return err("irq_windows= needs a file path".to_string());
                }
                once(&mut irq_windows, key, value.to_string())?
            }
            "prio_bits" => once(&mut prio_bits, key, parse_u32(key, value)?)?,
            "time_hz" => once(&mut time_hz, key, parse_u64(key, value)?)?,
            "exit" => once(&mut exit, key, parse_u32(key, value)?)?,
            _ => {
                if !model.take(key, value)? {
                    return err(format!(
                        "unknown argument '{key}' (known: {}, {})",
                        HOST_KEYS.join(", "),
                        model::keys()
                    ));
                }
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
    let prio_bits = prio_bits.unwrap_or(8);
    if !(1..=8).contains(&prio_bits) {
        return err(format!(
            "prio_bits={prio_bits}: give the implemented NVIC priority bits, 1 to 8"
        ));
    }
    let model = model.finish(handlers.unwrap_or_default())?;
    if let Some(hz) = time_hz {
        if hz == 0 || hz > MAX_CLOCK_HZ {
            return err(format!(
                "time_hz={hz}: give the machine's CPU clock in Hz, 1 to {MAX_CLOCK_HZ}"
            ));
        }
        if model.core.is_none() && model.avr.is_none() {
            return err(
                "time_hz= needs a timing model: give core=... as well (the clock follows modelled cycles)"
                    .to_string(),
            );
        }
    }
    if irq_windows.is_some() && model.core.is_none() {
        return err("irq_windows= needs a timing model: give core=... as well".to_string());
    }
    Ok(Config {
        trace,
        base,
        size,
        insn_limit: insn_limit.unwrap_or(0),
        max_records,
        model,
        events,
        irq_windows,
        prio_bits: prio_bits as u8,
        time_hz,
        exit,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cores;

    fn e(args: &[&str]) -> String {
        parse_args(args).unwrap_err().0
    }

    #[test]
    fn time_hz() {
        let c = parse_args(&["trace=/t", "core=cortex-m3", "time_hz=25000000"]).unwrap();
        assert_eq!(c.time_hz, Some(25_000_000));
        assert!(e(&["trace=/t", "time_hz=25000000"]).contains("time_hz= needs a timing model"));
        assert!(e(&["trace=/t", "core=cortex-m3", "time_hz=0"]).contains("time_hz=0"));
        assert!(
            e(&["trace=/t", "core=cortex-m3", "time_hz=5000000000"]).contains("time_hz=5000000000")
        );
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
                events: None,
                irq_windows: None,
                prio_bits: 8,
                time_hz: None,
                exit: None,
            }
        );
        let c = parse_args(&["trace=/t", "events=/tmp/e.bin"]).unwrap();
        assert_eq!(c.events.as_deref(), Some("/tmp/e.bin"));
        assert!(e(&["trace=/t", "events="]).contains("events= needs a file path"));
        assert_eq!(c.model.core, None, "no core: no model (old command lines)");
    }

    #[test]
    fn model_keys_reach_the_model() {
        let c = parse_args(&[
            "trace=/t",
            "core=cortex-m3",
            "flash=0x0:0x400000",
            "flash_ws=2",
            "prefetch=on",
            "handlers=0x101;0x2a1;0x101;0x40",
        ])
        .unwrap();
        let m = c.model;
        assert_eq!(m.core, cores::by_name("cortex-m3"));
        assert_eq!((m.flash_ws, m.prefetch), (2, true));
        assert_eq!(
            m.handlers,
            vec![0x40, 0x100, 0x2a0],
            "sorted, deduplicated, bit 0 clear"
        );
        for core in cores::choices() {
            assert!(parse_args(&["trace=/t", &format!("core={core}")]).is_ok());
        }
        assert!(
            parse_args(&["trace=/t", "handlers="])
                .unwrap()
                .model
                .handlers
                .is_empty()
        );
        // the model's own errors and rules, unchanged through the plugin's parser
        assert!(e(&["trace=/t", "core=cortex-m9"]).contains("core=cortex-m9: unknown core"));
        assert!(e(&["trace=/t", "core=cortex-m7"]).contains("cortex-m7 timing is not modelled"));
        assert!(e(&["trace=/t", "flash_ws=1"]).contains("flash_ws=1 needs the flash region"));
        assert!(e(&["trace=/t", "prefetch=on"]).contains("prefetch=on needs the flash region"));
        assert!(e(&["trace=/t", "handlers=0x100;zz"]).contains("handlers=zz"));
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
        assert_eq!(
            e(&["trace=/t", "bogus=1"]),
            "unknown argument 'bogus' (known: trace, base, size, insn_limit, max_records, \
             handlers, events, irq_windows, prio_bits, time_hz, exit, core, flash, sram, flash_ws, \
             sram_ws, prefetch, div, accel)"
        );
        assert!(e(&["trace=/t", "irq_windows=/w"]).contains("needs a timing model"));
        assert!(e(&["trace=/t", "irq_windows="]).contains("needs a file path"));
        assert!(e(&["trace=/t", "core=cortex-m3", "prio_bits=9"]).contains("1 to 8"));
        let c = parse_args(&[
            "trace=/t",
            "core=cortex-m3",
            "irq_windows=/w",
            "prio_bits=3",
        ])
        .unwrap();
        assert_eq!((c.irq_windows.as_deref(), c.prio_bits), (Some("/w"), 3));
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

    /// `rtoslab-plugin-describe check` and the plugin accept and refuse the same
    /// settings with the same message: they run the same code.
    #[test]
    fn check_and_plugin_agree() {
        use crate::model::parse_model_args;
        for set in [
            &[
                "core=cortex-m4",
                "flash=0:0x1000",
                "flash_ws=3",
                "prefetch=on",
            ][..],
            &["flash_ws=3"],
            &["sram_ws=1", "sram=0x20000000:0x100;0x20000080:4"],
            &["prefetch=on", "core=cortex-m0"],
            &["div=max", "div=min"],
            &["flash=1:2:3"],
        ] {
            let mut with_trace = vec!["trace=/t"];
            with_trace.extend_from_slice(set);
            match (parse_model_args(set), parse_args(&with_trace)) {
                (Ok(m), Ok(c)) => assert_eq!(m, c.model, "{set:?}"),
                (Err(a), Err(b)) => assert_eq!(a, b, "{set:?}"),
                (a, b) => panic!("{set:?}: check {a:?}, plugin {b:?}"),
            }
        }
        for key in HOST_KEYS {
            assert!(
                crate::model::setting(key).is_none(),
                "{key} is host-set only"
            );
        }
        for s in HOST_SETTINGS {
            assert!(crate::model::setting(s.key).is_none(), "{}", s.key);
            assert!(
                !HOST_KEYS.contains(&s.key),
                "{} is never a plugin argument",
                s.key
            );
            assert!(e(&["trace=/t", &format!("{}=1", s.key)]).contains("unknown argument"));
        }
    }
}
