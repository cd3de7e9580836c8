#!/usr/bin/env bash
# Build rtoslab's patched qemu-system-arm and qemu-system-avr (the Arduino Uno target),
# once per build key, into a machine-wide cache.
#
#   scripts/qemu/build_qemu.sh               build it unless the cache already has it
#   scripts/qemu/build_qemu.sh --print-key   print the build key and exit
#   scripts/qemu/build_qemu.sh --print-path  print where the binary is (or will be) and exit
#   scripts/qemu/build_qemu.sh --fetch-only  get and check the source tarball, then exit
#
# Build key: the first 16 hex digits of the SHA-256 of source.toml, patch_qemu.py, this
# script, src/rtoslab-clock.c and src/rtoslab-clock.h, concatenated in that order
# (src/rtoslab/qemu_build.py computes the same).
# The binaries: <cache root>/<key>/qemu-system-arm and <cache root>/<key>/qemu-system-avr,
# where the cache root is $RTOSLAB_QEMU_DIR, else $XDG_CACHE_HOME/rtoslab/qemu, else
# ~/.cache/rtoslab/qemu. Their `--version` lines name the build: rtoslab-clock-<key>.
# (--print-path prints the Arm binary's path; the AVR one is beside it.)
#
# The source is Debian's copy of the upstream release (source.toml), fetched with apt-get
# source into <cache root>/src/ and checked against source.toml's SHA-256. The build runs
# in a temporary folder in the cache root under a lock (<cache root>/lock), so two setups
# at once build it once; its output goes to <cache root>/build-<key>.log.
set -euo pipefail
LC_NUMERIC=C  # EPOCHREALTIME and awk agree on the decimal point

HERE=$(cd "$(dirname "$0")" && pwd)
SOURCE_TOML=$HERE/source.toml
PATCH_PY=$HERE/patch_qemu.py
SELF=$HERE/build_qemu.sh

say() { printf 'setup: %s\n' "$*"; }
die() { printf 'setup: error: %s\n' "$*" >&2; exit 1; }

SUDO=""
[ "$(id -u)" -ne 0 ] && SUDO="sudo"

# A value of source.toml (`name = "text"` or `name = 123`).
toml_get() {
  local v
  v=$(sed -n -E "s/^$1[[:space:]]*=[[:space:]]*\"?([^\"#[:space:]]*)\"?.*/\1/p" "$SOURCE_TOML")
  [ -n "$v" ] || die "no '$1' in $SOURCE_TOML"
  printf '%s' "$v"
}

# --- The key and the paths (no side effects) ------------------------------------------
for f in "$SOURCE_TOML" "$PATCH_PY" "$HERE/src/rtoslab-clock.c" "$HERE/src/rtoslab-clock.h"; do
  [ -f "$f" ] || die "$f is missing (it is part of the patched QEMU's build key)"
done
KEY=$(cat "$SOURCE_TOML" "$PATCH_PY" "$SELF" "$HERE/src/rtoslab-clock.c" "$HERE/src/rtoslab-clock.h" |
      sha256sum | cut -c1-16)
ROOT=${RTOSLAB_QEMU_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/rtoslab/qemu}
case $ROOT in /*) ;; *) ROOT=$PWD/$ROOT ;; esac
BIN=$ROOT/$KEY/qemu-system-arm
# Every system emulator the build makes (QEMU's target names; the binary is qemu-system-<t>).
SYSTEMS=(arm avr)
PKGVERSION=rtoslab-clock-$KEY

mode=build
case "${1:-}" in
  "") ;;
  --print-key) printf '%s\n' "$KEY"; exit 0 ;;
  --print-path) printf '%s\n' "$BIN"; exit 0 ;;
  --fetch-only) mode=fetch ;;
  *) die "build_qemu.sh: unknown argument '$1' (--print-key, --print-path, --fetch-only)" ;;
esac

# Is this key's binary there and does it run? (The whole of a second `make setup`.)
built() {
  local out sys
  for sys in "${SYSTEMS[@]}"; do
    [ -x "$ROOT/$KEY/qemu-system-$sys" ] && out=$("$ROOT/$KEY/qemu-system-$sys" --version 2>/dev/null) &&
      [[ $out == *"$PKGVERSION"* ]] || return 1
  done
}
if [ "$mode" = build ] && built; then exit 0; fi

# --- From here on: under the lock -----------------------------------------------------
VERSION=$(toml_get version)
TARBALL=$(toml_get tarball)
SHA256=$(toml_get sha256)
SIZE=$(toml_get size)
SRCPKG=$(toml_get debian_source_package)
SUITE=$(toml_get suite)
LOG=$ROOT/build-$KEY.log

mkdir -p "$ROOT/src"
exec 9>"$ROOT/lock"
if ! flock -n 9; then
  say "qemu: another setup is building QEMU (lock $ROOT/lock); waiting for it"
  flock 9
fi
if [ "$mode" = build ] && built; then exit 0; fi  # the other setup built this key
: >"$LOG"
# What a killed run left behind.
rm -rf "$ROOT"/build.?????? "$ROOT"/src/download.?????? "$ROOT/src/$TARBALL.unchecked"

since() {  # elapsed time since the EPOCHREALTIME value $1
  awk -v s="$1" -v e="$EPOCHREALTIME" 'BEGIN { d = e - s
    if (d < 60) printf "%.1f s", d; else printf "%d min %02d s", int(d / 60), int(d) % 60 }'
}

# step DESCRIPTION COMMAND...: run COMMAND with its output in the log; on failure show the
# log's end and stop. (Functions run here must not rely on set -e: it is off inside `if`.)
step() {
  local what=$1 t=$EPOCHREALTIME
  shift
  printf '\n### %s: %s\n' "$what" "$*" >>"$LOG"
  if ! "$@" >>"$LOG" 2>&1; then
    tail -n 20 "$LOG" >&2
    die "QEMU build: $what failed (full log: $LOG)"
  fi
  say "qemu: $what ($(since "$t"))"
}

# --- The source tarball -----------------------------------------------------------------
TARBALL_PATH=$ROOT/src/$TARBALL

tarball_ok() {  # $1 has source.toml's size and SHA-256
  [ -f "$1" ] && [ "$(stat -c %s "$1")" = "$SIZE" ] &&
    [ "$(sha256sum "$1" | cut -d' ' -f1)" = "$SHA256" ]
}

has_deb_src() {  # some apt source lists deb-src for $SUITE
  local f
  grep -qsE "^[[:space:]]*deb-src[[:space:]].*[[:space:]]$SUITE([[:space:]]|\$)" \
    /etc/apt/sources.list /etc/apt/sources.list.d/*.list && return 0
  for f in /etc/apt/sources.list.d/*.sources; do
    [ -f "$f" ] && grep -qsE '^Types:.*deb-src' "$f" && grep -qsE "^Suites:.*[[:space:]]$SUITE([[:space:]]|\$)" "$f" &&
      return 0
  done
  return 1
}

# apt-get source downloads the tarball, then fails: the .dsc and .debian.tar.xz of the
# revision it selects answer 404 (seen on deb.debian.org, 2026). Only the tarball is
# needed; it is checked against source.toml after the download.
download_tarball() {
  local dl
  dl=$(mktemp -d "$ROOT/src/download.XXXXXX") || return 1
  $SUDO apt-get update -qq || return 1
  (cd "$dl" && apt-get source --download-only "$SRCPKG/$SUITE") ||
    echo "(apt-get source exited with $?; only $TARBALL is needed)"
  if [ ! -f "$dl/$TARBALL" ]; then
    rm -rf "$dl"
    echo "apt-get source $SRCPKG/$SUITE did not download $TARBALL"
    return 1
  fi
  mv -f "$dl/$TARBALL" "$ROOT/src/$TARBALL.unchecked" && rm -rf "$dl"
}

if tarball_ok "$TARBALL_PATH"; then
  if [ "$mode" = fetch ]; then say "qemu: $TARBALL is in $ROOT/src and matches source.toml"; fi
else
  rm -f "$TARBALL_PATH"
  if ! has_deb_src; then
    say "qemu: adding a deb-src source for $SUITE (/etc/apt/sources.list.d/$SUITE-src.sources)"
    printf '%s\n' 'Types: deb-src' 'URIs: http://deb.debian.org/debian' "Suites: $SUITE" \
      'Components: main' 'Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg' |
      $SUDO tee "/etc/apt/sources.list.d/$SUITE-src.sources" >/dev/null
  fi
  step "downloaded $TARBALL (apt-get source $SRCPKG/$SUITE)" download_tarball
  got=$ROOT/src/$TARBALL.unchecked
  if ! tarball_ok "$got"; then
    bad="size $(stat -c %s "$got"), sha256 $(sha256sum "$got" | cut -d' ' -f1)"
    rm -f "$got"
    die "$TARBALL from apt-get source has $bad, not source.toml's size $SIZE, sha256 $SHA256: refusing to build"
  fi
  mv -f "$got" "$TARBALL_PATH"
  say "qemu: $TARBALL matches source.toml's sha256"
fi
if [ "$mode" = fetch ]; then exit 0; fi

# --- Build ------------------------------------------------------------------------------
say "qemu: building patched qemu-system-arm and qemu-system-avr $KEY (QEMU $VERSION; several minutes; log: $LOG)"
t_build=$EPOCHREALTIME

# Debian packages the build needs.
BUILD_PKGS=(gcc make pkg-config ninja-build flex bison python3-venv xz-utils
  libglib2.0-dev libpixman-1-dev libfdt-dev)
missing=()
for p in "${BUILD_PKGS[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
install_pkgs() {
  $SUDO apt-get update -qq &&
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}"
}
if ((${#missing[@]})); then step "installed build dependencies: ${missing[*]}" install_pkgs; fi

# meson and pycotap from PyPI in a venv of the cache root (the +ds tarball has no wheels).
VENV=$ROOT/venv
venv_ok() {
  "$VENV/bin/python3" - <<'PY' 2>/dev/null
import importlib.metadata as m
major, minor = (int(x) for x in m.version("meson").split(".")[:2])
assert (major, minor) >= (1, 5) and m.version("pycotap") == "1.3.1"
PY
}
make_venv() {
  python3 -m venv --clear "$VENV" &&
    "$VENV/bin/python3" -m pip install --quiet 'meson==1.12.1' 'pycotap==1.3.1'
}
if ! venv_ok; then step "made the build venv $VENV (meson, pycotap from PyPI)" make_venv; fi

# The temporary build folder.
WORK=$(mktemp -d "$ROOT/build.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
SRC=$WORK/qemu-$VERSION

unpack() {
  tar -xJf "$TARBALL_PATH" -C "$WORK" || return 1
  [ -f "$SRC/configure" ] || { echo "$TARBALL has no qemu-$VERSION/configure"; return 1; }
}
step "unpacked $TARBALL" unpack

# +ds drops the EDK2 firmware blobs that meson.build would unpack: never unpack them.
no_edk2_blobs() {
  local re='^([[:space:]]*unpack_edk2_blobs = )bzip2\.found\(\)[[:space:]]*$' n
  n=$(grep -cE "$re" "$SRC/meson.build") || true
  [ "$n" = 1 ] || { echo "meson.build: expected one line 'unpack_edk2_blobs = bzip2.found()', found $n"; return 1; }
  sed -i -E "s/$re/\1false/" "$SRC/meson.build" && ! grep -qE "$re" "$SRC/meson.build"
}
step "meson.build: unpack_edk2_blobs = false" no_edk2_blobs

step "applied scripts/qemu/patch_qemu.py" python3 "$PATCH_PY" "$SRC"

configure_qemu() (
  mkdir -p "$SRC/build" && cd "$SRC/build" &&
    ../configure --python="$VENV/bin/python3" \
      --target-list=arm-softmmu,avr-softmmu --enable-plugins --disable-docs --disable-tools \
      --disable-user --disable-werror --without-default-features --enable-tcg \
      --enable-fdt=system -Dinstall_blobs=false --with-pkgversion="$PKGVERSION"
)
step "configured" configure_qemu
step "compiled qemu-system-arm and qemu-system-avr" ninja -C "$SRC/build" qemu-system-arm qemu-system-avr

# Into the key folder: copy beside the final name, then rename (atomic), the Arm binary
# last (a present Arm binary of the key is what a setup checks first).
install_bin() {
  local out sys
  mkdir -p "$ROOT/$KEY" || return 1
  for sys in avr arm; do
    out=$("$SRC/build/qemu-system-$sys" --version) && [[ $out == *"$PKGVERSION"* ]] ||
      { echo "the built qemu-system-$sys does not name $PKGVERSION: $out"; return 1; }
    cp "$SRC/build/qemu-system-$sys" "$ROOT/$KEY/.qemu-system-$sys.$$" &&
      mv -f "$ROOT/$KEY/.qemu-system-$sys.$$" "$ROOT/$KEY/qemu-system-$sys" || return 1
  done
}
step "installed $ROOT/$KEY/qemu-system-{arm,avr}" install_bin
rm -rf "$WORK"
built || die "$ROOT/$KEY/qemu-system-{arm,avr} do not run or do not name $PKGVERSION (log: $LOG)"
say "qemu: patched qemu-system-arm and qemu-system-avr $KEY ready ($(since "$t_build") in all)"
