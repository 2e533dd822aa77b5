#!/usr/bin/env python3
"""English everyday phrases and sentences: the usage examples of WordNet 3.0's glosses
(Debian package wordnet-base, WordNet licence: use, copy and distribute with its notice).
English only, train only: an input of the Apertium recipe (apertium_corpus.py --wordnet),
which translates it to French and keeps held-out sentences out.

  python3 models/corpus/wordnet_examples.py all --cache runs/wordnet-cache --out runs/wordnet-examples \
      [--reference OLD_OUT] [--sha256 models/corpus/wordnet-examples.sha256]

Steps (each is also a subcommand):
  select    `apt-cache show wordnet-base` (bookworm/main) -> the manifest wordnet-packages.tsv
            beside this file. Only needed to refresh the committed manifest.
  download  `apt-get download PKG=VERSION` when the cache lacks the .deb, then its SHA-256
            against the manifest (gettext_corpus.cmd_download).
  build     reads usr/share/wordnet/data.{noun,verb,adj,adv} straight out of the .deb, takes
            every double-quoted example of every gloss ("the train leaves at noon"), cleans
            it (examples) and writes OUT/train.en (each example once, in file order) and
            OUT/SUMMARY.txt.

Why: the mixes had no source for ordinary phrases ("At what time does your train leave?"):
software text taught "train" as "entraînement". Deterministic: the output depends only on
the manifest's .deb (verified by hash); no clock, no randomness.
"""
import collections
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import recipe_cli as R  # noqa: E402  (the shared command line and SHA-256 checks)
import gettext_corpus as G  # noqa: E402  (the .deb reader, manifest, download and compare helpers)

PACKAGE = "wordnet-base"
MANIFEST = os.path.join(HERE, "wordnet-packages.tsv")
DATA_FILES = [f"usr/share/wordnet/data.{pos}" for pos in ("noun", "verb", "adj", "adv")]
EXAMPLE = re.compile(r'"([^"]+)"')
MAX_WORDS = 40


def examples_of(line):
    """The quoted examples of one data-file line (a synset: ... | gloss; "example"; ...).
    The licence header's lines start with two spaces and have no gloss."""
    if line.startswith("  ") or " | " not in line:
        return []
    return EXAMPLE.findall(line.split(" | ", 1)[1])


def clean(example, counts):
    """The example as one line, or None (counted) when it is not a usable English phrase."""
    s = " ".join(example.split())
    if len(s.split()) < 2:
        counts["dropped: one word"] += 1
        return None
    if len(s.split()) > MAX_WORDS:
        counts[f"dropped: over {MAX_WORDS} words"] += 1
        return None
    if "`" in s or "--" in s or "_" in s:
        # WordNet's own quoting (`it rained like billyo'), dashes and multi-word lemma joins
        counts["dropped: WordNet quoting, -- or _"] += 1
        return None
    return s


def build(texts):
    """(examples in file order, each once; counts) from {data file: text}."""
    counts, seen, out = collections.Counter(), set(), []
    for name in DATA_FILES:
        for line in texts[name].split("\n"):
            for ex in examples_of(line):
                counts[f"examples in {os.path.basename(name)}"] += 1
                s = clean(ex, counts)
                if s is None:
                    continue
                if s in seen:
                    counts["dropped: a repeat"] += 1
                    continue
                seen.add(s)
                out.append(s)
    counts["kept"] = len(out)
    return out, counts


def deb_path(a):
    return G.one_deb(a.manifest, a.cache, "wordnet_examples.py")


def cmd_select(a):
    G.select_one(PACKAGE, a.manifest, f"Debian bookworm/main {PACKAGE} (WordNet 3.0, files {', '.join(DATA_FILES)}); "
                                      f"WordNet licence.")


def cmd_build(a):
    path, row = deb_path(a)
    files = G.deb_files(path, lambda n: n if n in DATA_FILES else None)
    missing = [n for n in DATA_FILES if n not in files]
    if missing:
        raise SystemExit(f"wordnet_examples.py: {path} lacks {missing}")
    out, counts = build({n: files[n].decode("utf-8") for n in DATA_FILES})
    os.makedirs(a.out, exist_ok=True)
    with open(os.path.join(a.out, "train.en"), "w", encoding="utf-8") as f:
        f.write("".join(s + "\n" for s in out))
    summary = [f"{row['package']} {row['version']} ({row['size']} bytes, SHA-256 {row['sha256']}): "
               + ", ".join(DATA_FILES)]
    summary += [f"{k}: {v}" for k, v in sorted(counts.items())]
    R.write_summary(a.out, summary)


def sha256_table(out):
    return R.sha256_lines(out, ["train.en"])


def main(argv=None):
    p = R.parser(__doc__, ["select", "download", "build", "all"], manifest=MANIFEST,
                 cache="wordnet-cache", out="wordnet-examples",
                 reference_help="a previous OUT folder: compare train.en byte for byte",
                 sha256_help="a file of 'SHA-256  path' lines (wordnet-examples.sha256): compare with it")
    a = p.parse_args(argv)
    return R.run(a, "wordnet_examples.py", select=cmd_select, download=G.cmd_download, build=cmd_build,
                 compare=lambda out, ref: G.compare(out, ref, "SUMMARY.txt"), sha256_table=sha256_table)


if __name__ == "__main__":
    sys.exit(main())
