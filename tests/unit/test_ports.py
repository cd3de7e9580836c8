"""Static consistency of the porting API, the ports and the kernel benchmarks (no toolchain).

The compiler checks a great deal (-Wundef turns a missing capability into an error), but
only for what is built: a port's unused function, a capability no benchmark requires or a
kernel option no template uses would go unnoticed. These tests read the sources.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from rtoslab.catalog import Catalog
from rtoslab.paths import firmware_root

CATALOG = Catalog()  # the checkout's folders alone

PORT_H = firmware_root() / "include" / "lab" / "port.h"
_DECL = re.compile(r"^(?:__attribute__\(\(noreturn\)\) )?[a-z_0-9 ]+?\b(lab_[a-z_0-9]+)\(", re.M)
_DEF = re.compile(r"^(?:__attribute__\(\([a-z]+\)\) )*[a-z_0-9 ]+?\*?\b(lab_[a-z_0-9]+)\([^;]*?\)\s*\{",
                  re.M | re.S)
KERNEL_BENCHES = {
    "k_yield", "k_preempt", "k_activate", "k_sem", "k_mutex", "k_queue", "k_task_create",
    "k_irq_latency", "k_irq_latency_loaded", "k_isr_to_task", "k_delay", "k_tick",
    "k_activate_x", "k_sem_x", "k_queue_x", "k_notify_x",  # cross-core (LAB_HAS_SMP; docs/smp.md)
}
# Discovered, so that a new port or benchmark gets every check below without editing this
# file (the list above only pins what the kernel suite is known to hold).
PORTS = sorted(CATALOG.kernels)
GUARDED_BENCHES = sorted(b.name for b in CATALOG.suite_benchmarks("kernel"))
_INCLUDE = re.compile(r'^\s*#\s*include\s+[<"]([^>"]+)[>"]', re.M)


def includes(folder: Path, patterns: tuple[str, ...] = ("*.c", "*.h", "*.S")) -> dict[Path, set[str]]:
    return {f: set(_INCLUDE.findall(f.read_text())) for p in patterns for f in sorted(folder.glob(p))}


def port_h_functions() -> set[str]:
    return set(_DECL.findall(PORT_H.read_text()))


def capability_names() -> set[str]:
    """Every LAB_HAS_* that port.h documents: the canonical list."""
    return set(re.findall(r"\bLAB_HAS_[A-Z_]+\b", PORT_H.read_text()))


def test_port_h_declares_the_whole_api_and_selects_no_kernel() -> None:
    text = PORT_H.read_text()
    funcs = port_h_functions()
    for name in ("lab_port_init", "lab_port_start", "lab_task_create", "lab_task_delete",
                 "lab_task_yield", "lab_task_suspend", "lab_task_resume", "lab_task_delay",
                 "lab_task_delay_until", "lab_tick_count", "lab_tick_rate_hz",
                 "lab_sem_give_from_isr", "lab_mutex_lock", "lab_queue_send_from_isr",
                 "lab_notify", "lab_notify_from_isr", "lab_notify_wait", "lab_critical_enter",
                 "lab_critical_exit", "lab_port_isr_exit"):
        assert name in funcs, name
    assert "#ifdef" not in text and "#elif" not in text
    assert not re.search(r"freertos|zephyr|threadx|rt-thread|toppers", text, re.I)


def test_capability_list_is_the_expected_one() -> None:
    assert capability_names() == {
        "LAB_HAS_SCHEDULER", "LAB_HAS_TASK_CREATE_DELETE", "LAB_HAS_SUSPEND", "LAB_HAS_DELAY",
        "LAB_HAS_TICK", "LAB_HAS_TICK_HOOKS", "LAB_HAS_SEMAPHORE", "LAB_HAS_MUTEX",
        "LAB_HAS_MUTEX_PI", "LAB_HAS_QUEUE", "LAB_HAS_NOTIFY", "LAB_HAS_CRITICAL", "LAB_HAS_IRQ",
        "LAB_HAS_SMP", "LAB_HAS_COOP",
    }


def test_ports_are_discovered() -> None:
    assert {"baremetal", "freertos", "template"} <= set(PORTS)


@pytest.mark.parametrize("port", PORTS)
def test_every_port_states_every_capability_with_a_reason_for_each_0(port: str) -> None:
    k = CATALOG.kernels[port]
    assert set(k.capabilities) == capability_names()
    for cap, has in k.capabilities.items():
        if not has:
            assert k.unsupported_reasons.get(cap), f"{port}: {cap} = 0 without a reason"
    # its object types: its own, or those of the port it builds on (port.toml base)
    assert any((d / "lab_port_types.h").is_file() for d in (k.path, k.base_path) if d is not None)


@pytest.mark.parametrize("port", PORTS)
def test_a_port_reaches_into_no_other_folder(port: str) -> None:
    """A port uses another port's files only through a declared base (LAB_PORT_BASE_DIR),
    never by a relative path or by naming another folder under ports/ (issue 25, item 4)."""
    k = CATALOG.kernels[port]
    for f in sorted(k.path.rglob("*")):
        if f.suffix not in (".c", ".h", ".S", ".cmake", ".in"):
            continue
        text = f.read_text()
        assert not re.search(r'#\s*include\s*"\.\./', text), f"{f}: includes through ../"
        others = text.replace("firmware/ports/" + port, "")
        assert "/ports/" not in others, f"{f}: names another port's folder"


def test_freertos_smp_builds_on_freertos() -> None:
    k = CATALOG.kernels["freertos-smp"]
    assert k.base_path == CATALOG.kernels["freertos"].path


def test_capabilities_per_port() -> None:
    on = {name: {c for c, v in k.capabilities.items() if v} for name, k in CATALOG.kernels.items()}
    assert on["freertos"] == capability_names() - {"LAB_HAS_SMP", "LAB_HAS_COOP"}
    assert on["baremetal"] == {"LAB_HAS_CRITICAL", "LAB_HAS_IRQ"}
    assert on["coop"] == {"LAB_HAS_CRITICAL", "LAB_HAS_IRQ", "LAB_HAS_COOP"}
    assert on["template"] == set()
    assert CATALOG.kernels["template"].is_template


def test_template_port_defines_every_port_h_function() -> None:
    src = (firmware_root() / "ports" / "template" / "port_template.c").read_text()
    defined = set(_DEF.findall(src))
    assert port_h_functions() <= defined, port_h_functions() - defined
    # every body except the tick hooks' weak defaults fails clearly
    assert src.count("lab_template_missing(\"template port: ") == len(port_h_functions()) - 2


def test_freertos_port_implements_every_function_it_claims() -> None:
    src = (firmware_root() / "ports" / "freertos" / "port_freertos.c").read_text()
    smp_only = {"lab_port_cores", "lab_task_create_on"}  # LAB_HAS_SMP 0 in this port
    assert port_h_functions() - smp_only - coop_functions() <= set(_DEF.findall(src))


def coop_functions() -> set[str]:
    """lab/port.h's run-to-completion task functions (LAB_HAS_COOP)."""
    return {f for f in port_h_functions() if f.startswith("lab_coop_")}


def test_coop_port_implements_its_groups_and_nothing_of_the_threaded_api() -> None:
    """coop claims LAB_HAS_COOP, LAB_HAS_CRITICAL and LAB_HAS_IRQ: it defines every
    function of those groups, and none of the groups it says it lacks (a benchmark that
    needs one is n/a, never linked against a stub)."""
    src = (firmware_root() / "ports" / "coop" / "port_coop.c").read_text()
    src += (firmware_root() / "include" / "lab" / "port_critical_primask.h").read_text()
    defined = set(_DEF.findall(src))
    assert coop_functions() == {"lab_coop_task_create", "lab_coop_queue_create", "lab_coop_send",
                                "lab_coop_receive", "lab_coop_activate", "lab_coop_start"}
    claimed = coop_functions() | {
        "lab_port_init", "lab_critical_enter", "lab_critical_exit", "lab_critical_enter_from_isr",
        "lab_critical_exit_from_isr", "lab_port_irq_prio_kernel", "lab_port_irq_prio_unmanaged",
        "lab_port_isr_enter", "lab_port_isr_exit",
        "lab_trace_task_name"}  # the timeline hook's (LAB_TRACE builds only)
    assert claimed <= defined, claimed - defined
    assert defined & port_h_functions() == claimed, (defined & port_h_functions()) - claimed
    assert CATALOG.kernels["coop"].deps == () and CATALOG.kernels["coop"].options == {}


def test_kernel_suite_is_complete_and_requires_known_capabilities() -> None:
    assert {b.name for b in CATALOG.suite_benchmarks("kernel")} == KERNEL_BENCHES
    known = capability_names()
    for b in CATALOG.benchmarks.values():
        kernel_caps = {c for c in b.requires if not c.startswith("LAB_ALLOC_HAS_")}  # allocators'
        assert kernel_caps <= known, (b.name, kernel_caps - known)


@pytest.mark.parametrize("bench", GUARDED_BENCHES)
def test_benchmark_guards_what_it_requires(bench: str) -> None:
    b = CATALOG.benchmarks[bench]
    src = "".join(f.read_text() for f in sorted(b.path.glob("*.c")))
    assert "#error" in src
    for cap in b.requires:
        assert f"!{cap}" in src, f"{bench}: no #if !{cap} guard"
    # probe ids 0 and 1 belong to the harness
    assert not re.search(r"LAB_PROBE\(\s*[01]\s*\)", src)


def test_only_irq_latency_runs_on_baremetal() -> None:
    bm = CATALOG.kernels["baremetal"]
    runnable = {b.name for b in CATALOG.suite_benchmarks("kernel")
                if all(bm.capabilities.get(c, False) for c in b.requires)}
    assert runnable == {"k_irq_latency"}


def test_freertos_options_and_template_placeholders_match() -> None:
    k = CATALOG.kernels["freertos"]
    text = "".join((k.path / f"{t}.in").read_text() for t in k.config_templates)
    placeholders = set(re.findall(r"@([A-Za-z_][A-Za-z0-9_]*)@", text))
    assert placeholders == set(k.options)
    assert k.deps == ("freertos-next",)
    # the port's own settings, and those it shares with freertos-smp (which builds on it)
    assert k.config_templates == ("FreeRTOSConfig.h", "FreeRTOSConfig_shared.h")
    assert CATALOG.kernels["freertos-smp"].config_templates == k.config_templates
    assert not (CATALOG.kernels["freertos-smp"].path / "FreeRTOSConfig_shared.h.in").exists()
    defaults = k.options
    assert defaults["configUSE_PREEMPTION"] == 1
    assert defaults["configTICK_RATE_HZ"] == 1000
    assert defaults["configASSERT_ENABLED"] is False
    assert defaults["configUSE_TRACE_FACILITY"] == 0
    assert defaults["configCHECK_FOR_STACK_OVERFLOW"] == 0
    assert "LAB_TARGET_CLOCK_HZ" in text


# Headers of the targets and of the code they share (firmware/arch/cortex-m/, boards/).
TARGET_PRIVATE = {"lab_probe_impl.h", "lab_probe_buffer_impl.h", "lab_board.h", "lab_cortex_m.h",
                  "lab_cortex_m_target.h", "lab_cortex_m_board.h", "lab_cortex_m_no_timer.h",
                  "cmsdk.h", "stm32_usart.h", "stm32_console.h"}


# What a port with LAB_HAS_SMP may call of lab/target.h: the cores section and the tick
# (lab/target.h, "cores"; lab_target_tick_start), nothing of a board's timers or IRQs.
SMP_TARGET_API = {"lab_target_core_id", "lab_target_core_start", "lab_target_doorbell_install",
                  "lab_target_doorbell_ring", "lab_target_tick_start"}


@pytest.mark.parametrize("port", PORTS)
def test_a_port_uses_no_target_header(port: str) -> None:
    """Exit codes come from the harness (lab/exit.h through lab/bench.h); a kernel reaches
    the hardware only through the CMSIS exception names, never a target's header. An SMP
    port (LAB_HAS_SMP 1) also starts cores, rings doorbells and starts the tick through
    lab/target.h, and calls nothing else of it."""
    kernel = CATALOG.kernels[port]
    smp = kernel.capabilities.get("LAB_HAS_SMP", False)
    for f, inc in includes(kernel.path).items():
        text = f.read_text()
        # A single-core port may call lab_target_tick_start in buffer mode only (a board's
        # SysTick probe clock must learn the tick's reload; docs/boards.md).
        tick_only = set(re.findall(r"\b(lab_target_[a-z_]+)\s*\(", text)) <= {"lab_target_tick_start"}
        assert smp or "lab/target.h" not in inc or ("LAB_PROBE_MODE_BUFFER" in text and tick_only), f
        assert not any(i.startswith("mps2") or i in TARGET_PRIVATE for i in inc), f
        if smp:
            called = set(re.findall(r"\b(lab_target_[a-z_]+)\s*\(", f.read_text()))
            assert called <= SMP_TARGET_API, (f, called - SMP_TARGET_API)


def test_exit_codes_belong_to_the_harness() -> None:
    inc = firmware_root() / "include" / "lab"
    assert "LAB_EXIT_" not in (inc / "target.h").read_text().replace("lab/exit.h's LAB_EXIT_*", "")
    assert "#define LAB_EXIT_FAULT 11" in (inc / "exit.h").read_text()
    assert '#include "lab/exit.h"' in (inc / "bench.h").read_text()


@pytest.mark.parametrize("target", sorted(p.name for p in (firmware_root() / "targets").iterdir()
                                          if (p / "target.toml").is_file()))
def test_a_target_calls_the_harness_only_through_fault_and_exit(target: str) -> None:
    check_target_code(firmware_root() / "targets" / target)


@pytest.mark.parametrize("shared", ["arch/cortex-m", "arch/avr", "boards/mps2", "boards/stm32"])
def test_shared_target_code_calls_the_harness_only_through_fault_and_exit(shared: str) -> None:
    check_target_code(firmware_root() / shared)


def check_target_code(folder: Path) -> None:
    """Target code (a target's folder, or the code targets share) includes only
    lab/target.h, lab/fault.h, lab/exit.h, its own headers, the shared ones (arch/cortex-m,
    boards/<family>: they include the target's lab_board.h) and the C library's, and never
    formats the fault line."""
    fw = firmware_root()
    shared = [fw / "arch" / "cortex-m", fw / "arch" / "avr", *(fw / "boards").iterdir()]
    own = {f.name for f in folder.glob("*.h")} | {f.name for d in shared for f in d.glob("*.h")}
    own.add("lab_board.h")
    # lab/probe.h: the probe seam, which the Cortex-M code implements (its buffer form's
    # layout and clock selection, lab_cortex_m_target.h; docs/boards.md).
    allowed = {"lab/target.h", "lab/exit.h", "lab/fault.h", "lab/probe.h"}
    for f, inc in includes(folder).items():
        lab = {i for i in inc if i.startswith("lab/")}
        assert lab <= allowed, (f, lab - allowed)
        libc = {i for i in inc if i.startswith("avr/")}  # avr-libc's register names, ISR()
        assert inc - lab - own - libc <= {"stdint.h", "stddef.h", "stdbool.h", "string.h"}, f
        # the fault line is formatted by the harness only
        assert "LAB-FAULT" not in f.read_text(), f


def test_the_harness_reaches_targets_only_through_lab_target_h() -> None:
    for f, inc in includes(firmware_root() / "harness").items():
        assert all(i.startswith("lab/") or i in ("stdint.h", "stddef.h", "stdbool.h") for i in inc), f
    assert "LAB-FAULT exception=" in (firmware_root() / "harness" / "fault.c").read_text()


def test_irq_latency_benchmarks_share_their_handlers() -> None:
    for bench in ("k_irq_latency", "k_irq_latency_loaded"):
        src = (CATALOG.benchmarks[bench].path / f"{bench}.c").read_text()
        assert '#include "irq_latency.h"' in src
        assert "static void irq_timer_handler" not in src and "static void irq_measured_handler" not in src
    shared = (firmware_root() / "workloads" / "irq_latency" / "irq_latency.h").read_text()
    assert "static void irq_timer_handler" in shared and "LAB_PROBE(2)" in shared
