"""Wait states follow the clock: a target's [flash_latency] rule in target.toml, checked
strictly; flash_ws resolved from the clock unless given; the effective value and where it
came from in the identity; the report footer saying which applied (no toolchain needed)."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from rtoslab.builder.config import BuildConfig
from rtoslab.catalog import Catalog, FlashLatency, load_target
from rtoslab.cli.list_cmd import flash_ws_text
from rtoslab.experiments.experiment import load_experiment
from rtoslab.paths import firmware_root
from rtoslab.pipeline import config_identity
from rtoslab.records import RtoslabError
from rtoslab.report.labels import flash_ws_origin, timing_footer
from rtoslab.views import ConfigView

CATALOG = Catalog()  # the checkout's folders alone

MHZ = 1_000_000
F1_RULE = """
[flash_latency]
part = "STM32F103"
source = "RM0008 FLASH_ACR"
max_hz = [24000000, 48000000, 72000000]
"""

# Every target's timing settings at its own clock before wait states followed the clock
# (taken from the code of that time): the rules must give the same, so no measure key and
# nothing measured moves.
TODAY = {
    # An AVR target: no wait-state, prefetch or divider settings (the AVR model has none).
    "arduino-uno": {"clock_hz": 16 * MHZ, "core": "avre", "flash": "0x0:0x8000",
                    "sram": "0x800100:0x800"},
    # the boards (issue 29): their model-side settings
    "nrf52840-dk": {"clock_hz": 64 * MHZ, "core": "cortex-m4", "flash_ws": 0, "sram_ws": 0,
                    "prefetch": "off", "div": "typ", "flash": "0x0:0x100000",
                    "sram": "0x20000000:0x40000"},
    "rp2040-pico": {"clock_hz": 133 * MHZ, "core": "cortex-m0plus", "flash_ws": 0, "sram_ws": 0,
                    "prefetch": "off", "div": "typ", "flash": "0x20000000:0x20000",
                    "sram": "0x20020000:0x22000"},
    "stm32f103-bluepill": {"clock_hz": 72 * MHZ, "core": "cortex-m3", "flash_ws": 2, "sram_ws": 0,
                           "prefetch": "on", "div": "typ", "flash": "0x8000000:0x10000",
                           "sram": "0x20000000:0x5000"},
    "stm32f401-nucleo": {"clock_hz": 84 * MHZ, "core": "cortex-m4", "flash_ws": 2, "sram_ws": 0,
                         "prefetch": "on", "div": "typ", "accel": "art", "flash": "0x8000000:0x80000",
                         "sram": "0x20000000:0x18000"},
    "microbit": {"clock_hz": 16 * MHZ, "core": "cortex-m0", "flash_ws": 0, "sram_ws": 0,
                 "prefetch": "off", "div": "typ", "flash": "0x0:0x40000", "sram": "0x20000000:0x4000"},
    "mps2-an385": {"clock_hz": 25 * MHZ, "core": "cortex-m3", "flash_ws": 0, "sram_ws": 0,
                   "prefetch": "off", "div": "typ", "flash": "0x0:0x400000",
                   "sram": "0x20000000:0x400000"},
    "mps2-an386": {"clock_hz": 25 * MHZ, "core": "cortex-m4", "flash_ws": 0, "sram_ws": 0,
                   "prefetch": "off", "div": "typ", "flash": "0x0:0x400000",
                   "sram": "0x20000000:0x400000"},
    "mps2-an505": {"clock_hz": 20 * MHZ, "core": "cortex-m33", "flash_ws": 0, "sram_ws": 0,
                   "prefetch": "off", "div": "typ", "flash": "0x10000000:0x400000",
                   "sram": "0x38000000:0x400000"},
    "mps2-an521": {"clock_hz": 20 * MHZ, "core": "cortex-m33", "flash_ws": 0, "sram_ws": 0,
                   "prefetch": "off", "div": "typ", "flash": "0x10000000:0x400000",
                   "sram": "0x38000000:0x400000"},
    "netduinoplus2": {"clock_hz": 168 * MHZ, "core": "cortex-m4", "flash_ws": 5, "sram_ws": 0,
                      "prefetch": "on", "div": "typ", "accel": "art", "flash": "0x8000000:0x100000",
                      "sram": "0x20000000:0x20000"},
    "stm32vldiscovery": {"clock_hz": 24 * MHZ, "core": "cortex-m3", "flash_ws": 0, "sram_ws": 0,
                         "prefetch": "off", "div": "typ", "flash": "0x8000000:0x10000",
                         "sram": "0x20000000:0x2000"},
}


def _target_toml(tmp_path: Path, rule: str = F1_RULE, edits: tuple[tuple[str, str], ...] = (),
                 name: str = "t") -> Path:
    """A copy of stm32vldiscovery's target.toml (in a folder `name`) with its rule replaced
    by `rule` and the text edits applied."""
    folder = tmp_path / name
    folder.mkdir()
    text = (firmware_root() / "targets" / "stm32vldiscovery" / "target.toml").read_text()
    start = text.index("\n[flash_latency]\n")
    end = text.index("\n\n", start)
    text = text[:start] + "\n" + rule.strip() + text[end:]
    for old, new in edits:
        assert old in text, old
        text = text.replace(old, new)
    (folder / "target.toml").write_text(text)
    return folder / "target.toml"


@pytest.fixture
def f103(tmp_path: Path) -> Catalog:
    """The catalog with a target "f103": the stm32vldiscovery board priced as an STM32F103
    (RM0008: 0/1/2 wait states up to 24/48/72 MHz), at 72 MHz; found through the search
    paths."""
    toml = _target_toml(tmp_path, edits=(("clock_hz = 24000000", "clock_hz = 72000000"),),
                        name="f103")
    shutil.copy(firmware_root() / "targets" / "stm32vldiscovery" / "README.md", toml.parent)
    return Catalog().with_paths(target=[toml.parent])


# ------------------------------------------------------------------------- the rule


def test_wait_states_are_the_smallest_count_whose_limit_holds_the_clock() -> None:
    rule = FlashLatency("STM32F103", "RM0008", (24 * MHZ, 48 * MHZ, 72 * MHZ))
    assert [rule.wait_states(hz) for hz in (1, 24 * MHZ, 24 * MHZ + 1, 48 * MHZ, 48 * MHZ + 1,
                                             72 * MHZ)] == [0, 0, 1, 1, 2, 2]
    assert rule.wait_states(72 * MHZ + 1) is None
    assert rule.text() == "0/1/2 WS up to 24/48/72 MHz (RM0008)"


def test_the_board_rules_are_the_manuals() -> None:
    found = {n: t.spec.flash_latency for n, t in CATALOG.targets.items()}
    f4 = found["netduinoplus2"]
    assert f4 is not None and f4.max_hz == tuple(hz * MHZ for hz in (30, 60, 90, 120, 150, 168))
    assert "RM0090 Table 10" in f4.source
    assert f4.wait_states(84 * MHZ) == 2  # an F401's clock: 2, as RM0368 gives that part
    f1 = found["stm32vldiscovery"]
    assert f1 is not None and f1.max_hz == (24 * MHZ,) and "RM0041" in f1.source
    nrf = found["microbit"]
    assert nrf is not None and nrf.max_hz == (16 * MHZ,)
    # the MPS2 boards' SSRAMs have no rule: flash_ws stays their [timing] default
    assert all(found[n] is None for n in found if n.startswith("mps2-"))


@pytest.mark.parametrize("name", sorted(TODAY))
def test_each_targets_own_clock_gives_todays_settings(name: str) -> None:
    """The rules at the default clocks give what [timing] gave before (5 at 168 MHz, 0 at
    24 MHz, ...), so a default configuration keeps its settings and measure key."""
    assert set(TODAY) == set(CATALOG.targets)
    config = BuildConfig(catalog=CATALOG, target=name)
    assert config.timing_settings() == {**TODAY[name], "time": "one-clock"}
    # the same settings spelled out: the same measure key (the traces are shared)
    if "flash_ws" in TODAY[name]:  # (an AVR target has no flash_ws)
        given = BuildConfig(catalog=CATALOG, target=name, timing=(("flash_ws", TODAY[name]["flash_ws"]),))
        assert given.measure_key() == config.measure_key()


@pytest.mark.parametrize(("rule", "edits", "message"), [
    (F1_RULE + "latency = 2\n", (),
     r"unknown key 'latency' in \[flash_latency\]: allowed keys: part, source, max_hz"),
    (F1_RULE.replace("max_hz = [24000000, 48000000, 72000000]", ""), (),
     r"key 'flash_latency.max_hz' is missing"),
    (F1_RULE.replace("48000000", '"48 MHz"'), (), r"key 'flash_latency.max_hz\[1\]' must be an integer"),
    (F1_RULE.replace("[24000000, 48000000, 72000000]", "24000000"), (),
     r"key 'flash_latency.max_hz' must be an array"),
    (F1_RULE.replace("[24000000, 48000000, 72000000]", "[]"), (),
     r"key 'flash_latency.max_hz' is empty: give the highest clock in Hz for 0, 1, 2"),
    (F1_RULE.replace("24000000,", "0,"), (), r"key 'flash_latency.max_hz\[0\]' is 0: give a clock"),
    (F1_RULE.replace("[24000000, 48000000, 72000000]", "[48000000, 24000000]"), (),
     r"key 'flash_latency.max_hz\[1\]' is 24000000, not above max_hz\[0\] = 48000000: list the "
     r"limits in ascending order"),
    (F1_RULE.replace("[24000000, 48000000, 72000000]", "[24000000, 24000000]"), (),
     r"key 'flash_latency.max_hz\[1\]' is 24000000, not above max_hz\[0\]"),
    (F1_RULE.replace('part = "STM32F103"', 'part = " "'), (), r"key 'flash_latency.part' is empty"),
    (F1_RULE.replace('source = "RM0008 FLASH_ACR"', 'source = ""'), (),
     r"key 'flash_latency.source' is empty"),
    (F1_RULE, (("clock_hz = 24000000", "clock_hz = 80000000"),),
     r"key 'clock_hz' is 80000000, above the STM32F103's maximum in \[flash_latency\] \(72000000\)"),
    (F1_RULE, (('sram_ws = 0', 'flash_ws = 0\nsram_ws = 0'),),
     r"key 'timing.flash_ws' is set but \[flash_latency\] derives flash_ws from the clock \(0 at "
     r"clock_hz = 24000000\): remove timing.flash_ws"),
])
def test_a_bad_rule_is_one_line_naming_file_and_key(tmp_path: Path, rule: str,
                                                     edits: tuple[tuple[str, str], ...],
                                                     message: str) -> None:
    toml = _target_toml(tmp_path, rule, edits)
    with pytest.raises(RtoslabError, match=message) as e:
        load_target(toml)
    assert str(e.value).startswith(f"{toml}: ") and "\n" not in str(e.value)


def test_a_good_rule_parses(tmp_path: Path) -> None:
    target = load_target(_target_toml(tmp_path))
    assert target.spec.flash_latency == FlashLatency("STM32F103", "RM0008 FLASH_ACR",
                                                     (24 * MHZ, 48 * MHZ, 72 * MHZ))
    assert target.timing_defaults["flash_ws"] == 0  # at its own 24 MHz
    assert flash_ws_text(target) == "by clock: 0/1/2 WS up to 24/48/72 MHz (RM0008 FLASH_ACR)"
    assert flash_ws_text(CATALOG.targets["mps2-an385"]) == "0 WS at any clock (no rule)"


# ------------------------------------------------------------------------- resolution


@pytest.mark.parametrize(("clock_hz", "ws", "limit"), [
    (8 * MHZ, 0, 24 * MHZ),
    (24 * MHZ, 0, 24 * MHZ),
    (24 * MHZ + 1, 1, 48 * MHZ),
    (48 * MHZ, 1, 48 * MHZ),
    (48 * MHZ + 1, 2, 72 * MHZ),
    (72 * MHZ, 2, 72 * MHZ),
])
def test_flash_ws_follows_the_clock_at_each_boundary(f103: Catalog, clock_hz: int, ws: int,
                                                     limit: int) -> None:
    config = BuildConfig(catalog=f103, target="f103", timing=(("clock_hz", clock_hz),))
    config.validate()
    assert config.timing_settings()["flash_ws"] == ws
    assert config.flash_ws_from() == {"by": "rule", "source": "RM0008 FLASH_ACR", "max_hz": limit}


def test_the_targets_clock_follows_the_rule_too(f103: Catalog) -> None:
    assert BuildConfig(catalog=f103, target="f103").timing_settings()["flash_ws"] == 2  # its 72 MHz


def test_a_clock_above_the_parts_maximum_is_refused_before_building(f103: Catalog) -> None:
    config = BuildConfig(catalog=f103, target="f103", timing=(("clock_hz", 72 * MHZ + 1),))
    want = ("target f103: clock_hz=72000001 is above the STM32F103's maximum, 72 MHz (RM0008 "
            "FLASH_ACR): give clock_hz up to 72000000, or give flash_ws yourself (--timing "
            "flash_ws=N, or flash_ws in [matrix.timing]) to price a faster part")
    with pytest.raises(RtoslabError, match=re.escape(want)) as e:
        config.validate()
    assert "\n" not in str(e.value)
    with pytest.raises(RtoslabError, match=re.escape(want)):
        config.measure_key()


def test_a_given_flash_ws_wins_over_the_rule(f103: Catalog) -> None:
    config = BuildConfig(catalog=f103, target="f103", timing=(("clock_hz", 24 * MHZ), ("flash_ws", 2)))
    assert config.timing_settings()["flash_ws"] == 2
    assert config.flash_ws_from() == {"by": "given"}
    # also beyond the part's clock: the user prices the flash themselves
    fast = BuildConfig(catalog=f103, target="f103", timing=(("clock_hz", 100 * MHZ), ("flash_ws", 3)))
    fast.validate()
    assert fast.timing_settings()["flash_ws"] == 3


def test_a_target_without_a_rule_keeps_its_default_whatever_the_clock() -> None:
    config = BuildConfig(catalog=CATALOG, target="mps2-an385", timing=(("clock_hz", 500 * MHZ),))
    config.validate()
    assert config.timing_settings()["flash_ws"] == 0
    assert config.flash_ws_from() is None
    assert BuildConfig(catalog=CATALOG, timing=(("flash_ws", 2),)).flash_ws_from() == {"by": "given"}


def test_the_stm32f100_refuses_the_f103_clock_unless_flash_ws_is_given() -> None:
    with pytest.raises(RtoslabError, match=r"target stm32vldiscovery: clock_hz=72000000 is above the "
                       r"STM32F100's maximum, 24 MHz \(RM0041"):
        BuildConfig(catalog=CATALOG, target="stm32vldiscovery", timing=(("clock_hz", 72 * MHZ),)).validate()
    # the README's STM32F103 pricing gives flash_ws itself
    f103 = BuildConfig(catalog=CATALOG,
                       target="stm32vldiscovery", timing=(("clock_hz", 72 * MHZ), ("flash_ws", 2),
                                                          ("prefetch", "on")))
    f103.validate()
    assert f103.timing_settings()["flash_ws"] == 2


def test_a_changed_flash_ws_changes_the_measure_key(f103: Catalog) -> None:
    """The rule's value is the effective setting: the same settings as given, other traces
    than a different count at the same clock."""
    rule = BuildConfig(catalog=f103, target="f103", timing=(("clock_hz", 48 * MHZ),))
    same = BuildConfig(catalog=f103, target="f103", timing=(("clock_hz", 48 * MHZ), ("flash_ws", 1)))
    other = BuildConfig(catalog=f103, target="f103", timing=(("clock_hz", 48 * MHZ), ("flash_ws", 0)))
    assert rule.measure_key() == same.measure_key() != other.measure_key()
    assert rule.image_key() == other.image_key()  # the image is the same: only its pricing moves


def test_netduinoplus2_at_84_mhz_is_priced_with_2_wait_states() -> None:
    config = BuildConfig(catalog=CATALOG, target="netduinoplus2", timing=(("clock_hz", 84 * MHZ),))
    assert config.timing_settings()["flash_ws"] == 2
    assert config.measure_key() != BuildConfig(catalog=CATALOG, target="netduinoplus2").measure_key()


# ------------------------------------------------------------------------- identity, footer


def test_the_identity_holds_the_effective_value_and_where_it_came_from(f103: Catalog) -> None:
    ident = config_identity(BuildConfig(catalog=f103, target="f103", timing=(("clock_hz", 40 * MHZ),)))
    timing = ident["timing"]
    assert isinstance(timing, dict) and timing["flash_ws"] == 1 and timing["clock_hz"] == 40 * MHZ
    assert ident["flash_ws_from"] == {"by": "rule", "source": "RM0008 FLASH_ACR", "max_hz": 48 * MHZ}
    given = config_identity(BuildConfig(catalog=f103, target="f103", timing=(("flash_ws", 0),)))
    assert given["flash_ws_from"] == {"by": "given"}
    assert given["identity_hash"] != ident["identity_hash"]
    # no rule and nothing given: no entry (the identity stays as it was)
    assert "flash_ws_from" not in config_identity(BuildConfig(catalog=CATALOG))


def _view(identity: dict[str, object], model: dict[str, object]) -> ConfigView:
    return ConfigView(1, "h", "t", "cortex-m4", "baremetal", {}, "k", "arm-none-eabi-gcc", "12", "-O2",
                      "", model, identity)


MODEL = {"core": "cortex-m4", "clock_hz": 84 * MHZ, "flash_ws": 2, "sram_ws": 0, "prefetch": "on",
         "div": "typ"}


@pytest.mark.parametrize(("identity", "text"), [
    ({"flash_ws_from": {"by": "rule", "source": "RM0090 Table 10, 2.7-3.6 V", "max_hz": 90 * MHZ}},
     "flash 2 WS (clock rule RM0090 Table 10, 2.7-3.6 V: <= 90 MHz)"),
    ({"flash_ws_from": {"by": "given"}}, "flash 2 WS (given)"),
    ({}, "flash 2 WS (target default)"),
    # stored before the entry existed: given when its axes name it
    ({"axes": {"timing.flash_ws": 2}}, "flash 2 WS (given)"),
])
def test_the_footer_says_which_flash_ws_applied(identity: dict[str, object], text: str) -> None:
    view = _view({"clock_hz": 84 * MHZ, **identity}, MODEL)
    # no timing_defaults in these identities (stored before the entry): every setting shown
    assert timing_footer(view) == (f"timing: core cortex-m4, clock 84 MHz, {text}, div typ, "
                                   "prefetch on, sram_ws 0, time instruction")
    assert text.endswith(f"({flash_ws_origin(view.identity)})")


def test_the_footer_from_a_real_identity(f103: Catalog) -> None:
    ident = config_identity(BuildConfig(catalog=f103, target="f103", timing=(("clock_hz", 48 * MHZ),)))
    timing = ident["timing"]
    assert isinstance(timing, dict)
    assert "flash 1 WS (clock rule RM0008 FLASH_ACR: <= 48 MHz)" in timing_footer(_view(ident, timing))


# ------------------------------------------------------------------------- experiments


def _experiment(tmp_path: Path, clocks: list[int]) -> Path:
    path = tmp_path / "sweep.toml"
    path.write_text(f'name = "sweep"\nbenchmarks = ["call"]\n[matrix]\ntarget = ["netduinoplus2"]\n'
                    f'[matrix.timing]\nclock_hz = {clocks}\n')
    return path


def test_a_clock_sweep_moves_the_wait_states_as_the_part_does(tmp_path: Path) -> None:
    exp = load_experiment(_experiment(tmp_path, [24 * MHZ, 84 * MHZ, 168 * MHZ]), CATALOG)
    got = [(p.config.timing_settings()["clock_hz"], p.config.timing_settings()["flash_ws"])
           for p in exp.points]
    assert got == [(24 * MHZ, 0), (84 * MHZ, 2), (168 * MHZ, 5)]


def test_a_sweep_beyond_the_part_is_refused_naming_the_file(tmp_path: Path) -> None:
    path = _experiment(tmp_path, [168 * MHZ, 180 * MHZ])
    with pytest.raises(RtoslabError, match=re.escape(
            f"{path}: key 'matrix' target netduinoplus2: clock_hz=180000000 is above the STM32F405's "
            "maximum, 168 MHz (RM0090 Table 10, 2.7-3.6 V)")) as e:
        load_experiment(path, CATALOG)
    assert "\n" not in str(e.value)
