"""Unit-test fixtures."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rtoslab import timing

DESCRIBE_FIXTURE = Path(__file__).resolve().parents[1] / "data" / "plugin" / "describe.json"


@pytest.fixture
def plugin_description(monkeypatch: pytest.MonkeyPatch) -> timing.Description:
    """The plugin's description as recorded in tests/data/plugin/describe.json (the
    `describe` contract; tests/e2e/test_timing_describe.py checks the real executable
    against it), used wherever the host reads the description."""
    desc = timing.parse_description(json.loads(DESCRIBE_FIXTURE.read_text()), str(DESCRIBE_FIXTURE))
    monkeypatch.setattr(timing, "description", lambda: desc)
    return desc
