#!/usr/bin/env bash
# Builds the FTL core (firmware/workloads/ftl/core) together with the host
# unit tests for several NAND geometries, with AddressSanitizer and
# UndefinedBehaviorSanitizer, runs every build, and prints a combined last
# line "N passed, M failed". Exit status is non-zero if anything failed or
# failed to build.
#
# Environment:
#   FTL_BUILD_DIR   build directory (default /tmp/ftl-host-build)
#   CC              host C compiler (default gcc)
#   FTL_CONFIGS     space-separated subset of: small wide default
#                   (default: all three)
#   FTL_TEST_FILTER run only tests whose name contains this string
#   FTL_TEST_SABOTAGE=1  corrupt a page on purpose (the tests must fail)
set -u

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
core="$root/firmware/workloads/ftl/core"
out="${FTL_BUILD_DIR:-/tmp/ftl-host-build}"
cc="${CC:-gcc}"
configs="${FTL_CONFIGS:-small wide default}"

cflags=(-std=c11 -Wall -Wextra -Werror -Wundef -O1 -g -fno-omit-frame-pointer
        -fsanitize=address,undefined -fno-sanitize-recover=all)

# Geometry of each build.
defines_for() {
    case "$1" in
    small)   # 16 x 8 x 64 B: exhaustive power-cut testing in seconds
        echo "-DFTL_NAND_BLOCKS=16u -DFTL_NAND_PAGES_PER_BLOCK=8u -DFTL_NAND_PAGE_SIZE=64u" \
             "-DFTL_OP_BLOCKS=5u -DFTL_WL_THRESHOLD=6u -DFTL_CMD_MAX_PAGES=4u" ;;
    wide)    # 40 pages per block: valid bitmaps span two words; queue depth 2
        echo "-DFTL_NAND_BLOCKS=12u -DFTL_NAND_PAGES_PER_BLOCK=40u -DFTL_NAND_PAGE_SIZE=32u" \
             "-DFTL_OP_BLOCKS=5u -DFTL_WL_THRESHOLD=5u -DFTL_HOST_QUEUE_DEPTH=2u" ;;
    default) # the firmware geometry from ftl_config.h
        echo "" ;;
    *)
        return 1 ;;
    esac
}

mkdir -p "$out" || exit 2
total_pass=0
total_fail=0

# Build and run one configuration; all output goes to $out/test_ftl_<cfg>.log
# and the test binary's exit status to $out/test_ftl_<cfg>.status.
build_and_run_one() {
    local cfg=$1 defs=$2
    local bin="$out/test_ftl_$cfg" log="$out/test_ftl_$cfg.log"
    {
        echo "== build $cfg: $cc ${defs:-(default geometry)}"
        # shellcheck disable=SC2086
        if ! "$cc" "${cflags[@]}" $defs -I"$core" "$core"/*.c "$here/test_ftl.c" -o "$bin"; then
            echo "build of $cfg failed"
            echo build > "$out/test_ftl_$cfg.status"
            return
        fi
        echo "== run $cfg"
        "$bin"
        echo $? > "$out/test_ftl_$cfg.status"
    } > "$log" 2>&1
}

# The configurations are independent: build and run them in parallel, then
# report them in order.
ran=()
for cfg in $configs; do
    if ! defs=$(defines_for "$cfg"); then
        echo "unknown configuration '$cfg'"
        total_fail=$((total_fail + 1))
        continue
    fi
    rm -f "$out/test_ftl_$cfg.status" "$out/test_ftl_$cfg.log"
    build_and_run_one "$cfg" "$defs" &
    ran+=("$cfg")
done
wait

for cfg in "${ran[@]}"; do
    log="$out/test_ftl_$cfg.log"
    cat "$log"
    status=$(cat "$out/test_ftl_$cfg.status" 2>/dev/null || echo missing)
    summary=$(tail -n 1 "$log")
    if [ "$status" = build ]; then
        total_fail=$((total_fail + 1))
    elif [[ "$summary" =~ ^([0-9]+)\ passed,\ ([0-9]+)\ failed$ ]]; then
        total_pass=$((total_pass + BASH_REMATCH[1]))
        total_fail=$((total_fail + BASH_REMATCH[2]))
        if [ "$status" != 0 ] && [ "${BASH_REMATCH[2]}" -eq 0 ]; then
            total_fail=$((total_fail + 1))
        fi
    else
        echo "$cfg: test binary ended abnormally (exit status $status)"
        total_fail=$((total_fail + 1))
    fi
done

echo "== all configurations ($configs)"
echo "$total_pass passed, $total_fail failed"
[ "$total_fail" -eq 0 ]
