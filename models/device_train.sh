#!/usr/bin/env bash
# device_train.sh — a few minutes of training on a remote GPU machine, prepared here.
#
# For a GPU machine reached by one short command over a copy of the working tree: what
# travels is at most 64 MiB, the machine has CUDA PyTorch, SentencePiece, sacrebleu and
# safetensors but no network, and at most 8 files of 16 MiB (64 MiB together) come back
# from its $OUT folder. Minutes of a GPU are worth days of two CPU cores for these
# models, so the work is split in steps:
#
#   here:   bash models/device_train.sh stage TRAIN_DIR en-de en-fr
#             the mixes (runs/mix/PAIR, xz with a window that holds a whole file, so the
#             oversampled repeats cost nothing) and the runs' tokenizers
#             (TRAIN_DIR/tok-PAIR/16000) into .devtrain/; the tracked files over 1 MB
#             (shipped weights, import fixtures) set aside into .devtrain-aside/ so that
#             the tree travels; prints what travels. Do not commit while they are aside.
#   there:  bash models/device_train.sh device [MINUTES]
#             (the copy carries .devtrain; a 10-minute command limit fits MINUTES 6)
#             trains every staged pair from scratch on CUDA, side by side, for MINUTES
#             of training time (default 6; about 2.5 minutes more for loading, the final
#             dev evaluation and packing), the everyday recipe with a GPU's batch
#             (DEVTRAIN_SET below); the first pair's weights (float16, in parts) and
#             every pair's log come back in $OUT, the others wait in .devtrain-back/.
#   there:  bash models/device_train.sh back PAIR     (a second command, on the same machine)
#             that pair's weights into $OUT.
#   here:   bash models/device_train.sh unpack FILES_DIR/PAIR TRAIN_DIR/gpu-PAIR
#             a model folder (weights, tokenizer, training state) for compare_models.py,
#             or train.py --warm-start to go on training here.
#   here:   bash models/device_train.sh restore
#             the set-aside files back in place (git status clean again).
#
# Environment: DEVTRAIN_SET (recipe overrides for the device run, space-separated
# KEY=VALUE; default below), DEVTRAIN_DEVICE (cuda; cpu for a dry run of the plumbing),
# DEVTRAIN_TRAIN_LIMIT (first N pairs; dry runs), PYTHON.
set -euo pipefail

PAY=.devtrain           # what travels (carried)
BACK=.devtrain-back     # what the device run leaves for `back` (stays on the machine)
ASIDE=.devtrain-aside   # tracked files set aside while staging
LIMIT_BYTES=$((64 * 1024 * 1024))
PART_BYTES=16500000     # under 16 MiB a returned file
RECIPE=models/recipes/everyday-joint.yaml

die() { echo "device_train: $*" >&2; exit 1; }
[ -f "$RECIPE" ] && [ -f models/train.py ] || die "run from the softalign repository root"

python_bin() {
  if [ -n "${PYTHON:-}" ]; then echo "$PYTHON"
  elif [ -x .venv/bin/python ]; then echo .venv/bin/python
  else echo python3; fi
}

exclude_payload() {
  local ex; ex="$(git rev-parse --git-path info/exclude)"
  mkdir -p "$(dirname "$ex")"
  for p in "/$PAY/" "/$BACK/" "/$ASIDE/"; do
    grep -qxF "$p" "$ex" 2>/dev/null || echo "$p" >> "$ex"
  done
}

# Bytes of what a device call sends: the tracked files present, the untracked ones git
# does not ignore, and the carried payload.
travel_bytes() {
  { git ls-files -z; git ls-files -z --others --exclude-standard; } |
    { xargs -0 -r stat -c %s 2>/dev/null || true; } | awk '{s += $1} END {print s + 0}'  # set-aside ones fail stat
}

stage() {
  [ $# -ge 2 ] || die "usage: stage TRAIN_DIR PAIR..."
  local train_dir="$1"; shift
  local pair src tgt corpus tok
  pair_paths() { src="${1%-*}" tgt="${1#*-}" corpus="runs/mix/$1" tok="$train_dir/tok-$1/16000"; }
  for pair in "$@"; do  # every pair checked before anything is written
    pair_paths "$pair"
    [ -f "$corpus/train.$src" ] && [ -f "$corpus/train.$tgt" ] || die "$corpus: no train.$src/.$tgt (models/corpus/build_mixes.sh makes it)"
    [ -f "$tok/spm.model" ] || die "$tok/spm.model: missing (the runs' tokenizer)"
  done
  exclude_payload
  rm -rf "$PAY"; mkdir -p "$PAY"
  for pair in "$@"; do
    pair_paths "$pair"
    mkdir -p "$PAY/$pair"
    for side in "$src" "$tgt"; do
      # a 128 MiB window: every repeat of an oversampled source is found (12.0 MB for the
      # German side of the en-de mix against 13.3 MB with the default window)
      xz -T1 --lzma2=preset=6,dict=128MiB -c "$corpus/train.$side" > "$PAY/$pair/train.$side.xz"
      cp "$corpus/dev.$side" "$PAY/$pair/"
    done
    cp "$tok/spm.model" "$PAY/$pair/"
    echo "$pair: $(du -sb "$PAY/$pair" | cut -f1) bytes"
  done
  # the tracked files over 1 MB stay here while the tree travels
  git ls-files -z | while IFS= read -r -d '' f; do
    if [ -f "$f" ] && [ "$(stat -c %s "$f")" -gt 1000000 ]; then
      mkdir -p "$ASIDE/$(dirname "$f")"
      mv "$f" "$ASIDE/$f"
    fi
  done
  local tree pay
  tree=$(travel_bytes); pay=$(du -sb "$PAY" | cut -f1)
  echo "travels: tree $tree + $PAY $pay = $((tree + pay)) bytes (limit $LIMIT_BYTES)"
  [ $((tree + pay)) -le $LIMIT_BYTES ] || die "over the limit: stage fewer pairs"
  echo "set aside in $ASIDE: $(find "$ASIDE" -type f | wc -l) tracked files; 'restore' puts them back"
}

restore() {
  [ -d "$ASIDE" ] || { echo "nothing set aside"; return 0; }
  (cd "$ASIDE" && find . -type f -print0) | while IFS= read -r -d '' f; do
    mkdir -p "$(dirname "$f")"
    mv "$ASIDE/$f" "$f"
  done
  rm -rf "$ASIDE"
  local missing
  missing=$(git ls-files --deleted)
  [ -z "$missing" ] || die "still missing after restore: $missing"
  echo "restored"
}

# The device run's recipe overrides: a GPU's batch (4x the CPU runs'), the rate raised
# with it, the full softmax, one dev evaluation at the end, and the rate halved three
# times over the last 40 % of the minutes (DEVTRAIN_SET replaces all of it).
device_overrides() {
  local minutes="$1"
  if [ -n "${DEVTRAIN_SET:-}" ]; then echo "$DEVTRAIN_SET"; return; fi
  local d1 d2 d3
  d1=$(awk -v m="$minutes" 'BEGIN {printf "%.2f", 0.6 * m}')
  d2=$(awk -v m="$minutes" 'BEGIN {printf "%.2f", 0.75 * m}')
  d3=$(awk -v m="$minutes" 'BEGIN {printf "%.2f", 0.875 * m}')
  echo "training.batch_tokens=12000 training.lr=2.0e-3 training.softmax_candidates=0" \
       "training.lr_decay_minutes=[$d1,$d2,$d3] training.eval_every=0 training.max_epochs=1000" \
       "training.patience=1000 training.min_lr=1.0e-6 training.checkpoint_minutes=2 training.log_every=100"
}

# Weights as float16 in parts under 16 MiB, their checksums and the training state: five
# files a pair (8 come back a call, with device.txt).
pack() {
  local pair="$1" run="$BACK/$pair/run" dst="$BACK/$pair/files" py
  py=$(python_bin)
  rm -rf "$dst"; mkdir -p "$dst"
  [ -f "$run/model/model.safetensors" ] || { echo "$pair: no exported model (see its log)"; return 0; }
  "$py" models/export.py fp16 "$run/model/model.safetensors" "$BACK/$pair/model.fp16.safetensors"
  split -b "$PART_BYTES" -d -a 1 "$BACK/$pair/model.fp16.safetensors" "$dst/model.fp16.safetensors.part"
  (cd "$dst" && sha256sum model.fp16.safetensors.part* > parts.sha256)
  cp "$run/model/training_state.json" "$dst/"
}

unxz_to() {  # xz where the machine has it, else Python's lzma
  if command -v xz > /dev/null; then xz -dc "$1" > "$2"
  else "$(python_bin)" -c 'import lzma, shutil, sys; shutil.copyfileobj(lzma.open(sys.argv[1]), open(sys.argv[2], "wb"))' "$1" "$2"; fi
}

device() {
  local minutes="${1:-6}" dev="${DEVTRAIN_DEVICE:-cuda}" py out="${OUT:-$BACK/out}"
  py=$(python_bin)
  compgen -G "$PAY/*/spm.model" > /dev/null || die "$PAY: missing or empty (stage it here and carry it)"
  mkdir -p "$out"
  { date -u; nvidia-smi -L 2>&1 || true; "$py" -c 'import torch; print("torch", torch.__version__, "cuda", torch.cuda.is_available())'; } \
    | tee "$out/device.txt"
  local sets=() pairs=() pids=()
  for kv in $(device_overrides "$minutes"); do sets+=(--set "$kv"); done
  local limit=()
  [ -z "${DEVTRAIN_TRAIN_LIMIT:-}" ] || limit=(--train-limit "$DEVTRAIN_TRAIN_LIMIT")
  # a hard stop: the training minutes plus loading, the final evaluation and the export
  local hard=$(awk -v m="$minutes" 'BEGIN {printf "%d", 60 * m + 150}')
  for d in "$PAY"/*/; do
    local pair; pair=$(basename "$d")
    local src="${pair%-*}" tgt="${pair#*-}" corpus="$BACK/$pair/corpus"
    rm -rf "$BACK/$pair"; mkdir -p "$corpus"
    for side in "$src" "$tgt"; do
      unxz_to "$d/train.$side.xz" "$corpus/train.$side"
      cp "$d/dev.$side" "$corpus/"
    done
    timeout -k 10 "$hard" "$py" models/train.py --recipe "$RECIPE" --corpus "$corpus" --src "$src" --tgt "$tgt" \
      --out "$BACK/$pair/run" --tokenizers "$d" --device "$dev" --threads 6 --max-minutes "$minutes" \
      "${limit[@]}" "${sets[@]}" > "$BACK/$pair/stdout.log" 2>&1 &
    pids+=($!); pairs+=("$pair")
  done
  local i rc
  for i in "${!pids[@]}"; do
    rc=0; wait "${pids[$i]}" || rc=$?
    echo "${pairs[$i]}: trainer exit $rc" | tee -a "$out/device.txt"
    { pack "${pairs[$i]}" 2>&1 || echo "${pairs[$i]}: packing failed"; } | tee -a "$out/device.txt"
    { echo "== ${pairs[$i]}: train.log"; cat "$BACK/${pairs[$i]}/run/train.log" 2>/dev/null
      [ "$rc" -eq 0 ] || { echo "== ${pairs[$i]}: the end of its output"; tail -c 20000 "$BACK/${pairs[$i]}/stdout.log"; }
    } >> "$out/device.txt"
  done
  # the first pair with weights comes back now, each other one with `back PAIR`
  local sent=""
  for i in "${!pairs[@]}"; do
    if [ -z "$sent" ] && [ -f "$BACK/${pairs[$i]}/files/parts.sha256" ]; then back "${pairs[$i]}"; sent="${pairs[$i]}"
    elif [ -f "$BACK/${pairs[$i]}/files/parts.sha256" ]; then
      echo "next, on the same machine: bash models/device_train.sh back ${pairs[$i]}"
    fi
  done
  [ -n "$sent" ] || die "no pair has weights to send back (device.txt says why)"
}

back() {
  local pair="$1" out="${OUT:-$BACK/out}"
  [ -f "$BACK/$pair/files/parts.sha256" ] || die "$BACK/$pair: no weights packed (device.txt says why)"
  mkdir -p "$out/$pair"
  cp "$BACK/$pair/files/"* "$out/$pair/"
  ls -l "$out/$pair"
}

unpack() {
  [ $# -eq 2 ] || die "usage: unpack FILES_DIR DEST (FILES_DIR: the returned PAIR folder)"
  local files="$1" dest="$2" pair tok
  pair=$(basename "$files")
  tok="$PAY/$pair/spm.model"
  [ -f "$tok" ] || die "$tok: missing (the staged tokenizer of $pair)"
  (cd "$files" && sha256sum -c --quiet parts.sha256) || die "$files: a part does not match parts.sha256"
  mkdir -p "$dest"
  cat "$files"/model.fp16.safetensors.part* > "$dest/model.safetensors"
  cp "$files/training_state.json" "$tok" "$dest/"
  "$(python_bin)" models/export.py inspect "$dest" > /dev/null  # it loads, or says why not
  echo "model folder: $dest"
}

case "${1:-}" in
  stage) shift; stage "$@" ;;
  device) shift; device "$@" ;;
  back) shift; [ $# -eq 1 ] || die "usage: back PAIR"; back "$1" ;;
  unpack) shift; unpack "$@" ;;
  restore) restore ;;
  overrides) shift; device_overrides "${1:-6}" ;;   # what `device` sets (tests/python/test_device_train.py)
  *) die "usage: $0 stage TRAIN_DIR PAIR... | device [MINUTES] | back PAIR | unpack FILES_DIR DEST | restore | overrides [MINUTES]" ;;
esac
