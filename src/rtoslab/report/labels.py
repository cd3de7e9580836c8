"""Short labels for configurations, built only from the axes that vary between them.

``varying_keys`` picks the axes whose values differ within a set of configurations;
``axes_label`` writes one configuration's values of those axes, e.g. ``TOGGLE_TASKS=3 ·
tick 100 kHz`` or ``-O2 lto``. Used by the progress lines and the table headings.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from rtoslab.views import ConfigView

SEPARATOR = " · "
# Axes whose value is shown bare (it names itself): -O2, freertos, mps2-an385.
_BARE = ("opt", "kernel", "target", "benchmark", "cflags")


def varying_keys(axes: Sequence[Mapping[str, object]]) -> list[str]:
    """The axis names, in first-seen order, whose values differ between ``axes``. An axis
    only some configurations have (a kernel option) counts when it differs between those."""
    keys = list(dict.fromkeys(k for a in axes for k in a))
    return [k for k in keys if len({repr(a[k]) for a in axes if k in a}) > 1]


def frequency(hz: object) -> str:
    """1000 -> ``1 kHz``, 100000 -> ``100 kHz``, 25000000 -> ``25 MHz``; else as given."""
    if not isinstance(hz, int) or isinstance(hz, bool) or hz <= 0:
        return str(hz)
    for div, unit in ((1_000_000, "MHz"), (1_000, "kHz")):
        if hz % div == 0:
            return f"{hz // div} {unit}"
    return f"{hz} Hz"


def axis_text(key: str, value: object, names: Mapping[str, str] | None = None) -> str:
    """One axis value as a label part: ``-O2``, ``lto`` / ``no-lto``, ``TOGGLE_TASKS=3``,
    ``configTICK_RATE_HZ=100 kHz`` (a value of an axis named ``*_HZ`` in Hz). ``names``
    gives axes short names (``N=3``); an empty name shows the value alone (``100 kHz``)."""
    if key == "lto":
        return "lto" if value else "no-lto"
    if isinstance(value, bool):
        value = str(value).lower()
    if key in _BARE:
        return str(value) if value != "" else "-"
    name = key.split(".", 1)[-1]
    shown = frequency(value) if name.upper().endswith("_HZ") else str(value)
    if names is not None and key in names:
        return f"{names[key]}={shown}" if names[key] else shown
    return f"{name}={shown}"


def axes_label(axes: Mapping[str, object], keys: Sequence[str],
               names: Mapping[str, str] | None = None) -> str:
    """The values of ``keys`` in ``axes`` (those it has), joined with `` · ``."""
    return SEPARATOR.join(axis_text(k, axes[k], names) for k in keys if k in axes)


# Shown in every footer whatever their value: what the cycles are priced by and at.
_ALWAYS = ("core", "clock_hz", "flash_ws", "time")


def timing_footer(config: ConfigView) -> str:
    """The timing settings a table's cycles and µs depend on: core, clock, flash wait
    states (with where the count came from), every other setting whose value differs from
    the plugin's default (identity ``timing_defaults``; for a configuration stored before
    that entry, every stored setting), and what QEMU's time followed. Memory maps (the
    region settings flash and sram, which have no default) are in the reports and the
    stored identity."""
    timing = config.timing
    measured_on = str(config.identity.get("measured_on", "model"))
    if measured_on.startswith("hardware:"):
        # A chip's own cycles: no timing model priced them (docs/boards.md).
        clock = config.identity.get("clock_hz", timing.get("clock_hz"))
        at = f" at {frequency(clock)}" if clock is not None else ""
        return f"timing: measured on the chip ({measured_on}){at}, cycles from its own clock"
    parts = [f"core {timing.get('core', config.core)}"]
    clock = config.identity.get("clock_hz", timing.get("clock_hz"))
    if clock is not None:
        parts.append(f"clock {frequency(clock)}")
    if "flash_ws" in timing:
        parts.append(f"flash {timing['flash_ws']} WS ({flash_ws_origin(config.identity)})")
    defaults = config.identity.get("timing_defaults")
    for key, value in sorted(timing.items()):
        if key in _ALWAYS or key in ("flash", "sram"):
            continue
        if isinstance(defaults, Mapping) and defaults.get(key) == value:
            continue
        parts.append(f"{key} {value}")
    # What QEMU's time followed (docs/timing-model.md, "One clock"); stored before the
    # one clock: the instruction clock.
    parts.append(f"time {timing.get('time', 'instruction')}")
    if measured_on != "model":  # QEMU's gdbstub through the GDB runner: SysTick on this clock
        parts.append(f"measured through {measured_on}'s gdbstub (buffer probe)")
    return "timing: " + ", ".join(parts)


def flash_ws_origin(identity: Mapping[str, object]) -> str:
    """Which flash_ws applied, from the identity's ``flash_ws_from``: ``clock rule RM0008
    FLASH_ACR: <= 48 MHz``, ``given`` or ``target default``. An identity stored before that
    entry existed is "given" when its axes name timing.flash_ws, else the target's default
    (then no target had a clock rule)."""
    origin = identity.get("flash_ws_from")
    if isinstance(origin, Mapping) and origin.get("by") == "rule":
        return f"clock rule {origin.get('source')}: <= {frequency(origin.get('max_hz'))}"
    axes = identity.get("axes")
    if (isinstance(origin, Mapping) and origin.get("by") == "given") or (
            isinstance(axes, Mapping) and "timing.flash_ws" in axes):
        return "given"
    return "target default"


def kernel_source_text(source: Mapping[str, object]) -> str:
    """``V11.2.0 at 1a2b3c4d5e6f`` (``+dirty``), or ``V11.2.0, content 0123abcd4567``."""
    version = str(source.get("version", "?"))
    commit = source.get("commit")
    if isinstance(commit, str) and commit:
        return f"{version} at {commit[:12]}" + ("+dirty" if source.get("dirty") else "")
    return f"{version}, content {str(source.get('content', '?'))[:12]}"


def kernel_label(config: ConfigView) -> str:
    """``freertos``, or ``freertos (kernel tree V11.2.0 at 1a2b3c4d5e6f)`` when it was built
    from the user's tree (identity ``kernel_source``)."""
    source = config.identity.get("kernel_source")
    if isinstance(source, Mapping):
        return f"{config.kernel} (kernel tree {kernel_source_text(source)})"
    return config.kernel
