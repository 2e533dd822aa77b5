#!/usr/bin/env bash
# Rebuilds the DDTP en-fr and en-de corpora from Debian's apt index files
# (bookworm/main i18n Translation-{en,fr,de}), as build_ddtp_corpus.py describes.
#
# Usage: models/corpus/rebuild.sh OUTDIR [REFERENCE_DIR]
#   OUTDIR         gets en-fr/ and en-de/ with {train,dev,test}.{en,fr,de}
#   REFERENCE_DIR  optional: a shipped corpus folder to compare with, byte for byte
# Needs root (apt-get update) and lz4. The index files are copied aside after each
# update, because apt removes the lists of languages it was not asked for.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
out="${1:?usage: rebuild.sh OUTDIR [REFERENCE_DIR]}"
ref="${2:-}"
SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

for lang in en fr de; do
  $SUDO apt-get -q -o Acquire::Languages="$lang" update >/dev/null
  # The bookworm main index only (not -updates or -security).
  f="$(ls /var/lib/apt/lists/*_dists_bookworm_main_i18n_Translation-"$lang"* 2>/dev/null | head -n1 || true)"
  [ -n "$f" ] || { echo "rebuild.sh: no Translation-$lang index after apt-get update" >&2; exit 1; }
  case "$f" in
    *.lz4) lz4 -dc "$f" > "$work/Translation-$lang" ;;
    *.xz)  xz -dc "$f" > "$work/Translation-$lang" ;;
    *.gz)  gzip -dc "$f" > "$work/Translation-$lang" ;;
    *)     cp "$f" "$work/Translation-$lang" ;;
  esac
  echo "Translation-$lang: $(wc -c < "$work/Translation-$lang") bytes from $(basename "$f")"
done
# Leave apt's lists in their usual state (the default languages).
$SUDO apt-get -q update >/dev/null || true

for lang in fr de; do
  python3 "$here/build_ddtp_corpus.py" "$work/Translation-en" "$work/Translation-$lang" "$lang" "$out/en-$lang"
done

if [ -n "$ref" ]; then
  status=0
  for lang in fr de; do
    for split in train dev test; do
      for side in en "$lang"; do
        a="$out/en-$lang/$split.$side"; b="$ref/en-$lang/$split.$side"
        if cmp -s "$a" "$b"; then
          echo "identical: en-$lang/$split.$side"
        else
          status=1
          echo "DIFFERS:   en-$lang/$split.$side ($(wc -l < "$a") vs $(wc -l < "$b") lines;" \
               "$(diff "$a" "$b" | grep -c '^[<>]' || true) lines differ)"
        fi
      done
    done
  done
  exit $status
fi
