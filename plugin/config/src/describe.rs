//! The self-description `rtoslab-plugin-describe describe` prints: schema
//! `rtoslab.plugin-describe/2`, one JSON object (see `describe_json`). Every setting in
//! it comes from its one declaration ([`SETTINGS`], [`HOST_SETTINGS`]): key, kind,
//! choices or range with unit, default, what it is, the settings it needs, doc.

use crate::args::HOST_SETTINGS;
use crate::cores::{self, CORES};
use crate::model::{DefaultValue, Kind, SETTINGS, Setting};

/// Identifies the document's layout; a change that could break a reader bumps it.
pub const SCHEMA: &str = "rtoslab.plugin-describe/2";

/// The plugin's version (the workspace's crate version, shared by the plugin library).
pub const PLUGIN_VERSION: &str = env!("CARGO_PKG_VERSION");

/// A JSON value, written out in the order built (no dependency needed for this much).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Json {
    Null,
    Int(u64),
    Str(String),
    Arr(Vec<Json>),
    Obj(Vec<(&'static str, Json)>),
}

impl Json {
    fn str(s: &str) -> Json {
        Json::Str(s.to_string())
    }

    fn strs(items: &[&str]) -> Json {
        Json::Arr(items.iter().map(|s| Json::str(s)).collect())
    }

    /// Compact JSON text.
    pub fn render(&self) -> String {
        let mut out = String::new();
        self.write(&mut out);
        out
    }

    fn write(&self, out: &mut String) {
        match self {
            Json::Null => out.push_str("null"),
            Json::Int(n) => out.push_str(&n.to_string()),
            Json::Str(s) => write_str(out, s),
            Json::Arr(items) => {
                out.push('[');
                for (i, v) in items.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    v.write(out);
                }
                out.push(']');
            }
            Json::Obj(fields) => {
                out.push('{');
                for (i, (k, v)) in fields.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    write_str(out, k);
                    out.push(':');
                    v.write(out);
                }
                out.push('}');
            }
        }
    }
}

fn write_str(out: &mut String, s: &str) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            c if u32::from(c) < 0x20 => out.push_str(&format!("\\u{:04x}", u32::from(c))),
            c => out.push(c),
        }
    }
    out.push('"');
}

fn setting_json(s: &Setting) -> Json {
    let mut f: Vec<(&'static str, Json)> = vec![("key", Json::str(s.key))];
    match s.kind {
        Kind::Core => {
            f.push(("kind", Json::str("choice")));
            f.push(("choices", Json::strs(&cores::choices())));
        }
        Kind::Choice(words) => {
            f.push(("kind", Json::str("choice")));
            f.push(("choices", Json::strs(words)));
        }
        Kind::Regions { max_regions } => {
            f.push(("kind", Json::str("regions")));
            f.push((
                "max_regions",
                max_regions.map_or(Json::Null, |n| Json::Int(n as u64)),
            ));
        }
        Kind::Int { min, max, unit } => {
            f.push(("kind", Json::str("int")));
            f.push(("min", Json::Int(min)));
            f.push(("max", Json::Int(max)));
            f.push(("unit", Json::str(unit)));
        }
    }
    f.push((
        "default",
        match s.default {
            DefaultValue::Text(t) => Json::str(t),
            DefaultValue::Int(n) => Json::Int(n),
            DefaultValue::Null => Json::Null,
        },
    ));
    f.push(("requires", Json::strs(s.requires)));
    f.push(("what", Json::str(s.what)));
    f.push(("doc", Json::str(s.doc)));
    Json::Obj(f)
}

/// The whole description: every timing-model setting, every core table, the cores
/// `core=` refuses by name (`unmodelled`: name and the one-line refusal), and the host's
/// own timing settings (`host_settings`: `clock_hz`, with `time_hz=`'s range, and `time`).
pub fn describe_json() -> Json {
    Json::Obj(vec![
        ("schema", Json::str(SCHEMA)),
        ("plugin_version", Json::str(PLUGIN_VERSION)),
        (
            "exit_insn_limit",
            Json::Int(crate::args::EXIT_INSN_LIMIT as u64),
        ),
        (
            "settings",
            Json::Arr(SETTINGS.iter().map(setting_json).collect()),
        ),
        (
            "cores",
            Json::Arr(
                CORES
                    .iter()
                    .map(|t| {
                        Json::Obj(vec![
                            ("name", Json::str(t.name)),
                            ("arch", Json::str(t.arch)),
                            ("description", Json::str(t.description)),
                            ("source", Json::str(t.source)),
                        ])
                    })
                    .chain(cores::AVR_CORES.iter().map(|t| {
                        Json::Obj(vec![
                            ("name", Json::str(t.name)),
                            ("arch", Json::str("avr")),
                            ("description", Json::str(t.description)),
                            ("source", Json::str(t.source)),
                        ])
                    }))
                    .collect(),
            ),
        ),
        (
            "unmodelled",
            Json::Arr(
                cores::UNMODELLED
                    .iter()
                    .map(|name| {
                        Json::Obj(vec![
                            ("name", Json::str(name)),
                            ("message", Json::Str(cores::unmodelled_message(name))),
                        ])
                    })
                    .collect(),
            ),
        ),
        (
            "host_settings",
            Json::Arr(HOST_SETTINGS.iter().map(setting_json).collect()),
        ),
    ])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes() {
        let j = Json::Obj(vec![("a\"b", Json::str("x\\y\n\u{1}é"))]);
        assert_eq!(j.render(), r#"{"a\"b":"x\\y\n\u0001é"}"#);
        assert_eq!(
            Json::Arr(vec![Json::Null, Json::Int(3)]).render(),
            "[null,3]"
        );
    }

    #[test]
    fn settings_render() {
        let text = describe_json().render();
        let choices = Json::strs(&cores::choices()).render();
        assert!(text.starts_with(&format!(
            r#"{{"schema":"rtoslab.plugin-describe/2","plugin_version":"{PLUGIN_VERSION}","exit_insn_limit":124,"settings":[{{"key":"core","kind":"choice","choices":{choices},"default":"none","requires":[],"what":"the core","doc":"#
        )));
        assert!(choices.starts_with(r#"["cortex-m3","cortex-m4","cortex-m0","cortex-m0plus""#));
        assert!(text.contains(
            r#"{"key":"flash","kind":"regions","max_regions":1,"default":null,"requires":[],"what":"the flash region","doc":"#
        ));
        assert!(text.contains(
            r#"{"key":"flash_ws","kind":"int","min":0,"max":64,"unit":"wait states","default":0,"requires":["flash"],"what":"the flash wait states","doc":"#
        ));
        assert!(text.contains(r#"{"key":"sram","kind":"regions","max_regions":null,"#));
        assert!(text.contains(r#"{"key":"prefetch","kind":"choice","choices":["on","off"],"default":"off","requires":["flash"],"#));
        assert!(text.contains(r#""cores":[{"name":"cortex-m3","arch":"armv7-m","description":"#));
        assert_eq!(
            text.matches(r#""arch":"#).count(),
            CORES.len() + cores::AVR_CORES.len()
        );
        assert!(text.contains(
            r#","host_settings":[{"key":"clock_hz","kind":"int","min":1,"max":4294967295,"unit":"Hz","default":null,"requires":[],"what":"the core clock","doc":"#
        ));
        assert!(text.contains(
            r#"{"key":"time","kind":"choice","choices":["one-clock","instruction"],"default":null,"#
        ));
        assert!(text.ends_with("]}"));
        assert!(text.contains(
            r#""unmodelled":[{"name":"cortex-m1","message":"cortex-m1 timing is not modelled; use --timing core=none for instruction counts"}"#
        ));

        for key in [
            "trace",
            "base",
            "size",
            "insn_limit",
            "max_records",
            "handlers",
        ] {
            assert!(
                !text.contains(&format!(r#""key":"{key}""#)),
                "{key} is host-set"
            );
        }
    }
}
