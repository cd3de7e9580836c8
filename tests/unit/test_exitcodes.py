"""Exit statuses: declared once (firmware/include/lab/exit.h for the firmware's, the plugin's
config crate for its hang status) and read by the host from there."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from rtoslab.exitcodes import code_of, exit_codes, parse_exit_header
from rtoslab.records import RtoslabError

REPO = Path(__file__).resolve().parents[2]


def test_the_host_reads_the_firmware_codes_and_their_reasons_from_exit_h() -> None:
    codes = exit_codes()
    names = ("OK", "CHECK_FAILED", "FAULT", "UNSUPPORTED")
    assert [code_of(n) for n in names] == [0, 10, 11, 15]
    assert codes["OUT_OF_MEMORY"].reason == "out of memory (kernel allocation failed)"
    assert all(c.reason for name, c in codes.items() if name != "OK")


def test_a_failed_run_names_the_header_reason(monkeypatch: pytest.MonkeyPatch) -> None:
    from rtoslab import timing
    from rtoslab.runners import qemu

    fixture = json.loads((REPO / "tests/data/plugin/describe.json").read_text())
    monkeypatch.setattr(qemu, "description", lambda: timing.parse_description(fixture, "fixture"))
    assert qemu.exit_reason(code_of("STACK_OVERFLOW")) == "stack overflow detected by the kernel"
    assert qemu.exit_reason(124) == "hang"
    assert qemu.exit_reason(99) == "non-zero exit"


def test_the_plugins_hang_status_has_one_declaration() -> None:
    """The recorded description (the host's view) and the plugin's constant agree; a change
    on either side alone fails here."""
    source = (REPO / "plugin/config/src/args.rs").read_text()
    m = re.search(r"pub const EXIT_INSN_LIMIT: i32 = (\d+);", source)
    assert m is not None
    fixture = json.loads((REPO / "tests/data/plugin/describe.json").read_text())
    assert fixture["exit_insn_limit"] == int(m.group(1))
    assert "124" not in (REPO / "src/rtoslab/runners/qemu.py").read_text()


@pytest.mark.parametrize(("text", "message"), [
    ("#define LAB_EXIT_OK 0\n#define LAB_EXIT_FAULT 11\n", r"LAB_EXIT_FAULT has no reason"),
    ("#define LAB_EXIT_OK 0\n#define LAB_EXIT_A 10 /* a */\n#define LAB_EXIT_B 10 /* b */\n",
     r"LAB_EXIT_B repeats exit status 10"),
    ("#define LAB_EXIT_OK 0\n#define LAB_EXIT_CHECK_FAILED 10 /* c */\n", r"LAB_EXIT_FAULT is missing"),
])
def test_a_broken_exit_header_is_one_line(text: str, message: str) -> None:
    with pytest.raises(RtoslabError, match=message):
        parse_exit_header(text, "exit.h")


def test_the_task_hook_ids_come_from_port_h() -> None:
    from rtoslab.lab_headers import define_value, trace_tasks
    from rtoslab.trace.timeline import task_first_id

    assert trace_tasks() == 64
    assert task_first_id(0x4000, trace_tasks()) == 0x4000 // 4 - 64
    with pytest.raises(RtoslabError, match=r"port.h: no integer #define LAB_NO_SUCH: the host reads"):
        define_value("port.h", "LAB_NO_SUCH")
