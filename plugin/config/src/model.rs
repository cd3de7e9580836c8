//! The timing model's settings: their types, their description (the [`SETTINGS`] table,
//! which `rtoslab-plugin-describe describe` prints), and the one parser with the
//! cross-setting rules that both the QEMU-loaded plugin and `rtoslab-plugin-describe
//! check` run.
//!
//! Each setting is declared once, in [`SETTINGS`] (key, kind with its choices or range
//! and unit, default, the settings it needs, doc): the parser takes values and defaults
//! from it, [`ModelConfig::default`] is every declared default, and `describe` prints it
//! for the host (docs/timing-model.md lists the same table).
//!
//! Regions must not overlap. With `core=none` the settings are checked the same way but
//! have no effect. `handlers=` (exception handler addresses) is a model input the host
//! computes from the image, not a setting: `args.rs` parses it.

use crate::cores::{self, AvrTable, CoreTable};
use crate::values::{ArgError, err, once, parse_u64};

/// An address range `[base, base + size)`, inside the 32-bit address space.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Region {
    pub base: u32,
    pub size: u32,
}

impl Region {
    pub fn contains(&self, addr: u64) -> bool {
        addr.wrapping_sub(u64::from(self.base)) < u64::from(self.size)
    }

    fn end(&self) -> u64 {
        u64::from(self.base) + u64::from(self.size)
    }

    fn overlaps(&self, other: &Region) -> bool {
        u64::from(self.base) < other.end() && u64::from(other.base) < self.end()
    }
}

impl std::fmt::Display for Region {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{:#x}:{:#x}", self.base, self.size)
    }
}

/// Which cycle count to use for instructions whose time depends on operand values the
/// plugin cannot see (`div=`): SDIV/UDIV, and on the M3 the long multiplies.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DivPolicy {
    Min,
    Typ,
    Max,
}

impl DivPolicy {
    pub const NAMES: &'static [&'static str] = &["min", "typ", "max"];

    pub fn parse(s: &str) -> Option<DivPolicy> {
        Some(match s {
            "min" => DivPolicy::Min,
            "typ" => DivPolicy::Typ,
            "max" => DivPolicy::Max,
            _ => return None,
        })
    }

    /// The entry of a `[min, typ, max]` table row this policy selects.
    pub fn pick(self, v: [u32; 3]) -> u32 {
        match self {
            DivPolicy::Min => v[0],
            DivPolicy::Typ => v[1],
            DivPolicy::Max => v[2],
        }
    }
}

/// The flash interface in front of the `flash=` region (`accel=`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Accel {
    /// STM32F1-style: the flash is read 64 bits at a time; `prefetch` is its two-line
    /// prefetch buffer (RM0008 3.3.3).
    None,
    /// STM32F4 ART accelerator: 128-bit lines, a 64-line instruction cache, data reads
    /// from flash taken as data-cache hits; `prefetch` is its sequential prefetch (RM0090
    /// 3.4.2).
    Art,
}

impl Accel {
    pub const NAMES: &'static [&'static str] = &["none", "art"];

    pub fn parse(s: &str) -> Option<Accel> {
        Some(match s {
            "none" => Accel::None,
            "art" => Accel::Art,
            _ => return None,
        })
    }
}

/// The model's configuration (timing-model settings plus the host's `handlers=`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ModelConfig {
    /// The core's table; `None` for `core=none` (no model) and for an AVR core.
    pub core: Option<&'static CoreTable>,
    /// An AVR core's table (`core=avre`); then `core` is `None` and the Cortex-M
    /// settings keep their defaults (an AVR fetches with no wait states).
    pub avr: Option<&'static AvrTable>,
    /// Code/flash region (`flash=`); its accesses cost `flash_ws` wait states.
    pub flash: Option<Region>,
    /// SRAM regions (`sram=`); their accesses cost `sram_ws` wait states.
    pub sram: Vec<Region>,
    pub flash_ws: u32,
    pub sram_ws: u32,
    /// Flash prefetch buffer: the next flash line is read while the current one executes.
    pub prefetch: bool,
    pub div: DivPolicy,
    /// The flash interface (`accel=`).
    pub accel: Accel,
    /// Exception handler entry addresses, sorted, bit 0 clear (`handlers=`).
    pub handlers: Vec<u32>,
}

impl Default for ModelConfig {
    /// Every setting at its declared default ([`SETTINGS`]), no handlers.
    fn default() -> Self {
        ModelArgs::default()
            .finish(Vec::new())
            .expect("the declared defaults are valid together")
    }
}

/// Largest accepted wait-state count (a sanity bound, not a hardware one).
pub const MAX_WS: u32 = 64;

/// What values a setting takes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// A core table's name or `none` (the choices come from `cores::CORES`).
    Core,
    /// One of these words.
    Choice(&'static [&'static str]),
    /// `BASE:SIZE` regions separated by `;`, at most `max_regions` (None: any number).
    Regions { max_regions: Option<usize> },
    /// A whole number from `min` to `max` (decimal or 0x hex), counted in `unit`.
    Int {
        min: u64,
        max: u64,
        unit: &'static str,
    },
}

/// A setting's value when it is not given.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DefaultValue {
    Text(&'static str),
    Int(u64),
    /// Not set (no region).
    Null,
}

/// One timing-model setting.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Setting {
    pub key: &'static str,
    pub kind: Kind,
    pub default: DefaultValue,
    /// Settings that must also be given when this one has a value other than its
    /// default (e.g. `flash_ws` > 0 needs `flash`).
    pub requires: &'static [&'static str],
    /// What the setting is, as a message names it ("the flash region").
    pub what: &'static str,
    pub doc: &'static str,
}

/// Every timing-model setting the plugin takes, in the order it documents them.
pub const SETTINGS: &[Setting] = &[
    Setting {
        key: "core",
        kind: Kind::Core,
        default: DefaultValue::Text(cores::NONE),
        requires: &[],
        what: "the core",
        doc: "which core's cycle table to use; none = no model (cycle column 0, trace flag bit 0 clear)",
    },
    Setting {
        key: "flash",
        kind: Kind::Regions {
            max_regions: Some(1),
        },
        default: DefaultValue::Null,
        requires: &[],
        what: "the flash region",
        doc: "BASE:SIZE, the code/flash region (numbers decimal or 0x hex); its accesses cost flash_ws wait states",
    },
    Setting {
        key: "sram",
        kind: Kind::Regions { max_regions: None },
        default: DefaultValue::Null,
        requires: &[],
        what: "the SRAM regions",
        doc: "BASE:SIZE[;BASE:SIZE...], the SRAM regions; their accesses cost sram_ws wait states; regions must not overlap each other or flash",
    },
    Setting {
        key: "flash_ws",
        kind: Kind::Int {
            min: 0,
            max: MAX_WS as u64,
            unit: "wait states",
        },
        default: DefaultValue::Int(0),
        requires: &["flash"],
        what: "the flash wait states",
        doc: "wait states per flash read: an instruction fetch line (64 bits, 128 with accel=art) or a data access; more than 0 needs flash",
    },
    Setting {
        key: "sram_ws",
        kind: Kind::Int {
            min: 0,
            max: MAX_WS as u64,
            unit: "wait states",
        },
        default: DefaultValue::Int(0),
        requires: &["sram"],
        what: "the SRAM wait states",
        doc: "wait states per SRAM access (data, stacking, instruction fetch from SRAM); more than 0 needs sram",
    },
    Setting {
        key: "prefetch",
        kind: Kind::Choice(&["on", "off"]),
        default: DefaultValue::Text("off"),
        requires: &["flash"],
        what: "the prefetch buffer",
        doc: "on: the flash prefetch buffer reads the next flash line while the current one executes (STM32F1: two 64-bit lines; with accel=art the ART prefetch); off: a line is read when the core asks for it; on needs flash",
    },
    Setting {
        key: "div",
        kind: Kind::Choice(DivPolicy::NAMES),
        default: DefaultValue::Text("typ"),
        requires: &[],
        what: "the divide policy",
        doc: "min, typ or max: the cycles of instructions whose time depends on operand values (SDIV/UDIV, M3 long multiplies)",
    },
    Setting {
        key: "accel",
        kind: Kind::Choice(Accel::NAMES),
        default: DefaultValue::Text("none"),
        requires: &["flash"],
        what: "the flash accelerator",
        doc: "the flash interface: none = STM32F1 (64-bit lines; prefetch= its prefetch buffer), art = STM32F4 ART accelerator (128-bit lines, 64-line instruction cache, flash data reads as cache hits; prefetch= its prefetch); art needs flash",
    },
];

/// The setting named `key`.
pub fn setting(key: &str) -> Option<&'static Setting> {
    SETTINGS.iter().find(|s| s.key == key)
}

/// The settings' keys, comma-separated (for messages).
pub fn keys() -> String {
    SETTINGS
        .iter()
        .map(|s| s.key)
        .collect::<Vec<_>>()
        .join(", ")
}

/// "a, b or c".
fn alternatives(words: &[&str]) -> String {
    match words {
        [] => String::new(),
        [one] => (*one).to_string(),
        [init @ .., last] => format!("{} or {last}", init.join(", ")),
    }
}

/// A parsed value, shaped by its setting's [`Kind`].
#[derive(Clone, Debug, PartialEq, Eq)]
enum Value {
    Core(Option<&'static CoreTable>),
    AvrCore(&'static AvrTable),
    Choice(&'static str),
    Regions(Vec<Region>),
    Int(u64),
}

impl Value {
    fn is_default(&self, d: DefaultValue) -> bool {
        match (self, d) {
            (Value::Core(c), DefaultValue::Text(t)) => c.map_or(cores::NONE, |c| c.name) == t,
            (Value::AvrCore(c), DefaultValue::Text(t)) => c.name == t,
            (Value::Choice(c), DefaultValue::Text(t)) => *c == t,
            (Value::Int(n), DefaultValue::Int(d)) => *n == d,
            _ => false,
        }
    }
}

/// Parse `BASE:SIZE` (each a number as in `parse_u64`), a region inside 32-bit space.
fn parse_region(key: &str, value: &str, item: &str) -> Result<Region, ArgError> {
    let bad = || {
        ArgError(format!(
            "{key}={value}: expected BASE:SIZE, e.g. 0x20000000:0x10000"
        ))
    };
    let (b, sz) = item.split_once(':').ok_or_else(bad)?;
    let base = parse_u64(key, b).map_err(|_| bad())?;
    let size = parse_u64(key, sz).map_err(|_| bad())?;
    if size == 0 || base.checked_add(size).is_none_or(|end| end > 1 << 32) {
        return err(format!(
            "{key}={value}: the region must be non-empty and inside the 32-bit address space"
        ));
    }
    Ok(Region {
        base: base as u32,
        size: size as u32,
    })
}

impl Setting {
    /// How a value is written, for messages.
    fn syntax(&self) -> String {
        match self.kind {
            Kind::Core => cores::choices().join("|"),
            Kind::Choice(words) => words.join("|"),
            Kind::Regions { .. } => "BASE:SIZE".to_string(),
            Kind::Int { min, max, .. } => format!("{min}..{max}"),
        }
    }

    fn parse(&self, value: &str) -> Result<Value, ArgError> {
        let key = self.key;
        match self.kind {
            Kind::Core => {
                if value == cores::NONE {
                    return Ok(Value::Core(None));
                }
                if let Some(t) = cores::avr_by_name(value) {
                    return Ok(Value::AvrCore(t));
                }
                if cores::UNMODELLED.contains(&value) {
                    return Err(ArgError(format!(
                        "{key}={value}: {}",
                        cores::unmodelled_message(value)
                    )));
                }
                cores::by_name(value)
                    .map(|t| Value::Core(Some(t)))
                    .ok_or_else(|| {
                        ArgError(format!(
                            "{key}={value}: unknown core (known: {})",
                            cores::choices().join(", ")
                        ))
                    })
            }
            Kind::Choice(words) => words
                .iter()
                .find(|w| **w == value)
                .map(|w| Value::Choice(w))
                .ok_or_else(|| {
                    ArgError(format!("{key}={value}: expected {}", alternatives(words)))
                }),
            Kind::Regions { max_regions } => {
                let items: Vec<&str> = value.split(';').collect();
                if let Some(max) = max_regions
                    && items.len() > max
                {
                    return err(format!(
                        "{key}={value}: at most {max} region{} (BASE:SIZE)",
                        if max == 1 { "" } else { "s" }
                    ));
                }
                let regions = items
                    .iter()
                    .map(|item| parse_region(key, value, item))
                    .collect::<Result<Vec<_>, _>>()?;
                Ok(Value::Regions(regions))
            }
            Kind::Int { min, max, unit } => {
                let v = parse_u64(key, value)?;
                if v > max {
                    return err(format!("{key}={value}: at most {max} {unit}"));
                }
                if v < min {
                    return err(format!("{key}={value}: at least {min} {unit}"));
                }
                Ok(Value::Int(v))
            }
        }
    }
}

/// Collects timing-model settings one `key=value` at a time, then applies the defaults
/// and the cross-setting rules ([`ModelArgs::finish`]). Values are kept per entry of
/// [`SETTINGS`]; a setting not given takes its declared default there, so no default is
/// written anywhere else.
#[derive(Debug)]
pub struct ModelArgs {
    /// The value given for each entry of [`SETTINGS`], in its order.
    given: Vec<Option<Value>>,
    /// Settings given with a value other than their default, as given (`key=value`).
    changed: Vec<(&'static Setting, String)>,
}

impl Default for ModelArgs {
    fn default() -> Self {
        ModelArgs {
            given: vec![None; SETTINGS.len()],
            changed: Vec::new(),
        }
    }
}

fn index(key: &str) -> usize {
    SETTINGS
        .iter()
        .position(|s| s.key == key)
        .unwrap_or_else(|| unreachable!("no setting {key}"))
}

impl Setting {
    /// The declared default as a value (None: not set, a region setting).
    fn default_value(&self) -> Option<Value> {
        match self.default {
            DefaultValue::Text(t) => Some(
                self.parse(t)
                    .unwrap_or_else(|e| panic!("{}: declared default {t}: {e}", self.key)),
            ),
            DefaultValue::Int(n) => Some(Value::Int(n)),
            DefaultValue::Null => None,
        }
    }
}

/// The resolved values, one per entry of [`SETTINGS`], taken out by key.
struct Resolved(Vec<Option<Value>>);

impl Resolved {
    fn take(&mut self, key: &str) -> Option<Value> {
        self.0[index(key)].take()
    }

    fn int(&mut self, key: &str) -> u32 {
        match self.take(key) {
            // Int settings are bounded by MAX_WS, which fits in u32.
            Some(Value::Int(n)) => n as u32,
            v => unreachable!("{key}: not a number: {v:?}"),
        }
    }

    fn choice(&mut self, key: &str) -> &'static str {
        match self.take(key) {
            Some(Value::Choice(c)) => c,
            v => unreachable!("{key}: not a choice: {v:?}"),
        }
    }

    fn regions(&mut self, key: &str) -> Vec<Region> {
        match self.take(key) {
            Some(Value::Regions(r)) => r,
            None => Vec::new(),
            v => unreachable!("{key}: not regions: {v:?}"),
        }
    }
}

impl ModelArgs {
    /// Take `key=value` if `key` is a timing-model setting (`Ok(true)`); `Ok(false)` if
    /// it is not one; an error for a bad or repeated value.
    pub fn take(&mut self, key: &str, value: &str) -> Result<bool, ArgError> {
        let Some(s) = setting(key) else {
            return Ok(false);
        };
        let v = s.parse(value)?;
        if !v.is_default(s.default) {
            self.changed.push((s, format!("{key}={value}")));
        }
        once(&mut self.given[index(key)], key, v)?;
        Ok(true)
    }

    fn given(&self, key: &str) -> bool {
        self.given[index(key)].is_some()
    }

    /// Defaults and cross-setting rules: every `requires` of a setting given a
    /// non-default value, and no overlapping regions. `handlers` as `args.rs` parsed it.
    pub fn finish(self, handlers: Vec<u32>) -> Result<ModelConfig, ArgError> {
        for (s, given) in &self.changed {
            if let Some(need) = s.requires.iter().find(|r| !self.given(r)) {
                let n = setting(need).expect("requires names a setting");
                return err(format!(
                    "{given} needs {}: give {need}={} as well (or {}={})",
                    n.what,
                    n.syntax(),
                    s.key,
                    default_text(s.default)
                ));
            }
        }
        let mut v = Resolved(
            SETTINGS
                .iter()
                .zip(self.given)
                .map(|(s, g)| g.or_else(|| s.default_value()))
                .collect(),
        );
        let (core, avr) = match v.take("core") {
            Some(Value::Core(c)) => (c, None),
            Some(Value::AvrCore(t)) => (None, Some(t)),
            other => unreachable!("core: {other:?}"),
        };
        if let Some(t) = avr
            && let Some((s, given)) = self
                .changed
                .iter()
                .find(|(s, _)| s.key != "core" && s.key != "flash" && s.key != "sram")
        {
            return err(format!(
                "{given}: the {} model has no {} setting (an AVR core fetches from flash and \
                 reaches its SRAM with no wait states, no prefetch buffer, accelerator or \
                 divider): leave {} at {}",
                t.name,
                s.key,
                s.key,
                default_text(s.default)
            ));
        }
        let flash = v.regions("flash").first().copied();
        let sram = v.regions("sram");
        for (i, r) in sram.iter().enumerate() {
            if let Some(f) = flash.filter(|f| f.overlaps(r)) {
                return err(format!(
                    "sram region {r} overlaps the flash region {f}: give disjoint regions"
                ));
            }
            if let Some(o) = sram[..i].iter().find(|o| o.overlaps(r)) {
                return err(format!(
                    "sram region {r} overlaps sram region {o}: give disjoint regions"
                ));
            }
        }
        Ok(ModelConfig {
            core,
            avr,
            flash,
            sram,
            flash_ws: v.int("flash_ws"),
            sram_ws: v.int("sram_ws"),
            prefetch: v.choice("prefetch") == "on",
            div: DivPolicy::parse(v.choice("div")).expect("div choices are DivPolicy::NAMES"),
            accel: Accel::parse(v.choice("accel")).expect("accel choices are Accel::NAMES"),
            handlers,
        })
    }
}

fn default_text(d: DefaultValue) -> String {
    match d {
        DefaultValue::Text(t) => t.to_string(),
        DefaultValue::Int(n) => n.to_string(),
        DefaultValue::Null => "nothing".to_string(),
    }
}

/// Check a set of timing-model settings only (`rtoslab-plugin-describe check`): the same
/// parser and rules as the plugin, without the host-set arguments.
pub fn parse_model_args<S: AsRef<str>>(args: &[S]) -> Result<ModelConfig, ArgError> {
    let mut m = ModelArgs::default();
    for arg in args {
        let arg = arg.as_ref();
        let Some((key, value)) = arg.split_once('=') else {
            return err(format!(
                "argument '{arg}' is not KEY=VALUE (timing-model settings: {})",
                keys()
            ));
        };
        if !m.take(key, value)? {
            return err(format!(
                "unknown timing-model setting '{key}' (known: {})",
                keys()
            ));
        }
    }
    m.finish(Vec::new())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn e(args: &[&str]) -> String {
        parse_model_args(args).unwrap_err().0
    }

    #[test]
    fn every_setting_parses_its_default_and_a_sample() {
        for s in SETTINGS {
            let sample = match s.kind {
                Kind::Core => "cortex-m0".to_string(),
                Kind::Choice(w) => w[0].to_string(),
                Kind::Regions { .. } => "0x0:0x1000".to_string(),
                Kind::Int { max, .. } => max.to_string(),
            };
            let mut args = vec![format!("{}={sample}", s.key)];
            for r in s.requires {
                args.push(format!("{r}=0x0:0x1000"));
            }
            assert!(parse_model_args(&args).is_ok(), "{args:?}");
            if s.default != DefaultValue::Null {
                let d = format!("{}={}", s.key, default_text(s.default));
                assert_eq!(
                    parse_model_args(&[d.as_str()]).unwrap(),
                    ModelConfig::default(),
                    "{d}: the documented default is the default"
                );
            }
        }
    }

    #[test]
    fn values() {
        let c = parse_model_args(&[
            "core=cortex-m3",
            "flash=0x0:0x400000",
            "sram=0x20000000:0x10000;0x20400000:0x1000",
            "flash_ws=2",
            "sram_ws=0",
            "prefetch=on",
            "div=max",
            "accel=art",
        ])
        .unwrap();
        assert_eq!(c.accel, Accel::Art);
        assert_eq!(c.core.map(|t| t.name), Some("cortex-m3"));
        assert_eq!(
            c.flash,
            Some(Region {
                base: 0,
                size: 0x40_0000
            })
        );
        assert_eq!(
            c.sram,
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
        assert_eq!((c.flash_ws, c.sram_ws, c.prefetch), (2, 0, true));
        assert_eq!(c.div, DivPolicy::Max);
        assert_eq!(
            parse_model_args::<&str>(&[]).unwrap(),
            ModelConfig::default()
        );
        // core=none accepts (and ignores) the other settings
        assert!(parse_model_args(&["core=none", "flash=0:4", "flash_ws=1"]).is_ok());
        // regions may touch
        assert!(parse_model_args(&["flash=0:0x100", "sram=0x100:0x100;0x200:4"]).is_ok());
    }

    #[test]
    fn bad_values() {
        assert_eq!(
            e(&["core=cortex-m9"]),
            format!(
                "core=cortex-m9: unknown core (known: {})",
                cores::choices().join(", ")
            )
        );
        assert_eq!(
            e(&["core=cortex-m7"]),
            "core=cortex-m7: cortex-m7 timing is not modelled; use --timing core=none for instruction counts"
        );
        for name in cores::UNMODELLED {
            assert!(cores::by_name(name).is_none(), "{name} has a table");
            assert!(e(&[&format!("core={name}")]).contains("is not modelled"));
        }
        assert!(e(&["flash=0x0"]).contains("flash=0x0: expected BASE:SIZE"));
        assert!(e(&["flash=0x0:0"]).contains("non-empty"));
        assert!(e(&["flash=0xffff0000:0x20000"]).contains("32-bit address space"));
        assert!(e(&["flash=0x0:0xffffffffffffffff"]).contains("32-bit address space"));
        assert_eq!(
            e(&["flash=0x0:4;0x10:4"]),
            "flash=0x0:4;0x10:4: at most 1 region (BASE:SIZE)"
        );
        assert!(e(&["sram=0x20000000:0x100;x"]).contains("expected BASE:SIZE"));
        assert!(e(&["sram="]).contains("sram=: expected BASE:SIZE"));
        assert!(e(&["flash_ws=two"]).contains("not an unsigned number"));
        assert_eq!(e(&["flash_ws=65"]), "flash_ws=65: at most 64 wait states");
        assert_eq!(e(&["prefetch=yes"]), "prefetch=yes: expected on or off");
        assert_eq!(e(&["div=avg"]), "div=avg: expected min, typ or max");
        assert_eq!(e(&["accel=cache"]), "accel=cache: expected none or art");
        assert!(e(&["div=typ", "div=typ"]).contains("'div' given more than once"));
        assert_eq!(
            e(&["trace=/t"]),
            "unknown timing-model setting 'trace' (known: core, flash, sram, flash_ws, sram_ws, prefetch, div, accel)"
        );
        assert!(e(&["handlers=0x100"]).contains("unknown timing-model setting 'handlers'"));
        assert!(e(&["core"]).contains("argument 'core' is not KEY=VALUE"));
    }

    #[test]
    fn cross_setting_rules() {
        assert_eq!(
            e(&["flash_ws=1"]),
            "flash_ws=1 needs the flash region: give flash=BASE:SIZE as well (or flash_ws=0)"
        );
        assert_eq!(
            e(&["core=cortex-m3", "sram_ws=3"]),
            "sram_ws=3 needs the SRAM regions: give sram=BASE:SIZE as well (or sram_ws=0)"
        );
        assert_eq!(
            e(&["prefetch=on", "sram=0x20000000:4"]),
            "prefetch=on needs the flash region: give flash=BASE:SIZE as well (or prefetch=off)"
        );
        assert_eq!(
            e(&["accel=art"]),
            "accel=art needs the flash region: give flash=BASE:SIZE as well (or accel=none)"
        );
        // the rule is about values, not keys: defaults need nothing
        assert!(parse_model_args(&["flash_ws=0", "sram_ws=0x0", "prefetch=off"]).is_ok());
        assert_eq!(
            e(&["flash=0x0:0x1000", "sram=0x800:0x1000"]),
            "sram region 0x800:0x1000 overlaps the flash region 0x0:0x1000: give disjoint regions"
        );
        assert_eq!(
            e(&["sram=0x20000000:0x100;0x200000f0:0x10"]),
            "sram region 0x200000f0:0x10 overlaps sram region 0x20000000:0x100: give disjoint regions"
        );
    }
}
