"""The timeline (docs/timeline.md) on recorded values: the plugin's event file, the
arrangement into task / interrupt / interval slices, the stored form, the Chrome trace
export checked against the trace event format, and the HTML swimlanes."""

from __future__ import annotations

import json
import struct
from typing import Any

import pytest

from rtoslab.console import parse_console
from rtoslab.records import KIND_INTERVAL, Hit, PairMeta, RtoslabError
from rtoslab.report.chrome_trace import chrome_trace, chrome_trace_json
from rtoslab.report.timeline_html import timeline_section
from rtoslab.trace.events import KIND_ENTRY, KIND_RETURN, KIND_TAIL_CHAIN, ExcEvent, parse_events
from rtoslab.trace.timeline import (
    Timeline,
    build_timeline,
    split_task_hits,
    task_first_id,
)

FIRST = task_first_id(0x4000)  # 4032, LAB_TRACE_TASK_FIRST_ID for a 16 KiB region
METAS = [
    PairMeta("calib", KIND_INTERVAL, 0, 1, 1, "calibration"),
    PairMeta("switch", KIND_INTERVAL, 2, 3, 0, "a switch"),
]


def event_file(records: list[tuple[int, int, int, int]], end: bool = True, status: int = 0) -> bytes:
    data = struct.pack("<8sIII12x", b"RTLEVENT", 1, 24, 1)
    for kind, pc, insns, cycles in records:
        data += struct.pack("<HxxIQQ", kind, pc, insns, cycles)
    if end:
        data += struct.pack("<HxxIQQ", 0xFFFF, status, 999, 1999)
    return data


def test_event_file_is_read_and_checked() -> None:
    ev = parse_events(event_file([(KIND_ENTRY, 0x100, 10, 20), (KIND_RETURN, 0x200, 30, 60)]), "e")
    assert ev.events == (ExcEvent(KIND_ENTRY, 0x100, 10, 20), ExcEvent(KIND_RETURN, 0x200, 30, 60))
    assert not ev.capped
    assert parse_events(event_file([], status=1), "e").capped
    with pytest.raises(RtoslabError, match="no end record"):
        parse_events(event_file([(KIND_ENTRY, 0x100, 10, 20)], end=False), "e")
    with pytest.raises(RtoslabError, match="not an rtoslab event file"):
        parse_events(b"RTLTRACE" + bytes(24), "e")
    with pytest.raises(RtoslabError, match="unknown event kind 7"):
        parse_events(event_file([(7, 0, 1, 1)]), "e")


def test_task_names_come_from_the_console() -> None:
    console = "boot\nLAB-TASK 1 producer\r\nLAB-TASK 2 the consumer\nLAB-KV x=1\n"
    report = parse_console(console)
    assert report.tasks == {1: "producer", 2: "the consumer"}
    assert report.counters == {"x": 1}


def test_task_hits_are_split_off_before_analysis() -> None:
    hits = (Hit(0, 1, 1), Hit(FIRST + 1, 2, 2), Hit(2, 3, 3), Hit(4095, 4, 4))
    probes, tasks = split_task_hits(hits, FIRST)
    assert [h.probe_id for h in probes] == [0, 2]
    assert [h.probe_id for h in tasks] == [FIRST + 1, 4095]


def two_tasks() -> Timeline:
    """Task 1 runs; an interrupt enters, tail-chains into PendSV, which switches to task 2
    and returns; task 2 hits the interval's end probe."""
    probes = [Hit(0, 5, 5), Hit(1, 8, 8), Hit(2, 100, 200), Hit(3, 160, 330)]
    tasks = [Hit(FIRST + 1, 50, 90), Hit(FIRST + 2, 140, 290)]
    events = [ExcEvent(KIND_ENTRY, 0x301, 110, 220), ExcEvent(KIND_TAIL_CHAIN, 0x401, 120, 240),
              ExcEvent(KIND_RETURN, 0x500, 150, 310)]
    return build_timeline("b", "freertos", probes, tasks, FIRST, events, {1: "one", 2: "two"},
                          METAS, {0x300: "EXTI_Handler", 0x400: "PendSV_Handler"}, 25e6, (200, 400))


def sequence(tl: Timeline) -> list[str]:
    pts: list[tuple[int, int, str]] = []
    for s in tl.slices:
        pts.append((s.start_insns, 1, f"+{s.lane}"))
        pts.append((s.end_insns, 0, f"-{s.lane}"))
    pts += [(m.insns, 2, m.name) for m in tl.marks]
    return [p[2] for p in sorted(pts)]


def test_two_tasks_give_the_exact_sequence() -> None:
    tl = two_tasks()
    assert sequence(tl) == [
        "+task 1 one",
        "+metric switch", "probe 2 switch",
        "+irq EXTI_Handler",
        "-irq EXTI_Handler", "+irq PendSV_Handler",  # the tail-chain
        "-task 1 one", "+task 2 two",
        "-irq PendSV_Handler",
        "-metric switch", "probe 3 switch",
        "-task 2 two",  # closed at the end of the run
    ]
    pend = next(s for s in tl.slices if s.lane == "irq PendSV_Handler")
    assert (pend.start_cycles, pend.end_cycles, pend.core) == (240, 310, 0)
    assert tl.lanes == ("task 1 one", "task 2 two", "irq EXTI_Handler", "irq PendSV_Handler",
                        "metric switch", "probes")
    assert tl.window_insns == (100, 200) and not tl.truncated
    assert Timeline.from_json(tl.to_json(), "t") == tl


def test_the_window_is_capped_with_a_note() -> None:
    probes = [Hit(2 + i % 2, 100 + 10 * i, 100 + 10 * i) for i in range(100)]
    tl = build_timeline("b", "c", probes, [], FIRST, [], {}, METAS, {}, None, (5000, 0), cap=10)
    assert tl.truncated and len(tl.slices) + len(tl.marks) <= 11
    assert "not shown" in tl.note


def test_a_damaged_timeline_file_is_one_line() -> None:
    with pytest.raises(RtoslabError, match="damaged"):
        Timeline.from_json('{"format": "rtoslab.timeline/1"}', "x.json")
    with pytest.raises(RtoslabError, match=r"is not rtoslab\.timeline/1"):
        Timeline.from_json('{"format": "other"}', "x.json")


def check_trace_event_format(doc: dict[str, Any]) -> None:
    """The JSON object form of the Chrome trace event format, as far as we use it."""
    assert isinstance(doc["traceEvents"], list)
    assert doc.get("displayTimeUnit") in (None, "ms", "ns")
    named: set[tuple[int, int]] = set()
    used: set[tuple[int, int]] = set()
    for e in doc["traceEvents"]:
        assert e["ph"] in ("X", "i", "M"), e
        assert isinstance(e["name"], str) and isinstance(e["pid"], int) and isinstance(e["tid"], int)
        if e["ph"] == "M":
            assert e["name"] in ("process_name", "thread_name", "thread_sort_index")
            assert isinstance(e["args"], dict)
            if e["name"] == "thread_name":
                named.add((e["pid"], e["tid"]))
            continue
        assert isinstance(e["ts"], (int, float)) and e["ts"] >= 0
        assert isinstance(e.get("cat", ""), str) and isinstance(e.get("args", {}), dict)
        if e["ph"] == "X":
            assert isinstance(e["dur"], (int, float)) and e["dur"] >= 0
        else:
            assert e["s"] in ("g", "p", "t")
        used.add((e["pid"], e["tid"]))
    assert used <= named, "every lane is named"


def test_chrome_trace_follows_the_format() -> None:
    tl = two_tasks()
    doc = json.loads(chrome_trace_json([tl, tl]))
    check_trace_event_format(doc)
    x = [e for e in doc["traceEvents"] if e["ph"] == "X" and e["name"] == "PendSV_Handler"]
    assert len(x) == 2 and {e["pid"] for e in x} == {1, 2}
    # microseconds of modelled time: 240 cycles at 25 MHz = 9.6 us, 70 cycles = 2.8 us
    assert (x[0]["ts"], x[0]["dur"]) == (9.6, 2.8)
    assert x[0]["args"]["cycles"] == 70 and x[0]["args"]["core"] == 0
    no_model = build_timeline("b", "c", [Hit(2, 100, 0), Hit(3, 150, 0)], [], FIRST, [], {}, METAS,
                              {}, None, (200, 0))
    iv = [e for e in chrome_trace([no_model])["traceEvents"] if e["ph"] == "X"]  # type: ignore[union-attr]
    assert (iv[0]["ts"], iv[0]["dur"]) == (0.1, 0.05)  # instructions read as ns


def test_html_swimlanes() -> None:
    html = timeline_section([two_tasks()])
    assert html.count('<div class="tl-lane"') == 6
    assert "irq PendSV_Handler" in html and "<svg class=\"tl-plot\"" in html
    assert "addEventListener('wheel'" in html
