"""The console protocol (docs/formats.md §7): every LAB- line kind parsed in one place."""

from __future__ import annotations

from rtoslab.console import ConsoleReport, parse_console


def test_kv_lines_are_counters_last_value_wins() -> None:
    report = parse_console("LAB-KV pages=12\nnoise\nLAB-KV neg=-3\nLAB-KV pages=13\r\n")
    assert report.counters == {"pages": 13, "neg": -3}
    assert not report.done and report.fail is None and report.fault is None


def test_malformed_kv_lines_are_benchmark_output() -> None:
    text = "LAB-KV Upper=1\nLAB-KV x=1.5\nLAB-KV y=\nsay LAB-KV z=1\nLAB-KVw=2\n"
    assert parse_console(text).counters == {}


def test_first_fail_and_fault_lines_are_kept_stripped() -> None:
    text = ("boot\nLAB-FAIL b.c:3: x == 1  \nLAB-FAIL later\n"
            "\nLAB-FAULT exception=3 pc=0x00000100\nLAB-FAULT again\n")
    report = parse_console(text)
    assert report.fail == "b.c:3: x == 1"
    assert report.fault == "exception=3 pc=0x00000100"


def test_a_failure_line_after_unfinished_output_is_found() -> None:
    report = parse_console("counted 3LAB-FAIL b.c:9: n == 4\ntick tickLAB-FAULT exception=3 pc=0x10\n")
    assert report.fail == "b.c:9: n == 4"
    assert report.fault == "exception=3 pc=0x10"
    assert parse_console("xLAB-FAILED to start\n").fail is None  # not the kind LAB-FAIL


def test_done_only_as_its_own_line() -> None:
    assert parse_console("x\nLAB-DONE\n").done
    assert parse_console("LAB-DONE\r\n").done
    assert parse_console("LAB-DONE").done
    assert not parse_console("not LAB-DONE\n").done
    assert not parse_console("LAB-DONEX\n").done


def test_empty_console() -> None:
    assert parse_console("") == ConsoleReport()
