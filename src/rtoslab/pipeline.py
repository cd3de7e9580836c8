"""One pass of the data flow for a list of (configuration, benchmarks):

    build -> run -> samples/statistics -> store

Each benchmark result is stored in its own transaction as soon as it exists, so an
interrupted run keeps everything finished before the interruption.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import Future, ThreadPoolExecutor, as_completed
from dataclasses import dataclass, replace
from functools import cache
from pathlib import Path

from rtoslab.analysis.analyse import analyse
from rtoslab.analysis.derived import apply_totals, derive, total_names
from rtoslab.analysis.irq_windows import locate, parse_report
from rtoslab.analysis.paced import apply_paced, is_paced
from rtoslab.builder.cmake import BuildResult, bench_inputs, build, check_build_tools, link_flags
from rtoslab.builder.config import BuildConfig, canonical_json, sha256_text, tree_hash
from rtoslab.builder.footprint import footprint_of
from rtoslab.builder.rust import rustc_version
from rtoslab.builder.sharing import images_dir, private_run_dir, release_run_dir
from rtoslab.catalog import Benchmark, Catalog, Target, define_na_reason, na_reason
from rtoslab.exitcodes import code_of
from rtoslab.lab_headers import trace_tasks
from rtoslab.paths import cache_root, check_cache, firmware_root, plugin_path
from rtoslab.records import EXTRA_KEYS, BenchResult, Footprint, Hit, HostError, PairMeta, RtoslabError
from rtoslab.runners.base import Runner, RunRequest
from rtoslab.runners.fault import symbolize
from rtoslab.runners.qemu import exception_handlers, qemu_command
from rtoslab.store.db import Store
from rtoslab.timing import description, plugin_args
from rtoslab.tools import tool_versions
from rtoslab.trace.events import ExcEvents, read_events
from rtoslab.trace.meta import read_probe_meta
from rtoslab.trace.timeline import (
    Timeline,
    build_timeline,
    save_timeline,
    split_task_hits,
    task_first_id,
    timeline_dir,
)


@dataclass(frozen=True)
class Progress:
    config: BuildConfig
    benchmark: str
    stage: str  # "built" (a configuration) | "done" (a benchmark result stored)
    result: BenchResult | None = None


def config_na_reason(config: BuildConfig, bench: Benchmark) -> str | None:
    """Why ``bench`` cannot run in ``config`` (its kernel's or target's capabilities, the
    allocator's, the defines it allows), or None: the one check that makes a result n/a."""
    return (na_reason(bench, config.kernel_info(), config.target_info())
            or config.catalog.alloc_na_reason(bench, config.define_map())
            or define_na_reason(bench, config.define_map()))


def config_identity(config: BuildConfig, measured_on: str = "model") -> dict[str, object]:
    """Everything that identifies a configuration's results (stored with each of them).

    Three keys (docs/formats.md, "Identity"): ``image_key`` (the build cache: the image
    set), ``measure_key`` (the image and the timing settings: the trace directory) and
    ``identity_hash``, which covers all of this dict, tool versions included, so results
    from another compiler, emulator or plugin never share a configuration row. No path of
    the checkout enters it: two clones of one revision share their identities.
    ``axes`` are the configuration's axis values as the experiment (or the command line)
    named them, for comparison tables. ``flash_ws_from`` says where the effective flash_ws
    came from (``BuildConfig.flash_ws_from``) when it was given or set by the target's
    clock rule, so a report can say which applied without reading target.toml;
    ``timing_defaults`` is the plugin's default of each setting, so a footer can tell which
    settings differ from it without asking today's plugin; ``kernel_defaults`` the port's
    option defaults, likewise for the kernel options.
    ``measured_on``: ``model`` (the QEMU plugin), ``hardware:<target>`` or
    ``emulator:<version>`` (the GDB runner; docs/boards.md); ``probe``: the probe mode of a
    buffer-mode image. Both are stored only when not the defaults (a missing
    ``measured_on`` reads as "model", a missing ``probe`` as region), so the identities of
    every modelled run stay what they were.
    """
    tools = tool_versions()
    target = config.target_info()
    timing = config.timing_settings()
    compiler = "avr-gcc" if target.arch == "avr" else "arm-none-eabi-gcc"
    identity: dict[str, object] = {
        "image_key": config.image_key(),
        "measure_key": config.measure_key(),
        "target": config.target,
        "core": str(timing.get("core", target.core)),
        "clock_hz": int(timing.get("clock_hz", target.clock_hz)),  # type: ignore[call-overload]
        "kernel": config.kernel,
        "kernel_config": config.resolved_kernel_options(),
        "kernel_config_hash": config.kernel_config_hash(),
        # the port's option defaults (port.toml), so a report tells which options differ
        # from them without reading today's port.toml
        "kernel_defaults": dict(config.kernel_info().options),
        "compiler": compiler,
        "compiler_version": tools.get(compiler, "").removeprefix(f"{compiler} "),
        "cflags": " ".join(config.cflags),
        "defines": config.define_map(),
        "ldflags": " ".join(link_flags(config.target_info().arch)),
        "timing": timing,
        # the plugin's declared defaults: a setting absent from "timing", or equal to its
        # default here, is at the default (the footers show the others)
        "timing_defaults": description().defaults(),
        "axes": config.axis_values(),
        "emulator": tools.get(f"qemu-system-{target.qemu_system}", ""),
        "plugin": tools.get("rtoslab-plugin", ""),
    }
    tree = config.kernel_tree()
    if tree is not None:  # the user's kernel tree (--kernel-source): version, content, commit
        identity["kernel_source"] = tree.identity()
    if config.kernel_info().rust_crate:  # a Rust model: Debian's rustc builds its images
        identity["rust_compiler"] = rustc_version()
    flash_ws_from = config.flash_ws_from()
    if flash_ws_from is not None:  # given, or the target's clock rule (absent: its [timing] default)
        identity["flash_ws_from"] = flash_ws_from
    if config.probe_mode() != "region":
        identity["probe"] = config.probe_mode()
    if measured_on != "model":
        identity["measured_on"] = measured_on
    identity["identity_hash"] = sha256_text(canonical_json(identity))[:12]
    return identity


@cache
def _source_hash(bench_dir: Path, target_dir: Path, port_dir: Path) -> str:
    fw = firmware_root()
    return tree_hash([bench_dir, fw / "workloads", fw / "harness", fw / "include", fw / "arch",
                      fw / "boards", target_dir, port_dir])


def external_inputs(config: BuildConfig, bench: Benchmark) -> list[Path]:
    """What the benchmark's bench.cmake pulled in from outside the checkout's firmware
    folder (sources, include folders), as its last build configured them (the published
    listing beside its image; before a successful build, the build folder's)."""
    fw = firmware_root().resolve()
    build_dir = images_dir(config.image_key())
    if not (build_dir / f"{bench.name}.inputs").is_file():
        build_dir = cache_root() / "build" / config.image_key()
    return sorted({p.resolve() for p in bench_inputs(build_dir, bench.name)
                   if p.exists() and not p.resolve().is_relative_to(fw)})


def source_hash(config: BuildConfig, bench: Benchmark) -> str:
    """Hash of all of the source compiled into a benchmark's image that no version pins:
    its folder, the shared workloads, harness and seams, the target (with the Cortex-M and
    board-family code targets share, firmware/arch and firmware/boards) and the kernel port
    (for a Rust model also the firmware/rust workspace), and whatever its bench.cmake
    pulled in from outside the firmware folder (so the identity changes when they do).
    (Third-party sources are pinned by version in deps/Cargo.lock and
    firmware/rust/Cargo.lock; flags are in the configuration.)"""
    kernel = config.kernel_info()
    base = _source_hash(bench.path, config.target_info().path, kernel.path)
    if kernel.base_path is not None:  # the port it builds on (port.toml base) is compiled in too
        base = sha256_text(base + tree_hash([kernel.base_path]))
    if kernel.rust_crate:  # a Rust model: the firmware/rust workspace is compiled in too
        base = sha256_text(base + tree_hash([firmware_root() / "rust"]))
    extra = external_inputs(config, bench)
    if not extra:
        return base  # (the hash of a benchmark with no outside inputs, as before)
    return sha256_text(base + "\0" + tree_hash(extra))


def traced(config: BuildConfig) -> bool:
    """The configuration has the timeline hook on (LAB_TRACE=1; `rtoslab run --trace`)."""
    return config.define_map().get("LAB_TRACE", "0") not in ("0", "")


def run_benchmark(config: BuildConfig, bench: Benchmark, built: BuildResult,
                  runner: Runner, irq_windows: bool = False) -> BenchResult:
    """Run one built benchmark and analyse it. Failures become a failed result.
    ``irq_windows``: also track masked windows and keep them, located in the source
    (docs/irq-windows.md)."""
    return run_benchmark_traced(config, bench, built, runner, irq_windows)[0]


def _timeline(config: BuildConfig, bench: Benchmark, elf: Path, names: dict[int, str],
              probe_hits: tuple[Hit, ...], task_hits: tuple[Hit, ...], first: int,
              events: ExcEvents, metas: Sequence[PairMeta], clock_hz: float | None,
              end: tuple[int, int] | None, cores: int = 1) -> Timeline:
    handlers = {a: symbolize(elf, a) or f"{a:#x}" for a in exception_handlers(elf)}
    label = " ".join([config.kernel, *(f"{k}={v}" for k, v in config.axis_values().items()
                                       if k not in ("target", "kernel"))])
    tl = build_timeline(bench.name, label, probe_hits, task_hits, first, events.events,
                        names, metas, handlers, clock_hz, end, cores=cores)
    if events.capped:
        tl = replace(tl, note=tl.note + "; the plugin's event cap was reached (later interrupts "
                     "are missing)")
    return tl


def plugin_model(timing: Mapping[str, object], target: Target) -> dict[str, object]:
    """The plugin's timing-model arguments for resolved timing settings: all but the host's
    own, and with the one clock (``time = "one-clock"``) ``time_hz``, the rate at which the
    emulated machine's CPU clock runs in QEMU's virtual time (target.toml ``clock_hz``): its
    SysTick and the timers QEMU derives from it then count modelled cycles, whatever clock
    the cycles are converted at (docs/timing-model.md, "One clock")."""
    model = dict(plugin_args(timing))
    if timing.get("time") == "one-clock":
        model["time_hz"] = target.spec.clock_hz
    return model


def run_benchmark_traced(config: BuildConfig, bench: Benchmark, built: BuildResult,
                         runner: Runner, irq_windows: bool = False
                         ) -> tuple[BenchResult, Timeline | None]:
    """Run one built benchmark and analyse it; with the timeline hook on (``traced``) also
    arrange its timeline; with ``irq_windows`` also track masked windows. Failures become a
    failed result (and no timeline)."""
    work = private_run_dir(config.measure_key(), bench.name)  # timing too: no collisions
    try:
        return _run_in(config, bench, built, runner, irq_windows, work)
    finally:
        release_run_dir(work, bench.name)


def _run_in(config: BuildConfig, bench: Benchmark, built: BuildResult, runner: Runner,
            irq_windows: bool, work: Path) -> tuple[BenchResult, Timeline | None]:
    target = config.target_info()
    timing = config.timing_settings()
    clock_hz = float(timing.get("clock_hz", target.clock_hz))  # type: ignore[arg-type]
    req = RunRequest(
        benchmark=bench.name,
        elf=built.elfs[bench.name],
        target=target,
        work_dir=work,  # this run's own folder: its trace and event files (builder/sharing.py)
        insn_limit=bench.insn_limit,
        timeout_s=bench.timeout_s,
        model=plugin_model(timing, target),
        events=traced(config),
        irq_windows=irq_windows,
    )
    try:
        out = runner.run(req)
    except HostError:
        raise  # a full disk: the run stops (incomplete), no benchmark is blamed
    except RtoslabError as e:
        msg = str(e) if str(e).startswith(bench.name) else f"{bench.name}: {e}"
        return BenchResult(bench.name, "failed", msg), None
    footprint: Footprint | None = None
    footprint_error: str | None = None
    try:
        footprint = footprint_of(built.elfs[bench.name], target)
    except RtoslabError as e:
        footprint_error = str(e)
    reserved = sorted(set(out.console_report.counters) & set(EXTRA_KEYS))
    counters = {k: v for k, v in out.console_report.counters.items() if k not in EXTRA_KEYS}
    if out.drains:
        # Each drain of a full probe buffer put its call's cycles into one interval
        # (docs/boards.md, "The probe buffer"): the result says how many there were.
        counters["probe_buffer_drains"] = out.drains
    # Every outcome of this run carries its console, wall time, counters and footprint.
    failed = BenchResult(bench.name, "failed", None, console=out.console, wall_s=round(out.wall_s, 3),
                         counters=counters, footprint=footprint, footprint_error=footprint_error,
                         console_dropped=out.console_dropped)
    if reserved:
        return replace(failed, reason=f"{bench.name}: LAB-KV name(s) {', '.join(reserved)} are "
                       "reserved: rename the value in the benchmark"), None
    if out.exit_code == code_of("UNSUPPORTED"):  # LAB_EXIT_UNSUPPORTED (lab/exit.h)
        # The image itself found it cannot run this benchmark in this configuration (e.g.
        # a cross-core benchmark on a kernel that schedules one core): n/a with its reason.
        why = out.console_report.fail or "the image cannot run this benchmark here"
        reason = why if why.startswith(f"{bench.name}: ") else f"{bench.name}: {why}"
        return replace(failed, status="n/a", reason=reason), None
    if not out.ok or out.trace is None:
        return replace(failed, reason=out.failure), None
    trace = out.trace
    timeline: Timeline | None = None
    try:
        metas = read_probe_meta(built.elfs[bench.name])
        if traced(config):
            # The task-switch hook's hits belong to the timeline, not to any metric.
            first = task_first_id(trace.probe_size, trace_tasks())
            probe_hits, task_hits = split_task_hits(trace.hits, first)
            trace = replace(trace, hits=probe_hits)
            events = read_events(out.events_path) if out.events_path else ExcEvents((), False)
            end_at = (trace.end.total_insns, trace.end.total_cycles) if trace.end else None
            timeline = _timeline(config, bench, built.elfs[bench.name], out.console_report.tasks,
                                 probe_hits,
                                 task_hits, first, events, metas,
                                 clock_hz if trace.has_cycles else None, end_at, trace.cores)
        calib, metrics = analyse(trace, metas, clock_hz)
        metrics = apply_totals(metrics, bench.metric_decls)
        metrics += derive(metrics, bench.derived, counters, clock_hz if trace.has_cycles else None,
                          total_names(bench.metric_decls))
        # On the one clock ticks and timers fire at modelled cycles: nothing is paced.
        if timing.get("time") != "one-clock" and is_paced(bench.paced, bench.paced_when,
                                                            config.kernel_info().capabilities):
            metrics = apply_paced(metrics, bench.paced)
    except RtoslabError as e:
        return replace(failed, reason=f"{bench.name}: {e}"), None
    windows = None
    if irq_windows:
        if out.irq_windows is None:
            return replace(failed, reason=f"{bench.name}: the plugin wrote no irq-windows report"), None
        try:
            windows = locate(parse_report(out.irq_windows, bench.name), built.elfs[bench.name])
        except RtoslabError as e:
            return replace(failed, reason=f"{bench.name}: {e}"), None
    end = trace.end
    return replace(failed, status="ok", irq_windows=windows, metrics=tuple(metrics), calibration=calib,
                   total_insns=end.total_insns if end else 0,
                   total_cycles=end.total_cycles if end else 0), timeline


def preflight(runner: Runner) -> None:
    """What a run needs of the machine, checked before its run record exists (so a missing
    tool or an unusable cache leaves no empty run behind): a writable build cache, CMake,
    Ninja, the compiler, and the runner's emulator and plugin."""
    check_cache()
    check_build_tools()
    runner.preflight()


class PlanResults:
    """A plan's results, stored in plan order: each as soon as it and every one before it
    exist, so the stored order does not depend on timing and an interrupted run keeps a
    consistent prefix; a result's timeline is saved beside the database with it. The one
    way results reach the store, for a local run (``execute``) and a cluster's driver
    (``rtoslab.cluster``) alike; its calls come from one thread.

    ``offsets``: for each configuration of ``plan``, the position of its first result in
    the whole plan this one is a shard of, stored as each result's ``plan_index``; None:
    the plan is whole. ``measured_on``: what measures a target's results (the runner's
    ``measured_on``), part of each configuration's stored identity."""

    def __init__(self, store: Store, run_id: int, plan: list[tuple[BuildConfig, list[Benchmark]]],
                 offsets: Sequence[int] | None, measured_on: Callable[[str], str],
                 on_progress: Callable[[Progress], None] | None) -> None:
        self._store = store
        self._run_id = run_id
        self._on_progress = on_progress
        self.items: list[tuple[BuildConfig, Benchmark, int]] = []  # (config, bench, config id)
        self._positions: list[int] = []
        for n, (config, benches) in enumerate(plan):
            config_id = store.upsert_config(config_identity(config, measured_on(config.target)))
            start = len(self.items) if offsets is None else offsets[n]
            self._positions.extend(range(start, start + len(benches)))
            self.items.extend((config, b, config_id) for b in benches)
        self.results: list[BenchResult | None] = [None] * len(self.items)
        self._timelines: dict[int, Timeline] = {}
        self._hashes: list[str | None] = [None] * len(self.items)
        self._stored = 0

    def report(self, progress: Progress) -> None:
        if self._on_progress is not None:
            self._on_progress(progress)

    def put(self, i: int, result: BenchResult, timeline: Timeline | None = None,
            digest: str | None = None) -> None:
        """Item ``i``'s result (stored by the next ``flush`` once all before it are in);
        ``digest``: its source hash where it was computed elsewhere (a cluster worker)."""
        self.results[i] = result
        if timeline is not None:
            self._timelines[i] = timeline
        if digest is not None:
            self._hashes[i] = digest

    def runnable(self) -> list[int]:
        """Give every item that cannot run its n/a result (``config_na_reason``), store
        what can be, and return the positions of the others."""
        left = []
        for i, (config, bench, _) in enumerate(self.items):
            reason = config_na_reason(config, bench)
            if reason is not None:
                self.put(i, BenchResult(bench.name, "n/a", reason))
            else:
                left.append(i)
        self.flush()
        return left

    def flush(self) -> None:
        """Store the results that are in, in plan order, up to the first one missing."""
        while self._stored < len(self.items) and self.results[self._stored] is not None:
            i = self._stored
            config, bench, config_id = self.items[i]
            result = self.results[i]
            assert result is not None
            digest = self._hashes[i] or source_hash(config, bench)
            bench_run_id = self._store.add_bench_result(self._run_id, config_id, digest, result,
                                                        self._positions[i])
            if i in self._timelines:
                save_timeline(timeline_dir(self._store.path, self._run_id), bench_run_id,
                              self._timelines.pop(i))
            self.report(Progress(config, bench.name, "done", result))
            self._stored += 1

    def in_order(self) -> list[BenchResult]:
        """The results in plan order (those that exist)."""
        return [r for r in self.results if r is not None]


def execute(store: Store, run_id: int, plan: list[tuple[BuildConfig, list[Benchmark]]],
            runner: Runner, on_progress: Callable[[Progress], None] | None = None,
            jobs: int = 1, irq_windows: bool = False,
            offsets: Sequence[int] | None = None) -> list[BenchResult]:
    """Run the plan, storing every result. Returns the results in plan order.
    ``offsets``: for each configuration of ``plan``, the position of its first result in
    the whole plan this one is a shard of (``rtoslab.shard``), stored as each result's
    ``plan_index``; None: the plan is whole.

    Builds (one per configuration) and then runs (one per benchmark) go to a pool of
    ``jobs`` workers. Results are stored in plan order, each as soon as it and all
    before it exist, so the stored order does not depend on timing and an interrupted
    run keeps a consistent prefix. Progress callbacks come from this thread only.
    """
    runner.preflight()
    ordered = PlanResults(store, run_id, plan, offsets, runner.measured_on, on_progress)
    to_build: dict[str, tuple[BuildConfig, list[Benchmark]]] = {}
    for i in ordered.runnable():
        config, bench, _ = ordered.items[i]
        to_build.setdefault(config.image_key(), (config, []))[1].append(bench)

    with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        try:
            # partial: a benchmark whose own sources fail to build fails alone (its first
            # error line); the others of its configuration still run
            builds = {pool.submit(build, cfg, benches, True): h
                      for h, (cfg, benches) in to_build.items()}
            built: dict[str, BuildResult | str] = {}
            for fut in as_completed(builds):
                h = builds[fut]
                try:
                    result = fut.result()
                    built[h] = result
                    cfg, benches = to_build[h]
                    store.add_build(run_id, h, cfg.target, cfg.kernel, len(benches), result.seconds,
                                    result.rebuilt)
                except HostError:
                    raise  # a full disk: the run stops (incomplete), no benchmark is blamed
                except RtoslabError as e:
                    built[h] = str(e)
                ordered.report(Progress(to_build[h][0], "", "built"))
            runs: dict[Future[tuple[BenchResult, Timeline | None]], int] = {}
            for i, (config, bench, _) in enumerate(ordered.items):
                if ordered.results[i] is not None:
                    continue
                b = built[config.image_key()]
                if isinstance(b, str):
                    ordered.put(i, BenchResult(bench.name, "failed", f"{bench.name}: {b}"))
                elif bench.name in b.failed:
                    ordered.put(i, BenchResult(bench.name, "failed", f"{bench.name}: {b.failed[bench.name]}"))
                elif bench.name in b.na:
                    ordered.put(i, BenchResult(bench.name, "n/a", b.na[bench.name]))
                else:
                    runs[pool.submit(run_benchmark_traced, config, bench, b, runner,
                                     irq_windows)] = i
            ordered.flush()
            for ran in as_completed(runs):
                ordered.put(runs[ran], *ran.result())
                ordered.flush()
        except BaseException:
            pool.shutdown(wait=False, cancel_futures=True)
            runner.cancel()
            raise
    return ordered.in_order()


def dump_identity(config: BuildConfig) -> str:
    return json.dumps(config_identity(config), indent=1, sort_keys=True)


def gdbstub_command(catalog: Catalog, config_target: str, port: int, trace_path: Path,
                    timing: dict[str, object] | None = None) -> list[str]:
    """QEMU as a GDB server for the GDB runner (docs/boards.md, "Without a board"): the
    patched QEMU with the plugin's timing model on the one clock, so SysTick, which a
    buffer-mode image's probes read, counts modelled cycles; halted (-S) with no image
    (the runner loads it), gdbstub on 127.0.0.1:``port``. ``timing``: resolved settings
    (default: the target's). The plugin gets no handler list (the image is not known
    yet), so exception entries are not priced as the plugin path prices them."""
    config = BuildConfig(target=config_target, catalog=catalog)
    target = config.target_info()
    settings = timing if timing is not None else config.timing_settings()
    req = RunRequest(benchmark="gdbstub", elf=Path("/dev/null"), target=target,
                     work_dir=trace_path.parent, insn_limit=1 << 62, timeout_s=0,
                     model={**plugin_model(settings, target), "handlers": ""})
    cmd = qemu_command(req, trace_path, plugin_path())
    at = cmd.index("-kernel")
    del cmd[at:at + 2]
    return [*cmd, "-S", "-gdb", f"tcp:127.0.0.1:{port}"]
