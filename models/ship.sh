#!/usr/bin/env bash
# Turns a trained model into a shipped model folder, models/PAIR/:
#   model.safetensors           the weights (a trainer export, e.g. RUN/model/) in float16
#   src.spm.model tgt.spm.model its SentencePiece models (spm.model for a shared vocabulary;
#                               the other kind is removed from the folder)
#   PAIR.int8.softalign         the runtime file, converted from model.safetensors above
#                               (int8, vocabulary shortlist from the training split)
#   training/                   with RUN_DIR: the run's record and the state to continue it
#                               from these weights (train.py --warm-start models/PAIR):
#                               training_state.json (MODEL_DIR's), metrics, log, recipe
#                               and tokenizers. The exact 100 MB checkpoint stays in RUN_DIR:
#                               a repository cannot keep one per update.
#
#   bash models/ship.sh PAIR MODEL_DIR CORPUS_DIR [RUN_DIR]
#   e.g. bash models/ship.sh en-fr runs/en-fr/model ../shared/data/ddtp/en-fr runs/en-fr
#
# SHIP_CORPUS=NAME sets the file's corpus metadata (default ddtp-PAIR), e.g.
#   SHIP_CORPUS=ddtp+gettext-en-fr bash models/ship.sh en-fr runs/en-fr-joint/model \
#       runs/gettext-corpus/combined/en-fr runs/en-fr-joint
#
# Anyone can redo the conversion from the shipped weights (the command is printed; it goes
# into the model card); `bash models/evaluate_card.sh models/PAIR ...` gives the card's figures.
set -euo pipefail
cd "$(dirname "$0")/.."
pair=$1 model=$2 corpus=$3 run=${4:-}
src=${pair%-*} tgt=${pair#*-}
out=models/$pair
py=.venv/bin/python
mkdir -p "$out"
$py models/export.py fp16 "$model/model.safetensors" "$out/model.safetensors"
if [[ -f "$model/spm.model" ]]; then tok=(spm.model) old=(src.spm.model tgt.spm.model)
else tok=(src.spm.model tgt.spm.model) old=(spm.model); fi
rm -f "${old[@]/#/$out/}"
cp "${tok[@]/#/$model/}" "$out/"
convert=(build/bin/softalign-convert --int8 "$out/model.safetensors"
         --shortlist-corpus "$corpus/train.$src" "$corpus/train.$tgt"
         --meta "name=$pair" --meta "corpus=${SHIP_CORPUS:-ddtp-$pair}" -o "$out/$pair.int8.softalign")
"${convert[@]}"
if [[ -n "$run" ]]; then
  mkdir -p "$out/training"
  cp "$model/training_state.json" "$run/metrics.jsonl" "$run/recipe.yaml" "$run/train.log" "$out/training/"
  rm -f "${old[@]/#/$out/training/}"
  cp "${tok[@]/#/$model/}" "$out/training/"
  rm -f "$out/training/checkpoint.pt"
fi
echo "shipped $out (converted with: ${convert[*]})"
