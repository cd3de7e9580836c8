"""Run a plan's configurations as tasks on a Ray cluster (`rtoslab run --cluster ADDRESS`).

Ray (PyPI ``ray``, pinned in the optional extra ``rtoslab[cluster]``) is imported only
here and only when a cluster is asked for. The driver (the process that ran `rtoslab
run`) alone writes the database and the reports: a task returns plain values (each
benchmark's ``BenchResult``, its timeline, its source hash) and the driver stores them
in plan order, exactly as ``pipeline.execute`` does, so the stored run, its progress
lines, its JSON and its exit status are those of a local run.

One task is one configuration: its benchmarks, run one after another on one worker CPU
(``num_cpus=1``). What travels (docs/performance.md, "Large sweeps", measured and
modelled):

- ``builds="workers"`` (the default): the task builds the configuration in the worker's
  own cache (locked and published as any local build: builder/sharing.py); builds spread
  over the workers as runs do. A worker needs the whole toolchain (arm-none-eabi-gcc,
  cmake, ninja; cargo for the Rust models), in the driver's versions.
- ``builds="driver"``: the driver builds each configuration (its own cache, ``-j``
  builds at once) and ships the images (ELF + linker map) and the plugin library to the
  task; a worker then needs only rtoslab's patched ``qemu-system-arm`` and this package,
  but the driver's cores bound the sweep (beyond about D x (b + r) / b workers for D
  driver cores, b seconds of build and r of emulation per configuration).

A task's configuration carries the driver's catalog as its search paths (a pickled
``Catalog`` is its ``SearchPaths``): the worker discovers the same folders itself, so the
user's own targets, ports and benchmarks (rtoslab.toml, ``--*-path``, an experiment's
``*_paths``) must be at the same paths on every node.

Either way a task first checks its node: a missing tool, or a tool whose version differs
from the one the configuration's stored identity names (the driver's), fails the task's
benchmarks with one line naming the tool and the node, since a stored record never says
something false. A task lost with its worker (the process or node died) is retried by
Ray at most twice (``max_retries=2``), then its benchmarks fail with Ray's reason. Ctrl-C
cancels the outstanding tasks; the run is stored ``incomplete`` with what finished.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import platform
import socket
import tempfile
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rtoslab.builder.cmake import BuildResult, build
from rtoslab.builder.config import BuildConfig
from rtoslab.builder.sharing import images_dir
from rtoslab.catalog import Benchmark
from rtoslab.paths import PLUGIN_FILE, cache_root, plugin_path
from rtoslab.pipeline import PlanResults, Progress, run_benchmark_traced, source_hash
from rtoslab.records import BenchResult, RtoslabError
from rtoslab.runners.qemu import QemuRunner
from rtoslab.store.db import Store
from rtoslab.timing import DESCRIBE_NAME, describe_path
from rtoslab.tools import tool_status
from rtoslab.trace.timeline import Timeline

INSTALL_HINT = "pip install 'rtoslab[cluster]' (make setup installs it)"
BUILDS = ("driver", "workers")
NODE_CHECK_S = 120  # each node's tool check, before a run record exists
MAX_RETRIES = 2  # a task lost with its worker is tried at most 3 times in all
# what a worker needs, by what travels (doctor --worker checks the same lists)
WORKER_TOOLS = {"driver": ("qemu-system-arm",),
                "workers": ("qemu-system-arm", "arm-none-eabi-gcc", "cmake", "ninja")}

TaskOut = list[tuple[int, BenchResult, Timeline | None, str | None]]


def _ray() -> Any:
    try:
        import ray
    except ImportError:
        raise RtoslabError(f"--cluster needs Ray, which is not installed: {INSTALL_HINT}") from None
    return ray


def _check_address(address: str) -> None:
    """Something must answer at a remote address before a run record exists."""
    hostport = address.removeprefix("ray://").removeprefix("http://").rstrip("/")
    host, sep, port = hostport.rpartition(":")
    if not sep or not port.isdigit() or not host:
        raise RtoslabError(f"--cluster {address!r}: give HOST:PORT (the head's GCS port, e.g. "
                           "head:6379), ray://HOST:10001, or 'local'")
    try:
        with socket.create_connection((host, int(port)), timeout=5):
            pass
    except OSError as err:
        raise RtoslabError(f"--cluster {address}: no Ray cluster answers there ({err.strerror or err}): "
                           "start its head with `ray start --head`, or use --cluster local") from None


@dataclass
class ClusterSession:
    """A connection to a Ray cluster for one `rtoslab run`."""

    ray: Any
    address: str
    builds: str
    jobs: int

    def close(self) -> None:
        with contextlib.suppress(Exception):
            self.ray.shutdown()

    def workers(self) -> int:
        return int(self.ray.cluster_resources().get("CPU", 0))

    def execute(self, store: Store, run_id: int, plan: list[tuple[BuildConfig, list[Benchmark]]],
                on_progress: Callable[[Progress], None] | None = None, irq_windows: bool = False,
                offsets: Sequence[int] | None = None) -> list[BenchResult]:
        return _execute(self, store, run_id, plan, on_progress, irq_windows, offsets)


def connect(address: str, jobs: int, builds: str = "workers") -> ClusterSession:
    """Connect to the cluster at ``address`` (``local``: start a Ray instance here with
    ``jobs`` worker CPUs). One line, before anything is stored, when Ray is missing or
    nothing answers at the address."""
    if builds not in BUILDS:
        raise RtoslabError(f"--cluster-builds {builds!r}: choose {' or '.join(BUILDS)}")
    if not address:
        raise RtoslabError("--cluster without an address needs RAY_ADDRESS: give --cluster HOST:PORT, "
                           "set RAY_ADDRESS, or use --cluster local")
    ray = _ray()
    if address != "local":
        _check_address(address)
    kwargs: dict[str, Any] = {"log_to_driver": False, "logging_level": "error",
                              "configure_logging": True}
    if address == "local":  # this machine's workers: this process's checkout, cache and QEMU
        kwargs["runtime_env"] = {"env_vars": {k: v for k, v in os.environ.items()
                                              if k.startswith("RTOSLAB_") and k != "RTOSLAB_PLUGIN"}}
    try:
        if address == "local":
            ray.init(num_cpus=jobs, include_dashboard=False, **kwargs)
        else:
            ray.init(address=address, **kwargs)
    except Exception as err:  # Ray's own errors: ConnectionError, RuntimeError, ...
        first = str(err).strip().splitlines()[0] if str(err).strip() else type(err).__name__
        raise RtoslabError(f"--cluster {address}: cannot join the Ray cluster ({first[:200]})") from None
    try:
        _check_nodes(ray, builds)
    except BaseException:
        with contextlib.suppress(Exception):
            ray.shutdown()
        raise
    return ClusterSession(ray, address, builds, jobs)


def _expected(builds: str) -> tuple[tuple[str, ...], dict[str, str]]:
    """The tools a worker needs and the versions they must have: the driver's."""
    tools = WORKER_TOOLS[builds] + (("rtoslab-plugin",) if builds == "workers" else ())
    mine = {t.name: t.version for t in tool_status() if t.found}
    return tools, {k: v for k, v in mine.items() if k in tools}


def _check_nodes(ray: Any, builds: str) -> None:
    """Every node with CPUs must have the tools a task needs, in the driver's versions:
    one line naming the first tool and node that do not, before anything is stored."""
    from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

    tools, expect = _expected(builds)
    nodes = [n for n in ray.nodes() if n.get("Alive") and n.get("Resources", {}).get("CPU", 0) > 0]
    check = ray.remote(num_cpus=0, max_retries=0)(check_worker)
    refs = [check.options(scheduling_strategy=NodeAffinitySchedulingStrategy(n["NodeID"], soft=False))
            .remote(tools, expect) for n in nodes]
    ready, late = ray.wait(refs, num_returns=len(refs), timeout=NODE_CHECK_S)
    problems = [p for r in ready for p in ray.get(r)]
    if late:
        problems.append(f"{len(late)} of {len(nodes)} Ray node(s) did not answer the tool check within "
                        f"{NODE_CHECK_S} s: check them with `rtoslab doctor --worker`")
    if not nodes:
        problems.append("the Ray cluster has no node with CPUs: start a worker with "
                        "`ray start --address ...`")
    if problems:
        more = f" (and {len(problems) - 1} more problem(s))" if len(problems) > 1 else ""
        raise RtoslabError(problems[0] + more)


# ----------------------------------------------------------------------------- worker side
def check_worker(tools: Sequence[str], expect: dict[str, str] | None = None) -> list[str]:
    """Problems of this node for a task needing ``tools``: each one line naming the tool
    and the node (empty: fine). ``expect``: tool -> the version the driver's identity
    names; another version is a problem too."""
    node = platform.node()
    status = {t.name: t for t in tool_status()}
    out = []
    for name in tools:
        t = status.get(name)
        if t is None or not t.found:
            fix = t.fix if t is not None else "make setup"
            out.append(f"worker {node} lacks {name}: {fix} (deploy/worker.Containerfile installs it)")
        elif expect is not None and name in expect and expect[name] != t.version:
            out.append(f"worker {node} has {name} '{t.version}', the run's identity says "
                       f"'{expect[name]}': install the same version on every node")
    return out


def _use_plugin(files: dict[str, bytes]) -> None:
    """Run the driver's plugin library and its describe tool (shipped as bytes, by file
    name) in this worker process: kept in a folder named by their content."""
    digest = hashlib.sha256(b"".join(files[k] for k in sorted(files))).hexdigest()[:16]
    folder = cache_root() / "cluster" / f"plugin-{digest}"
    if not folder.is_dir():
        folder.parent.mkdir(parents=True, exist_ok=True)
        tmp = Path(tempfile.mkdtemp(dir=folder.parent, prefix=".plugin-"))
        for name, data in files.items():
            (tmp / name).write_bytes(data)
            (tmp / name).chmod(0o755)
        with contextlib.suppress(OSError):  # (another worker process may have put it there first)
            os.rename(tmp, folder)
    path = folder / PLUGIN_FILE
    if os.environ.get("RTOSLAB_PLUGIN") != str(path):
        os.environ["RTOSLAB_PLUGIN"] = str(path)
        tool_status.cache_clear()


def plugin_files() -> dict[str, bytes]:
    """What the driver ships of the plugin: the library and its describe tool."""
    lib = plugin_path()
    return {PLUGIN_FILE: lib.read_bytes(), DESCRIBE_NAME: describe_path().read_bytes()}


def _unpack(config: BuildConfig, images: dict[str, bytes], failed: dict[str, str],
            na: dict[str, str]) -> BuildResult:
    """The shipped images, published in this worker's cache as a local build would be."""
    folder = images_dir(config.image_key())
    folder.mkdir(parents=True, exist_ok=True)
    for name, data in images.items():
        path = folder / name
        with contextlib.suppress(OSError):
            if path.read_bytes() == data:
                continue
        fd, tmp = tempfile.mkstemp(dir=folder, prefix=f".{name}.")
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.replace(tmp, path)
    elfs = {n.removesuffix(".elf"): folder / n for n in images if n.endswith(".elf")}
    return BuildResult(config.image_key(), folder, elfs, False, failed, na)


def run_configuration(config: BuildConfig, benches: list[Benchmark], indices: list[int],
                      irq_windows: bool, expect: dict[str, str], builds: str,
                      images: dict[str, bytes] | None, failed: dict[str, str],
                      plugin: dict[str, bytes] | None, na: dict[str, str] | None = None) -> TaskOut:
    """The task: run one configuration's benchmarks on this worker (building it first
    when ``builds == "workers"``). Returns (plan position, result, timeline, source hash:
    None when the driver computes it)."""
    problems = check_worker(WORKER_TOOLS[builds], expect)
    if plugin is not None:
        _use_plugin(plugin)
    elif not any(p for p in problems if "rtoslab-plugin" in p):
        problems += check_worker(("rtoslab-plugin",), expect)
    if problems:
        return [(i, BenchResult(b.name, "failed", f"{b.name}: {problems[0]}"), None, None)
                for i, b in zip(indices, benches, strict=True)]
    if images is None:
        try:
            built = build(config, benches, True)
        except RtoslabError as e:
            return [(i, BenchResult(b.name, "failed", f"{b.name}: {e}"), None, None)
                    for i, b in zip(indices, benches, strict=True)]
    else:
        built = _unpack(config, images, failed, na or {})
    runner = QemuRunner()
    out: TaskOut = []
    for i, bench in zip(indices, benches, strict=True):
        hash_here = source_hash(config, bench) if images is None else None
        if bench.name in built.failed:
            out.append((i, BenchResult(bench.name, "failed", f"{bench.name}: {built.failed[bench.name]}"),
                        None, hash_here))
            continue
        if bench.name in built.na:  # (its image does not fit the target after all)
            out.append((i, BenchResult(bench.name, "n/a", built.na[bench.name]), None, hash_here))
            continue
        result, timeline = run_benchmark_traced(config, bench, built, runner, irq_windows)
        out.append((i, result, timeline, hash_here))
    return out


# ----------------------------------------------------------------------------- driver side
def _lost(err: BaseException) -> str:
    text = str(err).strip().splitlines()
    first = next((ln.strip() for ln in text if ln.strip()), type(err).__name__)
    return (f"the cluster task failed after {MAX_RETRIES + 1} tries ({type(err).__name__}: "
            f"{first[:200]})")


def _execute(session: ClusterSession, store: Store, run_id: int,
             plan: list[tuple[BuildConfig, list[Benchmark]]],
             on_progress: Callable[[Progress], None] | None, irq_windows: bool,
             offsets: Sequence[int] | None) -> list[BenchResult]:
    ray = session.ray
    if session.builds == "driver":
        QemuRunner().preflight()  # the driver's plugin and QEMU name the identity
    ordered = PlanResults(store, run_id, plan, offsets, lambda _target: "model", on_progress)
    groups: dict[str, tuple[BuildConfig, list[tuple[int, Benchmark]]]] = {}
    for i in ordered.runnable():
        config, bench, _ = ordered.items[i]
        groups.setdefault(config.measure_key(), (config, []))[1].append((i, bench))

    tools = {t.name: t.version for t in tool_status() if t.found}
    task = ray.remote(num_cpus=1, max_retries=MAX_RETRIES, retry_exceptions=False)(run_configuration)
    plugin_ref = ray.put(plugin_files()) if session.builds == "driver" else None
    pending: dict[Any, list[tuple[int, str]]] = {}  # task -> (plan position, benchmark)
    try:
        def submit(config: BuildConfig, members: list[tuple[int, Benchmark]],
                   built: BuildResult | str | None) -> None:
            benches = [b for _, b in members]
            indices = [i for i, _ in members]
            expect = {k: v for k, v in tools.items() if k in (*WORKER_TOOLS["workers"], "rtoslab-plugin")}
            if isinstance(built, str):  # the driver's build of the whole configuration failed
                for i, b in members:
                    ordered.put(i, BenchResult(b.name, "failed", f"{b.name}: {built}"))
                return
            images: dict[str, bytes] | None = None
            failed: dict[str, str] = {}
            na: dict[str, str] = {}
            if built is not None:
                images, failed, na = {}, dict(built.failed), dict(built.na)
                for b in benches:
                    if b.name in built.elfs:
                        elf = built.elfs[b.name]
                        images[elf.name] = elf.read_bytes()
                        images[elf.with_suffix(".map").name] = elf.with_suffix(".map").read_bytes()
                if images:
                    cfg_json = built.elfs[next(iter(built.elfs))].parent / "rtoslab-config.json"
                    images[cfg_json.name] = cfg_json.read_bytes()
            ref = task.remote(config, benches, indices, irq_windows, expect, session.builds, images,
                              failed, plugin_ref, na)
            pending[ref] = [(i, b.name) for i, b in members]

        if session.builds == "driver":
            # build on the driver (as a local run builds), ship each configuration when built
            with ThreadPoolExecutor(max_workers=max(1, session.jobs)) as pool:
                futs = {pool.submit(build, cfg, [b for _, b in members], True): key
                        for key, (cfg, members) in groups.items()}
                for fut in as_completed(futs):
                    key = futs[fut]
                    cfg, members = groups[key]
                    try:
                        done = fut.result()
                        store.add_build(run_id, cfg.image_key(), cfg.target, cfg.kernel, len(members),
                                        done.seconds, done.rebuilt)
                        built: BuildResult | str = done
                    except RtoslabError as e:
                        built = str(e)
                    ordered.report(Progress(cfg, "", "built"))
                    submit(cfg, members, built)
                    _collect(ray, pending, ordered, block=False)
        else:
            for cfg, members in groups.values():
                submit(cfg, members, None)
        ordered.flush()
        while pending:
            _collect(ray, pending, ordered, block=True,
                     built=lambda i: ordered.report(Progress(ordered.items[i][0], "", "built"))
                     if session.builds == "workers" else None)
    except BaseException:
        for ref in pending:
            with contextlib.suppress(Exception):
                ray.cancel(ref, force=True)
        raise
    return ordered.in_order()


def _collect(ray: Any, pending: dict[Any, list[tuple[int, str]]], ordered: PlanResults,
             block: bool, built: Callable[[int], None] | None = None) -> None:
    """Take the finished tasks' results (wait for one when ``block``) and store what can be."""
    if not pending:
        return
    ready, _ = ray.wait(list(pending), num_returns=1 if block else len(pending),
                        timeout=None if block else 0)
    for ref in ready:
        members = pending.pop(ref)
        try:
            out: TaskOut = ray.get(ref)
        except Exception as err:  # lost with its worker after the retries, or the task raised
            for i, name in members:
                ordered.put(i, BenchResult(name, "failed", f"{name}: {_lost(err)}"))
            continue
        if built is not None and members:
            built(members[0][0])
        for i, result, timeline, digest in out:
            ordered.put(i, result, timeline, digest)
    ordered.flush()
