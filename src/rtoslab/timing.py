"""Timing-model settings: what the plugin accepts, from the plugin itself.

The plugin build has an executable beside the QEMU plugin,
``plugin/target/release/rtoslab-plugin-describe`` (``RTOSLAB_PLUGIN_DESCRIBE``
overrides its path), with two commands:

- ``describe``: one JSON document, schema ``rtoslab.plugin-describe/2``, naming every
  timing setting (its kind, choices or bounds with unit, default, what it is, the settings
  it needs), the host's own two (``host_settings``) and every core the model knows;
- ``check KEY=VALUE ...``: exit 0 when the settings are valid together, else exit 2 with
  one line on stderr (cross-setting rules, e.g. flash_ws needs a flash region).

The host never keeps its own copy of those rules: it checks each setting against the
description (so an error names the key and what is allowed before anything is built or
stored) and hands the full resolved settings to ``check``.

Two settings are the host's own and never passed to the plugin as they are: ``clock_hz``
(the core clock: it converts modelled cycles to microseconds, and the firmware is built
for it) and ``time`` (``one-clock``: QEMU's virtual time follows the modelled cycles, on
rtoslab's patched QEMU; ``instruction``: QEMU's instruction clock, one instruction = 1 ns,
as before the one clock; docs/timing-model.md, "One clock"). The plugin declares them too
(``host_settings``: their range and choices), so nothing here is a copy.
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

DESCRIBE_SCHEMA = "rtoslab.plugin-describe/2"
DESCRIBE_ENV = "RTOSLAB_PLUGIN_DESCRIBE"
DESCRIBE_NAME = "rtoslab-plugin-describe"
# The host's own settings it reads by name (``host_settings`` in the description must have
# them): the core clock, and what QEMU's virtual time follows.
CLOCK = "clock_hz"
TIME = "time"

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
    what: str = ""  # what it is, as a message names it ("the flash wait states")


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
    # the host's own settings (args.rs HOST_SETTINGS): clock_hz (time_hz='s range) and time
    host_settings: tuple[Setting, ...] = ()

    def setting(self, key: str) -> Setting | None:
        return next((s for s in (*self.settings, *self.host_settings) if s.key == key), None)

    def keys(self) -> list[str]:
        """Every key a user may set: the plugin's settings, then the host-only ones."""
        return [s.key for s in (*self.settings, *self.host_settings)]

    def host_keys(self) -> frozenset[str]:
        """The settings the host takes and never gives the plugin as they are."""
        return frozenset(s.key for s in self.host_settings)

    def defaults(self) -> dict[str, object]:
        """Each plugin setting's declared default (region settings have none: not set)."""
        return {s.key: s.default for s in self.settings if s.default is not None}

    @property
    def clock_hz(self) -> Setting:
        """The core clock's setting (its range: the plugin's time_hz= bounds)."""
        clock = self.setting(CLOCK)
        assert clock is not None, "parse_description requires it"
        return clock


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
        if s.key in desc.host_keys():
            raise RtoslabError(f"{where}: key 'settings[{i}].key' is {s.key!r}, a host-only setting")
    for key, kind in ((CLOCK, "int"), (TIME, "choice")):
        found = next((s for s in desc.host_settings if s.key == key), None)
        if found is None or found.kind != kind or (kind == "choice" and not found.choices):
            raise RtoslabError(f"{where}: key 'host_settings' lacks the {kind} setting {key!r}: "
                               "rebuild the plugin with `make setup`")
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
    what = f" ({s.what})" if s.what else ""
    if s.kind == "choice":
        return f"choose one of {', '.join(s.choices or ())}{what}"
    if s.kind == "int":
        unit = f" of {s.unit}" if s.unit else ""
        lo = "" if s.min is None else f" from {s.min}"
        hi = "" if s.max is None else f" to {s.max}"
        return f"give a whole number{unit}{lo}{hi}{what}"
    most = "" if s.max_regions is None else f" (at most {s.max_regions})"
    return f"give BASE:SIZE regions separated by ';'{most}, e.g. 0x20000000:0x10000{what}"


def check_value(desc: Description, key: str, value: object) -> Scalar:
    """Check one setting against the description; return it in its stored form (ints as
    int, choices and regions as str). Raises one line naming the setting."""
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
                    desc: Description | None = None, where: str = "") -> None:
    """Check each setting against the plugin's description (read when needed). ``where``
    prefixes the message with the setting's source (a target's [timing] table)."""
    items = list(overrides)
    if not items:
        return
    desc = desc or description()
    for key, value in items:
        try:
            check_value(desc, key, value)
        except RtoslabError as e:
            if not where:
                raise
            raise RtoslabError(f"{where}: {e}") from e


def plugin_args(settings: Mapping[str, object], desc: Description | None = None) -> dict[str, object]:
    """The settings the plugin gets (all but the host-only ones)."""
    host = (desc or description()).host_keys()
    return {k: v for k, v in settings.items() if k not in host}


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
