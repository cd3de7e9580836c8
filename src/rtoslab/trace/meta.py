"""Probe metadata: the ``.lab_meta`` ELF section written by the firmware (docs/formats.md §3).

Each 160-byte record describes one metric: which probe ids bound it and how their hits
pair into samples.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from rtoslab import formats, lab_headers
from rtoslab.records import (
    FLAG_CALIBRATION,
    FLAG_NO_CALIBRATION,
    FLAG_VIRTUAL,
    KIND_INTERVAL,
    KIND_PERIOD,
    KIND_SINCE,
    PairMeta,
    RtoslabError,
)
from rtoslab.trace.elf import read_elf_section

SECTION = ".lab_meta"
_FORMAT = formats.load("lab_meta")  # formats/lab_meta.toml: the one declaration
MAGIC = int(_FORMAT.magic)
VERSION = _FORMAT.version
_RECORD = _FORMAT.records[VERSION].struct
RECORD_SIZE = _RECORD.size
KNOWN_FLAGS = FLAG_CALIBRATION | FLAG_NO_CALIBRATION | FLAG_VIRTUAL
# The harness's calibration pair (lab/probe.h; the pair is found by its flag, these ids
# only check that nothing else uses them).
CALIBRATION_START_ID = lab_headers.define_value("probe.h", "LAB_PROBE_CALIBRATION_START")
CALIBRATION_END_ID = lab_headers.define_value("probe.h", "LAB_PROBE_CALIBRATION_END")

_NAME_RE = re.compile(r"[a-z0-9_]+")


def read_probe_meta(elf_path: str | Path) -> tuple[PairMeta, ...]:
    """Read and validate the probe metadata of the firmware image ``elf_path``."""
    data = read_elf_section(elf_path, SECTION)
    if data is None:
        raise RtoslabError(f"ELF {elf_path} has no {SECTION} section: was it built by rtoslab?")
    return parse_probe_meta(data, f"ELF {elf_path} section {SECTION}")


def parse_probe_meta(data: bytes, source: str) -> tuple[PairMeta, ...]:
    """Parse ``.lab_meta`` section bytes; ``source`` names them in error messages."""
    if not data:
        raise RtoslabError(f"{source} is empty: the firmware declares no metrics")
    if len(data) % RECORD_SIZE:
        raise RtoslabError(
            f"{source}: size {len(data)} is not a multiple of the {RECORD_SIZE}-byte "
            "record: rebuild the firmware with this rtoslab's harness"
        )
    metas = tuple(
        _parse_record(fields, source, index)
        for index, fields in enumerate(_RECORD.iter_unpack(data))
    )
    seen: dict[str, int] = {}
    for index, meta in enumerate(metas):
        if meta.name in seen:
            raise RtoslabError(
                f"{source}: metric '{meta.name}' is declared twice (records {seen[meta.name]} "
                f"and {index}): give every probe pair its own metric name"
            )
        seen[meta.name] = index
    return metas


def _parse_record(
    fields: tuple[Any, ...], source: str, index: int
) -> PairMeta:
    magic, version, kind, start_id, end_id, flags, raw_name, raw_description = fields
    where = f"{source}: record {index}"
    if magic != MAGIC:
        raise RtoslabError(
            f"{where} has bad magic {magic:#010x} (expected {MAGIC:#010x}): the section "
            "is corrupt or not written by the rtoslab harness"
        )
    if version != VERSION:
        raise RtoslabError(
            f"{where} has version {version}; this rtoslab reads version {VERSION} only: "
            "rebuild the firmware with this rtoslab's harness"
        )
    name = _decode_name(raw_name, where)
    where = f"{source}: metric '{name}'"
    description = _decode_padded(raw_description, f"{where}: description")
    if kind not in (KIND_INTERVAL, KIND_PERIOD, KIND_SINCE):
        raise RtoslabError(f"{where} has unknown kind {kind} (0 = interval, 1 = period, 2 = since)")
    if kind == KIND_PERIOD and start_id != end_id:
        raise RtoslabError(
            f"{where} is a period but its start probe {start_id} and end probe {end_id} "
            "differ: a period uses one probe id"
        )
    if kind in (KIND_INTERVAL, KIND_SINCE) and start_id == end_id:
        raise RtoslabError(
            f"{where} is an interval with the same start and end probe {start_id}: "
            "use two probe ids, or declare it a period"
        )
    if flags & ~KNOWN_FLAGS:
        raise RtoslabError(
            f"{where} has unknown flags {flags:#x}: rebuild the firmware with this "
            "rtoslab's harness"
        )
    _check_reserved_ids(where, kind, start_id, end_id, flags)
    return PairMeta(
        name=name,
        kind=kind,
        start_id=start_id,
        end_id=end_id,
        flags=flags,
        description=description,
    )


def _check_reserved_ids(where: str, kind: int, start_id: int, end_id: int, flags: int) -> None:
    """Ids 0 and 1 belong to the harness's calibration interval and to nothing else."""
    reserved = (CALIBRATION_START_ID, CALIBRATION_END_ID)
    if flags & FLAG_CALIBRATION:
        if (kind, start_id, end_id) != (KIND_INTERVAL, *reserved):
            raise RtoslabError(
                f"{where} is flagged as the calibration pair but is not the interval "
                f"{reserved[0]} -> {reserved[1]}: only the harness may set the calibration flag"
            )
    elif start_id in reserved or end_id in reserved:
        raise RtoslabError(
            f"{where} uses probe ids {start_id} and {end_id}, but ids {reserved[0]} and "
            f"{reserved[1]} are reserved for calibration: use ids 2 and above"
        )


def _decode_name(raw: bytes, where: str) -> str:
    name = _decode_padded(raw, f"{where}: metric name")
    if not _NAME_RE.fullmatch(name):
        raise RtoslabError(
            f"{where}: metric name {name!r} is not made of [a-z0-9_]+: rename the metric"
        )
    return name


def _decode_padded(raw: bytes, what: str) -> str:
    """Text of a NUL-padded field: everything before the first NUL; the rest must be NUL."""
    text, _, padding = raw.partition(b"\0")
    if padding.strip(b"\0"):
        raise RtoslabError(f"{what} has bytes after its terminating NUL: the section is corrupt")
    try:
        return text.decode("utf-8")
    except UnicodeDecodeError as err:
        raise RtoslabError(f"{what} is not valid UTF-8: the section is corrupt") from err
