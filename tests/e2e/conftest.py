"""End-to-end fixtures: the real CLI, a real compiler, a real QEMU and the real plugin."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from rtoslab.paths import plugin_path

REPO = Path(__file__).resolve().parents[2]


def _missing() -> list[str]:
    need = ["arm-none-eabi-gcc", "qemu-system-arm", "cmake", "ninja"]
    out = [t for t in need if shutil.which(t) is None]
    if not plugin_path().is_file():
        out.append(f"plugin ({plugin_path()})")
    return out


def _must_not_skip() -> str | None:
    """Why qemu tests may not skip here (a missing tool fails them), or None."""
    if os.environ.get("RTOSLAB_REQUIRE_QEMU") == "1":
        return "RTOSLAB_REQUIRE_QEMU=1"
    if os.environ.get("CI"):
        # In CI the setup must have installed everything: a missing tool is a failure.
        return "CI is set"
    return None


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    missing = _missing()
    if not missing:
        return
    needs = "needs " + ", ".join(missing) + ": run `make setup`"
    why = _must_not_skip()
    if why is None:
        skip = pytest.mark.skip(reason=needs)
        for item in items:
            if "qemu" in item.keywords:
                item.add_marker(skip)
        return
    config.stash[_FAILURE] = f"{needs} ({why}: qemu tests may not skip)"


_FAILURE = pytest.StashKey[str]()


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item: pytest.Item) -> None:
    """Fail a qemu test that may not skip before its fixtures run, with the reason
    (rather than with whatever the missing tool breaks first)."""
    failure = item.config.stash.get(_FAILURE, None)
    if failure is not None and "qemu" in item.keywords:
        pytest.fail(failure, pytrace=False)


RunCli = Callable[..., subprocess.CompletedProcess[str]]


@pytest.fixture(scope="session")
def run_cli() -> RunCli:
    def run(*args: str, env: dict[str, str] | None = None, check_json: bool = False,
            timeout: float = 1200) -> subprocess.CompletedProcess[str]:
        full_env = dict(os.environ)
        if env:
            full_env.update(env)
        proc = subprocess.run([sys.executable, "-m", "rtoslab.cli.main", *args], cwd=REPO,
                              capture_output=True, text=True, env=full_env, timeout=timeout,
                              check=False)
        if check_json:
            json.loads(proc.stdout)
        return proc

    return run


def chromium_path() -> str:
    """The headless browser of the HTML tests: a failure under CI (setup installs it), else
    a skip, naming the package."""
    path = shutil.which("chromium")
    if path is None:
        message = "chromium is not on PATH: install the Debian package `chromium` (make setup)"
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)
    return path
