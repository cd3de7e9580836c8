"""Two cores traced end to end (docs/timeline.md, "Several cores"; issue 18): x_doorbell on
mps2-an521 (core 0 rings core 1, idle in WFI, which rings back) under the real QEMU and
plugin with `--trace`: the timeline has each core's lanes on the machine's shared clock,
and the whole run repeats exactly: two runs give identical timelines, Chrome exports and
samples."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rtoslab.trace.timeline import load_timelines, timeline_dir
from tests.unit.test_timeline import check_trace_event_format

from .conftest import RunCli

pytestmark = pytest.mark.qemu

ARGS = ("--target", "mps2-an521", "--kernel", "baremetal", "--bench", "x_doorbell", "--trace",
        "-j", "1")


def _samples(run_cli: RunCli, db: Path, run: int) -> list[str]:
    proc = run_cli("export", str(run), "--what", "samples-csv", "--db", str(db))
    assert proc.returncode == 0, proc.stderr
    # Drop the run id (first column): everything else must repeat.
    return [line.split(",", 1)[1] for line in proc.stdout.splitlines()[1:]]


def test_two_core_trace_is_per_core_and_repeats_exactly(run_cli: RunCli, tmp_path: Path) -> None:
    db = tmp_path / "r.sqlite"
    for _ in range(2):
        proc = run_cli("run", *ARGS, "--db", str(db))
        assert proc.returncode == 0, proc.stderr

    first, second = (load_timelines(timeline_dir(db, run)) for run in (1, 2))
    assert first == second and len(first) == 1, "two runs: identical timelines"
    texts = [sorted(p.read_text() for p in timeline_dir(db, run).glob("bench-*.json")) for run in (1, 2)]
    assert texts[0] == texts[1], "identical timeline files"
    samples = _samples(run_cli, db, 1)
    assert samples and samples == _samples(run_cli, db, 2), "identical samples"
    exports = []
    for run in (1, 2):
        out = tmp_path / f"t{run}.json"
        assert run_cli("export", str(run), "--what", "trace", "-o", str(out),
                       "--db", str(db)).returncode == 0
        exports.append(out.read_text())
    assert exports[0] == exports[1]
    check_trace_event_format(json.loads(exports[0]))

    [tl] = first
    assert "shared clock" in tl.note
    # The doorbell handler is installed at run time (no .lab_isr record), so its lane is
    # named by its address; one irq lane per core.
    irq_lanes = [ln for ln in tl.lanes if " irq " in ln]
    assert [ln.split(" irq ")[0] for ln in irq_lanes] == ["core 0", "core 1"]
    assert {"core 0 probes", "core 1 probes", "metric ring_other", "metric reply"} <= set(tl.lanes)
    # Each ring_other interval (core 0's probe 2 -> core 1's probe 3) holds the start of
    # core 1's handler; times on one clock, so the other core's slices line up with the
    # interval.
    irq1 = [s for s in tl.slices if s.lane == irq_lanes[1]]
    rings = [s for s in tl.slices if s.lane == "metric ring_other"]
    assert len(rings) == 33 and len(irq1) == 33  # 32 rounds and the stopping one
    for ring, irq in zip(rings, irq1, strict=True):
        assert ring.core == 0 and irq.core == 1
        assert ring.start_insns < irq.start_insns < ring.end_insns < irq.end_insns
    assert all(m.core == int(m.lane.split()[1]) for m in tl.marks)
    html = (tmp_path / "r.sqlite.run-2.html").read_text()
    assert irq_lanes[1] in html


def test_masked_windows_on_two_cores(run_cli: RunCli, tmp_path: Path) -> None:
    """`--irq-windows` on mps2-an521: each core's windows apart, named by core."""
    db = tmp_path / "r.sqlite"
    proc = run_cli("run", "--target", "mps2-an521", "--kernel", "baremetal", "--bench", "x_doorbell",
                   "--irq-windows", "--json", "-j", "1", "--db", str(db))
    assert proc.returncode == 0, proc.stderr
    [entry] = json.loads(proc.stdout)["irq_windows"]
    report = entry["report"]
    assert report["cores"] == 2
    levels = report["levels"]
    assert [lv["core"] for lv in levels] == [0] * 8 + [1] * 8  # 3 priority bits per core
    # Each core's doorbell handler (IRQ 6, exception 22) masks every level on that core:
    # core 0 takes the 33 replies and 32 self-rings, core 1 the 33 rings.
    handler = {c: sum(w["count"] for w in levels[8 * c]["windows"] if w["cause"] == "handler:22")
               for c in (0, 1)}
    assert handler == {0: 65, 1: 33}
    assert "core 1 level 0" in proc.stderr or "core 1 level 0" in (tmp_path / "r.sqlite.run-1.md").read_text()
