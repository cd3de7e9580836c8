"""Reading probe metadata from ELF files: hand-built ELF images and a toolchain fixture."""

from __future__ import annotations

import struct
from pathlib import Path

import pytest

from rtoslab.records import PairMeta, RtoslabError
from rtoslab.trace.elf import check_arm_elf, read_elf_section
from rtoslab.trace.meta import read_probe_meta

FIXTURE = Path(__file__).parent.parent / "data" / "analysis" / "lab_meta.o"

EM_ARM = 40
EM_X86_64 = 62
SHT_PROGBITS = 1
SHT_STRTAB = 3
SHT_NOBITS = 8


def meta_record(name: bytes, kind: int, start: int, end: int, flags: int) -> bytes:
    return struct.pack("<IHHHHI32s112s", 0x5042414C, 1, kind, start, end, flags, name, b"")


def build_elf(
    sections: dict[str, tuple[int, bytes]], *, machine: int = EM_ARM, elfclass: int = 1
) -> bytes:
    """A minimal little-endian ELF32 image with the given (type, contents) sections."""
    shstrtab = b"\0"
    name_offsets = {}
    for name in [*sections, ".shstrtab"]:
        name_offsets[name] = len(shstrtab)
        shstrtab += name.encode() + b"\0"
    all_sections = {**sections, ".shstrtab": (SHT_STRTAB, shstrtab)}
    body = b""
    offsets = {}
    for name, (sh_type, contents) in all_sections.items():
        offsets[name] = 52 + len(body)
        if sh_type != SHT_NOBITS:
            body += contents + b"\0" * (-len(contents) % 4)
    shoff = 52 + len(body)
    headers = b"\0" * 40  # the null section
    for name, (sh_type, contents) in all_sections.items():
        headers += struct.pack(
            "<10I", name_offsets[name], sh_type, 0, 0, offsets[name], len(contents), 0, 0, 4, 0
        )
    shnum = len(all_sections) + 1
    ident = b"\x7fELF" + bytes([elfclass, 1, 1]) + b"\0" * 9
    elf_header = ident + struct.pack(
        "<HHIIIIIHHHHHH", 1, machine, 1, 0, 0, shoff, 0, 52, 0, 0, 40, shnum, shnum - 1
    )
    return elf_header + body + headers


def write(tmp_path: Path, data: bytes, name: str = "fw.elf") -> Path:
    path = tmp_path / name
    path.write_bytes(data)
    return path


def test_reads_lab_meta_section(tmp_path: Path) -> None:
    contents = meta_record(b"calibration", 0, 0, 1, 1) + meta_record(b"yield", 0, 2, 3, 0)
    path = write(
        tmp_path, build_elf({".text": (SHT_PROGBITS, b"\0" * 8), ".lab_meta": (1, contents)})
    )
    assert read_elf_section(path, ".lab_meta") == contents
    assert read_probe_meta(path) == (
        PairMeta("calibration", 0, 0, 1, 1, ""),
        PairMeta("yield", 0, 2, 3, 0, ""),
    )


def test_reads_toolchain_built_object() -> None:
    assert read_probe_meta(FIXTURE) == (
        PairMeta("calibration", 0, 0, 1, 1, "probe cost"),
        PairMeta("tick_period", 1, 2, 2, 0, "time between two ticks"),
    )


def test_missing_section(tmp_path: Path) -> None:
    path = write(tmp_path, build_elf({".text": (SHT_PROGBITS, b"\0" * 8)}))
    assert read_elf_section(path, ".lab_meta") is None
    with pytest.raises(RtoslabError) as err:
        read_probe_meta(path)
    assert str(err.value) == f"ELF {path} has no .lab_meta section: was it built by rtoslab?"


def test_nobits_section(tmp_path: Path) -> None:
    path = write(tmp_path, build_elf({".lab_meta": (SHT_NOBITS, b"\0" * 160)}))
    with pytest.raises(RtoslabError, match=r"section \.lab_meta has no contents \(NOBITS\)"):
        read_probe_meta(path)


def test_bad_metadata_names_elf_and_section(tmp_path: Path) -> None:
    bad = struct.pack("<IHHHHI32s112s", 0x5042414C, 9, 0, 2, 3, 0, b"x", b"")
    path = write(tmp_path, build_elf({".lab_meta": (SHT_PROGBITS, bad)}))
    with pytest.raises(RtoslabError) as err:
        read_probe_meta(path)
    assert str(err.value).startswith(f"ELF {path} section .lab_meta: record 0 has version 9;")


def test_not_an_elf_file(tmp_path: Path) -> None:
    path = write(tmp_path, b"\x00\x00\x01\x20" * 64, "fw.bin")
    with pytest.raises(RtoslabError, match=r"fw\.bin is not an ELF file"):
        check_arm_elf(path)
    with pytest.raises(RtoslabError, match=r"fw\.bin is not an ELF file"):
        read_probe_meta(path)


def test_empty_file_is_not_an_elf_file(tmp_path: Path) -> None:
    with pytest.raises(RtoslabError, match=r"is not an ELF file"):
        check_arm_elf(write(tmp_path, b""))


def test_truncated_elf_is_reported_corrupt(tmp_path: Path) -> None:
    data = build_elf({".lab_meta": (SHT_PROGBITS, meta_record(b"x", 0, 2, 3, 0))})
    with pytest.raises(RtoslabError, match=r"^ELF .*fw\.elf is corrupt"):
        read_probe_meta(write(tmp_path, data[:30]))


def test_section_table_cut_off_is_reported_corrupt(tmp_path: Path) -> None:
    data = build_elf({".lab_meta": (SHT_PROGBITS, meta_record(b"x", 0, 2, 3, 0))})
    with pytest.raises(RtoslabError, match=r"^ELF .*fw\.elf is corrupt"):
        read_probe_meta(write(tmp_path, data[:-50]))


def test_non_arm_elf(tmp_path: Path) -> None:
    path = write(tmp_path, build_elf({}, machine=EM_X86_64))
    with pytest.raises(
        RtoslabError, match=r"is for EM_X86_64 \(32-bit\), not 32-bit little-endian ARM"
    ):
        check_arm_elf(path)


def test_arm_elf_passes_check(tmp_path: Path) -> None:
    check_arm_elf(write(tmp_path, build_elf({})))
    check_arm_elf(FIXTURE)


def test_missing_elf_file(tmp_path: Path) -> None:
    with pytest.raises(RtoslabError, match=r"^ELF file .*gone\.elf does not exist"):
        read_probe_meta(tmp_path / "gone.elf")
