#!/usr/bin/env bash
# CI stage: the WebAssembly build and its tests (docs/web.md): the web setup
# profile (Debian's emscripten, chromium and npm), SentencePiece from its PyPI
# sdist into build-wasm-sysroot/, the module and the npm package into
# build-wasm/, then ctest -L web (wasm.kernels, wasm.node, wasm.chromium,
# wasm.package). Independent of the native build. 4-6 minutes on the loaded
# 2-core VM (2.5 min of CPU) once the packages are installed (SentencePiece
# 76 s, the module 1.5 min, the tests 21 s); 2 min 8 s with SentencePiece
# already built.
set -uo pipefail
cd "$(dirname "$0")/.."
t=$(date +%s)
bash scripts/setup.sh web && bash platforms/web/build.sh test
rc=$?
echo "web: $(( $(date +%s) - t )) s (exit $rc)"
exit $rc
