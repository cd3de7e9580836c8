"""The HTML report's timeline section: swimlanes per task, interrupt handler and probe
interval, zoomable (mouse wheel), pannable (drag); double-click resets (docs/timeline.md).

Inline SVG and a few lines of script, no external files. Times are modelled cycles (or
guest instructions without a cycle model). At most ``MAX_ITEMS`` slices and marks of a
timeline are drawn; the section says when more exist (the exported trace has them all).
"""

from __future__ import annotations

import html
from collections.abc import Sequence

from rtoslab.trace.timeline import Timeline

MAX_ITEMS = 6000
FIRST_VIEW = 60
LANE_H = 22
WIDTH = 1000

_COLORS = {"task": "#4e79a7", "irq": "#e15759", "interval": "#59a14f", "probes": "#333333"}

_SCRIPT = """
<script>
document.querySelectorAll('svg.tl-plot').forEach(function (svg) {
  var full = svg.viewBox.baseVal, drag = null;
  var x0 = +svg.dataset.lo, w0 = +svg.dataset.span, at = svg.parentNode.nextElementSibling;
  function set(x, w) {
    w = Math.max(w, 1);
    svg.setAttribute('viewBox', x + ' ' + full.y + ' ' + w + ' ' + full.height);
    at.textContent = 'shown: ' + svg.dataset.unit + ' ' + Math.round(x) + ' to ' + Math.round(x + w);
  }
  set(full.x, full.width);
  svg.addEventListener('wheel', function (e) {
    e.preventDefault();
    var vb = svg.viewBox.baseVal, r = svg.getBoundingClientRect();
    var f = (e.clientX - r.left) / r.width, at = vb.x + f * vb.width;
    var w = vb.width * (e.deltaY < 0 ? 0.8 : 1.25);
    set(at - f * w, w);
  }, {passive: false});
  svg.addEventListener('mousedown', function (e) { drag = [e.clientX, svg.viewBox.baseVal.x]; });
  window.addEventListener('mouseup', function () { drag = null; });
  svg.addEventListener('mousemove', function (e) {
    if (!drag) return;
    var vb = svg.viewBox.baseVal, r = svg.getBoundingClientRect();
    set(drag[1] - (e.clientX - drag[0]) * vb.width / r.width, vb.width);
  });
  svg.addEventListener('dblclick', function () { set(x0, w0); });
});
</script>
"""


def _e(text: object) -> str:
    return html.escape(str(text), quote=True)


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
    names = "".join(f'<div class="tl-lane" style="height:{LANE_H}px">{_e(lane)}</div>' for lane in lanes)
    more = (f" Showing the first {MAX_ITEMS} of {items} items; `rtoslab export RUN --what trace` "
            "has them all." if items > MAX_ITEMS else "")
    return (f'<h3>{_e(tl.benchmark)} <small>{_e(tl.config)}</small></h3>\n'
            f'<p class="caption">{_e(tl.note)}. Time axis: modelled {unit} from {lo} to {hi}. '
            f"Wheel: zoom; drag: pan; double-click: whole window (the first view shows its "
            f"beginning).{_e(more)}</p>\n"
            f'<div class="tl"><div class="tl-names">{names}</div>'
            f'<svg class="tl-plot" viewBox="{lo} 0 {first_span} {height}" preserveAspectRatio="none" '
            f'data-lo="{lo}" data-span="{span}" data-unit="{unit}" '
            f'width="{WIDTH}" height="{height}">{"".join(shapes)}</svg></div>'
            '<p class="caption tl-at"></p>')


def timeline_section(timelines: Sequence[Timeline]) -> str:
    """The section's content: one swimlane chart per timeline, and the note on cost."""
    parts = [
        "<p>What ran when, from runs with the timeline hook on (<code>LAB_TRACE=1</code>, "
        "<code>rtoslab run --trace</code>). A task's bar is the time it was the kernel's "
        "current task; interrupt handlers are drawn on their own lanes, over it. The hook "
        "costs guest cycles: compare the configurations with and without "
        "<code>LAB_TRACE</code> in the tables above (docs/timeline.md).</p>",
        "<style>.tl{display:flex;overflow-x:auto}.tl-names{flex:none;font-size:12px;"
        "padding-right:6px}.tl-lane{line-height:22px;white-space:nowrap}"
        ".tl-plot{border:1px solid #ccc;cursor:grab}.tl-plot rect{stroke:#0003;stroke-width:1;"
        "vector-effect:non-scaling-stroke}.tl-plot .mark{stroke:#000;stroke-width:1;"
        "vector-effect:non-scaling-stroke}</style>",
    ]
    parts += [_one(tl) for tl in timelines]
    parts.append(_SCRIPT)
    return "\n".join(parts)
