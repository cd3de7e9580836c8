"""Read the probe trace written by the QEMU plugin (docs/formats.md §2, version 1).

The reader checks the container only: header, record framing, what may follow the end
record, and that the counters never run backwards. Pairing hits into samples is the
analysis stage's job. A trace without an end record is returned with ``end=None``
(truncated); deciding what that means for the run is left to the caller.
"""

from __future__ import annotations

import struct
from pathlib import Path

from rtoslab.records import Hit, RtoslabError, Trace, TraceEnd

MAGIC = b"RTLTRACE"
VERSION = 1
RECORD_SIZE = 24
END_PROBE_ID = 0xFFFFFFFF
FLAG_HAS_CYCLES = 1 << 0
KNOWN_FLAGS = FLAG_HAS_CYCLES

_HEADER = struct.Struct("<8sIIIIII")
_RECORD = struct.Struct("<IIQQ")


def read_trace(path: str | Path) -> Trace:
    """Read and validate the trace file at ``path``."""
    try:
        data = Path(path).read_bytes()
    except FileNotFoundError:
        raise RtoslabError(
            f"trace file {path} does not exist: did QEMU start with the rtoslab plugin?"
        ) from None
    except OSError as err:
        raise RtoslabError(f"cannot read trace file {path}: {err.strerror}") from err
    return parse_trace(data, str(path))


def parse_trace(data: bytes, source: str) -> Trace:
    """Parse trace bytes; ``source`` names the file in error messages."""
    has_cycles, base, size = _parse_header(data, source)
    body = memoryview(data)[_HEADER.size :]
    if len(body) % RECORD_SIZE:
        full = len(body) // RECORD_SIZE
        raise RtoslabError(
            f"trace file {source}: partial record after record {full} "
            f"({len(body) % RECORD_SIZE} of {RECORD_SIZE} bytes): the file is corrupt"
        )
    max_id = size // 4
    hits: list[Hit] = []
    end: TraceEnd | None = None
    last_insns = 0
    last_cycles = 0
    for index, (probe_id, word, insns, cycles) in enumerate(_RECORD.iter_unpack(body)):
        if end is not None:
            raise RtoslabError(
                f"trace file {source}: record {index} follows the end record: the file is corrupt"
            )
        _check_counters(source, index, insns, cycles, last_insns, last_cycles, has_cycles)
        last_insns, last_cycles = insns, cycles
        if probe_id == END_PROBE_ID:
            end = TraceEnd(status=word, total_insns=insns, total_cycles=cycles)
            continue
        if probe_id >= max_id:
            raise RtoslabError(
                f"trace file {source}: record {index} has probe id {probe_id}, outside the "
                f"probe region of {max_id} ids: the file is corrupt"
            )
        if word != 0:
            raise RtoslabError(
                f"trace file {source}: record {index} (probe {probe_id}) has a non-zero "
                f"second word {word:#x}: the file is corrupt"
            )
        hits.append(Hit(probe_id=probe_id, insns=insns, cycles=cycles))
    return Trace(
        version=VERSION,
        probe_base=base,
        probe_size=size,
        has_cycles=has_cycles,
        hits=tuple(hits),
        end=end,
    )


def _parse_header(data: bytes, source: str) -> tuple[bool, int, int]:
    """Validate the header; return (has_cycles, probe base, probe size)."""
    if not data:
        raise RtoslabError(
            f"trace file {source} is empty: QEMU stopped before the plugin wrote its header; "
            "check the QEMU output"
        )
    if data[: len(MAGIC)] != MAGIC:
        raise RtoslabError(
            f"trace file {source} is not an rtoslab trace (bad magic {data[:8]!r}): "
            "pass the file written by the rtoslab QEMU plugin"
        )
    if len(data) < _HEADER.size:
        raise RtoslabError(
            f"trace file {source}: header cut short ({len(data)} of {_HEADER.size} bytes): "
            "the file is corrupt"
        )
    _, version, record_size, base, size, flags, _reserved = _HEADER.unpack_from(data)
    if version != VERSION:
        raise RtoslabError(
            f"trace file {source} has version {version}; this rtoslab reads version "
            f"{VERSION} only: use the plugin and rtoslab from the same release"
        )
    if record_size != RECORD_SIZE:
        raise RtoslabError(
            f"trace file {source}: record size {record_size}, expected {RECORD_SIZE} "
            f"for version {VERSION}: the file is corrupt"
        )
    if flags & ~KNOWN_FLAGS:
        raise RtoslabError(
            f"trace file {source}: unknown header flags {flags:#x} for version {VERSION}: "
            "use the plugin and rtoslab from the same release"
        )
    if size == 0 or size % 4:
        raise RtoslabError(
            f"trace file {source}: probe region size {size:#x} is not a positive multiple "
            "of 4: the file is corrupt"
        )
    return bool(flags & FLAG_HAS_CYCLES), base, size


def _check_counters(
    source: str,
    index: int,
    insns: int,
    cycles: int,
    last_insns: int,
    last_cycles: int,
    has_cycles: bool,
) -> None:
    """Counters are cumulative: they never decrease, and cycles are 0 without a model."""
    if insns < last_insns:
        raise RtoslabError(
            f"trace file {source}: instruction count goes backwards at record {index} "
            f"({last_insns} -> {insns}): the file is corrupt"
        )
    if not has_cycles and cycles != 0:
        raise RtoslabError(
            f"trace file {source}: record {index} has cycles {cycles} but the header says "
            "there is no cycle model: the file is corrupt"
        )
    if cycles < last_cycles:
        raise RtoslabError(
            f"trace file {source}: cycle count goes backwards at record {index} "
            f"({last_cycles} -> {cycles}): the file is corrupt"
        )
