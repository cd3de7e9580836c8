"""Conversions between Python values and the text the database columns hold."""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Sequence
from datetime import UTC, datetime

Clock = Callable[[], datetime]

_TIME_FORMAT = "%Y-%m-%dT%H:%M:%SZ"


def utc_now() -> datetime:
    return datetime.now(UTC)


def iso_utc(moment: datetime) -> str:
    """``2026-11-22T04:00:00Z``. A naive datetime is taken to be UTC already."""
    if moment.tzinfo is not None:
        moment = moment.astimezone(UTC)
    return moment.strftime(_TIME_FORMAT)


def to_json(value: object) -> str:
    """Canonical JSON text: sorted keys, no whitespace, non-JSON values as ``str()``."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=str)


def json_dict(text: str | None) -> dict[str, object]:
    """Parse a JSON object column; anything else (NULL, not an object) reads as ``{}``."""
    if not text:
        return {}
    value = json.loads(text)
    return dict(value) if isinstance(value, dict) else {}


def json_str_list(text: str | None) -> tuple[str, ...]:
    if not text:
        return ()
    value = json.loads(text)
    return tuple(str(v) for v in value) if isinstance(value, list) else ()


def flags_text(value: object) -> str:
    """Compiler/linker flags as one string, whether given as a string or a list."""
    if isinstance(value, str):
        return value
    if isinstance(value, Sequence):
        return " ".join(str(v) for v in value)
    return str(value)


def real_or_nan(value: float | None) -> float:
    """A REAL column read back: SQLite stores NaN as NULL."""
    return math.nan if value is None else float(value)
