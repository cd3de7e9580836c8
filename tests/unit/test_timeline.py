"""The timeline (docs/timeline.md) on recorded values: the plugin's event file, the
arrangement into task / interrupt / interval slices, the stored form, the Chrome trace
export checked against the trace event format, and the HTML swimlanes."""

from __future__ import annotations

import json
import struct
from pathlib import Path
from typing import Any

import pytest

from rtoslab.console import parse_console
from rtoslab.lab_headers import trace_tasks
from rtoslab.records import KIND_INTERVAL, Hit, PairMeta, RtoslabError
from rtoslab.report.chrome_trace import chrome_trace, chrome_trace_json
from rtoslab.report.timeline_html import (
    MAX_ITEMS,
    OVERVIEW_BINS,
    nice_ticks,
    overview_cells,
    time_unit,
    timeline_section,
)
from rtoslab.trace.events import KIND_ENTRY, KIND_RETURN, KIND_TAIL_CHAIN, ExcEvent, parse_events
from rtoslab.trace.timeline import (
    Mark,
    Slice,
    Timeline,
    build_timeline,
    split_task_hits,
    task_first_id,
)

FIRST = task_first_id(0x4000, trace_tasks())  # 4032, LAB_TRACE_TASK_FIRST_ID for a 16 KiB region
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


# ---------------------------------------------------------------- single core stays as it was

GOLDEN = Path(__file__).resolve().parent.parent / "golden" / "timeline_single_core.json"


def single_core(cap: int = 20_000, end: tuple[int, int] | None = (400, 900)) -> Timeline:
    """Nested interrupts, a tail-chain, three tasks, two intervals, an open handler at the end."""
    probes = [Hit(0, 5, 5), Hit(1, 8, 8), Hit(2, 100, 200), Hit(3, 160, 330), Hit(2, 210, 420),
              Hit(3, 300, 700)]
    tasks = [Hit(FIRST + 0, 20, 30), Hit(FIRST + 1, 50, 90), Hit(FIRST + 2, 140, 290),
             Hit(FIRST + 1, 250, 600)]
    events = [ExcEvent(KIND_ENTRY, 0x301, 110, 220), ExcEvent(KIND_ENTRY, 0x601, 115, 230),
              ExcEvent(KIND_RETURN, 0x302, 118, 236), ExcEvent(KIND_TAIL_CHAIN, 0x401, 120, 240),
              ExcEvent(KIND_RETURN, 0x500, 150, 310), ExcEvent(KIND_ENTRY, 0x401, 240, 560),
              ExcEvent(KIND_ENTRY, 0x301, 320, 760)]
    return build_timeline("bench", "freertos opt=O2", probes, tasks, FIRST, events,
                          {1: "one", 2: "two"}, METAS,
                          {0x300: "EXTI_Handler", 0x400: "PendSV_Handler", 0x600: "SysTick_Handler"},
                          25e6, end, cap=cap)


def test_single_core_outputs_are_byte_identical_to_before_cores() -> None:
    """The golden was written by the timeline code before it knew cores (commit 6882d33):
    a single-core timeline and its Chrome export must not change. Its HTML was rewritten
    once since, on purpose (issue 28: the time axis and the overview), and regenerated."""
    golden = json.loads(GOLDEN.read_text())
    assert single_core().to_json() == golden["whole"]
    assert single_core(cap=7).to_json() == golden["capped"]
    assert single_core(end=None).to_json() == golden["no_end"]
    assert chrome_trace_json([single_core()]) == golden["chrome"]
    assert timeline_section([single_core()]) == golden["html"]


# ---------------------------------------------------------------- two cores

def event_file_v2(records: list[tuple[int, int, int, int, int, int, int]]) -> bytes:
    data = struct.pack("<8sIII12x", b"RTLEVENT", 2, 40, 1)
    for kind, core, pc, insns, cycles, m_insns, m_cycles in records:
        data += struct.pack("<HHIQQQQ", kind, core, pc, insns, cycles, m_insns, m_cycles)
    return data + struct.pack("<HHIQQQQ", 0xFFFF, 0, 0, 999, 1999, 999, 1999)


def test_event_file_version_2_carries_the_shared_clock() -> None:
    ev = parse_events(event_file_v2([(KIND_ENTRY, 1, 0x100, 10, 20, 70, 90)]), "e")
    assert ev.events == (ExcEvent(KIND_ENTRY, 0x100, 10, 20, 1, (70, 90)),)
    assert (ev.events[0].shared_insns, ev.events[0].shared_cycles) == (70, 90)
    with pytest.raises(RtoslabError, match="record size 24"):
        parse_events(struct.pack("<8sIII12x", b"RTLEVENT", 2, 24, 1), "e")


def two_cores() -> Timeline:
    """Core 0 runs task 1 and gives to core 1 (probe 2); core 1 takes the doorbell
    interrupt, which switches it from its idle task to task 2, which ends the interval
    (probe 3). Own counts differ from the shared clock (the sum of both cores' counts)."""
    probes = [Hit(0, 5, 5, 0, (5, 5)), Hit(1, 8, 8, 0, (8, 8)),
              Hit(2, 100, 200, 0, (130, 260)), Hit(3, 60, 120, 1, (210, 400))]
    tasks = [Hit(FIRST + 1, 50, 90, 0, (60, 100)), Hit(FIRST + 0, 20, 30, 1, (90, 150)),
             Hit(FIRST + 2, 50, 100, 1, (200, 380))]
    events = [ExcEvent(KIND_ENTRY, 0x301, 40, 80, 1, (170, 330)),
              ExcEvent(KIND_RETURN, 0x500, 55, 110, 1, (205, 390))]
    return build_timeline("x", "sse", probes, tasks, FIRST, events, {1: "giver", 2: "taker"}, METAS,
                          {0x300: "MHU_Handler"}, 25e6, (300, 600), cores=2)


def test_two_cores_have_lanes_per_core_on_the_shared_clock() -> None:
    tl = two_cores()
    assert tl.lanes == ("core 0 task 1 giver", "core 0 probes",
                        "core 1 task 0 (kernel: idle)", "core 1 task 2 taker", "core 1 irq MHU_Handler",
                        "core 1 probes", "metric switch")
    assert sequence(tl) == [
        "+core 0 task 1 giver",
        "+core 1 task 0 (kernel: idle)",
        "+metric switch", "probe 2 switch",
        "+core 1 irq MHU_Handler",
        "-core 1 task 0 (kernel: idle)", "+core 1 task 2 taker",
        "-core 1 irq MHU_Handler",
        "-metric switch", "probe 3 switch",
        "-core 0 task 1 giver", "-core 1 task 2 taker",  # closed at the end of the run
    ]
    by_lane = {s.lane: s for s in tl.slices}
    irq = by_lane["core 1 irq MHU_Handler"]
    assert (irq.name, irq.core, irq.start_insns, irq.start_cycles) == ("MHU_Handler", 1, 170, 330)
    iv = by_lane["metric switch"]
    assert (iv.start_insns, iv.end_insns, iv.start_cycles, iv.end_cycles) == (130, 210, 260, 400)
    assert by_lane["core 1 task 2 taker"].name == "task 2 taker"
    assert {m.lane: m.core for m in tl.marks} == {"core 0 probes": 0, "core 1 probes": 1}
    assert tl.window_insns == (130, 300)
    assert "shared clock" in tl.note
    assert Timeline.from_json(tl.to_json(), "t") == tl


def test_two_cores_in_the_exports() -> None:
    tl = two_cores()
    doc = json.loads(chrome_trace_json([tl]))
    check_trace_event_format(doc)
    names = {e["args"]["name"]: e["tid"] for e in doc["traceEvents"] if e["name"] == "thread_name"}
    assert "core 0 task 1 giver" in names and "core 1 task 2 taker" in names
    x = next(e for e in doc["traceEvents"] if e["ph"] == "X" and e["name"] == "MHU_Handler")
    assert x["tid"] == names["core 1 irq MHU_Handler"] and x["args"]["core"] == 1
    assert x["ts"] == 13.2  # shared clock: 330 cycles at 25 MHz
    html = timeline_section([tl])
    assert html.count('<div class="tl-lane"') == 7 and "core 1 irq MHU_Handler" in html


def test_a_one_core_kernel_on_a_two_core_machine_keeps_the_one_core_timeline() -> None:
    """Nothing on core 1 (held in reset): the timeline of a two-core machine is the one-core one."""
    probes = [Hit(0, 5, 5, 0, (5, 5)), Hit(1, 8, 8, 0, (8, 8)), Hit(2, 100, 200, 0, (100, 200)),
              Hit(3, 160, 330, 0, (160, 330))]
    tasks = [Hit(FIRST + 1, 50, 90, 0, (50, 90))]
    args = ("b", "c", probes, tasks, FIRST, [ExcEvent(KIND_ENTRY, 0x301, 110, 220, 0, (110, 220))],
            {1: "one"}, METAS, {0x300: "EXTI_Handler"}, 25e6, (200, 400))
    assert build_timeline(*args, cores=2) == build_timeline(*args)  # type: ignore[arg-type]


def test_html_shades_every_odd_core() -> None:
    html = timeline_section([two_cores()])
    assert html.count('fill="#eef3fb"') == 4  # core 1: idle task, task 2, irq, probes
    assert 'fill="#eef3fb"' not in timeline_section([single_core()])


# ---------------------------------------------------------------- time axis and overview (issue 28)

def long_timeline(rounds: int, clock_hz: float | None = 25e6) -> Timeline:
    """``rounds`` rounds of 100 cycles: task 1 for 60, an interrupt for 20 inside it, task 2
    for 40, a probe hit at each round's start (4 items a round)."""
    slices, marks = [], []
    for r in range(rounds):
        c = 1000 + 100 * r
        slices += [Slice("task", "task 1 one", "task 1 one", c // 2, c, (c + 60) // 2, c + 60),
                   Slice("irq", "irq EXTI_Handler", "EXTI_Handler", (c + 10) // 2, c + 10,
                         (c + 30) // 2, c + 30),
                   Slice("task", "task 2 two", "task 2 two", (c + 60) // 2, c + 60, (c + 100) // 2, c + 100)]
        marks.append(Mark("probes", "probe 2", c // 2, c))
    return Timeline("b", "cfg", clock_hz, tuple(slices), tuple(marks), (500, 500 + 50 * rounds), False,
                    "window: test", ("task 1 one", "task 2 two", "irq EXTI_Handler", "probes"))


def _between(text: str, start: str, end: str) -> str:
    i = text.index(start)
    return text[i:text.index(end, i)]


def test_nice_ticks_and_units() -> None:
    assert nice_ticks(3.6, 36) == (10.0, [10.0, 20.0, 30.0])
    assert nice_ticks(0, 49.9984) == (10.0, [0.0, 10.0, 20.0, 30.0, 40.0])
    step, values = nice_ticks(0.1, 0.9)
    assert step == 0.2 and [round(v, 3) for v in values] == [0.2, 0.4, 0.6, 0.8]
    assert time_unit(25e6, 810) == ("µs", 25.0)
    assert time_unit(25e6, 1_250_000) == ("ms", 25_000.0)  # 50 ms: read in ms
    assert time_unit(None, 10**9) == ("instructions", 1.0)


def test_the_detail_has_a_time_axis_in_microseconds_with_its_time_base() -> None:
    html = timeline_section([single_core()])
    axis = _between(html, '<svg class="tl-axis"', "</svg>")  # under the detail
    assert 'data-unit-shown="µs"' in axis
    # cycles 90..900 at 25 MHz: 3.6 to 36 µs
    assert [t.split(">")[1] for t in axis.split("<text")[1:]] == ["10</text", "20</text", "30</text"]
    # 10 µs = cycle 250: (250 - 90) / 810 of the 1000 px width
    assert '<line x1="197.53"' in axis
    assert "µs and ms are modelled cycles at 25 MHz" in html
    no_model = timeline_section([long_timeline(3, clock_hz=None)])
    assert 'data-unit-shown="instructions"' in no_model and "guest instructions (no cycle model)" in no_model


def test_the_overview_shows_every_item_and_the_page_stays_bounded() -> None:
    small, big = long_timeline(2 * MAX_ITEMS), long_timeline(4 * MAX_ITEMS)  # 48,000 and 96,000 items
    html_small, html_big = timeline_section([small]), timeline_section([big])
    plot = _between(html_big, '<svg class="tl-plot"', "</svg>")
    assert plot.count("<title>") == MAX_ITEMS  # the detail: the first MAX_ITEMS items
    ov = _between(html_big, '<svg class="tl-ov"', "</svg>")
    assert ov.count("<rect") <= 4 * OVERVIEW_BINS + 1
    # the overview reaches the last round (its last bin is drawn on every lane)
    for lane, runs in overview_cells(big, 1000, 100 * 4 * MAX_ITEMS).items():
        assert runs[-1][0] + runs[-1][1] == OVERVIEW_BINS, lane
    assert f"the first {MAX_ITEMS} of {4 * 4 * MAX_ITEMS} items" in html_big
    assert f"overview ({4 * 4 * MAX_ITEMS} items)" in html_big
    # twice the items, about the same page (the detail and the overview are bounded)
    assert abs(len(html_big) - len(html_small)) < 0.02 * len(html_small)
    assert len(html_big) < 1_500_000


def test_overview_shades_are_the_busy_share() -> None:
    cells = overview_cells(long_timeline(4), 1000, 400, bins=4)  # one bin per round
    assert cells["task 1 one"] == [(0, 4, 0.6)]  # busy 60 of every 100 cycles
    assert cells["task 2 two"] == [(0, 4, 0.4)]
    assert cells["irq EXTI_Handler"] == [(0, 4, 0.2)]
    assert cells["probes"] == [(0, 4, 1.0)]  # one hit in each: the busiest bin's count
    sparse = overview_cells(long_timeline(4), 1000, 800, bins=8)  # nothing in the second half
    assert sparse["task 1 one"] == [(0, 4, 0.6)] and sparse["probes"] == [(0, 4, 1.0)]
