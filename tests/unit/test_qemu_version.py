"""The QEMU version floor: which `qemu-system-arm --version` lines can run the plugin."""

from __future__ import annotations

import pytest

from rtoslab.tools import QEMU_MIN_VERSION, parse_qemu_version, qemu_problem


@pytest.mark.parametrize(("line", "version"), [
    ("QEMU emulator version 10.0.2 (Debian 1:10.0.2+ds-2+deb13u1~bpo12+1)", (10, 0, 2)),
    ("QEMU emulator version 7.2.22 (Debian 1:7.2+dfsg-7+deb12u18+b3)", (7, 2, 22)),
    ("QEMU emulator version 9.2.0", (9, 2, 0)),
    ("QEMU emulator version 11.0", (11, 0, 0)),
    ("something else", None),
])
def test_parse(line: str, version: tuple[int, int, int] | None) -> None:
    assert parse_qemu_version(line) == version


def test_floor_is_plugin_api_v4() -> None:
    assert QEMU_MIN_VERSION == (9, 2)
    assert qemu_problem("QEMU emulator version 9.2.0") is None
    assert qemu_problem("QEMU emulator version 10.0.2 (Debian)") is None
    old = qemu_problem("QEMU emulator version 9.1.3")
    assert old is not None and "9.1.3 is too old" in old and "make setup" in old
    assert "\n" not in old
    unreadable = qemu_problem("")
    assert unreadable is not None and "cannot read its version" in unreadable
