"""Measuring your own code (issue 12), end to end in temporary folders outside the
checkout, with the real CLI, compiler, QEMU and plugin:

- docs/own-code.md followed step by step (every `$ rtoslab` line and its Python block);
- the Python API returns the same numbers as the CLI for the same run;
- scaffolded ports and targets build and run as made;
- sources a benchmark pulls in through bench.cmake are part of its source hash.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
DOC = REPO / "docs" / "own-code.md"

pytestmark = pytest.mark.qemu


def _env(project: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("RTOSLAB_DB", "RTOSLAB_ROOT")}
    env["RTOSLAB_CACHE"] = str(project / ".cache")
    return env


def _rtoslab(project: Path, *args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "rtoslab.cli.main", *args], cwd=cwd or project,
                          env=_env(project), capture_output=True, text=True, timeout=600, check=False)


def _doc_steps() -> list[tuple[str, str]]:
    """The page's steps in order: ("sh", a `$ rtoslab ...` line) or ("python", a block)."""
    steps: list[tuple[str, str]] = []
    for lang, body in re.findall(r"```(sh|python)\n(.*?)```", DOC.read_text(), flags=re.DOTALL):
        if lang == "python":
            steps.append(("python", body))
        else:
            steps += [("sh", line[2:].strip()) for line in body.splitlines() if line.startswith("$ ")]
    return steps


def test_own_code_doc_works_step_by_step(tmp_path: Path) -> None:
    project = tmp_path / "myproject"
    project.mkdir()
    assert not project.resolve().is_relative_to(REPO)
    steps = _doc_steps()
    assert [s for k, s in steps if k == "sh"] == [
        "rtoslab new bench myfn", "rtoslab run --bench myfn", "rtoslab show latest --console myfn",
        "rtoslab export latest --what json -o myfn.json", "rtoslab run --bench myfn --cflags -Os",
        "rtoslab compare latest~1 latest --unit cycle"]
    outputs: dict[str, subprocess.CompletedProcess[str]] = {}
    for kind, step in steps:
        if kind == "sh":
            words = shlex.split(step)
            assert words[0] == "rtoslab"
            proc = _rtoslab(project, *words[1:])
        else:
            proc = subprocess.run([sys.executable, "-c", step], cwd=project, env=_env(project),
                                  capture_output=True, text=True, timeout=600, check=False)
        assert proc.returncode == 0, f"{step}: {proc.stderr[-2000:]}"
        if kind == "sh":
            outputs[step] = proc
        else:  # python0, python1, ...: the page's Python blocks in order
            outputs[f"python{sum(k.startswith('python') for k in outputs)}"] = proc

    # 1. the scaffold: a project file and a benchmark folder
    assert (project / "rtoslab.toml").is_file()
    assert sorted(p.name for p in (project / "bench" / "myfn").iterdir()) == ["bench.toml", "myfn.c"]
    # 2. the run: work, window (a declared total: no warning) and the derived rate
    db = project / "rtoslab-results" / "results.sqlite"
    with sqlite3.connect(db) as conn:
        rows = conn.execute(
            "SELECT m.name, s.unit, s.n, s.median, s.warnings FROM summaries s JOIN metrics m "
            "ON m.id = s.metric_id JOIN bench_runs b ON b.id = m.bench_run_id WHERE b.run_id = 1"
        ).fetchall()
    got = {(name, unit): (n, median, warnings) for name, unit, n, median, warnings in rows}
    assert got[("work", "insn")][0] == 100
    assert got[("window", "insn")][0] == 1 and got[("window", "insn")][2] == "[]"
    window_insn, window_cycles = got[("window", "insn")][1], got[("window", "cycle")][1]
    assert got[("per_call", "insn/op")][1] == pytest.approx(window_insn / 100)
    assert got[("per_call", "cycle/op")][1] == pytest.approx(window_cycles / 100)
    assert got[("per_call", "op/s")][1] == pytest.approx(100 * 25e6 / window_cycles)
    # the loop around each call costs something: per call > the call alone
    assert got[("per_call", "insn/op")][1] > got[("work", "insn")][1] > 0
    # 3. console and export
    assert "LAB-KV calls=100" in outputs["rtoslab show latest --console myfn"].stdout
    doc = json.loads((project / "myfn.json").read_text())
    assert "LAB-KV calls=100" in doc["results"][0]["console"]
    # 4. the comparison names what differs
    assert "-Os" in outputs["rtoslab compare latest~1 latest --unit cycle"].stdout
    # 5. Python: the API's run (run 3) measured what the CLI's first run did, bit for bit
    assert "cycles per call: " in outputs["python0"].stdout
    api_says = float(outputs["python0"].stdout.split("cycles per call: ")[1].split()[0])
    assert api_says == got[("per_call", "cycle/op")][1]
    # 6. Python: a catalog of the project's folders, passed on explicitly
    assert "['myfn'] ('-Os',)" in outputs["python1"].stdout


API_VS_CLI = """
import json, sys
import rtoslab
with rtoslab.open_results(sys.argv[1]) as res:
    recs = res.records("latest")
    frame = res.to_dataframe("latest")
    path = res.to_parquet("latest", sys.argv[2])
print(json.dumps({"records": recs, "frame_rows": len(frame), "frame_medians": list(frame["median"]),
                  "frame_opt": list(frame["axis:opt"]), "parquet": str(path)}))
"""


def test_api_reads_the_same_numbers_the_cli_prints(tmp_path: Path) -> None:
    project = tmp_path / "p"
    project.mkdir()
    db = str(project / "r.sqlite")
    proc = _rtoslab(project, "run", "--bench", "call", "--bench", "loop", "--json", "--db", db)
    assert proc.returncode == 0, proc.stderr[-2000:]
    cli = json.loads(proc.stdout)["results"]
    api = subprocess.run([sys.executable, "-c", API_VS_CLI, db, str(project / "r.parquet")], cwd=project,
                         env=_env(project), capture_output=True, text=True, timeout=120, check=False)
    assert api.returncode == 0, api.stderr[-2000:]
    out = json.loads(api.stdout)
    records = out["records"]
    assert [(r["benchmark"], r["metric"], r["unit"]) for r in records] == \
        [(e["benchmark"], e["metric"], e["unit"]) for e in cli]
    for r, e in zip(records, cli, strict=True):
        for key in ("n", "min", "max", "median", "mean", "p90", "p99"):
            assert r[key] == pytest.approx(e[key], rel=0, abs=0), (r["metric"], key)
    assert out["frame_rows"] == len(records)
    assert out["frame_medians"] == [r["median"] for r in records]
    # each row carries its configuration's axes, as the CLI's JSON does (issue 28)
    assert [r["axes"] for r in records] == [e["axes"] for e in cli]
    assert set(out["frame_opt"]) == {cli[0]["axes"]["opt"]}
    assert Path(out["parquet"]).stat().st_size > 0


def test_scaffolded_port_and_target_build_and_run_as_made(tmp_path: Path) -> None:
    project = tmp_path / "kernelwork"
    project.mkdir()
    for kind, name in (("port", "mykernel"), ("target", "myboard")):
        proc = _rtoslab(project, "new", kind, name)
        assert proc.returncode == 0, proc.stderr
    assert (project / "ports" / "mykernel" / "port_mykernel.c").is_file()
    assert "template = true" not in (project / "ports" / "mykernel" / "port.toml").read_text()
    proc = _rtoslab(project, "run", "--kernel", "mykernel", "--target", "myboard", "--bench", "call",
                    "--bench", "k_yield", "--json")
    assert proc.returncode == 0, proc.stderr[-2000:]
    results = {r["benchmark"]: r for r in json.loads(proc.stdout)["results"]}
    assert results["call"]["status"] == "ok" and results["call"]["target"] == "myboard"
    assert results["call"]["kernel"] == "mykernel"
    assert results["k_yield"]["status"] == "n/a"
    assert "kernel mykernel lacks LAB_HAS_SCHEDULER=0" in results["k_yield"]["reason"]
    # the same folders through --port-path / --target-path, from outside the project
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    proc = _rtoslab(project, "run", "--port-path", str(project / "ports"), "--target-path",
                    str(project / "targets" / "myboard"), "--kernel", "mykernel", "--target", "myboard",
                    "--bench", "call", "--db", str(elsewhere / "r.sqlite"), cwd=elsewhere)
    assert proc.returncode == 0, proc.stderr[-2000:]
    # an unknown benchmark names where rtoslab looked
    (project / "bench").mkdir()
    proc = _rtoslab(project, "run", "--bench", "nope")
    assert proc.returncode == 2
    assert f"looked in {REPO / 'firmware' / 'bench'}, {project.resolve() / 'bench'}" in proc.stderr


def _source_hash(db: Path, run_id: int) -> str:
    with sqlite3.connect(db) as conn:
        (value,) = conn.execute("SELECT source_hash FROM bench_runs WHERE run_id = ?", (run_id,)).fetchone()
    return str(value)


def test_bench_cmake_sources_outside_the_checkout_are_part_of_the_identity(tmp_path: Path) -> None:
    project = tmp_path / "ext"
    project.mkdir()
    assert _rtoslab(project, "new", "bench", "extsrc").returncode == 0
    lib = project / "lib"
    lib.mkdir()
    (lib / "ext_value.c").write_text("#include <stdint.h>\nuint32_t ext_value(void) { return 7u; }\n")
    bench = project / "bench" / "extsrc"
    (bench / "bench.cmake").write_text(
        "set(LAB_BENCH_SOURCES ${CMAKE_CURRENT_LIST_DIR}/../../lib/ext_value.c)\n")
    (bench / "use_ext.c").write_text(
        '#include <stdint.h>\n#include "lab/bench.h"\nuint32_t ext_value(void);\n'
        "uint32_t extsrc_ext(void);\nuint32_t extsrc_ext(void) { return ext_value(); }\n")
    db = project / "r.sqlite"
    assert _rtoslab(project, "run", "--bench", "extsrc", "--db", str(db)).returncode == 0
    assert _rtoslab(project, "run", "--bench", "extsrc", "--db", str(db)).returncode == 0
    assert _source_hash(db, 1) == _source_hash(db, 2)  # nothing changed: same identity
    (lib / "ext_value.c").write_text("#include <stdint.h>\nuint32_t ext_value(void) { return 8u; }\n")
    proc = _rtoslab(project, "run", "--bench", "extsrc", "--db", str(db))
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert _source_hash(db, 3) != _source_hash(db, 1)
