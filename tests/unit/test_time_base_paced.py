"""Time base "paced" (issue 10 §5): metrics whose intervals hold tick or timer interrupts
fired on QEMU's instruction clock. Declared in bench.toml (`paced`, `paced_when`), marked
on the host, stored (schema v4), shown as such by every report, never as modelled."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rtoslab.analysis.paced import apply_paced, is_paced
from rtoslab.analysis.stats import summarize
from rtoslab.catalog import BenchFile, Catalog
from rtoslab.records import BenchResult, MetricResult, RtoslabError, Sample, TimeBase, Unit
from rtoslab.report.comparison.table import build_table
from rtoslab.report.json_report import run_document
from rtoslab.report.markdown import MarkdownRenderer
from rtoslab.report.rows import run_rows, time_base_lines
from rtoslab.report.terminal import TerminalRenderer
from rtoslab.schema import parse
from rtoslab.store import open_store

CATALOG = Catalog()  # the checkout's folders alone

WHY = "the tick fires on the instruction clock"


def _metric(name: str, base: TimeBase, note: str = "") -> MetricResult:
    samples = (Sample(100, 250), Sample(110, 260))
    summaries = {Unit.INSN: summarize([s.insns for s in samples])}
    if base is not TimeBase.VIRTUAL:
        summaries[Unit.CYCLE] = summarize([s.cycles for s in samples])
        summaries[Unit.US] = summarize([s.cycles / 25.0 for s in samples])
    return MetricResult(name, "", samples, summaries, time_base=base, time_note=note)


def test_apply_paced_marks_modelled_and_derived_keeps_virtual_and_figures() -> None:
    ms = [_metric("window", TimeBase.MODELLED), _metric("per_op", TimeBase.DERIVED, "window / 5 ops"),
          _metric("wait", TimeBase.VIRTUAL)]
    out = apply_paced(ms, WHY)
    assert [(m.name, m.time_base) for m in out] == [
        ("window", TimeBase.PACED), ("per_op", TimeBase.PACED), ("wait", TimeBase.VIRTUAL)]
    assert out[0].time_note == WHY
    assert out[1].time_note == f"window / 5 ops; {WHY}", "a derived metric keeps its formula first"
    assert out[2].time_note == ""
    for before, after in zip(ms, out, strict=True):
        assert (after.samples, after.summaries) == (before.samples, before.summaries)


def test_is_paced_follows_the_kernel_capability() -> None:
    assert is_paced(WHY, "", {})
    assert is_paced(WHY, "LAB_HAS_TICK", {"LAB_HAS_TICK": True})
    assert not is_paced(WHY, "LAB_HAS_TICK", {"LAB_HAS_TICK": False})
    assert not is_paced("", "", {"LAB_HAS_TICK": True})


def test_the_tick_and_timer_driven_benchmarks_are_declared_paced() -> None:
    """Every benchmark whose intervals hold ticks or timer interrupts says so; those
    measured inside one interrupt's processing, or with no timer running, do not."""
    b = CATALOG.benchmarks
    paced = {n for n, x in b.items() if x.paced}
    assert {"toggle_rtos", "toggle_superloop", "k_irq_latency_loaded", "k_delay",
            "a_lock_irq", "a_lock_mutex", "a_lock_none", "a_lock_pools", "a_lock_sched"} <= paced
    tp = {n for n in b if n.startswith("tp_")}
    assert tp and tp <= paced
    assert all(b[n].paced_when == "LAB_HAS_TICK" for n in tp)
    # no timer (toggle_fsm), one tick's processing (k_tick), an idle trigger (k_irq_latency)
    assert not paced & {"toggle_fsm", "k_tick", "k_irq_latency", "k_yield", "loop"}
    caps = {k: CATALOG.kernels[k].capabilities for k in ("freertos", "baremetal")}
    tp_basic = b["tp_basic"]
    assert is_paced(tp_basic.paced, tp_basic.paced_when, caps["freertos"])
    assert not is_paced(tp_basic.paced, tp_basic.paced_when, caps["baremetal"]), "no tick, no pacing"


@pytest.mark.parametrize(("doc", "message"), [
    ({"paced_when": "LAB_HAS_TICK"}, r"key 'paced_when' is set but 'paced' is not"),
    ({"paced": WHY, "paced_when": "LAB_HAS_WARP"},
     r"key 'paced_when' is 'LAB_HAS_WARP': choose capabilities"),
])
def test_paced_declaration_errors_are_one_line(tmp_path: Path, doc: dict[str, str], message: str) -> None:
    folder = tmp_path / "bench" / "x_paced"
    folder.mkdir(parents=True)
    lines = ['suite = ["smoke"]', 'description = "d"'] + [f'{k} = "{v}"' for k, v in doc.items()]
    (folder / "bench.toml").write_text("\n".join(lines) + "\n")
    with pytest.raises(RtoslabError, match=message) as err:
        _ = Catalog().with_paths(bench=[tmp_path / "bench"]).benchmarks
    assert "\n" not in str(err.value)


def test_bench_file_parses_paced_keys() -> None:
    d = parse(BenchFile, {"suite": ["s"], "description": "d", "paced": WHY, "paced_when": "LAB_HAS_TICK"},
              "bench.toml")
    assert (d.paced, d.paced_when) == (WHY, "LAB_HAS_TICK")
    with pytest.raises(RtoslabError, match=r"^bench.toml: key 'paced' .*string"):
        parse(BenchFile, {"suite": ["s"], "description": "d", "paced": True}, "bench.toml")


IDENTITY: dict[str, object] = {
    "identity_hash": "cafe02", "target": "mps2-an385", "core": "cortex-m3", "kernel": "freertos",
    "kernel_config": {}, "kernel_config_hash": "kc01", "compiler": "gcc", "compiler_version": "12",
    "cflags": "-O2", "ldflags": "", "timing": {},
}


def test_paced_round_trips_through_the_store_and_every_report(tmp_path: Path) -> None:
    metrics = [*apply_paced([_metric("total", TimeBase.MODELLED)], WHY), _metric("other", TimeBase.MODELLED)]
    with open_store(tmp_path / "r.sqlite") as store:
        run_id = store.begin_run("c", "r", "h", {})
        store.add_bench_result(run_id, store.upsert_config(IDENTITY), "src",
                               BenchResult("toggle_rtos", "ok", None, metrics=tuple(metrics)))
        store.finish_run(run_id, "complete")
        view = store.load_run(run_id)
    bases = {m.name: (m.time_base, m.time_note) for m in view.results[0].metrics}
    assert bases == {"total": (TimeBase.PACED, WHY), "other": (TimeBase.MODELLED, "")}
    doc = json.loads(json.dumps(run_document(view)))
    assert "instruction clock" in doc["time_bases"]["paced"]
    entries = {(e["metric"], e["unit"]): e for e in doc["results"]}
    assert entries[("total", "us")]["time_base"] == "paced"
    assert entries[("other", "us")]["time_base"] == "modelled"
    lines = time_base_lines(run_rows(view))
    assert lines[0].startswith("toggle_rtos/total: paced: paced by QEMU's instruction clock")
    assert lines[0].endswith(WHY)
    assert lines[-1].startswith("every other metric: modelled")
    for text in (MarkdownRenderer().render(view), TerminalRenderer(width=400).render(view)):
        assert "toggle_rtos/total: paced" in text
    # comparison tables still have its cycle and us figures (labelled by the footer)
    table = build_table([(run_id, view.results[0])], unit=Unit.CYCLE)
    assert table.rows


def test_the_one_clock_hands_the_plugin_the_machine_rate_and_paces_nothing() -> None:
    """On the one clock the plugin gets time_hz (the machine's CPU clock, target.toml
    clock_hz: QEMU's SysTick counts modelled cycles at any configured clock); on
    instruction time it gets none, and the host's own settings never reach it."""
    from rtoslab.builder.config import BuildConfig
    from rtoslab.pipeline import plugin_model

    one = BuildConfig(catalog=CATALOG, target="netduinoplus2", timing=(("clock_hz", 84_000_000),))
    model = plugin_model(one.timing_settings(), one.target_info())
    assert model["time_hz"] == 168_000_000 and "clock_hz" not in model and "time" not in model
    old = BuildConfig(catalog=CATALOG, timing=(("time", "instruction"),))
    assert "time_hz" not in plugin_model(old.timing_settings(), old.target_info())
