"""target.toml: the one place a target's facts live, checked strictly; what the build and
the timing model get from it (no toolchain needed)."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from rtoslab.builder.cmake import compile_flags, first_error, link_flags, memory_ld, target_cmake_args
from rtoslab.builder.config import BuildConfig, check_target_timing
from rtoslab.catalog import Catalog, lacked_features, load_target
from rtoslab.paths import firmware_root
from rtoslab.records import RtoslabError

CATALOG = Catalog()  # the checkout's folders alone

AN385 = firmware_root() / "targets" / "mps2-an385"


def _target_copy(tmp_path: Path, edit: tuple[str, str] | None = None, append: str = "") -> Path:
    """A copy of mps2-an385's target.toml (in a folder named t), optionally edited."""
    folder = tmp_path / "t"
    folder.mkdir()
    text = (AN385 / "target.toml").read_text()
    if edit:
        assert edit[0] in text, edit[0]
        text = text.replace(*edit)
    (folder / "target.toml").write_text(text + append)
    return folder / "target.toml"


def test_every_target_folder_parses_and_passes_its_checks() -> None:
    found = CATALOG.targets
    assert "mps2-an385" in found
    for name, t in found.items():
        assert t.name == name and (t.path / "target.cmake").is_file()
        assert (t.path / "lab_board.h").is_file() and (t.path / "linker.ld").is_file()


def test_targets_share_one_copy_of_the_cortex_m_code() -> None:
    """The vector table, reset and fault handlers, the IRQ API, the probe and the linker
    sections live once, in firmware/arch/cortex-m/; a target folder holds only its board
    (a fix there reaches every target)."""
    arch = firmware_root() / "arch" / "cortex-m"
    shared = ("void Reset_Handler(void)\n{", "int(lab_target_irq_install)", "#define LAB_PROBE_IMPL(",
              "void lab_target_exit(int status)\n{", ".ram_vectors (NOLOAD)")
    for text in shared:
        assert any(text in f.read_text() for f in arch.iterdir()), text
    for name, t in CATALOG.targets.items():
        if not t.path.is_relative_to(firmware_root()):
            continue
        arch = "avr" if t.arch == "avr" else "cortex-m"  # (the AVR's own shared folder)
        assert f"arch/{arch}/arch.cmake" in (t.path / "target.cmake").read_text(), name
        if arch != "cortex-m":
            continue  # an AVR board's vectors and IRQ API are its own (avr-libc's startup)
        for f in t.path.iterdir():
            body = f.read_text()
            assert not any(text in body for text in shared), (name, f.name)


def test_a_target_without_a_timer_shares_one_copy_of_the_stub() -> None:
    """Every Cortex-M target that lacks the benchmark timer ([lacks] timer) takes its
    lab_target_timer_start/stop from arch/cortex-m/lab_cortex_m_no_timer.h, directly or
    through lab_cortex_m_board.h; none writes the stub again."""
    arch = firmware_root() / "arch" / "cortex-m"
    lacking = [t for t in CATALOG.targets.values() if t.arch != "avr" and "timer" in lacked_features(t)
               and t.path.is_relative_to(firmware_root())]
    assert lacking
    for t in lacking:
        body = (t.path / "target.c").read_text()
        assert "int lab_target_timer_start(" not in body, t.name
        shared = ('#include "lab_cortex_m_no_timer.h"', '#include "lab_cortex_m_board.h"')
        assert any(inc in body for inc in shared), t.name
    assert '#include "lab_cortex_m_no_timer.h"' in (arch / "lab_cortex_m_board.h").read_text()


def test_the_boards_share_one_copy_of_their_board_code() -> None:
    """What every real board without a UART or timer does (the RAM console, the lacking
    timer, the clock, the output register) and the bounded wait of a clock setup live once
    in firmware/arch/cortex-m/ (lab_cortex_m_board.h, lab_cm_wait); a board's target.c
    holds its clock setup only."""
    boards = {name: t for name, t in CATALOG.targets.items()
              if t.is_board and t.path.is_relative_to(firmware_root())}
    assert boards
    own = ("void lab_target_console_write(", "int lab_target_timer_start(", "uint32_t lab_target_clock_hz(",
           "lab_target_output_reg(void) {", "#include \"lab_cortex_m_target.h\"")
    for name, t in boards.items():
        body = (t.path / "target.c").read_text()
        assert '#include "lab_cortex_m_board.h"' in body, name
        assert not any(text in body for text in own), name
        # a poll loop of its own (lab_cm_wait is the shared one)
        assert not re.search(r"for \(uint32_t n = 0; n < \w+; n\+\+\) \{\s*if \(\(\*reg", body), name


def test_an385_facts_and_what_is_derived_from_them() -> None:
    t = CATALOG.get_target("mps2-an385")
    assert (t.qemu_machine, t.clock_hz, t.probe_base, t.probe_size) == (
        "mps2-an385", 25_000_000, 0x21000000, 0x4000)
    assert t.spec.nvic_prio_bits == 3
    assert t.cpu_flags() == ("-mcpu=cortex-m3", "-mthumb", "-mfloat-abi=soft")
    # timing-model defaults: [timing], with the regions from [[memory]] (as before the
    # move: the same strings, so the stored settings and identities do not change)
    assert t.core == "cortex-m3"
    assert t.timing_defaults == {"core": "cortex-m3", "flash": "0x0:0x400000",
                                "sram": "0x20000000:0x400000", "flash_ws": 0, "sram_ws": 0,
                                "prefetch": "off", "div": "typ"}


def test_timing_regions_can_be_overridden_and_sram_regions_are_joined(tmp_path: Path) -> None:
    toml = _target_copy(tmp_path, ('div = "typ"', 'div = "typ"\nflash = "0x0:0x1000"'), append="""
[[memory]]
name = "SRAM2"
kind = "sram"
base = 0x30000000
size = 0x1000
""")
    t = load_target(toml)
    assert t.timing_defaults["flash"] == "0x0:0x1000"
    assert t.timing_defaults["sram"] == "0x20000000:0x400000;0x30000000:0x1000"


def test_fpu_targets_get_an_fpu_flag(tmp_path: Path) -> None:
    # (the Rust triple follows the float ABI: a hard-float image needs the -eabihf one)
    toml = _target_copy(tmp_path, ('fpu = "none"\nfloat_abi = "soft"\n# Rust\'s target triple for this '
                                   'core (Rust kernel ports: docs/rust-models.md).\nrust_target = '
                                   '"thumbv7m-none-eabi"',
                                   'fpu = "fpv4-sp-d16"\nfloat_abi = "hard"\nrust_target = '
                                   '"thumbv7em-none-eabihf"'))
    assert load_target(toml).cpu_flags() == (
        "-mcpu=cortex-m3", "-mthumb", "-mfpu=fpv4-sp-d16", "-mfloat-abi=hard")


@pytest.mark.parametrize(("edit", "message"), [
    (("clock_hz = 25000000", "clock_hz = 25000000\ncore = \"cortex-m3\""),
     r"unknown key 'core': allowed keys: qemu_machine, cpu, "),
    (("nvic_prio_bits = 3", "nvic_prio_bits = \"3\""), r"key 'nvic_prio_bits' must be an integer"),
    (("nvic_prio_bits = 3", "nvic_prio_bits = 9"), r"key 'nvic_prio_bits' is 9: .* 1\.\.8"),
    (("clock_hz = 25000000", "clock_hz = 0"), r"key 'clock_hz' is 0: give the core clock in Hz"),
    (("float_abi = \"soft\"", "float_abi = \"hard\""), r"key 'float_abi' is 'hard' but fpu is 'none'"),
    (("float_abi = \"soft\"", "float_abi = \"fast\""), r"key 'float_abi' is 'fast': choose one of"),
    (("base = 0x21000000", "base = 0x21000100"), r"key 'probe.base' is 0x21000100: .*64 KiB aligned"),
    (("size = 0x4000", "size = 0x20000"), r"key 'probe.size' is 0x20000"),
    (("base = 0x21004000", "base = 0x21000000"), r"key 'memory\[2\]' \(BULK\) overlaps the probe region"),
    (("base = 0x20000000", "base = 0x00100000"),
     r"key 'memory\[1\]' \(RAM\) overlaps memory\[0\] \(FLASH\)"),
    (("name = \"RAM\"", "name = \"FLASH\""), r"key 'memory\[1\].name' is 'FLASH': give a unique"),
    (("kind = \"sram\"", "kind = \"ram\""),
     r"key 'memory\[1\].kind' is 'ram': choose one of 'flash', 'sram'"),
    (("both = [\".data\"]", "both = [\".data\", \".bss\"]"),
     r"key 'footprint.both' lists .bss which footprint.ram lists too"),
    (("[probe]\nbase = 0x21000000\nsize = 0x4000\nbuffer = 16384\nconsole = 4096\n", ""),
     r"key 'probe' is missing"),
])
def test_a_bad_target_toml_is_one_line_naming_file_and_key(tmp_path: Path, edit: tuple[str, str],
                                                          message: str) -> None:
    toml = _target_copy(tmp_path, edit)
    with pytest.raises(RtoslabError, match=message) as e:
        load_target(toml)
    assert str(e.value).startswith(f"{toml}: ") and "\n" not in str(e.value)


@pytest.mark.parametrize(("edit", "message"), [
    (("[timing]\n", "[timing]\nflash_wait = 1\n"),
     r"unknown timing-model setting 'flash_wait' \(did you mean flash_ws\?\)"),
    (("flash_ws = 0\n", "flash_ws = 99\n"),
     r"flash_ws=99: give a whole number of wait states from 0 to 64"),
    (("[timing]\n", "[timing]\naccel = \"cache\"\n"), r"accel=cache: choose one of none, art"),
])
def test_a_targets_timing_table_is_checked_against_the_plugin_even_with_nothing_overridden(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, edit: tuple[str, str], message: str) -> None:
    """[timing] takes any of the plugin's settings: each value is checked against the
    plugin's description (the recorded one here), naming the file, when a configuration on
    the target is validated, without any --timing."""
    toml = _target_copy(tmp_path, edit)
    target = load_target(toml)
    with pytest.raises(RtoslabError, match=message) as e:
        check_target_timing(target)
    assert str(e.value).startswith(f"target t ({toml} [timing]): timing-model setting ") or \
        str(e.value).startswith(f"target t ({toml} [timing]): unknown timing-model setting")
    monkeypatch.setattr(BuildConfig, "target_info", lambda self: target)
    with pytest.raises(RtoslabError, match=message):
        BuildConfig(catalog=CATALOG).validate()


def test_every_shipped_targets_timing_table_passes_the_description() -> None:
    for t in CATALOG.targets.values():
        check_target_timing(t)


def test_two_flash_regions_need_the_timing_flash_region(tmp_path: Path) -> None:
    toml = _target_copy(tmp_path, append='\n[[memory]]\nname = "F2"\nkind = "flash"\nbase = 0x10000000\n'
                                         'size = 0x1000\n')
    with pytest.raises(RtoslabError, match=r"key 'timing.flash' is missing and there are several flash"):
        load_target(toml)


def test_memory_ld_holds_every_region_once(tmp_path: Path) -> None:
    text = memory_ld(CATALOG.get_target("mps2-an385"))
    assert re.findall(r"^\s+(\w+)\s+\((\w+)\) : ORIGIN = (0x[0-9a-f]+), LENGTH = (0x[0-9a-f]+)$",
                      text, re.M) == [("FLASH", "rx", "0x00000000", "0x400000"),
                                      ("RAM", "rwx", "0x20000000", "0x400000"),
                                      ("BULK", "rw", "0x21004000", "0xffc000")]
    # the linker script takes its regions from memory.ld only
    linker = (AN385 / "linker.ld").read_text()
    assert "INCLUDE memory.ld" in linker and "ORIGIN =" not in linker


def test_cmake_gets_every_fact_from_target_toml(tmp_path: Path) -> None:
    args = target_cmake_args(CATALOG.get_target("mps2-an385"), tmp_path / "gen")
    assert args["LAB_TARGET_CPU_FLAGS"] == "-mcpu=cortex-m3;-mthumb;-mfloat-abi=soft"
    assert (args["LAB_TARGET_CLOCK_HZ"], args["LAB_TARGET_NVIC_PRIO_BITS"]) == ("25000000", "3")
    assert (args["LAB_PROBE_REGION_BASE"], args["LAB_PROBE_REGION_SIZE"]) == ("0x21000000", "0x4000")
    assert (args["LAB_TARGET_CPU"], args["LAB_TARGET_FPU"]) == ("cortex-m3", "none")
    assert (tmp_path / "gen" / "memory.ld").read_text() == memory_ld(CATALOG.get_target("mps2-an385"))
    # ... and no target number is written in the firmware's build files or headers
    fw = firmware_root()
    for path in [fw / "CMakeLists.txt", *fw.glob("targets/*/target.cmake"), *fw.glob("targets/*/*.h"),
                 *fw.glob("targets/*/*.ld"), *fw.glob("ports/*/*.in"), *fw.glob("ports/*/*.cmake")]:
        text = path.read_text()
        assert not re.search(r"25000000|0x2100|0x21000000|configPRIO_BITS\s+\d|-mcpu=", text), path


def test_toolchain_flags_have_one_home() -> None:
    assert " ".join(link_flags()) == "-nostartfiles --specs=nano.specs --specs=nosys.specs -Wl,--gc-sections"
    assert "-ffunction-sections" in compile_flags()
    cmakelists = (firmware_root() / "CMakeLists.txt").read_text()
    for flag in (*link_flags(), *compile_flags(), "-Wextra", "-std=gnu11"):
        assert flag not in cmakelists, flag


def test_no_assembly_source_writes_the_probe_address() -> None:
    for src in firmware_root().glob("**/*.S"):
        text = src.read_text()
        assert "movt" not in text or "lab_probe" in text, src
        assert not re.search(r"movt\s+r12,\s*#0x", text), src


def test_a_copied_target_folder_is_a_new_target(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Discovery needs nothing but the folder (the e2e test builds and runs one)."""
    root = tmp_path / "root"
    shutil.copytree(firmware_root(), root / "firmware", ignore=shutil.ignore_patterns("bench", "workloads"))
    shutil.copytree(AN385, root / "firmware" / "targets" / "copy-an385")
    monkeypatch.setenv("RTOSLAB_ROOT", str(root))
    found = Catalog()  # a catalog sees the folders as they are when it first looks
    t = found.get_target("copy-an385")
    assert t.path == root / "firmware" / "targets" / "copy-an385"
    assert t.spec == found.get_target("mps2-an385").spec


def test_a_cmake_error_keeps_its_message() -> None:
    out = ("-- Configuring incomplete\nCMake Error at ports/freertos/port.cmake:33 (message):\n"
           "  kernel freertos: no FreeRTOS port for cpu 'x' with fpu 'none'\n"
           "  (target.toml of t): add a line\nCall Stack (most recent call first):\n")
    assert first_error(out) == ("CMake Error at ports/freertos/port.cmake:33 (message): kernel freertos: "
                                "no FreeRTOS port for cpu 'x' with fpu 'none' (target.toml of t): add a line")


def test_lacks_names_known_board_features_with_a_reason(tmp_path: Path) -> None:
    toml = _target_copy(tmp_path, append='\n[lacks]\ntimer = "no timer modelled"\n')
    assert load_target(toml).spec.lacks == {"timer": "no timer modelled"}
    bad = tmp_path / "bad"
    bad.mkdir()
    toml = _target_copy(bad, append='\n[lacks]\nradio = "none"\n')
    with pytest.raises(RtoslabError, match=r"key 'lacks.radio' is not a board feature: choose bulk, timer"):
        load_target(toml)
    fpu = tmp_path / "fpu"
    fpu.mkdir()
    toml = _target_copy(fpu, append='\n[lacks]\nfpu = "none"\n')
    with pytest.raises(RtoslabError, match=r"key 'lacks.fpu' is not declared: .* fpu is \"none\""):
        load_target(toml)
    thumb = tmp_path / "thumb"
    thumb.mkdir()
    toml = _target_copy(thumb, append='\n[lacks]\nthumb2 = "old core"\n')
    with pytest.raises(RtoslabError, match=r"key 'lacks.thumb2' is not declared: .* ARMv6-M"):
        load_target(toml)


def test_board_targets_state_their_architecture_facts() -> None:
    """The boards of issue 11: core, clock and the FreeRTOS-relevant facts from target.toml."""
    found = {name: (t.spec.cpu, t.spec.fpu, t.clock_hz, t.core) for name, t in CATALOG.targets.items()}
    assert found["microbit"] == ("cortex-m0", "none", 16_000_000, "cortex-m0")
    assert found["stm32vldiscovery"] == ("cortex-m3", "none", 24_000_000, "cortex-m3")
    assert found["netduinoplus2"] == ("cortex-m4", "fpv4-sp-d16", 168_000_000, "cortex-m4")
    assert found["mps2-an386"] == ("cortex-m4", "fpv4-sp-d16", 25_000_000, "cortex-m4")
    assert found["mps2-an505"] == ("cortex-m33", "fpv5-sp-d16", 20_000_000, "cortex-m33")
    assert CATALOG.targets["netduinoplus2"].timing_defaults["accel"] == "art"
    assert CATALOG.targets["netduinoplus2"].timing_defaults["flash_ws"] == 5
