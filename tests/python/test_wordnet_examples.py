"""The WordNet examples recipe (models/corpus/wordnet_examples.py) on hand-written data-file
lines: which quoted parts of a gloss are examples, what is dropped, and a whole build from a
.deb written here (twice: byte-identical, each example once, in the data files' order)."""
import argparse
import collections
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "models", "corpus"))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import wordnet_examples as W  # noqa: E402
from test_gettext_corpus import make_deb  # noqa: E402  (a minimal .deb writer)

NOUN = ("  1 This software and database is being provided \"as is\"\n"
        "04468005 06 n 01 train 0 002 @ 04576211 n 0000 | public transport provided by a line of "
        "railway cars; \"express trains don't stop at Princeton Junction\"; \"At what time does your "
        "train leave?\"\n")
VERB = ("01494310 35 v 01 leave 0 001 @ 01494310 v 0000 | go away from a place; \"At what time does "
        "your train leave?\"; \"He left\"; \"she left `right away'\"; \"go\"\n")


def test_examples_of_a_gloss():
    assert W.examples_of(NOUN.split("\n")[0]) == []  # the licence header
    assert W.examples_of(NOUN.split("\n")[1]) == ["express trains don't stop at Princeton Junction",
                                                  "At what time does your train leave?"]


def test_clean_drops_single_words_and_wordnet_quoting():
    c = collections.Counter()
    assert W.clean("  the  rain stopped ", c) == "the rain stopped"
    assert W.clean("go", c) is None
    assert W.clean("she left `right away'", c) is None
    assert W.clean(" ".join(["word"] * (W.MAX_WORDS + 1)), c) is None
    assert c == {"dropped: one word": 1, "dropped: WordNet quoting, -- or _": 1,
                 f"dropped: over {W.MAX_WORDS} words": 1}


def test_whole_build_twice_identical(tmp_path):
    cache = tmp_path / "cache"
    cache.mkdir()
    files = {name: b"" for name in W.DATA_FILES}
    files["usr/share/wordnet/data.noun"] = NOUN.encode("utf-8")
    files["usr/share/wordnet/data.verb"] = VERB.encode("utf-8")
    make_deb(str(cache / "wordnet-base_1%3a3.0-1_all.deb"), files)
    manifest = tmp_path / "wordnet-packages.tsv"
    manifest.write_text("package\tversion\tarchitecture\tsource\tsize\tsha256\n"
                        "wordnet-base\t1:3.0-1\tall\twordnet\t0\t-\n", encoding="utf-8")
    outs = []
    for k in range(2):
        out = tmp_path / f"out{k}"
        W.cmd_build(argparse.Namespace(manifest=str(manifest), cache=str(cache), out=str(out)))
        outs.append((out / "train.en").read_bytes())
    assert outs[0] == outs[1]
    assert outs[0].decode("utf-8").split("\n") == ["express trains don't stop at Princeton Junction",
                                                   "At what time does your train leave?", "He left", ""]
    summary = (tmp_path / "out0" / "SUMMARY.txt").read_text(encoding="utf-8")
    assert "dropped: a repeat: 1" in summary and "kept: 3" in summary
