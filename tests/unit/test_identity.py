"""The stored identity of a configuration: its three keys, its axes, no checkout path,
and axes of configurations stored before identities held them."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

from rtoslab import timing
from rtoslab.builder.config import BuildConfig, canonical_json, sha256_text
from rtoslab.catalog import Catalog
from rtoslab.paths import repo_root
from rtoslab.pipeline import config_identity
from rtoslab.records import BenchResult
from rtoslab.report.comparison.table import axes_of
from rtoslab.store import open_store
from rtoslab.views import IDENTITY_KEYS, ConfigView

CATALOG = Catalog()  # the checkout's folders alone


def test_identity_names_its_three_keys_and_covers_itself() -> None:
    cfg = BuildConfig(catalog=CATALOG, cflags=("-O2", "-flto"), defines=(("TOGGLE_TASKS", 3),))
    ident = config_identity(cfg)
    assert set(IDENTITY_KEYS) <= set(ident)
    assert ident["image_key"] == cfg.image_key()
    assert ident["measure_key"] == cfg.measure_key()
    rest = {k: v for k, v in ident.items() if k != "identity_hash"}
    assert ident["identity_hash"] == sha256_text(canonical_json(rest))[:12]
    assert len({ident["image_key"], ident["measure_key"], ident["identity_hash"]}) == 3
    assert ident["defines"] == {"TOGGLE_TASKS": "3"}
    assert ident["axes"] == {"target": "mps2-an385", "kernel": "baremetal", "opt": "-O2", "lto": True,
                             "cflags": "", "defines.TOGGLE_TASKS": 3}


def test_no_path_of_the_checkout_enters_the_identity() -> None:
    text = json.dumps(config_identity(BuildConfig(catalog=CATALOG)))
    assert str(repo_root()) not in text
    plugin = str(config_identity(BuildConfig(catalog=CATALOG))["plugin"])
    assert plugin == "" or plugin.startswith("rtoslab-plugin ")


def _view(cflags: str, identity: dict[str, object], model: dict[str, object]) -> ConfigView:
    return ConfigView(1, "h", "mps2-an385", "cortex-m3", "freertos", {"configTICK_RATE_HZ": 1000}, "k",
                      "arm-none-eabi-gcc", "12", cflags, "", model, identity)


def test_axes_come_from_the_identity_and_old_configs_parse_their_flags() -> None:
    new = _view("-O2 -flto -fno-inline", {"axes": {"target": "mps2-an385", "kernel": "freertos",
                                                   "opt": "-O2", "lto": True, "cflags": "-fno-inline",
                                                   "defines.TOGGLE_TASKS": 3, "timing.flash_ws": 2}},
                {"flash_ws": 2, "clock_hz": 25_000_000})
    # stored before identities held axes: "hash"/"model" spelling, macros in cflags
    old = _view("-O2 -flto -fno-inline -DTOGGLE_TASKS=3", {"hash": "abc", "model": {}},
                {"flash_ws": 2, "clock_hz": 25_000_000})
    want = {"target": "mps2-an385", "kernel": "freertos", "opt": "-O2", "lto": True,
            "cflags": "-fno-inline", "defines.TOGGLE_TASKS": 3,
            "kernel_options.configTICK_RATE_HZ": 1000, "timing.clock_hz": 25_000_000,
            "timing.flash_ws": 2, "timing.time": "instruction"}
    assert axes_of(new) == want
    assert axes_of(old) == want
    assert axes_of(new, "k_yield")["benchmark"] == "k_yield"


def test_a_run_on_the_one_clock_never_matches_an_instruction_time_run_silently() -> None:
    """Stored before the one clock (no timing.time): instruction time. A comparison of the
    two sets them side by side only with a ratio that names the change."""
    from rtoslab.analysis.stats import summarize
    from rtoslab.records import Unit
    from rtoslab.report.comparison.table import compare_runs
    from rtoslab.views import MetricView, ResultView

    def result(model: dict[str, object], median: float) -> ResultView:
        metric = MetricView(1, "yield_switch", "", 1, {Unit.CYCLE: summarize([median])})
        return ResultView(1, "k_yield", _view("-O2", {}, model), "src", "ok", None, "", 0, 0, None,
                          None, {}, None, None, "2026-11-27T00:00:00Z", (metric,))

    old = result({"clock_hz": 25_000_000}, 129.0)
    new = result({"clock_hz": 25_000_000, "time": "one-clock"}, 129.0)
    table = compare_runs([old], [new], 1, 2, unit=Unit.CYCLE)
    (ratio,) = table.ratios
    assert "time instruction -> one-clock" in ratio.baseline


def test_a_database_with_old_identities_opens_and_new_ones_join_it(tmp_path: Path) -> None:
    """A configs row written before identity_hash/timing/axes (old key spelling, macros in
    cflags, the plugin named by its path) stays readable next to a new one."""
    path = tmp_path / "r.sqlite"
    old_identity = {"hash": "0ld0ld0ld0ld", "build_hash": "b", "target": "mps2-an385",
                    "core": "cortex-m3", "kernel": "baremetal", "kernel_config": {},
                    "kernel_config_hash": "k", "compiler": "arm-none-eabi-gcc", "compiler_version": "12",
                    "cflags": "-O2 -DTOGGLE_TASKS=3", "ldflags": "", "model": {"clock_hz": 25_000_000},
                    "plugin": "/old/checkout/plugin.so sha256:abc"}
    with open_store(path) as store:
        run_id = store.begin_run("rtoslab run", "r", "h", {})
    conn = sqlite3.connect(path)
    with conn:
        cur = conn.execute(
            "INSERT INTO configs (hash, target, core, kernel, kernel_config, kernel_config_hash, compiler,"
            " compiler_version, cflags, ldflags, timing, identity) VALUES (?, ?, ?, ?, '{}', ?, ?, ?, ?, ?,"
            " ?, ?)",
            ("0ld0ld0ld0ld", "mps2-an385", "cortex-m3", "baremetal", "k", "arm-none-eabi-gcc", "12",
             "-O2 -DTOGGLE_TASKS=3", "", json.dumps({"clock_hz": 25_000_000}), json.dumps(old_identity)))
    conn.close()
    with open_store(path) as store:
        old_id = int(cur.lastrowid or 0)
        store.add_bench_result(run_id, old_id, "s", BenchResult("toggle_superloop", "n/a", "x"))
        new_id = store.upsert_config(config_identity(BuildConfig(catalog=CATALOG,
                                                                 defines=(("TOGGLE_TASKS", 3),))))
        store.add_bench_result(run_id, new_id, "s", BenchResult("toggle_superloop", "n/a", "x"))
        old, new = (r.config for r in store.load_run(run_id).results)
    assert old.hash == "0ld0ld0ld0ld" and old.identity == old_identity
    assert new.hash == config_identity(BuildConfig(catalog=CATALOG,
                                                   defines=(("TOGGLE_TASKS", 3),)))["identity_hash"]
    assert axes_of(old)["defines.TOGGLE_TASKS"] == axes_of(new)["defines.TOGGLE_TASKS"] == 3
    assert axes_of(old)["opt"] == axes_of(new)["opt"] == "-O2"


def test_plugin_version_is_read_through_workspace_inheritance() -> None:
    import tomllib

    from rtoslab.tools import plugin_crate_version

    manifest = tomllib.loads((repo_root() / "plugin" / "Cargo.toml").read_text())
    package_version = manifest["package"]["version"]
    expected = (manifest["workspace"]["package"]["version"] if isinstance(package_version, dict)
                else package_version)
    assert plugin_crate_version() == expected != "?"


def test_a_paced_derived_metric_without_the_unit_is_left_out_of_a_table() -> None:
    """On instruction time a derived rate (insn/op, cycle/op, op/s only) is marked paced: a
    comparison table in instructions leaves it out instead of refusing the whole run."""
    from rtoslab.analysis.stats import summarize
    from rtoslab.records import TimeBase, Unit
    from rtoslab.report.comparison.table import build_table
    from rtoslab.views import MetricView, ResultView

    window = MetricView(1, "basic_window", "", 1, {Unit.INSN: summarize([370_015])},
                        TimeBase.PACED)
    rate = MetricView(2, "basic_op", "", 1, {Unit.INSN_PER_OP: summarize([9250.375])},
                      TimeBase.PACED)
    result = ResultView(1, "tp_basic", _view("-O2", {}, {"time": "instruction"}), "src", "ok", None,
                        "", 0, 0, None, None, {}, None, None, "2026-11-27T00:00:00Z", (window, rate))
    table = build_table([(1, result)], unit=Unit.INSN, rows="metric")
    assert [r.metric for r in table.rows] == ["basic_window"]


def test_the_footer_shows_every_setting_that_differs_from_the_plugins_default(
        plugin_description: timing.Description) -> None:
    """Core, clock, flash wait states and time always; any other setting when it differs
    from the default stored with the identity (the plugin's, at run time); memory maps
    never. An identity stored before its defaults were: every stored setting."""
    from rtoslab.report.labels import timing_footer

    defaults = plugin_description.defaults()
    assert defaults["accel"] == "none" and defaults["div"] == "typ" and defaults["sram_ws"] == 0
    settings = {"core": "cortex-m4", "clock_hz": 168_000_000, "flash_ws": 5, "prefetch": "on",
                "accel": "art", "div": "typ", "sram_ws": 0, "flash": "0x8000000:0x100000",
                "time": "one-clock"}
    art = _view("-O2", {"timing_defaults": defaults}, settings)
    assert timing_footer(art) == ("timing: core cortex-m4, clock 168 MHz, flash 5 WS (target default), "
                                  "accel art, prefetch on, time one-clock")
    plain = _view("-O2", {"timing_defaults": defaults}, {**settings, "accel": "none", "div": "max"})
    assert timing_footer(plain) == ("timing: core cortex-m4, clock 168 MHz, flash 5 WS (target default), "
                                    "div max, prefetch on, time one-clock")
    old = _view("-O2", {}, settings)
    assert timing_footer(old).endswith("accel art, div typ, prefetch on, sram_ws 0, time one-clock")


def test_the_identity_holds_the_plugins_defaults(plugin_description: timing.Description) -> None:
    ident = config_identity(BuildConfig(catalog=CATALOG))
    assert ident["timing_defaults"] == plugin_description.defaults()
    assert "flash" not in plugin_description.defaults()  # a region setting has none


def test_a_warning_is_said_once_for_every_metric_and_unit_it_concerns() -> None:
    """Issue 28, said once: the "only N samples" warning of two metrics in three units is
    one line naming both metrics and the three units, not six."""
    from rtoslab.analysis.stats import summarize
    from rtoslab.records import Unit
    from rtoslab.report.rows import grouped_warnings, run_rows
    from rtoslab.views import MetricView, ResultView, RunView

    def metric(i: int, name: str) -> MetricView:
        return MetricView(i, name, "", 1, {u: summarize([10]) for u in (Unit.INSN, Unit.CYCLE, Unit.US)})

    config = _view("-O2", {}, {"core": "cortex-m3"})
    result = ResultView(1, "t_timer", config, "src", "ok", None, "", 0, 0, None, None, {}, None, None,
                        "2026-11-27T00:00:00Z", (metric(1, "timer_first"), metric(2, "timer_busy")))
    view = RunView(1, "t0", "t1", "complete", "r", "h", {}, "c", None, (result,))
    (line,) = grouped_warnings(run_rows(view))
    assert line.endswith(": t_timer/timer_first, t_timer/timer_busy (insn, cycle, us) on h")
    assert line.startswith("only 1 samples; statistics below 30 samples are unreliable")
