"""Golden tests: a real store filled with fixed data, rendered in every format.

Regenerate the files in tests/golden/ with ``RTOSLAB_UPDATE_GOLDEN=1 pytest ...``, then
review the diff: the goldens are the specification of the report formats.
"""

from __future__ import annotations

import json
import os
from datetime import UTC, datetime
from pathlib import Path

import pytest

from rtoslab.records import BenchResult, MetricResult, Sample, Summary, Unit
from rtoslab.report import get_renderer
from rtoslab.store import RunView, open_store

GOLDEN = Path(__file__).resolve().parent.parent / "golden"


class FixedClock:
    """A clock the test sets by hand, so every stored time is known."""

    def __init__(self, moment: str) -> None:
        self.set(moment)

    def set(self, moment: str) -> None:
        self.now = datetime.fromisoformat(moment).replace(tzinfo=UTC)

    def __call__(self) -> datetime:
        return self.now


CONFIG_BAREMETAL: dict[str, object] = {
    "identity_hash": "a1b2c3d4e5f6",
    "target": "mps2-an385",
    "core": "cortex-m3",
    "kernel": "baremetal",
    "kernel_config": {},
    "kernel_config_hash": "44136fa355b3",
    "compiler": "arm-none-eabi-gcc",
    "compiler_version": "13.2.1",
    "cflags": ["-O2", "-mcpu=cortex-m3", "-mthumb"],
    "ldflags": "-nostartfiles -T mps2.ld",
    "timing": {"clock_hz": 25000000, "name": "cm3-simple"},
    "image_format": "elf",
}

CONFIG_FREERTOS: dict[str, object] = {
    **CONFIG_BAREMETAL,
    "identity_hash": "f6e5d4c3b2a1",
    "kernel": "freertos",
    "kernel_config": {"configTICK_RATE_HZ": 1000, "configUSE_PREEMPTION": 1},
    "kernel_config_hash": "9c1e0b7d2a44",
}


def _flat(n: int, value: float) -> Summary:
    return Summary(
        n=n, min=value, max=value, mean=value, median=value, mode=value, stdev=0.0, p90=value, p99=value
    )


def _loop(cycles: int) -> BenchResult:
    samples = tuple(Sample(insns=301, cycles=cycles) for _ in range(5))
    metric = MetricResult(
        name="loop_100",
        description="100 iterations of an empty loop",
        samples=samples,
        summaries={Unit.INSN: _flat(5, 301), Unit.CYCLE: _flat(5, cycles), Unit.US: _flat(5, cycles / 25)},
    )
    return BenchResult(
        benchmark="loop",
        status="ok",
        reason=None,
        metrics=(metric,),
        console="loop done\n",
        calibration=Sample(insns=3, cycles=4),
        total_insns=48213,
        total_cycles=60877,
    )


def _ctx_switch() -> BenchResult:
    # insns 200 210 200 220 200: mean 206, stdev sqrt(80), p90 216, p99 219.6 (linear).
    # cycles 260 275 260 290 260: mean 269, stdev sqrt(180), p90 284, p99 289.4.
    insns = (200, 210, 200, 220, 200)
    cycles = (260, 275, 260, 290, 260)
    switch = MetricResult(
        name="switch_time",
        description="yield to a ready thread of equal priority",
        samples=tuple(Sample(i, c) for i, c in zip(insns, cycles, strict=True)),
        summaries={
            Unit.INSN: Summary(
                n=5,
                min=200,
                max=220,
                mean=206.0,
                median=200.0,
                mode=200,
                stdev=8.94427190999916,
                p90=216.0,
                p99=219.6,
            ),
            Unit.CYCLE: Summary(
                n=5,
                min=260,
                max=290,
                mean=269.0,
                median=260.0,
                mode=260,
                stdev=13.416407864998739,
                p90=284.0,
                p99=289.4,
                warnings=("only 5 samples: p90 and p99 are rough",),
            ),
        },
    )
    # insns 150 152: mean 151, stdev sqrt(2), p90 151.8, p99 151.98.
    give_take = MetricResult(
        name="give_take",
        description="semaphore give | take, same thread",
        samples=(Sample(150, 181), Sample(152, 184)),
        summaries={
            Unit.INSN: Summary(
                n=2,
                min=150,
                max=152,
                mean=151.0,
                median=151.0,
                mode=150,
                stdev=1.4142135623730951,
                p90=151.8,
                p99=151.98,
                warnings=("only 2 samples: p90 and p99 are rough",),
            ),
        },
    )
    return BenchResult(
        benchmark="ctx_switch",
        status="ok",
        reason=None,
        metrics=(switch, give_take),
        calibration=Sample(insns=3, cycles=4),
        total_insns=91020,
        total_cycles=120331,
    )


def build_golden_run(db: Path) -> RunView:
    clock = FixedClock("2026-11-22T04:00:00")
    with open_store(db, clock=clock) as store:
        run_id = store.begin_run(
            command="rtoslab run --plan plans/smoke.toml",
            revision="3f2c1ab",
            host="benchhost",
            tool_versions={
                "qemu-system-arm": "8.2.2",
                "arm-none-eabi-gcc": "13.2.1",
                "rtoslab": "0.1.0",
            },
            experiment="smoke",
        )
        bare = store.upsert_config(CONFIG_BAREMETAL)
        rtos = store.upsert_config(CONFIG_FREERTOS)
        clock.set("2026-11-22T04:01:00")
        store.add_bench_result(run_id, bare, "5e1f00aa", _loop(402))
        store.add_bench_result(
            run_id,
            bare,
            "77c0ffee",
            BenchResult("ctx_switch", "n/a", "baremetal has no threads to switch"),
        )
        clock.set("2026-11-22T04:02:30")
        store.add_bench_result(run_id, rtos, "5e1f00aa", _loop(405))
        store.add_bench_result(run_id, rtos, "77c0ffee", _ctx_switch())
        store.add_bench_result(
            run_id,
            rtos,
            "0badf00d",
            BenchResult(
                "sem_signal", "failed", "calibration unstable: 3 distinct values in 16 samples | rerun"
            ),
        )
        clock.set("2026-11-22T04:05:00")
        store.finish_run(run_id, "complete")
        return store.load_run(run_id)


@pytest.fixture(scope="module")
def golden_view(tmp_path_factory: pytest.TempPathFactory) -> RunView:
    return build_golden_run(tmp_path_factory.mktemp("golden") / "results.sqlite")


def check_golden(name: str, text: str) -> None:
    path = GOLDEN / name
    if os.environ.get("RTOSLAB_UPDATE_GOLDEN") == "1":
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    assert path.exists(), f"{path} missing: run with RTOSLAB_UPDATE_GOLDEN=1 and review it"
    assert text == path.read_text(encoding="utf-8")


@pytest.mark.parametrize(
    ("fmt", "golden"),
    [("json", "report_run.json"), ("markdown", "report_run.md"), ("terminal", "report_run.txt")],
)
def test_report_matches_golden(golden_view: RunView, fmt: str, golden: str) -> None:
    renderer = get_renderer(fmt)
    assert golden.endswith(renderer.file_suffix)
    check_golden(golden, renderer.render(golden_view))


def test_golden_json_follows_schema(golden_view: RunView) -> None:
    doc = json.loads(get_renderer("json").render(golden_view))
    assert list(doc) == ["schema", "run_id", "status", "started_at", "time_bases", "results"]
    assert doc["schema"] == "rtoslab.run/1"
    assert doc["status"] == "complete"
    assert doc["started_at"] == "2026-11-22T04:00:00Z"
    keys = [
        "benchmark",
        "kernel",
        "target",
        "config",
        "axes",
        "status",
        "reason",
        "metric",
        "time_base",
        "time_note",
        "unit",
        "n",
        "min",
        "max",
        "mean",
        "median",
        "mode",
        "stdev",
        "p90",
        "p99",
    ]
    assert all(list(entry) == keys for entry in doc["results"])
    # loop: 3 units x 2 configs; ctx_switch n/a: 1; switch_time 2 units; give_take 1; failed 1
    assert len(doc["results"]) == 3 + 1 + 3 + 2 + 1 + 1
    for entry in doc["results"]:
        if entry["status"] == "ok":
            assert entry["reason"] is None and isinstance(entry["n"], int)
        else:
            assert entry["reason"]
            assert all(entry[k] is None for k in keys[7:])  # from "metric" on
