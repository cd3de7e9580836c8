"""Footprints from linker maps, with the target's [footprint] lists deciding what counts."""

from __future__ import annotations

from pathlib import Path

import pytest

from rtoslab.builder.footprint import footprint_of, output_sections, parse_map
from rtoslab.catalog import Catalog, FootprintSections
from rtoslab.records import RtoslabError

CATALOG = Catalog()  # the checkout's folders alone

SPEC = CATALOG.get_target("mps2-an385").footprint

# The shapes GNU ld 2.40 writes: a section on one line, or its name alone when long and
# the address and size on the next; fill; input sections from each component.
MAP = """\
Memory Configuration
Name             Origin             Length             Attributes
FLASH            0x00000000         0x00400000         xr

Linker script and memory map

.vectors        0x00000000       0xc0
 *(.vectors)
 .vectors       0x00000000       0xc0 CMakeFiles/lab_target.dir/targets/mps2-an385/startup.c.obj

.text           0x000000c0      0x100
 *(.text .text.*)
 .text.main     0x000000c0       0x20 CMakeFiles/lab_harness.dir/harness/harness.c.obj
 .text.lab_bench_run
                0x000000e0       0x40 CMakeFiles/call.dir/bench/call/call.c.obj
 .text          0x00000120       0x9c /usr/lib/arm-none-eabi/lib/thumb/v7-m/nofp/libc_nano.a(lib_a-memcpy.o)
 *fill*         0x000001bc        0x4

.data           0x20000000        0x8 load address 0x000001c0
 .data.x        0x20000000        0x8 CMakeFiles/lab_port.dir/ports/freertos/port_freertos.c.obj

.ram_vectors
                0x20000100       0xc0
 *(.ram_vectors)
 .ram_vectors   0x20000100       0xc0 CMakeFiles/lab_target.dir/targets/mps2-an385/startup.c.obj

.lab_bulk
 *(.bss.lab_bulk .bss.lab_bulk.*)

.bss            0x200001c0       0x10
 .bss.y         0x200001c0       0x10 CMakeFiles/lab_kernel.dir/FreeRTOS-Kernel/tasks.c.obj

.heap           0x200001d0   0x3fdf30
                0x200001d0                __lab_heap_start = .

.main_stack     0x203fe000     0x2000
                0x203fe000                __lab_main_stack_limit = .

.lab_meta       0x00000000      0x140
 .lab_meta      0x00000000      0x140 CMakeFiles/call.dir/bench/call/call.c.obj

/DISCARD/
 *(.ARM.attributes.discard)

.debug_line_str
                0x00000000       0xa0
 .debug_line_str
                0x00000000       0xa0 CMakeFiles/call.dir/bench/call/call.c.obj
"""


def test_output_sections_of_both_line_shapes() -> None:
    sections = output_sections(MAP)
    assert sections[".ram_vectors"] == 0xc0 and sections[".debug_line_str"] == 0xa0
    assert sections[".lab_bulk"] == 0 and sections[".text"] == 0x100


def test_components_are_counted_by_the_targets_lists() -> None:
    fp = parse_map(MAP, SPEC)
    assert fp.flash == {"target": 0xc0, "harness": 0x20, "benchmark": 0x40, "libc": 0x9c,
                        "linker": 4, "port": 8}
    assert fp.ram == {"port": 8, "target": 0xc0, "kernel": 0x10, "stack": 0x2000}
    assert fp.sections == {".vectors": 0xc0, ".text": 0x100, ".data": 8, ".ram_vectors": 0xc0,
                           ".bss": 0x10, ".main_stack": 0x2000}


def test_an_unknown_non_empty_section_is_an_error_naming_it_the_image_and_the_key() -> None:
    text = MAP + "\n.noinit         0x20000300       0x24\n"
    with pytest.raises(RtoslabError) as e:
        parse_map(text, SPEC, "build/call.map", "firmware/targets/x/target.toml", image="build/call.elf")
    assert str(e.value) == ("build/call.elf: output section .noinit (36 bytes) is in no [footprint] "
                            "list of firmware/targets/x/target.toml: add it to footprint.flash, ram, "
                            "both, stack or ignore")
    # ... an empty one is not memory: nothing to say
    parse_map(MAP + "\n.noinit         0x20000300        0x0\n", SPEC)


def test_the_lists_decide_a_section_moved_to_ignore_does_not_count() -> None:
    spec = FootprintSections(flash=(".vectors", ".text", ".data"), ram=(), both=(), stack=(),
                             ignore=(".ram_vectors", ".bss", ".heap", ".main_stack", ".lab_*", ".debug_*"))
    fp = parse_map(MAP, spec)
    assert fp.ram == {} and fp.flash_total == 0xc0 + 0x100 + 8


def test_footprint_of_reads_the_map_beside_the_image_with_the_targets_sections(tmp_path: Path) -> None:
    target = CATALOG.get_target("mps2-an385")
    with pytest.raises(RtoslabError, match=r"no linker map .*call.map beside call.elf: rebuild"):
        footprint_of(tmp_path / "call.elf", target)
    (tmp_path / "call.map").write_text(MAP)
    assert footprint_of(tmp_path / "call.elf", target) == parse_map(MAP, SPEC)
    assert footprint_of(tmp_path / "call.elf", target).ram_total == 0x2000 + 8 + 0xc0 + 0x10
