"""Minimal ELF access for the firmware image: sanity checks and reading one section."""

from __future__ import annotations

from pathlib import Path
from typing import BinaryIO

from elftools.common.exceptions import ELFError
from elftools.elf.elffile import ELFFile

from rtoslab.records import RtoslabError

ELF_MAGIC = b"\x7fELF"


def check_arm_elf(elf_path: str | Path) -> None:
    """Raise RtoslabError unless ``elf_path`` is a 32-bit little-endian ARM (or AVR) ELF
    file."""
    with _open(elf_path) as stream:
        _arm_elf(stream, elf_path)


def elf_machine(elf_path: str | Path) -> str:
    """The ELF machine of an image rtoslab builds: "EM_ARM" or "EM_AVR"."""
    with _open(elf_path) as stream:
        return str(_arm_elf(stream, elf_path)["e_machine"])


def read_elf_section(elf_path: str | Path, name: str) -> bytes | None:
    """Contents of section ``name`` of the ARM ELF file ``elf_path``; None if it has none.

    A section that occupies no file space (SHT_NOBITS) has no contents to read and is an
    error.
    """
    with _open(elf_path) as stream:
        elf = _arm_elf(stream, elf_path)
        try:
            section = elf.get_section_by_name(name)
            if section is None:
                return None
            if section["sh_type"] == "SHT_NOBITS":
                raise RtoslabError(
                    f"ELF {elf_path}: section {name} has no contents (NOBITS): "
                    "it must be emitted as data; rebuild with the rtoslab harness"
                )
            data: bytes = section.data()
        except ELFError as err:
            raise RtoslabError(f"ELF {elf_path} is corrupt: {err}: rebuild it") from err
    return data


def _open(elf_path: str | Path) -> BinaryIO:
    try:
        return Path(elf_path).open("rb")
    except FileNotFoundError:
        raise RtoslabError(
            f"ELF file {elf_path} does not exist: build the firmware first"
        ) from None
    except OSError as err:
        raise RtoslabError(f"cannot read ELF file {elf_path}: {err.strerror}") from err


def _arm_elf(stream: BinaryIO, elf_path: str | Path) -> ELFFile:
    magic = stream.read(len(ELF_MAGIC))
    stream.seek(0)
    if magic != ELF_MAGIC:
        raise RtoslabError(
            f"{elf_path} is not an ELF file: pass the firmware .elf image, not a .bin or .hex"
        )
    try:
        elf = ELFFile(stream)
    except ELFError as err:
        raise RtoslabError(f"ELF {elf_path} is corrupt: {err}: rebuild it") from err
    machine = elf["e_machine"]
    if machine not in ("EM_ARM", "EM_AVR") or elf.elfclass != 32 or not elf.little_endian:
        raise RtoslabError(
            f"ELF {elf_path} is for {machine} ({elf.elfclass}-bit), not 32-bit little-endian "
            "ARM or AVR: build the firmware for one of rtoslab's targets"
        )
    return elf


def read_elf_symbol(elf_path: str | Path, name: str) -> int | None:
    """The value of symbol ``name`` of an ELF file, or None when it has none."""
    from elftools.elf.sections import SymbolTableSection

    with _open(elf_path) as stream:
        for section in _arm_elf(stream, elf_path).iter_sections():
            if isinstance(section, SymbolTableSection):
                syms = section.get_symbol_by_name(name)
                if syms:
                    return int(syms[0]["st_value"])
    return None
