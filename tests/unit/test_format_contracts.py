"""Every binary format between firmware, plugin and host has one declaration
(formats/<name>.toml); each side is checked against it here, so a side that changes
alone fails (issue 25, item 1). Read from the sources alone: no toolchain needed.

- .lab_meta (formats/lab_meta.toml): writers C (lab/probe.h) and Rust (firmware/rust/lab),
  reader Python (rtoslab.trace.meta, whose struct comes from the declaration);
- trace (formats/trace.toml) and events (formats/events.toml): writer the plugin
  (plugin/src/trace.rs, events.rs: its constants here, its bytes by its own tests against
  the declaration's examples: `cargo test`), reader Python (rtoslab.trace.reader, .events).

Each declaration carries examples with their exact bytes: the readers must read them and
the writers write them.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from rtoslab import exitcodes, formats, records
from rtoslab.trace.events import parse_events
from rtoslab.trace.meta import CALIBRATION_END_ID, CALIBRATION_START_ID, parse_probe_meta
from rtoslab.trace.reader import parse_trace

ROOT = Path(__file__).resolve().parents[2]
PROBE_H = ROOT / "firmware" / "include" / "lab" / "probe.h"
RUST_LAB = ROOT / "firmware" / "rust" / "lab" / "src" / "lib.rs"
PLUGIN = ROOT / "plugin" / "src"
NAMES = ("lab_meta", "trace", "events")


def _values(ex: dict[str, object]) -> list[object]:
    vals = ex["values"]
    assert isinstance(vals, list)
    return [v.encode() if isinstance(v, str) else v for v in vals]


def _example_bytes(fmt: formats.Format, part: str, layout: int) -> list[bytes]:
    return [bytes.fromhex(str(ex["hex"])) for ex in fmt.examples
            if ex["part"] == part and ex["layout"] == layout]


@pytest.mark.parametrize("name", NAMES)
def test_declaration_is_consistent(name: str) -> None:
    fmt = formats.load(name)
    assert fmt.version in fmt.reads
    assert set(fmt.reads) <= set(fmt.records)
    assert len({fmt.headers[v].size for v in fmt.reads if v in fmt.headers}) <= 1
    assert fmt.examples, "a declaration carries examples with their bytes"
    for ex in fmt.examples:
        layout = (fmt.headers if ex["part"] == "header" else fmt.records)[int(str(ex["layout"]))]
        assert layout.struct.pack(*_values(ex)).hex() == ex["hex"], ex


# ---- .lab_meta -----------------------------------------------------------------------

_C_TYPES = {"uint16_t": "u16", "uint32_t": "u32", "uint64_t": "u64"}
_RUST_TYPES = {"u16": "u16", "u32": "u32", "u64": "u64"}


def c_struct(text: str, name: str) -> list[list[str]]:
    body = re.search(rf"struct\s+{name}\s*\{{(.*?)\}};", text, re.DOTALL)
    assert body, f"struct {name} not found"
    out = []
    for ctype, field, n in re.findall(r"(\w+)\s+(\w+)(?:\[(\d+)\])?\s*;", body.group(1)):
        out.append([field, f"bytes:{n}" if n and ctype in ("char", "uint8_t") else _C_TYPES[ctype]])
    return out


def rust_struct(text: str, name: str) -> list[list[str]]:
    body = re.search(rf"#\[repr\(C[^\]]*\)\]\s*pub struct {name}\s*\{{(.*?)\}}", text, re.DOTALL)
    assert body, f"#[repr(C)] struct {name} not found"
    out = []
    for field, ty in re.findall(r"pub\s+(\w+)\s*:\s*([^,]+),", body.group(1)):
        arr = re.fullmatch(r"\[u8;\s*(\d+)\]", ty.strip())
        out.append([field, f"bytes:{arr.group(1)}" if arr else _RUST_TYPES[ty.strip()]])
    return out


def c_defines(text: str, prefix: str) -> dict[str, int]:
    return {m.group(1): int(m.group(2), 0) for m in
            re.finditer(rf"^\s*#\s*define\s+{prefix}(\w+)\s+(0x[0-9A-Fa-f]+|\d+)u?\b", text, re.MULTILINE)}


def rust_consts(text: str) -> dict[str, int]:
    return {m.group(1): int(m.group(2).replace("_", ""), 0) for m in
            re.finditer(r"^pub const (\w+):\s*\w+\s*=\s*(0x[0-9A-Fa-f_]+|-?[\d_]+);", text, re.MULTILINE)}


def test_lab_meta_c_writer_matches() -> None:
    fmt = formats.load("lab_meta")
    text = PROBE_H.read_text()
    assert c_struct(text, "lab_meta_rec") == [list(f) for f in fmt.records[fmt.version].fields]
    defines = c_defines(text, "LAB_META_")
    assert defines.pop("MAGIC") == fmt.magic
    assert defines.pop("VERSION") == fmt.version
    assert defines == fmt.constants


def test_lab_meta_rust_writer_matches() -> None:
    fmt = formats.load("lab_meta")
    text = RUST_LAB.read_text()
    assert rust_struct(text, "MetaRec") == [list(f) for f in fmt.records[fmt.version].fields]
    consts = rust_consts(text)
    assert consts["META_MAGIC"] == fmt.magic
    assert consts["META_VERSION"] == fmt.version
    for name in ("KIND_INTERVAL", "KIND_PERIOD", "KIND_SINCE", "FLAG_VIRTUAL"):
        assert consts[name] == fmt.constants[name], name
    # (the crate's other copy of a firmware contract: the exit codes of lab/exit.h)
    for name, value in consts.items():
        if name.startswith("EXIT_"):
            assert exitcodes.code_of(name[len("EXIT_"):]) == value, name


def test_lab_meta_python_side_matches() -> None:
    fmt = formats.load("lab_meta")
    for name in ("KIND_INTERVAL", "KIND_PERIOD", "KIND_SINCE", "FLAG_CALIBRATION",
                 "FLAG_NO_CALIBRATION", "FLAG_VIRTUAL"):
        assert getattr(records, name) == fmt.constants[name], name  # records imports nothing
    (data,) = _example_bytes(fmt, "record", 1)
    (meta,) = parse_probe_meta(data, "example")
    ex = fmt.examples[0]["values"]
    assert isinstance(ex, list)
    assert (meta.kind, meta.start_id, meta.end_id, meta.flags, meta.name, meta.description) == (
        ex[2], ex[3], ex[4], ex[5], ex[6], ex[7])


def test_reserved_probe_ids_come_from_probe_h() -> None:
    defines = c_defines(PROBE_H.read_text(), "LAB_PROBE_")
    declared = (defines["CALIBRATION_START"], defines["CALIBRATION_END"])
    assert declared == (CALIBRATION_START_ID, CALIBRATION_END_ID)
    harness = (ROOT / "firmware" / "harness" / "harness.c").read_text()
    assert "LAB_PROBE(LAB_PROBE_CALIBRATION_START)" in harness


# ---- trace and events: the plugin writes, the host reads -----------------------------

def _plugin_consts(file: str) -> dict[str, object]:
    text = (PLUGIN / file).read_text()
    out: dict[str, object] = {}
    for m in re.finditer(r"^pub const (\w+):\s*[^=]+=\s*([^;]+);", text, re.MULTILINE):
        raw = m.group(2).strip()
        if raw.startswith('b"'):
            out[m.group(1)] = raw[2:-1].encode()
        elif (shift := re.fullmatch(r"1\s*<<\s*(\d+)", raw)):
            out[m.group(1)] = 1 << int(shift.group(1))
        elif re.fullmatch(r"0x[0-9A-Fa-f_]+|[\d_]+", raw):
            out[m.group(1)] = int(raw.replace("_", ""), 0)
    return out


def test_trace_plugin_constants_match() -> None:
    fmt = formats.load("trace")
    c = _plugin_consts("trace.rs")
    assert (c["MAGIC"], c["VERSION"]) == (fmt.magic, fmt.version)
    assert (c["HEADER_SIZE"], c["RECORD_SIZE"]) == (fmt.headers[fmt.version].size,
                                                    fmt.records[fmt.version].size)
    for name, value in fmt.constants.items():
        assert c[name] == value, name


def test_events_plugin_constants_match() -> None:
    fmt = formats.load("events")
    c = _plugin_consts("events.rs")
    assert c["MAGIC"] == fmt.magic
    assert (c["VERSION"], c["RECORD_SIZE"]) == (1, fmt.records[1].size)
    assert (c["VERSION_MULTI"], c["RECORD_SIZE_MULTI"]) == (2, fmt.records[2].size)
    assert c["HEADER_SIZE"] == fmt.headers[1].size == fmt.headers[2].size
    for name, value in fmt.constants.items():
        if name != "FLAG_CYCLES_MODELLED":  # the plugin passes the trace's flag word
            assert c[name] == value, name


def test_trace_python_reader_reads_the_examples() -> None:
    fmt = formats.load("trace")
    (header,) = _example_bytes(fmt, "header", 2)
    hit, end = _example_bytes(fmt, "record", 2)
    trace = parse_trace(header + hit + end, "example")
    hv = fmt.examples[0]["values"]
    rv = fmt.examples[1]["values"]
    ev = fmt.examples[2]["values"]
    assert isinstance(hv, list) and isinstance(rv, list) and isinstance(ev, list)
    assert (trace.version, trace.probe_base, trace.probe_size, trace.has_cycles, trace.cores) == (
        hv[1], hv[3], hv[4], bool(hv[5]), hv[6])
    (h,) = trace.hits
    assert (h.probe_id, h.core, h.insns, h.cycles, h.shared) == (rv[0], rv[1], rv[3], rv[4], (rv[5], rv[6]))
    assert trace.end is not None
    assert (trace.end.status, trace.end.total_insns, trace.end.total_cycles) == (ev[2], ev[3], ev[4])


@pytest.mark.parametrize("version", [1, 2])
def test_events_python_reader_reads_the_examples(version: int) -> None:
    fmt = formats.load("events")
    (header,) = _example_bytes(fmt, "header", version)
    (record,) = _example_bytes(fmt, "record", version)
    layout = fmt.records[version]
    end = layout.struct.pack(fmt.constants["KIND_END"], *[0] * (len(layout.names) - 1))
    events = parse_events(header + record + end, "example")
    ex = next(e["values"] for e in fmt.examples if e["part"] == "record" and e["layout"] == version)
    assert isinstance(ex, list)
    (ev,) = events.events
    assert (ev.kind, ev.core, ev.pc, ev.insns, ev.cycles) == tuple(ex[:5])
    assert ev.shared == (None if version == 1 else (ex[5], ex[6]))


def test_a_changed_side_is_caught() -> None:
    """The parsers above see a change: a C field renamed or resized differs."""
    fmt = formats.load("lab_meta")
    changed = PROBE_H.read_text().replace("char desc[112];", "char desc[108];")
    assert c_struct(changed, "lab_meta_rec") != [list(f) for f in fmt.records[1].fields]
