"""Flash and RAM footprint of one image, split by component, from the linker map.

Components are named by where an input section came from: `kernel` (the kernel's own
sources), `port` (our port code), `target`, `harness`, `benchmark`, `libc` (newlib,
libgcc, nosys), `lto` (objects produced by link-time optimisation, where the origin of
each function is no longer known), `linker` (fill and stubs).

flash = vectors + code + read-only data + the load image of initialised data;
ram   = initialised data + zero-initialised data + the RAM vector table + the reserved
main stack. The rest of RAM (the `.heap` section reserved up to the stack) is not counted:
it is free memory, not use. A kernel's heap array (FreeRTOS ucHeap) is zero-initialised
data of the kernel and counts in full.
"""

from __future__ import annotations

import re
from pathlib import Path

from rtoslab.records import Footprint, RtoslabError

FLASH_SECTIONS = {".vectors", ".text", ".ARM.exidx", ".rodata"}
RAM_SECTIONS = {".ram_vectors", ".bss", ".main_stack"}
BOTH_SECTIONS = {".data"}  # in RAM, and its initial values in flash

_OUT = re.compile(r"^(\.[\w.]+)\s+0x([0-9a-f]+)\s+0x([0-9a-f]+)")
_OUT_NAME_ONLY = re.compile(r"^(\.[\w.]+)\s*$")
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
    if re.search(r"lib(c|g|gcc|nosys|m)(_nano)?\.a|crt\w*\.o", obj):
        return "libc"
    if "CMakeFiles/" in obj:
        return "benchmark"
    return "linker"


def parse_map(text: str, source: str = "map") -> Footprint:
    """Footprint from a GNU ld map file's "Linker script and memory map" part."""
    start = text.find("Linker script and memory map")
    if start < 0:
        raise RtoslabError(f"{source}: not a GNU ld map file (no memory map): rebuild the image")
    flash: dict[str, int] = {}
    ram: dict[str, int] = {}
    sections: dict[str, int] = {}
    current: str | None = None
    pending_name = False
    for line in text[start:].splitlines():
        m = _OUT.match(line)
        if m:
            current = m.group(1)
            if current in FLASH_SECTIONS | RAM_SECTIONS | BOTH_SECTIONS and int(m.group(3), 16):
                sections[current] = int(m.group(3), 16)
            if current == ".main_stack":
                ram["stack"] = ram.get("stack", 0) + int(m.group(3), 16)
            continue
        m = _OUT_NAME_ONLY.match(line)
        if m and not line.startswith(" "):
            current = m.group(1)
            continue
        if current is None or current == ".main_stack":
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
        if current in FLASH_SECTIONS or current in BOTH_SECTIONS:
            flash[comp] = flash.get(comp, 0) + size
        if current in RAM_SECTIONS or current in BOTH_SECTIONS:
            ram[comp] = ram.get(comp, 0) + size
    return Footprint(flash, ram, sections)


def footprint_of(elf: Path) -> Footprint:
    """Footprint of a built image; its map file sits beside it (NAME.elf -> NAME.map)."""
    map_path = elf.with_suffix(".map")
    if not map_path.is_file():
        raise RtoslabError(f"no linker map {map_path} beside {elf.name}: rebuild the configuration")
    return parse_map(map_path.read_text(errors="replace"), str(map_path))
