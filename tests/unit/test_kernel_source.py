"""--kernel-source (issue 31): a kernel tree checked against its port's [kernel_source]
declaration, identified by content and commit, and carried into the keys and the stored
identity; the same from an experiment file and rtoslab.toml. No toolchain needed."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from rtoslab.builder import kernel_source as ks
from rtoslab.builder.config import BuildConfig, with_kernel_source
from rtoslab.builder.kernel_source import check_tree, content_hash
from rtoslab.catalog import Catalog
from rtoslab.experiments.experiment import parse_experiment
from rtoslab.pipeline import config_identity
from rtoslab.project import load_project
from rtoslab.records import RtoslabError

CATALOG = Catalog()  # the checkout's folders alone

REPO = Path(__file__).resolve().parents[2]


def fake_tree(root: Path, version: str = "V11.2.0") -> Path:
    """The files the freertos port's declaration asks for (not a buildable kernel)."""
    spec = CATALOG.get_kernel("freertos").source
    assert spec is not None
    for name in spec.files:
        path = root / name
        if "." in Path(name).name:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(f"/* {name} */\n")
        else:
            path.mkdir(parents=True, exist_ok=True)
    (root / "include" / "task.h").write_text(f'#define tskKERNEL_VERSION_NUMBER    "{version}"\n')
    return root


def _git(cwd: Path, *args: str) -> str:
    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@e", "GIT_COMMITTER_NAME": "t",
           "GIT_COMMITTER_EMAIL": "t@e", "GIT_COMMITTER_DATE": "2026-01-05T10:00:00+00:00",
           "GIT_AUTHOR_DATE": "2026-01-05T10:00:00+00:00"}
    return subprocess.run(["git", "-C", str(cwd), *args], env=env, check=True, capture_output=True,
                          text=True).stdout


def test_the_freertos_ports_declare_the_hook() -> None:
    for name in ("freertos", "freertos-smp"):
        spec = CATALOG.kernels[name].source
        assert spec is not None and spec.pinned == "freertos-next/FreeRTOS-Kernel"
        assert "tasks.c" in spec.files and spec.version_from == "11.0.0"
    assert CATALOG.kernels["baremetal"].source is None


def test_a_folder_without_the_kernel_files_is_refused_naming_them(tmp_path: Path) -> None:
    tree = fake_tree(tmp_path / "k")
    (tree / "tasks.c").unlink()
    shutil.rmtree(tree / "portable" / "GCC")
    spec = CATALOG.get_kernel("freertos").source
    assert spec is not None
    with pytest.raises(RtoslabError) as e:
        check_tree(spec, tree, "freertos")
    msg = str(e.value)
    assert "is not a FreeRTOS-Kernel tree for kernel freertos: missing tasks.c, portable/GCC:" in msg
    assert "\n" not in msg
    with pytest.raises(RtoslabError, match="not a folder"):
        check_tree(spec, tmp_path / "nowhere", "freertos")


@pytest.mark.parametrize("version", ["V10.4.6", "V12.0.0"])
def test_an_unsupported_version_is_refused(tmp_path: Path, version: str) -> None:
    spec = CATALOG.get_kernel("freertos").source
    assert spec is not None
    with pytest.raises(RtoslabError) as e:
        check_tree(spec, fake_tree(tmp_path / "k", version), "freertos")
    assert f"is FreeRTOS-Kernel {version}, which kernel freertos does not support: it builds " \
           "11.0.0 up to (not including) 12.0.0" in str(e.value)


def test_a_development_version_is_accepted_and_a_missing_one_refused(tmp_path: Path) -> None:
    spec = CATALOG.get_kernel("freertos").source
    assert spec is not None
    assert check_tree(spec, fake_tree(tmp_path / "a", "V11.2.0+"), "freertos").version == "V11.2.0+"
    tree = fake_tree(tmp_path / "b")
    (tree / "include" / "task.h").write_text("/* no version */\n")
    with pytest.raises(RtoslabError, match="states no FreeRTOS-Kernel version"):
        check_tree(spec, tree, "freertos")


def test_content_hash_follows_the_files_not_the_place(tmp_path: Path) -> None:
    a = fake_tree(tmp_path / "a")
    b = tmp_path / "elsewhere" / "b"
    shutil.copytree(a, b)
    (b / ".git").mkdir()
    (b / ".git" / "HEAD").write_text("ref: x\n")  # git's own files are not the tree's
    assert content_hash(a) == content_hash(b)
    (b / "tasks.c").write_text("/* changed */\n")
    assert content_hash(a) != content_hash(b)


def test_a_git_tree_is_identified_by_commit_time_and_dirtiness(tmp_path: Path) -> None:
    tree = fake_tree(tmp_path / "k")
    _git(tree, "init", "-q")
    _git(tree, "add", "-A")
    _git(tree, "commit", "-qm", "one")
    head = _git(tree, "rev-parse", "HEAD").strip()
    config = with_kernel_source(BuildConfig(catalog=CATALOG, kernel="freertos"), tree, given=True)
    ident = config.kernel_tree()
    assert ident is not None and ident.commit == head and not ident.dirty
    assert ident.committed.startswith("2026-01-05T10:00:00")
    stored = config_identity(config)["kernel_source"]
    assert stored == {"version": "V11.2.0", "content": ident.content[:16], "commit": head,
                      "committed": ident.committed, "dirty": False}
    assert str(tmp_path) not in json.dumps(config_identity(config))  # no path is stored
    (tree / "list.c").write_text("/* edited */\n")
    ks._identify.cache_clear()  # (a tree is identified once per process: a run sees one state)
    edited = with_kernel_source(BuildConfig(catalog=CATALOG,
                                            kernel="freertos"), tree, given=True).kernel_tree()
    assert edited is not None and edited.dirty and edited.commit == head
    assert edited.content != ident.content


def test_the_tree_enters_the_image_key_by_content(tmp_path: Path) -> None:
    a = fake_tree(tmp_path / "a")
    b = tmp_path / "b"
    shutil.copytree(a, b)
    c = tmp_path / "c"
    shutil.copytree(a, c)
    (c / "queue.c").write_text("/* other */\n")
    pinned = BuildConfig(catalog=CATALOG, kernel="freertos")
    keys = [with_kernel_source(pinned, t, given=True).image_key() for t in (a, b, c)]
    assert keys[0] == keys[1] != keys[2]
    assert pinned.image_key() not in keys
    assert "kernel_source" not in config_identity(pinned)  # pinned sources: identity as before


def test_a_kernel_without_the_hook_refuses_a_given_tree_and_skips_a_default_one(tmp_path: Path) -> None:
    tree = fake_tree(tmp_path / "k")
    bare = BuildConfig(catalog=CATALOG, kernel="baremetal")
    with pytest.raises(RtoslabError) as e:
        with_kernel_source(bare, tree, given=True)
    assert str(e.value).startswith("--kernel-source: kernel baremetal has no sources to replace")
    assert "freertos" in str(e.value)
    assert with_kernel_source(bare, tree, given=False) == bare


def test_experiment_file_kernel_source(tmp_path: Path) -> None:
    tree = fake_tree(tmp_path / "FreeRTOS-Kernel")
    path = tmp_path / "exp.toml"
    data: dict[str, object] = {"name": "x", "benchmarks": ["k_yield"], "kernel_source": "FreeRTOS-Kernel",
                               "matrix": {"kernel": ["freertos", "baremetal"]}}
    exp = parse_experiment(data, path, CATALOG)
    sources = {p.config.kernel: p.config.kernel_source for p in exp.points}
    assert sources == {"freertos": str(tree.resolve()), "baremetal": ""}
    with pytest.raises(RtoslabError) as e:
        parse_experiment({**data, "matrix": {"kernel": ["baremetal"]}}, path, CATALOG)
    assert str(e.value).startswith(f"{path}: key 'kernel_source' ") and "no kernel" in str(e.value)
    with pytest.raises(RtoslabError) as e:
        parse_experiment({**data, "kernel_source": "nope"}, path, CATALOG)
    assert str(e.value).startswith(f"{path}: key 'kernel_source' kernel tree ")
    assert "not a folder" in str(e.value)


def test_project_file_kernel_source(tmp_path: Path) -> None:
    fake_tree(tmp_path / "kernel")
    (tmp_path / "rtoslab.toml").write_text('kernel_source = "kernel"\n')
    assert load_project(tmp_path / "rtoslab.toml").kernel_source == (tmp_path / "kernel").resolve()
    (tmp_path / "rtoslab.toml").write_text('kernel_source = "missing"\n')
    with pytest.raises(RtoslabError, match="key 'kernel_source' is 'missing', which is not a folder"):
        load_project(tmp_path / "rtoslab.toml")


def _cli(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "RTOSLAB_DB"}
    return subprocess.run([sys.executable, "-m", "rtoslab.cli.main", *args], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=120, check=False)


def test_cli_refuses_a_bad_tree_in_one_line_exit_2(tmp_path: Path) -> None:
    (tmp_path / "notakernel").mkdir()
    for cmd in (["run", "--kernel", "freertos", "--bench", "k_yield"],
                ["ci", "--kernel", "freertos", "--bench", "k_yield", "--baseline-source", "notakernel"]):
        proc = _cli(*cmd, "--kernel-source", "notakernel", "--db", str(tmp_path / "r.sqlite"), cwd=tmp_path)
        assert proc.returncode == 2, proc.stderr
        lines = proc.stderr.strip().splitlines()
        assert len(lines) == 1 and "is not a FreeRTOS-Kernel tree for kernel freertos: missing tasks.c" \
            in lines[0], proc.stderr
        assert not (tmp_path / "r.sqlite").exists()  # nothing stored


def test_ci_without_a_baseline_is_bad_input(tmp_path: Path) -> None:
    proc = _cli("ci", "--bench", "k_yield", "--db", str(tmp_path / "r.sqlite"), cwd=tmp_path)
    assert proc.returncode == 2 and "no baseline: give --baseline-db" in proc.stderr
    proc = _cli("ci", "--bench", "k_yield", "--baseline-db", str(tmp_path / "none.sqlite"), cwd=tmp_path)
    assert proc.returncode == 2 and proc.stderr.startswith("rtoslab: error: ")
