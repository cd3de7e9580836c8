"""Configuration identity, kernel option resolution and config-template rendering."""

from __future__ import annotations

import pytest

from rtoslab.builder.cmake import render_template
from rtoslab.builder.config import BuildConfig
from rtoslab.records import RtoslabError


def test_hash_is_stable_and_sensitive_to_every_axis() -> None:
    base = BuildConfig()
    assert base.hash() == BuildConfig().hash()
    assert len(base.hash()) == 12
    variants = [
        BuildConfig(cflags=("-O3",)),
        BuildConfig(cflags=("-O2", "-flto")),
        BuildConfig(model=(("clock_hz", 72_000_000),)),
    ]
    hashes = {v.hash() for v in variants} | {base.hash()}
    assert len(hashes) == 4


def test_label_does_not_change_identity() -> None:
    assert BuildConfig(label="x").hash() == BuildConfig(label="y").hash()


def test_unknown_kernel_option_is_refused_with_the_known_ones() -> None:
    with pytest.raises(RtoslabError, match="unknown option 'bogus' for kernel baremetal"):
        BuildConfig(kernel_options=(("bogus", 1),)).hash()


def test_render_template_replaces_placeholders_and_bools() -> None:
    text = "#define A @A@\n#define B @B@\n#define C @C@\n"
    out = render_template(text, {"A": 1000, "B": True, "C": False}, "t.h.in")
    assert out == "#define A 1000\n#define B 1\n#define C 0\n"


def test_render_template_unknown_placeholder_names_file_and_key() -> None:
    with pytest.raises(RtoslabError, match=r"t\.h\.in: placeholder @MISSING@ has no kernel option"):
        render_template("@MISSING@", {}, "t.h.in")


def test_model_settings_change_identity_but_not_the_build() -> None:
    a = BuildConfig(model=(("clock_hz", 72_000_000),))
    b = BuildConfig()
    assert a.hash() != b.hash()
    assert a.build_hash() == b.build_hash()
    assert a.model_settings()["clock_hz"] == 72_000_000
    assert b.model_settings()["clock_hz"] == 25_000_000  # the target's clock by default


def test_unknown_model_setting_is_refused() -> None:
    with pytest.raises(RtoslabError, match="unknown timing-model setting 'warp'"):
        BuildConfig(model=(("warp", 9),)).hash()


def test_first_error_skips_command_lines_with_werror() -> None:
    from rtoslab.builder.cmake import first_error

    out = ("[1/3] Building C object x.obj\n"
           "/usr/bin/arm-none-eabi-gcc -Wall -Werror -c k.c\n"
           "/work/k.c:39:10: fatal error: bg_load.h: No such file or directory\n"
           "ninja: build stopped: subcommand failed.\n")
    assert first_error(out) == "/work/k.c:39:10: fatal error: bg_load.h: No such file or directory"
    assert first_error("") == "no output"


@pytest.mark.parametrize(("key", "value", "message"), [
    ("core", "cortex-m9", "core=cortex-m9: choose one of cortex-m3"),
    ("prefetch", "maybe", "prefetch=maybe: choose one of on, off"),
    ("div", "avg", "div=avg: choose one of min, typ, max"),
    ("flash_ws", 99, "flash_ws=99: give a whole number of wait states from 0 to 64"),
    ("sram_ws", "x", "sram_ws=x: give a whole number"),
    ("clock_hz", 0, "clock_hz=0: give the core clock in Hz"),
])
def test_bad_model_values_are_refused_before_anything_runs(key: str, value: object, message: str) -> None:
    with pytest.raises(RtoslabError, match=message):
        BuildConfig(model=((key, value),)).hash()


def test_good_model_values_pass() -> None:
    cfg = BuildConfig(model=(("core", "cortex-m4"), ("flash_ws", 2), ("prefetch", "on"),
                             ("div", "max"), ("clock_hz", 72_000_000)))
    assert cfg.model_settings()["core"] == "cortex-m4"
