#!/usr/bin/env python3
"""Apply rtoslab's one-clock change to an unpacked QEMU 10.0 source tree.

Usage: patch_qemu.py QEMU_SOURCE_DIR

The change is ours alone: two new files (src/rtoslab-clock.c and .h, copied in) and a few
calls to them, each inserted at a place found by name (a function, a field, an include),
never by a diff that quotes QEMU's text. Every insertion carries the marker
``rtoslab-clock``; a tree that already has the marker is refused, and a place that cannot
be found stops the script with one line naming the file and the place, so a QEMU whose
code moved fails loudly here instead of building a binary that keeps instruction time.
What each insertion does is described in src/rtoslab-clock.h.
"""

from __future__ import annotations

import re
import shutil
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
MARK = "rtoslab-clock"


class PatchError(Exception):
    pass


def _function_body(text: str, name: str, path: str) -> tuple[int, int]:
    """(index just after the opening brace, index of the closing brace) of the C function
    `name` defined at the start of a line."""
    m = re.search(rf"^[A-Za-z_][\w \*]*\b{re.escape(name)}\s*\([^;{{]*\)\s*\{{", text, re.M)
    if m is None:
        raise PatchError(f"{path}: function {name} not found")
    depth, i = 1, m.end()
    while depth:
        if i >= len(text):
            raise PatchError(f"{path}: function {name} has no end")
        depth += {"{": 1, "}": -1}.get(text[i], 0)
        i += 1
    return m.end(), i - 1


def _line_end(text: str, i: int) -> int:
    return text.index("\n", i) + 1


def _after_statement(text: str, lo: int, hi: int, pattern: str, path: str, where: str) -> int:
    """Index after the end of the first statement in text[lo:hi] matching `pattern` (the
    statement ends at the next ';')."""
    m = re.compile(pattern).search(text, lo, hi)
    if m is None:
        raise PatchError(f"{path}: {where} not found")
    return _line_end(text, text.index(";", m.end()))


def _insert(text: str, at: int, lines: str) -> str:
    return text[:at] + lines + text[at:]


def _include(text: str, path: str, header: str) -> str:
    m = re.search(r'^#include "qemu/osdep.h"\n', text, re.M)
    if m is None:
        raise PatchError(f"{path}: the osdep include not found")
    return _insert(text, m.end(), f'#include "{header}" /* {MARK} */\n')


def patch_cpu_h(text: str, path: str) -> str:
    m = re.search(r"^\s*int64_t icount_extra;\n", text, re.M)
    if m is None:
        raise PatchError(f"{path}: CPUState field icount_extra not found")
    return _insert(text, m.end(), (
        f"    /* {MARK}: the plugin cycle counter time follows (system/rtoslab-clock.h), the\n"
        "     * counter value that ends the slice, the value accounted last, and a still\n"
        "     * counter for a vCPU no plugin drives. */\n"
        "    uint64_t *lab_clock;\n"
        "    uint64_t lab_deadline;\n"
        "    uint64_t lab_last;\n"
        "    uint64_t lab_own;\n"))


def patch_icount_common(text: str, path: str) -> str:
    text = _include(text, path, "system/rtoslab-clock.h")
    # Accounting: where QEMU adds a vCPU's executed instructions to the clock.
    _, end = _function_body(text, "icount_update_locked", path)
    text = _insert(text, end, f"    rtoslab_clock_account(cpu); /* {MARK} */\n")
    # Reading the time: cycles instead of instructions once a counter drives it.
    lo, hi = _function_body(text, "icount_get_locked", path)
    at = _after_statement(text, lo, hi, r"icount_get_raw_locked\s*\(", path,
                          "icount_get_locked's call of icount_get_raw_locked")
    text = _insert(text, at, (
        f"    if (rtoslab_clock_hz) {{ /* {MARK} */\n"
        "        return qatomic_read_i64(&timers_state.qemu_icount_bias) +\n"
        "               rtoslab_clock_elapsed_ns();\n"
        "    }\n"))
    # Unit conversions (the budget to the next deadline is then in cycles).
    lo, _ = _function_body(text, "icount_to_ns", path)
    text = _insert(text, lo, (
        f"\n    if (rtoslab_clock_hz) {{ /* {MARK} */\n"
        "        return rtoslab_clock_to_ns(icount);\n"
        "    }\n"))
    lo, _ = _function_body(text, "icount_round", path)
    text = _insert(text, lo, (
        f"\n    if (rtoslab_clock_hz) {{ /* {MARK} */\n"
        "        return rtoslab_clock_round(count);\n"
        "    }\n"))
    # Sleep: the no-sleep warp to the next deadline, counted in cycles.
    lo, hi = _function_body(text, "icount_start_warp_timer", path)
    m = re.compile(r"if\s*\(\s*deadline\s*>\s*0\s*\)\s*\{").search(text, lo, hi)
    if m is None:
        raise PatchError(f"{path}: icount_start_warp_timer's positive-deadline branch not found")
    m2 = re.compile(r"if\s*\(\s*!\s*icount_sleep\s*\)\s*\{\n").search(text, m.end(), hi)
    if m2 is None:
        raise PatchError(f"{path}: icount_start_warp_timer's no-sleep branch not found")
    text = _insert(text, m2.end(), (
        f"            if (rtoslab_clock_hz) {{ /* {MARK} */\n"
        "                rtoslab_clock_warp();\n"
        "                qemu_clock_notify(QEMU_CLOCK_VIRTUAL);\n"
        "                return;\n"
        "            }\n"))
    return text


def patch_icount_ops(text: str, path: str) -> str:
    text = _include(text, path, "system/rtoslab-clock.h")
    lo, _ = _function_body(text, "icount_get_limit", path)
    text = _insert(text, lo, (
        f"\n    if (rtoslab_clock_hz) {{ /* {MARK} */\n"
        "        return rtoslab_clock_limit();\n"
        "    }\n"))
    lo, hi = _function_body(text, "icount_prepare_for_run", path)
    at = _after_statement(text, lo, hi, r"cpu->icount_extra\s*=(?!=)", path,
                          "icount_prepare_for_run's icount_extra assignment")
    return _insert(text, at, f"    rtoslab_clock_prepare(cpu); /* {MARK} */\n")


def patch_cpu_exec(text: str, path: str) -> str:
    text = _include(text, path, "system/rtoslab-clock.h")
    lo, hi = _function_body(text, "cpu_loop_exec_tb", path)
    at = _after_statement(text, lo, hi, r"icount_update\s*\(\s*cpu\s*\)", path,
                          "cpu_loop_exec_tb's icount_update call")
    text = _insert(text, at, (
        f"    if (rtoslab_clock_slice_spent(cpu)) {{ /* {MARK} */\n"
        "        return;\n"
        "    }\n"))
    # After the refill (the function's system-only part ends with its last #endif).
    lo, hi = _function_body(text, "cpu_loop_exec_tb", path)
    at = text.rfind("\n#endif", lo, hi)
    if at < 0:
        raise PatchError(f"{path}: cpu_loop_exec_tb's system-only part not found")
    return _insert(text, at + 1, (
        f"    rtoslab_clock_step(cpu, (tb->cflags & ~CF_COUNT_MASK) | 1, tb->icount); /* {MARK} */\n"))


def patch_translator(text: str, path: str) -> str:
    text = _include(text, path, "system/rtoslab-clock.h")
    lo, hi = _function_body(text, "gen_tb_start", path)
    text = _insert(text, lo, f"\n    rtoslab_clock_add = NULL; /* {MARK} */\n")
    lo, hi = _function_body(text, "gen_tb_start", path)
    at = _after_statement(text, lo, hi, r"tcg_gen_brcondi_i32\s*\(", path,
                          "gen_tb_start's icount exit check")
    text = _insert(text, at, (
        f"        if ((cflags & CF_USE_ICOUNT) && rtoslab_clock_hz) {{ /* {MARK} */\n"
        "            rtoslab_clock_add = rtoslab_clock_gen_check(tcg_ctx->exitreq_label);\n"
        "        }\n"))
    # The block's cycles are known once the plugin's translation callback has run.
    lo, hi = _function_body(text, "translator_loop", path)
    at = _after_statement(text, lo, hi, r"plugin_gen_tb_end\s*\(", path,
                          "translator_loop's plugin_gen_tb_end call")
    text = _insert(text, at, f"        rtoslab_clock_gen_end(db->num_insns); /* {MARK} */\n")
    m = re.search(r"^static\s+TCGOp\s*\*\s*gen_tb_start\s*\(", text, re.M)
    if m is None:
        raise PatchError(f"{path}: gen_tb_start's definition not found")
    return _insert(text, m.start(), (
        f"/* {MARK}: leave the block before it runs when this vCPU's cycle counter plus the\n"
        " * block's own cycles reaches the end of its slice (the cycle of the next timer\n"
        " * deadline); the block's cycles are an immediate set when its translation ends\n"
        " * (0 for a block of one instruction, which always runs: system/rtoslab-clock.h). */\n"
        "static __thread TCGOp *rtoslab_clock_add;\n"
        "\n"
        "static TCGOp *rtoslab_clock_gen_check(TCGLabel *exit)\n"
        "{\n"
        "    TCGv_ptr counter = tcg_temp_new_ptr();\n"
        "    TCGv_i64 now = tcg_temp_new_i64();\n"
        "    TCGv_i64 end = tcg_temp_new_i64();\n"
        "    TCGOp *add;\n"
        "\n"
        "    tcg_gen_ld_ptr(counter, tcg_env,\n"
        "                   offsetof(ArchCPU, parent_obj.lab_clock) - offsetof(ArchCPU, env));\n"
        "    tcg_gen_ld_i64(now, counter, 0);\n"
        "    tcg_gen_add_i64(now, now, tcg_constant_i64(0));\n"
        "    add = tcg_last_op();\n"
        "    tcg_gen_ld_i64(end, tcg_env,\n"
        "                   offsetof(ArchCPU, parent_obj.lab_deadline) - offsetof(ArchCPU, env));\n"
        "    tcg_gen_brcond_i64(TCG_COND_GEU, now, end, exit);\n"
        "    return add;\n"
        "}\n"
        "\n"
        "static void rtoslab_clock_gen_end(int num_insns)\n"
        "{\n"
        "    if (rtoslab_clock_add != NULL && num_insns > 1 && rtoslab_clock_tb_cycles != 0) {\n"
        "        tcg_set_insn_param(rtoslab_clock_add, 2,\n"
        "                           tcgv_i64_arg(tcg_constant_i64((int64_t)rtoslab_clock_tb_cycles)));\n"
        "    }\n"
        "    rtoslab_clock_add = NULL;\n"
        "    rtoslab_clock_tb_cycles = 0;\n"
        "}\n\n"))


def patch_api_system(text: str, path: str) -> str:
    text = _include(text, path, "system/rtoslab-clock.h")
    return text + (
        f"\n/* {MARK} */\n"
        "bool qemu_plugin_lab_clock(unsigned int vcpu_index, uint64_t *counter, uint64_t hz)\n"
        "{\n"
        "    CPUState *cpu = qemu_get_cpu(vcpu_index);\n"
        "\n"
        "    return cpu != NULL && rtoslab_clock_register(cpu, counter, hz);\n"
        "}\n"
        "\n"
        "void qemu_plugin_lab_tb_cycles(struct qemu_plugin_tb *tb, uint64_t cycles)\n"
        "{\n"
        "    (void)tb;\n"
        "    rtoslab_clock_tb_cycles = cycles;\n"
        "}\n")


def patch_plugin_h(text: str, path: str) -> str:
    m = re.search(r"^#endif\s*/\*\s*QEMU_QEMU_PLUGIN_H\s*\*/", text, re.M)
    if m is None:
        raise PatchError(f"{path}: the header's closing #endif not found")
    return _insert(text, m.start(), (
        "/**\n"
        f" * qemu_plugin_lab_clock() - {MARK}: virtual time follows a plugin's cycle counter\n"
        " * @vcpu_index: the vCPU whose cycles @counter holds\n"
        " * @counter: a u64 only this plugin writes (e.g. a scoreboard entry), which stays\n"
        " *   valid until the plugin registers it again (call again after it moves)\n"
        " * @hz: the counter's rate; every vCPU must use the same\n"
        " *\n"
        " * Needs -icount shift=N,sleep=off. Returns false when refused.\n"
        " */\n"
        "QEMU_PLUGIN_API\n"
        "bool qemu_plugin_lab_clock(unsigned int vcpu_index, uint64_t *counter, uint64_t hz);\n"
        "\n"
        "/**\n"
        f" * qemu_plugin_lab_tb_cycles() - {MARK}: the cycles a block being translated costs\n"
        " * @tb: the block (from the translation callback)\n"
        " * @cycles: its static cycles; the clock leaves a block before it runs when they\n"
        " *   would carry the counter past the deadline, and steps to it (rtoslab-clock.h)\n"
        " */\n"
        "QEMU_PLUGIN_API\n"
        "void qemu_plugin_lab_tb_cycles(struct qemu_plugin_tb *tb, uint64_t cycles);\n"
        "\n"))


def patch_meson(text: str, path: str) -> str:
    m = re.search(r"^(\s*)'icount-common\.c',\n", text, re.M)
    if m is None:
        raise PatchError(f"{path}: icount-common.c's entry not found")
    return _insert(text, m.end(), f"{m.group(1)}'rtoslab-clock.c',  # {MARK}\n")


EDITS = (
    ("include/hw/core/cpu.h", patch_cpu_h),
    ("accel/tcg/icount-common.c", patch_icount_common),
    ("accel/tcg/tcg-accel-ops-icount.c", patch_icount_ops),
    ("accel/tcg/cpu-exec.c", patch_cpu_exec),
    ("accel/tcg/translator.c", patch_translator),
    ("plugins/api-system.c", patch_api_system),
    ("include/qemu/qemu-plugin.h", patch_plugin_h),
    ("accel/tcg/meson.build", patch_meson),
)


def patch_tree(root: Path) -> None:
    """Apply every edit in memory first, then write: a failure leaves the tree as it was."""
    out: dict[Path, str] = {}
    for rel, edit in EDITS:
        path = root / rel
        if not path.is_file():
            raise PatchError(f"{path}: missing (is {root} an unpacked QEMU 10.0 source tree?)")
        text = path.read_text()
        if MARK in text:
            raise PatchError(f"{path}: already patched ({MARK} present): unpack a fresh tree")
        out[path] = edit(text, rel)
    for path, text in out.items():
        path.write_text(text)
    shutil.copyfile(HERE / "src" / "rtoslab-clock.c", root / "accel/tcg/rtoslab-clock.c")
    shutil.copyfile(HERE / "src" / "rtoslab-clock.h", root / "include/system/rtoslab-clock.h")


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print("usage: patch_qemu.py QEMU_SOURCE_DIR", file=sys.stderr)
        return 2
    try:
        patch_tree(Path(argv[1]))
    except PatchError as e:
        print(f"patch_qemu: {e}", file=sys.stderr)
        return 1
    print(f"patch_qemu: {len(EDITS)} files patched, 2 added")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
