"""The Ding corpus recipe (models/corpus/ding_corpus.py) on hand-written Ding lines:
the line parser (parts, annotations, alternatives, placeholders, sentences against
words and templates), the split and leak rules, and a whole build from a .deb written
here (twice: byte-identical). When the real corpus has been built (runs/ding-corpus),
also its leak check."""
import argparse
import collections
import os
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "models", "corpus"))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import ding_corpus as D  # noqa: E402
from test_gettext_corpus import make_deb  # noqa: E402  (a minimal .deb)

BUILT = os.path.join(ROOT, "runs", "ding-corpus")


def test_parts_annotations_and_alternatives():
    line = ("Aal {m} (auf der Speisekarte) [cook.] | Aal blau; blauer Aal :: "
            "Eel (on a menu) | Eel au bleu; Eel steamed and served with Butter")
    assert D.parse_line(line) == [("phrase", "Eel", "Aal"), ("phrase", "Eel au bleu", "Aal blau")]
    # Hidden search keys <…>, abbreviations /PM/, nested brackets.
    line = ("Schwebstoffe {pl} (in Flüssigkeiten (und Gasen)) [phys.] <Schwebestoffe> :: "
            "particulates; particulate matter /PM/")
    assert D.parse_line(line) == [("phrase", "particulates", "Schwebstoffe")]
    assert D.clean_side("particulate matter /PM/ [Br.]", "en") == "particulate matter"


def test_placeholders_rewritten():
    line = "jdm. etw. geben {vt} | jds. Auto :: to give sb. sth. | sb.'s car"
    assert D.parse_line(line) == [("phrase", "to give someone something", "jemandem etwas geben"),
                                  ("phrase", "someone's car", "jemandes Auto")]
    c = collections.Counter()
    assert D.clean_side("jdn. sehen; jdn. erblicken", "de", c) == "jemanden sehen"
    assert c["placeholders"] == 1
    assert D.clean_side("to ask sb for sth", "en") == "to ask someone for something"
    assert D.clean_side("sb.’s turn", "en") == "someone’s turn"
    assert D.clean_side("jd. anderes", "de") == "jemand anderes"
    # "so." is a word, not a placeholder.
    assert D.clean_side("I think so.", "en") == "I think so."


def test_sentences_phrases_and_templates():
    line = ("blank {adj} | Es war purer Zufall. | Das ist blanker Unsinn! | Ich muss heute fort / weg. | "
            "Darf/Dürfte ich fragen? | Könnten Sie vielleicht …? :: "
            "sheer | It was pure chance. | That's sheer nonsense! | I have to go today. | "
            "May/Might I ask? | Could you possibly …?")
    c = collections.Counter()
    got = D.parse_line(line, c)
    assert got == [("phrase", "sheer", "blank"),
                   ("sentence", "It was pure chance.", "Es war purer Zufall."),
                   ("sentence", "That's sheer nonsense!", "Das ist blanker Unsinn!"),
                   ("phrase", "I have to go today.", "Ich muss heute fort / weg."),
                   ("phrase", "May/Might I ask?", "Darf/Dürfte ich fragen?"),
                   ("phrase", "Could you possibly …?", "Könnten Sie vielleicht …?")]
    assert c["sentence-like parts kept as phrases (templates)"] == 3
    # One word is a sentence only with ! or ?; German nouns' capitals do not make one.
    assert D.kind_of("Cheers!", "Prost!") == "sentence"
    assert D.kind_of("Ltd.", "GmbH.") == "phrase"
    assert D.kind_of("Good morning", "Guten Morgen") == "phrase"
    assert D.kind_of("„Hello,“ she said.", "„Hallo“, sagte sie.") == "sentence"
    # A sentence's placeholder and a note before the full stop.
    assert D.parse_line("Gib mir etw. (zu essen)! :: Give me sth. (to eat)!") == \
        [("sentence", "Give me something!", "Gib mir etwas!")]


def test_lines_dropped():
    c = collections.Counter()
    assert D.parse_line("# Version :: devel", c) == []
    assert D.parse_line("a | b :: c", c) == []
    assert D.parse_line("a :: b :: c", c) == []
    assert c["lines with unequal part counts"] == 1 and c["lines without one ' :: '"] == 1
    c = collections.Counter()
    assert D.parse_line("Berlin {n} [geogr.] | Hotel {n} | Heim {n} :: Berlin | hotel | home", c) == \
        [("phrase", "hotel", "Hotel"), ("phrase", "home", "Heim")]
    assert c["parts dropped: identical sides (names, loanwords)"] == 1
    long_de = "ein Außenstehender, der eine Ehe durch eine Affäre mit einem Beteiligten zerstört"
    assert D.parse_line(f"{long_de} :: home wrecker") == []


def _line_in(split, de, en):
    """A Ding line holding the example sentence de :: en that split_of puts in `split`."""
    for i in range(10000):
        line = f"Wort{i} {{n}} | {de} :: word{i} | {en}"
        if D.split_of(line) == split:
            return line
    raise AssertionError("no line found")


def test_split_by_line_and_leak_rules():
    test_line = _line_in("test", "Das ist gut.", "That is good.")
    dev_line = _line_in("dev", "Das ist schlecht.", "That is bad.")
    lines = [test_line, dev_line,
             # train copies of the held-out sentences, differing in case and punctuation only
             _line_in("train", "Das ist gut!", "That is good!"),
             "Das ist schlecht :: that is bad",
             # a line of words alone is train, whatever its hash
             "Wasser {n} :: water",
             _line_in("train", "Guten Morgen!", "Good morning!"),     # an everyday sentence
             _line_in("train", "Prost!", "Cheers!")]
    everyday = {D.norm("Good morning!"), D.norm("Guten Morgen!")}
    out, c = D.build_splits(lines, everyday=everyday)
    assert out["sentence"]["test"] == [("That is good.", "Das ist gut.")]
    assert out["sentence"]["dev"] == [("That is bad.", "Das ist schlecht.")]
    assert len(out["phrase"]["test"]) == 1 and len(out["phrase"]["dev"]) == 1
    assert out["sentence"]["train"] == [("Cheers!", "Prost!")]
    assert ("water", "Wasser") in out["phrase"]["train"]
    assert c["train sentences dropped (English or German of a dev/test pair)"] == 1
    assert c["train phrases dropped (English or German of a dev/test pair)"] == 1
    assert c["train sentences dropped (an everyday sentence)"] == 1
    # A dev sentence that is a test sentence (normalised) is dropped from dev; a line of
    # words alone never lands in dev or test.
    out, c = D.build_splits([test_line, _line_in("dev", "Das ist gut!", "THAT is good!")])
    assert out["sentence"]["dev"] == [] and c["dev sentences dropped (a test pair's English or German)"] == 1
    assert any(D.split_of(f"Wort{i} :: word{i}") != "train" for i in range(40))   # hashes that would hold a line out
    out, _c = D.build_splits([f"Wort{i} :: word{i}" for i in range(40)])
    assert out["phrase"]["test"] == [] and out["phrase"]["dev"] == [] and len(out["phrase"]["train"]) == 40


def test_whole_build_twice_identical(tmp_path):
    lines = ["# Version :: test", _line_in("test", "Das ist gut.", "That is good."),
             _line_in("dev", "Das ist schlecht.", "That is bad."),
             _line_in("train", "Der Hund bellt.", "The dog barks."), "jdm. etw. geben :: to give sb. sth."]
    cache = tmp_path / "cache"
    cache.mkdir()
    make_deb(str(cache / "trans-de-en_1.0-1_all.deb"), {D.DING_FILE: ("\n".join(lines) + "\n").encode("utf-8")})
    sha = D.R.sha256_file(str(cache / "trans-de-en_1.0-1_all.deb"))
    size = os.path.getsize(cache / "trans-de-en_1.0-1_all.deb")
    manifest = tmp_path / "ding-packages.tsv"
    manifest.write_text("# test\npackage\tversion\tarchitecture\tsource\tsize\tsha256\n"
                        f"trans-de-en\t1.0-1\tall\tding\t{size}\t{sha}\n", encoding="utf-8")
    everyday = tmp_path / "everyday.tsv"
    everyday.write_text("en\tfr\tde\nThe dog barks.\tLe chien aboie.\tDer Hund bellt.\n", encoding="utf-8")
    outs = [tmp_path / "out1", tmp_path / "out2"]
    old = D.EVERYDAY
    D.EVERYDAY = str(everyday)
    try:
        for out in outs:
            a = argparse.Namespace(manifest=str(manifest), cache=str(cache), out=str(out), ddtp=None)
            D.cmd_build(a)
            with open(out / "SHA256SUMS", "w", encoding="utf-8") as f:
                f.write(D.sha256_table(str(out)))
            assert D.cmd_check(a) == 0
        assert D.main(["build", "--manifest", str(manifest), "--cache", str(cache), "--out", str(outs[1]),
                       "--reference", str(outs[0]), "--sha256", str(outs[0] / "SHA256SUMS")]) == 0
    finally:
        D.EVERYDAY = old
    assert (outs[0] / "en-de" / "test.en").read_text(encoding="utf-8") == "That is good.\n"
    assert (outs[0] / "en-de" / "train.en").read_text(encoding="utf-8") == ""          # the everyday one dropped
    assert "to give someone something\n" in (outs[0] / "words" / "en-de" / "train.en").read_text(encoding="utf-8")
    assert (outs[0] / "all" / "en-de" / "dev.de").read_text(encoding="utf-8") == "Das ist schlecht.\n"
    # A planted leak: a test sentence in train.
    with open(outs[1] / "en-de" / "train.en", "a", encoding="utf-8") as f:
        f.write("that is good\n")
    with open(outs[1] / "en-de" / "train.de", "a", encoding="utf-8") as f:
        f.write("x\n")
    assert D.cmd_check(argparse.Namespace(out=str(outs[1]), ddtp=None)) == 1


@pytest.mark.skipif(not os.path.isfile(os.path.join(BUILT, "en-de", "test.en")),
                    reason="runs/ding-corpus not built (models/corpus/ding_corpus.py all)")
def test_built_corpus_has_no_leak():
    assert D.cmd_check(argparse.Namespace(out=BUILT, ddtp=None)) == 0
