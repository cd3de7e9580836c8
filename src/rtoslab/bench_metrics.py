"""The metric names a benchmark declares, read from its sources before anything is built.

A metric's name is the first argument of ``LAB_INTERVAL`` / ``LAB_PERIOD`` / ``LAB_SINCE``
(and their ``_VIRTUAL`` forms) in C (``firmware/include/lab/probe.h``), the first string of
``MetaRec::interval`` / ``period`` / ``since`` / ``..._virtual`` in a Rust version
(``firmware/rust/lab``), or a ``[[derived]]`` / ``[[metric]]`` name in ``bench.toml``.
The ELF's ``.lab_meta`` (docs/formats.md §3) stays the authority once an image exists;
this read lets an experiment's report tables be checked before the plan runs
(``rtoslab.experiments.experiment``): a metric no benchmark declares, or two results that
would fall in one cell.

The files read are the benchmark's folder and, when its ``bench.cmake`` names them, the
folders of ``firmware/workloads/`` it uses. What cannot be read with certainty makes the
benchmark *open* (any name may exist): a name built by token pasting (``##``), a Rust
record built with ``MetaRec::new``, or a ``bench.cmake`` outside the checkout that names
files elsewhere. Names under ``#if`` count as declared. A name declared inside a macro's
definition (``#define ... LAB_INTERVAL(x, ...)``: a workload's menu of metrics that each
benchmark picks from) is declared but not *sure*: the benchmark may not expand it.
Checked against every image in a build cache (590 ELFs, every benchmark and kernel): no
``.lab_meta`` name outside what this read finds.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from rtoslab.catalog import Benchmark
from rtoslab.paths import firmware_root

_SOURCE_SUFFIXES = frozenset({".c", ".h", ".S", ".s", ".inc", ".rs"})
_C_DECL = re.compile(r"\bLAB_(?:INTERVAL|PERIOD|SINCE)(?:_VIRTUAL)?\s*\(\s*([^,()]*?)\s*,")
_RUST_DECL = re.compile(r"\bMetaRec::(?:interval|period|since)(?:_virtual)?\s*\(\s*\"([^\"]*)\"")
_RUST_OPEN = re.compile(r"\bMetaRec::new\s*\(")
_WORKLOAD_REF = re.compile(r"\$\{LAB_ROOT\}/workloads/([A-Za-z0-9_.-]+)")
_NAME = re.compile(r"[a-z0-9_]+")


@dataclass(frozen=True)
class DeclaredMetrics:
    """The names read (``names``); ``open``: some name could not be read, so any other
    name may exist too (then ``why`` says which file)."""

    names: frozenset[str]
    open: bool = False
    why: str = ""
    sure: frozenset[str] = frozenset()  # declared outside any macro definition

    def may_have(self, name: str) -> bool:
        return self.open or name in self.names


def declared_metrics(bench: Benchmark) -> DeclaredMetrics:
    """The metrics ``bench`` declares (see the module doc)."""
    derived = frozenset({d.name for d in bench.derived} | {m.name for m in bench.metric_decls})
    found = _declared_in(bench.path.resolve())
    return DeclaredMetrics(found.names | derived, found.open, found.why, found.sure | derived)


@cache
def _declared_in(folder: Path) -> DeclaredMetrics:
    files = _files(folder)
    names: set[str] = set()
    sure: set[str] = set()
    open_why = ""
    cmake = folder / "bench.cmake"
    inside = folder.is_relative_to(firmware_root().resolve())
    if cmake.is_file():
        text = cmake.read_text(errors="replace")
        for workload in sorted(set(_WORKLOAD_REF.findall(text))):
            files += _files(firmware_root() / "workloads" / workload)
        if not inside:
            rest = _WORKLOAD_REF.sub("", text)
            if "/" in "\n".join(line.split("#", 1)[0] for line in rest.splitlines()):
                open_why = f"{cmake} names files outside firmware/workloads"
    for path in files:
        text = path.read_text(errors="replace")
        if path.suffix == ".rs":
            names.update(m.group(1) for m in _RUST_DECL.finditer(text))
            sure.update(m.group(1) for m in _RUST_DECL.finditer(text))
            if _RUST_OPEN.search(text) and not open_why:
                open_why = f"{path} builds a record with MetaRec::new"
            continue
        for m in _C_DECL.finditer(text):
            arg = m.group(1)
            if _NAME.fullmatch(arg):
                names.add(arg)
                if not _in_macro(text, m.start()):
                    sure.add(arg)
            elif path.name != "probe.h" and not open_why:
                open_why = f"{path} builds a metric name ({arg!r})"
    return DeclaredMetrics(frozenset(names), bool(open_why), open_why, frozenset(sure))


def _in_macro(text: str, at: int) -> bool:
    """Is ``at`` inside a preprocessor directive (a #define's body, continued with '\\')?"""
    start = at
    while True:
        nl = text.rfind("\n", 0, start)
        if nl <= 0 or text[nl - 1] != "\\":
            break
        start = nl - 1
    return text[nl + 1:at].lstrip().startswith("#")


def _files(folder: Path) -> list[Path]:
    if not folder.is_dir():
        return []
    return sorted(p for p in folder.rglob("*") if p.suffix in _SOURCE_SUFFIXES and p.is_file()
                  and "target" not in p.relative_to(folder).parts)
