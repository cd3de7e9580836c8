"""Pivot tables: the table an experiment asks its question with ([[report.table]]).

Every measured value of a run is a record with dimensions: the configuration's axes (as
``axes_of`` names them: ``kernel``, ``opt``, ``lto``, ``defines.TOGGLE_TASKS``,
``kernel_options.configTICK_RATE_HZ``, ...), ``benchmark`` and ``metric``. A pivot puts
some dimensions on the rows and some on the columns, keeps the records that match
``where`` and the ``metrics`` asked for, and writes one statistic in one unit per cell.
With several statistics (``stats``) the statistic is a dimension too, ``stat``, placed
like any other (seed 001's table: a row per statistic, a column per task's metric).
The unit may also be ``ms``: the stored microseconds divided by 1000, shown to the µs.
With a ratio ``(axis, over, under)`` a cell is the value where ``axis`` is ``over``
divided by the value where it is ``under``, the other placed dimensions equal (e.g. OS
/ FSM per scenario and optimisation level); a placed dimension the under configuration
lacks (a kernel option of the over kernel only) matches any value.

With unit ``byte`` a table shows image sizes instead of measured values: its metrics are
the footprint's (FOOTPRINT_METRICS: ``flash`` and ``ram``, the image's totals, and
``kernel_flash`` and ``kernel_ram``, the bytes of the kernel counted apart: the linker
map's ``kernel`` and ``port`` components, builder/footprint.py), one value per result (no
statistic). Where link-time optimisation merged objects (a ``lto`` component), the map
no longer tells the kernel's bytes from the rest: those cells are empty ("-") and the
table says why, never an estimate.

A cell holds exactly one record: two records in one cell mean a dimension that varies
is not placed, and that is an error naming it, never an average.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from dataclasses import dataclass, field

from rtoslab.records import Footprint, RtoslabError, TimeBase, Unit
from rtoslab.report.comparison.table import STATS, axes_of
from rtoslab.report.fit import fit_table
from rtoslab.report.labels import SEPARATOR, axis_text
from rtoslab.report.text import markdown_safe
from rtoslab.views import ResultView, RunView

DIMENSIONS_ALWAYS = ("benchmark", "metric")
# Statistics a cell may show: the comparison tables' and the sample standard deviation.
PIVOT_STATS = (*STATS, "stdev")
# Units shown scaled from a stored one: name -> (stored unit, factor, decimals shown).
SCALED_UNITS: dict[str, tuple[Unit, float, int]] = {"ms": (Unit.US, 1e-3, 3)}
# The unit of a size table: its records are the results' footprints, not measured values.
FOOTPRINT_UNIT = "byte"
# A size table's metrics: the image's flash and RAM bytes, and the kernel's counted apart.
FOOTPRINT_METRICS = ("flash", "ram", "kernel_flash", "kernel_ram")
# The footprint components that are the kernel (its own sources and our port code).
KERNEL_COMPONENTS = ("kernel", "port")
KERNEL_APART_NOTE = ("kernel bytes are the linker map's kernel and port objects; with LTO the "
                     "map cannot tell them from the rest, so those cells are empty")


def footprint_values(fp: Footprint) -> dict[str, float | None]:
    """A footprint as a size table's metrics (FOOTPRINT_METRICS); the kernel's bytes are
    None where LTO merged objects and the map cannot attribute them."""
    merged = bool(fp.flash.get("lto") or fp.ram.get("lto"))
    return {"flash": float(fp.flash_total), "ram": float(fp.ram_total),
            "kernel_flash": None if merged else float(sum(fp.flash.get(k, 0) for k in KERNEL_COMPONENTS)),
            "kernel_ram": None if merged else float(sum(fp.ram.get(k, 0) for k in KERNEL_COMPONENTS))}


@dataclass(frozen=True)
class PivotSpec:
    title: str
    rows: tuple[str, ...]
    columns: tuple[str, ...]
    metrics: tuple[str, ...] = ()  # empty: every metric
    unit: Unit | str = Unit.INSN  # a stored unit, or one of SCALED_UNITS ("ms")
    stat: str = "median"
    # Several statistics: "stat" becomes a dimension that rows or columns must place
    # (empty: the one ``stat``).
    stats: tuple[str, ...] = ()
    where: Mapping[str, object] = field(default_factory=dict)
    ratio: tuple[str, str, str] | None = None  # (axis, over, under)
    names: Mapping[str, str] = field(default_factory=dict)  # short names of dimensions
    chart: str = "auto"  # auto | line | bars | none (the HTML report's chart of the table)


Key = tuple[object, ...]


def value_texts(value: object) -> set[str]:
    """How a ratio's OVER or UNDER may name an axis value: as Python prints it, and a
    boolean also as TOML writes it (``lto`` true: "True" or "true")."""
    if isinstance(value, bool):
        return {str(value), str(value).lower()}
    return {str(value)}


@dataclass(frozen=True)
class Pivot:
    spec: PivotSpec
    row_dims: tuple[str, ...]
    col_dims: tuple[str, ...]
    row_keys: tuple[Key, ...]
    col_keys: tuple[Key, ...]
    cells: dict[tuple[Key, Key], float]
    timing: tuple[str, ...]  # the distinct timing-model footers of the configurations used
    # benchmark/metric of every cell whose time base is "paced" (docs/formats.md §5): the
    # table says so, never showing them as modelled time without a word
    paced: tuple[str, ...] = ()

    def paced_note(self) -> str:
        """One line naming the paced metrics in the table; "" when there are none."""
        if not self.paced:
            return ""
        return (f"paced by QEMU's instruction clock (ticks or timer interrupts inside; not a "
                f"board's elapsed time): {', '.join(self.paced)}")

    def note(self) -> str:
        """The table's note lines: paced metrics, and how a size table counts the kernel
        apart (when it shows the kernel's bytes); "" when there is nothing to say."""
        lines = [self.paced_note()]
        if self.spec.unit == FOOTPRINT_UNIT and any(
                m.startswith("kernel_") for m in (self.spec.metrics or FOOTPRINT_METRICS)):
            lines.append(KERNEL_APART_NOTE)
        return "\n".join(line for line in lines if line)

    def value(self, row: Key, col: Key) -> float | None:
        return self.cells.get((row, col))

    def dim_name(self, dim: str) -> str:
        return self.spec.names.get(dim, dim.split(".", 1)[-1])

    def part(self, dim: str, value: object) -> str:
        """One dimension's value as a label part, with the dimension's short name."""
        if value is None:
            return "-"
        if dim == "metric" and dim not in self.spec.names:
            return str(value)  # a metric's name says what it is
        return axis_text(dim, value, self.spec.names)

    def row_cells(self, row: Key) -> list[str]:
        """A row's label cells, one per row dimension (value only: the header names it)."""
        return [("-" if v is None else self.part(d, v).split("=", 1)[-1] if d not in ("metric",)
                 else str(v)) for d, v in zip(self.row_dims, row, strict=True)]

    def row_text(self, row: Key) -> str:
        """A row in words, each dimension's name and value (``opt -Os · N 3``); a value
        that names its dimension already stands alone (``lto`` / ``no-lto``, not
        ``lto lto``)."""
        parts = []
        for d, cell in zip(self.row_dims, self.row_cells(row), strict=True):
            name = self.dim_name(d)
            said = re.search(rf"(?<!\w){re.escape(name)}(?!\w)", cell) is not None
            parts.append(cell if said or not name else f"{name} {cell}")
        return SEPARATOR.join(parts)

    def col_label(self, col: Key) -> str:
        return SEPARATOR.join(self.part(d, v) for d, v in zip(self.col_dims, col, strict=True)
                              if v is not None) or "value"

    def caption(self) -> str:
        stats = "/".join(self.spec.stats) if self.spec.stats else self.spec.stat
        what = "image bytes" if self.spec.unit == FOOTPRINT_UNIT else f"{stats} {self.spec.unit}"
        if "metric" not in self.row_dims and "metric" not in self.col_dims and self.spec.metrics:
            what = f"{', '.join(self.spec.metrics)}: {what}"
        if self.spec.ratio is not None:
            _, over, under = self.spec.ratio
            what = f"ratio {over} / {under} of the {what}"
        if self.spec.where:
            what += "; " + ", ".join(f"{self.dim_name(k)}={v}" for k, v in self.spec.where.items())
        return what


def known_dimensions(view: RunView) -> list[str]:
    dims = list(DIMENSIONS_ALWAYS)
    for c in view.configs:
        dims.extend(k for k in axes_of(c) if k not in dims)
    return [*dims, "stat"]  # the statistic: a dimension when a table shows several


def build_pivot(view: RunView, spec: PivotSpec, timing_of: object = None) -> Pivot:
    """The pivot of one stored run (see the module doc). ``timing_of``: a callable
    ConfigView -> footer text, for the table's footer (None: no footer)."""
    sizes = spec.unit == FOOTPRINT_UNIT
    stats = (spec.stat,) if sizes else (spec.stats or (spec.stat,))
    for stat in stats:
        if stat not in PIVOT_STATS:
            raise RtoslabError(f"report table '{spec.title}': unknown stat '{stat}': use one of "
                               f"{', '.join(PIVOT_STATS)}")
    scaled = SCALED_UNITS.get(str(spec.unit))
    unit, factor = (scaled[0], scaled[1]) if scaled else (Unit.INSN if sizes else Unit(spec.unit), 1.0)
    known = known_dimensions(view)
    used = [*spec.rows, *spec.columns, *spec.where, *([spec.ratio[0]] if spec.ratio else [])]
    for dim in used:
        if dim not in known:
            raise RtoslabError(f"report table '{spec.title}': unknown dimension '{dim}': use one of "
                               f"{', '.join(known)}")
    row_dims = tuple(spec.rows)
    if "metric" not in spec.rows and "metric" not in spec.columns:
        row_dims = (*row_dims, "metric")
    col_dims = tuple(spec.columns)
    placed = set(row_dims) | set(col_dims)
    if len(stats) > 1 and "stat" not in placed:
        raise RtoslabError(f"report table '{spec.title}': several stats ({', '.join(stats)}): place "
                           "'stat' in rows or columns")
    sides: dict[str, dict[tuple[Key, Key], tuple[float, str]]] = {"over": {}, "under": {}}
    row_keys: dict[Key, None] = {}
    col_keys: dict[Key, None] = {}
    footers: dict[str, None] = {}
    paced: dict[str, None] = {}  # metrics of time base "paced" in the table
    for r in view.results:
        if r.status != "ok":
            continue
        axes = axes_of(r.config)
        for name, value in _values(r, spec, unit, stats):
            for stat in stats:
                dims: dict[str, object] = {**axes, "benchmark": r.benchmark, "metric": name,
                                           "stat": stat}
                if any(dims.get(k) != v for k, v in spec.where.items()):
                    continue
                side = "over"
                if spec.ratio is not None:
                    axis, over, under = spec.ratio
                    texts = value_texts(dims.get(axis))
                    if over not in texts and under not in texts:
                        continue
                    side = "over" if over in texts else "under"
                rk = tuple(dims.get(d) for d in row_dims if not (spec.ratio and d == spec.ratio[0]))
                ck = tuple(dims.get(d) for d in col_dims if not (spec.ratio and d == spec.ratio[0]))
                cell = sides[side]
                where_from = f"{r.benchmark} on {r.config.hash}"
                if (rk, ck) in cell:
                    others = _unplaced(view, placed)
                    raise RtoslabError(
                        f"report table '{spec.title}': {where_from} and {cell[(rk, ck)][1]} fall in "
                        f"one cell: place {' or '.join(others) or 'another dimension'} in rows or "
                        "columns, or fix it with where")
                v = value.get(stat)
                if v is not None:
                    cell[(rk, ck)] = (v * factor, where_from)
                row_keys.setdefault(rk)
                col_keys.setdefault(ck)
            if sizes:
                continue  # an image's bytes: no time base, no timing footer
            if callable(timing_of):
                footers.setdefault(str(timing_of(r.config)))
            if value.get("paced"):
                paced.setdefault(f"{r.benchmark}/{name}")
    cells: dict[tuple[Key, Key], float] = {}
    for key, (v, _) in sides["over"].items():
        if spec.ratio is None:
            cells[key] = v
        else:
            base = sides["under"].get(key) or _base_lacking_axes(sides["under"], key)
            if base is not None and base[0] != 0 and math.isfinite(v):
                cells[key] = v / base[0]
    if spec.ratio is not None:  # only the keys that have a ratio
        row_keys = {rk: None for rk in row_keys if any((rk, ck) in cells for ck in col_keys)}
        col_keys = {ck: None for ck in col_keys if any((rk, ck) in cells for rk in row_keys)}
    rdims = tuple(d for d in row_dims if not (spec.ratio and d == spec.ratio[0]))
    cdims = tuple(d for d in col_dims if not (spec.ratio and d == spec.ratio[0]))
    rows = tuple(row_keys)
    if rdims[-1:] == ("metric",) and "metric" not in spec.rows and len({rk[-1] for rk in rows}) == 1 \
            and len(rdims) > 1:
        # the metric was added only to keep cells apart, and there is one: the title says it
        cells = {(rk[:-1], ck): v for (rk, ck), v in cells.items()}
        rdims, rows = rdims[:-1], tuple(dict.fromkeys(rk[:-1] for rk in rows))
    return Pivot(spec, rdims, cdims, rows, tuple(col_keys), cells, tuple(footers), tuple(paced))


def _values(r: ResultView, spec: PivotSpec, unit: Unit,
            stats: tuple[str, ...]) -> list[tuple[str, dict[str, float | None]]]:
    """One result's records for a table: (metric name, statistic -> value), and "paced"
    set where the metric's time base is paced. A size table's are the footprint's."""
    out: list[tuple[str, dict[str, float | None]]] = []
    if spec.unit == FOOTPRINT_UNIT:
        fp = r.footprint
        if fp is None:
            return out
        for name, v in footprint_values(fp).items():
            if not spec.metrics or name in spec.metrics:
                out.append((name, {s: v for s in stats}))
        return out
    for m in r.metrics:
        if spec.metrics and m.name not in spec.metrics:
            continue
        summary = m.summaries.get(unit)
        if summary is None:
            continue
        vals: dict[str, float | None] = {s: float(getattr(summary, s)) for s in stats}
        if m.time_base is TimeBase.PACED:
            vals["paced"] = 1.0
        out.append((m.name, vals))
    return out


def _base_lacking_axes(under: dict[tuple[Key, Key], tuple[float, str]],
                       key: tuple[Key, Key]) -> tuple[float, str] | None:
    """The one UNDER cell that equals ``key`` wherever it has the dimension: a placed axis
    the under configuration does not have (None, e.g. a kernel option of the other
    kernel) matches any value, so every SMP-kernel variant divides by the single-core
    kernel that has none of its options. None when no cell or several cells match."""
    flat = (*key[0], *key[1])
    found = [v for (rk, ck), v in under.items()
             if all(u is None or u == o for u, o in zip((*rk, *ck), flat, strict=True))]
    return found[0] if len(found) == 1 else None


def _unplaced(view: RunView, placed: set[str]) -> list[str]:
    """Dimensions that vary in the run but are on neither rows nor columns."""
    axes = [axes_of(c) for c in view.configs]
    keys = list(dict.fromkeys(k for a in axes for k in a))
    varying = [k for k in keys if len({repr(a[k]) for a in axes if k in a}) > 1]
    return [k for k in ["benchmark", *varying] if k not in placed]


def fmt_cell(value: float | None, ratio: bool, decimals: int = 0) -> str:
    """A cell's text: ratios to 3 decimals; a scaled unit to its decimals (ms: 3, the µs);
    otherwise whole numbers as they are and the rest to 2 decimals."""
    if value is None:
        return "-"
    if ratio:
        return f"{value:.3f}"
    if decimals:
        return f"{value:.{decimals}f}"
    return f"{value:.0f}" if float(value).is_integer() else f"{value:.2f}"


def pivot_grid(p: Pivot) -> tuple[list[str], list[list[str]]]:
    """Header and body cells of a pivot, for any text format."""
    scaled = SCALED_UNITS.get(str(p.spec.unit))
    decimals = scaled[2] if scaled else 0
    header = [p.dim_name(d) for d in p.row_dims] + [p.col_label(c) for c in p.col_keys]
    body = [p.row_cells(rk) + [fmt_cell(p.value(rk, ck), p.spec.ratio is not None, decimals)
                               for ck in p.col_keys]
            for rk in p.row_keys]
    return header, body


def render_pivot(p: Pivot, fmt: str = "terminal", width: int = 160, wide: bool = False) -> str:
    """A pivot as terminal text (split to ``width`` unless ``wide``) or Markdown."""
    header, body = pivot_grid(p)
    caption = p.caption()
    if p.timing:
        caption += "\n" + (p.timing[0] if len(p.timing) == 1 else
                           "timing: differs between configurations (see each configuration's table)")
    if p.note():
        caption += "\n" + p.note()
    if fmt == "markdown":
        md = markdown_safe
        lines = [f"**{md(p.spec.title)}** ({md(p.caption())})", "",
                 "| " + " | ".join(md(h) for h in header) + " |", "|" + "---|" * len(header)]
        lines += ["| " + " | ".join(md(c) for c in cells) + " |" for cells in body]
        if p.note():
            lines += [""] + [f"*{md(line)}*" for line in p.note().splitlines()]
        return "\n".join(lines) + "\n"
    return fit_table(header, body, len(p.row_dims), title=p.spec.title, caption=caption, width=width,
                     wide=wide)
