"""The game and application dialogue recipe (models/corpus/dialogue_corpus.py) on fixtures
made here: which catalog paths it reads, the normalisation (context prefixes, LibreOffice's
"~", markup, hotkeys, sentences, placeholders) and the dialogue filter, the split and leak
rules (normalised English), the licence rows, and a whole build from .deb files written
here (twice: byte-identical) with a planted leak the check must catch."""
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "models", "corpus"))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import dialogue_corpus as C  # noqa: E402
from test_gettext_corpus import build_twice, make_deb, make_mo, write_manifest  # noqa: E402


def test_catalog_paths():
    co = C.catalog_of
    assert co("usr/share/games/wesnoth/1.16/locale/fr/LC_MESSAGES/wesnoth-httt.mo") == (
        "fr", "usr/share/games/wesnoth/1.16/locale/LANG/LC_MESSAGES/wesnoth-httt.mo", "wesnoth-httt")
    assert co("usr/share/games/supertux2/levels/world1/de.po")[::2] == ("de", "world1")
    assert co("usr/share/games/supertux2/locale/fr.po")[::2] == ("fr", "supertux2")
    assert co("usr/share/games/boswars/languages/bos-fr.po")[::2] == ("fr", "bos")
    assert co("usr/share/games/flare/mods/default/languages/engine.de.po")[::2] == ("de", "engine")
    assert co("usr/share/games/0ad/l10n/fr.engine.po")[::2] == ("fr", "engine")
    assert co("usr/lib/python3/dist-packages/singularity/i18n/lang_de_DE/story.po")[::2] == ("de", "story")
    for other in ("usr/share/games/supertuxkart/data/po/fr_CA.po", "usr/share/locale/frp/LC_MESSAGES/x.mo",
                  "usr/share/locale/de_CH/LC_MESSAGES/x.mo", "usr/share/games/x/po/code.po",
                  "usr/share/locale/fr/LC_MESSAGES/x.txt"):
        assert co(other) is None
    # the gettext recipe's catalogs (usr/share/locale/{fr,de}) of the packages it reads are left to it
    covered = {"gnome-mines"}
    assert C.wanted_catalog("gnome-mines", "usr/share/locale/fr/LC_MESSAGES/gnome-mines.mo", covered) is None
    assert C.wanted_catalog("freedroidrpg-data", "usr/share/locale/fr/LC_MESSAGES/freedroidrpg.mo", covered)


def test_normalisation_and_dialogue_filter():
    cp = lambda x, y, m="game:x": C.clean_pair(x, y, m)  # noqa: E731
    assert cp("?plural:Guineans", "Guinéens") == [("Guineans", "Guinéens")]
    assert cp("editor^Castle Overlays", "Surcouches de château") == [("Castle Overlays", "Surcouches de château")]
    assert cp("All ~Pages", "Toutes les ~pages", "libreoffice:sw") == [("All Pages", "Toutes les pages")]
    assert cp("[b]I will not let you pass.[/b]", "[b]Je ne vous laisserai pas passer.[/b]") == [
        ("I will not let you pass.", "Je ne vous laisserai pas passer.")]
    assert cp("This food is <neutral>perishable</neutral>, sadly.", "Cet aliment est <neutral>périssable</neutral>, hélas.") == [
        ("This food is perishable, sadly.", "Cet aliment est périssable, hélas.")]
    assert cp("<C>ompare items", "<C>omparer les objets") == [("Compare items", "Comparer les objets")]
    assert cp("Play <N|n>ow!", "Jouer <M|m>aintenant !") == [("Play now!", "Jouer maintenant !")]
    assert cp("<bold>text='Advanced'</bold>", "<bold>text='Avancé'</bold>") == [("Advanced", "Avancé")]
    # sentences paired when both sides have as many, kept whole otherwise
    assert cp("Orcs are coming! To arms!", "Les orcs arrivent ! Aux armes !") == [
        ("Orcs are coming!", "Les orcs arrivent !"), ("To arms!", "Aux armes !")]
    assert len(cp("Run. Now!", "Cours maintenant !")) == 1
    # placeholders kept, and they must match
    assert cp("$unit.name| feels stronger.", "$unit.name se sent plus fort.") == [
        ("$unit.name| feels stronger.", "$unit.name se sent plus fort.")]
    assert cp("<npcname> dodges the shot!", "<npcname> esquive le tir !") == [
        ("<npcname> dodges the shot!", "<npcname> esquive le tir !")]
    assert cp("$name is here.", "Il est ici.") == []
    assert cp("%s was killed.", "Il a été tué.") == []
    # code, file names, paths, URLs, key names, single identifiers
    for x in ("players=%d cities=%d", "if (a == b) stop", "getentropy() failed", "Run ./follow_me.sh now",
              "Saved to save.sav", "see /usr/share/doc", "visit www.example.org", "Ctrl+Shift+S", "Left Shift",
              "F12", "Num Lock", "movement_speed", "HideKB", "mp3", "HP"):
        assert C.rejected(x), x
    for x in ("Left leg", "Right here.", "Help", "Food and gold:", "Where are you going?", "APRICOT",
              "Tom & Jerry", "<npcname> stands up."):
        assert C.rejected(x) is None, x
    assert C.heldout_ok("I smell death and decay.")
    assert not C.heldout_ok("Spearman") and not C.heldout_ok("Your %s is ready.")
    assert C.norm_en("Don’t go, Konrad!") == C.norm_en("don’t go konrad")


def test_splits_and_leaks(monkeypatch):
    split = {"g:train": "train", "g:dev": "dev", "g:test": "test"}
    monkeypatch.setattr(C, "split_of", lambda m: split[m])
    mods = {"g:train": [("We must go now!", "Nous devons partir !"), ("Train only here.", "Seulement ici."),
                        ("Held by DDTP.", "x"), ("Hello, how are you?", "Salut, ça va ?"), ("Yes", "Oui"),
                        ("I smell death and decay!", "Je sens la mort !")],
            "g:dev": [("We must go now.", "Nous devons y aller."), ("Dev line is here.", "Ligne un."),
                      ("Dev line is here.", "Ligne 1."), ("Dev line is here.", "Ligne 1."), ("Short one", "Court")],
            "g:test": [("I smell death and decay.", "Je sens la mort et la pourriture."), ("Dev line is here!", "x"),
                       ("Seen in DDTP train.", "Vu."), ("Yes", "Oui"), ("The $name is here.", "Le $name est là.")]}
    everyday = {"Hello, how are you?", "Bonjour, comment allez-vous ?", C.norm_en("Hello, how are you?")}
    out, stats, per = C.build_splits(mods, other_train={"Seen in DDTP train."}, other_held={"Held by DDTP."},
                                     everyday=everyday)
    # dev/test English (normalised) is out of train; other corpora's held-out and everyday sentences too
    assert out["train"] == [("Train only here.", "Seulement ici."), ("Yes", "Oui")]
    assert out["dev"] == [("Dev line is here.", "Ligne 1."), ("We must go now.", "Nous devons y aller.")]
    assert out["test"] == [("I smell death and decay.", "Je sens la mort et la pourriture.")]
    assert stats["test: English dropped (also in dev)"] == 1
    assert stats["test: pairs under 3 words or with placeholders (dropped)"] == 2
    assert per["g:train"]["train"] == 2 and per["g:test"]["test"] == 1


COPYRIGHT = b"""Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/

Files: *
Copyright: 2020 Someone
License: GPL-2+

Files: po/*
Copyright: 2020 Translators
License: CC-BY-SA-3.0
"""

PO_FR = """msgid ""
msgstr "Content-Type: text/plain; charset=UTF-8\\n"

msgid "Where is the castle?"
msgstr "Où est le château ?"

#, fuzzy
msgid "Old line."
msgstr "Vieille ligne."
"""


def _fixture(tmp_path):
    cache = tmp_path / "cache"
    cache.mkdir()
    rows = []

    def add(pkg, source, files):
        r = dict(package=pkg, version="1.0", architecture="all", source=source, languages="de,fr", catalogs="2")
        make_deb(str(cache / C.G.deb_name(r)), files)
        r["size"] = str(os.path.getsize(cache / C.G.deb_name(r)))
        r["sha256"] = C.R.sha256_file(str(cache / C.G.deb_name(r)))
        rows.append(r)
    loc = "usr/share/games/quest/locale/{}/LC_MESSAGES/{}.mo"
    story = [("Welcome to our island.", "Bienvenue sur notre île."), ("Go away, thief!", "Va-t'en, voleur !"),
             ("We must go now.", "Nous devons partir."), ("Save", "Enregistrer")]
    story_de = [("Welcome to our island.", "Willkommen auf unserer Insel."), ("We must go now.", "Wir müssen gehen.")]
    add("quest-data", "quest", {loc.format("fr", "quest-story"): make_mo(story),
                                loc.format("de", "quest-story"): make_mo(story_de),
                                loc.format("fr", "quest-ui"): make_mo([("We must go now!", "Il faut partir !"),
                                                                       ("Open the door", "Ouvrir la porte")]),
                                "usr/share/doc/quest-data/copyright": COPYRIGHT})
    add("tale-data", "tale", {"usr/share/games/tale/po/fr.po": PO_FR.encode(),
                              "usr/share/games/tale/po/de.po": PO_FR.replace("Où est le château ?", "Wo ist die Burg?").encode()})
    manifest = tmp_path / "manifest.tsv"
    cols = ["package", "version", "architecture", "source", "size", "sha256", "languages", "catalogs"]
    write_manifest(manifest, cols, rows)
    return cache, manifest


def test_build_from_debs_is_deterministic_and_leak_free(tmp_path, capsys, monkeypatch):
    cache, manifest = _fixture(tmp_path)
    monkeypatch.setattr(C, "HELD_OUT", {"quest:quest-story": "test", "tale:tale": "dev", "quest:quest-ui": "train"})
    out = build_twice(C.main, cache, manifest, tmp_path, capsys)
    d = out / "en-fr"
    assert (d / "test.en").read_text().splitlines() == ["Go away, thief!", "We must go now.", "Welcome to our island."]
    assert (d / "dev.fr").read_text().splitlines() == ["Où est le château ?"]          # the fuzzy entry left out
    assert (d / "train.en").read_text().splitlines() == ["Open the door"]              # "We must go now!" is test's
    assert (out / "en-de" / "test.de").read_text().splitlines() == ["Wir müssen gehen.", "Willkommen auf unserer Insel."]
    assert C.main(["check", "--out", str(out)]) == 0
    (d / "train.en").write_text("welcome to our island\n")                              # a planted leak
    assert C.main(["check", "--out", str(out)]) == 1
    # licences: appended once, with the catalogs' own licence
    lic = tmp_path / "licences.tsv"
    head = "source\tpackage\tversion\tlicence\tstated_in"
    lic.write_text(head + "\nding\tding\t1.0\tGPL-2+\tits copyright file\n", encoding="utf-8")
    for _ in range(2):
        assert C.main(["licences", "--cache", str(cache), "--manifest", str(manifest), "--licences", str(lic)]) == 0
    lines = lic.read_text(encoding="utf-8").splitlines()
    assert lines[:2] == [head, "ding\tding\t1.0\tGPL-2+\tits copyright file"]
    assert lines[2:] == ["dialogue: quest\tquest-data\t1.0\tGPL-2+; catalogs: CC-BY-SA-3.0\tusr/share/doc/quest-data/"
                         "copyright (DEP-5 Files: *; the paragraphs whose Files: name the catalogs)",
                         "dialogue: tale\ttale-data\t1.0\tnot stated\tno copyright file in these packages"]
