"""The plugin's self-description (recorded contract) and checks of timing settings."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest

from rtoslab import timing
from rtoslab.records import RtoslabError

FIXTURE = Path(__file__).resolve().parents[1] / "data" / "plugin" / "describe.json"


def _doc() -> dict[str, object]:
    data: dict[str, object] = json.loads(FIXTURE.read_text())
    return data


def test_recorded_description_parses_into_settings_and_cores() -> None:
    desc = timing.parse_description(_doc(), "d")
    assert desc.keys() == ["core", "flash", "sram", "flash_ws", "sram_ws", "prefetch", "div", "accel",
                           "clock_hz", "time"]
    ws = desc.setting("flash_ws")
    assert ws is not None and (ws.kind, ws.min, ws.max, ws.requires) == ("int", 0, 64, ("flash",))
    assert [c.name for c in desc.cores] == ["cortex-m3", "cortex-m4", "cortex-m0", "cortex-m0plus",
                                            "cortex-m33", "avre"]
    assert "cortex-m7" in [u.name for u in desc.unmodelled]


@pytest.mark.parametrize("core", ["cortex-m7", "cortex-m55"])
def test_an_unmodelled_core_is_refused_by_name_with_the_way_out(core: str) -> None:
    desc = timing.parse_description(_doc(), "d")
    with pytest.raises(RtoslabError) as err:
        timing.check_value(desc, "core", core)
    assert str(err.value) == (f"timing-model setting core={core}: {core} timing is not modelled; "
                              "use --timing core=none for instruction counts")


@pytest.mark.parametrize(("change", "message"), [
    ({"schema": "rtoslab.plugin-describe/9"}, "key 'schema' is 'rtoslab.plugin-describe/9', this "
     "rtoslab reads 'rtoslab.plugin-describe/2'"),
    ({"extra": 1}, "d: unknown key 'extra': allowed keys: schema, plugin_version, settings, cores, "
     "unmodelled"),
    ({"settings": [{"key": "x", "kind": "float", "default": 0, "doc": ""}]},
     "key 'settings[0].kind' is 'float': choose one of 'choice', 'int', 'regions'"),
    ({"settings": [{"key": "x", "kind": "choice", "default": "a", "doc": ""}]},
     "key 'settings[0].choices' is missing"),
    ({"settings": [{"key": "clock_hz", "kind": "int", "default": 1, "doc": ""}]},
     "key 'settings[0].key' is 'clock_hz', a host-only setting"),
    ({"host_settings": [{"key": "clock_hz", "kind": "int", "default": None, "doc": ""}]},
     "key 'host_settings' lacks the choice setting 'time': rebuild the plugin"),
])
def test_a_bad_description_is_one_line(change: dict[str, object], message: str) -> None:
    with pytest.raises(RtoslabError) as err:
        timing.parse_description({**_doc(), **change}, "d")
    assert message in str(err.value) and "\n" not in str(err.value)


def test_plugin_args_leave_out_host_settings() -> None:
    assert timing.plugin_args({"clock_hz": 1, "time": "one-clock", "core": "cortex-m3"}) == \
        {"core": "cortex-m3"}


def test_the_host_settings_come_from_the_description() -> None:
    """clock_hz and time are declared by the plugin (args.rs HOST_SETTINGS) with their
    range and choices; the host checks them like the plugin's own settings."""
    desc = timing.parse_description(_doc(), "d")
    assert desc.host_keys() == {"clock_hz", "time"}
    assert (desc.clock_hz.min, desc.clock_hz.max, desc.clock_hz.unit) == (1, 2**32 - 1, "Hz")
    time = desc.setting("time")
    assert time is not None and time.choices == ("one-clock", "instruction")
    with pytest.raises(RtoslabError, match=r"^timing-model setting clock_hz=0: give a whole number of Hz "
                       r"from 1 to 4294967295 \(the core clock\)$"):
        timing.check_value(desc, "clock_hz", 0)
    assert timing.check_value(desc, "time", "instruction") == "instruction"
    assert desc.defaults() == {"core": "none", "flash_ws": 0, "sram_ws": 0, "prefetch": "off",
                               "div": "typ", "accel": "none"}


@pytest.mark.real_describe
def test_missing_describe_executable_says_how_to_get_it(tmp_path: Path,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(timing.DESCRIBE_ENV, str(tmp_path / "nope"))
    timing.description.cache_clear()
    try:
        with pytest.raises(RtoslabError, match=r"nope is missing: .* run `make setup`"):
            timing.description()
    finally:
        timing.description.cache_clear()
        os.environ.pop(timing.DESCRIBE_ENV, None)


def test_the_settings_table_in_the_docs_is_the_plugins_declaration() -> None:
    """docs/timing-model.md writes the settings out; each row must say what the plugin's
    description (recorded) says: the same keys in order, choices or range, default."""
    desc = timing.parse_description(_doc(), "d")
    text = (Path(__file__).resolve().parents[2] / "docs" / "timing-model.md").read_text()
    table = text.split("| key | values | default | meaning |\n|---|---|---|---|\n", 1)[1].split("\n\n", 1)[0]
    rows = [[c.strip() for c in line.strip("|").split("|")] for line in table.splitlines()]
    rows = [r for r in rows if r[0] != "`handlers`"]  # computed by the host, not a setting
    assert [r[0].strip("`") for r in rows] == [s.key for s in desc.settings]
    for (_, values, default, _), s in zip(rows, desc.settings, strict=True):
        if s.kind == "choice":
            assert [v.strip("` ") for v in values.split(",")] == list(s.choices or ()), s.key
        elif s.kind == "int":
            assert values == f"{s.min}..{s.max}", s.key
        assert default.strip("`") == ("none" if s.default is None else str(s.default)), s.key


def test_the_plugin_readme_s_settings_rows_are_the_plugins_declaration() -> None:
    """plugin/README.md's argument table, from `core` on, writes the timing-model settings
    out by hand: the same keys in the description's order, the same defaults, every choice
    named, the core row naming exactly the core tables (and, as refused, only cores the
    description lists as unmodelled). The recorded description is the real one's
    (tests/e2e/test_timing_describe.py)."""
    doc = _doc()
    settings = doc["settings"]
    assert isinstance(settings, list)
    text = (Path(__file__).resolve().parents[2] / "plugin" / "README.md").read_text()
    table = text.split("| key | default | meaning |\n|---|---|---|\n", 1)[1].split("\n\n", 1)[0]
    rows = [[c.strip() for c in line.strip("|").split("|")] for line in table.splitlines()]
    first = next(i for i, r in enumerate(rows) if r[0] == "`core`")
    keyed = [(key.strip("` "), default, meaning) for r in rows[first:] for key, default, meaning in
             [(k, r[1], r[2]) for k in r[0].split(",")]]
    assert [k for k, _, _ in keyed] == [s["key"] for s in settings]
    for (key, default, meaning), s in zip(keyed, settings, strict=True):
        want = "none" if s["default"] is None else str(s["default"])
        assert default.strip("`") == want, (key, default, want)
        for choice in s.get("choices") or ():
            assert f"`{choice}`" in default + meaning, (key, choice)
    core_row = next(m for k, _, m in keyed if k == "core")
    named = set(re.findall(r"`([a-z0-9-]+)`", core_row))
    cores, refused = doc["cores"], doc["unmodelled"]
    assert isinstance(cores, list) and isinstance(refused, list)
    tables = {c["name"] for c in cores}
    unmodelled = {c["name"] for c in refused}
    assert tables <= named, tables - named
    assert named - tables - {"none"} <= unmodelled, named - tables - {"none"} - unmodelled
