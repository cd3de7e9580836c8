"""Shards and merge (issue 27, item 2): `run --shard I/N` on two "machines" (databases),
`rtoslab merge` of the two, and the merged store against one run of the whole plan: the
same samples, tables, JSON results and reports. Bad shard specs and bad merges: one line,
exit 2, nothing written."""

from __future__ import annotations

import json
import re
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from .conftest import REPO, RunCli

pytestmark = pytest.mark.qemu

EXPERIMENT = REPO / "examples" / "smoke-sweep.toml"  # 6 configurations x the smoke suite


@pytest.fixture(scope="module")
def stores(run_cli: RunCli, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("shards")
    out = {name: root / name / "r.sqlite" for name in ("whole", "a", "b")}
    proc = run_cli("run", str(EXPERIMENT), "-j", "2", "--db", str(out["whole"]))
    assert proc.returncode == 0, proc.stderr
    for i, name in ((1, "a"), (2, "b")):
        proc = run_cli("run", str(EXPERIMENT), "--shard", f"{i}/2", "-j", "2", "--db", str(out[name]))
        assert proc.returncode == 0, proc.stderr
        assert f"shard {i}/2" in proc.stderr
    out["merged"] = root / "merged" / "all.sqlite"
    out["merged"].parent.mkdir()
    proc = run_cli("merge", str(out["a"]), str(out["b"]), "-o", str(out["merged"]))
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("run 1: 24 result(s) of 2 run(s)"), proc.stdout
    return out


def _configs(db: Path) -> list[str]:
    con = sqlite3.connect(db)
    try:
        return [r[0] for r in con.execute("SELECT DISTINCT c.hash FROM bench_runs b JOIN configs c "
                                          "ON c.id = b.config_id ORDER BY b.id")]
    finally:
        con.close()


def test_shards_split_the_plan_by_configuration(stores: dict[str, Path]) -> None:
    a, b = set(_configs(stores["a"])), set(_configs(stores["b"]))
    assert len(a) == len(b) == 3 and not a & b  # balanced: equal costs, 3 + 3
    assert a | b == set(_configs(stores["whole"]))
    assert _configs(stores["merged"]) == _configs(stores["whole"])  # the plan's order


def test_merged_store_equals_the_whole_run(stores: dict[str, Path], run_cli: RunCli) -> None:
    same = subprocess.run([sys.executable, str(REPO / "scripts" / "same_samples.py"), str(stores["whole"]),
                           "1", str(stores["merged"]), "1"], capture_output=True, text=True, check=False)
    assert same.returncode == 0 and "24 identical, 0 different" in same.stdout, same.stdout
    shown = {}
    for name in ("whole", "merged"):
        text = run_cli("show", "1", "--wide", "--db", str(stores[name]), env={"COLUMNS": "200"})
        assert text.returncode == 0, text.stderr
        doc = json.loads(run_cli("show", "1", "--json", "--db", str(stores[name])).stdout)
        md = run_cli("show", "1", "--format", "markdown", "--db", str(stores[name])).stdout
        shown[name] = (_tables(text.stdout), [_result(r) for r in doc["results"]], _tables(md),
                       sqlite3.connect(stores[name]).execute("SELECT experiment FROM runs").fetchone())
    assert shown["merged"] == shown["whole"]
    assert "-O0 no-lto / -O2" in shown["merged"][0]  # the experiment's baseline (its report spec) is kept


def _tables(text: str) -> str:
    """The report without what names the run itself: the terminal's header (up to the
    first blank line), the Markdown header's started/finished/revision/host/command/tools."""
    lines = text.splitlines()
    if not text.startswith("# "):
        lines = lines[lines.index(""):]
    keep = [ln for ln in lines
            if not re.match(r"- (started|finished|revision|host|command|tools): ", ln)]
    return "\n".join(keep)


def _result(row: dict) -> dict:
    return {k: v for k, v in row.items() if k not in ("wall_s",)}


@pytest.mark.parametrize("spec", ["3/2", "0/4", "a/b", "2"])
def test_bad_shard_spec_is_one_line_and_writes_nothing(spec: str, run_cli: RunCli, tmp_path: Path) -> None:
    db = tmp_path / "r.sqlite"
    proc = run_cli("run", str(EXPERIMENT), "--shard", spec, "--db", str(db))
    assert proc.returncode == 2
    assert proc.stderr.strip().splitlines() == [
        f"rtoslab: error: bad --shard '{spec}': write I/N with 1 <= I <= N, e.g. --shard 1/4 ... "
        "--shard 4/4 for four shards"]
    assert not db.exists()


def test_more_shards_than_configurations(run_cli: RunCli, tmp_path: Path) -> None:
    db = tmp_path / "r.sqlite"
    proc = run_cli("run", str(EXPERIMENT), "--shard", "7/7", "--db", str(db))
    assert proc.returncode == 2 and "splits into at most 6 shards" in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1 and not db.exists()


def test_conflicting_results_are_refused(stores: dict[str, Path], run_cli: RunCli, tmp_path: Path) -> None:
    changed = tmp_path / "changed.sqlite"
    shutil.copyfile(stores["a"], changed)
    con = sqlite3.connect(changed)
    con.execute("UPDATE samples SET insns = insns + 1 WHERE seq = 0 AND metric_id = "
                "(SELECT MIN(metric_id) FROM samples)")
    con.commit()
    con.close()
    out = tmp_path / "all.sqlite"
    proc = run_cli("merge", str(stores["a"]), str(changed), "-o", str(out))
    assert proc.returncode == 2 and len(proc.stderr.strip().splitlines()) == 1, proc.stderr
    assert "differs between" in proc.stderr and not out.exists()
    # no temporary file left either (reading a WAL database leaves SQLite's -wal/-shm beside it)
    assert {p.name for p in tmp_path.iterdir()} <= {"changed.sqlite", "changed.sqlite-wal",
                                                    "changed.sqlite-shm"}
    # the same shard twice holds the same measurements: kept once
    proc = run_cli("merge", str(stores["a"]), str(stores["b"]), str(_copy(stores["a"], tmp_path)),
                   "-o", str(out))
    assert proc.returncode == 0 and "24 result(s) of 3 run(s)" in proc.stdout, proc.stderr


def _copy(src: Path, folder: Path) -> Path:
    dst = folder / "again.sqlite"
    shutil.copyfile(src, dst)
    return dst


def test_other_schema_version_is_refused(stores: dict[str, Path], run_cli: RunCli, tmp_path: Path) -> None:
    other = tmp_path / "other.sqlite"
    shutil.copyfile(stores["b"], other)
    con = sqlite3.connect(other)
    con.execute("DELETE FROM schema_version WHERE version = (SELECT MAX(version) FROM schema_version)")
    con.commit()
    con.close()
    out = tmp_path / "all.sqlite"
    proc = run_cli("merge", str(stores["a"]), str(other), "-o", str(out))
    assert proc.returncode == 2 and len(proc.stderr.strip().splitlines()) == 1, proc.stderr
    assert "has schema v" in proc.stderr and not out.exists()
