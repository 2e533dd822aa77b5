#!/usr/bin/env bash
# Builds the libFuzzer targets into build-fuzz/ (clang 14, -DSOFTALIGN_SANITIZE=
# fuzzer: libFuzzer + ASan + UBSan) and runs each for FUZZ_SECONDS (default 60)
# from a seed corpus made here:
#   fuzz_model        every golden model in f32, f16 and int8 (converted by
#                     this build's softalign-convert) and models/*/*.int8.softalign
#   fuzz_translate    tests/fuzz/seeds/translate/
#   fuzz_copy_through tests/fuzz/seeds/copy_through/ (the copy-through promise as an oracle)
#   fuzz_tokenizer    models/*/spm.model (its mutator damages their normaliser tables)
#   fuzz_safetensors  tests/golden/*/model.safetensors
#   fuzz_config       the "config" metadata of each golden model.safetensors
# A crash, sanitizer report, leak, timeout (FUZZ_TIMEOUT s per input) or an
# input over FUZZ_RSS_MB fails the script after all fuzzers ran; the input is
# minimised (30 s) and kept under build-fuzz/fuzz/artifacts/<target>/. The
# executions of each run (stat::number_of_executed_units) are printed and
# written to build-fuzz/fuzz/summary.txt.
# Usage: tests/fuzz/run_fuzzers.sh [TARGET...]   (default: all five)
set -uo pipefail
cd "$(dirname "$0")/../.."
ROOT=$PWD
JOBS=${JOBS:-$(nproc)}
SECONDS_EACH=${FUZZ_SECONDS:-60}
RSS_MB=${FUZZ_RSS_MB:-2048}
TIMEOUT_EACH=${FUZZ_TIMEOUT:-20}
TARGETS=("$@")
[ ${#TARGETS[@]} -gt 0 ] || TARGETS=(fuzz_model fuzz_translate fuzz_copy_through fuzz_tokenizer fuzz_safetensors fuzz_config)

B=build-fuzz
CC=clang CXX=clang++ cmake -S . -B $B -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DSOFTALIGN_SANITIZE=fuzzer \
  >/dev/null || exit 1
nice -n 10 cmake --build $B -j"$JOBS" --target "${TARGETS[@]}" softalign-convert || exit 1

# Seeds and corpus start afresh each run (a corpus grown from the 11 MB shipped
# files would fill the disk); artifacts are kept.
W=$B/fuzz
rm -rf $W/corpus
mkdir -p $W/seeds $W/corpus $W/artifacts
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1}
cmake -DCONVERTER=$B/bin/softalign-convert -DGOLDEN_DIR=tests/golden -DOUT_DIR=$B/golden \
  -P tests/converter/convert_golden.cmake >/dev/null || exit 1
rm -rf $W/seeds && mkdir -p $W/seeds/{fuzz_model,fuzz_translate,fuzz_copy_through,fuzz_tokenizer,fuzz_safetensors,fuzz_config}
cp $B/golden/*.softalign $W/seeds/fuzz_model/
for f in models/*/*.int8.softalign; do [ -f "$f" ] && cp "$f" $W/seeds/fuzz_model/shipped_$(basename "$f"); done
cp tests/fuzz/seeds/translate/* $W/seeds/fuzz_translate/
cp tests/fuzz/seeds/copy_through/* $W/seeds/fuzz_copy_through/
for f in models/*/spm.model; do [ -f "$f" ] && cp "$f" $W/seeds/fuzz_tokenizer/$(basename "$(dirname "$f")").model; done
for d in tests/golden/*/; do
  n=$(basename "$d")
  cp "$d/model.safetensors" $W/seeds/fuzz_safetensors/$n.safetensors
done
/usr/bin/python3 - "$W/seeds/fuzz_config" tests/golden/*/model.safetensors <<'PY'
import json, struct, sys, os
out = sys.argv[1]
for path in sys.argv[2:]:
    with open(path, "rb") as f:
        n = struct.unpack("<Q", f.read(8))[0]
        header = json.loads(f.read(n))
    cfg = header.get("__metadata__", {}).get("config")
    if cfg:
        with open(os.path.join(out, os.path.basename(os.path.dirname(path)) + ".json"), "w") as f:
            f.write(cfg)
PY

: > $W/summary.txt
failed=()
for t in "${TARGETS[@]}"; do
  mkdir -p $W/corpus/$t $W/artifacts/$t
  extra=()
  case $t in
    fuzz_model) extra=(-max_len=24000000) ;;  # the shipped files are ~21 MB
    fuzz_translate) extra=(-max_len=2048) ;;
    fuzz_copy_through) extra=(-max_len=128) ;;  # the generator reads at most ~100 bytes
    fuzz_tokenizer) extra=(-max_len=600000) ;;  # the shipped SentencePiece models are ~440 KB
    fuzz_safetensors) extra=(-max_len=131072) ;;
    fuzz_config) extra=(-max_len=8192 -dict=tests/fuzz/config.dict) ;;
  esac
  log=$W/$t.log
  start=$(date +%s)
  # Everything libFuzzer writes (corpus, artifacts) stays under build-fuzz/.
  $B/bin/$t -max_total_time="$SECONDS_EACH" -rss_limit_mb="$RSS_MB" -timeout="$TIMEOUT_EACH" \
    -print_final_stats=1 -artifact_prefix=$W/artifacts/$t/ "${extra[@]}" \
    $W/corpus/$t $W/seeds/$t >"$log" 2>&1
  rc=$?
  secs=$(( $(date +%s) - start ))
  execs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' | tail -1)
  line="$t: ${execs:-?} executions in ${secs} s, exit $rc"
  if [ $rc -ne 0 ]; then
    failed+=("$t")
    line="$line: FINDING"
    echo "---- $t: the report ----"
    grep -E 'ERROR:|SUMMARY:|runtime error|#[0-9]+ 0x|Test unit written|deadly signal|out-of-memory|timeout' "$log" | head -40
    for crash in $W/artifacts/$t/{crash,leak,timeout,oom}-*; do
      [ -f "$crash" ] || continue
      case $(basename "$crash") in *minimized*) continue ;; esac
      $B/bin/$t -minimize_crash=1 -max_total_time=30 -rss_limit_mb="$RSS_MB" -timeout="$TIMEOUT_EACH" \
        -exact_artifact_path="$crash.minimized" "$crash" >"$crash.minimize.log" 2>&1
      echo "reproducer: $crash ($(stat -c %s "$crash") bytes)"
      [ -f "$crash.minimized" ] && echo "minimised:  $crash.minimized ($(stat -c %s "$crash.minimized") bytes)"
    done
  fi
  echo "$line" | tee -a $W/summary.txt
done
if [ ${#failed[@]} -gt 0 ]; then
  echo "fuzzers with findings: ${failed[*]} (logs: $W/<target>.log, inputs: $W/artifacts/)"
  exit 1
fi
echo "fuzzers: no findings"
