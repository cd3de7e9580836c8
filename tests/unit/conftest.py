"""Unit-test fixtures."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from rtoslab import timing

DESCRIBE_FIXTURE = Path(__file__).resolve().parents[1] / "data" / "plugin" / "describe.json"


@pytest.fixture(scope="session")
def recorded_describe(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """An executable that answers `describe` with the recording, for the unit tests that
    run `rtoslab` as a process (it reads the description like any command; the process
    does not see this module's patch). `check` is the real plugin's alone: this one exits
    1 saying so, so a unit test that needs it fails loudly (such a test is e2e)."""
    exe = tmp_path_factory.mktemp("describe") / timing.DESCRIBE_NAME
    exe.write_text(f"""#!{sys.executable}
import sys
if sys.argv[1:] == ["describe"]:
    sys.stdout.write(open({str(DESCRIBE_FIXTURE)!r}).read())
    sys.exit(0)
sys.stderr.write("the recorded description answers `describe` only: a test running `check` is e2e\\n")
sys.exit(1)
""")
    exe.chmod(0o755)
    return exe


@pytest.fixture(autouse=True)
def plugin_description(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch,
                       recorded_describe: Path) -> timing.Description | None:
    """The plugin's description as recorded in tests/data/plugin/describe.json (the
    `describe` contract; tests/e2e/test_timing_describe.py checks the real executable
    against it), used wherever the host reads the description: for every unit test, so
    the unit tier needs no cargo-built rtoslab-plugin-describe (issue 25, item 7); a
    process a test starts gets it through ``recorded_describe``. A test marked
    ``real_describe`` gets the real loader (it tests the loader itself)."""
    if request.node.get_closest_marker("real_describe"):
        return None
    monkeypatch.setenv(timing.DESCRIBE_ENV, str(recorded_describe))
    desc = timing.parse_description(json.loads(DESCRIBE_FIXTURE.read_text()), str(DESCRIBE_FIXTURE))
    real = timing.description
    for name, module in list(sys.modules.items()):
        ours = name == "rtoslab" or name.startswith("rtoslab.")
        if ours and getattr(module, "description", None) is real:  # also `from timing import`
            monkeypatch.setattr(module, "description", lambda: desc)
    return desc
