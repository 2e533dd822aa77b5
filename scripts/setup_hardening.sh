#!/usr/bin/env bash
# The extra Debian packages of the hardening checks (scripts/ci_hardening.sh):
# clang 14 with its runtime libraries (libFuzzer, ASan/UBSan for clang).
# gcc's ASan/UBSan/TSan runtimes come with build-essential (scripts/setup.sh).
# Run as root; idempotent.
set -euo pipefail
DEBS=(clang libclang-rt-14-dev)
missing=()
for p in "${DEBS[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO apt-get update -q
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q --no-install-recommends "${missing[@]}"
fi
echo "setup_hardening: ok"
