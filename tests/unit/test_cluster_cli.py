"""`run --cluster` refuses what it cannot use in one line, exit 2, before anything is
stored (issue 27, "Bad input"): Ray not installed, no address, a malformed address."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from rtoslab.cli.main import main


def _run(capsys: pytest.CaptureFixture[str], tmp_path: Path, *args: str) -> tuple[int, list[str]]:
    code = main(["run", "--db", str(tmp_path / "r.sqlite"), *args])
    err = capsys.readouterr().err.strip().splitlines()
    assert not (tmp_path / "r.sqlite").exists()
    return code, err


def test_without_ray_says_how_to_install_it(capsys: pytest.CaptureFixture[str], tmp_path: Path,
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "ray", None)  # (import ray raises ImportError)
    code, err = _run(capsys, tmp_path, "--cluster", "local")
    assert code == 2 and err == ["rtoslab: error: --cluster needs Ray, which is not installed: "
                                 "pip install 'rtoslab[cluster]' (make setup installs it)"]


def test_cluster_without_address_needs_ray_address(capsys: pytest.CaptureFixture[str], tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("RAY_ADDRESS", raising=False)
    code, err = _run(capsys, tmp_path, "--cluster")
    assert code == 2 and len(err) == 1 and "needs RAY_ADDRESS" in err[0]


@pytest.mark.parametrize("address", ["nowhere", "host:port", ":6379"])
def test_malformed_address(capsys: pytest.CaptureFixture[str], tmp_path: Path, address: str) -> None:
    pytest.importorskip("ray")
    code, err = _run(capsys, tmp_path, "--cluster", address)
    assert code == 2 and len(err) == 1 and "give HOST:PORT" in err[0], err
