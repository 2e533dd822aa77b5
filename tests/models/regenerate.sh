#!/usr/bin/env bash
# Rewrites tests/models/<name>.expected.tsv for every shipped model models/*/*.softalign
# (or only the model files given), from the reference kernels (--kernels ref), after
# checking that every other kernel set this CPU has gives the same outputs.
#
#   tests/models/regenerate.sh [MODEL.softalign ...]
#
# The CLI comes from the build folder $BUILD_DIR (default: build), rebuilt first.
# Run it after shipping a new or retrained model, then review and commit the diff.
set -euo pipefail
cd "$(dirname "$0")/../.."
build=${BUILD_DIR:-build}
if [ ! -f "$build/CMakeCache.txt" ]; then
  echo "regenerate.sh: no build in $build/ (cmake -S . -B $build -G Ninja first, or set BUILD_DIR)" >&2
  exit 1
fi
cmake --build "$build" --target softalign_cli >/dev/null
python=.venv/bin/python
[ -x "$python" ] || python=python3
exec "$python" tests/models/model_outputs.py regenerate --cli "$build/bin/softalign" "$@"
