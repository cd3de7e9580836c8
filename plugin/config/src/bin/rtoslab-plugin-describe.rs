//! `rtoslab-plugin-describe`: the plugin's timing-model settings and core tables for the
//! host, from the plugin's own code (no QEMU needed).
//!
//! * `rtoslab-plugin-describe describe`: one JSON document on stdout, schema
//!   `rtoslab.plugin-describe/1` (settings with kind, default, doc, ranges or choices,
//!   requires; core tables with name, arch, description, source). Exit 0.
//! * `rtoslab-plugin-describe check KEY=VALUE ...`: validate timing-model settings with
//!   the parser and rules the QEMU-loaded plugin runs. Valid: exit 0, no output.
//!   Invalid: exit 2, one line on stderr, `rtoslab-plugin: ` and the plugin's message.
//!
//! Usage errors: exit 2, one line on stderr.

use std::io::Write;
use std::process::ExitCode;

use rtoslab_plugin_config::describe::describe_json;
use rtoslab_plugin_config::model::parse_model_args;

const USAGE: &str =
    "usage: rtoslab-plugin-describe describe | rtoslab-plugin-describe check KEY=VALUE ...";

fn fail(msg: &str) -> ExitCode {
    let _ = writeln!(std::io::stderr(), "{msg}");
    ExitCode::from(2)
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.first().map(String::as_str) {
        Some("describe") if args.len() == 1 => {
            let mut out = std::io::stdout().lock();
            match writeln!(out, "{}", describe_json().render()).and_then(|()| out.flush()) {
                Ok(()) => ExitCode::SUCCESS,
                Err(e) => fail(&format!("rtoslab-plugin-describe: writing stdout: {e}")),
            }
        }
        Some("describe") => fail(&format!(
            "rtoslab-plugin-describe: describe takes no arguments ({USAGE})"
        )),
        Some("check") => match parse_model_args(&args[1..]) {
            Ok(_) => ExitCode::SUCCESS,
            Err(e) => fail(&format!("rtoslab-plugin: {e}")),
        },
        Some("-h" | "--help") => {
            println!("{USAGE}");
            ExitCode::SUCCESS
        }
        Some(other) => fail(&format!(
            "rtoslab-plugin-describe: unknown mode '{other}' ({USAGE})"
        )),
        None => fail(&format!("rtoslab-plugin-describe: no mode given ({USAGE})")),
    }
}
