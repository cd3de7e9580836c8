"""The patched QEMU's build key and place: scripts/qemu/build_qemu.sh (which builds it in
`make setup`) and rtoslab.qemu_build (which finds it) compute the same ones. Only the
script's --print-key and --print-path run here; nothing is built or downloaded."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from rtoslab.qemu_build import KEY_FILES, patched_qemu_path, qemu_build_key

REPO = Path(__file__).resolve().parents[2]
SCRIPT = "scripts/qemu/build_qemu.sh"
CACHE_VARS = ("RTOSLAB_QEMU_DIR", "XDG_CACHE_HOME")


def _script(root: Path, arg: str, cwd: Path | None = None) -> str:
    out = subprocess.run(["bash", str(root / SCRIPT), arg], cwd=cwd or root, env=os.environ.copy(),
                         capture_output=True, text=True, check=True)
    return out.stdout.strip()


def _copy_key_files(dest: Path) -> None:
    for rel in KEY_FILES:
        (dest / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(REPO / rel, dest / rel)


def test_script_and_host_agree_on_the_key() -> None:
    key = qemu_build_key(REPO)
    assert len(key) == 16 and all(c in "0123456789abcdef" for c in key)
    assert _script(REPO, "--print-key") == key


@pytest.mark.parametrize("changed", KEY_FILES)
def test_every_key_file_changes_the_key(tmp_path: Path, changed: str) -> None:
    _copy_key_files(tmp_path)
    before = qemu_build_key(tmp_path)
    assert before == qemu_build_key(REPO)
    with (tmp_path / changed).open("a") as f:
        f.write("\n# changed\n")
    after = qemu_build_key(tmp_path)
    assert after != before
    assert _script(tmp_path, "--print-key") == after


@pytest.mark.parametrize("env", [
    {"RTOSLAB_QEMU_DIR": "/opt/lab-qemu", "XDG_CACHE_HOME": "/xdg"},
    {"RTOSLAB_QEMU_DIR": "rel/qemu"},
    {"RTOSLAB_QEMU_DIR": "", "XDG_CACHE_HOME": "/xdg"},
    {"XDG_CACHE_HOME": "/xdg"},
    {"XDG_CACHE_HOME": ""},
    {},
], ids=["qemu-dir", "relative-qemu-dir", "empty-qemu-dir", "xdg", "empty-xdg", "home"])
def test_script_and_host_agree_on_the_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                           env: dict[str, str]) -> None:
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.chdir(tmp_path)
    for var in CACHE_VARS:
        monkeypatch.delenv(var, raising=False)
    for var, value in env.items():
        monkeypatch.setenv(var, value)
    path = patched_qemu_path(REPO)
    assert path.parts[-2:] == (qemu_build_key(REPO), "qemu-system-arm")
    assert path.is_absolute()
    assert _script(REPO, "--print-path", cwd=tmp_path) == str(path)
    if not env.get("RTOSLAB_QEMU_DIR") and not env.get("XDG_CACHE_HOME"):
        assert path.parent.parent == tmp_path / "home" / ".cache" / "rtoslab" / "qemu"
