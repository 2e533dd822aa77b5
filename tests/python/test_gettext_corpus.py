"""The gettext corpus recipe (models/corpus/gettext_corpus.py) on fixtures made here:
.mo parsing (contexts, plurals, header, charsets), normalisation (accelerators,
format specifiers), .deb reading, the split rules, determinism; and, when the real
corpus has been built (runs/gettext-corpus), that no test-package message occurs in train."""
import io
import os
import shutil
import struct
import subprocess
import sys
import tarfile
import lzma
import argparse

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "models", "corpus"))

import gettext_corpus as G  # noqa: E402


def make_mo(entries, charset="UTF-8", big_endian=False):
    """A GNU .mo file from (msgid, msgstr) str pairs (msgfmt's layout, no hash table)."""
    entries = [("", f"Content-Type: text/plain; charset={charset}\nPlural-Forms: nplurals=2; plural=(n > 1);\n")] \
        + list(entries)
    entries.sort(key=lambda e: e[0].encode(charset))
    e = ">" if big_endian else "<"
    n = len(entries)
    ids = [k.encode(charset) for k, _ in entries]
    strs = [v.encode(charset) for _, v in entries]
    o_orig = 28
    o_trans = o_orig + 8 * n
    pos = o_trans + 8 * n
    table_o, table_t, blob = b"", b"", b""
    for s in ids:
        table_o += struct.pack(e + "2I", len(s), pos + len(blob))
        blob += s + b"\0"
    for s in strs:
        table_t += struct.pack(e + "2I", len(s), pos + len(blob))
        blob += s + b"\0"
    return struct.pack(e + "7I", 0x950412DE, 0, n, o_orig, o_trans, 0, 0) + table_o + table_t + blob


def make_deb(path, files):
    """A minimal .deb (ar: debian-binary, control.tar.xz, data.tar.xz) holding `files`
    ({path: bytes}, or {path: ('symlink', target)})."""
    def tar_xz(members):
        buf = io.BytesIO()
        with tarfile.open(fileobj=buf, mode="w", format=tarfile.GNU_FORMAT) as tf:
            for name, data in sorted(members.items()):
                ti = tarfile.TarInfo("./" + name)
                ti.mtime = 0
                if isinstance(data, tuple):
                    ti.type, ti.linkname = tarfile.SYMTYPE, data[1]
                    tf.addfile(ti)
                else:
                    ti.size = len(data)
                    tf.addfile(ti, io.BytesIO(data))
        return lzma.compress(buf.getvalue())

    def member(name, data):
        hdr = f"{name:<16}{0:<12}{0:<6}{0:<6}{'100644':<8}{len(data):<10}`\n".encode("ascii")
        return hdr + data + (b"\n" if len(data) % 2 else b"")

    with open(path, "wb") as f:
        f.write(b"!<arch>\n" + member("debian-binary", b"2.0\n")
                + member("control.tar.xz", tar_xz({"control": b"Package: x\n"}))
                + member("data.tar.xz", tar_xz(files)))


def write_manifest(path, cols, rows):
    """A fixture manifest: a comment line, the header COLS, then one line a row (dicts)."""
    path.write_text("# fixture\n" + "\t".join(cols) + "\n"
                    + "".join("\t".join(r[c] for c in cols) + "\n" for r in rows), encoding="utf-8")


def build_twice(main, cache, manifest, tmp_path, capsys):
    """A recipe's `build` run twice from the same cache, the second against the first as
    --reference: returns the first output folder once the rebuild is byte-identical."""
    outs = []
    for k in range(2):
        out = tmp_path / f"out{k}"
        args = ["build", "--cache", str(cache), "--manifest", str(manifest), "--out", str(out)]
        if k:
            args += ["--reference", str(outs[0])]
        assert main(args) == 0
        outs.append(out)
    log = capsys.readouterr().out
    assert "DIFFERS" not in log and "identical: en-fr/train.en" in log
    assert (outs[0] / "SHA256SUMS").read_bytes() == (outs[1] / "SHA256SUMS").read_bytes()
    return outs[0]


def test_mo_contexts_plurals_header_and_empty_entries():
    mo = make_mo([
        ("Open", "Ouvrir"),
        ("menu\x04Quit", "Quitter"),                       # context dropped
        ("%d file\x00%d files", "%d fichier\x00%d fichiers"),
        ("Untranslated", ""),                              # empty: dropped
        ("translator-credits", "Jean Dupont"),            # credits: dropped
    ])
    got = G.mo_messages(mo)
    assert sorted(got) == sorted([("Open", "Ouvrir"), ("Quit", "Quitter"),
                                  ("%d file", "%d fichier"), ("%d files", "%d fichiers")])
    assert G.mo_messages(make_mo([("Open", "Ouvrir")], big_endian=True)) == [("Open", "Ouvrir")]
    latin = make_mo([("Delete", "Löschen")], charset="ISO-8859-1")
    assert G.mo_messages(latin) == [("Delete", "Löschen")]
    with pytest.raises(G.MoError):
        G.mo_messages(b"\0" * 40)


PO = r'''# French translation.
#, fuzzy
msgid ""
msgstr ""
"Content-Type: text/plain; charset=UTF-8\n"
"Plural-Forms: nplurals=2; plural=(n > 1);\n"

#. a comment
#: src/main.c:12
msgid "Open"
msgstr "Ouvrir"

msgctxt "menu"
msgid "Quit"
msgstr "Quitter"

msgid ""
"A long line that "
"continues.\n"
"Say \"hi\"\tnow\\ \101"
msgstr ""
"Une longue ligne qui "
"continue.\n"
"Dis « salut »\tmaintenant\\ \x41"

#, c-format
msgid "%d file"
msgid_plural "%d files"
msgstr[0] "%d fichier"
msgstr[1] "%d fichiers"

#, fuzzy, c-format
msgid "Close %s"
msgstr "Fermer %s"

msgid "Untranslated"
msgstr ""

#~ msgid "Obsolete"
#~ msgstr "Obsolète"
msgid "Save"
msgstr "Enregistrer"
'''


def test_po_files_parse_like_mo_files():
    data = PO.encode("utf-8")
    entries = G.parse_po(data)
    assert entries[0][0] == b"" and b"charset=UTF-8" in entries[0][1]     # fuzzy header kept
    assert (b"menu\x04Quit", "Quitter".encode()) in entries
    assert (b"%d file\x00%d files", b"%d fichier\x00%d fichiers") in entries
    got = G.po_messages(data)
    assert got == [("Open", "Ouvrir"), ("Quit", "Quitter"),
                   ('A long line that continues.\nSay "hi"\tnow\\ A', "Une longue ligne qui continue.\nDis « salut »\tmaintenant\\ A"),
                   ("%d file", "%d fichier"), ("%d files", "%d fichiers"), ("Save", "Enregistrer")]
    # the same catalog as a .mo gives the same messages (order aside)
    mo = make_mo([(k.decode(), v.decode()) for k, v in entries if k])
    assert sorted(G.mo_messages(mo)) == sorted(got)
    latin = PO.replace("UTF-8", "ISO-8859-1").encode("latin-1", "replace")
    assert ("Open", "Ouvrir") in G.po_messages(latin)
    with pytest.raises(G.MoError):
        G.parse_po(b'msgid "a"\nmsgstr "b"\nnonsense\n')


def test_accelerators_are_stripped_on_both_sides():
    cp = G.clean_pair
    assert cp("_File", "_Fichier") == [("File", "Fichier")]
    assert cp("E_xit", "_Quitter") == [("Exit", "Quitter")]
    assert cp("&Edit", "&Bearbeiten") == [("Edit", "Bearbeiten")]
    assert cp("Save _As…", "Enregistrer _sous…") == [("Save As…", "Enregistrer sous…")]
    assert cp("Quit", "_Quitter") == [("Quit", "Quitter")]             # a marker the English lacks
    assert cp("&Yes &No &Cancel", "&Oui &Non &Annuler") == [("Yes No Cancel", "Oui Non Annuler")]
    assert cp("/M_ultidata/Apply _Neural Network", "/M_ultidonnées/Appliquer un réseau _neuronal") == [
        ("/Multidata/Apply Neural Network", "/Multidonnées/Appliquer un réseau neuronal")]
    assert cp("_Zoom to fit", "_Zoom ajusté") == [("Zoom to fit", "Zoom ajusté")]
    assert cp("_Open", "Ouvrir") == [("Open", "Ouvrir")]               # a marker the translator dropped
    # names are not markers: LC_ALL on both sides, a literal &&, an entity, " & "
    assert cp("Set LC_ALL first", "Définir LC_ALL d'abord") == [("Set LC_ALL first", "Définir LC_ALL d'abord")]
    assert cp("Link _sym to _sym@nn", "Lier _sym à _sym@nn") == [("Link _sym to _sym@nn", "Lier _sym à _sym@nn")]
    assert cp("(c) 1999, AT&T Laboratories", "(c) 1999, Laboratoires AT&T") == [
        ("(c) 1999, AT&T Laboratories", "(c) 1999, Laboratoires AT&T")]
    assert cp("Drag && Drop", "Glisser && déposer") == [("Drag && Drop", "Glisser && déposer")]
    assert cp("Tom &amp; Jerry show", "Le show Tom &amp; Jerry") == [("Tom &amp; Jerry show", "Le show Tom &amp; Jerry")]
    assert cp("Search & replace", "Rechercher & remplacer") == [("Search & replace", "Rechercher & remplacer")]


def test_format_specifiers_kept_and_checked():
    cp = G.clean_pair
    assert cp("Copied %d of %s", "%2$s : %1$d copiés") == [("Copied %d of %s", "%2$s : %1$d copiés")]
    assert cp("Page %1 of %2", "Seite %1 von %2") == [("Page %1 of %2", "Seite %1 von %2")]
    assert cp("Hello {name}", "Bonjour {name}") == [("Hello {name}", "Bonjour {name}")]
    assert cp("%(count)s items", "%(count)s éléments") == [("%(count)s items", "%(count)s éléments")]
    assert cp("100% done", "terminé à 100 %") == [("100% done", "terminé à 100 %")]
    assert cp("Copied %d files", "Fichiers copiés") == []                  # a specifier lost: dropped
    assert cp("Name: %s", "Nom : %d") == []                                # a different one: dropped


def test_identical_whitespace_and_paragraphs():
    cp = G.clean_pair
    assert cp("OK", "OK") == []
    assert cp("1:16", "1:16") == []
    assert cp("  Line one\n  continued\n", "Ligne un\nsuite") == [("Line one continued", "Ligne un suite")]
    assert cp("First part.\n\nSecond part.", "Première partie.\n\nDeuxième partie.") == [
        ("First part.", "Première partie."), ("Second part.", "Deuxième partie.")]


def test_deb_reading_follows_symlinks(tmp_path):
    fr = make_mo([("Open", "Ouvrir")])
    p = str(tmp_path / "a.deb")
    make_deb(p, {"usr/share/locale/fr/LC_MESSAGES/app.mo": fr,
                 "usr/share/locale/de/LC_MESSAGES/app.mo": ("symlink", "../../fr/LC_MESSAGES/app.mo"),
                 "usr/share/locale/fr/LC_MESSAGES/other.txt": b"x",
                 "usr/share/doc/app/README": b"y"})
    got = G.deb_mo_files(p)
    assert sorted(got) == [("de", "app"), ("fr", "app")] and got[("fr", "app")] == fr


def _split_names():
    """Source package names that land in each split."""
    names = {}
    i = 0
    while len(names) < 3:
        n = f"pkg{i}"
        names.setdefault(G.split_of(n), n)
        i += 1
    return names


def test_split_rules():
    n = _split_names()
    cats = {
        n["train"]: [("Open", "Ouvrir"), ("Close", "Fermer"), ("Close", "Clore"), ("Leak", "Fuite")],
        n["dev"]: [("Open", "Ouvrir"), ("Dev only", "Dev seulement")],
        n["test"]: [("Close", "Fermer"), ("Dev only", "Dev seul"), ("Test only", "Test A"),
                    ("Test only", "Test B"), ("In DDTP train", "x y")],
    }
    out, _ = G.build_splits(cats, other_train={"In DDTP train"}, other_held={"Fuite"})
    assert out["train"] == [("Close", "Clore"), ("Close", "Fermer"), ("Open", "Ouvrir")]   # "Leak" held out
    assert out["dev"] == [("Dev only", "Dev seulement")]                                    # "Open" is train's
    assert out["test"] == [("Test only", "Test A")]        # one reference; dev's and DDTP train's removed
    train = {x for x, _ in out["train"]}
    assert not any(x in train for x, _ in out["test"] + out["dev"])


def test_build_is_deterministic_and_leak_free(tmp_path):
    n = _split_names()
    cache = tmp_path / "cache"
    cache.mkdir()
    rows = []
    msgs = {
        "train": [("Open", "Ouvrir"), ("_Save", "_Enregistrer"), ("%d file\x00%d files", "%d fichier\x00%d fichiers")],
        "dev": [("Open", "Ouvrir"), ("Reload", "Recharger")],
        "test": [("Save", "Enregistrer"), ("Print preview", "Aperçu avant impression")],
    }
    for sp, src in n.items():
        r = dict(package=src + "-bin", version="1:1.0-1", architecture="amd64", source=src, size="0",
                 sha256="0", languages="de,fr")
        make_deb(str(cache / G.deb_name(r)), {
            f"usr/share/locale/fr/LC_MESSAGES/{src}.mo": make_mo(msgs[sp]),
            f"usr/share/locale/de/LC_MESSAGES/{src}.mo": make_mo([(a, b + " (de)") for a, b in msgs[sp]])})
        rows.append(r)
    manifest = tmp_path / "manifest.tsv"
    cols = ["package", "version", "architecture", "source", "size", "sha256", "languages"]
    write_manifest(manifest, cols, rows)
    outs = []
    for k in range(2):
        out = tmp_path / f"out{k}"
        G.cmd_build(argparse.Namespace(manifest=str(manifest), cache=str(cache), out=str(out), ddtp=None))
        outs.append(out)
    files = sorted(G._corpus_files(str(outs[0])))
    assert "en-fr/train.fr" in files and "en-de/test.de" in files and "packages.tsv" in files
    assert G.compare(str(outs[1]), str(outs[0])) == 0
    assert (outs[0] / "en-fr" / "train.en").read_text() == "%d file\n%d files\nOpen\nSave\n"
    assert (outs[0] / "en-fr" / "dev.en").read_text() == "Reload\n"
    assert (outs[0] / "en-fr" / "test.en").read_text() == "Print preview\n"     # "Save" is train's
    for lang in ("fr", "de"):
        assert G.check_no_leak(str(outs[0]), lang) == []


BUILT = os.path.join(ROOT, "runs", "gettext-corpus")


@pytest.mark.skipif(not os.path.isfile(os.path.join(BUILT, "en-fr", "test.en")),
                    reason="the gettext corpus is not built here (models/corpus/README.md)")
@pytest.mark.parametrize("lang", ["fr", "de"])
def test_built_corpus_has_no_test_message_in_train(lang):
    combined = os.path.join(BUILT, "combined", f"en-{lang}")
    extra = [combined] if os.path.isdir(combined) else []
    assert G.check_no_leak(BUILT, lang, extra) == []


def test_licence_of_copyright_files():
    dep5 = ("Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/\nUpstream-Name: x\n\n"
            "Files: *\nCopyright: 2020 A\nLicense: GPL-3+\n\nFiles: lib/*\nCopyright: 2020 B\nLicense: LGPL-2.1+\n\n"
            "License: GPL-3+\n This program is free software\n")
    assert G.licence_of(dep5) == ("GPL-3+", ["GPL-3+", "LGPL-2.1+"])
    assert G.family("GPL-3+") == "GPL" and G.family("LGPL-2.1+") == "LGPL" and G.family("Expat") == "MIT/X11"
    assert G.family("BSD-3-clause or GPL-2") == "BSD" and G.family("Zlib") == "other"
    free = "Copyright 1999 X.\n\nThis library is under the GNU Lesser General Public License; parts are BSD."
    assert G.licence_of(free) == ("free-form: LGPL", ["BSD", "LGPL"])


@pytest.mark.skipif(shutil.which("lz4") is None, reason="no lz4 command (Debian's lz4; the recipes' select needs it)")
def test_packages_fields_reads_the_wanted_packages_from_the_index(tmp_path, monkeypatch):
    index = ("Package: a\nVersion: 1.0\nSize: 10\nDescription: first line\n more text: not a field\n\n"
             "Package: b\nVersion: 2.0\nSource: bsrc (1.0)\n\n"
             "Package: c\nVersion: 3.0\n")
    plain = tmp_path / "plain"
    plain.write_text(index, encoding="utf-8")
    lists = tmp_path / "lists"
    lists.mkdir()
    subprocess.run(["lz4", "-q", str(plain), str(lists / "x_debian_dists_bookworm_main_binary-amd64_Packages.lz4")],
                   check=True)
    monkeypatch.setattr(G, "LISTS", str(lists))
    got = G.packages_fields({"a", "b", "missing"})
    assert got == {"a": {"Package": "a", "Version": "1.0", "Size": "10", "Description": "first line"},
                   "b": {"Package": "b", "Version": "2.0", "Source": "bsrc (1.0)"}}
