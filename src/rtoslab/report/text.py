"""Untrusted text made safe for where it is shown (issue 26, items 16 and 17).

Names, reasons and consoles come partly from firmware and from the user's own folders: a
benchmark can print terminal escape sequences, and a title can hold HTML. The store
keeps them as they were; what is printed to a terminal goes through ``terminal_safe``
(every terminal renderer, progress line and error line), and what is written into a
Markdown report through ``markdown_safe``. (The HTML report escapes with ``html.escape``;
JSON, CSV and exports carry the raw text, escaped by their own format.)
"""

from __future__ import annotations

import dataclasses
import re
from enum import Enum
from typing import TypeVar, cast

T = TypeVar("T")

# C0 controls but tab and newline, DEL, C1 controls (0x9b is a one-byte CSI), and the
# Unicode bidirectional overrides and isolates, which reorder what a terminal shows.
_TERMINAL_UNSAFE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u200e\u200f\u202a-\u202e\u2066-\u2069]")


def _visible(m: re.Match[str]) -> str:
    code = ord(m.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def terminal_safe(text: str) -> str:
    """``text`` with every control character but newline and tab shown as a visible escape
    (ESC becomes the four characters ``\\x1b``), so nothing it holds can move the cursor,
    recolour, retitle or clear the terminal; a CR LF line end becomes LF."""
    return _TERMINAL_UNSAFE.sub(_visible, text.replace("\r\n", "\n"))


def terminal_safe_value(value: T) -> T:
    """``terminal_safe`` applied to every string inside ``value`` (a view: frozen
    dataclasses, tuples, lists, dicts); enums and numbers stay as they are."""
    return cast(T, _scrub(value))


def _scrub(value: object) -> object:
    if isinstance(value, Enum):
        return value
    if isinstance(value, str):
        return terminal_safe(value)
    if isinstance(value, tuple):
        return tuple(_scrub(v) for v in value)
    if isinstance(value, list):
        return [_scrub(v) for v in value]
    if isinstance(value, dict):
        return {_scrub(k): _scrub(v) for k, v in value.items()}
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        changes = {f.name: _scrub(getattr(value, f.name)) for f in dataclasses.fields(value)
                   if f.init}
        return dataclasses.replace(value, **changes)
    return value


_MARKDOWN_HTML = {"&": "&amp;", "<": "&lt;", ">": "&gt;"}


def markdown_safe(text: str) -> str:
    """``text`` safe in Markdown prose and table cells: HTML's special characters as
    entities (a title ``<script>`` shows as text, never as a tag), pipes escaped, one line.
    Not for code spans, which show their text as it is."""
    one_line = " ".join(terminal_safe(text).split())
    return "".join(_MARKDOWN_HTML.get(c, c) for c in one_line).replace("|", "\\|")
