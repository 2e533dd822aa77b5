"""Evaluation scores agree with sacrebleu called directly; buckets split by source words."""
import math
import os
import subprocess
import sys

import pytest
import sacrebleu

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "models"))

from softalign_ref import evaluate as E  # noqa: E402

HYP = ["the cat sat on the mat", "a quick brown fox", "hello world , this is a longer test sentence",
       "nothing matches here"]
REF = ["the cat sat on a mat", "the quick brown fox", "hello world , this is a longer test sentence",
       "completely different words"]
SRC = ["le chat", "un renard brun rapide " * 3, " ".join(["mot"] * 25), " ".join(["x"] * 60)]


def test_score_matches_sacrebleu():
    r = E.score(HYP, REF)
    assert r["bleu"] == pytest.approx(sacrebleu.corpus_bleu(HYP, [REF]).score, abs=1e-9)
    assert r["chrf"] == pytest.approx(sacrebleu.corpus_chrf(HYP, [REF]).score, abs=1e-9)
    assert "tok:13a" in r["bleu_signature"] and "version:" in r["bleu_signature"]
    assert "nc:6" in r["chrf_signature"]  # chrF2 defaults
    assert r["n"] == 4


def test_perfect_and_empty_output():
    assert E.score(REF, REF)["bleu"] == pytest.approx(100.0)
    assert E.score([""] * 4, REF)["bleu"] == pytest.approx(0.0)


def test_length_buckets():
    b = E.bleu_by_length(SRC, HYP, REF)
    assert [x["bucket"] for x in b] == ["0-10", "10-20", "20-30", "30-40", "40-50", "50+"]
    assert [x["n"] for x in b] == [1, 1, 1, 0, 0, 1]
    assert b[0]["bleu"] == pytest.approx(sacrebleu.corpus_bleu(HYP[:1], [REF[:1]]).score)
    assert b[2]["bleu"] == pytest.approx(100.0)
    assert math.isnan(b[3]["bleu"])
    text = E.format_report(E.score(HYP, REF), b)
    assert "BLEU signature" in text and "50+" in text


def test_mismatched_lengths_are_errors():
    with pytest.raises(ValueError):
        E.score(HYP, REF[:2])
    with pytest.raises(ValueError):
        E.score([], [])
    with pytest.raises(ValueError):
        E.bleu_by_length(SRC[:1], HYP, REF)


def test_cli_scores_a_hypothesis_file(tmp_path):
    for name, lines in (("src", SRC), ("ref", REF), ("hyp", HYP)):
        (tmp_path / name).write_text("\n".join(lines) + "\n", encoding="utf-8")
    cli = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "models", "evaluate.py")
    p = subprocess.run([sys.executable, cli, "--hyp", str(tmp_path / "hyp"), "--src", str(tmp_path / "src"),
                        "--ref", str(tmp_path / "ref"), "--json", str(tmp_path / "r.json")],
                       capture_output=True, text=True, timeout=60)
    assert p.returncode == 0, p.stderr
    assert f"BLEU = {sacrebleu.corpus_bleu(HYP, [REF]).score:.2f}" in p.stdout
    assert "nrefs:1|case:mixed|eff:no|tok:13a|smooth:exp" in p.stdout
    bad = subprocess.run([sys.executable, cli, "--hyp", str(tmp_path / "nope"), "--src", str(tmp_path / "src"),
                          "--ref", str(tmp_path / "ref")], capture_output=True, text=True, timeout=60)
    assert bad.returncode == 2 and "not found" in bad.stderr


def test_repeated_words_and_numbers_kept():
    from softalign_ref import evaluate as E
    lines = ["éditeurs génériques Génériques.", "rapide, rapide", "Il contient 13 908 mots", "vous 2 2 fois", ""]
    assert E.repeated_word_rate(lines) == (2, 2 / 5)  # punctuation and case aside; digits are not words
    srcs = ["It contains 13908 headwords", "version 2 of 2014 and 3.14", "no number"]
    hyps = ["Il contient 13 908 mots", "version 2 de 2041 et 3,14", "aucun"]
    assert E.numbers_kept(srcs, hyps) == (2, 3)  # 13908 (formatted) and 3.14 kept, 2014 lost
