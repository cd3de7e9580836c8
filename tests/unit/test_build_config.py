"""Configuration identity, kernel option resolution and config-template rendering."""

from __future__ import annotations

import re

import pytest

from rtoslab import timing
from rtoslab.builder.cmake import render_template
from rtoslab.builder.config import BuildConfig
from rtoslab.catalog import Catalog
from rtoslab.records import RtoslabError

CATALOG = Catalog()  # the checkout's folders alone


def test_keys_are_stable_and_sensitive_to_every_axis() -> None:
    base = BuildConfig(catalog=CATALOG)
    assert base.measure_key() == BuildConfig(catalog=CATALOG).measure_key()
    assert len(base.measure_key()) == 12 and len(base.image_key()) == 12
    variants = [
        BuildConfig(catalog=CATALOG, cflags=("-O3",)),
        BuildConfig(catalog=CATALOG, cflags=("-O2", "-flto")),
        BuildConfig(catalog=CATALOG, defines=(("TOGGLE_TASKS", 3),)),
        BuildConfig(catalog=CATALOG, timing=(("clock_hz", 72_000_000),)),
    ]
    keys = {v.measure_key() for v in variants} | {base.measure_key()}
    assert len(keys) == 5


def test_defines_are_part_of_the_image_key() -> None:
    a = BuildConfig(catalog=CATALOG, defines=(("TOGGLE_TASKS", 3),))
    assert a.image_key() != BuildConfig(catalog=CATALOG).image_key()
    assert a.image_key() == BuildConfig(catalog=CATALOG, defines=(("TOGGLE_TASKS", "3"),)).image_key()
    assert a.define_flags() == ["TOGGLE_TASKS=3"]


@pytest.mark.parametrize(("name", "value", "message"), [
    ("1X", 1, "define '1X': a macro name is a C identifier"),
    ("X", "a b", "define X='a b': the value must be non-empty, without spaces"),
    ("X", "a;b", "without spaces, ';'"),
    ("X", True, "define X=True: give an integer or a string value"),
])
def test_bad_defines_are_refused(name: str, value: object, message: str) -> None:
    with pytest.raises(RtoslabError, match=re.escape(message)):
        BuildConfig(catalog=CATALOG, defines=((name, value),)).validate()


def test_macros_in_cflags_are_refused_with_the_define_to_use() -> None:
    with pytest.raises(RtoslabError, match=r"has '-DTOGGLE_TASKS=3', which sets a macro: give it as "
                       r"a define instead \(--define TOGGLE_TASKS=VALUE"):
        BuildConfig(catalog=CATALOG, cflags=("-O2", "-DTOGGLE_TASKS=3")).validate()


def test_label_and_axes_do_not_change_the_keys() -> None:
    assert BuildConfig(catalog=CATALOG,
                       label="x").measure_key() == BuildConfig(catalog=CATALOG, label="y").measure_key()
    assert BuildConfig(catalog=CATALOG, axes=(("opt", "-O2"),)) == BuildConfig(catalog=CATALOG)


def test_unknown_kernel_option_is_refused_with_the_known_ones() -> None:
    with pytest.raises(RtoslabError, match="unknown option 'bogus' for kernel baremetal"):
        BuildConfig(catalog=CATALOG, kernel_options=(("bogus", 1),)).validate()


def test_axis_values_from_the_command_line_split_the_flags() -> None:
    cfg = BuildConfig(catalog=CATALOG, cflags=("-O3", "-flto", "-fno-inline"), defines=(("TOGGLE_TASKS", 3),),
                      timing=(("flash_ws", 2),))
    assert cfg.axis_values() == {
        "target": "mps2-an385", "kernel": "baremetal", "opt": "-O3", "lto": True,
        "cflags": "-fno-inline", "defines.TOGGLE_TASKS": 3, "timing.flash_ws": 2}
    assert BuildConfig(catalog=CATALOG, axes=(("opt", "-O2"),)).axis_values() == {"opt": "-O2"}


def test_render_template_replaces_placeholders_and_bools() -> None:
    text = "#define A @A@\n#define B @B@\n#define C @C@\n"
    out = render_template(text, {"A": 1000, "B": True, "C": False}, "t.h.in")
    assert out == "#define A 1000\n#define B 1\n#define C 0\n"


def test_render_template_unknown_placeholder_names_file_and_key() -> None:
    with pytest.raises(RtoslabError, match=r"t\.h\.in: placeholder @MISSING@ has no kernel option"):
        render_template("@MISSING@", {}, "t.h.in")


def test_timing_settings_change_the_measure_key_but_not_the_image() -> None:
    a = BuildConfig(catalog=CATALOG, timing=(("flash_ws", 2),))
    b = BuildConfig(catalog=CATALOG)
    assert a.measure_key() != b.measure_key()
    assert a.image_key() == b.image_key()


def test_the_clock_is_one_fact_firmware_and_host() -> None:
    # The clock changes the image (SysTick reloads, tick and timer periods follow it) and
    # the conversion; the target's own clock keeps the key it had before (cached builds).
    a = BuildConfig(catalog=CATALOG, timing=(("clock_hz", 72_000_000),))
    b = BuildConfig(catalog=CATALOG)
    same = BuildConfig(catalog=CATALOG, timing=(("clock_hz", 25_000_000),))
    assert a.image_key() != b.image_key()
    assert same.image_key() == b.image_key()
    assert a.clock_hz() == 72_000_000 and b.clock_hz() == 25_000_000
    assert a.timing_settings()["clock_hz"] == 72_000_000
    assert b.timing_settings()["clock_hz"] == 25_000_000  # the target's clock by default
    assert b.timing_settings()["core"] == "cortex-m3"  # the target's [timing] table
    assert b.timing_settings()["time"] == "one-clock"  # a cycle model: time follows cycles
    assert BuildConfig(catalog=CATALOG, timing=(("core", "none"),)).timing_settings()["time"] == "instruction"


def test_one_clock_needs_a_cycle_model() -> None:
    with pytest.raises(RtoslabError, match=r"^timing-model setting time=one-clock needs a cycle model"):
        BuildConfig(catalog=CATALOG, timing=(("core", "none"), ("time", "one-clock"))).validate()
    with pytest.raises(RtoslabError,
                       match=r"^timing-model setting time=sometimes: choose one of one-clock, instruction"):
        BuildConfig(catalog=CATALOG, timing=(("time", "sometimes"),)).validate()
    BuildConfig(catalog=CATALOG, timing=(("time", "instruction"),)).validate()


def test_unknown_timing_setting_is_refused_with_the_plugins_keys(
        plugin_description: timing.Description) -> None:
    with pytest.raises(RtoslabError, match="unknown timing-model setting 'warp': known settings: core, "
                       "flash, sram, flash_ws, sram_ws, prefetch, div, accel, clock_hz"):
        BuildConfig(catalog=CATALOG, timing=(("warp", 9),)).validate()


def test_first_error_skips_command_lines_with_werror() -> None:
    from rtoslab.builder.cmake import first_error

    out = ("[1/3] Building C object x.obj\n"
           "/usr/bin/arm-none-eabi-gcc -Wall -Werror -c k.c\n"
           "/work/k.c:39:10: fatal error: bg_load.h: No such file or directory\n"
           "ninja: build stopped: subcommand failed.\n")
    assert first_error(out) == "/work/k.c:39:10: fatal error: bg_load.h: No such file or directory"
    assert first_error("") == "no output"


@pytest.mark.parametrize(("key", "value", "message"), [
    ("core", "cortex-m9", "core=cortex-m9: choose one of cortex-m3, cortex-m4, cortex-m0, "
     "cortex-m0plus, cortex-m33, avre, none"),
    ("core", "cortex-m7", "core=cortex-m7: cortex-m7 timing is not modelled; use --timing core=none "
     "for instruction counts"),
    ("prefetch", "maybe", "prefetch=maybe: choose one of on, off"),
    ("div", "avg", "div=avg: choose one of min, typ, max"),
    ("flash_ws", 99, "flash_ws=99: give a whole number of wait states from 0 to 64 (the flash wait states)"),
    ("sram_ws", "x", "sram_ws=x: give a whole number"),
    ("sram_ws", True, "sram_ws=true: give a whole number"),
    ("flash", "0x0:0x10;0x100:0x10", "flash=0x0:0x10;0x100:0x10: give BASE:SIZE regions separated "
     "by ';' (at most 1)"),
    ("clock_hz", 0, "clock_hz=0: give a whole number of Hz from 1 to 4294967295 (the core clock)"),
])
def test_bad_timing_values_are_refused_before_anything_runs(
        plugin_description: timing.Description, key: str, value: object, message: str) -> None:
    with pytest.raises(RtoslabError, match=re.escape(message)):
        BuildConfig(catalog=CATALOG, timing=((key, value),)).validate()


def test_good_timing_values_pass(plugin_description: timing.Description) -> None:
    cfg = BuildConfig(catalog=CATALOG, timing=(("core", "cortex-m4"), ("flash_ws", 2), ("prefetch", "on"),
                              ("div", "max"), ("clock_hz", 72_000_000),
                              ("sram", "0x20000000:0x1000;0x20400000:0x1000")))
    cfg.validate()
    assert cfg.timing_settings()["core"] == "cortex-m4"


def test_clock_hz_takes_its_range_from_the_plugin_description(
        plugin_description: timing.Description, monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 26 item 18: `--timing clock_hz=100000000000000000000000` was accepted (and the
    build failed on an integer constant too large); the range is the plugin's (describe's
    `clock_hz`, args.rs MAX_CLOCK_HZ), not a copy on the host."""
    from dataclasses import replace

    BuildConfig(catalog=CATALOG, timing=(("clock_hz", 4_294_967_295),)).validate()
    for bad in (10**23, 4_294_967_296, 0, -5):
        with pytest.raises(RtoslabError, match=r"clock_hz=.*: give a whole number of Hz "
                           r"from 1 to 4294967295 \(the core clock\)"):
            BuildConfig(catalog=CATALOG, timing=(("clock_hz", bad),)).validate()
    lower = replace(plugin_description, host_settings=tuple(
        replace(s, max=100_000_000) if s.key == "clock_hz" else s for s in plugin_description.host_settings))
    monkeypatch.setattr(timing, "description", lambda: lower)
    with pytest.raises(RtoslabError, match="from 1 to 100000000"):
        BuildConfig(catalog=CATALOG, timing=(("clock_hz", 168_000_000),)).validate()


def test_unknown_allocator_is_refused_before_building_with_the_known_ones() -> None:
    with pytest.raises(RtoslabError, match=r"unknown allocator 'foo' \(--define LAB_ALLOC\): choose one of "
                       r"heap4, .*tlsf"):
        BuildConfig(catalog=CATALOG,
                    target="mps2-an385", kernel="baremetal", defines=(("LAB_ALLOC", "foo"),)).validate()
    BuildConfig(catalog=CATALOG,
                target="mps2-an385", kernel="baremetal", defines=(("LAB_ALLOC", "tlsf"),)).validate()
