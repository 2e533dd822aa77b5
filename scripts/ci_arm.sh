#!/usr/bin/env bash
# CI for ARM (README "Cross builds for ARM"): cross-builds softalign for
# aarch64 and armhf with Debian's cross compilers and runs the tests that can
# run under qemu-user (no binfmt: CMAKE_CROSSCOMPILING_EMULATOR).
#
#   aarch64, QEMU_CPU=max (ARMv8.2+ with the dot product): the kernel tests
#     (every set against the reference at odd sizes), the golden tests under
#     ref, neon and neon_dot (all 12 golden models: greedy and beam ids, n-best,
#     logits within the golden tolerance), the allocation test under
#     neon_dot, the shipped models' exact outputs under ref, neon, neon_dot.
#   aarch64, QEMU_CPU=cortex-a53 (ARMv8.0, no dot product): the kernel tests,
#     golden and allocation tests under neon (the smull/sadalp int8 path), the
#     exact outputs under neon; neon_dot must be reported unavailable.
#   aarch64 Java binding: libsoftalign_jni.so cross-built, the jars (host javac), and the
#     java_binding_aarch64 test (tests/java) on Debian's arm64 JRE under qemu (-cpu max),
#     unpacked into the sysroot by scripts/cross_jre.sh; it compares with the cross-built CLI,
#     also under qemu. About 2 min (JRE download 43 MB once; build 15 s, test 1.5-4 min).
#   Java package: platforms/java/package/build_jar.sh test: the self-contained JNI library
#     (SOFTALIGN_SELF_CONTAINED: SentencePiece static from its sdist, no other library but libc,
#     libm, libstdc++, libgcc) for x86-64 and aarch64 in one jar, mvn install'd into build-jar/m2
#     from Debian's Maven repository; ctest -L java_package: the natives' dependencies, a Maven
#     consumer built offline and run on the host's JVM and on the arm64 JRE under qemu. About
#     4.5 min from nothing (x86-64 SentencePiece 60 s and runtime 76 s, aarch64 both 100 s, mvn
#     4 s, the tests 18 s; 13 min from a fresh clone with other builds and training on the 2
#     cores); build-jar/ is kept, so a rerun is incremental.
#   aarch64 Python wheel: scripts/build_wheel.sh aarch64 (manylinux, the sysroot's libraries bundled),
#     pip-installed into a venv of Debian's arm64 Python under qemu (-cpu max; scripts/cross_python.sh
#     unpacks it into the sysroot, 16 MB once), python_wheel_install_aarch64 (tests/wheel): 100 DDTP
#     test lines equal to the x86-64 wheel's.
#   armhf, QEMU_CPU=cortex-a7 (ARMv7-A, NEON + VFPv4): the kernel tests, the
#     golden tests and the exact outputs under ref and neon.
#   Instructions per decode step of each aarch64 set (a qemu TCG plugin,
#     scripts/arm/insn_per_step.py): step time is not measurable under qemu.
#   The stripped sizes of libsoftalign.so and the CLI for each target.
#
# The golden models are the native build's (build/golden, written by
# scripts/test.sh's ctest, which .ci/run runs first): the converter is not
# cross-built. Each stage is timed; every stage runs, the script fails if any
# failed. Build directories: build-aarch64/, build-armhf/ (sysroots beside them).
set -uo pipefail
cd "$(dirname "$0")/.."
root=$PWD
golden=${SOFTALIGN_GOLDEN_MODELS_DIR:-$root/build/golden}
jobs=${JOBS:-$(nproc)}
failed=()
t_all=$(date +%s)

stage() {  # stage NAME COMMAND...: runs, times and records one stage
  local name=$1 t rc
  shift
  t=$(date +%s)
  echo "=== ci_arm: $name"
  "$@"
  rc=$?
  echo "=== ci_arm: $name: $(( $(date +%s) - t )) s (exit $rc)"
  [ $rc -eq 0 ] || failed+=("$name")
  return $rc
}

if ! ls "$golden"/*.int8.softalign >/dev/null 2>&1; then
  echo "ci_arm: no converted golden models in $golden: run scripts/test.sh (the native build) first" >&2
  exit 1
fi

configure() {  # configure ARCH TOOLCHAIN
  cmake -S . -B "build-$1" -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_TOOLCHAIN_FILE="cmake/toolchains/$2.cmake" -DSOFTALIGN_SYSROOT="$root/build-$1-sysroot" \
    -DSOFTALIGN_BUILD_TOOLS=ON -DSOFTALIGN_BUILD_TESTS=ON -DSOFTALIGN_INSTALL=OFF \
    -DSOFTALIGN_GOLDEN_MODELS_DIR="$golden" -DSOFTALIGN_CROSS_TEST_AREAS="runtime;models;java;wheel" >/dev/null
}

build() {  # build ARCH TARGET...: only what runs under qemu (no converter)
  local arch=$1
  shift
  cmake --build "build-$arch" -j"$jobs" --target "$@"
}

qtest() {  # qtest ARCH CPU REGEX: ctest under qemu with QEMU_CPU=CPU
  QEMU_CPU=$2 ctest --test-dir "build-$1" -R "$3" --output-on-failure -j"$jobs" --timeout 900
}

# Under cortex-a53 the dot-product set must not be listed (the CLI refuses it).
no_dot_on_a53() {
  local out
  out=$(printf 'hello\n' | QEMU_CPU=cortex-a53 qemu-aarch64 -L "$root/build-aarch64-sysroot" \
    build-aarch64/bin/softalign translate -m "$golden/bahdanau.int8.softalign" --kernels neon_dot 2>&1)
  if echo "$out" | grep -q "unknown or unsupported kernel set"; then
    echo "cortex-a53: neon_dot is unavailable, as it must be"
  else
    echo "cortex-a53: neon_dot was accepted: $out" >&2
    return 1
  fi
}

# An imported LSTM model (OpenNMT-py's one-way LSTM fixture, which the native
# tests' import_runtime_parity wrote into build/import) through the aarch64
# CLI with neon, greedy: its text equals the toolkit's own on >= 98 % of the
# 200 lines (tests/import/fixtures/onmt-lstm-rnn-general/greedy.txt).
imported_lstm_aarch64() {
  local model="$root/build/import/onmt-lstm-rnn-general.fp32.softalign"
  local fx="$root/tests/import/fixtures/onmt-lstm-rnn-general" out
  if [ ! -f "$model" ]; then
    echo "no $model: run the native tests (scripts/test.sh: import_runtime_parity) first" >&2
    return 1
  fi
  out=$(mktemp)
  QEMU_CPU=max qemu-aarch64 -L "$root/build-aarch64-sysroot" build-aarch64/bin/softalign translate -m "$model" \
    --kernels neon --beam 1 --no-copy-through --no-repair-placeholders < "$fx/../data/test200.en" > "$out" || return 1
  python3 - "$out" "$fx/greedy.txt" <<'PY'
import sys
got, want = (open(p, encoding="utf-8").read().splitlines() for p in sys.argv[1:])
same = sum(g == w for g, w in zip(got, want))
print(f"aarch64 neon, imported OpenNMT-py LSTM: {same}/{len(want)} lines as the toolkit's own (greedy)")
sys.exit(0 if len(got) == len(want) and same >= 0.98 * len(want) else 1)
PY
  local rc=$?
  rm -f "$out"
  return $rc
}

sizes() {  # sizes ARCH TRIPLE: stripped sizes of the shared library and the CLI
  local d
  d=$(mktemp -d)
  for f in "build-$1/lib/libsoftalign.so.0" "build-$1/bin/softalign"; do
    "$2-strip" -o "$d/$(basename "$f")" "$(readlink -f "$f")"
    printf '%s stripped: %s: %d bytes\n' "$1" "$(basename "$f")" "$(stat -c %s "$d/$(basename "$f")")"
  done
  rm -rf "$d"
}

targets=(runtime_kernels_test runtime_golden_test runtime_alloc_test softalign_cli softalign)

# The Java binding on aarch64 (tests/java): the JNI library and the jars, then its test on the
# arm64 JRE under qemu (a missing JRE makes the test fail with the step to run).
java_aarch64() {
  build aarch64 softalign_jni softalign_java softalign_java_tests &&
    QEMU_CPU=max ctest --test-dir build-aarch64 -R '^java_binding_aarch64$' --output-on-failure --timeout 900
}

# The aarch64 wheel (tests/wheel): cross-built, pip-installed into a venv of the sysroot's arm64
# Python under qemu, its output on 100 DDTP test lines equal to the x86-64 wheel's (both built by
# the test, incrementally in build-wheel/).
python_aarch64() {
  bash scripts/cross_python.sh aarch64 &&
    QEMU_CPU=max ctest --test-dir build-aarch64 -R '^python_wheel_install_aarch64$' --output-on-failure --timeout 2400
}

# aarch64
if stage "aarch64 sysroot" bash scripts/cross_sysroot.sh aarch64 &&
  { stage "aarch64 JRE for the Java binding's test" bash scripts/cross_jre.sh aarch64; true; } &&
  stage "aarch64 configure" configure aarch64 aarch64-linux-gnu &&
  stage "aarch64 build" build aarch64 "${targets[@]}"; then
  stage "aarch64 tests, -cpu max (dot product)" qtest aarch64 max \
    '^(runtime_kernels|runtime_golden_(ref|neon|neon_dot)|runtime_alloc_neon_dot|models_exact_(ref|neon|neon_dot))$'
  stage "aarch64 tests, -cpu cortex-a53 (no dot product)" qtest aarch64 cortex-a53 \
    '^(runtime_kernels|runtime_golden_neon|runtime_alloc_neon|models_exact_neon)$'
  stage "aarch64 cortex-a53 lists no neon_dot" no_dot_on_a53
  stage "aarch64 imported LSTM model (OpenNMT-py fixture) as the toolkit, neon" imported_lstm_aarch64
  stage "aarch64 Java binding (JNI, arm64 JRE under qemu)" java_aarch64
  stage "aarch64 Python wheel (cross-built, pip-installed under qemu)" python_aarch64
  stage "Java package (self-contained natives for x86-64 and aarch64, Maven consumer on both)" \
    bash platforms/java/package/build_jar.sh test
  stage "aarch64 sizes" sizes aarch64 aarch64-linux-gnu
  stage "aarch64 instructions per decode step" python3 scripts/arm/insn_per_step.py \
    --build build-aarch64 --sysroot "$root/build-aarch64-sysroot"
fi

# armhf
if stage "armhf sysroot" bash scripts/cross_sysroot.sh armhf &&
  stage "armhf configure" configure armhf arm-linux-gnueabihf &&
  stage "armhf build" build armhf "${targets[@]}"; then
  stage "armhf tests, -cpu cortex-a7" qtest armhf cortex-a7 '^(runtime_kernels|runtime_golden_(ref|neon)|models_exact_(ref|neon))$'
  stage "armhf sizes" sizes armhf arm-linux-gnueabihf
fi

echo "ci_arm: total $(( $(date +%s) - t_all )) s"
if [ ${#failed[@]} -gt 0 ]; then
  printf 'ci_arm: FAILED: %s\n' "${failed[@]}" >&2
  exit 1
fi
echo "ci_arm: all stages passed"
