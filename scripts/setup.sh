#!/usr/bin/env bash
# make setup: install what is missing, fetch pinned third-party sources, build the QEMU
# plugin, install the rtoslab CLI into ./.venv. Idempotent; fast when everything is there.
set -euo pipefail
cd "$(dirname "$0")/.."

say() { printf 'setup: %s\n' "$*"; }

SUDO=""
[ "$(id -u)" -ne 0 ] && SUDO="sudo"

# 1. Debian packages (toolchain, build tools).
# chromium: the HTML report is tested in a real headless browser. git: a kernel tree given
# with --kernel-source is identified by its commit (docs/ci.md; tests/e2e/test_ci.py).
# gdb-multiarch: the GDB runner's client (rtoslab run --runner gdb; docs/boards.md).
# gcc-avr, avr-libc: the Arduino Uno target (firmware/targets/arduino-uno).
APT_PKGS=(gcc-arm-none-eabi libnewlib-arm-none-eabi gcc-avr avr-libc cmake ninja-build python3-venv chromium git gdb-multiarch)
missing=()
for p in "${APT_PKGS[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  say "installing Debian packages: ${missing[*]}"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}" >/dev/null
fi

# 1b. The emulator: QEMU >= 9.2 (the plugin uses plugin API v4; src/rtoslab/tools.py
# QEMU_MIN_VERSION). Debian 12 ships 7.2; bookworm-backports has 10.0, installed as an
# upgrade of the qemu-system-arm package (so one QEMU and one module directory).
QEMU_MIN=(9 2)
qemu_ok() {
  local v
  v=$(qemu-system-arm --version 2>/dev/null | sed -n 's/^QEMU emulator version \([0-9]*\)\.\([0-9]*\).*/\1 \2/p')
  [ -n "$v" ] || return 1
  set -- $v
  (( $1 > QEMU_MIN[0] || ($1 == QEMU_MIN[0] && $2 >= QEMU_MIN[1]) ))
}
if ! qemu_ok; then
  codename=$(. /etc/os-release 2>/dev/null && echo "${VERSION_CODENAME:-}")
  if [ "$codename" = bookworm ]; then
    if ! grep -rqs '^[^#]*bookworm-backports' /etc/apt/sources.list /etc/apt/sources.list.d/; then
      say "adding the bookworm-backports source (/etc/apt/sources.list.d/bookworm-backports.sources)"
      printf '%s\n' 'Types: deb' 'URIs: http://deb.debian.org/debian' 'Suites: bookworm-backports' \
        'Components: main' 'Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg' |
        $SUDO tee /etc/apt/sources.list.d/bookworm-backports.sources >/dev/null
    fi
    say "installing qemu-system-arm from bookworm-backports (QEMU >= ${QEMU_MIN[0]}.${QEMU_MIN[1]})"
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq -t bookworm-backports \
      qemu-system-arm >/dev/null
  elif [ -n "$codename" ] && ! dpkg-query -W -f='${Status}' qemu-system-arm 2>/dev/null | grep -q "install ok installed"; then
    say "installing qemu-system-arm"
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq qemu-system-arm >/dev/null
  fi
  if ! qemu_ok; then
    echo "setup: error: qemu-system-arm $(qemu-system-arm --version 2>/dev/null | head -1 | sed 's/^QEMU emulator version //') is missing or older than ${QEMU_MIN[0]}.${QEMU_MIN[1]}: install QEMU >= ${QEMU_MIN[0]}.${QEMU_MIN[1]} (on Debian 12: apt-get install -t bookworm-backports qemu-system-arm) and run make setup again" >&2
    exit 1
  fi
fi

# 1b'. qemu-system-avr (the Arduino Uno target) is in Debian's qemu-system-misc, of the same
# QEMU version as qemu-system-arm: from bookworm-backports on Debian 12 (the source is there
# after 1b).
if ! dpkg-query -W -f='${Status}' qemu-system-misc 2>/dev/null | grep -q "install ok installed"; then
  codename=$(. /etc/os-release 2>/dev/null && echo "${VERSION_CODENAME:-}")
  say "installing qemu-system-misc (qemu-system-avr)"
  $SUDO apt-get update -qq
  if [ "$codename" = bookworm ]; then
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq -t bookworm-backports qemu-system-misc >/dev/null
  else
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq qemu-system-misc >/dev/null
  fi
fi

# 1c. The patched emulators: qemu-system-arm and qemu-system-avr built from Debian's QEMU source with rtoslab's
# patch (scripts/qemu/: source.toml, patch_qemu.py), once per build key, into a
# machine-wide cache (~/.cache/rtoslab/qemu/<key>/ unless $RTOSLAB_QEMU_DIR or
# $XDG_CACHE_HOME say otherwise; src/rtoslab/qemu_build.py finds it).
# The first build takes minutes; later runs only check the binary. Debian's
# qemu-system-arm above stays installed as the stock fallback.
scripts/qemu/build_qemu.sh

# 2. Rust (for the plugin and for fetching pinned sources).
if ! command -v cargo >/dev/null 2>&1; then
  [ -x "$HOME/.cargo/bin/cargo" ] && export PATH="$HOME/.cargo/bin:$PATH"
fi
command -v cargo >/dev/null 2>&1 || {
  echo "setup: error: cargo not found: install Rust >= 1.88 (rustup) and run make setup again" >&2
  exit 1
}

# 3. Third-party C sources (FreeRTOS, allocators), pinned and checksummed by Cargo.lock.
cargo fetch --locked --quiet --manifest-path deps/Cargo.toml

# 3b. Rust firmware (Rust kernel ports: docs/rust-models.md). Thumb targets are built
# with -Zbuild-std=core, which needs a compiler and library sources of the same version:
# Debian's rustc-web, cargo-web and rust-web-src (bookworm-security), and rust-web-clippy
# for `make lint` (clippy of the same compiler). They are called by
# path (/usr/bin/rustc, /usr/bin/cargo), so the rustup toolchain above stays as it is. Then
# the crates firmware/rust/Cargo.lock pins (and the ones the standard library's own lock
# names for build-std) are fetched, so that builds run --locked --offline.
RUST_PKGS=(rustc-web cargo-web rust-web-src rust-web-clippy)
rmissing=()
for p in "${RUST_PKGS[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || rmissing+=("$p")
done
if ((${#rmissing[@]})); then
  if ! grep -rqs '^[^#]*bookworm-security' /etc/apt/sources.list /etc/apt/sources.list.d/ &&
     [ "$(. /etc/os-release 2>/dev/null && echo "${VERSION_CODENAME:-}")" = bookworm ]; then
    say "adding the bookworm-security source (/etc/apt/sources.list.d/bookworm-security.sources)"
    printf '%s\n' 'Types: deb' 'URIs: http://deb.debian.org/debian-security' 'Suites: bookworm-security' \
      'Components: main' 'Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg' |
      $SUDO tee /etc/apt/sources.list.d/bookworm-security.sources >/dev/null
  fi
  say "installing the Rust firmware toolchain: ${rmissing[*]}"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${rmissing[@]}" >/dev/null
fi
# Every target's triple (target.toml rust_target): some dependencies are per triple
# (firmware/rust/lab-rtic-device/Cargo.toml).
for triple in thumbv6m-none-eabi thumbv7m-none-eabi thumbv7em-none-eabihf thumbv8m.main-none-eabihf; do
  (cd firmware/rust && RUSTC=/usr/bin/rustc RUSTC_BOOTSTRAP=1 /usr/bin/cargo fetch --locked --quiet \
    --target "$triple" -Zbuild-std=core)
done

# 4. The QEMU plugin.
cargo build --release --locked --quiet --manifest-path plugin/Cargo.toml

# 5. The Python CLI in ./.venv (reinstalled only when pyproject.toml changed).
PY=${PYTHON:-python3}
if [ ! -x .venv/bin/python ]; then
  say "creating .venv"
  "$PY" -m venv .venv
fi
stamp=.venv/.rtoslab-installed
if [ ! -f "$stamp" ] || [ pyproject.toml -nt "$stamp" ]; then
  say "installing rtoslab into .venv"
  .venv/bin/python -m pip install --quiet --upgrade pip >/dev/null
  # pandas: the API's DataFrame export; cluster: Ray for `run --cluster` (both tested)
  .venv/bin/python -m pip install --quiet -e '.[dev,pandas,cluster]'
  touch "$stamp"
fi
say "ready: .venv/bin/rtoslab"
