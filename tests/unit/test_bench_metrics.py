"""rtoslab.bench_metrics: the metric names a benchmark declares, read from its sources."""

from __future__ import annotations

from pathlib import Path

from rtoslab.bench_metrics import declared_metrics
from rtoslab.catalog import Catalog

CATALOG = Catalog()  # the checkout's folders alone


def make_bench(root: Path, name: str, files: dict[str, str]) -> None:
    folder = root / name
    folder.mkdir(parents=True)
    (folder / "bench.toml").write_text('suite = ["mine"]\ndescription = "x"\n')
    for rel, text in files.items():
        (folder / rel).parent.mkdir(parents=True, exist_ok=True)
        (folder / rel).write_text(text)


def test_names_sure_and_open(tmp_path: Path) -> None:
    make_bench(tmp_path, "mb_plain", {
        "a.c": 'LAB_INTERVAL(top, 2, 3, "d");\nLAB_PERIOD_VIRTUAL(per, 4, "d");\n',
        "m.h": '#define MENU \\\n    LAB_INTERVAL(in_macro, 2, 3, "d"); \\\n'
               '    LAB_SINCE(also_macro, 4, 5, "d")\n',
        "rust/rtic/src/lib.rs": 'lab::meta!(MetaRec::interval("rs_one", 2, 3, "d"));\n'})
    make_bench(tmp_path, "mb_paste", {"a.c": '#define M(k) LAB_INTERVAL(wait_t##k, 2, 3, "d")\n'})
    found = Catalog().with_paths([tmp_path]).benchmarks
    plain = declared_metrics(found["mb_plain"])
    assert plain.names == {"top", "per", "in_macro", "also_macro", "rs_one"}
    assert plain.sure == {"top", "per", "rs_one"} and not plain.open
    assert plain.may_have("top") and not plain.may_have("nothing")
    paste = declared_metrics(found["mb_paste"])
    assert paste.open and "wait_t##k" in paste.why and paste.may_have("wait_t3")


def test_a_workload_named_by_bench_cmake_is_read() -> None:
    toggle = declared_metrics(CATALOG.benchmarks["toggle_rtos"])  # its metrics live in workloads/toggle
    assert {"total", "spread", "start_1"} <= toggle.sure
    assert declared_metrics(CATALOG.benchmarks["k_yield"]).names == {"yield_self", "yield_switch"}
