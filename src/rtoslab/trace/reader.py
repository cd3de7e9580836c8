"""Read the probe trace written by the QEMU plugin (docs/formats.md §2, versions 1 and 2).

The reader checks the container only: header, record framing, what may follow the end
record, and that the counters never run backwards (each core's own, and the machine's
shared clock). Pairing hits into samples is the analysis stage's job. A trace without an
end record is returned with ``end=None`` (truncated); deciding what that means for the
run is left to the caller. Version 1 (single-core, 24-byte records) is still read: its
hits are core 0 and its shared clock is the core's own.
"""

from __future__ import annotations

from pathlib import Path

from rtoslab import formats
from rtoslab.records import Hit, RtoslabError, Trace, TraceEnd

_FORMAT = formats.load("trace")  # formats/trace.toml: the one declaration
MAGIC = bytes(_FORMAT.magic) if isinstance(_FORMAT.magic, bytes) else b""
VERSION = _FORMAT.version
VERSIONS = _FORMAT.reads
RECORD_SIZES = _FORMAT.record_sizes()
RECORD_SIZE = RECORD_SIZES[VERSION]
END_PROBE_ID = _FORMAT.constants["END_ID"]
CORE_TOTAL_ID = _FORMAT.constants["CORE_TOTAL_ID"]
FLAG_HAS_CYCLES = _FORMAT.constants["FLAG_CYCLES_MODELLED"]
KNOWN_FLAGS = FLAG_HAS_CYCLES

_HEADER = _FORMAT.headers[VERSION].struct
_RECORD_V1 = _FORMAT.records[1].struct
_RECORD_V2 = _FORMAT.records[2].struct
assert all(_FORMAT.headers[v].size == _HEADER.size for v in VERSIONS)

# One record as (probe id, core, status, insns, cycles, shared insns, shared cycles).
_Row = tuple[int, int, int, int, int, int, int]


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


def _rows(version: int, body: memoryview) -> list[_Row]:
    if version == 1:
        return [(p, 0, w, i, c, i, c) for p, w, i, c in _RECORD_V1.iter_unpack(body)]
    return list(_RECORD_V2.iter_unpack(body))


def parse_trace(data: bytes, source: str) -> Trace:
    """Parse trace bytes; ``source`` names the file in error messages."""
    version, has_cycles, base, size, cores = _parse_header(data, source)
    record_size = RECORD_SIZES[version]
    body = memoryview(data)[_HEADER.size :]
    if len(body) % record_size:
        full = len(body) // record_size
        raise RtoslabError(
            f"trace file {source}: partial record after record {full} "
            f"({len(body) % record_size} of {record_size} bytes): the file is corrupt"
        )
    max_id = size // 4
    hits: list[Hit] = []
    end: TraceEnd | None = None
    per_core: list[tuple[int, int]] = []
    last = [(0, 0)] * cores
    last_shared = (0, 0)
    machine = "machine" if cores > 1 else ""
    for index, row in enumerate(_rows(version, body)):
        probe_id, core, word, insns, cycles, m_insns, m_cycles = row
        if end is not None:
            raise RtoslabError(
                f"trace file {source}: record {index} follows the end record: the file is corrupt"
            )
        if core >= cores:
            raise RtoslabError(
                f"trace file {source}: record {index} names core {core} of a {cores}-core "
                "machine: the file is corrupt"
            )
        if probe_id == END_PROBE_ID:
            _check_counters(source, index, m_insns, m_cycles, *last_shared, has_cycles, machine)
            end = TraceEnd(status=word, total_insns=insns, total_cycles=cycles,
                           per_core=tuple(per_core))
            continue
        where = f"core {core}" if cores > 1 else ""
        _check_counters(source, index, insns, cycles, *last[core], has_cycles, where)
        _check_counters(source, index, m_insns, m_cycles, *last_shared, has_cycles, machine)
        last[core] = (insns, cycles)
        last_shared = (m_insns, m_cycles)
        if probe_id == CORE_TOTAL_ID and version == 2:
            if core != len(per_core):
                raise RtoslabError(
                    f"trace file {source}: record {index} is core {core}'s total, expected "
                    f"core {len(per_core)}'s: the file is corrupt"
                )
            per_core.append((insns, cycles))
            continue
        if per_core:
            raise RtoslabError(
                f"trace file {source}: record {index} (probe {probe_id}) follows a core "
                "total: the file is corrupt"
            )
        if probe_id >= max_id:
            raise RtoslabError(
                f"trace file {source}: record {index} has probe id {probe_id}, outside the "
                f"probe region of {max_id} ids: the file is corrupt"
            )
        if word != 0:
            raise RtoslabError(
                f"trace file {source}: record {index} (probe {probe_id}) has a non-zero "
                f"status word {word:#x}: the file is corrupt"
            )
        shared = None if cores == 1 else (m_insns, m_cycles)
        hits.append(Hit(probe_id=probe_id, insns=insns, cycles=cycles, core=core, shared=shared))
    return Trace(
        version=version,
        probe_base=base,
        probe_size=size,
        has_cycles=has_cycles,
        hits=tuple(hits),
        end=end,
        cores=cores,
    )


def _parse_header(data: bytes, source: str) -> tuple[int, bool, int, int, int]:
    """Validate the header; return (version, has_cycles, probe base, probe size, cores)."""
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
    _, version, record_size, base, size, flags, cores = _HEADER.unpack_from(data)
    if version not in VERSIONS:
        raise RtoslabError(
            f"trace file {source} has version {version}; this rtoslab reads versions "
            f"{', '.join(map(str, VERSIONS))}: use the plugin and rtoslab from the same release"
        )
    if record_size != RECORD_SIZES[version]:
        raise RtoslabError(
            f"trace file {source}: record size {record_size}, expected "
            f"{RECORD_SIZES[version]} for version {version}: the file is corrupt"
        )
    if flags & ~KNOWN_FLAGS:
        raise RtoslabError(
            f"trace file {source}: unknown header flags {flags:#x} for version {version}: "
            "use the plugin and rtoslab from the same release"
        )
    if version == 1:
        cores = 1  # the word was reserved (0)
    elif cores < 1:
        raise RtoslabError(
            f"trace file {source}: header says {cores} cores: the file is corrupt"
        )
    if size == 0 or size % 4:
        raise RtoslabError(
            f"trace file {source}: probe region size {size:#x} is not a positive multiple "
            "of 4: the file is corrupt"
        )
    return version, bool(flags & FLAG_HAS_CYCLES), base, size, cores


def _check_counters(
    source: str,
    index: int,
    insns: int,
    cycles: int,
    last_insns: int,
    last_cycles: int,
    has_cycles: bool,
    which: str = "",
) -> None:
    """Counters are cumulative: they never decrease, and cycles are 0 without a model.

    ``which`` names the counters in messages ("core 1", "machine"; empty: the only core).
    """
    of = f" ({which})" if which else ""
    if insns < last_insns:
        raise RtoslabError(
            f"trace file {source}: instruction count{of} goes backwards at record {index} "
            f"({last_insns} -> {insns}): the file is corrupt"
        )
    if not has_cycles and cycles != 0:
        raise RtoslabError(
            f"trace file {source}: record {index} has cycles {cycles} but the header says "
            "there is no cycle model: the file is corrupt"
        )
    if cycles < last_cycles:
        raise RtoslabError(
            f"trace file {source}: cycle count{of} goes backwards at record {index} "
            f"({last_cycles} -> {cycles}): the file is corrupt"
        )
