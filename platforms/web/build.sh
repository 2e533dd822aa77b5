#!/usr/bin/env bash
# The WebAssembly build (platforms/web/README.md), from the repository root:
#   bash platforms/web/build.sh          # dependencies (build_deps.sh), configure, build into build-wasm/web/
#   bash platforms/web/build.sh test     # the same, then ctest -L web (node, and headless Chromium)
# Needs the web setup profile (bash scripts/setup.sh web: emscripten, chromium,
# flatc and the header-only -dev packages). BUILD_DIR and JOBS override
# build-wasm and 2.
set -euo pipefail
cd "$(dirname "$0")/../.."
build=${BUILD_DIR:-build-wasm}
jobs=${JOBS:-2}
bash platforms/web/build_deps.sh
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_TOOLCHAIN_FILE=cmake/toolchains/emscripten.cmake \
  -DSOFTALIGN_BUILD_TOOLS=OFF -DSOFTALIGN_BUILD_TESTS=OFF -DSOFTALIGN_INSTALL=OFF >/dev/null
cmake --build "$build" -j"$jobs"
echo "web: $build/web/ (serve it: python3 -m http.server -d $build/web, then open /demo/index.html)"
if [ "${1:-}" = test ]; then
  ctest --test-dir "$build" -L web --output-on-failure
fi
