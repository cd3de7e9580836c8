"""A benchmark's timeline: which task ran, which interrupt preempted it, where the probe
intervals lie (docs/timeline.md).

Built from what a traced run recorded (`rtoslab run --trace`): the probe trace, whose
hits include the port's task-switch hook (probe ids LAB_TRACE_TASK_FIRST_ID + task
number, lab/port.h), the plugin's exception event file, the task names the port printed
(``LAB-TASK n name``) and the probe metadata. Pure functions over plain values: the
runner and the pipeline read files, this module only arranges what they read.

A timeline keeps one window of the run, bounded by ``cap`` items (slices and marks):
it starts at the first benchmark probe hit (after the harness's calibration), and the
task and interrupt that were running then are shown from where they started. When the
cap is reached, ``truncated`` is set and ``note`` says where the window ends.

Several cores (``cores`` > 1, e.g. ``mps2-an521``, and some event or probe hit on a core
other than 0; otherwise the timeline is the one-core one): every core has its own current task
and its own interrupt nesting, so every task and handler lane is a (core, lane) pair,
named ``core N ...``; probe marks go to ``core N probes``; interval lanes stay one per
metric (an interval may start on one core and end on the other). All times are then the
machine's shared clock (every core's counts summed at the event: docs/timing-model.md,
"Two cores"), so the cores' lanes line up on one axis; the note says so. With one core
the timeline is what it always was (own counts, lane names without a core).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path

from rtoslab.records import KIND_INTERVAL, Hit, PairMeta, RtoslabError
from rtoslab.trace.events import KIND_ENTRY, KIND_RETURN, KIND_TAIL_CHAIN, ExcEvent
from rtoslab.views import RunView

FORMAT = "rtoslab.timeline/1"
DEFAULT_CAP = 20_000


def task_first_id(probe_size: int, trace_tasks: int) -> int:
    """First probe id of the task-switch hook: LAB_TRACE_TASK_FIRST_ID in lab/port.h, the
    region's last ``trace_tasks`` ids (LAB_TRACE_TASKS there; the pipeline reads it)."""
    return probe_size // 4 - trace_tasks


def split_task_hits(hits: Sequence[Hit], first_id: int) -> tuple[tuple[Hit, ...], tuple[Hit, ...]]:
    """(benchmark and harness hits, task-switch hook hits): the analysis sees only the first."""
    probes = tuple(h for h in hits if h.probe_id < first_id)
    tasks = tuple(h for h in hits if h.probe_id >= first_id)
    return probes, tasks


@dataclass(frozen=True)
class Slice:
    """Something that lasted: a task being current, a handler running, a probe interval.
    Times are guest instructions and modelled cycles completed (cycles 0 without a model)."""

    kind: str  # "task" | "irq" | "interval"
    lane: str
    name: str
    start_insns: int
    start_cycles: int
    end_insns: int
    end_cycles: int
    core: int = 0


@dataclass(frozen=True)
class Mark:
    """One probe hit."""

    lane: str
    name: str
    insns: int
    cycles: int
    core: int = 0


@dataclass(frozen=True)
class Timeline:
    benchmark: str
    config: str  # the configuration, as its axes name it
    clock_hz: float | None  # None: no cycle model (times are instructions only)
    slices: tuple[Slice, ...]
    marks: tuple[Mark, ...]
    window_insns: tuple[int, int]
    truncated: bool
    note: str
    lanes: tuple[str, ...] = field(default=())  # in display order

    def to_json(self) -> str:
        d = asdict(self)
        d["format"] = FORMAT
        d["slices"] = [list(asdict(s).values()) for s in self.slices]
        d["marks"] = [list(asdict(m).values()) for m in self.marks]
        return json.dumps(d, separators=(",", ":"))

    @staticmethod
    def from_json(text: str, source: str) -> Timeline:
        try:
            d = json.loads(text)
            if d.get("format") != FORMAT:
                raise RtoslabError(f"timeline {source}: format {d.get('format')!r} is not {FORMAT}: "
                                   "run the benchmark again with this rtoslab")
            return Timeline(
                benchmark=str(d["benchmark"]), config=str(d["config"]),
                clock_hz=None if d["clock_hz"] is None else float(d["clock_hz"]),
                slices=tuple(Slice(*s) for s in d["slices"]),
                marks=tuple(Mark(*m) for m in d["marks"]),
                window_insns=(int(d["window_insns"][0]), int(d["window_insns"][1])),
                truncated=bool(d["truncated"]), note=str(d["note"]),
                lanes=tuple(str(x) for x in d["lanes"]))
        except (ValueError, KeyError, TypeError) as err:
            raise RtoslabError(f"timeline {source} is damaged ({err}): run the benchmark again") from err


def tname_of(lane: str, multi: bool) -> str:
    """A task lane's task name: the lane without its ``core N`` prefix (several cores)."""
    return lane.split(" ", 2)[2] if multi else lane


def task_lane(n: int, names: Mapping[int, str]) -> str:
    if n in names:
        return f"task {n} {names[n]}"
    return "task 0 (kernel: idle)" if n == 0 else f"task {n}"


def build_timeline(benchmark: str, config: str, probe_hits: Sequence[Hit],
                   task_hits: Sequence[Hit], first_task_id: int, events: Iterable[ExcEvent],
                   names: Mapping[int, str], metas: Sequence[PairMeta],
                   handler_names: Mapping[int, str], clock_hz: float | None,
                   end: tuple[int, int] | None, cap: int = DEFAULT_CAP,
                   cores: int = 1) -> Timeline:
    """Arrange one run's events into a timeline window (see the module docstring).

    Order: by instructions completed (with several ``cores``: on the shared clock); at
    equal counts an exception event comes before a probe store (the event is at the
    start of the block that holds the store). ``end``: the machine's totals.
    """
    events = tuple(events)
    # Lanes per core only when a core other than 0 shows up (a one-core kernel on a
    # two-core machine keeps the one-core timeline: core 1 never ran, its counts are 0).
    multi = cores > 1 and (any(ev.core != 0 for ev in events)
                           or any(h.core != 0 for h in (*probe_hits, *task_hits)))

    def at_ev(ev: ExcEvent) -> tuple[int, int]:
        return (ev.shared_insns, ev.shared_cycles) if multi else (ev.insns, ev.cycles)

    def at_hit(h: Hit) -> tuple[int, int]:
        return (h.shared_insns, h.shared_cycles) if multi else (h.insns, h.cycles)

    def on_core(core: int, lane: str) -> str:
        return f"core {core} {lane}" if multi else lane

    items: list[tuple[int, int, int, object]] = []
    for i, ev in enumerate(events):
        items.append((at_ev(ev)[0], 0, i, ev))
    for i, h in enumerate(sorted([*probe_hits, *task_hits], key=lambda h: at_hit(h)[0])):
        items.append((at_hit(h)[0], 1, i, h))
    items.sort(key=lambda t: (t[0], t[1], t[2]))
    # The calibration pair, found by its .lab_meta flag (its ids are the harness's).
    calibration = {i for m in metas if m.is_calibration for i in (m.start_id, m.end_id)}
    bench_hits = [h for h in probe_hits if h.probe_id not in calibration]
    win_start = min(at_hit(h)[0] for h in bench_hits) if bench_hits else 0
    starts = {m.start_id: m for m in metas if m.kind == KIND_INTERVAL and not m.is_calibration}
    ends = {m.end_id: m for m in metas if m.kind == KIND_INTERVAL and not m.is_calibration}
    metric_of = {m.start_id: m.name for m in metas} | {m.end_id: m.name for m in metas}

    slices: list[Slice] = []
    marks: list[Mark] = []
    lanes: list[str] = []
    # Per core: the current task (lane, start insns, start cycles) and the handler stack.
    tasks: dict[int, tuple[str, int, int]] = {}
    stacks: dict[int, list[tuple[str, int, int]]] = {}
    open_iv: dict[str, tuple[int, int, int]] = {}  # metric: start insns, cycles, core
    truncated = False
    last = (win_start, 0)

    def lane_seen(lane: str) -> None:
        if lane not in lanes:
            lanes.append(lane)

    def emit(s: Slice) -> None:
        if s.end_insns >= win_start:
            lane_seen(s.lane)
            slices.append(s)

    def irq_lane(core: int, pc: int) -> str:
        return on_core(core, "irq " + handler_names.get(pc & ~1, f"{pc:#x}"))

    def irq_name(lane: str) -> str:
        return lane.split("irq ", 1)[1]

    for insns, _, _, item in items:
        if len(slices) + len(marks) >= cap:
            truncated = True
            break
        if isinstance(item, ExcEvent):
            cycles = at_ev(item)[1]
            core = item.core
            stack = stacks.setdefault(core, [])
            if item.kind in (KIND_RETURN, KIND_TAIL_CHAIN) and stack:
                lane, si, sc = stack.pop()
                emit(Slice("irq", lane, irq_name(lane), si, sc, insns, cycles, core))
            if item.kind in (KIND_ENTRY, KIND_TAIL_CHAIN):
                stack.append((irq_lane(core, item.pc), insns, cycles))
        else:
            assert isinstance(item, Hit)
            cycles = at_hit(item)[1]
            core = item.core
            if item.probe_id >= first_task_id:
                tname = task_lane(item.probe_id - first_task_id, names)
                if core in tasks:
                    t = tasks[core]
                    emit(Slice("task", t[0], tname_of(t[0], multi), t[1], t[2], insns, cycles,
                               core))
                tasks[core] = (on_core(core, tname), insns, cycles)
            elif item.probe_id not in calibration:
                name = metric_of.get(item.probe_id, "")
                if insns >= win_start:
                    plane = on_core(core, "probes")
                    lane_seen(plane)
                    marks.append(Mark(plane, f"probe {item.probe_id} {name}".strip(), insns, cycles,
                                      core))
                if item.probe_id in starts:
                    open_iv[starts[item.probe_id].name] = (insns, cycles, core)
                if item.probe_id in ends and ends[item.probe_id].name in open_iv:
                    mname = ends[item.probe_id].name
                    si, sc, score = open_iv.pop(mname)
                    emit(Slice("interval", f"metric {mname}", mname, si, sc, insns, cycles, score))
        last = (insns, cycles)
    close = last if truncated or end is None else end
    for core in sorted(tasks):
        t = tasks[core]
        emit(Slice("task", t[0], tname_of(t[0], multi), t[1], t[2], *close, core))
    for core in sorted(stacks):
        for lane, si, sc in reversed(stacks[core]):
            emit(Slice("irq", lane, irq_name(lane), si, sc, *close, core))
    if truncated:
        note = (f"window: from the first benchmark probe (instruction {win_start}) for {cap} items, "
                f"to instruction {close[0]}; the rest of the run is not shown")
    else:
        note = f"window: from the first benchmark probe (instruction {win_start}) to the end of the run"
    if multi:
        note += (f"; {cores} cores: times are the machine's shared clock (every core's instructions "
                 "and cycles summed), lanes 'core N ...' are that core's")
    order = {"task": 0, "irq": 1, "metric": 2, "probes": 3}
    seen_at = {ln: i for i, ln in enumerate(lanes)}

    def lane_key(ln: str) -> tuple[int, int, int]:
        words = ln.split(" ")
        if multi and words[0] == "core":
            # A core's own lanes together, in core order; the metrics after every core.
            return (int(words[1]), order.get(words[2], 4), seen_at[ln])
        return (cores if multi else 0, order.get(words[0], 4), seen_at[ln])

    lanes.sort(key=lane_key)
    return Timeline(benchmark, config, clock_hz, tuple(slices), tuple(marks), (win_start, close[0]),
                    truncated, note, tuple(lanes))


def timeline_dir(db_path: Path, run_id: int) -> Path:
    """Where a run's timelines are stored: beside the database, under its file name, so two
    databases in one folder never share one (docs/timeline.md)."""
    return db_path.parent / "timelines" / db_path.name / f"run-{run_id}"


def load_run_timelines(db_path: Path, view: RunView) -> list[Timeline]:
    """The timelines of a stored run. A run stored before timelines were kept under the
    database's name has them in ``timelines/run-N/``, a folder another database in the
    same folder may have written too: from there only the files of this run's own results
    (the result id and the benchmark both match) are read."""
    own = timeline_dir(db_path, view.id)
    if own.is_dir():
        return load_timelines(own)
    mine = {r.id: r.benchmark for r in view.results}
    legacy = db_path.parent / "timelines" / f"run-{view.id}"
    return [t for i, t in _load(legacy) if mine.get(i) == t.benchmark]


def save_timeline(directory: Path, bench_run_id: int, timeline: Timeline) -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / f"bench-{bench_run_id}.json"
    path.write_text(timeline.to_json())
    return path


def load_timelines(directory: Path) -> list[Timeline]:
    """Every timeline of a run, in the order the benchmark results were stored."""
    return [t for _, t in _load(directory)]


def _load(directory: Path) -> list[tuple[int, Timeline]]:
    """(result id, timeline) of every file in ``directory``, by result id."""
    if not directory.is_dir():
        return []
    files = sorted((p for p in directory.glob("bench-*.json") if p.stem.split("-")[1].isdigit()),
                   key=lambda p: int(p.stem.split("-")[1]))
    return [(int(p.stem.split("-")[1]), Timeline.from_json(p.read_text(), str(p))) for p in files]
