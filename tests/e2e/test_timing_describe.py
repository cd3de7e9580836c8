"""The real rtoslab-plugin-describe executable: its description matches the recorded
contract (tests/data/plugin/describe.json) and `check` enforces cross-setting rules."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rtoslab import timing
from rtoslab.builder.config import BuildConfig
from rtoslab.records import RtoslabError

from .conftest import RunCli

pytestmark = pytest.mark.qemu

FIXTURE = Path(__file__).resolve().parents[1] / "data" / "plugin" / "describe.json"


@pytest.fixture(autouse=True)
def _describe() -> None:
    if not timing.describe_path().is_file():
        pytest.skip(f"{timing.describe_path()} not built (make setup)")


def test_real_description_has_the_recorded_settings_and_cores() -> None:
    real = timing.description()
    recorded = timing.parse_description(json.loads(FIXTURE.read_text()), str(FIXTURE))
    assert [(s.key, s.kind, s.choices, s.min, s.max) for s in real.settings] == \
        [(s.key, s.kind, s.choices, s.min, s.max) for s in recorded.settings]
    assert [c.name for c in real.cores] == [c.name for c in recorded.cores]


def test_check_accepts_the_targets_defaults_and_refuses_flash_ws_without_flash() -> None:
    timing.check_resolved(BuildConfig(timing=(("flash_ws", 2),)).timing_settings())
    settings = {k: v for k, v in BuildConfig().timing_settings().items() if k != "flash"}
    settings["flash_ws"] = 2
    with pytest.raises(RtoslabError, match=r"timing-model settings rejected by the plugin: .*flash"):
        timing.check_resolved(settings)


@pytest.mark.parametrize("core", ["cortex-m7", "cortex-m55"])
def test_run_refuses_an_unmodelled_core_in_one_line_before_building(run_cli: RunCli,
                                                                     core: str,
                                                                     tmp_path: Path) -> None:
    db = tmp_path / "r.sqlite"
    proc = run_cli("run", "--bench", "loop", "--timing", f"core={core}", "--db", str(db))
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert proc.stderr.strip() == (f"rtoslab: error: timing-model setting core={core}: {core} "
                                   "timing is not modelled; use --timing core=none for "
                                   "instruction counts")
    assert not db.exists(), "nothing was run or stored"
