#!/usr/bin/env bash
# Sets up (idempotent), builds into build/, and runs every test (C++ and Python) under ctest.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh full
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DSOFTALIGN_BUILD_TESTS=ON
cmake --build build -j"$(nproc)"
ctest --test-dir build --output-on-failure -j"$(nproc)"
