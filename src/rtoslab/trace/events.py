"""Read the plugin's exception event file (docs/timeline.md, "Event file", versions 1 and 2).

Written only for a traced run (`rtoslab run --trace`): the timing model's exception
entries, returns and tail-chains, each with the guest instructions and modelled cycles
completed before it. A file without its end record was cut short and is refused.
Version 2 (a machine with several vCPUs) adds the machine's shared clock to each record.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from rtoslab import formats
from rtoslab.records import OnSharedClock, RtoslabError

_FORMAT = formats.load("events")  # formats/events.toml: the one declaration
MAGIC = bytes(_FORMAT.magic) if isinstance(_FORMAT.magic, bytes) else b""
VERSION = 1
RECORD_SIZES = _FORMAT.record_sizes()  # version 2: several vCPUs, with the shared clock
RECORD_SIZE = RECORD_SIZES[VERSION]
KIND_ENTRY = _FORMAT.constants["KIND_ENTRY"]
KIND_RETURN = _FORMAT.constants["KIND_RETURN"]
KIND_TAIL_CHAIN = _FORMAT.constants["KIND_TAIL_CHAIN"]
KIND_END = _FORMAT.constants["KIND_END"]
STATUS_CAPPED = _FORMAT.constants["STATUS_CAPPED"]

_HEADER = _FORMAT.headers[1].struct
_RECORD = _FORMAT.records[1].struct
_RECORD_V2 = _FORMAT.records[2].struct
assert _FORMAT.headers[2].size == _HEADER.size


@dataclass(frozen=True)
class ExcEvent(OnSharedClock):
    kind: int  # KIND_ENTRY | KIND_RETURN | KIND_TAIL_CHAIN
    pc: int  # handler address (entry, tail-chain) or where the interrupted code resumes
    insns: int  # the core's own counts
    cycles: int
    core: int = 0  # the vCPU that took it (0 on a single-core machine)
    # The machine's shared clock at the event, (insns, cycles) summed over all cores
    # (version 2); None: the event's own counts (a single-core file).
    shared: tuple[int, int] | None = None


@dataclass(frozen=True)
class ExcEvents:
    events: tuple[ExcEvent, ...]
    capped: bool  # the plugin's cap was reached: later events were dropped


def parse_events(data: bytes, source: str) -> ExcEvents:
    """Parse an event file's bytes; ``source`` names it in errors."""
    if len(data) < _HEADER.size:
        raise RtoslabError(f"event file {source}: shorter than its header: the file is corrupt")
    magic, version, rec_size, _flags = _HEADER.unpack_from(data)
    if magic != MAGIC:
        raise RtoslabError(f"event file {source}: not an rtoslab event file (magic {magic!r})")
    if RECORD_SIZES.get(version) != rec_size:
        raise RtoslabError(f"event file {source}: version {version} (record size {rec_size}) is "
                           f"not one of {sorted(RECORD_SIZES)}: use the rtoslab that matches the plugin")
    body = memoryview(data)[_HEADER.size:]
    if len(body) % rec_size:
        raise RtoslabError(f"event file {source}: partial record at its end: the file is corrupt")
    rows = (((k, c, p, i, y, None) for k, c, p, i, y in _RECORD.iter_unpack(body)) if version == 1
            else ((k, c, p, i, y, (mi, my)) for k, c, p, i, y, mi, my in _RECORD_V2.iter_unpack(body)))
    out: list[ExcEvent] = []
    for kind, core, pc, insns, cycles, shared in rows:
        if kind == KIND_END:
            return ExcEvents(tuple(out), bool(pc & STATUS_CAPPED))
        if kind not in (KIND_ENTRY, KIND_RETURN, KIND_TAIL_CHAIN):
            raise RtoslabError(f"event file {source}: unknown event kind {kind}: the file is corrupt")
        out.append(ExcEvent(kind, pc, insns, cycles, core, shared))
    raise RtoslabError(f"event file {source}: no end record: QEMU stopped before the plugin "
                       "finished writing it")


def read_events(path: Path) -> ExcEvents:
    try:
        data = path.read_bytes()
    except OSError as err:
        raise RtoslabError(f"cannot read event file {path}: {err.strerror}") from err
    return parse_events(data, str(path))
