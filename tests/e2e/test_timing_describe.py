"""The real rtoslab-plugin-describe executable: its description matches the recorded
contract (tests/data/plugin/describe.json) and `check` enforces cross-setting rules."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from rtoslab import timing
from rtoslab.builder.config import BuildConfig
from rtoslab.catalog import Catalog
from rtoslab.records import RtoslabError

from .conftest import RunCli

CATALOG = Catalog()  # the checkout's folders alone

pytestmark = pytest.mark.qemu

FIXTURE = Path(__file__).resolve().parents[1] / "data" / "plugin" / "describe.json"


@pytest.fixture(autouse=True)
def _describe() -> None:
    if not timing.describe_path().is_file():
        pytest.skip(f"{timing.describe_path()} not built (make setup)")


def test_the_recorded_description_is_the_real_one_exactly() -> None:
    """The unit tier reads tests/data/plugin/describe.json instead of running the
    executable: it must be the executable's output, byte for byte as JSON. To record it
    again after a change to the plugin's settings:
    plugin/target/release/rtoslab-plugin-describe describe | python3 -c "import json, sys;
    print(json.dumps(json.load(sys.stdin), indent=4, ensure_ascii=False))" > FIXTURE."""
    proc = subprocess.run([str(timing.describe_path()), "describe"], capture_output=True, text=True,
                          check=True)
    assert json.loads(proc.stdout) == json.loads(FIXTURE.read_text()), \
        "tests/data/plugin/describe.json is stale: record it again (see this test's doc)"
    assert timing.description() == timing.parse_description(json.loads(FIXTURE.read_text()), str(FIXTURE))


def test_every_targets_own_timing_table_passes_the_plugins_check() -> None:
    """A target's [timing] table with nothing overridden: each value against the
    description and the whole set through the plugin's cross-setting rules."""
    for name in CATALOG.targets:
        config = BuildConfig(catalog=CATALOG, target=name)
        config.validate()
        timing.check_resolved(config.timing_settings())


def test_every_example_experiment_passes_the_plugins_check() -> None:
    """Each example file's points, resolved, pass the plugin's cross-setting rules (the
    unit tier loads the files against the recorded description only)."""
    from rtoslab import api

    for path in sorted((Path(__file__).resolve().parents[2] / "examples").glob("*.toml")):
        api.experiment(path)


def test_check_accepts_the_targets_defaults_and_refuses_flash_ws_without_flash() -> None:
    timing.check_resolved(BuildConfig(catalog=CATALOG, timing=(("flash_ws", 2),)).timing_settings())
    settings = {k: v for k, v in BuildConfig(catalog=CATALOG).timing_settings().items() if k != "flash"}
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
