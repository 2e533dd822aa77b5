#!/usr/bin/env bash
# Writes tests/expected_en-fr.int8.json: the native CLI's translations of the
# sentences the web tests translate (the README's and scripts/demo.sh's), with
# the shipped int8 model, beam 4. The web tests (node and Chromium) compare the
# WebAssembly build's outputs with these. Needs the native CLI
# (scripts/demo.sh builds build/bin/softalign; CLI=... for another one).
set -euo pipefail
cd "$(dirname "$0")/../../.."
cli=${CLI:-build/bin/softalign}
model=models/en-fr/en-fr.int8.softalign
sentences=(
  "This package contains the documentation."
  "A simple text editor."
  "One file."
  "Hello"
  "This package contains the development files for the library."
  "A simple text editor for the GNOME desktop."
  "This package provides the documentation in HTML format."
  "Command-line tool to convert images between formats."
  "Open file"
  "Please restart the computer to finish the installation."
)
out=$(printf '%s\n' "${sentences[@]}" | "$cli" translate -m "$model" --beam 4)
python3 - "$model" "$out" "${sentences[@]}" > platforms/web/tests/expected_en-fr.int8.json <<'PY'
import json, sys
model, out, sources = sys.argv[1], sys.argv[2].split("\n"), sys.argv[3:]
assert len(out) == len(sources), (len(out), len(sources))
json.dump({"model": model, "beam": 4,
           "command": "printf '%s\\n' SENTENCES | build/bin/softalign translate -m " + model + " --beam 4",
           "sentences": [{"source": s, "native": t} for s, t in zip(sources, out)]},
          sys.stdout, ensure_ascii=False, indent=1)
print()
PY
echo "wrote platforms/web/tests/expected_en-fr.int8.json"
