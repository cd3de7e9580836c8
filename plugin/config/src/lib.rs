//! The rtoslab QEMU plugin's configuration, without QEMU: the plugin's arguments
//! (`args`), the timing model's settings with their description, parser and
//! cross-setting rules (`model`), the core tables (`cores`), and the self-description the
//! `rtoslab-plugin-describe` tool prints (`describe`).
//!
//! It is its own crate (a workspace member of `plugin/`) so that a plain executable can
//! link it: the plugin library depends on the `qemu-plugin` crate, whose exported
//! `qemu_plugin_install` and constructor refer to symbols that only exist inside QEMU.
//! The plugin uses this crate for every argument it parses, so the tool and the plugin
//! share one parser and one set of rules.
//!
//! Modules (dependencies run downwards only):
//! * `describe` - the JSON self-description;
//! * `args`     - every plugin argument (host-set ones and, through `model`, the settings);
//! * `model`    - timing-model settings: types, [`model::SETTINGS`], parser, rules;
//! * `cores`    - one file per core table, registered in one list;
//! * `values`   - argument errors and number syntax.

pub mod args;
pub mod cores;
pub mod describe;
pub mod model;
pub mod values;
