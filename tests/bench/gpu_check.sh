#!/usr/bin/env bash
# gpu_check.sh — check and time softalign's Vulkan engine on a machine with a real GPU.
#
# Made for a GPU machine that has no package access and gets a copy of the repository
# (at most ~64 MiB, so the two model.safetensors files may have to be set aside), so the
# work is split in two phases:
#   1. On a build machine (Debian bookworm, apt works), in the repo root:
#        bash tests/bench/gpu_check.sh stage
#      installs the build deps, builds the five targets needed, converts the golden
#      models, compiles a small per-step probe, and puts everything the GPU machine
#      needs into .gpucheck/ (listed in .git/info/exclude): binaries, their non-glibc
#      shared libraries, Vulkan loader/GLVND .debs, golden models, 512 DDTP test
#      sentences, and this script. It prints the size of the payload.
#   2. On the GPU machine, from the repo root with .gpucheck/ beside it:
#        bash .gpucheck/gpu_check.sh device        (about 60 s on an H200)
#      finds the NVIDIA Vulkan ICD (also under /usr/local/nvidia/share/vulkan/icd.d),
#      runs the Vulkan test cases directly, a per-decoder-step probe, and softalign_bench
#      at batch 1/32/256 (beam 1 and 4) on the GPU and on the CPU. Results go to $OUT
#      (or ./gpucheck-out): summary.txt, env.txt, tests.log, steps.jsonl, bench.jsonl,
#      gpu_check.log. The whole device phase keeps to BUDGET_S (default 450 s).
#   `all` runs both phases on one machine that has a GPU and apt.
# The CPU rows are one core (--threads 1), the issue's baseline, and all the machine's
# cores. With OLD_PAY, a payload staged from an earlier tree (PAY=DIR stage there), its
# Vulkan rows are run too, side by side in the same run.
#
# Environment: BUILD_DIR (default build), PAY (payload folder, default .gpucheck),
# OLD_PAY, BUDGET_S (device phase, default 450), DATA (test sentences, default
# ../shared/data/ddtp/en-fr/test.en), OUT.
set -uo pipefail
set -x

MODE="${1:-}"
PAY="${PAY:-.gpucheck}"
MODEL=models/en-fr/en-fr.int8.softalign
SELF="$(readlink -f "${BASH_SOURCE[0]}")"

die() { echo "gpu_check: $*" >&2; exit 1; }
[ -f CMakeLists.txt ] && [ -d runtime/src/backends/vulkan ] || die "run from the softalign repository root"

# ----------------------------------------------------------------------------- stage
stage() {
  set -e
  local BUILD="${BUILD_DIR:-build}"
  # Build deps: the runtime profile plus the Vulkan headers, glslc and doctest.
  bash scripts/setup.sh runtime
  local need=()
  for p in libvulkan-dev libvulkan1 glslc doctest-dev; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || need+=("$p")
  done
  if [ ${#need[@]} -gt 0 ]; then
    apt-get update -q
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${need[@]}"
  fi
  if [ ! -f "$BUILD/CMakeCache.txt" ]; then
    cmake -S . -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release -DSOFTALIGN_BUILD_TESTS=ON
  fi
  grep -q '^SOFTALIGN_VULKAN:BOOL=ON' "$BUILD/CMakeCache.txt" || die "$BUILD has SOFTALIGN_VULKAN off"
  cmake --build "$BUILD" -j"$(nproc)" --target softalign_cli softalign-convert softalign_bench \
    runtime_vulkan_test runtime_vulkan_fallback_test

  rm -rf "$PAY"
  mkdir -p "$PAY"/{bin,lib,lib/compat,gl,golden,data}
  cmake -DCONVERTER="$BUILD/bin/softalign-convert" -DGOLDEN_DIR="$PWD/tests/golden" \
    -DOUT_DIR="$PWD/$PAY/golden" -P tests/converter/convert_golden.cmake

  # The per-step probe: public API only, linked to the static library.
  write_probe > "$PAY/vk_step_time.cpp"
  g++ -O2 -std=c++17 -Iruntime/include -I"$BUILD/runtime/include" "$PAY/vk_step_time.cpp" \
    "$BUILD/lib/libsoftalign.a" -lsentencepiece -lXNNPACK -lpthreadpool -lcpuinfo -ldl -lpthread \
    -o "$PAY/bin/vk_step_time"

  cp "$BUILD/bin/softalign" "$BUILD/bin/softalign_bench" "$BUILD/bin/runtime_vulkan_test" \
    "$BUILD/bin/runtime_vulkan_fallback_test" "$PAY/bin/"
  # Shared libraries the binaries need beyond glibc/libstdc++ (the device image has newer ones);
  # libstdc++/libgcc_s go to lib/compat, used only if the device's are too old.
  for b in "$PAY"/bin/*; do
    ldd "$b" | awk '/=> \//{print $3}'
  done | sort -u | while read -r lib; do
    case "$(basename "$lib")" in
      libc.so*|libm.so*|libpthread.so*|libdl.so*|librt.so*|ld-linux*) ;;
      libstdc++.so*|libgcc_s.so*) cp -L "$lib" "$PAY/lib/compat/" ;;
      *) cp -L "$lib" "$PAY/lib/" ;;
    esac
  done
  # The Vulkan loader and GLVND (the NVIDIA ICD needs libGLdispatch), unpacked there only
  # where the image lacks them (the device tool's README recipe).
  apt-get update -q >/dev/null 2>&1 || true
  (cd "$PAY/gl" && apt-get download libvulkan1 libglvnd0 libglx0 libgl1 libegl1 libopengl0 libgles2) || \
    echo "gpu_check: could not download the loader .debs; the device must have libvulkan.so.1"
  local data="${DATA:-../shared/data/ddtp/en-fr/test.en}"
  if [ -f "$data" ]; then head -n 512 "$data" > "$PAY/data/test.en"
  else for _ in $(seq 40); do grep -v '^#' tests/models/en-fr.sources.txt | grep -v '^$'; done | head -n 512 > "$PAY/data/test.en"; fi
  {
    echo "SRC_DIR=$(sed -n 's/^CMAKE_HOME_DIRECTORY:INTERNAL=//p' "$BUILD/CMakeCache.txt")"
    echo "GIT_REV=$(git rev-parse HEAD 2>/dev/null)"
    echo "STAGED=$(date -u +%FT%TZ)"
  } > "$PAY/meta.env"
  cp "$SELF" "$PAY/gpu_check.sh"
  local excl; excl=$(git rev-parse --git-path info/exclude)
  mkdir -p "$(dirname "$excl")"
  grep -qx "/$PAY/" "$excl" 2>/dev/null || echo "/$PAY/" >> "$excl"
  set +x
  echo "== staged: $(du -sh "$PAY" | cut -f1) in $PAY"
  local travel pay limit=$((64 * 1024 * 1024))
  travel=$( { git ls-files -z; git ls-files -z --others --exclude-standard; } |
            xargs -0 stat -c %s 2>/dev/null | awk '{s+=$1} END {print s+0}')
  pay=$(du -sb "$PAY" | cut -f1)
  echo "== to copy: repo $((travel >> 20)) MiB + $PAY $((pay >> 20)) MiB (limit 64 MiB)"
  if [ $((travel + pay)) -gt $limit ]; then
    # The largest tracked files the device phase does not read (it reads $MODEL), until under the limit.
    local total=$((travel + pay)) aside=()
    while read -r size name; do
      [ "$total" -le $((limit - (2 << 20))) ] && break
      [ "$name" = "$MODEL" ] && continue
      aside+=("$name"); total=$((total - size))
    done < <(git ls-files -z | xargs -0 stat -c '%s %n' 2>/dev/null | sort -rn | head -20)
    echo "== over the limit: move these aside while the tree is copied (then $((total >> 20)) MiB), and back after it:"
    echo "   mkdir -p /tmp/gpucheck-aside && tar -cf /tmp/gpucheck-aside/aside.tar ${aside[*]} && rm ${aside[*]}"
    echo "   then run 'bash .gpucheck/gpu_check.sh device' on the GPU machine with .gpucheck/ beside the tree"
    echo "   tar -xf /tmp/gpucheck-aside/aside.tar && git status --short   # must print nothing for these files"
  fi
}

write_probe() {
cat <<'EOF'
// vk_step_time MODEL cpu|vulkan|auto [BATCHES=1,32,256] [BEAM=1] [REPS=5]: per-step latency.
// force_decode: (T=51 steps - T=1) / 50 on one row; then B copies of one sentence decoded
// together (all rows live every step): best wall time / (output length + 1), encoder included.
#include <softalign/softalign.hpp>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <string>
#include <vector>
using namespace softalign;
using Clock = std::chrono::steady_clock;
static double ms_since(Clock::time_point t0) { return std::chrono::duration<double, std::milli>(Clock::now() - t0).count(); }
int main(int argc, char** argv) {
  if (argc < 3) return 2;
  const std::string device = argv[2];
  std::vector<int> batches;
  std::stringstream ss(argc > 3 ? argv[3] : "1,32,256");
  for (std::string s; std::getline(ss, s, ',');) batches.push_back(std::atoi(s.c_str()));
  const int beam = argc > 4 ? std::atoi(argv[4]) : 1, reps = argc > 5 ? std::atoi(argv[5]) : 5;
  std::shared_ptr<const Model> model;
  Status st = Model::load(argv[1], &model);
  Backend backend;
  if (!st.ok() || !backend_from_name(device, &backend)) return 1;
  std::vector<int32_t> src;
  if (!model->encode_source("This package contains the development files for the library.", &src).ok()) return 1;
  if (beam == 1) {
    TranslatorOptions o;
    o.backend = backend;
    o.search.beam_size = 1;
    std::unique_ptr<Translator> tr;
    const auto tp = Clock::now();
    st = Translator::prepare(model, o, &tr);
    const double prep = ms_since(tp);
    if (!st.ok()) { std::printf("{\"probe\":\"force_decode\",\"device\":\"%s\",\"error\":\"%s\"}\n", device.c_str(), st.to_string().c_str()); return 1; }
    const int V = model->config().tgt_vocab, T = std::min(51, tr->max_target_tokens());
    std::vector<int32_t> tgt(T, std::min(7, V - 1));
    tgt[0] = model->config().bos_id;
    std::vector<float> logits(static_cast<size_t>(T) * V);
    auto time_it = [&](int t) {
      double best = 1e30;
      for (int r = 0; r <= reps; ++r) {
        const auto t0 = Clock::now();
        if (!tr->force_decode(Span<const int32_t>(src.data(), src.size()), Span<const int32_t>(tgt.data(), t), logits.data(), nullptr).ok()) std::exit(1);
        if (r > 0) best = std::min(best, ms_since(t0));
      }
      return best;
    };
    const double t1 = time_it(1), tT = time_it(T);
    std::printf("{\"probe\":\"force_decode\",\"device\":\"%s\",\"backend\":\"%s\",\"device_name\":\"%s\",\"prepare_ms\":%.3f,"
                "\"source_tokens\":%zu,\"one_step_ms\":%.4f,\"per_step_us\":%.2f}\n", device.c_str(),
                tr->backend_info().name.c_str(), tr->backend_info().device.c_str(), prep, src.size(), t1, (tT - t1) / (T - 1) * 1e3);
    std::fflush(stdout);
  }
  for (int B : batches) {
    TranslatorOptions o;
    o.backend = backend;
    o.search.beam_size = beam;
    o.max_batch = B;
    std::unique_ptr<Translator> tr;
    const auto tp = Clock::now();
    st = Translator::prepare(model, o, &tr);
    const double prep = ms_since(tp);
    if (!st.ok()) { std::printf("{\"probe\":\"batch\",\"device\":\"%s\",\"batch\":%d,\"beam\":%d,\"error\":\"%s\"}\n", device.c_str(), B, beam, st.to_string().c_str()); std::fflush(stdout); continue; }
    std::vector<Span<const int32_t>> spans(B, Span<const int32_t>(src.data(), src.size()));
    std::vector<NBestView> out(B);
    SearchOptions so;
    so.beam_size = beam;
    so.nbest = 1;
    double best = 1e30;
    size_t len = 0;
    for (int r = 0; r <= reps; ++r) {
      const auto t0 = Clock::now();
      if (!tr->translate_ids_batch(spans.data(), spans.size(), so, out.data()).ok()) return 1;
      len = out[0].count ? out[0].hypotheses[0].length : 0;
      if (r > 0) best = std::min(best, ms_since(t0));
    }
    const double steps = static_cast<double>(len + 1);
    std::printf("{\"probe\":\"batch\",\"device\":\"%s\",\"backend\":\"%s\",\"batch\":%d,\"beam\":%d,\"prepare_ms\":%.3f,\"batch_ms\":%.3f,"
                "\"steps\":%.0f,\"ms_per_step_incl_encoder\":%.4f,\"us_per_row_step\":%.3f,\"sentences_per_s\":%.1f}\n",
                device.c_str(), tr->backend_info().name.c_str(), B, beam, prep, best, steps, best / steps,
                best / steps / (B * beam) * 1e3, B / best * 1e3);
    std::fflush(stdout);
  }
  return 0;
}
EOF
}

# ----------------------------------------------------------------------------- device
device() {
  [ -d "$PAY/bin" ] || die "no $PAY/: run 'gpu_check.sh stage' first and carry $PAY"
  OUT="${OUT:-$PWD/gpu_out}"
  mkdir -p "$OUT"
  exec > >(tee "$OUT/gpu_check.log") 2>&1
  local BUDGET="${BUDGET_S:-450}" T0=$SECONDS
  # step NAME CAP_S CMD...: runs CMD with a timeout of min(CAP_S, what is left of the budget).
  step() {
    local name="$1" cap="$2"; shift 2
    local left=$((BUDGET - (SECONDS - T0)))
    [ "$left" -lt "$cap" ] && cap=$left
    if [ "$cap" -lt 5 ]; then echo "SKIP $name (budget spent)" | tee -a "$OUT/summary.txt"; return 0; fi
    local t=$SECONDS rc
    timeout -k 5 "$cap" "$@"; rc=$?
    echo "$( [ $rc -eq 0 ] && echo PASS || { [ $rc -eq 124 ] && echo TIMEOUT || echo "FAIL(rc=$rc)"; } ) $name $((SECONDS - t))s" | tee -a "$OUT/summary.txt"
    return 0
  }
  : > "$OUT/summary.txt"
  # shellcheck disable=SC1091
  . "$PAY/meta.env"
  {
    echo "repo: $GIT_REV (staged $STAGED)"; uname -a; nproc; free -g | head -2
    nvidia-smi -L; nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm,clocks.max.sm --format=csv
  } > "$OUT/env.txt" 2>&1

  # The Vulkan loader (and GLVND for the NVIDIA ICD), from the carried .debs where missing.
  if ! ldconfig -p | grep -q 'libvulkan.so.1' || ! ldconfig -p | grep -q 'libGLdispatch.so.0'; then
    for f in "$PAY"/gl/*.deb; do [ -f "$f" ] && dpkg -x "$f" /; done
    ldconfig
  fi
  # The NVIDIA ICD manifest: the driver's own folder first (this workplace mounts it at
  # /usr/local/nvidia), then the standard loader paths.
  local icd=""
  for c in /usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json /usr/share/vulkan/icd.d/nvidia_icd.json \
           /etc/vulkan/icd.d/nvidia_icd.json /usr/local/share/vulkan/icd.d/nvidia_icd.json; do
    [ -f "$c" ] && { icd="$c"; break; }
  done
  [ -z "$icd" ] && icd=$(timeout 20 find /usr/local/nvidia /usr/share/vulkan /etc/vulkan /usr/lib -name 'nvidia_icd*.json' 2>/dev/null | head -1)
  if [ -n "$icd" ]; then export VK_DRIVER_FILES="$icd" VK_ICD_FILENAMES="$icd"; fi
  for d in /usr/local/nvidia/lib64 /usr/local/nvidia/lib; do [ -d "$d" ] && LD_LIBRARY_PATH="$d:${LD_LIBRARY_PATH:-}"; done
  export LD_LIBRARY_PATH="$PWD/$PAY/lib:${LD_LIBRARY_PATH:-}"
  if ! "$PAY/bin/softalign" --version >/dev/null 2>&1; then
    export LD_LIBRARY_PATH="$LD_LIBRARY_PATH:$PWD/$PAY/lib/compat"
  fi
  {
    echo "ICD: ${icd:-none found}"; [ -n "$icd" ] && cat "$icd"
    echo "LD_LIBRARY_PATH=$LD_LIBRARY_PATH"; ldconfig -p | grep -E 'libvulkan|libGLX_nvidia|libGLdispatch'
    ldd "$PAY/bin/softalign" | grep -i 'not found'
  } >> "$OUT/env.txt" 2>&1
  # The test binaries read the golden sources (and models/en-fr) at the path compiled in.
  if [ -n "${SRC_DIR:-}" ] && [ "$(readlink -f "$SRC_DIR" 2>/dev/null)" != "$(pwd -P)" ]; then
    if [ ! -e "$SRC_DIR" ]; then mkdir -p "$(dirname "$SRC_DIR")" && ln -s "$(pwd -P)" "$SRC_DIR"
    else echo "WARN $SRC_DIR exists and is not this repo: golden-source tests may fail" | tee -a "$OUT/summary.txt"; fi
  fi
  export SOFTALIGN_GOLDEN_MODELS="$PWD/$PAY/golden"

  local S='This package contains the documentation.'
  for dev in vulkan auto cpu; do
    echo "== translate --device $dev" >> "$OUT/env.txt"
    step "translate-$dev" 60 bash -c "printf '%s\n' '$S' | VK_LOADER_DEBUG=error '$PAY/bin/softalign' translate -m $MODEL --device $dev --verbose --stats >> '$OUT/env.txt' 2>&1"
  done
  grep -q 'backend=auto: a Vulkan GPU' "$OUT/env.txt" && echo "auto picked the GPU" >> "$OUT/summary.txt" || \
    echo "auto did NOT pick the GPU (see env.txt)" >> "$OUT/summary.txt"

  # The Vulkan ctest cases, run directly (same environments as tests/runtime/CMakeLists.txt).
  local empty; empty=$(mktemp -d)
  step runtime_vulkan 150 bash -c "'$PAY/bin/runtime_vulkan_test' >> '$OUT/tests.log' 2>&1"
  # A GPU that accelerates int8 dot products and has subgroups runs them by
  # default: the plain int8 path and shared-memory sums too.
  step runtime_vulkan_plain 150 env SOFTALIGN_TEST_INTEGER_DOT=never SOFTALIGN_TEST_SUBGROUP=never \
    bash -c "'$PAY/bin/runtime_vulkan_test' >> '$OUT/tests.log' 2>&1"
  step runtime_vulkan_no_driver 30 env VK_ICD_FILENAMES="$empty" VK_DRIVER_FILES="$empty" \
    SOFTALIGN_TEST_FALLBACK_REASON="no Vulkan driver" bash -c "'$PAY/bin/runtime_vulkan_fallback_test' >> '$OUT/tests.log' 2>&1"
  step runtime_vulkan_no_loader 30 env SOFTALIGN_VULKAN_LOADER=libsoftalign-test-no-such-loader.so.1 \
    SOFTALIGN_TEST_FALLBACK_REASON="no Vulkan loader" bash -c "'$PAY/bin/runtime_vulkan_fallback_test' >> '$OUT/tests.log' 2>&1"

  # Per-step latency: one row (force_decode), then B identical sentences decoded together.
  step steps-vulkan-beam1 60 bash -c "'$PAY/bin/vk_step_time' $MODEL vulkan 1,32,256 1 5 >> '$OUT/steps.jsonl' 2>>'$OUT/tests.log'"
  step steps-cpu-beam1 40 bash -c "'$PAY/bin/vk_step_time' $MODEL cpu 1,32,256 1 3 >> '$OUT/steps.jsonl' 2>>'$OUT/tests.log'"
  step steps-vulkan-beam4 40 bash -c "'$PAY/bin/vk_step_time' $MODEL vulkan 1,32,256 4 3 >> '$OUT/steps.jsonl' 2>>'$OUT/tests.log'"

  # The project's own bench: softalign_bench (the tool behind tests/bench/run_bench.py's rows).
  local inp="$PAY/data/test.en"
  local old_pay="${OLD_PAY:-}"
  for cfg in "1 1 200" "32 1 512" "256 1 512" "32 4 512" "256 4 512"; do
    set -- $cfg
    for dev in vulkan cpu1 cpu old-vulkan; do
      local bin="$PAY/bin/softalign_bench" device=$dev threads=""
      case $dev in
        cpu1) device=cpu; threads="--threads 1" ;;
        cpu) threads="--threads $(nproc)" ;;
        old-vulkan) [ -n "$old_pay" ] || continue; bin="$old_pay/bin/softalign_bench"; device=vulkan ;;
      esac
      step "bench-$dev-b$1-k$2" 45 bash -c "set -o pipefail; '$bin' --model $MODEL --input $inp --sentences $3 --batch $1 --beam $2 --device $device $threads | sed 's/^{/{\"dev\":\"$dev\",\"batch\":$1,\"beam\":$2,/' >> '$OUT/bench.jsonl' 2>>'$OUT/tests.log'"
    done
  done
  if [ -n "$old_pay" ]; then
    step steps-old-vulkan-beam1 60 bash -c "'$old_pay/bin/vk_step_time' $MODEL vulkan 1,32,256 1 5 | sed 's/^{/{\"old\":true,/' >> '$OUT/steps.jsonl' 2>>'$OUT/tests.log'"
  fi

  # Last (the slowest to start: one process and one Vulkan device per translation).
  step models_exact_vulkan 120 bash -c "python3 tests/models/model_outputs.py check --cli '$PAY/bin/softalign' --kernels ref --device vulkan --root '$PWD' >> '$OUT/tests.log' 2>&1"

  set +x
  {
    echo; echo "== per-step probe (steps.jsonl)"; cat "$OUT/steps.jsonl" 2>/dev/null
    echo; echo "== softalign_bench (bench.jsonl): dev batch beam sentences/s backend device"
    python3 - "$OUT/bench.jsonl" <<'PY' 2>/dev/null || cat "$OUT/bench.jsonl"
import json, sys
for line in open(sys.argv[1]):
    try: r = json.loads(line)
    except ValueError: continue
    print(f"{r['dev']:10s} b{r['batch']:<4d} k{r['beam']}  {r['sentences_per_s']:9.1f} sent/s  {r['tokens_per_s']:9.1f} tok/s  "
          f"prepare {r['prepare_ms']:.1f} ms  step: {r.get('step_dispatches', '-')} dispatches "
          f"{r.get('step_barriers', '-')} barriers {r.get('step_weight_mib', 0):.1f} MiB  {r['backend']} {r['device']}")
PY
    echo; echo "device phase: $((SECONDS - T0)) s of ${BUDGET} s"
  } >> "$OUT/summary.txt"
  cat "$OUT/summary.txt"
}

case "$MODE" in
  stage) stage ;;
  device) device ;;
  all) stage && device ;;
  *) echo "usage: $0 stage|device|all   (see the header)" >&2; exit 2 ;;
esac
