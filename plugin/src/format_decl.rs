//! Tests only: the examples and constants of a format's one declaration
//! (`formats/<name>.toml` at the repository root), so that the writers' tests check their
//! bytes against the same file the host's readers take their layout from
//! (tests/unit/test_format_contracts.py checks the readers).
//!
//! Reads the few shapes those files use: `NAME = <int>` lines under `[constants]`, and
//! `[[example]]` tables of `layout = <int>`, `part = "header" | "record"`,
//! `values = [<int or "text">, ...]`, `hex = "<bytes>"`.

/// A value of an example: an integer field or a text (the magic).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Value {
    Int(u64),
    Text(String),
}

impl Value {
    pub fn int(&self) -> u64 {
        match self {
            Value::Int(v) => *v,
            Value::Text(t) => panic!("expected an integer, found {t:?}"),
        }
    }
}

#[derive(Debug, Default)]
pub struct Example {
    pub layout: u32,
    pub part: String,
    pub values: Vec<Value>,
    pub bytes: Vec<u8>,
}

fn int(text: &str) -> u64 {
    let t = text.trim().replace('_', "");
    match t.strip_prefix("0x") {
        Some(h) => u64::from_str_radix(h, 16),
        None => t.parse(),
    }
    .unwrap_or_else(|_| panic!("not an integer: {text:?}"))
}

fn value_of(line: &str) -> &str {
    let v = line.split_once('=').expect("key = value").1;
    v.split_once('#').map_or(v, |(a, _)| a).trim()
}

/// The `[constants]` of a declaration, in file order.
pub fn constants(decl: &str) -> Vec<(String, u64)> {
    let mut out = Vec::new();
    let mut inside = false;
    for line in decl.lines().map(str::trim) {
        if line.starts_with('[') {
            inside = line == "[constants]";
        } else if inside && line.contains('=') && !line.starts_with('#') {
            let name = line.split_once('=').unwrap().0.trim().to_string();
            out.push((name, int(value_of(line))));
        }
    }
    out
}

/// The `[[example]]` tables of a declaration.
pub fn examples(decl: &str) -> Vec<Example> {
    let mut out: Vec<Example> = Vec::new();
    let mut inside = false;
    for line in decl.lines().map(str::trim) {
        if line.starts_with('[') {
            inside = line == "[[example]]";
            if inside {
                out.push(Example::default());
            }
            continue;
        }
        if !inside || line.is_empty() || line.starts_with('#') {
            continue;
        }
        let ex = out.last_mut().unwrap();
        let key = line.split_once('=').expect("key = value").0.trim();
        let raw = value_of(line);
        match key {
            "layout" => ex.layout = int(raw) as u32,
            "part" => ex.part = raw.trim_matches('"').to_string(),
            "hex" => {
                let h = raw.trim_matches('"');
                ex.bytes = (0..h.len())
                    .step_by(2)
                    .map(|i| u8::from_str_radix(&h[i..i + 2], 16).unwrap())
                    .collect();
            }
            "values" => {
                ex.values = raw
                    .trim_start_matches('[')
                    .trim_end_matches(']')
                    .split(',')
                    .map(str::trim)
                    .filter(|v| !v.is_empty())
                    .map(|v| match v.strip_prefix('"') {
                        Some(t) => Value::Text(t.trim_end_matches('"').to_string()),
                        None => Value::Int(int(v)),
                    })
                    .collect();
            }
            other => panic!("unknown example key {other}"),
        }
    }
    out
}

/// The value of constant `name`.
pub fn constant(decl: &str, name: &str) -> u64 {
    constants(decl)
        .into_iter()
        .find(|(n, _)| n == name)
        .unwrap_or_else(|| panic!("no constant {name} in the declaration"))
        .1
}
