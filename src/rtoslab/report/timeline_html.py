"""The HTML report's timeline section: swimlanes per task, interrupt handler and probe
interval, zoomable (mouse wheel), pannable (drag); double-click resets (docs/timeline.md).

Inline SVG and a few lines of script, no external files. Times are modelled cycles (or
guest instructions without a cycle model); the time axis under the lanes reads µs (ms for
long windows) of modelled time at the configuration's clock, or instructions without a
model, and follows zoom and pan.

Two views per timeline, so that the page stays bounded however long the timeline is:

- the **detail**: the first ``MAX_ITEMS`` slices and marks, each drawn (hover for its
  cycles and instructions);
- the **overview**: every item of the timeline (``build_timeline`` keeps at most its cap,
  ``DEFAULT_CAP``), binned into ``OVERVIEW_BINS`` columns per lane, a cell's shade the
  share of the column the lane was busy (probe lanes: how many hits); runs of equal shade
  are one rectangle. It shows where the detail's window lies; clicking it moves the
  detail there (within the drawn items), and the caption says when items lie beyond
  them (the exported trace has them all).
"""

from __future__ import annotations

import html
import math
from collections.abc import Sequence

from rtoslab.trace.timeline import Timeline

MAX_ITEMS = 6000
FIRST_VIEW = 60
LANE_H = 22
WIDTH = 1000
OVERVIEW_BINS = 400
OV_LANE_H = 6
AXIS_H = 24
AXIS_TICKS = 6

_COLORS = {"task": "#4e79a7", "irq": "#e15759", "interval": "#59a14f", "probes": "#333333"}

_SCRIPT = """
<script>
(function () {
  function ticks(lo, hi, n) {
    var span = hi - lo;
    if (!(span > 0)) return {step: 1, values: [lo]};
    var mag = Math.pow(10, Math.floor(Math.log10(span / n))), step = mag;
    for (var m of [1, 2, 5, 10]) { step = m * mag; if (span / step <= n) break; }
    var out = [];
    for (var k = Math.ceil(lo / step); k * step <= hi + step * 1e-9; k++) out.push(k * step);
    return {step: step, values: out};
  }
  function unitOf(view, span) {
    var hz = +view.dataset.hz;
    if (!hz) return {name: 'instructions', per: 1};
    return span * 1e6 / hz >= 10000 ? {name: 'ms', per: hz / 1e3} : {name: '\u00b5s', per: hz / 1e6};
  }
  function label(v, step) {
    var d = Math.max(0, -Math.floor(Math.log10(step)));
    return v.toLocaleString('en-US', {minimumFractionDigits: d, maximumFractionDigits: d});
  }
  function axis(view, svg, x, w) {
    var u = unitOf(view, w), t = ticks(x / u.per, (x + w) / u.per, @TICKS@), W = @WIDTH@, parts = [];
    parts.push('<line x1="0" x2="' + W + '" y1="0.5" y2="0.5" class="tl-base"/>');
    t.values.forEach(function (v) {
      var px = (v * u.per - x) / w * W, anchor = px < 40 ? 'start' : (px > W - 40 ? 'end' : 'middle');
      parts.push('<line x1="' + px + '" x2="' + px + '" y1="0" y2="5" class="tl-tick"/>' +
                 '<text x="' + px + '" y="17" text-anchor="' + anchor + '">' + label(v, t.step) + '</text>');
    });
    svg.innerHTML = parts.join('');
    svg.dataset.unitShown = u.name;
    return u.name;
  }
  document.querySelectorAll('div.tl-view').forEach(function (view) {
    var svg = view.querySelector('svg.tl-plot'), ax = view.querySelector('svg.tl-axis');
    var ov = view.querySelector('svg.tl-ov'), win = view.querySelector('rect.tl-win');
    var at = view.querySelector('.tl-at'), full = svg.viewBox.baseVal, drag = null;
    var x0 = +view.dataset.lo, w0 = +view.dataset.span;
    var olo = +view.dataset.olo, ospan = +view.dataset.ospan, bins = +view.dataset.bins;
    function set(x, w) {
      w = Math.max(w, 1);
      svg.setAttribute('viewBox', x + ' ' + full.y + ' ' + w + ' ' + full.height);
      var name = axis(view, ax, x, w), u = unitOf(view, w);
      view.querySelector('.tl-unit').textContent = name;
      at.textContent = 'shown: ' + label(x / u.per, w / u.per / 1000) + ' to ' +
        label((x + w) / u.per, w / u.per / 1000) + ' ' + name + ' (' + view.dataset.unit + ' ' +
        Math.round(x) + ' to ' + Math.round(x + w) + ')';
      win.setAttribute('x', Math.max(0, (x - olo) / ospan * bins));
      win.setAttribute('width', Math.max(0.5, Math.min(bins, w / ospan * bins)));
    }
    set(full.x, full.width);
    svg.addEventListener('wheel', function (e) {
      e.preventDefault();
      var vb = svg.viewBox.baseVal, r = svg.getBoundingClientRect();
      var f = (e.clientX - r.left) / r.width, c = vb.x + f * vb.width;
      var w = vb.width * (e.deltaY < 0 ? 0.8 : 1.25);
      set(c - f * w, w);
    }, {passive: false});
    svg.addEventListener('mousedown', function (e) { drag = [e.clientX, svg.viewBox.baseVal.x]; });
    window.addEventListener('mouseup', function () { drag = null; });
    svg.addEventListener('mousemove', function (e) {
      if (!drag) return;
      var vb = svg.viewBox.baseVal, r = svg.getBoundingClientRect();
      set(drag[1] - (e.clientX - drag[0]) * vb.width / r.width, vb.width);
    });
    svg.addEventListener('dblclick', function () { set(x0, w0); });
    ov.addEventListener('click', function (e) {
      var vb = svg.viewBox.baseVal, r = ov.getBoundingClientRect();
      var c = olo + (e.clientX - r.left) / r.width * ospan;
      var x = Math.min(Math.max(c - vb.width / 2, x0), x0 + w0 - vb.width);
      set(Math.max(x, x0), vb.width);
    });
  });
})();
</script>
""".replace("@TICKS@", str(AXIS_TICKS)).replace("@WIDTH@", str(WIDTH))


def _e(text: object) -> str:
    return html.escape(str(text), quote=True)


def nice_ticks(lo: float, hi: float, n: int = AXIS_TICKS) -> tuple[float, list[float]]:
    """(step, tick values): multiples of 1, 2 or 5 x 10^k in [lo, hi], at most about n + 1
    (the script's ``ticks`` is the same rule)."""
    span = hi - lo
    if span <= 0:
        return 1.0, [lo]
    mag = 10.0 ** math.floor(math.log10(span / n))
    step = mag
    for m in (1, 2, 5, 10):
        step = m * mag
        if span / step <= n:
            break
    values = []
    k = math.ceil(lo / step)
    while k * step <= hi + step * 1e-9:
        values.append(k * step)
        k += 1
    return step, values


def time_unit(clock_hz: float | None, span: float) -> tuple[str, float]:
    """(unit name, timeline units per displayed unit): µs of modelled time at the clock
    (ms for windows of 10 ms or more), instructions without a cycle model."""
    if not clock_hz:
        return "instructions", 1.0
    if span * 1e6 / clock_hz >= 10_000:
        return "ms", clock_hz / 1e3
    return "µs", clock_hz / 1e6


def _label(v: float, step: float) -> str:
    d = max(0, -math.floor(math.log10(step)))
    return f"{v:,.{d}f}"


def axis_svg(clock_hz: float | None, lo: float, span: float) -> str:
    """The time axis under a view of [lo, lo + span] (timeline units), WIDTH pixels wide."""
    name, per = time_unit(clock_hz, span)
    step, values = nice_ticks(lo / per, (lo + span) / per)
    parts = [f'<line x1="0" x2="{WIDTH}" y1="0.5" y2="0.5" class="tl-base"/>']
    for v in values:
        px = round((v * per - lo) / max(span, 1) * WIDTH, 2)
        anchor = "start" if px < 40 else ("end" if px > WIDTH - 40 else "middle")
        parts.append(f'<line x1="{px}" x2="{px}" y1="0" y2="5" class="tl-tick"/>'
                     f'<text x="{px}" y="17" text-anchor="{anchor}">{_label(v, step)}</text>')
    return (f'<svg class="tl-axis" viewBox="0 0 {WIDTH} {AXIS_H}" width="{WIDTH}" height="{AXIS_H}" '
            f'data-unit-shown="{_e(name)}">{"".join(parts)}</svg>')


def overview_cells(tl: Timeline, lo: int, span: int,
                   bins: int = OVERVIEW_BINS) -> dict[str, list[tuple[int, int, float]]]:
    """Per lane, (first bin, bins, shade 0.2..1.0) runs over every item of ``tl`` in
    [lo, lo + span]: a slice lane's shade is the share of the bin it was busy (at least
    0.2 where anything was), a probe lane's the bin's hits against the busiest bin's."""
    cyc = tl.clock_hz is not None
    bw = max(span, 1) / bins
    busy: dict[str, list[float]] = {}
    seen: dict[str, set[int]] = {}

    def b_of(x: float) -> int:
        return min(bins - 1, max(0, int((x - lo) / bw)))

    for s in tl.slices:
        a = s.start_cycles if cyc else s.start_insns
        z = s.end_cycles if cyc else s.end_insns
        row = busy.setdefault(s.lane, [0.0] * bins)
        hit = seen.setdefault(s.lane, set())
        for i in range(b_of(a), b_of(z) + 1):
            row[i] += max(0.0, min(z, lo + (i + 1) * bw) - max(a, lo + i * bw))
            hit.add(i)
    counts: dict[str, list[int]] = {}
    for m in tl.marks:
        row_c = counts.setdefault(m.lane, [0] * bins)
        row_c[b_of(m.cycles if cyc else m.insns)] += 1
    shades: dict[str, list[float]] = {}
    for lane, row in busy.items():
        shades[lane] = [max(0.2, min(1.0, round(v / bw, 1))) if i in seen[lane] else 0.0
                        for i, v in enumerate(row)]
    for lane, row_c in counts.items():
        top = max(row_c) or 1
        shades[lane] = [max(0.2, round(c / top, 1)) if c else 0.0 for c in row_c]
    runs: dict[str, list[tuple[int, int, float]]] = {}
    for lane, row_s in shades.items():
        out: list[tuple[int, int, float]] = []
        for i, v in enumerate(row_s):
            if v and out and out[-1][2] == v and out[-1][0] + out[-1][1] == i:
                out[-1] = (out[-1][0], out[-1][1] + 1, v)
            elif v:
                out.append((i, 1, v))
        runs[lane] = out
    return runs


def _one(tl: Timeline) -> str:
    cyc = tl.clock_hz is not None
    unit = "cycles" if cyc else "instructions"
    lanes = {lane: i for i, lane in enumerate(tl.lanes)}
    items = len(tl.slices) + len(tl.marks)

    def t(insns: int, cycles: int) -> int:
        return cycles if cyc else insns

    # The first MAX_ITEMS items in time, slices and marks alike.
    starts = sorted([(t(s.start_insns, s.start_cycles), 0, i) for i, s in enumerate(tl.slices)]
                    + [(t(m.insns, m.cycles), 1, i) for i, m in enumerate(tl.marks)])[:MAX_ITEMS]
    slices = [tl.slices[i] for _, k, i in starts if k == 0]
    marks = [tl.marks[i] for _, k, i in starts if k == 1]

    times = [t(s.start_insns, s.start_cycles) for s in slices] + [t(m.insns, m.cycles) for m in marks]
    ends = [t(s.end_insns, s.end_cycles) for s in slices] + [t(m.insns, m.cycles) for m in marks]
    lo = min(times, default=0)
    hi = max(ends, default=lo + 1)
    span = max(hi - lo, 1)
    # The overview: every item.
    all_ends = ([t(s.end_insns, s.end_cycles) for s in tl.slices]
                + [t(m.insns, m.cycles) for m in tl.marks])
    ohi = max([hi, *all_ends])
    ospan = max(ohi - lo, 1)
    # The first view: about the first FIRST_VIEW items (double-click: the whole window).
    first = [x for x, _, _ in starts[:FIRST_VIEW]]
    first_span = max((max(first) - lo) if len(starts) > FIRST_VIEW else span, 1)
    height = LANE_H * max(len(lanes), 1)
    shapes = []
    # Several cores (lanes "core N ..."): a shaded band behind every odd core's lanes.
    for lane, i in lanes.items():
        words = lane.split(" ")
        if words[0] == "core" and len(words) > 2 and words[1].isdigit() and int(words[1]) % 2:
            shapes.append(f'<rect x="{lo}" y="{i * LANE_H}" width="{span}" height="{LANE_H}" '
                          'fill="#eef3fb"/>')
    for s in slices:
        x = t(s.start_insns, s.start_cycles)
        w = max(t(s.end_insns, s.end_cycles) - x, 0)
        y = lanes.get(s.lane, 0) * LANE_H + 3
        tip = (f"{s.name}: {s.end_cycles - s.start_cycles} cycles, "
               f"{s.end_insns - s.start_insns} instructions (from cycle {s.start_cycles}, "
               f"instruction {s.start_insns}; core {s.core})")
        shapes.append(f'<rect x="{x}" y="{y}" width="{w}" height="{LANE_H - 6}" '
                      f'fill="{_COLORS.get(s.kind, "#888")}"><title>{_e(tip)}</title></rect>')
    for m in marks:
        x = t(m.insns, m.cycles)
        y = lanes.get(m.lane, 0) * LANE_H
        shapes.append(f'<line x1="{x}" x2="{x}" y1="{y + 2}" y2="{y + LANE_H - 2}" '
                      f'class="mark"><title>{_e(f"{m.name} at cycle {m.cycles}, instruction {m.insns}")}'
                      '</title></line>')
    kind_of = {s.lane: s.kind for s in tl.slices}
    ov_shapes = []
    for lane, runs in overview_cells(tl, lo, ospan).items():
        y = lanes.get(lane, 0) * OV_LANE_H
        color = _COLORS.get(kind_of.get(lane, "probes"), "#888")
        ov_shapes += [f'<rect x="{b}" y="{y}" width="{n}" height="{OV_LANE_H - 1}" fill="{color}" '
                      f'fill-opacity="{v}"/>' for b, n, v in runs]
    ov_h = OV_LANE_H * max(len(lanes), 1)
    ov_shapes.append(f'<rect class="tl-win" x="0" y="0" width="{OVERVIEW_BINS}" height="{ov_h}"/>')
    names = "".join(f'<div class="tl-lane" style="height:{LANE_H}px">{_e(lane)}</div>' for lane in lanes)
    name, _ = time_unit(tl.clock_hz, first_span)
    ov_name, _ = time_unit(tl.clock_hz, ospan)
    base = (f"µs and ms are modelled cycles at {tl.clock_hz / 1e6:g} MHz" if tl.clock_hz
            else "guest instructions (no cycle model)")
    more = (f" The detail draws the first {MAX_ITEMS} of {items} items (to {unit[:-1]} {hi}); "
            "the overview shows them all, binned; `rtoslab export RUN --what trace` "
            "has each." if items > MAX_ITEMS else "")
    return (f'<h3>{_e(tl.benchmark)} <small>{_e(tl.config)}</small></h3>\n'
            f'<p class="caption">{_e(tl.note)}. Time axis: {_e(base)}; the window runs from '
            f"{unit} {lo} to {ohi}. Wheel: zoom; drag: pan; double-click: the detail's whole "
            f"window (the first view shows its beginning); click the overview to move there."
            f"{_e(more)}</p>\n"
            f'<div class="tl-view" data-lo="{lo}" data-span="{span}" data-unit="{unit}" '
            f'data-hz="{tl.clock_hz or 0:.0f}" data-olo="{lo}" data-ospan="{ospan}" '
            f'data-bins="{OVERVIEW_BINS}">'
            f'<div class="tl"><div class="tl-names">{names}'
            f'<div class="tl-side tl-unit" style="height:{AXIS_H}px">{_e(name)}</div></div>'
            f'<div class="tl-col"><svg class="tl-plot" viewBox="{lo} 0 {first_span} {height}" '
            f'preserveAspectRatio="none" width="{WIDTH}" height="{height}">{"".join(shapes)}</svg>'
            f"{axis_svg(tl.clock_hz, lo, first_span)}</div></div>"
            f'<div class="tl"><div class="tl-names"><div class="tl-side" style="height:{ov_h}px">'
            f'overview ({items} items)</div><div class="tl-side" style="height:{AXIS_H}px">'
            f'{_e(ov_name)}</div></div><div class="tl-col">'
            f'<svg class="tl-ov" viewBox="0 0 {OVERVIEW_BINS} {ov_h}" preserveAspectRatio="none" '
            f'width="{WIDTH}" height="{ov_h}">{"".join(ov_shapes)}</svg>'
            f"{axis_svg(tl.clock_hz, lo, ospan)}</div></div>"
            '<p class="caption tl-at"></p></div>')


def timeline_section(timelines: Sequence[Timeline]) -> str:
    """The section's content: one swimlane chart per timeline, and the note on cost."""
    parts = [
        "<p>What ran when, from runs with the timeline hook on (<code>LAB_TRACE=1</code>, "
        "<code>rtoslab run --trace</code>). A task's bar is the time it was the kernel's "
        "current task; interrupt handlers are drawn on their own lanes, over it. The hook "
        "costs guest cycles: compare the configurations with and without "
        "<code>LAB_TRACE</code> in the tables above (docs/timeline.md).</p>",
        "<style>.tl{display:flex;overflow-x:auto}.tl-names{flex:none;font-size:12px;"
        "padding-right:6px;width:15em;overflow:hidden}.tl-lane{line-height:22px;white-space:nowrap}"
        ".tl-side{white-space:nowrap;font-size:11px;line-height:12px;color:#555;overflow:hidden}"
        ".tl-col{flex:none}.tl-axis{display:block;font-size:11px}"
        ".tl-axis line{stroke:#555}.tl-ov{display:block;border:1px solid #ccc;cursor:pointer}"
        ".tl-win{fill:#0000;stroke:#000;stroke-width:1.5;vector-effect:non-scaling-stroke}"
        ".tl-plot{border:1px solid #ccc;cursor:grab}.tl-plot rect{stroke:#0003;stroke-width:1;"
        "vector-effect:non-scaling-stroke}.tl-plot .mark{stroke:#000;stroke-width:1;"
        "vector-effect:non-scaling-stroke}</style>",
    ]
    parts += [_one(tl) for tl in timelines]
    parts.append(_SCRIPT)
    return "\n".join(parts)
