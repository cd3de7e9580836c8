"""One declarative schema mechanism for every input file (bench.toml, port.toml,
target.toml, experiment files, the plugin's self-description).

A schema is a frozen dataclass whose field types say what a key may hold. ``parse``
checks a decoded document against it and returns an instance, or raises one
``RtoslabError`` line naming the file, the key (as a path, e.g. ``exclude[2].kernel``)
and what is allowed. Unknown keys are errors, never ignored.

Supported field types: ``str``, ``int`` (not bool), ``float`` (an int is accepted),
``bool``, ``Literal[...]``, ``X | None``, ``list[X]``, ``tuple[X, ...]`` (from a TOML
array), ``dict[str, X]``, ``object`` (anything, checked later by the caller) and nested
schema dataclasses. A field without a default is required. ``field(metadata={"key":
"other-name"})`` reads the field from a differently spelled key.
"""

from __future__ import annotations

import dataclasses
import tomllib
import types
import typing
from collections.abc import Mapping
from functools import cache
from pathlib import Path
from typing import Any, Literal, TypeVar, get_args, get_origin

from rtoslab.records import RtoslabError

T = TypeVar("T")

_TYPE_WORDS: dict[type, str] = {
    str: "a string",
    int: "an integer",
    float: "a number",
    bool: "true or false",
}


def load_toml(path: Path) -> dict[str, Any]:
    """Decode a TOML file; a syntax error or bytes that are not UTF-8 are one line naming
    the file."""
    try:
        with path.open("rb") as f:
            return tomllib.load(f)
    except tomllib.TOMLDecodeError as e:
        raise RtoslabError(f"{path}: not valid TOML ({e}): fix the file") from e
    except UnicodeDecodeError as e:
        raise RtoslabError(f"{path}: not UTF-8 text (byte {e.object[e.start]:#04x} at offset "
                           f"{e.start}): save it as UTF-8 (TOML files are UTF-8)") from e
    except OSError as e:
        raise RtoslabError(f"{path}: cannot read ({e.strerror})") from e


def parse_file(cls: type[T], path: Path) -> T:
    """``load_toml`` then ``parse``."""
    return parse(cls, load_toml(path), str(path))


def parse(cls: type[T], data: object, where: str) -> T:
    """Check ``data`` against the schema dataclass ``cls`` and build it.

    ``where`` names the input (usually a file path) at the start of every error.
    """
    return typing.cast(T, _convert(cls, data, where, ""))


def allowed_keys(cls: type) -> list[str]:
    """The keys a schema dataclass accepts, in declaration order."""
    return [_key_of(f) for f in dataclasses.fields(cls)]


@cache
def _hints(cls: type) -> dict[str, Any]:
    return typing.get_type_hints(cls)


def _key_of(f: dataclasses.Field[Any]) -> str:
    return str(f.metadata.get("key", f.name))


def _describe(tp: Any) -> str:
    origin = get_origin(tp)
    if tp in _TYPE_WORDS:
        return _TYPE_WORDS[tp]
    if origin is Literal:
        return "one of " + ", ".join(repr(a) if isinstance(a, str) else str(a) for a in get_args(tp))
    if origin in (list, tuple):
        return "an array"
    if origin is dict or dataclasses.is_dataclass(tp):
        return "a table"
    if origin in (typing.Union, types.UnionType):
        return " or ".join(_describe(a) for a in get_args(tp) if a is not type(None))
    return "a value"


def _shown(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return repr(value)
    if isinstance(value, Mapping):
        return "a table"
    if isinstance(value, list):
        return "an array"
    return str(value)


def _join(path: str, key: str) -> str:
    return f"{path}.{key}" if path else key


def _fail(where: str, path: str, msg: str) -> RtoslabError:
    at = f"key '{path}'" if path else "the document"
    return RtoslabError(f"{where}: {at} {msg}")


def _convert(tp: Any, value: object, where: str, path: str) -> object:
    origin = get_origin(tp)
    if tp is object or tp is Any:
        return value
    if dataclasses.is_dataclass(tp) and isinstance(tp, type):
        return _convert_struct(tp, value, where, path)
    if origin in (typing.Union, types.UnionType):
        args = get_args(tp)
        if value is None and type(None) in args:
            return None
        errors = []
        for a in args:
            if a is type(None):
                continue
            try:
                return _convert(a, value, where, path)
            except RtoslabError as e:
                errors.append(e)
        if len(errors) == 1:
            raise errors[0]
        raise _fail(where, path, f"must be {_describe(tp)}, not {_shown(value)}")
    if origin is Literal:
        allowed = get_args(tp)
        if value not in allowed or isinstance(value, bool) != any(isinstance(a, bool) for a in allowed):
            raise _fail(where, path, f"is {_shown(value)}: choose {_describe(tp)}")
        return value
    if origin in (list, tuple):
        if not isinstance(value, list):
            raise _fail(where, path, f"must be an array, not {_shown(value)}")
        item_tp = get_args(tp)[0]
        items = [_convert(item_tp, v, where, f"{path}[{i}]") for i, v in enumerate(value)]
        return tuple(items) if origin is tuple else items
    if origin is dict:
        if not isinstance(value, Mapping):
            raise _fail(where, path, f"must be a table, not {_shown(value)}")
        val_tp = get_args(tp)[1]
        return {str(k): _convert(val_tp, v, where, _join(path, str(k))) for k, v in value.items()}
    if tp is bool:
        if not isinstance(value, bool):
            raise _fail(where, path, f"must be true or false, not {_shown(value)}")
        return value
    if tp is int:
        if isinstance(value, bool) or not isinstance(value, int):
            raise _fail(where, path, f"must be an integer, not {_shown(value)}")
        return value
    if tp is float:
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise _fail(where, path, f"must be a number, not {_shown(value)}")
        return float(value)
    if tp is str:
        if not isinstance(value, str):
            raise _fail(where, path, f"must be a string, not {_shown(value)}")
        return value
    raise TypeError(f"schema type {tp!r} is not supported by rtoslab.schema")


def _convert_struct(cls: type, value: object, where: str, path: str) -> object:
    if not isinstance(value, Mapping):
        raise _fail(where, path, f"must be a table, not {_shown(value)}")
    fields = dataclasses.fields(cls)
    by_key = {_key_of(f): f for f in fields}
    for key in value:
        if key not in by_key:
            allowed = ", ".join(by_key) or "none"
            inside = f" in [{path}]" if path else ""
            raise RtoslabError(f"{where}: unknown key '{key}'{inside}: allowed keys: {allowed}")
    hints = _hints(cls)
    kwargs: dict[str, object] = {}
    for key, f in by_key.items():
        if key in value:
            kwargs[f.name] = _convert(hints[f.name], value[key], where, _join(path, key))
        elif f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING:
            raise _fail(where, _join(path, key), f"is missing: it must be {_describe(hints[f.name])}")
    return cls(**kwargs)
