"""The masked-window report on the host: the plugin's file read and checked, located in
the source through a real ELF (arm-none-eabi-addr2line), stored and read back, and
rendered (docs/irq-windows.md, docs/formats.md §9)."""

from __future__ import annotations

import json
import shutil
import subprocess
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path

import pytest

from rtoslab.analysis.irq_windows import (
    call_site,
    from_doc,
    locate,
    parse_report,
    short_path,
    to_doc,
    top_lines,
)
from rtoslab.records import BenchResult, RtoslabError
from rtoslab.report.irq_windows import html_section, text_section
from rtoslab.report.json_report import run_document
from rtoslab.store import open_store

PLUGIN_REPORT = {
    "schema": "rtoslab.irq-windows/1", "prio_bits": 1, "prigroup": 0, "entry_cycles": 12,
    "cycles_modelled": True, "end_insns": 500,
    "levels": [
        {"level": 0, "priority": 0, "count": 2, "masked_insns": 30, "masked_cycles": 33,
         "max_insns": 21, "max_cycles": 23, "bound_cycles": 35, "hist_insns": [0, 0, 0, 1, 1],
         "windows": [{"start_pc": 0x10, "end_pc": 0x14, "cause": "primask", "count": 2,
                      "max_insns": 21, "max_cycles": 23, "max_at": 100}],
         "open_at_exit": None},
        {"level": 1, "priority": 128, "count": 0, "masked_insns": 0, "masked_cycles": 0,
         "max_insns": 0, "max_cycles": 0, "bound_cycles": None, "hist_insns": [], "windows": [],
         "open_at_exit": {"start_pc": 0x10, "cause": "basepri", "insns": 7, "cycles": 9}},
    ],
}


def test_parse_report_reads_every_field() -> None:
    r = parse_report(json.dumps(PLUGIN_REPORT))
    assert (r.prio_bits, r.entry_cycles, r.cycles_modelled) == (1, 12, True)
    lv0, lv1 = r.levels
    assert (lv0.count, lv0.max_insns, lv0.bound_cycles, lv0.hist_insns) == (2, 21, 35, (0, 0, 0, 1, 1))
    (w,) = lv0.windows
    assert (w.start_pc, w.end_pc, w.cause, w.count) == (0x10, 0x14, "primask", 2)
    assert (w.max_insns, w.max_cycles) == (21, 23)
    assert lv1.bound_cycles is None and lv1.open_at_exit is not None
    assert (lv1.open_at_exit.max_insns, lv1.open_at_exit.max_cycles) == (7, 9)


@pytest.mark.parametrize("text, says", [
    ("not json", "not JSON"),
    (json.dumps({"schema": "other"}), "schema is not rtoslab.irq-windows/1"),
    (json.dumps({**PLUGIN_REPORT, "prio_bits": "3"}), "'prio_bits' is missing or not an integer"),
])
def test_bad_reports_are_one_line_errors(text: str, says: str) -> None:
    with pytest.raises(RtoslabError, match=says) as e:
        parse_report(text, "w_irqwin")
    assert "\n" not in str(e.value) and "w_irqwin" in str(e.value)


def test_call_site_of_a_link_register() -> None:
    assert call_site(0x1235) == 0x1232  # inside the BL that returns to 0x1234 (Thumb bit set)
    assert call_site(0) == 0 and call_site(0xFFFFFFFD) == 0  # unread; EXC_RETURN


def test_short_path() -> None:
    assert short_path("/x/.cache/build/ab/firmware/bench/b/b.c") == "firmware/bench/b/b.c"
    assert short_path("/home/u/.cargo/registry/src/x/freertos-next-0.12.0/FreeRTOS-Kernel/tasks.c") \
        == "freertos-next-0.12.0/FreeRTOS-Kernel/tasks.c"


@pytest.mark.skipif(shutil.which("arm-none-eabi-gcc") is None, reason="no arm-none-eabi-gcc")
def test_locate_maps_addresses_to_function_line_and_code(tmp_path: Path) -> None:
    src = tmp_path / "firmware" / "w.c"
    src.parent.mkdir()
    src.write_text("void f(void)\n{\n    __asm__ volatile(\"cpsid i\");\n"
                   "    __asm__ volatile(\"nop\");\n    __asm__ volatile(\"cpsie i\");\n}\n")
    elf = tmp_path / "w.elf"
    subprocess.run(["arm-none-eabi-gcc", "-mcpu=cortex-m3", "-mthumb", "-g", "-O2", "-nostdlib",
                    "-Wl,-e,f", "-o", str(elf), str(src)], check=True)
    syms = subprocess.run(["arm-none-eabi-nm", str(elf)], capture_output=True, text=True, check=True)
    f = next(int(line.split()[0], 16) for line in syms.stdout.splitlines() if line.endswith(" f"))
    report = parse_report(json.dumps(PLUGIN_REPORT))
    lv0 = report.levels[0]
    w0 = replace(lv0.windows[0], start_pc=f, end_pc=f + 4)  # cpsid, nop, cpsie: 2 bytes each
    located = locate(replace(report, levels=(replace(lv0, windows=(w0,)), report.levels[1])), elf)
    w = located.levels[0].windows[0]
    assert w.start == "f (firmware/w.c:3)" and w.end == "f (firmware/w.c:5)"
    assert len(w.code) == 3 and w.code[0].endswith('__asm__ volatile("cpsid i");')
    assert located.levels[1].open_at_exit is not None
    assert located.levels[1].open_at_exit.start.startswith("? (")  # 0x10: no debug information


def test_store_round_trip_and_rendering(tmp_path: Path) -> None:
    report = parse_report(json.dumps(PLUGIN_REPORT))
    lv0 = report.levels[0]
    report = replace(report, levels=(replace(lv0, windows=(replace(
        lv0.windows[0], start="f (a.c:3)", end="f (a.c:5)", code=("    3  cpsid", "    5  cpsie")),)),
        report.levels[1]))
    assert from_doc(json.loads(json.dumps(to_doc(report)))) == report
    identity: dict[str, object] = {
        "identity_hash": "cafe01", "target": "mps2-an385", "core": "cortex-m3", "kernel": "baremetal",
        "kernel_config": {}, "kernel_config_hash": "k", "compiler": "gcc", "compiler_version": "12",
        "cflags": "-O2", "ldflags": "", "timing": {}}
    with open_store(tmp_path / "r.sqlite", clock=lambda: datetime(2026, 11, 23, tzinfo=UTC)) as store:
        run = store.begin_run("rtoslab run", "rev", "host", {}, experiment=None)
        config = store.upsert_config(identity)
        store.add_bench_result(run, config, "src", BenchResult("w", "ok", None, irq_windows=report))
        store.add_bench_result(run, config, "src", BenchResult("plain", "ok", None))
        view = store.load_run(run)
    assert view.results[0].irq_windows == report
    assert view.results[1].irq_windows is None
    text = text_section(view)
    assert "level 0 (priority 0x00): 2 windows, longest 21 insns / 23 cycles, bound 35 cycles" in text
    assert "primask" in text and "f (a.c:3) -> f (a.c:5)" in text
    assert "still masked at exit: basepri" in text
    html = html_section(view)
    assert "cpsid" in html and "<svg" in html and "level 1" in html
    assert top_lines(report)[0].startswith("level 0")
    doc = run_document(view)
    assert doc["irq_windows"] == [{"benchmark": "w", "config": "cafe01", "report": to_doc(report)}]
    assert from_doc(json.loads(json.dumps(doc["irq_windows"][0]["report"]))) == report  # type: ignore[index]


def test_a_report_of_two_cores_keeps_them_apart() -> None:
    """The plugin's report on a machine with several vCPUs (docs/formats.md §9, "Several
    cores"): every core's levels, each naming its core; one core's form is unchanged."""
    levels = PLUGIN_REPORT["levels"]
    assert isinstance(levels, list)
    two = {**PLUGIN_REPORT, "cores": 2,
           "levels": [{**lv, "core": c} for c in (0, 1) for lv in levels]}
    r = parse_report(json.dumps(two))
    assert r.cores == 2 and [(lv.core, lv.level) for lv in r.levels] == [(0, 0), (0, 1), (1, 0), (1, 1)]
    assert from_doc(json.loads(json.dumps(to_doc(r)))) == r
    lines = top_lines(r)
    assert lines[0].startswith("core 0 level 0 (priority 0x00): 2 windows")
    assert any(x.startswith("core 1 level 1 (priority 0x80)") for x in lines)
    one = to_doc(parse_report(json.dumps(PLUGIN_REPORT)))
    assert "cores" not in one and all("core" not in lv for lv in one["levels"])  # type: ignore[attr-defined]
    assert top_lines(parse_report(json.dumps(PLUGIN_REPORT)))[0].startswith("level 0 (priority")
