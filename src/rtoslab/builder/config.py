"""A build configuration and its keys.

A configuration is everything that changes the firmware image apart from which benchmark
it runs (target, kernel, kernel options, compiler flags, preprocessor defines) and the
timing model's settings it is measured with. ``image_key`` names the build directory (the
build cache), ``measure_key`` the trace directory; the stored identity is
``rtoslab.pipeline.config_identity``.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass, field, replace
from pathlib import Path

from rtoslab.builder.kernel_source import KernelTree, check_tree
from rtoslab.catalog import PROBE_MODES, Catalog, Kernel, Target
from rtoslab.names import did_you_mean
from rtoslab.paths import cache_root, repo_root
from rtoslab.records import RtoslabError
from rtoslab.timing import check_overrides


def canonical_json(value: object) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"))


def sha256_text(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def tree_hash(paths: list[Path]) -> str:
    """Hash of the named files' paths (relative to each given root's parent) and contents;
    a folder stands for every file below it."""
    h = hashlib.sha256()
    for p in paths:
        files = sorted(f for f in p.rglob("*") if f.is_file()) if p.is_dir() else [p]
        for f in files:
            h.update(f.relative_to(p.parent).as_posix().encode())
            h.update(b"\0")
            h.update(f.read_bytes())
            h.update(b"\0")
    return h.hexdigest()


_DEFINE_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_DEFINE_VALUE = re.compile(r"[^\s;\"'\\]+")


def check_define(name: str, value: object) -> str:
    """A preprocessor definition's value as passed to the compiler; one-line error for a
    bad name or value (a CMake list and a command line must carry it unchanged)."""
    if not _DEFINE_NAME.fullmatch(name):
        raise RtoslabError(f"define '{name}': a macro name is a C identifier, e.g. TOGGLE_TASKS")
    if isinstance(value, bool) or not isinstance(value, int | str):
        raise RtoslabError(f"define {name}={value}: give an integer or a string value")
    text = str(value)
    if not _DEFINE_VALUE.fullmatch(text):
        raise RtoslabError(f"define {name}={text!r}: the value must be non-empty, without spaces, "
                           "';', quotes or backslashes")
    return text


# Compiler flags the stored identity cannot show (docs/formats.md §8): a result's identity
# holds its cflags as text and its macros as `defines`, never the content of a file a flag
# names or a macro set behind another tool's option. (prefix, what it does, what to do)
_MACRO_FIX = "give macros as defines (--define NAME=VALUE, or [matrix.defines] in an experiment)"
_HIDDEN_FLAGS: tuple[tuple[tuple[str, ...], str, str], ...] = (
    (("-Wp,", "-Xpreprocessor"), "passes options to the preprocessor (macros the stored identity "
     "would not show)", _MACRO_FIX),
    (("-A", "--assert", "--define-macro", "--undefine-macro"), "sets preprocessor predicates or "
     "macros the stored identity would not show", _MACRO_FIX),
    (("-include", "-imacros", "--include", "--imacros"), "reads a header whose macros and code the "
     "stored identity cannot record", "#include it in the benchmark's sources, and " + _MACRO_FIX),
    (("-I", "-i", "--include-"), "adds a header folder whose files the stored identity cannot "
     "record", "name it in the benchmark's bench.cmake (LAB_BENCH_INCLUDES), whose files are "
     "hashed into the result"),
    (("@",), "reads more flags from a file the stored identity cannot record",
     "write the flags themselves"),
    (("-specs", "--specs"), "reads a GCC specs file the stored identity cannot record", "drop it"),
    (("-Wa,", "-Xassembler"), "passes options to the assembler (symbols, include folders) the "
     "stored identity would not show", "drop it; " + _MACRO_FIX),
    (("-Wl,", "-Xlinker", "-T", "-L", "-l", "--library"), "passes linker inputs or options (scripts, "
     "libraries, symbols) the stored identity cannot record", "drop it: the link flags are "
     "firmware/cmake/flags.toml's"),
    (("-B", "--sysroot", "-fplugin", "-wrapper", "--prefix"), "changes which compiler programs or "
     "system files are used, which the stored identity cannot record", "drop it"),
    (("-fprofile-use", "-fauto-profile", "-fprofile-sample-use"), "reads a profile file the stored "
     "identity cannot record", "drop it"),
    (("-fsanitize-blacklist", "-fsanitize-ignorelist", "-fsanitize-coverage-allowlist",
      "-fsanitize-coverage-denylist"), "reads a list file the stored identity cannot record", "drop it"),
)


def check_cflags(cflags: tuple[str, ...]) -> None:
    """Macros travel as defines (part of the image key, LAB_DEFINES), never in cflags; a
    flag that sets macros or reads files the stored identity cannot show is refused, and
    so is ';' (CMake splits a value on it: "-O2;-DFOO=1" would reach the compiler as two
    flags). One line naming the flag and what to do instead."""
    for flag in cflags:
        if ";" in flag:
            raise RtoslabError(f"has '{flag}', with ';', which CMake reads as a list separator (the "
                               "flag would reach the compiler split in two): separate flags with spaces")
        if flag.startswith(("-D", "-U")):
            name = flag[2:].partition("=")[0] or "NAME"
            raise RtoslabError(f"has '{flag}', which sets a macro: give it as a define instead "
                               f"(--define {name}=VALUE, or [matrix.defines] in an experiment)")
        for prefixes, what, fix in _HIDDEN_FLAGS:
            if flag.startswith(prefixes):
                raise RtoslabError(f"has '{flag}', which {what}: {fix}")


def split_cflags(cflags: tuple[str, ...]) -> dict[str, object]:
    """The opt / lto / extra-cflags axes of a flag list, as an experiment names them."""
    opt = next((f for f in cflags if f.startswith("-O")), "")
    extra = " ".join(f for f in cflags if f not in (opt, "-flto"))
    return {"opt": opt, "lto": "-flto" in cflags, "cflags": extra}


# The target of a configuration that names none (``rtoslab run`` without --target).
DEFAULT_TARGET = "mps2-an385"


def check_target_timing(target: Target) -> None:
    """Check each setting of a target's own [timing] table against the plugin's
    description; one line naming the target's file."""
    check_overrides(target.spec.timing.items(),
                    where=f"target {target.name} ({target.path / 'target.toml'} [timing])")


@dataclass(frozen=True)
class BuildConfig:
    """One configuration. Three keys name it (docs/formats.md, "Identity"):

    - ``image_key()``: the firmware image set (target, kernel, kernel options, cflags,
      defines): the build-cache directory;
    - ``measure_key()``: the image key plus the resolved timing-model settings: names the
      trace directory (one image measured under several timing settings);
    - ``identity_hash`` (``rtoslab.pipeline.config_identity``): everything stored with a
      result, tool versions and axes included: the configs row.
    """

    target: str = DEFAULT_TARGET
    kernel: str = "baremetal"
    kernel_options: tuple[tuple[str, object], ...] = ()  # overrides of the port's defaults
    cflags: tuple[str, ...] = ("-O2",)
    defines: tuple[tuple[str, object], ...] = ()  # preprocessor NAME=VALUE (all code)
    timing: tuple[tuple[str, object], ...] = ()  # timing-model overrides (rtoslab.timing)
    # The probe mode (lab/probe.h; docs/boards.md): "" = the target's ([probe] mode),
    # "region" (the QEMU plugin) or "buffer" (RAM buffer, the GDB runner).
    probe: str = ""
    label: str = field(default="", compare=False)  # a human name, e.g. "O2 lto"
    # The axis values that made this configuration, as an experiment (or the run command
    # line) named them: stored in the identity so comparisons need not re-parse flags.
    axes: tuple[tuple[str, object], ...] = field(default=(), compare=False)
    # The folder of the user's kernel tree (--kernel-source; absolute), "" for the port's
    # pinned sources. Only a port declaring [kernel_source] takes one. Its identity (not the
    # path) enters the keys: ``kernel_tree``.
    kernel_source: str = ""
    # Where the target, kernel and benchmarks are looked up: the catalog of the search
    # paths the CLI or the API was given (not part of any key: the names are).
    catalog: Catalog = field(kw_only=True, compare=False, repr=False)

    # ------------------------------------------------------------------ derived values
    def target_info(self) -> Target:
        return self.catalog.get_target(self.target)

    def kernel_info(self) -> Kernel:
        return self.catalog.get_kernel(self.kernel)

    def kernel_tree(self) -> KernelTree | None:
        """The user's kernel tree, checked against the port's [kernel_source] (one line
        naming what is missing, or the unsupported version); None: the pinned sources."""
        if not self.kernel_source:
            return None
        kernel = self.kernel_info()
        if kernel.source is None:
            raise RtoslabError(f"--kernel-source: kernel {kernel.name} has no sources to replace "
                               "(its port.toml declares no [kernel_source]); kernels that take "
                               "one: " + (", ".join(sorted(_source_kernels(self.catalog))) or "none"))
        return check_tree(kernel.source, Path(self.kernel_source), kernel.name)

    def resolved_kernel_options(self) -> dict[str, object]:
        """The port's defaults with this configuration's overrides; unknown keys fail."""
        kernel = self.kernel_info()
        opts = dict(kernel.options)
        for key, value in self.kernel_options:
            if key not in kernel.options:
                known = ", ".join(sorted(kernel.options)) or "none"
                raise RtoslabError(
                    f"unknown option '{key}'{did_you_mean(key, kernel.options)} for kernel "
                    f"{kernel.name}: known options: {known}"
                )
            _check_option_type(kernel.name, key, value, kernel.options[key])
            # A boolean option given as "true"/1 is stored and rendered as the boolean
            # (a config header gets 1/0, never the word `true`, which #if reads as 0).
            opts[key] = _option_value(value, kernel.options[key])
        _check_option_rules(kernel, opts)
        return opts

    def probe_mode(self) -> str:
        """The probe mode the image is built with: the override, else the target's."""
        return self.probe or self.target_info().spec.probe.mode

    def define_map(self) -> dict[str, str]:
        """NAME -> VALUE, checked, sorted by name."""
        return {k: check_define(k, v) for k, v in sorted(self.defines)}

    def define_flags(self) -> list[str]:
        """``NAME=VALUE`` items for CMake's LAB_DEFINES."""
        return [f"{k}={v}" for k, v in self.define_map().items()]

    def timing_settings(self) -> dict[str, object]:
        """Effective timing-model settings: the target's defaults, then the overrides, then
        flash_ws from the target's clock rule ([flash_latency]) unless flash_ws was given.

        ``clock_hz`` (the target's clock unless overridden) converts cycles to µs on the
        host; every other key is passed to the QEMU plugin as an argument. ``validate``
        checks the overrides; a clock above the rule's last limit is refused here, one line.
        """
        return self._resolve_timing()[0]

    def flash_ws_from(self) -> dict[str, object] | None:
        """Where the effective flash_ws comes from, as the identity stores it (key
        ``flash_ws_from``) for the reports: ``{"by": "given"}`` (an override),
        ``{"by": "rule", "source": ..., "max_hz": N}`` (the target's clock rule: the limit
        that applied), or None (the target's [timing] default, no rule)."""
        return self._resolve_timing()[1]

    def _resolve_timing(self) -> tuple[dict[str, object], dict[str, object] | None]:
        """The one place the effective timing settings are worked out (docs/timing-model.md,
        "Wait states follow the clock")."""
        target = self.target_info()
        given = dict(self.timing)
        settings: dict[str, object] = {"clock_hz": target.clock_hz, **target.timing_defaults}
        settings.update(given)
        if "time" not in settings:
            # The one clock needs cycles to follow; without a cycle model, instructions.
            settings["time"] = "instruction" if str(settings.get("core", "none")) == "none" else "one-clock"
        if "flash_ws" in given:
            return settings, {"by": "given"}
        rule = target.spec.flash_latency
        clock = settings["clock_hz"]
        if rule is None or not isinstance(clock, int) or isinstance(clock, bool) or clock <= 0:
            return settings, None  # (a bad clock_hz is validate's one line)
        ws = rule.wait_states(clock)
        if ws is None:
            top = rule.max_hz[-1]
            raise RtoslabError(
                f"target {target.name}: clock_hz={clock} is above the {rule.part}'s maximum, "
                f"{top / 1e6:g} MHz ({rule.source}): give clock_hz up to {top}, or give flash_ws "
                "yourself (--timing flash_ws=N, or flash_ws in [matrix.timing]) to price a faster "
                "part (see the target's README.md)")
        settings["flash_ws"] = ws
        return settings, {"by": "rule", "source": rule.source, "max_hz": rule.max_hz[ws]}

    def clock_hz(self) -> int:
        """The core clock the firmware is built for and cycles are converted at: the
        target's, unless ``--timing clock_hz`` overrides it (one fact for both)."""
        return int(self.timing_settings()["clock_hz"])  # type: ignore[call-overload]

    def validate(self) -> None:
        """Every per-value check (kernel options, defines, cflags, each timing setting
        against the plugin's description); one-line RtoslabError. The plugin's
        cross-setting check is ``rtoslab.timing.check_resolved(self.timing_settings())``."""
        self.resolved_kernel_options()
        self.catalog.check_kernel_fits_target(self.kernel_info(), self.target_info())
        self.kernel_tree()
        alloc = self.define_map().get("LAB_ALLOC")
        if alloc is not None and alloc not in self.catalog.allocators:
            known = ", ".join(sorted(self.catalog.allocators))
            raise RtoslabError(f"unknown allocator {alloc!r} (--define LAB_ALLOC): choose one of {known} "
                               "(folders under firmware/allocators/)")
        check_cflags(self.cflags)
        self._check_cmake_paths()
        if self.probe not in ("", *PROBE_MODES):
            raise RtoslabError(f"probe mode {self.probe!r}: choose {' or '.join(PROBE_MODES)} "
                               "(--probe; lab/probe.h, docs/boards.md)")
        if self.probe_mode() == "buffer" and self.kernel_info().rust_crate:
            raise RtoslabError(f"kernel {self.kernel}: the Rust models' probes have no buffer form "
                               "(firmware/rust/lab): run them with --probe region on an emulator target")
        check_target_timing(self.target_info())  # whether or not anything overrides it
        check_overrides(self.timing)
        settings, _ = self._resolve_timing()  # a clock beyond the target's flash rule is refused here
        if settings["time"] == "one-clock" and str(settings.get("core", "none")) == "none":
            raise RtoslabError("timing-model setting time=one-clock needs a cycle model: the clock "
                               "follows modelled cycles; give core=... or time=instruction")

    def _check_cmake_paths(self) -> None:
        """The folders this configuration's build passes to CMake as single values: a ';'
        in one would split it (CMake's list separator). (Benchmark folders: names are
        [a-z0-9_]+, and a --bench-path with ';' is refused when added.)"""
        for what, path, fix in (
                ("the build cache (RTOSLAB_CACHE)", cache_root(), "set RTOSLAB_CACHE to a folder"),
                ("the rtoslab checkout", repo_root(), "move the checkout to a folder"),
                (f"target {self.target}'s folder", self.target_info().path, "move it to a folder"),
                (f"kernel port {self.kernel}'s folder", self.kernel_info().path, "move it to a folder"),
                ("the kernel source tree", Path(self.kernel_source or "."), "move it to a folder")):
            if ";" in str(path):
                raise RtoslabError(f"{what} {path} has ';' in its path, which CMake reads as a list "
                                   f"separator (the build would split it): {fix} without ';'")

    def axis_values(self) -> dict[str, object]:
        """The axes stored in the identity: those an experiment set (``axes``), else the
        ones the command line gave (flags split into opt / lto / cflags, every define,
        kernel option and timing setting given)."""
        if self.axes:
            return dict(self.axes)
        axes: dict[str, object] = {"target": self.target, "kernel": self.kernel,
                                   **split_cflags(self.cflags)}
        axes.update({f"defines.{k}": v for k, v in sorted(self.defines)})
        axes.update({f"kernel_options.{k}": v for k, v in sorted(self.kernel_options)})
        axes.update({f"timing.{k}": v for k, v in sorted(self.timing)})
        return axes

    def kernel_config_hash(self) -> str:
        return sha256_text(canonical_json(self.resolved_kernel_options()))[:16]

    def image_key(self) -> str:
        """Identity of the firmware image set (12 hex digits): the build-cache key.

        Timing-model settings are not part of it: they change how an image is measured,
        not the image, so a sweep over them reuses one build; the clock is the exception
        (the firmware programs its timers for it). (Defines enter only when
        there are some, so configurations without defines keep their cached builds.)
        """
        ident: dict[str, object] = {
            "target": self.target,
            "kernel": self.kernel,
            "kernel_options": self.resolved_kernel_options(),
            "cflags": list(self.cflags),
        }
        if self.defines:
            ident["defines"] = self.define_map()
        tree = self.kernel_tree()
        if tree is not None:  # the user's kernel tree, by content (pinned sources: absent)
            ident["kernel_source"] = tree.content
        if self.probe_mode() != "region":
            ident["probe"] = self.probe_mode()  # (region images keep their cached builds)
        if self.clock_hz() != self.target_info().clock_hz:
            # The firmware is built for the clock (LAB_TARGET_CLOCK_HZ): SysTick reloads,
            # tick rates and timer periods follow it. Only a clock other than the target's
            # enters, so the usual configurations keep their cached builds.
            ident["clock_hz"] = self.clock_hz()
        return sha256_text(canonical_json(ident))[:12]

    def measure_key(self) -> str:
        """The image key plus the resolved timing settings (12 hex digits): names the
        trace directory, so two timing settings of one image never share traces."""
        ident = {"build": self.image_key(), "model": self.timing_settings()}
        return sha256_text(canonical_json(ident))[:12]

    def describe(self) -> str:
        return self.label or " ".join(self.cflags)


def _source_kernels(catalog: Catalog) -> list[str]:
    return [k.name for k in catalog.kernels.values() if k.source is not None and not k.is_template]


def with_kernel_source(config: BuildConfig, folder: Path | str | None, *, given: bool,
                       where: str = "--kernel-source") -> BuildConfig:
    """``config`` built from the kernel tree at ``folder`` when its kernel takes one. A
    folder ``given`` for this configuration (--kernel-source) on a kernel without the hook
    is refused; one that applies to many (an experiment, rtoslab.toml) skips such kernels.
    A refusal is one line starting with ``where``."""
    if folder is None or folder == "":
        return config
    if config.kernel_info().source is None and not given:
        return config
    new = replace(config, kernel_source=str(Path(folder).resolve()))
    try:
        new.kernel_tree()  # checked now: one line before anything is built
    except RtoslabError as e:
        raise RtoslabError(f"{where}: {str(e).removeprefix('--kernel-source: ')}") from e
    return new


def _option_value(value: object, default: object) -> object:
    """A kernel option's value as its default's type would hold it (booleans given as
    1/0 or "true"/"false" become True/False), for comparing values."""
    if isinstance(default, bool):
        return value in (True, 1, "true")
    return value


def _check_option_rules(kernel: Kernel, opts: dict[str, object]) -> None:
    """The port's [values] and [[rule]]s (port.toml): a value or combination it refuses is
    one line naming the options, their values and the port's reason or choices."""
    def shown(value: object) -> str:
        return str(value).lower() if isinstance(value, bool) else str(value)

    for key, allowed in kernel.values.items():
        value = _option_value(opts[key], kernel.options[key])
        if value not in [_option_value(v, kernel.options[key]) for v in allowed]:
            choices = " or ".join(f"{key}={shown(_option_value(v, kernel.options[key]))}"
                                  for v in allowed)
            raise RtoslabError(f"kernel {kernel.name}: {key}={shown(value)} is not a value this "
                               f"port supports (port.toml [values]): use --option {choices}")
    for rule in kernel.rules:
        if not all(_option_value(opts[k], kernel.options[k]) == _option_value(v, kernel.options[k])
                   for k, v in rule.when.items()):
            continue
        for k, v in rule.require.items():
            if _option_value(opts[k], kernel.options[k]) != _option_value(v, kernel.options[k]):
                when = ", ".join(f"{wk}={shown(_option_value(opts[wk], kernel.options[wk]))}"
                                 for wk in rule.when)
                raise RtoslabError(f"kernel {kernel.name}: {when} needs {k}={shown(v)} (it is "
                                   f"{shown(_option_value(opts[k], kernel.options[k]))}): {rule.reason}; "
                                   f"add --option {k}={shown(v)}")


def _check_option_type(kernel: str, key: str, value: object, default: object) -> None:
    """A kernel option takes the type of its default in port.toml: an integer option an
    integer, a boolean one true/false (or 1/0), so a typo is refused before any build."""
    if isinstance(default, bool):
        ok = isinstance(value, bool) or value in (0, 1, "true", "false")
        want = "true or false (or 1 / 0)"
    elif isinstance(default, int):
        ok = isinstance(value, int) and not isinstance(value, bool)
        want = "an integer (decimal or 0x hex)"
    else:
        ok = isinstance(value, str)
        want = "a string"
    if not ok:
        shown = str(default).lower() if isinstance(default, bool) else repr(default)
        raise RtoslabError(f"kernel option {key}={value!r} for {kernel}: expected {want}, like its "
                           f"default {shown} in firmware/ports/{kernel}/port.toml")
