"""Probe metadata v1 parsing (docs/formats.md §3), byte-exact inputs built with struct."""

from __future__ import annotations

import struct

import pytest

from rtoslab.records import PairMeta, RtoslabError
from rtoslab.trace.meta import parse_probe_meta

MAGIC = 0x5042414C


def meta_record(
    name: bytes,
    *,
    kind: int = 0,
    start: int = 2,
    end: int = 3,
    flags: int = 0,
    description: bytes = b"",
    magic: int = MAGIC,
    version: int = 1,
) -> bytes:
    return struct.pack("<IHHHHI32s112s", magic, version, kind, start, end, flags, name, description)


CALIBRATION = meta_record(b"calibration", start=0, end=1, flags=1, description=b"probe cost")


def test_record_size_matches_the_spec() -> None:
    assert len(CALIBRATION) == 160
    assert struct.pack("<I", MAGIC) == b"LABP"


def test_parses_records_in_order() -> None:
    data = (
        CALIBRATION
        + meta_record(b"yield", start=2, end=3, description=b"task yield to task")
        + meta_record(b"tick_period", kind=1, start=7, end=7, flags=2)
    )
    assert parse_probe_meta(data, "sec") == (
        PairMeta("calibration", 0, 0, 1, 1, "probe cost"),
        PairMeta("yield", 0, 2, 3, 0, "task yield to task"),
        PairMeta("tick_period", 1, 7, 7, 2, ""),
    )


def test_full_width_name_and_description_without_nul() -> None:
    name = b"a" * 32
    description = b"d" * 112
    (meta,) = parse_probe_meta(meta_record(name, description=description), "sec")
    assert meta.name == "a" * 32
    assert meta.description == "d" * 112


def test_is_calibration_flag() -> None:
    metas = parse_probe_meta(CALIBRATION + meta_record(b"x"), "sec")
    assert [meta.is_calibration for meta in metas] == [True, False]


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (b"", r"^sec is empty"),
        (CALIBRATION[:159], r"^sec: size 159 is not a multiple of the 160-byte record"),
        (CALIBRATION + b"\0" * 4, r"size 164 is not a multiple"),
        (
            CALIBRATION + meta_record(b"x", magic=0x12345678),
            r"^sec: record 1 has bad magic 0x12345678 \(expected 0x5042414c\)",
        ),
        (meta_record(b"x", version=2), r"^sec: record 0 has version 2; .* version 1 only"),
        (meta_record(b"Yield"), r"metric name 'Yield' is not made of \[a-z0-9_\]\+"),
        (meta_record(b"a-b"), r"metric name 'a-b'"),
        (meta_record(b"a b"), r"metric name 'a b'"),
        (meta_record(b""), r"metric name ''"),
        (meta_record(b"ab\0c"), r"metric name has bytes after its terminating NUL"),
        (meta_record(b"\xff"), r"metric name is not valid UTF-8"),
        (meta_record(b"x", description=b"a\0b"), r"metric 'x': description has bytes after"),
        (meta_record(b"x", kind=3), r"^sec: metric 'x' has unknown kind 3"),
        (
            meta_record(b"x", kind=1, start=4, end=5),
            r"metric 'x' is a period but its start probe 4 and end probe 5 differ",
        ),
        (
            meta_record(b"x", kind=0, start=4, end=4),
            r"metric 'x' is an interval with the same start and end probe 4",
        ),
        (meta_record(b"x", flags=8), r"metric 'x' has unknown flags 0x8"),
        (
            meta_record(b"x", start=2, end=3, flags=1),
            r"metric 'x' is flagged as the calibration pair but is not the interval 0 -> 1",
        ),
        (
            meta_record(b"x", kind=1, start=0, end=0, flags=1),
            r"flagged as the calibration pair",
        ),
        (
            meta_record(b"x", start=1, end=5),
            r"metric 'x' uses probe ids 1 and 5, but ids 0 and 1 are reserved for calibration",
        ),
        (meta_record(b"x", kind=1, start=0, end=0), r"reserved for calibration"),
    ],
)
def test_invalid_metadata(data: bytes, message: str) -> None:
    with pytest.raises(RtoslabError, match=message):
        parse_probe_meta(data, "sec")


def test_duplicate_metric_name() -> None:
    data = (
        CALIBRATION + meta_record(b"yield", start=2, end=3) + meta_record(b"yield", start=4, end=5)
    )
    with pytest.raises(
        RtoslabError, match=r"^sec: metric 'yield' is declared twice \(records 1 and 2\)"
    ):
        parse_probe_meta(data, "sec")
