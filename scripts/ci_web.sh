#!/usr/bin/env bash
# CI stage: the WebAssembly build and its tests (docs/web.md): the web setup
# profile (Debian's emscripten, chromium and npm), SentencePiece from its PyPI
# sdist into build-wasm-sysroot/, the module and the npm package into
# build-wasm/, then ctest -L web (wasm.kernels, wasm.node, wasm.chromium,
# wasm.package). Independent of the native build. With the wasm_simd128
# kernel set (the kernel tests cover ref, wasm_simd and wasm_simd128): 125 s
# on the 2-core VM at load average 6 once the packages are installed, the
# SentencePiece download and build and a new build folder included (the four
# tests 17 s); before it, 4-6 minutes on a more loaded VM (SentencePiece
# 76 s, the module 1.5 min, the tests 21 s).
set -uo pipefail
cd "$(dirname "$0")/.."
t=$(date +%s)
bash scripts/setup.sh web && bash platforms/web/build.sh test
rc=$?
echo "web: $(( $(date +%s) - t )) s (exit $rc)"
exit $rc
