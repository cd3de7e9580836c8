"""`rtoslab runs` filters (issue 28 item 8): status, experiment, since."""

from __future__ import annotations

import pytest

from rtoslab.cli.runs import matching
from rtoslab.records import RtoslabError
from rtoslab.views import RunInfo


def _run(i: int, started: str, status: str, experiment: str | None) -> RunInfo:
    return RunInfo(i, started, None, status, "r", "h", "c", experiment, 0, 0, 0)


RUNS = [_run(3, "2026-11-27T22:05:00Z", "complete", "/x/examples/superloop-vs-rtos.toml"),
        _run(2, "2026-11-27T21:46:00Z", "incomplete", None),
        _run(1, "2026-11-26T10:00:00Z", "complete", "/x/examples/smp.toml")]


def test_each_filter_keeps_only_what_matches() -> None:
    assert [r.id for r in matching(RUNS, "complete", None, None)] == [3, 1]
    assert [r.id for r in matching(RUNS, None, "superloop", None)] == [3]
    assert [r.id for r in matching(RUNS, None, None, "2026-11-27")] == [3, 2]
    assert [r.id for r in matching(RUNS, None, None, "2026-11-27T22:00:00")] == [3]
    assert [r.id for r in matching(RUNS, "complete", "examples", "2026-11-27")] == [3]


def test_a_bad_since_is_one_line() -> None:
    with pytest.raises(RtoslabError, match=r"^--since 'soon': give a date YYYY-MM-DD"):
        matching(RUNS, None, None, "soon")
