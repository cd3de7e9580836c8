"""`rtoslab run`'s progress on stderr (issue 28 item 7): one live bar on a terminal with a
line per failure; a line per result when stderr is not a terminal or with -v; firmware
text never reaches the terminal with its control characters."""

from __future__ import annotations

import io
from dataclasses import replace

from rich.console import Console

from rtoslab.builder.config import BuildConfig
from rtoslab.catalog import Catalog
from rtoslab.cli.run import _one_line, _ProgressLines
from rtoslab.pipeline import Progress
from rtoslab.records import BenchResult

CATALOG = Catalog()  # the checkout's folders alone


def _plan() -> list[tuple[BuildConfig, list]]:  # type: ignore[type-arg]
    benches = [CATALOG.get_benchmark("k_yield"), CATALOG.get_benchmark("t_check")]
    a = BuildConfig(catalog=CATALOG, cflags=("-O2",), axes=(("opt", "-O2"),))
    b = BuildConfig(catalog=CATALOG, cflags=("-Os",), axes=(("opt", "-Os"),))
    return [(a, benches), (b, benches)]


def _feed(lines: _ProgressLines, plan: list[tuple[BuildConfig, list]]) -> None:  # type: ignore[type-arg]
    (a, _), (b, _) = plan
    with lines.bar:
        lines.progress(Progress(a, "", "built"))
        lines.progress(Progress(b, "", "built"))
        lines.progress(Progress(a, "k_yield", "done", BenchResult("k_yield", "ok", None)))
        lines.progress(Progress(a, "t_check", "done",
                                BenchResult("t_check", "failed", "t_check: LAB-FAIL \x1b[2Jwiped\r\x07")))
        lines.progress(Progress(b, "k_yield", "done", BenchResult("k_yield", "n/a", "no yield")))
        lines.progress(Progress(b, "t_check", "done", BenchResult("t_check", "ok", None)))


def _console(terminal: bool) -> tuple[Console, io.StringIO]:
    out = io.StringIO()
    return Console(file=out, force_terminal=terminal, width=120, highlight=False,
                   color_system=None), out


def test_on_a_terminal_only_failures_print_a_line_and_the_bar_counts_every_result() -> None:
    plan = _plan()
    console, out = _console(terminal=True)
    lines = _ProgressLines(plan, console=console)
    _feed(lines, plan)
    assert lines.counts == {"ok": 2, "failed": 1, "n/a": 1}
    assert lines.bar.tasks[0].completed == 4 and lines.bar.tasks[0].total == 4
    assert "ok 2 · failed 1 · n/a 1" in lines.bar.tasks[0].fields["counts"]
    assert lines.bar.tasks[0].fields["where"] == "-Os"  # the configuration in flight
    text = out.getvalue()
    assert "[2/4] FAILED t_check -O2" in text
    assert "[1/4] ok" not in text and "[3/4]" not in text and "[4/4]" not in text
    # the firmware's escape sequence, carriage return and bell are shown, not obeyed
    assert "\\x1b[2Jwiped\\x0d\\x07" in text
    assert "\x1b[2J" not in text and "\x07" not in text


def test_not_a_terminal_or_verbose_keeps_a_line_per_result() -> None:
    plan = _plan()
    for terminal, verbose in ((False, False), (True, True)):
        console, out = _console(terminal)
        lines = _ProgressLines(plan, verbose=verbose, console=console)
        _feed(lines, plan)
        text = out.getvalue()
        for k in ("[1/4] ok k_yield -O2", "[2/4] FAILED t_check -O2",
                  "[3/4] n/a k_yield -Os: no yield", "[4/4] ok t_check -Os"):
            assert k in text, (terminal, verbose, text)
        if not terminal:
            assert "\x1b" not in text  # no bar, no cursor movement into a file or pipe


def test_firmware_text_is_escaped_and_kept_on_one_line() -> None:
    assert _one_line("µs ≤ 3 — ok") == "µs ≤ 3 — ok"
    assert _one_line("a\u202eb\x9bc\x7f") == "a\\u202eb\\x9bc\\x7f"
    r = replace(BenchResult("x", "failed", "r"), reason="line1\nline2")
    assert _one_line(r.reason or "") == "line1 line2"
