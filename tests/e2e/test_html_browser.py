"""The HTML report in a real browser: headless Chromium loads it, dumps the DOM and a screenshot.

Needs ``chromium`` on PATH (Debian package ``chromium``). Without it the test is skipped,
unless ``CI`` is set: there a missing browser is a failure. Set
``RTOSLAB_BROWSER_ARTIFACTS=DIR`` to keep the page, the screenshot and the browser log.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from rtoslab.report.html import render_html
from rtoslab.store import open_store
from tests.unit.test_report_html import (
    EXPECTED_BOXPLOTS,
    EXPECTED_HISTOGRAMS,
    EXPECTED_RATIO_CHARTS,
    build_html_run,
)

pytestmark = pytest.mark.browser

_TIMEOUT_S = 120
_FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--enable-logging=stderr",
    "--v=0",
)


def _chromium() -> str:
    path = shutil.which("chromium")
    if path is None:
        message = "chromium is not on PATH: install the Debian package `chromium` (make setup)"
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)
    return path


def _run(chromium: str, profile: Path, *args: str) -> subprocess.CompletedProcess[str]:
    proc = subprocess.run(
        [chromium, *_FLAGS, f"--user-data-dir={profile}", *args],
        capture_output=True,
        text=True,
        timeout=_TIMEOUT_S,
        check=False,
    )
    assert proc.returncode == 0, f"chromium exited {proc.returncode}:\n{proc.stderr[-3000:]}"
    return proc


def _console_problems(log: str) -> list[str]:
    return [line for line in log.splitlines() if "CONSOLE" in line or "Uncaught" in line]


def _svgs(dom: str, cls: str) -> int:
    return len(re.findall(rf'<svg\b[^>]*\bclass="{cls}"', dom))


def test_report_renders_in_chromium(tmp_path: Path) -> None:
    chromium = _chromium()
    db = tmp_path / "results.sqlite"
    run_id = build_html_run(db)
    with open_store(db) as store:
        view = store.load_run(run_id)
        html = render_html(view, store.load_run_samples(view))
    page = tmp_path / "report.html"
    page.write_text(html, encoding="utf-8")
    url = page.as_uri()

    dump = _run(chromium, tmp_path / "profile-dom", "--dump-dom", url)
    dom = dump.stdout
    assert "<h1>rtoslab run 1</h1>" in dom
    assert dom.count('<table class="summary">') == 3
    assert dom.count('<table class="comparison">') == 2
    assert '<table class="footprint flash">' in dom and '<table class="footprint ram">' in dom
    assert _svgs(dom, "hist") == EXPECTED_HISTOGRAMS
    assert _svgs(dom, "box") == EXPECTED_BOXPLOTS
    assert _svgs(dom, "ratio") == EXPECTED_RATIO_CHARTS
    assert len(re.findall(r'<rect\b[^>]*class="ratiobar', dom)) > 0
    assert len(re.findall(r'<rect\b[^>]*class="bar"', dom)) > EXPECTED_HISTOGRAMS
    # Stored text stays text: the failed benchmark's "<script>" did not become an element.
    assert "<script" not in dom and "&lt;script&gt;alert(1)&lt;/script&gt;" in dom
    assert _console_problems(dump.stderr) == []

    png = tmp_path / "report.png"
    shot = _run(chromium, tmp_path / "profile-png", f"--screenshot={png}", "--window-size=1280,2000", url)
    assert png.is_file()
    data = png.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    assert len(data) > 50_000, f"screenshot is only {len(data)} bytes: the page looks empty"
    assert _console_problems(shot.stderr) == []

    keep = os.environ.get("RTOSLAB_BROWSER_ARTIFACTS")
    if keep:
        out = Path(keep)
        out.mkdir(parents=True, exist_ok=True)
        shutil.copy(page, out / "report.html")
        shutil.copy(png, out / "report.png")
        (out / "chromium.log").write_text(dump.stderr + shot.stderr, encoding="utf-8")
