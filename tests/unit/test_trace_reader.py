"""Trace file v1 and v2 parsing (docs/formats.md §2), byte-exact inputs built with struct."""

from __future__ import annotations

import struct
from pathlib import Path

import pytest

from rtoslab.records import Hit, RtoslabError, Trace, TraceEnd
from rtoslab.trace.reader import parse_trace, read_trace

BASE = 0x21000000
SIZE = 0x4000
END = 0xFFFFFFFF


def header(
    *,
    magic: bytes = b"RTLTRACE",
    version: int = 1,
    record_size: int = 24,
    base: int = BASE,
    size: int = SIZE,
    flags: int = 1,
) -> bytes:
    return struct.pack("<8sIIIIII", magic, version, record_size, base, size, flags, 0)


def record(probe_id: int, insns: int, cycles: int, word: int = 0) -> bytes:
    return struct.pack("<IIQQ", probe_id, word, insns, cycles)


def test_header_and_record_sizes_match_the_spec() -> None:
    assert len(header()) == 32
    assert len(record(0, 0, 0)) == 24


def test_parses_hits_and_end_record() -> None:
    data = (
        header()
        + record(0, 10, 20)
        + record(1, 13, 24)
        + record(4095, 2**40, 2**41)
        + record(END, 2**40 + 5, 2**41 + 9, word=0b101)
    )
    assert parse_trace(data, "t.bin") == Trace(
        version=1,
        probe_base=BASE,
        probe_size=SIZE,
        has_cycles=True,
        hits=(Hit(0, 10, 20), Hit(1, 13, 24), Hit(4095, 2**40, 2**41)),
        end=TraceEnd(status=5, total_insns=2**40 + 5, total_cycles=2**41 + 9),
    )


def test_without_cycle_model() -> None:
    trace = parse_trace(header(flags=0) + record(2, 7, 0) + record(END, 9, 0), "t.bin")
    assert trace.has_cycles is False
    assert trace.hits == (Hit(2, 7, 0),)
    assert trace.end == TraceEnd(0, 9, 0)
    assert trace.truncated is False


def test_missing_end_record_is_truncated_not_an_error() -> None:
    trace = parse_trace(header() + record(0, 1, 1) + record(1, 4, 4), "t.bin")
    assert trace.end is None
    assert trace.truncated is True
    assert trace.hits == (Hit(0, 1, 1), Hit(1, 4, 4))


def test_header_only_is_an_empty_truncated_trace() -> None:
    trace = parse_trace(header(), "t.bin")
    assert trace.hits == ()
    assert trace.end is None


def test_read_trace_from_file(tmp_path: Path) -> None:
    path = tmp_path / "run.trace"
    path.write_bytes(header() + record(3, 5, 6) + record(END, 8, 9))
    trace = read_trace(path)
    assert trace.hits == (Hit(3, 5, 6),)
    assert trace.end == TraceEnd(0, 8, 9)


def test_read_trace_missing_file(tmp_path: Path) -> None:
    path = tmp_path / "nope.trace"
    with pytest.raises(RtoslabError, match=r"^trace file .*nope\.trace does not exist"):
        read_trace(path)


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (b"", r"^trace file t\.bin is empty"),
        (header(magic=b"RTLTRACX"), r"^trace file t\.bin is not an rtoslab trace \(bad magic"),
        (b"ELF\x7f" + header()[4:], r"bad magic"),
        (header()[:20], r"^trace file t\.bin: header cut short \(20 of 32 bytes\)"),
        (
            header(version=3),
            r"^trace file t\.bin has version 3; this rtoslab reads versions 1, 2",
        ),
        (header(record_size=32), r"record size 32, expected 24"),
        (header(flags=0b11), r"unknown header flags 0x3"),
        (header(size=0), r"probe region size 0x0"),
        (header(size=6), r"probe region size 0x6"),
    ],
)
def test_bad_header(data: bytes, message: str) -> None:
    with pytest.raises(RtoslabError, match=message):
        parse_trace(data, "t.bin")


def test_version_error_names_file_and_version_before_other_checks() -> None:
    with pytest.raises(RtoslabError) as err:
        parse_trace(header(version=7, record_size=99), "/tmp/x.trace")
    assert "/tmp/x.trace" in str(err.value)
    assert "version 7" in str(err.value)
    assert "\n" not in str(err.value)


def test_partial_trailing_record() -> None:
    data = header() + record(0, 1, 1) + record(1, 4, 4)[:10]
    with pytest.raises(
        RtoslabError,
        match=r"^trace file t\.bin: partial record after record 1 \(10 of 24 bytes\)",
    ):
        parse_trace(data, "t.bin")


def test_partial_record_even_after_end() -> None:
    data = header() + record(END, 1, 1) + b"\0"
    with pytest.raises(RtoslabError, match="partial record after record 1"):
        parse_trace(data, "t.bin")


def test_record_after_end_record() -> None:
    data = header() + record(2, 1, 1) + record(END, 3, 3) + record(2, 4, 4)
    with pytest.raises(RtoslabError, match=r"record 2 follows the end record"):
        parse_trace(data, "t.bin")


def test_second_end_record() -> None:
    data = header() + record(END, 3, 3) + record(END, 3, 3)
    with pytest.raises(RtoslabError, match=r"record 1 follows the end record"):
        parse_trace(data, "t.bin")


def test_probe_id_outside_region() -> None:
    data = header(size=16) + record(3, 1, 1) + record(4, 2, 2)
    with pytest.raises(RtoslabError, match=r"record 1 has probe id 4, outside the probe region"):
        parse_trace(data, "t.bin")


def test_hit_with_non_zero_second_word() -> None:
    with pytest.raises(RtoslabError, match=r"record 0 \(probe 2\) has a non-zero status word"):
        parse_trace(header() + record(2, 1, 1, word=1), "t.bin")


def test_instruction_count_going_backwards() -> None:
    data = header() + record(2, 10, 10) + record(3, 9, 11)
    with pytest.raises(RtoslabError, match=r"instruction count goes backwards at record 1"):
        parse_trace(data, "t.bin")


def test_cycle_count_going_backwards() -> None:
    data = header() + record(2, 10, 10) + record(3, 11, 9)
    with pytest.raises(RtoslabError, match=r"cycle count goes backwards at record 1"):
        parse_trace(data, "t.bin")


def test_end_totals_below_last_hit() -> None:
    data = header() + record(2, 10, 10) + record(END, 9, 10)
    with pytest.raises(RtoslabError, match=r"instruction count goes backwards at record 1"):
        parse_trace(data, "t.bin")


def test_cycles_without_cycle_model() -> None:
    data = header(flags=0) + record(2, 10, 3)
    with pytest.raises(RtoslabError, match=r"record 0 has cycles 3 but .* no cycle model"):
        parse_trace(data, "t.bin")


# ---------------------------------------------------------------- version 2 (cores)

CORE_TOTAL = 0xFFFFFFFE


def header2(cores: int, flags: int = 1) -> bytes:
    return struct.pack("<8sIIIIII", b"RTLTRACE", 2, 40, BASE, SIZE, flags, cores)


def record2(probe_id: int, core: int, insns: int, cycles: int, m_insns: int, m_cycles: int,
            status: int = 0) -> bytes:
    return struct.pack("<IHHQQQQ", probe_id, core, status, insns, cycles, m_insns, m_cycles)


def test_v2_single_core_reads_like_v1() -> None:
    data = (header2(1) + record2(0, 0, 10, 20, 10, 20) + record2(1, 0, 13, 24, 13, 24)
            + record2(CORE_TOTAL, 0, 30, 40, 30, 40) + record2(END, 0, 30, 40, 30, 40, status=1))
    trace = parse_trace(data, "t.bin")
    assert trace.version == 2
    assert trace.cores == 1
    assert trace.hits == (Hit(0, 10, 20), Hit(1, 13, 24)), "no shared clock on one core"
    assert trace.end == TraceEnd(1, 30, 40, per_core=((30, 40),))


def test_v2_two_cores_keep_own_and_shared_counts() -> None:
    data = (
        header2(2)
        + record2(0, 0, 100, 150, 100, 150)
        + record2(1, 1, 5, 9, 105, 159)  # core 1's counts run from 0 of its own
        + record2(2, 0, 110, 160, 115, 169)
        + record2(CORE_TOTAL, 0, 200, 300, 230, 350)
        + record2(CORE_TOTAL, 1, 30, 50, 230, 350)
        + record2(END, 0, 230, 350, 230, 350)
    )
    trace = parse_trace(data, "t.bin")
    assert trace.cores == 2
    assert trace.hits == (
        Hit(0, 100, 150, core=0, shared=(100, 150)),
        Hit(1, 5, 9, core=1, shared=(105, 159)),
        Hit(2, 110, 160, core=0, shared=(115, 169)),
    )
    assert trace.end == TraceEnd(0, 230, 350, per_core=((200, 300), (30, 50)))


@pytest.mark.parametrize(
    ("records", "message"),
    [
        (record2(0, 2, 1, 1, 1, 1), r"record 0 names core 2 of a 2-core machine"),
        (record2(0, 1, 5, 5, 5, 5) + record2(1, 1, 4, 5, 9, 9),
         r"instruction count \(core 1\) goes backwards at record 1 \(5 -> 4\)"),
        (record2(0, 0, 5, 5, 5, 5) + record2(1, 1, 1, 1, 4, 6),
         r"instruction count \(machine\) goes backwards at record 1 \(5 -> 4\)"),
        (record2(CORE_TOTAL, 1, 1, 1, 1, 1), r"record 0 is core 1's total, expected core 0's"),
        (record2(CORE_TOTAL, 0, 1, 1, 1, 1) + record2(3, 0, 1, 1, 1, 1),
         r"record 1 \(probe 3\) follows a core total"),
    ],
)
def test_v2_corrupt(records: bytes, message: str) -> None:
    with pytest.raises(RtoslabError, match=message):
        parse_trace(header2(2) + records, "t.bin")


def test_v2_zero_cores_is_corrupt() -> None:
    with pytest.raises(RtoslabError, match=r"header says 0 cores"):
        parse_trace(header2(0), "t.bin")
