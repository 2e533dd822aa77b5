"""The documentation corpus recipe (models/corpus/docs_corpus.py) on fixtures made here:
LibreOffice-style HTML (paragraph ids, system switches, code), Mallard and DocBook
(blocks, key and menu sequences, metadata, entities, KDE's per-language entities), the
alignment (equal structure, Gale-Church where it differs), cleaning, the split
and leak rules, a whole build from .deb files written here (twice: byte-identical), and
the everyday sentences file. The rebuild of the real corpus is tests/corpus (label corpus)."""
import os
import sys


ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "models", "corpus"))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import docs_corpus as D  # noqa: E402
from test_gettext_corpus import build_twice, make_deb, write_manifest  # noqa: E402  (a minimal .deb, a recipe built twice)


LO_EN = """<html><head><title>x</title><script>var a = "<p>";</script></head><body>
<p id="par_id1" class="paragraph">Press <span class="switchinline"><span hidden="true" id="MACx_1" class="MAC">Command</span><span hidden="true" id="defaultx_1">Ctrl</span></span>+C to copy.</p>
<div class="bascode"><p id="par_id9">Sub Main</p></div>
<h1 id="hd_id2">Counting <a href="y.html">Words</a></h1>
<p id="par_id3">Untranslated.</p>
<p id="par_id4">Only here.</p>
<p>No id.</p>
</body></html>"""
LO_FR = """<html><body>
<h1 id="hd_id2">Compter les mots</h1>
<p id="par_id1" class="paragraph">Appuyez sur <span class="switchinline"><span hidden="true" id="MACx_1" class="MAC">Commande</span><span hidden="true" id="defaultx_1">Ctrl</span></span>+C pour copier.</p>
<div class="bascode"><p id="par_id9">Sub Main</p></div>
<p id="par_id3">Untranslated.</p>
</body></html>"""


def test_libreoffice_html_by_id():
    en, fr = D.html_units(LO_EN), D.html_units(LO_FR)
    pairs = D.align_by_id(en, fr)
    # English order; the Mac case and the Basic code dropped; links keep their text
    assert pairs[0] == ("Press Ctrl+C to copy.", "Appuyez sur Ctrl+C pour copier.")
    assert ("Counting Words", "Compter les mots") in pairs
    assert all("Sub Main" not in a for a, _ in pairs)
    assert not any(a.startswith("Only") for a, _ in pairs)
    # identical sides (untranslated) are dropped by the cleaning
    assert D.clean_pair("Untranslated.", "Untranslated.") == []


MALLARD_EN = b"""<?xml version="1.0" encoding="utf-8"?>
<page xmlns="http://projectmallard.org/1.0/" type="topic" id="copy">
  <info>
    <link type="guide" xref="index"/>
    <credit type="author"><name>Someone</name></credit>
    <desc>Copy text between applications.</desc>
  </info>
  <title>Copy and paste</title>
  <p>Press <keyseq><key>Ctrl</key><key>C</key></keyseq> to copy the selection.</p>
  <p>Choose <guiseq><gui>Edit</gui> <gui>Preferences</gui></guiseq>.</p>
  <p>See <link xref="paste"/>.</p>
  <screen>cp a b</screen>
  <list><item><p>First item.</p></item></list>
</page>"""
MALLARD_FR = """<?xml version="1.0" encoding="utf-8"?>
<page xmlns="http://projectmallard.org/1.0/" xmlns:mal="http://projectmallard.org/1.0/" type="topic" id="copy">
  <info>
    <link type="guide" xref="index"/>
    <credit type="author"><name>Someone</name></credit>
    <desc>Copier du texte entre applications.</desc>
    <mal:credit type="translator copyright"><mal:name>Traducteur</mal:name></mal:credit>
  </info>
  <title>Copier et coller</title>
  <p>Appuyez sur <keyseq><key>Ctrl</key><key>C</key></keyseq> pour copier la sélection.</p>
  <p>Choisissez <guiseq><gui>Édition</gui><gui>Préférences</gui></guiseq>.</p>
  <p>Voir <link xref="paste"/>.</p>
  <screen>cp a b</screen>
  <list><item><p>Premier élément.</p></item></list>
</page>""".encode("utf-8")


def test_mallard_units_and_alignment():
    en, fr = D.xml_units(MALLARD_EN), D.xml_units(MALLARD_FR)
    assert [t for t, _ in en] == ["desc", "title", "p", "p", "p", "p"]
    pairs = [p for x, y in D.align_sequences(en, fr) for p in D.clean_pair(x, y)]
    assert pairs == [("Copy text between applications.", "Copier du texte entre applications."),
                     ("Copy and paste", "Copier et coller"),
                     ("Press Ctrl+C to copy the selection.", "Appuyez sur Ctrl+C pour copier la sélection."),
                     ("Choose Edit ▸ Preferences.", "Choisissez Édition ▸ Préférences."),
                     ("First item.", "Premier élément.")]   # the unit with an empty <link> is dropped


DOCBOOK = b"""<?xml version="1.0"?>
<!-- <!DOCTYPE book [ <!ENTITY commented "no"> ]> -->
<!DOCTYPE article PUBLIC "-//OASIS//DTD DocBook XML V4.1.2//EN" "docbookx.dtd" [
  <!ENTITY app "<application>Gnome Chess</application>">
  <!ENTITY legal SYSTEM "legal.xml">
]>
<article><articleinfo><title>Manual</title>&legal;</articleinfo>
<sect1><title>Using &app;</title>
<para>The caf&eacute; &mdash; menu <menuchoice><shortcut><keycombo><keycap>Ctrl</keycap><keycap>N</keycap></keycombo></shortcut><guimenu>Game</guimenu><guimenuitem>New</guimenuitem></menuchoice> &amp; more.
<itemizedlist><listitem><para>Nested.</para></listitem></itemizedlist></para>
<programlisting>int main() {}</programlisting>
</sect1></article>"""


def test_docbook_entities_and_nesting():
    units = D.xml_units(DOCBOOK)
    assert units[0] == ("title", "Using Gnome Chess")
    assert D.clean(units[1][1]) == "The café — menu Game ▸ New (Ctrl+N) & more."
    assert units[2] == ("para", "Nested.")
    assert len(units) == 3          # articleinfo and the program listing skipped


def test_align_sequences_mismatch_keeps_equal_stretches():
    a = [("title", "A"), ("p", "b"), ("p", "c"), ("p", "d")]
    b = [("title", "A'"), ("p", "b'"), ("note", "x"), ("td", "y")]
    assert D.align_sequences(a, b) == [("A", "A'"), ("b", "b'")]


def test_align_sequences_gale_church():
    a = [("title", "Settings"), ("p", "Short one."),
         ("p", "A much longer paragraph about many different things that the program can do for you."),
         ("p", "A paragraph of middle size here."), ("p", "The end.")]
    b = [("title", "Réglages"), ("p", "Un court."), ("p", "Un paragraphe de taille moyenne ici."), ("p", "La fin.")]
    # the long paragraph has no translation: the lengths put the others in step
    assert D.align_sequences(a, b) == [("Settings", "Réglages"), ("Short one.", "Un court."),
                                       ("A paragraph of middle size here.", "Un paragraphe de taille moyenne ici."),
                                       ("The end.", "La fin.")]
    # far out of step (an out-of-date translation): nothing
    a2 = [("p", f"English paragraph number {k} with some words.") for k in range(40)]
    b2 = [("p", "Traduction.")] * 20 + [("title", "Titre")] * 10
    assert D.align_sequences(a2, b2) == []


KDE_EN = b"""<?xml version="1.0" ?>
<!DOCTYPE book PUBLIC "-//KDE//DTD DocBook XML V4.5-Based Variant V1.1//EN" "dtd/kdedbx45.dtd" [
  <!ENTITY kappname "&kate;">
  <!ENTITY % addindex "IGNORE">
  <!ENTITY % English "INCLUDE">
]>
<book><bookinfo><title>The &kappname; Handbook</title><legalnotice>&FDLNotice;</legalnotice></bookinfo>
<chapter><title>Saving</title>
<para>Press <keycombo action="simul">&Ctrl;<keycap>S</keycap></keycombo> to save in &kate;.</para>
<para>&underFDL;</para>
</chapter></book>"""
KDE_DE = """<?xml version="1.0" ?>
<!DOCTYPE book PUBLIC "-//KDE//DTD DocBook XML V4.5-Based Variant V1.1//EN" "dtd/kdedbx45.dtd" [
  <!ENTITY kappname "&kate;">
  <!ENTITY % German "INCLUDE">
]>
<book><bookinfo><title>Das Handbuch zu &kappname;</title><legalnotice>&FDLNotice;</legalnotice></bookinfo>
<chapter><title>Speichern</title>
<para>Drücken Sie <keycombo action="simul">&Ctrl;<keycap>S</keycap></keycombo>, um in &kate; zu speichern.</para>
<para>&underFDL;</para>
</chapter></book>""".encode("utf-8")


def test_kde_entities_per_language():
    ents = {"en": {"kate": "<application>Kate</application>", "Ctrl": "<keycap>Ctrl</keycap>"},
            "de": {"kate": "<application>Kate</application>", "Ctrl": "<keycap>Strg</keycap>"}}
    en, de = D.xml_units(KDE_EN, ents["en"]), D.xml_units(KDE_DE, ents["de"])
    pairs = [p for x, y in D.align_sequences(en, de) for p in D.clean_pair(x, y)]
    assert pairs == [("Saving", "Speichern"),
                     ("Press Ctrl+S to save in Kate.", "Drücken Sie Strg+S, um in Kate zu speichern.")]
    # the unit made of an unknown external entity (&underFDL;) is dropped, not paired empty
    assert any(D.UNKNOWN in t for _, t in en)


def test_clean_pair_sentences_and_limits():
    assert D.clean_pair("One\u00a0two.  Three four.", "Un deux. Trois quatre.") == [
        ("One two.", "Un deux."), ("Three four.", "Trois quatre.")]
    # different sentence counts: kept whole
    assert D.clean_pair("One two. Three four.", "Un deux, trois quatre.") == [
        ("One two. Three four.", "Un deux, trois quatre.")]
    assert D.clean_pair("x " * 81, "y " * 81) == []                         # too long
    assert D.clean_pair("A short one", "Une traduction beaucoup beaucoup trop longue pour lui") == []  # ratio > 3
    assert D.clean_pair("12 34", "12 34") == []
    assert D.clean("soft\u00adhyphen\u200b") == "softhyphen"


def test_splits_and_leaks(monkeypatch):
    split = {"m:train": "train", "m:dev": "dev", "m:test": "test"}
    monkeypatch.setattr(D, "split_of", lambda m: split[m])
    mods = {"m:train": [("Shared.", "Partagé."), ("Train only.", "Entraînement."), ("Held.", "DDTP test.")],
            "m:dev": [("Shared.", "Partagé !"), ("Dev one.", "Dev un."), ("Dev one.", "Dev 1."), ("Dev one.", "Dev 1.")],
            "m:test": [("Test one.", "Test un."), ("Dev one.", "x"), ("Seen in DDTP train.", "Vu.")]}
    out, stats = D.build_splits(mods, other_train={"Seen in DDTP train."}, other_held={"DDTP test."})
    assert out["train"] == [("Shared.", "Partagé."), ("Train only.", "Entraînement.")]
    assert out["dev"] == [("Dev one.", "Dev 1.")]          # the most frequent reference
    assert out["test"] == [("Test one.", "Test un.")]
    assert stats["train pairs dropped (other corpora's dev/test, everyday set)"] == 1


def _fixture(tmp_path):
    cache = tmp_path / "cache"
    cache.mkdir()
    rows = []

    def add(pkg, source, kind, files):
        r = dict(package=pkg, version="1.0", architecture="all", source=source, kind=kind, docs="-")
        make_deb(str(cache / D.G.deb_name(r)), files)
        r["size"] = str(os.path.getsize(cache / D.G.deb_name(r)))
        r["sha256"] = D.R.sha256_file(str(cache / D.G.deb_name(r)))
        rows.append(r)
    lo = "usr/share/libreoffice/help/{}/text/swriter/guide/a.html"
    add("libreoffice-help-en-us", "libreoffice", "libreoffice", {lo.format("en-US"): LO_EN.encode()})
    add("libreoffice-help-fr", "libreoffice", "libreoffice", {lo.format("fr"): LO_FR.encode()})
    add("libreoffice-help-de", "libreoffice", "libreoffice",
        {lo.format("de"): LO_FR.replace("Appuyez sur", "Drücken Sie").replace("pour copier", "zum Kopieren").encode()})
    dr = "usr/share/debian-reference/ch01.{}.html"
    add("debian-reference-en", "debian-reference", "debian-reference",
        {dr.format("en"): b"<p>The Debian system is stable.</p><td>apt</td>"})
    add("debian-reference-fr", "debian-reference", "debian-reference",
        {dr.format("fr"): "<p>Le système Debian est stable.</p><td>apt</td>".encode()})
    add("debian-reference-de", "debian-reference", "debian-reference",
        {dr.format("de"): "<p>Das Debian-System ist stabil.</p><td>apt</td>".encode()})
    add("gedit-common", "gedit", "help", {"usr/share/help/C/gedit/copy.page": MALLARD_EN,
                                          "usr/share/help/fr/gedit/copy.page": MALLARD_FR})
    kd = "usr/share/kf5/kdoctools/customization/"
    add("kdoctools5", "kdoctools", "kdoctools",
        {kd + "entities/general.entities": b'<!ENTITY kate\t"<application>Kate</application>">\n',
         kd + "en/user.entities": b'<!ENTITY Ctrl "<keycap>Ctrl</keycap>">\n',
         kd + "de/user.entities": b'<!-- c --><!ENTITY Ctrl "<keycap>Strg</keycap>">\n'})
    add("kate5-data", "kate", "kde", {"usr/share/doc/HTML/en/kate/index.docbook": KDE_EN,
                                      "usr/share/doc/HTML/de/kate/index.docbook": KDE_DE})
    manifest = tmp_path / "manifest.tsv"
    cols = ["package", "version", "architecture", "source", "size", "sha256", "kind", "docs"]
    write_manifest(manifest, cols, rows)
    return cache, manifest


def test_build_from_debs_is_deterministic_and_leak_free(tmp_path, capsys):
    cache, manifest = _fixture(tmp_path)
    out = build_twice(D.main, cache, manifest, tmp_path, capsys)
    assert D.main(["check", "--out", str(out), "--manifest", str(manifest), "--cache", str(cache)]) == 0
    every = [l for sp in ("train", "dev", "test") for l in (out / "en-fr" / f"{sp}.en").read_text().splitlines()]
    assert "The Debian system is stable." in every and "Press Ctrl+C to copy." in every
    assert "Copy and paste" in every
    every_de = [l for sp in ("train", "dev", "test") for l in (out / "en-de" / f"{sp}.de").read_text().splitlines()]
    assert "Drücken Sie Strg+S, um in Kate zu speichern." in every_de
    # a planted leak is found: a train sentence in test
    d = out / "en-fr"
    first = (d / "train.en").read_text().splitlines()[0]
    (d / "test.en").write_text((d / "test.en").read_text() + first + "\n")
    (d / "test.fr").write_text((d / "test.fr").read_text() + "x\n")
    assert D.main(["check", "--out", str(out), "--manifest", str(manifest)]) == 1


def test_everyday_sentences():
    rows = D.read_everyday()
    assert 20 <= len(rows) <= 40
    assert all(len(r) == 3 and all(x.strip() == x and x for x in r) for r in rows)
    assert len({r[0] for r in rows}) == len(rows)
