//! The crates' module dependencies run one way: read every `crate::...` reference in
//! `src/**/*.rs` (and `config/src/**/*.rs`, the configuration crate), build the graph
//! of top-level modules, and fail on a cycle, naming it. Test modules count too: a test
//! that needs a module above its own is a sign the code sits in the wrong place.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// Top-level module -> the top-level modules it refers to through `crate::`.
type Graph = BTreeMap<String, BTreeSet<String>>;

fn rs_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let entries = std::fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
    for entry in entries {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rs_files(&path, out);
        } else if path.extension().is_some_and(|x| x == "rs") {
            out.push(path);
        }
    }
}

/// The top-level module a file belongs to (`src/a.rs`, `src/a/b.rs` -> `a`); None for
/// the crate root and for `src/bin/*` (separate crates that use the library by name).
fn module_of(src: &Path, file: &Path) -> Option<String> {
    let rel = file.strip_prefix(src).unwrap();
    let first = rel.components().next()?.as_os_str().to_str()?.to_string();
    if first == "bin" || first == "lib.rs" || first == "main.rs" {
        return None;
    }
    Some(first.trim_end_matches(".rs").to_string())
}

fn is_ident(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

/// The modules named right after `crate::` in `code` (comments removed):
/// `crate::a::X`, `crate::{a::X, b}`. `$crate::` (macros) is not this crate's.
fn crate_refs(code: &str) -> BTreeSet<String> {
    let code: String = code
        .lines()
        .map(|l| l.split("//").next().unwrap_or(""))
        .collect::<Vec<_>>()
        .join("\n");
    let mut out = BTreeSet::new();
    let mut rest = code.as_str();
    while let Some(at) = rest.find("crate::") {
        let before = rest[..at].chars().next_back();
        let after = &rest[at + "crate::".len()..];
        rest = after;
        if before.is_some_and(|c| is_ident(c) || c == '$') {
            continue;
        }
        if let Some(group) = after.strip_prefix('{') {
            // the names at depth 0 of the brace group
            let mut depth = 0usize;
            let mut item_start = true;
            let mut ident = String::new();
            for c in group.chars() {
                match c {
                    '{' => depth += 1,
                    '}' if depth == 0 => break,
                    '}' => depth -= 1,
                    ',' if depth == 0 => item_start = true,
                    c if depth == 0 && item_start && is_ident(c) => ident.push(c),
                    _ => {
                        if !ident.is_empty() {
                            out.insert(std::mem::take(&mut ident));
                            item_start = false;
                        }
                    }
                }
            }
            if !ident.is_empty() {
                out.insert(ident);
            }
        } else {
            let name: String = after.chars().take_while(|&c| is_ident(c)).collect();
            if !name.is_empty() {
                out.insert(name);
            }
        }
    }
    out
}

fn graph_of(src: &Path) -> Graph {
    let mut files = Vec::new();
    rs_files(src, &mut files);
    assert!(!files.is_empty(), "no sources under {}", src.display());
    let mut g = Graph::new();
    for f in &files {
        let Some(m) = module_of(src, f) else { continue };
        let code = std::fs::read_to_string(f).unwrap();
        let refs = g.entry(m.clone()).or_default();
        refs.extend(crate_refs(&code).into_iter().filter(|r| *r != m));
    }
    g
}

/// A cycle in `g`, as the path of modules around it, if there is one.
fn find_cycle(g: &Graph) -> Option<Vec<String>> {
    // 0 unvisited, 1 on the current path, 2 done
    fn visit(
        g: &Graph,
        m: &str,
        state: &mut BTreeMap<String, u8>,
        path: &mut Vec<String>,
    ) -> Option<Vec<String>> {
        match state.get(m).copied().unwrap_or(0) {
            1 => {
                let from = path.iter().position(|p| p == m).unwrap();
                let mut cycle = path[from..].to_vec();
                cycle.push(m.to_string());
                return Some(cycle);
            }
            2 => return None,
            _ => {}
        }
        state.insert(m.to_string(), 1);
        path.push(m.to_string());
        for next in g.get(m).into_iter().flatten() {
            if let Some(c) = visit(g, next, state, path) {
                return Some(c);
            }
        }
        path.pop();
        state.insert(m.to_string(), 2);
        None
    }
    let mut state = BTreeMap::new();
    for m in g.keys() {
        if let Some(c) = visit(g, m, &mut state, &mut Vec::new()) {
            return Some(c);
        }
    }
    None
}

fn assert_acyclic(src: &Path) {
    let g = graph_of(src);
    if let Some(c) = find_cycle(&g) {
        let edges: Vec<String> = g
            .iter()
            .map(|(m, refs)| {
                format!(
                    "  {m} -> {}",
                    refs.iter().cloned().collect::<Vec<_>>().join(", ")
                )
            })
            .collect();
        panic!(
            "{}: module dependency cycle {}\nthe graph:\n{}",
            src.display(),
            c.join(" -> "),
            edges.join("\n")
        );
    }
}

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

#[test]
fn plugin_modules_depend_one_way() {
    let src = Path::new(ROOT).join("src");
    assert_acyclic(&src);
    // and the layering the crate documents holds: the module list in src/lib.rs names
    // every module, each using only modules listed after it
    let g = graph_of(&src);
    let doc = std::fs::read_to_string(src.join("lib.rs")).unwrap();
    let order = documented_order(&doc);
    for m in g.keys() {
        assert!(
            order.contains(m),
            "module {m} is missing from src/lib.rs's module list"
        );
    }
    for (at, m) in order.iter().enumerate() {
        let refs = g
            .get(m)
            .unwrap_or_else(|| panic!("src/lib.rs lists {m}, which is no module"));
        for r in refs {
            let r_at = order.iter().position(|x| x == r).unwrap();
            assert!(
                r_at > at,
                "{m} uses {r}, listed before it in src/lib.rs: fix the list or the code"
            );
        }
    }
    assert!(g["thumb"].is_empty());
    assert_eq!(g["decoded"], BTreeSet::from(["thumb".to_string()]));
    assert!(g.contains_key("instrument") && !g.contains_key("plan"));
}

/// The module names of the crate doc's list (`//! * `name` - ...`), in order.
fn documented_order(lib: &str) -> Vec<String> {
    lib.lines()
        .filter_map(|l| l.strip_prefix("//! * `"))
        .filter_map(|l| l.split_once('`').map(|(name, _)| name.to_string()))
        .collect()
}

#[test]
fn config_modules_depend_one_way() {
    assert_acyclic(&Path::new(ROOT).join("config").join("src"));
}

#[test]
fn reference_scanner_and_cycle_finder() {
    let refs = crate_refs(
        "use crate::{cost::X, flow::{A, B}, thumb};\n\
         let x = crate::trace::f(); // crate::ignored\n\
         $crate::plugin::register(); other_crate::nope;",
    );
    let want: BTreeSet<String> = ["cost", "flow", "thumb", "trace"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    assert_eq!(refs, want);
    let g = |edges: &[(&str, &str)]| {
        let mut g = Graph::new();
        for (a, b) in edges {
            g.entry(a.to_string()).or_default().insert(b.to_string());
            g.entry(b.to_string()).or_default();
        }
        g
    };
    assert_eq!(find_cycle(&g(&[("a", "b"), ("b", "c"), ("a", "c")])), None);
    assert_eq!(
        find_cycle(&g(&[("a", "b"), ("b", "c"), ("c", "a")])),
        Some(vec!["a".into(), "b".into(), "c".into(), "a".into()])
    );
}
