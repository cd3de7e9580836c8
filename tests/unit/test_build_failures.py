"""Which benchmark a failed build step belongs to (builder/cmake.py bench_failures), on
ninja -k 0 output in the form ninja 1.11 prints it (status lines, FAILED blocks)."""

from __future__ import annotations

from rtoslab.builder.cmake import bench_failures

_OUT = """\
[1/9] Building C object CMakeFiles/lab_harness.dir/harness/harness.c.obj
[2/9] Building C object CMakeFiles/bad.dir/bench/bad/bad.c.obj
FAILED: CMakeFiles/bad.dir/bench/bad/bad.c.obj
/usr/bin/arm-none-eabi-gcc -O2 -Werror -o CMakeFiles/bad.dir/bench/bad/bad.c.obj -c /x/bench/bad/bad.c
bench/bad/bad.c:1:2: error: #error not today
    1 | #error not today
      |  ^~~~~
[3/9] Building C object CMakeFiles/good.dir/bench/good/good.c.obj
[4/9] Linking C executable good.elf
FAILED: worse.elf
: && /usr/bin/arm-none-eabi-gcc -O2 CMakeFiles/worse.dir/worse.c.obj -o worse.elf && :
/usr/lib/gcc/arm-none-eabi/12.2.1/../bin/ld: worse.c:(.text+0x4): undefined reference to `nowhere'
collect2: error: ld returned 1 exit status
ninja: build stopped: cannot make progress due to previous errors.
"""


def test_each_failed_step_belongs_to_its_benchmark_with_its_first_error() -> None:
    failed = bench_failures(_OUT, ["bad", "good", "worse"])
    assert failed is not None and set(failed) == {"bad", "worse"}
    assert failed["bad"] == "bench/bad/bad.c:1:2: error: #error not today"
    # the linker's own line, not collect2's "ld returned 1 exit status" (issue 26 item 14)
    assert failed["worse"] == "undefined reference to 'nowhere'"


def test_a_failed_shared_step_or_an_unknown_one_fails_the_configuration() -> None:
    shared = _OUT.replace("FAILED: worse.elf", "FAILED: CMakeFiles/lab_harness.dir/harness/harness.c.obj")
    assert bench_failures(shared, ["bad", "good", "worse"]) is None
    assert bench_failures(_OUT, ["bad", "good"]) is None  # worse is not one of this build's
    assert bench_failures("ninja: error: unknown target 'x'\n", ["x"]) is None
    newer = _OUT.replace("FAILED: CMakeFiles/bad.dir", "FAILED: [code=1] CMakeFiles/bad.dir")
    failed = bench_failures(newer, ["bad", "good", "worse"])  # ninja >= 1.12 names the exit code
    assert failed is not None and set(failed) == {"bad", "worse"}
