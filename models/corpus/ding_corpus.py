#!/usr/bin/env python3
"""English→German everyday sentences and word/phrase pairs from the Ding dictionary
(Debian package trans-de-en, GPL-2+; the file usr/share/trans/de-en, lines
`German :: English`).

One command does everything (README.md beside this file):

  python3 models/corpus/ding_corpus.py all --cache runs/ding-cache --out runs/ding-corpus \
      [--ddtp ../shared/data/ddtp] [--reference OLD_OUT] [--sha256 models/corpus/ding-corpus.sha256]

Steps (each is also a subcommand):
  select    `apt-cache show trans-de-en` (bookworm/main) -> the manifest ding-packages.tsv
            beside this file (package, version, architecture, source, size, SHA-256).
            Only needed to refresh the committed manifest; `all` uses the committed one.
  download  `apt-get download PKG=VERSION` when the cache lacks the .deb, then its
            SHA-256 against the manifest (gettext_corpus.cmd_download).
  build     reads usr/share/trans/de-en straight out of the .deb (stdlib only), parses
            each line (parse_line), sorts the pairs into example sentences and
            words/phrases, splits by the SHA-1 of the Ding line and writes
            OUT/en-de (sentences), OUT/words/en-de (words and phrases) and
            OUT/all/en-de (train: both kinds; dev/test: the sentences).
  check     the leak check on a built corpus (exit status 1 on a leak).

Deterministic: the output depends only on the manifest's .deb (verified by hash),
the DDTP files given and everyday.tsv; no clock, no randomness, sorted everywhere.
"""
import collections
import hashlib
import os
import re
import sys
import time
import unicodedata

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import recipe_cli as R  # noqa: E402  (the shared command line and SHA-256 checks)
import gettext_corpus as G  # noqa: E402  (the .deb reader, manifest, download and compare helpers)

MANIFEST = os.path.join(HERE, "ding-packages.tsv")
EVERYDAY = os.path.join(HERE, "everyday.tsv")
PACKAGE = "trans-de-en"
DING_FILE = "usr/share/trans/de-en"
# Split by the SHA-1 of the Ding line (all parts of a line go to one split), modulo 1000,
# for the lines that hold an example sentence (the others are train).
TEST_PERMILLE, DEV_PERMILLE = 70, 125          # < 70 test, < 125 dev, else train
SPLITS = ("train", "dev", "test")

# ---------------------------------------------------------------------------------------------
# One Ding line

# Annotations: {f} {vt} grammar, [ugs.] [Br.] usage/domain, <Aalmolch> hidden search keys,
# (zoologische Familie) explanations and optional words. Innermost first (they can nest).
ANNOTATION = re.compile(r"\{[^{}]*\}|\[[^\[\]]*\]|<[^<>]*>|\([^()]*\)")
# Abbreviations written /PM/ after a term.
ABBREVIATION = re.compile(r"(?<!\S)/[^/\s][^/]*/(?!\S)")
# Windows-1252 characters left in the file as C1 controls.
C1 = {"\x92": "\u2019", "\x96": "\u2013", "\x93": "\u201c", "\x94": "\u201d", "\x85": "\u2026"}

# Ding's placeholders, rewritten as the words they stand for (README.md: why and how many).
PLACEHOLDERS = {
    "en": [(re.compile(r"\bsb\.?('|\u2019)?s\b"), lambda m: "someone" + (m.group(1) or "\u2019") + "s"),
           (re.compile(r"\bsth\.?('|\u2019)s\b"), lambda m: "something" + m.group(1) + "s"),
           (re.compile(r"\bsb\b\.?"), "someone"),
           (re.compile(r"\bsth\b\.?"), "something")],
    "de": [(re.compile(r"\betw\."), "etwas"),
           (re.compile(r"\bjm?dn\."), "jemanden"),
           (re.compile(r"\bjm?dm\."), "jemandem"),
           (re.compile(r"\bjm?ds\."), "jemandes"),
           (re.compile(r"\bjm?d\."), "jemand")],
}
PLACEHOLDER_LEFT = re.compile(r"\b(sb|sth|etw|jdn|jdm|jds|jd|jmd)\b")

OPEN = "\"'\u201e\u201c\u201a\u2018\u00bb\u00ab\u00bf\u00a1("
CLOSE = "\"'\u201c\u201d\u2018\u2019\u00ab\u00bb)"
SENTENCE_END = re.compile(r"[.!?][" + re.escape(CLOSE) + r"]*$")
# A slot or a set of alternatives, not one sentence: "…", "...", "may/might", "… . / …"
# (a slash other than between digits, as in 24/7).
TEMPLATE = re.compile(r"\u2026|\.\.\.|(?<!\d)/|/(?!\d)")


def clean_side(s, lang, counts=None):
    """One side of one part of a Ding line: annotations dropped, the first "; " alternative
    kept, placeholders rewritten (counted in counts["placeholders"]), whitespace collapsed."""
    for k, v in C1.items():
        s = s.replace(k, v)
    s = unicodedata.normalize("NFC", s.replace("\u00a0", " ").replace("\t", " "))
    while True:
        t = ANNOTATION.sub(" ", s)
        if t == s:
            break
        s = t
    s = ABBREVIATION.sub(" ", s)
    alts = [x.strip() for x in re.split(r";(?:\s+|$)", s)]
    alts = [x for x in alts if x]
    s = alts[0] if alts else ""
    s = re.sub(r"\s+", " ", s).strip()
    s = re.sub(r"\s+([,.!?:])", r"\1", s)     # "Aber ja (doch) !" -> "Aber ja!" after a dropped note
    s = s.strip(" ,;:")
    n = 0
    for rx, word in PLACEHOLDERS[lang]:
        s, k = rx.subn(word, s)
        n += k
    if counts is not None and n:
        counts["placeholders"] += 1
    return s


def _sentence_like(s):
    core = s.lstrip(OPEN)
    if not core or not (core[0].isupper() or core[0].isdigit()):
        return False
    if not SENTENCE_END.search(s):
        return False
    return len(s.split()) >= 2 or s.rstrip(CLOSE)[-1] in "!?"


def kind_of(en, de):
    """"sentence" when both sides look like sentences (a capital first, . ! ? last; one word
    only with ! or ?) and neither is a template ("…", "may/might", "… / …"); else "phrase"."""
    if _sentence_like(en) and _sentence_like(de) and not TEMPLATE.search(en) and not TEMPLATE.search(de):
        return "sentence"
    return "phrase"


def drop_reason(en, de):
    """Why the pair (en, de) is dropped, or None to keep it."""
    if not en or not de:
        return "a side empty after cleaning"
    if en == de:
        return "identical sides (names, loanwords)"
    if not re.search(r"[A-Za-z]{2}", en):
        return "no two consecutive English letters"
    if PLACEHOLDER_LEFT.search(en) or PLACEHOLDER_LEFT.search(de):
        return "a placeholder left after rewriting"
    if len(en.split()) > 80 or len(de.split()) > 100:
        return "over 80/100 words"
    r = (len(en) + 1) / (len(de) + 1)
    if min(len(en), len(de)) >= 10 and not 1 / 3 <= r <= 3:
        return "length ratio beyond 3 (a definition, not a translation)"
    return None


def parse_line(line, counts=None):
    """[(kind, en, de)] of one Ding line `German :: English` (kind "sentence" or "phrase"):
    the line split on " :: ", each side on " | " (the parts line up one to one), each part
    cleaned (clean_side). A comment, a line without exactly one " :: " or with unequal
    part counts gives []; a part that drop_reason() rejects is left out."""
    counts = counts if counts is not None else collections.Counter()
    line = line.rstrip("\n")
    if not line.strip() or line.startswith("#"):
        return []
    sides = line.split(" :: ")
    if len(sides) != 2:
        counts["lines without one ' :: '"] += 1
        return []
    de_parts, en_parts = sides[0].split(" | "), sides[1].split(" | ")
    if len(de_parts) != len(en_parts):
        counts["lines with unequal part counts"] += 1
        return []
    out = []
    for d, e in zip(de_parts, en_parts):
        counts["parts"] += 1
        c = collections.Counter()
        de, en = clean_side(d, "de", c), clean_side(e, "en", c)
        why = drop_reason(en, de)
        if why:
            counts[f"parts dropped: {why}"] += 1
            continue
        if c["placeholders"]:
            counts["parts with placeholders rewritten"] += 1
        k = kind_of(en, de)
        counts[k + "s"] += 1
        if k == "phrase" and (_sentence_like(en) and _sentence_like(de)):
            counts["sentence-like parts kept as phrases (templates)"] += 1
        out.append((k, en, de))
    return out


# ---------------------------------------------------------------------------------------------
# Splits


def split_of(key):
    h = int(hashlib.sha1(key.encode("utf-8")).hexdigest(), 16) % 1000
    return "test" if h < TEST_PERMILLE else "dev" if h < DEV_PERMILLE else "train"


NON_WORD = re.compile(r"[\W_]+")


def norm(s):
    """The near-copy key: NFKC, lowercase, everything but letters and digits (punctuation,
    symbols) a space, whitespace collapsed."""
    return " ".join(NON_WORD.sub(" ", unicodedata.normalize("NFKC", s).lower()).split())


def read_everyday(path=None):
    """[(en, fr, de)] of the everyday sentences (everyday.tsv: a header, then en<TAB>fr<TAB>de)."""
    rows = []
    with open(path or EVERYDAY, encoding="utf-8") as f:
        for k, line in enumerate(f):
            if k == 0 or line.startswith("#") or not line.strip():
                continue
            rows.append(tuple(line.rstrip("\n").split("\t")))
    return rows


def other_sets(ddtp, lang="de", everyday_path=None):
    """(normalised DDTP train English, normalised DDTP dev/test sentences of both sides,
    normalised everyday sentences of both sides)."""
    train, held = set(), set()
    if ddtp:
        d = os.path.join(ddtp, f"en-{lang}")
        train = {norm(x) for x in G.read_lines(os.path.join(d, "train.en"))}
        for sp in ("dev", "test"):
            for side in ("en", lang):
                held.update(norm(x) for x in G.read_lines(os.path.join(d, f"{sp}.{side}")))
    col = 1 if lang == "fr" else 2
    everyday = {norm(s) for row in read_everyday(everyday_path or EVERYDAY) for s in (row[0], row[col])}
    return train, held, everyday


def _one_per_english(pairs):
    """One pair per normalised English: the most frequent (en, de), ties by code point."""
    c = collections.Counter(pairs)
    best = {}
    for (e, d), n in c.items():
        k = norm(e)
        if k not in best or (-n, e, d) < (-best[k][0], best[k][1], best[k][2]):
            best[k] = (n, e, d)
    return sorted((e, d) for _n, e, d in best.values())


def build_splits(lines, other_train=frozenset(), other_held=frozenset(), everyday=frozenset(), counts=None):
    """{kind: {split: sorted [(en, de)]}} from the Ding lines, and the counts (README.md):
    - each line's parts go to the line's split: split_of the line for a line with an example
      sentence, train for a line of words and phrases only;
    - dev and test keep one pair per normalised English (_one_per_english); a dev pair whose
      normalised English or German is a test one is dropped, and so is a dev/test pair whose
      normalised English is in other_train (DDTP train);
    - train keeps every distinct (en, de) minus pairs whose normalised English or German is
      a dev/test one (either kind), a DDTP dev/test sentence (other_held) or an everyday
      sentence.
    """
    counts = counts if counts is not None else collections.Counter()
    raw = {k: {s: [] for s in SPLITS} for k in ("sentence", "phrase")}
    for line in lines:
        parts = parse_line(line, counts)
        if not parts:
            continue
        # Only a line with an example sentence can be held out: dev and test are sentence
        # sets (a line of words alone is train).
        sp = split_of(line.rstrip("\n")) if any(k == "sentence" for k, _e, _d in parts) else "train"
        counts[f"lines with pairs ({sp})"] += 1
        for k, e, d in parts:
            raw[k][sp].append((e, d))
    out = {k: {} for k in raw}
    held_en, held_de = set(), set()
    for sp in ("test", "dev"):
        for k in ("sentence", "phrase"):
            kept = []
            for e, d in _one_per_english(raw[k][sp]):
                ne, nd = norm(e), norm(d)
                if ne in held_en or nd in held_de:
                    counts[f"{sp} {k}s dropped (a test pair's English or German)"] += 1
                    continue
                if ne in other_train:
                    counts[f"{sp} {k}s dropped (English in DDTP train)"] += 1
                    continue
                kept.append((e, d))
            out[k][sp] = kept
        for k in ("sentence", "phrase"):
            for e, d in out[k][sp]:
                held_en.add(norm(e))
                held_de.add(norm(d))
    for k in ("sentence", "phrase"):
        kept = []
        for e, d in sorted(set(raw[k]["train"])):
            ne, nd = norm(e), norm(d)
            if ne in held_en or nd in held_de:
                counts[f"train {k}s dropped (English or German of a dev/test pair)"] += 1
            elif ne in other_held or nd in other_held:
                counts[f"train {k}s dropped (a DDTP dev/test sentence)"] += 1
            elif ne in everyday or nd in everyday:
                counts[f"train {k}s dropped (an everyday sentence)"] += 1
            else:
                kept.append((e, d))
        out[k]["train"] = kept
    return out, counts


# ---------------------------------------------------------------------------------------------
# Commands


def deb_path(a):
    return G.one_deb(a.manifest, a.cache, "ding_corpus.py")


def ding_lines(path):
    files = G.deb_files(path, lambda n: "ding" if n == DING_FILE else None)
    if "ding" not in files:
        raise SystemExit(f"ding_corpus.py: {path} holds no {DING_FILE}")
    return files["ding"].decode("utf-8").split("\n")


def cmd_select(a):
    G.select_one(PACKAGE, a.manifest, f"Debian bookworm/main {PACKAGE} (the Ding dictionary, file {DING_FILE}); GPL-2+.")


def write_pairs(d, split, pairs):
    G.write_pairs(d, split, "de", pairs)


def cmd_build(a):
    t0 = time.time()
    path, row = deb_path(a)
    lines = ding_lines(path)
    other_train, other_held, everyday = other_sets(a.ddtp)
    out, counts = build_splits(lines, other_train, other_held, everyday)
    counts["lines read"] = sum(1 for x in lines if x.strip() and not x.startswith("#"))
    for sp in SPLITS:
        write_pairs(os.path.join(a.out, "en-de"), sp, out["sentence"][sp])
        write_pairs(os.path.join(a.out, "words", "en-de"), sp, out["phrase"][sp])
        write_pairs(os.path.join(a.out, "all", "en-de"), sp,
                    out["sentence"][sp] + (out["phrase"][sp] if sp == "train" else []))
    summary = [f"{row['package']} {row['version']} ({row['size']} bytes, SHA-256 {row['sha256']}): {DING_FILE}"]
    summary += [f"{k}: {v}" for k, v in sorted(counts.items())]
    for k, name in (("sentence", "en-de (sentences)"), ("phrase", "words/en-de (words and phrases)")):
        summary.append(f"{name}: " + ", ".join(f"{sp} {len(out[k][sp])}" for sp in SPLITS))
    summary.append("all/en-de: train " + str(len(out["sentence"]["train"]) + len(out["phrase"]["train"]))
                   + ", dev/test the sentences'")
    R.write_summary(a.out, summary)
    print(f"build: {time.time() - t0:.0f} s", flush=True)


def cmd_check(a):
    """No dev/test English or German of either kind (normalised) in train of either kind;
    no train pair holding a DDTP dev/test sentence or an everyday sentence (normalised)."""
    status = 0
    rd = lambda *p: G.read_lines(os.path.join(a.out, *p))  # noqa: E731
    train, held = [], []
    for d in (("en-de",), ("words", "en-de")):
        train += list(zip(rd(*d, "train.en"), rd(*d, "train.de")))
        for sp in ("dev", "test"):
            held += list(zip(rd(*d, f"{sp}.en"), rd(*d, f"{sp}.de")))
    held_en, held_de = {norm(e) for e, _ in held}, {norm(d) for _, d in held}
    bad = [(e, d) for e, d in train if norm(e) in held_en or norm(d) in held_de]
    n = {sp: len(rd("en-de", f"{sp}.en")) for sp in SPLITS}
    if bad:
        status = 1
        print(f"check: {len(bad)} train pairs share a normalised side with a dev/test pair, e.g. {bad[:3]}")
    else:
        print(f"check: none of the {n['test']} test and {n['dev']} dev sentences (nor the dev/test words) "
              f"has its normalised English or German in the {len(train)} train pairs (sentences and words)")
    test_en = {norm(e) for e in rd("en-de", "test.en")}
    dev_bad = [e for e in rd("en-de", "dev.en") if norm(e) in test_en]
    if dev_bad:
        status = 1
        print(f"check: {len(dev_bad)} dev sentences are test sentences, e.g. {dev_bad[:3]}")
    _tr, other_held, everyday = other_sets(a.ddtp)
    for name, s in (("a DDTP dev/test sentence", other_held), ("an everyday sentence", everyday)):
        if not s:
            continue
        leak = [(e, d) for e, d in train if norm(e) in s or norm(d) in s]
        if leak:
            status = 1
            print(f"check: {len(leak)} train pairs hold {name}, e.g. {leak[:3]}")
        else:
            print(f"check: no train pair holds {name}")
    ev_test = sorted(e for e in rd("en-de", "test.en") + rd("en-de", "dev.en") if norm(e) in everyday)
    print(f"check: everyday sentences in Ding dev/test (not an error): {len(ev_test)}"
          + (f" {ev_test[:5]}" if ev_test else ""))
    return status


def sha256_table(out):
    return R.sha256_lines(out, sorted(G._corpus_files(out, "SUMMARY.txt")))


def main(argv=None):
    p = R.parser(__doc__, ["select", "download", "build", "check", "all"], manifest=MANIFEST,
                 cache="ding-cache", out="ding-corpus",
                 reference_help="a previous OUT folder: compare every output file byte for byte",
                 sha256_help="a file of 'SHA-256  path' lines (ding-corpus.sha256): compare with it")
    p.add_argument("--ddtp", help="the DDTP corpus folder (en-de/): its dev/test sentences are kept out of "
                                  "train, its train English out of dev/test")
    a = p.parse_args(argv)
    return R.run(a, "ding_corpus.py", select=cmd_select, download=G.cmd_download, build=cmd_build,
                 check=cmd_check, compare=lambda out, ref: G.compare(out, ref, "SUMMARY.txt"),
                 sha256_table=sha256_table)


if __name__ == "__main__":
    sys.exit(main())
