"""The binary formats firmware, plugin and host exchange, from their one declaration each
(``formats/<name>.toml``: the ``.lab_meta`` record, the probe trace, the exception event
file). The host's readers take their structs and constants from here; the writers (C
and Rust firmware, the plugin) are checked against the same files by tests
(tests/unit/test_format_contracts.py, the plugin's own tests).
"""

from __future__ import annotations

import struct
import tomllib
from dataclasses import dataclass
from functools import cache

from rtoslab.paths import repo_root
from rtoslab.records import RtoslabError

_SCALAR = {"u16": "H", "u32": "I", "u64": "Q"}


@dataclass(frozen=True)
class Layout:
    """One header or record layout: its fields in order, as a little-endian struct.
    Reserved (``pad:N``) fields take no value."""

    fields: tuple[tuple[str, str], ...]
    struct: struct.Struct

    @property
    def size(self) -> int:
        return self.struct.size

    @property
    def names(self) -> tuple[str, ...]:
        """The names of the fields that carry a value, in order."""
        return tuple(n for n, t in self.fields if not t.startswith("pad:"))

    def offsets(self) -> dict[str, int]:
        out: dict[str, int] = {}
        at = 0
        for name, kind in self.fields:
            out[name] = at
            at += field_size(kind)
        return out


@dataclass(frozen=True)
class Format:
    name: str
    magic: bytes | int
    version: int  # the newest version its writer writes
    reads: tuple[int, ...]  # the versions the host reads
    headers: dict[int, Layout]  # by version (a format without a file header has none)
    records: dict[int, Layout]  # by version
    constants: dict[str, int]
    examples: tuple[dict[str, object], ...]

    def record_sizes(self) -> dict[int, int]:
        return {v: self.records[v].size for v in self.reads}


def field_size(kind: str) -> int:
    if kind in _SCALAR:
        return struct.calcsize("<" + _SCALAR[kind])
    prefix, _, n = kind.partition(":")
    if prefix in ("bytes", "pad") and n.isdigit() and int(n) > 0:
        return int(n)
    raise RtoslabError(f"format field type {kind!r} is not u16, u32, u64, bytes:N or pad:N")


def _layout(fields: list[list[str]]) -> Layout:
    code = "<"
    for _, kind in fields:
        field_size(kind)  # checks the type
        if kind in _SCALAR:
            code += _SCALAR[kind]
        else:
            prefix, _, n = kind.partition(":")
            code += f"{n}{'s' if prefix == 'bytes' else 'x'}"
    return Layout(tuple((name, kind) for name, kind in fields), struct.Struct(code))


@cache
def load(name: str) -> Format:
    """The declaration ``formats/<name>.toml``."""
    path = repo_root() / "formats" / f"{name}.toml"
    try:
        doc = tomllib.loads(path.read_text())
    except (OSError, tomllib.TOMLDecodeError) as e:
        raise RtoslabError(f"{path}: cannot read the format declaration ({e})") from e
    magic = doc["magic"]
    layouts = doc["layout"]
    return Format(
        name=doc["name"],
        magic=magic.encode("ascii") if isinstance(magic, str) else int(magic),
        version=int(doc["version"]),
        reads=tuple(int(v) for v in doc["reads"]),
        headers={int(v): _layout(t["header"]) for v, t in layouts.items() if "header" in t},
        records={int(v): _layout(t["record"]) for v, t in layouts.items()},
        constants={k: int(v) for k, v in doc.get("constants", {}).items()},
        examples=tuple(doc.get("example", ())),
    )
