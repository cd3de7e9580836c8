"""Every real board ([board] in target.toml: STM32F103 Blue Pill, STM32F401 Nucleo, RP2040
Pico, nRF52840 DK) builds and links the smoke and kernel suites in buffer mode, for the
core and float ABI its target.toml names (issue 29; docs/boards.md). They are never run
here: no chip is attached (tests/e2e/test_gdb_runner.py runs the same firmware paths
against QEMU's gdbstub)."""

from __future__ import annotations

import subprocess

import pytest

from rtoslab.builder.cmake import build
from rtoslab.builder.config import BuildConfig
from rtoslab.catalog import Catalog, na_reason
from rtoslab.trace.elf import read_elf_symbol

CATALOG = Catalog()  # the checkout's folders alone

pytestmark = pytest.mark.qemu  # (needs the cross toolchain, as the emulator tests do)

BOARDS = sorted(name for name, t in CATALOG.targets.items() if t.is_board)


def test_the_four_boards_of_issue_29_are_there() -> None:
    assert {"stm32f103-bluepill", "stm32f401-nucleo", "rp2040-pico", "nrf52840-dk"} <= set(BOARDS)


@pytest.mark.parametrize("board", BOARDS)
def test_a_board_builds_and_links_the_smoke_and_kernel_suites(board: str) -> None:
    config = BuildConfig(catalog=CATALOG, target=board, kernel="freertos")
    config.validate()
    assert config.probe_mode() == "buffer"
    target = config.target_info()
    wanted = {b.name: b for b in [*CATALOG.suite_benchmarks("smoke"), *CATALOG.suite_benchmarks("kernel")]}
    benches = [b for b in wanted.values() if na_reason(b, config.kernel_info(), target) is None]
    result = build(config, benches, True)
    assert not result.failed, result.failed
    assert set(result.elfs) == {b.name for b in benches}
    for elf in result.elfs.values():
        for symbol in ("lab_probe_buf", "lab_console_ram", "lab_board_halt", "lab_probe_buf_drain"):
            assert read_elf_symbol(elf, symbol) is not None, (elf, symbol)
    # the image is for the board's core and float ABI (the ELF's attributes)
    attrs = subprocess.run(["arm-none-eabi-readelf", "-A", str(next(iter(result.elfs.values())))],
                           capture_output=True, text=True, check=True).stdout
    arch = {"cortex-m0plus": "v6S-M", "cortex-m3": "v7", "cortex-m4": "v7E-M"}[target.spec.cpu]
    assert f"Tag_CPU_arch: {arch}" in attrs, attrs
    assert ("Tag_ABI_VFP_args: VFP registers" in attrs) == (target.spec.float_abi == "hard")
