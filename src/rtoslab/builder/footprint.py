"""Flash and RAM footprint of one image, split by component, from the linker map.

Components are named by where an input section came from: `kernel` (the kernel's own
sources), `port` (our port code), `target`, `harness`, `benchmark`, `libc` (newlib,
libgcc, nosys), `lto` (objects produced by link-time optimisation, where the origin of
each function is no longer known), `linker` (fill and stubs), and `stack` (the reserved
main stack, counted whole). In a Rust version's staticlib (docs/rust-models.md) the
benchmark's crate is `benchmark`, core and compiler_builtins are `libc`, every other
crate (the model: executors, sync, RTIC, cortex-m, lab glue) is `kernel`.

Which output section counts where is the target's fact (target.toml [footprint]):
flash = its `flash` and `both` sections (`both`: the load image of initialised data);
ram   = its `ram`, `both` and `stack` sections. `ignore` sections do not count (e.g. free
RAM reserved for a heap, memory that is not the MCU's, non-loaded sections). A non-empty
output section in none of these lists is an error naming it: a footprint never silently
drops memory. For mps2-an385: flash = vectors + code + read-only data + .data's load
image; ram = .data + .bss + the RAM vector table + the main stack; the `.heap` section
reserved up to the stack is free memory, not use. A kernel's heap array (FreeRTOS ucHeap)
is zero-initialised data of the kernel and counts in full.
"""

from __future__ import annotations

import re
from pathlib import Path

from rtoslab.catalog import FootprintSections, Target
from rtoslab.records import Footprint, RtoslabError

_OUT = re.compile(r"^(\.[\w.]+)\s+0x([0-9a-f]+)\s+0x([0-9a-f]+)")
_OUT_NAME_ONLY = re.compile(r"^(\.[\w.]+)\s*$")
_OUT_CONT = re.compile(r"^\s+0x([0-9a-f]+)\s+0x([0-9a-f]+)\s*$")
_IN = re.compile(r"^ (\S+)?\s+0x([0-9a-f]+)\s+0x([0-9a-f]+)\s+(\S.*)$")
_IN_NAME_ONLY = re.compile(r"^ (\.\S+|COMMON)\s*$")
_FILL = re.compile(r"^ \*fill\*\s+0x([0-9a-f]+)\s+0x([0-9a-f]+)")


def component_of(obj: str) -> str:
    if "lab_kernel.dir" in obj:
        return "kernel"
    if "lab_port.dir" in obj:
        return "port"
    if "lab_target.dir" in obj:
        return "target"
    if "lab_harness.dir" in obj:
        return "harness"
    if "ltrans" in obj:
        return "lto"
    # A Rust version's staticlib (rust/lib<bench>.a): its crates by role.
    rust = re.search(r"(?:^|/)rust/lib\w+\.a\((\w+)-[0-9a-f]+\.", obj)
    if rust:  # docs/rust-models.md: its crates by role
        crate = rust.group(1)
        if crate.startswith("bench_"):
            return "benchmark"
        if crate in ("core", "compiler_builtins"):
            return "libc"  # the language's runtime library, as newlib for C
        return "kernel"  # the model: executors, sync, RTIC, cortex-m, lab glue
    if re.search(r"lib(c|g|gcc|nosys|m)(_nano)?\.a|crt\w*\.o", obj):
        return "libc"
    if "CMakeFiles/" in obj:
        return "benchmark"
    return "linker"


def output_sections(text: str) -> dict[str, int]:
    """Every output section of a map's memory map and its size in bytes."""
    out: dict[str, int] = {}
    pending: str | None = None
    for line in _memory_map(text).splitlines():
        if pending is not None:
            cont = _OUT_CONT.match(line)
            out[pending] = out.get(pending, 0) + (int(cont.group(2), 16) if cont else 0)
            pending = None
            if cont:
                continue
        m = _OUT.match(line)
        if m:
            out[m.group(1)] = out.get(m.group(1), 0) + int(m.group(3), 16)
            continue
        m = _OUT_NAME_ONLY.match(line)
        if m:
            pending = m.group(1)
    if pending is not None:
        out.setdefault(pending, 0)
    return out


def _memory_map(text: str) -> str:
    start = text.find("Linker script and memory map")
    return text[start:] if start >= 0 else ""


def parse_map(text: str, spec: FootprintSections, source: str = "map",
              target_toml: str = "target.toml", image: str | None = None) -> Footprint:
    """Footprint from a GNU ld map file's "Linker script and memory map" part, with the
    output sections classified by `spec` (the target's [footprint]). `source` names the
    map, `image` the ELF it describes (in errors)."""
    if "Linker script and memory map" not in text:
        raise RtoslabError(f"{source}: not a GNU ld map file (no memory map): rebuild the image")
    kinds: dict[str, str] = {}
    sections: dict[str, int] = {}
    ram: dict[str, int] = {}
    for name, size in output_sections(text).items():
        listed = spec.kind_of(name)
        if listed is None:
            if size:
                raise RtoslabError(
                    f"{image or source}: output section {name} ({size} bytes) is in no [footprint] "
                    f"list of {target_toml}: add it to footprint.flash, ram, both, stack or ignore")
            continue
        kinds[name] = listed
        if listed != "ignore" and size:
            sections[name] = size
        if listed == "stack":
            ram["stack"] = ram.get("stack", 0) + size
    flash: dict[str, int] = {}
    kind: str | None = None  # of the current output section; None: not counted
    pending_name = False
    for line in _memory_map(text).splitlines():
        m = _OUT.match(line) or (None if line.startswith(" ") else _OUT_NAME_ONLY.match(line))
        if m:
            kind = kinds.get(m.group(1))
            if kind in ("ignore", "stack"):
                kind = None
            continue
        if line.startswith("/DISCARD/"):
            kind = None
            continue
        if kind is None:
            continue
        size = 0
        comp = ""
        fm = _FILL.match(line)
        if fm:
            size, comp = int(fm.group(2), 16), "linker"
        elif _IN_NAME_ONLY.match(line):
            pending_name = True
            continue
        else:
            im = _IN.match(line)
            if im and (im.group(1) or pending_name):
                size, comp = int(im.group(3), 16), component_of(im.group(4))
            pending_name = False
        if size == 0:
            continue
        if kind in ("flash", "both"):
            flash[comp] = flash.get(comp, 0) + size
        if kind in ("ram", "both"):
            ram[comp] = ram.get(comp, 0) + size
    return Footprint(flash, ram, sections)


def footprint_of(elf: Path, target: Target) -> Footprint:
    """Footprint of an image built for ``target`` (its [footprint] sections); its map file
    sits beside it (NAME.elf -> NAME.map)."""
    map_path = elf.with_suffix(".map")
    if not map_path.is_file():
        raise RtoslabError(f"no linker map {map_path} beside {elf.name}: rebuild the configuration")
    return parse_map(map_path.read_text(errors="replace"), target.footprint, str(map_path),
                     str(target.path / "target.toml"), image=str(elf))
