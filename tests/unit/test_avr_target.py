"""The AVR target kind (target.toml arch = "avr", issue 30): its checks, its build facts,
what it lacks, the RAM refusal with byte counts and the emulator command line."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from rtoslab.builder.cmake import TOOLCHAINS, link_flags, target_cmake_args, too_big
from rtoslab.catalog import Catalog, lacked_features, load_target
from rtoslab.paths import firmware_root
from rtoslab.records import RtoslabError
from rtoslab.runners.base import RunRequest
from rtoslab.runners.qemu import qemu_command

CATALOG = Catalog()  # the checkout's folders alone

UNO = firmware_root() / "targets" / "arduino-uno"


def _uno_copy(tmp_path: Path, old: str, new: str) -> Path:
    folder = tmp_path / "t"
    shutil.copytree(UNO, folder)
    text = (folder / "target.toml").read_text()
    assert old in text, old
    (folder / "target.toml").write_text(text.replace(old, new, 1))
    return folder / "target.toml"


def test_the_uno_is_an_avr_target_with_its_own_build_facts(tmp_path: Path) -> None:
    uno = CATALOG.get_target("arduino-uno")
    assert uno.arch == "avr" and uno.qemu_system == "avr"
    assert uno.cpu_flags() == ("-mmcu=atmega328p",)
    assert TOOLCHAINS["avr"] == ("avr-gcc.cmake", "avr-gcc")
    assert "-nostartfiles" not in link_flags("avr") and "-nostartfiles" in link_flags()
    args = target_cmake_args(uno, tmp_path)
    assert args["LAB_TARGET_EXIT_WINDOW"] == "0x7f00"
    assert args["LAB_PROBE_REGION_BASE"] == "0x8000"
    assert "LAB_TARGET_EXIT_WINDOW" not in target_cmake_args(CATALOG.get_target("mps2-an385"), tmp_path)


def test_the_uno_lacks_what_an_8_bit_avr_lacks() -> None:
    lacks = lacked_features(CATALOG.get_target("arduino-uno"))
    for feature in ("thumb", "thumb2", "fpu", "irq_lines", "atomic32", "bulk"):
        assert feature in lacks, feature
    assert "atmega328p" in lacks["atomic32"]
    assert not {"thumb", "irq_lines", "atomic32"} & set(lacked_features(CATALOG.get_target("mps2-an385")))


@pytest.mark.parametrize(("old", "new", "message"), [
    ("exit_window = 0x7F00", "exit_window = 0x8100",
     r"key 'exit_window' \(0x8100\+0x100\) overlaps the probe region 0x8000\+0x4000"),
    ("exit_window = 0x7F00", "exit_window = 0x20", r"key 'exit_window' is 0x20: give the data-space"),
    ("base = 0x8000", "base = 0xF000", r"key 'probe.base' is 0xf000: .* inside 0x10000"),
    ('fpu = "none"', 'fpu = "fpv4-sp-d16"', r"key 'fpu' is 'fpv4-sp-d16' but an AVR target has none"),
    ('cpu = "atmega328p"', 'cpu = "atmega328p"\nnvic_prio_bits = 2',
     r"key 'nvic_prio_bits' is 2 but an AVR target has none"),
    ('cpu = "atmega328p"', 'cpu = "atmega328p"\ncores = 2', r"key 'cores' is 2 but an AVR target has none"),
])
def test_a_bad_avr_target_is_one_line_naming_the_key(tmp_path: Path, old: str, new: str,
                                                     message: str) -> None:
    with pytest.raises(RtoslabError, match=message):
        load_target(_uno_copy(tmp_path, old, new))


def test_an_exit_window_on_a_cortex_m_target_is_refused(tmp_path: Path) -> None:
    folder = tmp_path / "t"
    shutil.copytree(firmware_root() / "targets" / "mps2-an385", folder)
    toml = folder / "target.toml"
    toml.write_text("exit_window = 0x7F00\n" + toml.read_text())
    with pytest.raises(RtoslabError, match=r"key 'exit_window' is for AVR targets"):
        load_target(toml)


def test_a_ram_overflow_is_na_with_the_byte_counts() -> None:
    uno = CATALOG.get_target("arduino-uno")
    err = "/usr/lib/gcc/avr/5.4.0/../../../avr/bin/ld: region `RAM' overflowed by 2094 bytes"
    assert too_big(err, uno) == ("needs 4142 bytes of RAM, 2094 more than arduino-uno's 2048 "
                                 "(RAM; its data, bss and stacks as built)")
    assert too_big("region `FLASH' overflowed by 10 bytes", uno) is None  # flash: a failure
    assert too_big("error: 'x' undeclared", uno) is None
    err = "alloc.h:53:16: error: size of array \u2018lab_alloc_region\u2019 is too large"
    assert too_big(err, uno) == ("its array lab_alloc_region is larger than an object may be on "
                                 "arduino-uno (16-bit addresses: at most 32 KiB; its SRAM is 2048 bytes)")
    assert too_big(err, CATALOG.get_target("mps2-an385")) is None


def test_the_avr_command_line_loads_the_elf_as_bios_and_exits_through_the_window(tmp_path: Path) -> None:
    req = RunRequest("calib", tmp_path / "calib.elf", CATALOG.get_target("arduino-uno"), tmp_path, 1000, 10.0,
                     {"core": "avre", "handlers": "0x4;0x8"})
    cmd = qemu_command(req, tmp_path / "calib.trace", tmp_path / "p.so")
    assert Path(cmd[0]).name == "qemu-system-avr"
    assert cmd[cmd.index("-bios") + 1] == str(tmp_path / "calib.elf")
    assert "-kernel" not in cmd and not any("semihosting" in c for c in cmd)
    plugin = cmd[cmd.index("-plugin") + 1].split(",")
    assert "exit=0x7f00" in plugin and "base=0x8000" in plugin and "core=avre" in plugin
