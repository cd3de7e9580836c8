"""Kernel projects' CI (issue 31), end to end: the `rtoslab` commands of docs/ci.md's GitHub
Actions and GitLab CI recipes, run as written (only `--suite kernel` is narrowed to two
benchmarks, to keep the test lean), on temporary git copies of the pinned FreeRTOS kernel:

- identical trees: every delta exactly zero (the samples themselves are equal), exit 0;
- a loop of work added to the context-switch path (vTaskSwitchContext): the gate trips
  (exit 1), the summary names the affected metrics first, JUnit marks them failed;
- a change outside what is measured (timers.c, compiled out by configUSE_TIMERS = 0): zero
  deltas, exit 0 (the GitLab recipe: the base tree measured in the same job);
- history and the published site: the regression is marked, in headless Chromium.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import sqlite3
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from rtoslab.builder.deps import dep_path

from .conftest import chromium_path

REPO = Path(__file__).resolve().parents[2]
DOC = REPO / "docs" / "ci.md"
BENCHES = ("--bench", "k_yield", "--bench", "k_sem")

pytestmark = pytest.mark.qemu


def _recipe_commands() -> dict[str, list[str]]:
    """The rtoslab command lines of the doc's two YAML recipes, by recipe and subcommand."""
    out: dict[str, list[str]] = {}
    blocks = re.findall(r"```yaml\n(.*?)```", DOC.read_text(), flags=re.DOTALL)
    assert len(blocks) == 2, "docs/ci.md should hold the GitHub and the GitLab recipe"
    for name, block in zip(("github", "gitlab"), blocks, strict=True):
        for line in block.splitlines():
            text = line.strip().removeprefix("- ").strip()
            if text.startswith("rtoslab "):
                out[f"{name} {text.split()[1]}"] = shlex.split(text)
    return out


COMMANDS = _recipe_commands()


def test_recipes_hold_the_commands_this_test_runs() -> None:
    assert sorted(COMMANDS) == ["github ci", "github publish", "github run", "gitlab ci",
                                "gitlab publish", "gitlab run"]
    for key in ("github ci", "gitlab ci"):
        assert "--junit" in COMMANDS[key] and "--summary" in COMMANDS[key]
    assert "--baseline-db" in COMMANDS["github ci"] and "--baseline-source" in COMMANDS["gitlab ci"]


def _rtoslab(words: list[str], cwd: Path, env: dict[str, str] | None = None
             ) -> subprocess.CompletedProcess[str]:
    """A recipe's command, `--suite kernel` narrowed to BENCHES, run in ``cwd``."""
    args = list(words[1:])
    i = args.index("--suite") if "--suite" in args else -1
    if i >= 0:
        assert args[i + 1] == "kernel"
        args[i:i + 2] = BENCHES
    full = {k: v for k, v in os.environ.items() if k not in ("RTOSLAB_DB", "GITHUB_STEP_SUMMARY")}
    full.update(env or {})
    return subprocess.run([sys.executable, "-m", "rtoslab.cli.main", *args], cwd=cwd, env=full,
                          capture_output=True, text=True, timeout=900, check=False)


def _git(cwd: Path, *args: str, date: str = "2026-01-01T00:00:00+00:00") -> None:
    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.org",
           "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.org",
           "GIT_AUTHOR_DATE": date, "GIT_COMMITTER_DATE": date}
    subprocess.run(["git", "-C", str(cwd), *args], env=env, check=True, capture_output=True)


def _insert_after(path: Path, anchor: str, text: str) -> None:
    src = path.read_text()
    assert src.count(anchor) >= 1, f"{anchor!r} not in {path}"
    i = src.index(anchor) + len(anchor)
    path.write_text(src[:i] + text + src[i:])


class Lab:
    def __init__(self, root: Path) -> None:
        self.root = root
        self.base = root / "trees" / "base"
        self.history = root / "history-main.sqlite"

    def tree(self, name: str, edit: tuple[str, str, str] | None = None, date: str = "") -> Path:
        """A clone of the base tree, with one edit (file, anchor, inserted text) committed."""
        path = self.root / "trees" / name
        subprocess.run(["git", "clone", "-q", str(self.base), str(path)], check=True)
        if edit is not None:
            _insert_after(path / edit[0], edit[1], edit[2])
            _git(path, "commit", "-qam", f"{name}", date=date)
        return path

    def workspace(self, name: str, kernel: Path) -> Path:
        """A CI job's folder: the kernel checked out as `kernel`, main's history restored."""
        ws = self.root / name
        ws.mkdir()
        shutil.copytree(kernel, ws / "kernel", symlinks=True)
        shutil.copy(self.history, ws / "history.sqlite")
        return ws


@pytest.fixture(scope="module")
def lab(tmp_path_factory: pytest.TempPathFactory) -> Lab:
    """The pinned kernel copied into a git repository (commit "base"), and main's history
    database: the GitHub recipe's push job run on it."""
    lab = Lab(tmp_path_factory.mktemp("ci"))
    shutil.copytree(dep_path("freertos-next") / "FreeRTOS-Kernel", lab.base)
    _git(lab.base, "init", "-q")
    _git(lab.base, "add", "-A")
    _git(lab.base, "commit", "-qm", "base")
    main = lab.root / "main-job"
    main.mkdir()
    shutil.copytree(lab.base, main / "kernel", symlinks=True)
    proc = _rtoslab(COMMANDS["github run"], main)
    assert proc.returncode == 0, proc.stderr[-3000:]
    shutil.copy(main / "history.sqlite", lab.history)
    return lab


def _junit(path: Path) -> dict[str, str]:
    """test case "class/name" -> "failed" or its system-out text."""
    root = ET.parse(path).getroot()
    out = {}
    for case in root.iter("testcase"):
        key = f"{case.get('classname')}/{case.get('name')}"
        failure = case.find("failure")
        out[key] = "failed" if failure is not None else (case.findtext("system-out") or "")
    return out


def _samples(db: Path) -> dict[tuple[str, str], list[int]]:
    """(benchmark, metric) -> cycles of every sample, of the database's latest run."""
    with sqlite3.connect(db) as conn:
        rows = conn.execute(
            "SELECT b.benchmark, m.name, s.cycles FROM samples s JOIN metrics m ON m.id = s.metric_id "
            "JOIN bench_runs b ON b.id = m.bench_run_id WHERE b.run_id = (SELECT max(id) FROM runs) "
            "ORDER BY b.benchmark, m.name, s.seq").fetchall()
    out: dict[tuple[str, str], list[int]] = {}
    for bench, metric, cycles in rows:
        out.setdefault((bench, metric), []).append(cycles)
    return out


def test_identical_trees_give_zero_deltas_and_pass(lab: Lab) -> None:
    same = lab.root / "trees" / "same"
    shutil.copytree(lab.base, same, symlinks=True)  # another copy, same commit
    ws = lab.workspace("pr-same", same)
    step = ws / "step-summary.md"
    proc = _rtoslab(COMMANDS["github ci"], ws, {"GITHUB_STEP_SUMMARY": str(step)})
    assert proc.returncode == 0, proc.stderr[-3000:]
    summary = (ws / "summary.md").read_text()
    assert summary.startswith("### rtoslab: pass: all 4 metrics unchanged")
    assert step.read_text().strip() == summary.strip()  # also on the job's page
    assert "| **REGRESSED**" not in summary and "4 metrics unchanged (delta exactly 0 cycles)" in summary
    cases = _junit(ws / "junit.xml")
    assert len(cases) == 4 and all(v.startswith("unchanged: ") and ", 0 (0.000 %)" in v
                                   for v in cases.values()), cases
    # Not only the medians: every sample is the same, cycle for cycle.
    assert _samples(ws / "pr.sqlite") == _samples(lab.history)


def test_regression_in_the_context_switch_trips_the_gate(lab: Lab) -> None:
    slow = lab.tree("slow-switch", ("tasks.c", "        traceENTER_vTaskSwitchContext();\n",
                                    "        { volatile uint32_t ulLabWork; for( ulLabWork = 0; "
                                    "ulLabWork < 8U; ulLabWork++ ) { } }\n"),
                    date="2026-01-02T00:00:00+00:00")
    ws = lab.workspace("pr-slow", slow)
    proc = _rtoslab(COMMANDS["github ci"], ws)
    assert proc.returncode == 1, proc.stderr[-3000:]
    summary = (ws / "summary.md").read_text()
    assert summary.startswith("### rtoslab: FAIL: ")
    rows = [line for line in summary.splitlines() if line.startswith("| ") and "|---" not in line]
    table = [r.split(" | ") for r in rows if r.startswith(("| **", "| changed", "| improved"))]
    regressed = [(cells[1], cells[2]) for cells in table if cells[0] == "| **REGRESSED**"]
    # The changed metrics come first, and the ones failing the gate first of all.
    assert table and table[0][0] == "| **REGRESSED**"
    assert ("k_yield", "yield_switch") in regressed
    assert summary.index("REGRESSED") < summary.index("unchanged metrics")
    for cells in table:
        if cells[0] == "| **REGRESSED**":
            base, change, delta = float(cells[3]), float(cells[4]), cells[5]
            assert change > base and delta == f"+{change - base:g}"
    cases = _junit(ws / "junit.xml")
    failed = sorted(k for k, v in cases.items() if v == "failed")
    assert failed == sorted(f"rtoslab.{b}/{m}" for b, m in regressed)
    assert proc.stderr.strip().splitlines()[-1].startswith("rtoslab: FAIL:")


def test_change_outside_the_measured_code_gives_zero_deltas(lab: Lab) -> None:
    """The GitLab recipe: the merge request's tree and its base, both measured in the job."""
    timers = lab.tree("timers-only", ("timers.c", "#if ( configUSE_TIMERS == 1 )\n",
                                      "    static volatile uint32_t ulLabUnusedCounter = 0U;\n"),
                      date="2026-01-03T00:00:00+00:00")
    job = lab.root / "mr-job"
    job.mkdir()
    shutil.copytree(timers, job / "project", symlinks=True)
    shutil.copytree(lab.base, job / "base", symlinks=True)
    proc = _rtoslab(COMMANDS["gitlab ci"], job / "project")
    assert proc.returncode == 0, proc.stderr[-3000:]
    summary = (job / "project" / "summary.md").read_text()
    assert summary.startswith("### rtoslab: pass: all 4 metrics unchanged"), summary
    commits = re.findall(r"V11\.2\.0 at ([0-9a-f]{12})", summary)
    assert len(set(commits)) == 2  # the two trees are told apart by commit
    assert all(v != "failed" for v in _junit(job / "project" / "junit.xml").values())


def test_history_and_published_site_mark_the_regression(lab: Lab) -> None:
    """main's history gains the slow commit (the push job again), `history` and the site
    show the step up as a regression; the site renders offline in headless Chromium."""
    slow = lab.tree("slow-merged", ("tasks.c", "        traceENTER_vTaskSwitchContext();\n",
                                    "        { volatile uint32_t ulLabWork; for( ulLabWork = 0; "
                                    "ulLabWork < 8U; ulLabWork++ ) { } }\n"),
                    date="2026-01-04T00:00:00+00:00")
    ws = lab.workspace("main-after", slow)
    assert _rtoslab(COMMANDS["github run"], ws).returncode == 0
    hist = _rtoslab(["rtoslab", "history", "yield_switch", "--db", "history.sqlite"], ws)
    assert hist.returncode == 0, hist.stderr
    lines = [ln for ln in hist.stdout.splitlines() if re.match(r"\s*\d+\s", ln)]
    assert len(lines) == 2 and "REGRESSION" not in lines[0] and "REGRESSION (> 0 %)" in lines[1]
    bad = _rtoslab(["rtoslab", "history", "no_such_metric", "--db", "history.sqlite"], ws)
    assert bad.returncode == 2 and "metric 'no_such_metric' is in no run" in bad.stderr

    proc = _rtoslab(COMMANDS["github publish"], ws)
    assert proc.returncode == 0, proc.stderr
    site = ws / "site"
    pages = sorted(p.relative_to(site).as_posix() for p in site.rglob("*.html"))
    assert pages == ["bench-k_sem.html", "bench-k_yield.html", "index.html", "runs/run-1.html",
                     "runs/run-2.html"]
    for page in site.rglob("*.html"):
        text = page.read_text()
        assert "<script" not in text and not re.search(r'(src|href)="(https?:)?//', text), page
        for link in re.findall(r'href="([^"#]+)"', text):
            assert (page.parent / link).is_file(), f"{page}: broken link {link}"

    chromium = chromium_path()
    dump = subprocess.run([chromium, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
                           "--disable-background-networking", "--disable-component-update",
                           f"--user-data-dir={lab.root / 'profile'}", "--dump-dom",
                           (site / "bench-k_yield.html").as_uri()],
                          capture_output=True, text=True, timeout=120, check=False)
    assert dump.returncode == 0, dump.stderr[-2000:]
    dom = dump.stdout
    assert "<h1>k_yield: history</h1>" in dom
    assert len(re.findall(r'<svg\b[^>]*class="line"', dom)) == 1
    marks = re.findall(r'<circle class="mark"[^>]*><title>([^<]*)</title>', dom)
    assert len(marks) == 1 and marks[0].startswith("regression at run 2")
    assert dom.count('class="regressed"') == 1
