"""Wait states follow the clock, end to end: netduinoplus2 run at 84 MHz (an STM32F401's
clock) is priced with the 2 flash wait states RM0090 Table 10 gives that clock, the stored
configuration says so and the report's footer names the rule. One quick run (bare metal,
`call`). Real compiler, QEMU and plugin."""

from __future__ import annotations

from pathlib import Path

import pytest

from rtoslab.report.labels import timing_footer
from rtoslab.store import open_store

from .conftest import RunCli

pytestmark = pytest.mark.qemu


def test_netduinoplus2_at_84_mhz_stores_and_shows_2_wait_states(run_cli: RunCli, tmp_path: Path) -> None:
    db = tmp_path / "r.sqlite"
    proc = run_cli("run", "--bench", "call", "--target", "netduinoplus2", "--timing", "clock_hz=84000000",
                   "--db", str(db))
    assert proc.returncode == 0, proc.stderr
    rule = "flash 2 WS (clock rule RM0090 Table 10, 2.7-3.6 V: <= 90 MHz)"
    assert rule in " ".join(proc.stdout.split())  # (the terminal may wrap the footer)
    with open_store(db, read_only=True) as store:
        view = store.load_run(store.latest_run_id() or 0)
    (config,) = view.configs
    assert config.timing["flash_ws"] == 2 and config.timing["clock_hz"] == 84_000_000
    assert config.identity["flash_ws_from"] == {"by": "rule", "source": "RM0090 Table 10, 2.7-3.6 V",
                                                "max_hz": 90_000_000}
    assert rule in timing_footer(config)
