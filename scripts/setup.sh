#!/usr/bin/env bash
# make setup: install what is missing, fetch pinned third-party sources, build the QEMU
# plugin, install the rtoslab CLI into ./.venv. Idempotent; fast when everything is there.
set -euo pipefail
cd "$(dirname "$0")/.."

say() { printf 'setup: %s\n' "$*"; }

# 1. Debian packages (toolchain, emulator, build tools).
# chromium: the HTML report is tested in a real headless browser.
APT_PKGS=(gcc-arm-none-eabi libnewlib-arm-none-eabi qemu-system-arm cmake ninja-build python3-venv chromium)
missing=()
for p in "${APT_PKGS[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  SUDO=""
  [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  say "installing Debian packages: ${missing[*]}"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}" >/dev/null
fi

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
  .venv/bin/python -m pip install --quiet -e '.[dev]'
  touch "$stamp"
fi
say "ready: .venv/bin/rtoslab"
