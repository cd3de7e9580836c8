"""Unit-test fixtures."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from rtoslab import timing

DESCRIBE_FIXTURE = Path(__file__).resolve().parents[1] / "data" / "plugin" / "describe.json"


@pytest.fixture(autouse=True)
def plugin_description(request: pytest.FixtureRequest,
                       monkeypatch: pytest.MonkeyPatch) -> timing.Description | None:
    """The plugin's description as recorded in tests/data/plugin/describe.json (the
    `describe` contract; tests/e2e/test_timing_describe.py checks the real executable
    against it), used wherever the host reads the description: for every unit test, so
    the unit tier needs no cargo-built rtoslab-plugin-describe (issue 25, item 7). A test
    marked ``real_describe`` gets the real loader (it tests the loader itself)."""
    if request.node.get_closest_marker("real_describe"):
        return None
    desc = timing.parse_description(json.loads(DESCRIBE_FIXTURE.read_text()), str(DESCRIBE_FIXTURE))
    real = timing.description
    for name, module in list(sys.modules.items()):
        ours = name == "rtoslab" or name.startswith("rtoslab.")
        if ours and getattr(module, "description", None) is real:  # also `from timing import`
            monkeypatch.setattr(module, "description", lambda: desc)
    return desc
