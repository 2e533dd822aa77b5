#!/usr/bin/env bash
# The figures of a model card, in one command: test BLEU/chrF2 (sacrebleu) of
# PyTorch fp32 (the reference translator), softalign fp32 and softalign int8,
# greedy and beam, on the same test set; each row also on the sentences whose source has
# at most 4 words (interface strings: models/evaluate.py --short-words).
#   bash models/evaluate_card.sh MODEL_DIR DATA_DIR SRC TGT [BEAM]
# MODEL_DIR: model.safetensors + SentencePiece models; DATA_DIR: test.SRC, test.TGT.
# When MODEL_DIR holds a shipped runtime file (*.int8.softalign, models/ship.sh), it is
# scored too: the file as shipped, i.e. with its vocabulary shortlist.
# Needs build/bin/softalign and build/bin/softalign-convert (scripts/test.sh or demo.sh builds them).
set -euo pipefail
cd "$(dirname "$0")/.."
model_dir=$1 data=$2 src=$3 tgt=$4 beam=${5:-4}
py=.venv/bin/python
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
build/bin/softalign-convert "$model_dir/model.safetensors" -o "$work/f32.softalign"
build/bin/softalign-convert --int8 "$model_dir/model.safetensors" -o "$work/int8.softalign"
precs=(f32 int8)
shipped=$(ls "$model_dir"/*.int8.softalign 2>/dev/null | head -1 || true)
if [[ -n "$shipped" ]]; then ln -s "$(realpath "$shipped")" "$work/shipped.softalign"; precs+=(shipped); fi
score() {  # label hyp-file
  printf '%-52s ' "$1"
  $py models/evaluate.py --hyp "$2" --src "$data/test.$src" --ref "$data/test.$tgt" --json "$work/s.json" > /dev/null
  $py -c 'import json,sys; d=json.load(open(sys.argv[1])); s=d["short"]
print("BLEU %.2f  chrF2 %.2f" % (d["bleu"], d["chrf"]), end="")
print("  | sources of <= %d words (%d): BLEU %.2f  chrF2 %.2f" % (s["max_words"], s["sentences"], s["bleu"], s["chrf"])
      if s["sentences"] else "")' "$work/s.json"
}
for b in 1 "$beam"; do
  $py models/evaluate.py "$model_dir" --src "$data/test.$src" --ref "$data/test.$tgt" --beam "$b" \
    --out "$work/torch.$b.txt" > /dev/null
  score "PyTorch fp32, beam $b" "$work/torch.$b.txt"
  for p in "${precs[@]}"; do
    # A source longer than the model's max_src_len that has no sentence end to split at
    # is an error line in softalign (an empty output line, counted), where the
    # reference translator cuts it: the CLI's exit status 1 is expected then.
    # --no-copy-through: the engines compared as they are (the reference translator has
    # none); models/measure_copy.py measures copy-through.
    build/bin/softalign translate -m "$work/$p.softalign" --beam "$b" --split-long --no-copy-through \
      < "$data/test.$src" > "$work/sa.$p.$b.txt" 2> "$work/err.txt" || grep -c "error" "$work/err.txt" | sed 's/^/  lines failed: /' >&2
    label="softalign $p"; [[ $p == shipped ]] && label="softalign $(basename "$shipped") (shortlist)"
    score "$label, beam $b" "$work/sa.$p.$b.txt"
  done
done
