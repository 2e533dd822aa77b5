#!/usr/bin/env bash
# Sets up the runtime profile (idempotent), builds the CLI into build/bin/, and
# translates a few English sentences into French with the shipped int8 model.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh runtime
# A fresh build/ is configured without the tests (they need the full profile);
# an existing one keeps its options (scripts/test.sh turns the tests on).
if [ -f build/CMakeCache.txt ]; then
  cmake -S . -B build > /dev/null
else
  cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DSOFTALIGN_BUILD_TESTS=OFF > /dev/null
fi
cmake --build build -j"$(nproc)" --target softalign_cli
model=models/en-fr/en-fr.int8.softalign
build/bin/softalign info "$model" | head -n 12
printf '%s\n' \
  "This package contains the development files for the library." \
  "A simple text editor for the GNOME desktop." \
  "This package provides the documentation in HTML format." \
  "Command-line tool to convert images between formats." \
  "Open file" \
  "Please restart the computer to finish the installation." \
  | build/bin/softalign translate -m "$model" --beam 4 --stats
