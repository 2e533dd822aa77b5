#!/usr/bin/env bash
# TSan: builds the shared-model thread test (shared_model_threads_test.cpp:
# 8 threads, one Model, a Translator each, results equal to one thread's) and
# the converter for the golden models into build-tsan/ (gcc, RelWithDebInfo,
# -DSOFTALIGN_SANITIZE=thread) and runs it with tests/sanitize/tsan.supp.
# Usage: tests/sanitize/run_tsan.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
JOBS=${JOBS:-$(nproc)}
cmake -S . -B build-tsan -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DSOFTALIGN_SANITIZE=thread >/dev/null
nice -n 10 cmake --build build-tsan -j"$JOBS" --target shared_model_threads_test softalign-convert
# The test's TSAN_OPTIONS (suppressions, halt_on_error) are set in tests/sanitize/CMakeLists.txt;
# ctest runs the golden_models fixture (the conversion) first.
ctest --test-dir build-tsan --output-on-failure -R '^sanitize_shared_model_threads$'
