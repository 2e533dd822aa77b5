#!/usr/bin/env bash
# The hardening stages of CI (.ci/run runs them after scripts/test.sh), each
# timed: the ASan+UBSan build and ctest suite, the TSan shared-model test, and
# every fuzzer for FUZZ_SECONDS (30 here, 60 in run_fuzzers.sh run by hand: CI
# has taken 2,541-5,025 s of its 90 minutes, and the fuzz stage is the one that
# shrinks without losing a check). All stages run; the script fails at the end
# if any failed; the stage times are printed at the end.
# Usage: scripts/ci_hardening.sh [asan] [tsan] [fuzz]   (default: all three)
set -uo pipefail
cd "$(dirname "$0")/.."
export FUZZ_SECONDS=${FUZZ_SECONDS:-30}
bash scripts/setup.sh hardening || exit 1
STAGES=("$@")
[ ${#STAGES[@]} -gt 0 ] || STAGES=(asan tsan fuzz)
times=()
failed=()
for stage in "${STAGES[@]}"; do
  case $stage in
    asan) cmd=(bash tests/sanitize/run_asan.sh) ;;
    tsan) cmd=(bash tests/sanitize/run_tsan.sh) ;;
    fuzz) cmd=(bash tests/fuzz/run_fuzzers.sh) ;;
    *) echo "unknown stage $stage"; exit 2 ;;
  esac
  echo "==== hardening stage: $stage ===="
  start=$(date +%s)
  "${cmd[@]}"
  rc=$?
  secs=$(( $(date +%s) - start ))
  times+=("$stage: ${secs} s (exit $rc)")
  [ $rc -eq 0 ] || failed+=("$stage")
done
echo "==== hardening stage times ===="
printf '%s\n' "${times[@]}"
[ -f build-fuzz/fuzz/summary.txt ] && [[ " ${STAGES[*]} " == *" fuzz "* ]] && cat build-fuzz/fuzz/summary.txt
if [ ${#failed[@]} -gt 0 ]; then
  echo "hardening: FAILED stages: ${failed[*]}"
  exit 1
fi
echo "hardening: ok"
