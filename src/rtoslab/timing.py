"""Timing-model settings: what the plugin accepts, from the plugin itself.

The plugin build has an executable beside the QEMU plugin,
``plugin/target/release/rtoslab-plugin-describe`` (``RTOSLAB_PLUGIN_DESCRIBE``
overrides its path), with two commands:

- ``describe``: one JSON document, schema ``rtoslab.plugin-describe/1``, naming every
  timing setting (its kind, choices or bounds, default, the settings it needs) and every
  core the model knows;
- ``check KEY=VALUE ...``: exit 0 when the settings are valid together, else exit 2 with
  one line on stderr (cross-setting rules, e.g. flash_ws needs a flash region).

The host never keeps its own copy of those rules: it checks each setting against the
description (so an error names the key and what is allowed before anything is built or
stored) and hands the full resolved settings to ``check``.

Two settings are the host's own and never passed to the plugin as they are: ``clock_hz``
(the core clock: it converts modelled cycles to microseconds, and the firmware is built
for it) and ``time`` (``one-clock``: QEMU's virtual time follows the modelled cycles, on
rtoslab's patched QEMU; ``instruction``: QEMU's instruction clock, one instruction = 1 ns,
as before the one clock; docs/timing-model.md, "One clock").
"""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Literal

from rtoslab.names import did_you_mean
from rtoslab.paths import plugin_path
from rtoslab.records import RtoslabError
from rtoslab.schema import parse

DESCRIBE_SCHEMA = "rtoslab.plugin-describe/1"
DESCRIBE_ENV = "RTOSLAB_PLUGIN_DESCRIBE"
DESCRIBE_NAME = "rtoslab-plugin-describe"
HOST_SETTINGS = ("clock_hz", "time")  # the host's own, never given to the plugin as they are
TIME_MODES = ("one-clock", "instruction")  # ``time``: what QEMU's virtual time follows

Scalar = str | int | bool


@dataclass(frozen=True)
class Setting:
    """One plugin setting as ``describe`` reports it."""

    key: str
    kind: Literal["choice", "int", "regions"]
    default: object  # the plugin's own default (a target's [timing] table may override it)
    doc: str
    choices: tuple[str, ...] | None = None  # kind "choice"
    min: int | None = None  # kind "int": inclusive bounds
    max: int | None = None
    unit: str | None = None  # kind "int": what the number counts, e.g. "wait states"
    max_regions: int | None = None  # kind "regions": most BASE:SIZE entries (None: any)
    requires: tuple[str, ...] = ()  # settings this one needs when it is not its default


@dataclass(frozen=True)
class CoreInfo:
    name: str
    arch: str
    description: str
    source: str  # where the core's timing table comes from (a reference manual)


@dataclass(frozen=True)
class UnmodelledCore:
    """A core the plugin knows of but has no table for: ``core=`` refuses it by name."""

    name: str
    message: str  # the one-line refusal, e.g. "cortex-m7 timing is not modelled; ..."


@dataclass(frozen=True)
class ClockRange:
    """The range of the host's ``clock_hz`` (the plugin's ``time_hz=`` bounds; the firmware
    holds the clock in 32 bits), as ``describe`` reports it."""

    kind: Literal["int"]
    min: int
    max: int
    unit: str
    doc: str


@dataclass(frozen=True)
class Description:
    """The ``describe`` document."""

    schema: str
    plugin_version: str
    settings: tuple[Setting, ...]
    cores: tuple[CoreInfo, ...]
    unmodelled: tuple[UnmodelledCore, ...] = ()
    # QEMU's exit status when the plugin's instruction limit stops the guest (a hang);
    # declared once, in the plugin's config crate (args.rs EXIT_INSN_LIMIT)
    exit_insn_limit: int = -1
    # the range of clock_hz (args.rs MAX_CLOCK_HZ); None only in a description read
    # before it was reported, which parse_description refuses
    clock_hz: ClockRange | None = None

    def setting(self, key: str) -> Setting | None:
        return next((s for s in self.settings if s.key == key), None)

    def keys(self) -> list[str]:
        """Every key a user may set: the plugin's settings, then the host-only ones."""
        return [s.key for s in self.settings] + list(HOST_SETTINGS)


def parse_description(data: object, where: str) -> Description:
    """Check a decoded ``describe`` document; one-line RtoslabError when it is not one."""
    desc = parse(Description, data, where)
    if desc.schema != DESCRIBE_SCHEMA:
        raise RtoslabError(f"{where}: key 'schema' is {desc.schema!r}, this rtoslab reads "
                           f"{DESCRIBE_SCHEMA!r}: rebuild the plugin with `make setup`")
    for i, s in enumerate(desc.settings):
        if s.kind == "choice" and not s.choices:
            raise RtoslabError(f"{where}: key 'settings[{i}].choices' is missing: a choice setting "
                               "lists its choices")
        if s.key in HOST_SETTINGS:
            raise RtoslabError(f"{where}: key 'settings[{i}].key' is {s.key!r}, a host-only setting")
    if desc.clock_hz is None:
        raise RtoslabError(f"{where}: key 'clock_hz' is missing (the core clock's range): rebuild "
                           "the plugin with `make setup`")
    if not 0 < desc.exit_insn_limit < 256:
        raise RtoslabError(f"{where}: key 'exit_insn_limit' is missing or not an exit status: "
                           "rebuild the plugin with `make setup`")
    return desc


def describe_path() -> Path:
    """The describe executable: ``$RTOSLAB_PLUGIN_DESCRIBE``, else beside the plugin."""
    env = os.environ.get(DESCRIBE_ENV)
    return Path(env) if env else plugin_path().parent / DESCRIBE_NAME


def _run(args: list[str]) -> subprocess.CompletedProcess[str]:
    exe = describe_path()
    if not exe.is_file():
        raise RtoslabError(f"{exe} is missing: the timing-model settings cannot be checked; "
                           "run `make setup` (it builds the plugin)")
    try:
        return subprocess.run([str(exe), *args], capture_output=True, text=True, timeout=30,
                              check=False)
    except (OSError, subprocess.TimeoutExpired) as e:
        raise RtoslabError(f"{exe} {args[0]} did not run ({e}): rebuild it with `make setup`") from e


@cache
def description() -> Description:
    """The plugin's description, read once per process."""
    proc = _run(["describe"])
    where = f"{describe_path()} describe"
    if proc.returncode != 0:
        line = (proc.stderr.strip().splitlines() or ["no message"])[0]
        raise RtoslabError(f"{where} failed (exit {proc.returncode}): {line}")
    try:
        data = json.loads(proc.stdout)
    except json.JSONDecodeError as e:
        raise RtoslabError(f"{where}: not JSON ({e}): rebuild the plugin with `make setup`") from e
    return parse_description(data, where)


def _allowed(s: Setting) -> str:
    if s.kind == "choice":
        return "choose one of " + ", ".join(s.choices or ())
    if s.kind == "int":
        lo = "" if s.min is None else f"from {s.min} "
        hi = "" if s.max is None else f"to {s.max}"
        return f"give a whole number {lo}{hi}".rstrip()
    most = "" if s.max_regions is None else f" (at most {s.max_regions})"
    return f"give BASE:SIZE regions separated by ';'{most}, e.g. 0x20000000:0x10000"


def check_value(desc: Description, key: str, value: object) -> Scalar:
    """Check one setting against the description; return it in its stored form (ints as
    int, choices and regions as str). Raises one line naming the setting."""
    if key == "clock_hz":
        lo, hi = (desc.clock_hz.min, desc.clock_hz.max) if desc.clock_hz is not None else (1, None)
        if isinstance(value, int) and not isinstance(value, bool) and value >= lo \
                and (hi is None or value <= hi):
            return value
        top = f" to {hi}" if hi is not None else ""
        raise RtoslabError(f"timing-model setting clock_hz={_shown(value)}: give the core clock in Hz, "
                           f"a whole number from {lo}{top}, e.g. 72000000")
    if key == "time":
        if isinstance(value, str) and value in TIME_MODES:
            return value
        raise RtoslabError(f"timing-model setting time={value}: choose {' or '.join(TIME_MODES)} "
                           "(what QEMU's virtual time follows: modelled cycles or instructions)")
    s = desc.setting(key)
    if s is None:
        raise RtoslabError(f"unknown timing-model setting '{key}'{did_you_mean(key, desc.keys())}: "
                           "known settings: "
                           f"{', '.join(desc.keys())}")
    if s.kind == "int":
        ok = (isinstance(value, int) and not isinstance(value, bool)
              and (s.min is None or value >= s.min) and (s.max is None or value <= s.max))
    elif s.kind == "choice":
        ok = isinstance(value, str) and value in (s.choices or ())
    else:
        ok = isinstance(value, str) and bool(value) and (
            s.max_regions is None or len(value.split(";")) <= s.max_regions)
    refused = next((u for u in desc.unmodelled if key == "core" and u.name == value), None)
    if refused is not None:
        raise RtoslabError(f"timing-model setting {key}={value}: {refused.message}")
    if not ok or not isinstance(value, int | str):
        raise RtoslabError(f"timing-model setting {key}={_shown(value)}: {_allowed(s)}")
    return value


def _shown(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def check_overrides(overrides: Iterable[tuple[str, object]],
                    desc: Description | None = None) -> None:
    """Check each overridden setting. Reads the plugin's description only when a setting
    other than ``time`` is given (clock_hz's range is in it)."""
    items = list(overrides)
    if not items:
        return
    if desc is None and any(k != "time" for k, _ in items):
        desc = description()
    for key, value in items:
        check_value(desc or Description(DESCRIBE_SCHEMA, "", (), ()), key, value)


def plugin_args(settings: Mapping[str, object]) -> dict[str, object]:
    """The settings the plugin gets (all but the host-only ones)."""
    return {k: v for k, v in settings.items() if k not in HOST_SETTINGS}


@cache
def _check(args: tuple[str, ...]) -> str | None:
    proc = _run(["check", *args])
    if proc.returncode == 0:
        return None
    line = (proc.stderr.strip().splitlines() or [f"exit {proc.returncode}"])[0]
    return line


def check_resolved(settings: Mapping[str, object]) -> None:
    """Have the plugin check the full resolved settings together (cross-setting rules).
    Raises one line: the plugin's message and what to change."""
    args = tuple(f"{k}={_shown(v)}" for k, v in sorted(plugin_args(settings).items()))
    problem = _check(args)
    if problem is not None:
        raise RtoslabError(f"timing-model settings rejected by the plugin: {problem}")
