"""rtoslab.schema: one checker for every input file; every error is one line."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

import pytest

from rtoslab.records import RtoslabError
from rtoslab.schema import allowed_keys, parse


@dataclass(frozen=True)
class Inner:
    kernel: str | None = None
    opt: Literal["O0", "O2"] | None = None


@dataclass(frozen=True)
class Outer:
    name: str
    count: int = 1
    ratio: float = 0.5
    on: bool = False
    tags: tuple[str, ...] = ()
    exclude: tuple[Inner, ...] = ()
    options: dict[str, object] = field(default_factory=dict)
    dashed: str = field(default="", metadata={"key": "dashed-key"})


def _err(data: object) -> str:
    with pytest.raises(RtoslabError) as e:
        parse(Outer, data, "f.toml")
    msg = str(e.value)
    assert "\n" not in msg
    return msg


def test_valid_document_builds_the_dataclass() -> None:
    got = parse(Outer, {"name": "x", "count": 3, "ratio": 2, "tags": ["a"], "dashed-key": "d",
                        "exclude": [{"kernel": "k", "opt": "O2"}], "options": {"a": 1}}, "f.toml")
    assert got == Outer("x", 3, 2.0, False, ("a",), (Inner("k", "O2"),), {"a": 1}, "d")
    assert isinstance(got.ratio, float)


def test_unknown_key_names_file_key_and_allowed_keys() -> None:
    msg = _err({"name": "x", "nmae": 1})
    assert msg.startswith("f.toml: unknown key 'nmae'")
    assert "allowed keys: name, count, ratio, on, tags, exclude, options, dashed-key" in msg


def test_unknown_key_in_a_nested_table_names_its_position() -> None:
    msg = _err({"name": "x", "exclude": [{"kernel": "a"}, {"kernal": "baremetal"}]})
    assert "unknown key 'kernal' in [exclude[1]]" in msg
    assert "allowed keys: kernel, opt" in msg


def test_wrong_types_and_missing_keys() -> None:
    assert "key 'count' must be an integer, not 'three'" in _err({"name": "x", "count": "three"})
    assert "key 'count' must be an integer, not true" in _err({"name": "x", "count": True})
    assert "key 'on' must be true or false, not 1" in _err({"name": "x", "on": 1})
    assert "key 'tags[1]' must be a string, not 2" in _err({"name": "x", "tags": ["a", 2]})
    assert "key 'name' is missing: it must be a string" in _err({})
    assert "key 'exclude[0].opt' is 'O1': choose one of 'O0', 'O2'" in _err(
        {"name": "x", "exclude": [{"opt": "O1"}]})
    assert "the document must be a table" in _err([1])


def test_allowed_keys_uses_the_spelled_key() -> None:
    assert allowed_keys(Outer)[-1] == "dashed-key"
