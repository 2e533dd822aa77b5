"""The Apertium corpus recipe (models/corpus/apertium_corpus.py) without Apertium: the stream
format (escapes, the per-segment prefix and index, the NUL-separated chunks and how a lost
segment is caught), Apertium's marks, the French spacing, chrF and the round-trip filter,
the dictionary-form and pronoun rules, the input selection, and a whole build through a
stand-in translator (a Python process speaking the same NUL-separated stream). One test runs
the real pivot and is skipped, visibly, where the `apertium` command is missing."""
import collections
import json
import os
import shutil
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "models", "corpus"))

import apertium_corpus as A  # noqa: E402

# A stand-in for one apertium pipeline: reads NUL-separated segments, keeps the prefix and the
# `[N]` index mark, and maps the text between them through a JSON table (unknown text: "*" + text,
# as Apertium marks an unknown word). With "drop" it loses segment 1's index mark; with
# "crash" it stops (as apertium-postchunk's segfault) at a segment that starts with CRASH.
FAKE = r"""
import json, sys
table = json.loads(sys.argv[1]); mode = sys.argv[2] if len(sys.argv) > 2 else ""
data = sys.stdin.buffer.read().decode("utf-8")
out = []
for k, seg in enumerate(data.split("\0")[:-1]):
    pre, rest = seg[:len(".[][\n]")], seg[len(".[][\n]"):]
    body, _, idx = rest.rpartition("[")
    text = table.get(body, "*" + body)
    if mode == "drop" and k == 1:
        idx = "x]"
    if mode == "crash" and body.startswith("CRASH"):
        sys.stdout.write("\0".join(out) + ("\0" if out else "") + pre + "half")
        sys.exit(139)
    out.append(pre + text + "[" + idx)
sys.stdout.write("\0".join(out) + "\0\0\0")
"""


def fake(table, mode=""):
    return ((sys.executable, "-c", FAKE, json.dumps(table), mode),)


def test_escape_and_unescape():
    s = r"^x$ [a] {b} \ / @ <c> 10:30"
    e = A.escape(s)
    assert e == r"\^x\$ \[a\] \{b\} \\ \/ \@ \<c\> 10:30"
    assert A.unescape(e) == s
    # A superblank (formatting Apertium carries through) is replaced by its content.
    assert A.unescape("Bonjour[ ]monde[][\n]") == "Bonjour monde\n"
    assert A.unescape(r"a \[b\] c") == "a [b] c"


def test_segments_and_split_output():
    seg = A.segments(["I love you.", "kitchen table"])
    assert seg == ".[][\n]I love you.[0]\0.[][\n]kitchen table[1]\0"
    # The pipeline's trailing flushes (empty segments) are fine; a segment that lost its
    # prefix or index mark is None; a pipeline that stopped early is incomplete (a program
    # crashed on the first segment missing); more segments than sent raise.
    out = ".[][\n]Je t'aime.[0]\0.[][\n]table de cuisine[1]\0\0\0".encode()
    assert A.split_output(out, 2) == (["Je t'aime.", "table de cuisine"], True)
    assert A.split_output(b".[][\n]a[0]\0b[1]\0", 2) == (["a", None], True)
    assert A.split_output(b".[][\n]a[0]\0.[][\n]b[0]\0", 2) == (["a", None], True)     # another's index
    assert A.split_output(b".[][\n]a[0]\0\0\0", 3) == (["a"], False)
    assert A.split_output(b".[][\n]a[0]\0.[][\n]half", 3) == (["a"], False)
    with pytest.raises(ValueError):
        A.split_output(b".[][\n]a[0]\0.[][\n]b[1]\0.[][\n]c[2]\0", 2)
    with pytest.raises(ValueError):
        A.split_output(b".[][\n]a[0]\0\0.[][\n]c[2]\0", 3)


def test_pipeline_keeps_lines_aligned_across_chunks():
    table = {f"s{i}": f"t{i}" for i in range(23)}
    texts = [f"s{i}" for i in range(23)]
    # Two processes in a row (as eng-cat | cat-fra), chunks of 5: each output is its own line's.
    stages = fake(table) + ((sys.executable, "-c", "import sys; sys.stdout.buffer.write(sys.stdin.buffer.read())"),)
    assert A.translate(stages, texts, chunk=5) == [f"t{i}" for i in range(23)]
    assert A.run_pipeline(fake(table, "drop"), texts[:3]) == ["t0", None, "t2"]
    assert A.run_pipeline(fake(table), []) == []
    # A program that crashes on a segment: that one is CRASHED, the others come through in
    # order (the rest of the chunk runs again after it), whatever the exit status.
    texts = ["s0", "CRASH1", "s2", "s3", "CRASH4", "CRASH5", "s6"]
    assert A.translate(fake(table, "crash"), texts, chunk=4) == \
        ["t0", A.CRASHED, "t2", "t3", A.CRASHED, A.CRASHED, "t6"]


def test_marks():
    assert A.has_marks("**Jews discrimination") and A.has_marks("#tous les") and A.has_marks("@cosa")
    assert not A.has_marks("Je te veux.")
    assert A.strip_marks("**foo #bar @baz") == "foo bar baz"
    # English that would read as a mark, or that the stream cannot carry, is not translated.
    for s in ("Press # to dial", "me@example", "5 ~ 6", "* bullet", "tab\there"):
        assert A.UNSAFE.search(s)
    assert not A.UNSAFE.search("Where is the train station?")


def test_french_spacing_matches_ddtp():
    assert A.french_spacing("Salut, comme c'est tu?") == "Salut, comme c'est tu ?"
    assert A.french_spacing("Bonjour!") == "Bonjour !"
    assert A.french_spacing("Quoi?!") == "Quoi ?!"
    assert A.french_spacing("Il a dit: oui; puis non") == "Il a dit : oui ; puis non"
    # Times and URLs keep their colon; spaces before , . ) and after ( go; runs collapse.
    assert A.french_spacing("Le train part à 10:30.") == "Le train part à 10:30."
    assert A.french_spacing("Voir http://x.org maintenant") == "Voir http://x.org maintenant"
    assert A.french_spacing("Excuse-moi,  parles anglais ?") == "Excuse-moi, parles anglais ?"
    assert A.french_spacing("mot ( entre ) fin .") == "mot (entre) fin."
    assert A.french_spacing("déjà\u00a0?") == "déjà ?"
    assert A.french_spacing("Oui !") == "Oui !"


def test_chrf_as_sacrebleu():
    # Values from sacrebleu 2.4.3 CHRF().sentence_score(hyp, [ref]).
    assert A.chrf("I want you.", "I love you.") == pytest.approx(23.0489417989418, abs=1e-9)
    assert A.chrf("The turn has left to the next street.", "Turn left at the next street.") == \
        pytest.approx(64.03411657398462, abs=1e-9)
    assert A.chrf("table of kitchen", "kitchen table") == pytest.approx(66.6583565648985, abs=1e-9)
    assert A.chrf("Hi, like it is you?", "Hello, how are you?") == pytest.approx(15.534797844447295, abs=1e-9)
    assert A.chrf("ab", "ab") == 100.0
    assert A.chrf("a", "b") == 0.0 and A.chrf("", "x") == 0.0


def test_roundtrip_filter():
    # Marks in the round trip are removed before scoring; the pair is kept above the threshold.
    assert A.roundtrip_score("kitchen table", "**kitchen table") == 100.0
    assert A.keep_roundtrip(A.roundtrip_score("Good morning!", "Good morning!"))
    assert not A.keep_roundtrip(A.roundtrip_score("I love you.", "I want you."))       # 23.0
    assert A.keep_roundtrip(60.01) and not A.keep_roundtrip(60.0) and not A.keep_roundtrip(10, threshold=10)


def test_dictionary_form_and_pronouns():
    f = A.dictionary_form
    assert f("to write poetry", "pour écrire poésie") == ("écrire poésie", None)
    assert f("to wrinkle", "à ride")[0] is None
    assert f("processing", "en accusant")[0] is None
    assert f("running water", "eau courante") == ("eau courante", None)
    assert f("rack", "il tourmente")[0] is None
    assert f("Turn on your mind!", "Il allume votre esprit !")[0] is None
    assert f("She is lecturing.", "Il est en train d'enseigner.")[0] is None
    assert f("I felt fine.", "Il sentait du but.")[0] is None
    assert f("I love you.", "Te veux.")[0] is None
    assert f("Did you sleep well?", "dormir bien ?")[0] is None
    assert f("Did you sleep well?", "Dormir bien ?")[0] is None
    assert f("Do you copy?", "Tu copies ?") == ("Tu copies ?", None)
    assert f("Can we go?", "Pouvons-nous aller ?") == ("Pouvons-nous aller ?", None)
    assert f("Do you copy?", "tu copies ?") == ("Tu copies ?", None)
    assert f("It didn't rain.", "il n'a pas plu.") == ("Il n'a pas plu.", None)
    assert f("Certain words should be excluded.", "exclure les mots sûrs.")[0] is None
    assert f("Melendez's Mammoth can pull.", "le mammouth de Melendez peut tirer.") == \
        ("Le mammouth de Melendez peut tirer.", None)
    assert f("Ecuador's history is long.", "l'histoire d'Équateur est longue.")[0] == "L'histoire d'Équateur est longue."
    assert f("PDF document will not be encrypted.", "document de PDF ne sera pas crypté.")[0] is None
    assert f("catholic", "Catholique") == ("Catholique", None)
    assert f("Adriatic Sea", "mer Adriatique") == ("mer Adriatique", None)     # an entry, not a sentence
    for en, fr in (("It is raining.", "Il est en train de pleuvoir."), ("It’s over.", "C'est fini."),
                   ("Does it work?", "Il marche ?"), ("I love you.", "Je te veux."),
                   ("I’m fine.", "J'ai bien."), ("She sings.", "Elle chante."),
                   ("They left.", "Elles sont parties."), ("We won.", "Nous avons gagné."),
                   ("Thank you very much.", "Merci beaucoup.")):
        assert f(en, fr) == (fr, None), en


def test_lost_word():
    assert A.lost_word("Excuse-moi,  parles anglais?") and A.lost_word("Je  pas ainsi")
    assert not A.lost_word(" tu copies?") and not A.lost_word("Je te veux.")


def test_basic_filters():
    assert A.basic_drop_reason("antisocial", "antisocial")          # identical
    assert A.basic_drop_reason("kitchen", "")                       # empty
    assert A.basic_drop_reason("It works well.", "Il marche bien, mais ce n'est pas du tout ce que je voulais dire ici.")
    assert A.basic_drop_reason("kitchen table", "table de cuisine") is None


def test_select_inputs():
    counts = collections.Counter()
    held = {A.D.norm("Good morning!")}
    got = A.select_inputs([("a", ["Good morning", "kitchen", " kitchen ", "", "Press # now"]),
                           ("b", ["kitchen", "Hello %s!", "<npcname> is shocked!", "Is it far?"])],
                          held, counts)
    assert got == [("a", "kitchen"), ("b", "Is it far?")]
    assert counts["input dropped: a dev/test English sentence (normalised) of a corpus"] == 1
    assert counts["input dropped: a repeat (an earlier line or input has it)"] == 2
    assert counts["input dropped: empty"] == 1
    assert counts["input dropped: holds ~ * # @ or a control character"] == 1
    assert counts["input dropped: holds a format specifier or placeholder (%s, %1, {name}, <npcname>)"] == 2


def test_build_with_a_stand_in_translator():
    fwd = {"kitchen table": "table de cuisine", "Where is it?": "Où est-il?", "to write": "pour écrire",
           "Turn left.": "Le tour a laissé.", "unknown word": "**unknown mot", "Berlin": "Berlin",
           "Hello!": "Bonjour!", "I love you.": "Te veux.", "Do you speak English?": "Vous  parlez anglais?"}
    back = {"table de cuisine": "kitchen table", "Où est-il?": "Where is it?", "pour écrire": "to write",
            "Le tour a laissé.": "The turn has left.", "Bonjour!": "Hello!"}
    named = [("s", ["Where is it?", "Turn left.", "Hello!", "I love you.", "Where is it?"]),
             ("w", ["kitchen table", "to write", "unknown word", "Berlin", "Do you speak English?"])]
    pairs, rows, counts, _t = A.build(named, held_en=set(), held_fr={A.D.norm("Bonjour !")}, chunk=2,
                                      log=lambda m: None, forward=fake(fwd), backward=fake(back))
    assert pairs == [("Where is it?", "Où est-il ?"), ("kitchen table", "table de cuisine"), ("to write", "écrire")]
    fate = {r[1]: r[6] for r in rows}
    assert fate["Turn left."].startswith("dropped: round trip")
    assert fate["Hello!"].startswith("dropped: leak")
    assert fate["I love you."].startswith("dropped: form")
    assert fate["unknown word"].startswith("dropped: marks")
    assert fate["Berlin"].startswith("dropped: basic: identical")
    assert fate["Do you speak English?"] == "dropped: form: a word Apertium lost (two spaces inside its output)"
    assert counts["input dropped: a repeat (an earlier line or input has it)"] == 1
    assert counts["kept"] == 3 and counts["translated (English sent to Apertium)"] == 9
    # The same inputs give the same rows (no clock, no randomness).
    again = A.build(named, set(), {A.D.norm("Bonjour !")}, chunk=3, log=lambda m: None,
                    forward=fake(fwd), backward=fake(back))
    assert again[0] == pairs and again[1] == rows


@pytest.mark.skipif(shutil.which("apertium") is None, reason="the apertium command is not installed")
def test_real_pivot_keeps_lines_aligned():
    texts = ["I love you.", "^x$ [a] {b} \\ / <c>", "kitchen table", "Hello world", "to give someone something",
             "The [cat] ate the fish.", "Where is the train station?"]
    fr = A.translate(A.FORWARD, [A.escape(t) for t in texts], chunk=4)
    assert len(fr) == len(texts) and all(x is not None for x in fr)
    fr = [A.unescape(x) for x in fr]
    assert "cuisine" in fr[2] and "gare" in fr[6] and "[" in fr[5] and "^" in fr[1]
    back = A.translate(A.BACKWARD, [A.escape(x) for x in fr], chunk=4)
    assert len(back) == len(texts) and "table" in A.unescape(back[2]) and "station" in A.unescape(back[6])
    # apertium-postchunk 3.8.3 segfaults on this sentence: it is CRASHED, its neighbours whole.
    crash = "The group’s frontman is now venturing on a solo career."
    got = A.translate(A.FORWARD, [A.escape(t) for t in ("Good night.", crash, "Thank you.")])
    assert got[1] is A.CRASHED and "nuit" in got[0] and "Merci" in got[2]
