#!/usr/bin/env python3
"""English→French and English→German game and application dialogue from the gettext
catalogs (.mo and .po files) of Debian bookworm's game packages and LibreOffice's
interface catalogs: the catalogs the gettext recipe (gettext_corpus.py) misses, because
it reads only usr/share/locale/{fr,de}/LC_MESSAGES/*.mo and skips .deb files over 20 MB
(Wesnoth's campaigns, FreedroidRPG's dialogues, Widelands' scenarios, ...).

One command does everything (README.md beside this file):

  python3 models/corpus/dialogue_corpus.py all --cache runs/dialogue-debs \
      --out runs/dialogue-corpus --ddtp ../shared/data/ddtp [--gettext runs/gettext-corpus] \
      [--reference OLD_OUT] [--sha256 models/corpus/dialogue-corpus.sha256]

Steps (each is also a subcommand):
  select    bookworm/main Contents-{amd64,all} + Packages (apt's lists, after
            `apt-get install apt-file && apt-get update`) -> the package manifest
            dialogue-packages.tsv beside this file (package, version, architecture,
            source, size, SHA-256, languages, catalogs). Only needed to refresh the
            committed manifest; `all` uses the committed one.
  download  `apt-get download PKG=VERSION` for what the cache lacks, then every
            .deb's SHA-256 against the manifest (gettext_corpus.cmd_download).
  build     reads the catalogs straight out of the .deb files (stdlib only), extracts
            (gettext_corpus's .mo/.po readers and normalisation), filters, deduplicates
            and splits by module into OUT/en-fr and OUT/en-de.
  check     the leak check on a built corpus (exit status 1 on a leak).
  licences  appends this recipe's source packages to models/corpus/licences.tsv
            (source, package, version, licence, stated_in), read from their copyright
            files (not part of `all`).

Deterministic: the output depends only on the manifest's .deb files (verified by
hash), the DDTP (and gettext) corpora given and everyday.tsv; sorted everywhere.
"""
import collections
import hashlib
import lzma
import os
import re
import sys
import tarfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import recipe_cli as R  # noqa: E402  (the shared command line and SHA-256 checks)
import gettext_corpus as G  # noqa: E402  (.deb reader, .mo/.po readers, normalisation, splits, manifest)
import docs_corpus as D  # noqa: E402  (everyday.tsv reader)

MANIFEST = os.path.join(HERE, "dialogue-packages.tsv")
LICENCES = os.path.join(HERE, "licences.tsv")
LANGS = ("fr", "de")
# Applications outside the games section whose catalogs the gettext recipe misses.
EXTRA_PACKAGES = ("libreoffice-l10n-fr", "libreoffice-l10n-de")

# ---------------------------------------------------------------------------------------------
# Catalog files: a .mo or .po file whose path names French or German, either as a folder
# (locale/fr/LC_MESSAGES/x.mo, lang_fr_FR/story.po) or in the file name (fr.po, bos-fr.po,
# bzflag_fr.po, data.fr.po, fr.engine.po). Other variants (fr_CA, de_CH, frp) are left out.

LANG_DIR = re.compile(r"^(?:lang_)?(fr|de)(?:_(?:FR|DE))?(?:\.(?:UTF-8|utf8))?$")
LANG_FILE = re.compile(r"^(?:(.*?)[._-])?(fr|de)(?:_(?:FR|DE))?(?![_-][A-Za-z]{2}\.|p)(?:[._-](.*?))?\.(?:po|mo)$")
# Folder names that say nothing about a catalog's module: a domain named by its folder
# skips them upwards (supertux2/locale/fr.po -> supertux2).
GENERIC_DIRS = {"locale", "locales", "lc_messages", "po", "l10n", "i18n", "lang", "languages", "translations",
                "data", "share", "usr", "games"}


def catalog_of(path):
    """(lang, key, domain) of a French or German catalog file path, else None: key is the
    path with its language part replaced by LANG (unique within a package), domain names
    the catalog's module (the file's stem without the language, else its folder)."""
    if not path.endswith((".mo", ".po")):
        return None
    parts = path.split("/")
    for i, p in enumerate(parts[:-1]):
        m = LANG_DIR.match(p)
        if m:
            lang = m.group(1)
            key = "/".join(parts[:i] + [p.replace(lang, "LANG", 1)] + parts[i + 1:])
            return lang, key, parts[-1][:-3]
    m = LANG_FILE.match(parts[-1])
    if not m:
        return None
    lang = m.group(2)
    stem = ".".join(x for x in (m.group(1), m.group(3)) if x)
    if not stem:
        dirs = [d for d in parts[:-1] if d.lower() not in GENERIC_DIRS]
        stem = dirs[-1] if dirs else "catalog"
    return lang, "/".join(parts[:-1] + [parts[-1][:m.start(2)] + "LANG" + parts[-1][m.end(2):]]), stem


def gettext_reads():
    """The packages whose usr/share/locale/{fr,de}/LC_MESSAGES/*.mo the gettext recipe reads."""
    return {r["package"] for r in G.read_manifest(G.MANIFEST)}


def wanted_catalog(package, path, covered):
    """(lang, key, domain) when `path` in `package` is a catalog this recipe reads: a French
    or German catalog the gettext recipe does not read (it reads G.MO_PATH in the packages of
    its manifest, `covered`)."""
    c = catalog_of(path)
    if c is None or (package in covered and G.MO_PATH.match(path)):
        return None
    return c


def read_catalogs(cache, rows, bad):
    """{lang: {module: [(English, translation) raw message pairs]}} of the manifest's packages,
    and {lang: {module: catalog count}}; module = SOURCE:DOMAIN (wesnoth-1.16:wesnoth-httt,
    widelands:scenario_emp01.wmf, libreoffice:sw). Unreadable catalogs are listed in `bad`."""
    covered = gettext_reads()
    out = {lang: collections.defaultdict(list) for lang in LANGS}
    ncat = {lang: collections.Counter() for lang in LANGS}
    for r in rows:
        path = os.path.join(cache, G.deb_name(r))
        try:
            files = G.deb_files(path, lambda n, p=r["package"]: wanted_catalog(p, n, covered))
        except (ValueError, OSError, tarfile.TarError, lzma.LZMAError) as e:
            bad.append(f"{G.deb_name(r)}: {e}")
            continue
        for (lang, key, domain), data in sorted(files.items()):
            try:
                msgs = G.mo_messages(data) if key.endswith(".mo") else G.po_messages(data)
            except G.MoError as e:
                bad.append(f"{G.deb_name(r)} {key.replace('LANG', lang)}: {e}")
                continue
            module = f"{r['source']}:{domain}"
            ncat[lang][module] += 1
            out[lang][module].extend(msgs)
    return out, ncat


# ---------------------------------------------------------------------------------------------
# Normalisation and the dialogue filter. Each catalog message goes through:
#  1. context prefixes dropped from the English (Freeciv's "?plural:Guinean", Wesnoth's
#     "editor^Castle"), and from the translation when it kept them; LibreOffice's "~"
#     accelerator markers removed (its modules only: "~" is text elsewhere);
#  2. paragraphs paired when both sides have as many (gettext_corpus's rule);
#  3. gettext_corpus's accelerators ("_", "&"), NBSP, NFC and whitespace (docs_corpus.clean
#     also drops invisible characters), then markup: inline formatting tags (<b>, <i>,
#     <span ...>, Cataclysm's <color_red> and <good>, FreedroidRPG's [b]) removed from both
#     sides, Wesnoth help's <bold>text='X'</bold> read as X, Cataclysm's hotkey "<C>ompare"
#     as "Compare";
#  4. a paragraph split into sentences (docs_corpus.SENT) when both sides have as many;
#  5. gettext_corpus.keep (identical sides, lengths, ratio, printf/Qt/Python specifiers) and
#     the same check for the games' own placeholders (PLACEHOLDER: Wesnoth's $unit.name|,
#     LibreOffice's $1 and %PRODUCTNAME, Cataclysm's <npcname>, ...);
#  6. rejected() below: code, file names, paths, URLs, key names, single identifiers.

CONTEXT_PREFIX = re.compile(r"^(?:\?[^:?\n]{1,40}:|[A-Za-z][\w -]{0,30}\^)(?=\S)")
TILDE = re.compile(r"~(?=\w)")
HELP_MARKUP = re.compile(r"<(bold|italic|header|ref)>(?:dst='[^']*'\s*)?text='([^']*)'(?:\s*dst='[^']*')?</\1>")
FORMAT_TAG = re.compile(r"</?(?:b|i|u|s|em|strong|big|small|tt|sub|sup|center|p|font|span|color|color_\w+|good|bad|"
                        r"info|bold|italic|underline|header)(?:\s[^<>]*)?>|<br\s*/?>|\[/?(?:b|i|u|s|color(?:=[^\]]*)?)\]")
HOTKEY_TAG = re.compile(r"<([A-Za-z0-9])(?:\|([A-Za-z0-9]))?>(?=\w)")      # <C>ompare, <N|n>ew
PLACEHOLDER = re.compile(r"\$\(?[A-Za-z_][\w]*(?:\.[A-Za-z_]\w*)*\)?\|?|\$\d+\$?|%[A-Z][A-Z_]+%?|%\{[^{}]*\}"
                         r"|<[a-z][a-z0-9_-]*>|&[a-z_]+\b(?!;)|\[%s\]")


def placeholders(s):
    """The games' own placeholders in s (beyond gettext_corpus.format_specs), as a sorted list."""
    return sorted(m.rstrip("|") for m in PLACEHOLDER.findall(G.FORMAT.sub(" ", s)))


def without_placeholders(s):
    return PLACEHOLDER.sub(" ", G.FORMAT.sub(" ", s))


def has_placeholder(s):
    return bool(PLACEHOLDER.search(s) or G.format_specs(s))


def strip_markup(s):
    """s without inline markup: FORMAT_TAG's tags, and any <x ...>/</x> whose closing tag
    </x> occurs in s (Cataclysm's <neutral>...</neutral>)."""
    s = HELP_MARKUP.sub(lambda m: m.group(2), s)
    s = FORMAT_TAG.sub(lambda m: " " if m.group(0).startswith("<br") else "", s)
    for name in sorted(set(re.findall(r"</([A-Za-z][\w-]*)>", s))):
        s = re.sub(rf"</?{re.escape(name)}(?:\s[^<>]*)?>", "", s)
    return HOTKEY_TAG.sub(lambda m: m.group(1) if m.start() == 0 or not m.group(2) else m.group(2), s)


KEY = (r"(?:(?:Left|Right|Keypad|Num(?:pad)?|KP)[ _]?)?(?:Ctrl|Control|Shift|Alt|AltGr|Alt Gr|Meta|Super|Cmd|"
       r"Command|Option|Win(?:dows)?|Esc|Escape|Tab|Caps ?Lock|Num ?Lock|Scroll ?Lock|Backspace|Return|Enter|"
       r"Space(?:bar)?|Insert|Ins|Del|Delete|Home|End|Page ?Up|Page ?Down|PgUp|PgDn|Pause|Break|Print(?: ?Screen)?|"
       r"SysRq|Menu|F\d{1,2}|Up|Down|Left|Right|Plus|Minus|[A-Z0-9])")
KEY_COMBO = re.compile(rf"^{KEY}(?:\s*[+-]\s*{KEY})+$")
KEY_ONLY = re.compile(r"^(?:(?:Left|Right|Keypad|Num(?:pad)?|KP)[ _]?)?(?:Ctrl|Shift|Alt|AltGr|Alt Gr|Meta|Super|Cmd|Esc|"
                      r"Caps ?Lock|Num ?Lock|Scroll ?Lock|Backspace|Page ?Up|Page ?Down|PgUp|PgDn|SysRq|Print ?Screen|"
                      r"F\d{1,2})(?: key)?$|^(?:Left|Right)[ _]?(?:Shift|Ctrl|Control|Alt|Meta|Super|Win|Windows|Mouse|"
                      r"Button|Click|Bracket|Arrow)$|^(?:Keypad|Num(?:pad)?|KP)[ _]\S+$", re.I)
FILE_EXT = ("png|jpe?g|gif|svg|bmp|tga|xpm|ico|ogg|wav|mp3|flac|mod|cfg|lua|txt|xml|json|ini|conf|so|dll|exe|zip|gz|"
            "tar|bz2|xz|7z|po|mo|pot|wml|html?|css|js|py|sh|pl|c|cpp|h|dat|log|sav|ttf|otf|pdf|odt|ods|odp|docx?|"
            "xlsx?|pptx?|csv|deb|rpm|iso|img|bin|wmf|map|lvl|stl|obj|smc")
CODE = re.compile(r"\w\s*=\s*['\"\w]|==|!=|&&|\|\||->|=>|::|\+\+|\w\(\)|\(\w*\);|</?[A-Za-z][\w-]*(?:\s+[\w-]+=[^<>]*)?/?>"
                  r"|\\|`|\$\{|\{\{|\}\}"
                  r"|^\s*[/#]\w|;\s*$")
FILE = re.compile(rf"\b[\w-]+\.(?:{FILE_EXT})\b|(?:^|[\s(\"'])(?:~|\.{{1,2}})?/\w|https?://|ftp://|www\.\w"
                  r"|\S+@\S+\.\w{2,}", re.I)
IDENTIFIER = re.compile(r"\w[_.:/]\w|[a-z][A-Z]|[A-Za-z]\d|\d[A-Za-z]|^[A-Z]{2,3}\W*$")


def rejected(x):
    """Why the English x is not dialogue or everyday text (a rule name), or None."""
    bare = without_placeholders(x)
    if CODE.search(bare):
        return "code"
    if FILE.search(x):
        return "file name, path, URL or e-mail"
    if KEY_COMBO.match(x) or KEY_ONLY.match(x):
        return "key name"
    if not re.search(r"\s", x) and IDENTIFIER.search(x):
        return "single identifier"
    if not re.search(r"[A-Za-z]{2}", bare):
        return "no word outside placeholders"
    return None


def strip_context(x, y):
    m = CONTEXT_PREFIX.match(x)
    if m:
        p = m.group(0)
        x = x[len(p):]
        if y.startswith(p):
            y = y[len(p):]
    return x, y


def clean_pair(x, y, module, why=None):
    """Normalised (English, translation) pairs of one catalog message: [] when dropped;
    `why` (a Counter) counts the rules that dropped units."""
    why = why if why is not None else collections.Counter()
    x, y = strip_context(x.replace("\r\n", "\n"), y.replace("\r\n", "\n"))
    if module.startswith("libreoffice:"):
        x, y = TILDE.sub("", x), TILDE.sub("", y)
    ps = [p for p in re.split(r"\n\s*\n", x) if p.strip()]
    pt = [p for p in re.split(r"\n\s*\n", y) if p.strip()]
    out = []
    for a, b in (list(zip(ps, pt)) if len(ps) == len(pt) and len(ps) > 1 else [(x, y)]):
        a, b = G.strip_accelerators(a, b)
        a, b = D.clean(strip_markup(a)), D.clean(strip_markup(b))
        sa, sb = D.SENT.split(a), D.SENT.split(b)
        for u, v in (list(zip(sa, sb)) if len(sa) == len(sb) else [(a, b)]):
            if not G.keep(u, v):
                why["gettext rules (identical, length, ratio, format specifiers)"] += 1
            elif placeholders(u) != placeholders(v):
                why["placeholders differ"] += 1
            else:
                r = rejected(u)
                if r:
                    why[r] += 1
                else:
                    out.append((u, v))
    return out


def heldout_ok(x):
    """Dev/test keep everyday and dialogue sentences only: at least 3 English words, no
    placeholder (they stay in train)."""
    return len(x.split()) >= 3 and not has_placeholder(x)


def norm_en(x):
    """The English as compared across splits: lowercased, punctuation and spacing dropped."""
    return " ".join(re.sub(r"[^\w\s]|_", " ", x.lower()).split())


# ---------------------------------------------------------------------------------------------
# Splits: by module (SOURCE:DOMAIN), SHA-1 of the module name modulo 1000 as the other
# recipes (< 50 test, < 80 dev), with HELD_OUT on top. Hashing alone gives a test split of
# about 390 pairs, most of them LibreOffice's file-format names (libreoffice:flt), and a dev
# split of about 2,800 (two Wesnoth campaigns and Widelands' interface catalog among them).
# The test split is the project's everyday/dialogue test for en-fr (>= 1,000 pairs), so:
# the two Wesnoth campaigns hashing put in dev (Dead Water, Eastern Invasion) are test, one
# more campaign (The Two Brothers) is dev, and the two interface catalogs hashing held out
# (LibreOffice's filter names, Widelands' user interface) are train.

TEST_PERMILLE, DEV_PERMILLE = 50, 80
HELD_OUT = {
    "wesnoth-1.16:wesnoth-dw": "test",          # hash: dev
    "wesnoth-1.16:wesnoth-ei": "test",          # hash: dev
    "wesnoth-1.16:wesnoth-tb": "dev",           # hash: train
    "libreoffice:flt": "train",                 # hash: test (file format names, not everyday text)
    "widelands:widelands": "train",             # hash: dev (the game's interface catalog)
}


def split_of(module):
    if module in HELD_OUT:
        return HELD_OUT[module]
    h = int(hashlib.sha1(module.encode("utf-8")).hexdigest(), 16) % 1000
    return "test" if h < TEST_PERMILLE else "dev" if h < DEV_PERMILLE else "train"


def other_sets(a, lang):
    """(other corpora's train English, their dev/test sentences on both sides, the everyday
    sentences: both sides exactly and the English normalised)."""
    train, held = G.other_corpora_sets((a.ddtp, a.gettext), lang)
    col = 1 if lang == "fr" else 2
    rows = D.read_everyday()
    everyday = {s for row in rows for s in (row[0], row[col])} | {norm_en(row[0]) for row in rows}
    return train, held, everyday


def build_splits(modules, other_train=frozenset(), other_held=frozenset(), everyday=frozenset()):
    """The splits of one language from {module: [(src, tgt)]} (normalised pairs): returns
    ({split: sorted [(src, tgt)]}, stats, {module: {split: pairs written}}):
    - each pair's split is its module's (split_of); dev/test keep only pairs that pass
      heldout_ok (sentences of 3+ words without placeholders; the others are dropped, not
      moved to train);
    - dev and test keep one pair per normalised English (norm_en: the pair most frequent
      across the modules, ties by code point); one whose English is another corpus's train
      sentence, another corpus's dev/test sentence or an everyday sentence is dropped, and
      one in both dev and test stays in dev;
    - train keeps every distinct pair except those whose normalised English is a dev/test
      English of this corpus, and those holding another corpus's dev/test sentence or an
      everyday sentence (either side)."""
    stats = collections.Counter()
    cand = {"dev": collections.Counter(), "test": collections.Counter()}
    train = collections.defaultdict(set)             # pair -> modules
    origin = collections.defaultdict(set)            # (split, pair) -> modules
    for module, pairs in sorted(modules.items()):
        sp = split_of(module)
        for x, y in pairs:
            stats["pairs"] += 1
            if sp == "train":
                train[(x, y)].add(module)
            elif heldout_ok(x):
                cand[sp][(x, y)] += 1
                origin[(sp, (x, y))].add(module)
            else:
                stats[f"{sp}: pairs under 3 words or with placeholders (dropped)"] += 1
    out, norms, per_module = {}, {}, collections.defaultdict(collections.Counter)
    for sp in ("dev", "test"):
        best = {}
        for (x, y), c in cand[sp].items():
            n = norm_en(x)
            if x in other_train or x in other_held or y in other_held or n in everyday or x in everyday:
                stats[f"{sp}: English dropped (another corpus's sentence or an everyday one)"] += 1
                continue
            if sp == "test" and n in norms["dev"]:
                stats["test: English dropped (also in dev)"] += 1
                continue
            if n not in best or (-c, x, y) < (-best[n][2], best[n][0], best[n][1]):
                best[n] = (x, y, c)
        out[sp] = sorted((x, y) for x, y, _ in best.values())
        norms[sp] = set(best)
        for p in out[sp]:
            for m in origin[(sp, p)]:
                per_module[m][sp] += 1
    held_norms = norms["dev"] | norms["test"]
    tr = []
    for (x, y), mods in sorted(train.items()):
        if norm_en(x) in held_norms:
            stats["train: pairs dropped (English of this corpus's dev/test)"] += 1
        elif x in other_held or y in other_held or x in everyday or y in everyday or norm_en(x) in everyday:
            stats["train: pairs dropped (another corpus's dev/test sentence or an everyday one)"] += 1
        else:
            tr.append((x, y))
            for m in mods:
                per_module[m]["train"] += 1
    out["train"] = tr
    return out, stats, per_module


def _mk(d):
    os.makedirs(d, exist_ok=True)
    return d


def cmd_build(a):
    t0 = time.time()
    rows = G.read_manifest(a.manifest)
    bad = []
    raw, ncat = read_catalogs(a.cache, rows, bad)
    print(f"build: {len(rows)} packages read ({time.time() - t0:.0f} s)", flush=True)
    summary = [f"packages: {len(rows)} (.deb total {sum(int(r['size']) for r in rows)} bytes), "
               f"source packages: {len({r['source'] for r in rows})}"]
    mods, why = {}, {}
    for lang in LANGS:
        why[lang] = collections.Counter()
        mods[lang] = {m: [p for x, y in msgs for p in clean_pair(x, y, m, why[lang])]
                      for m, msgs in sorted(raw[lang].items())}
    all_mods = sorted(set(mods["fr"]) | set(mods["de"]))
    per = collections.Counter(split_of(m) for m in all_mods)
    summary.append(f"modules: {len(all_mods)} (train {per['train']}, dev {per['dev']}, test {per['test']}); "
                   f"held out by list: " + ", ".join(f"{m} ({s})" for m, s in sorted(HELD_OUT.items())))
    written = {}
    for lang in LANGS:
        other_train, held, everyday = other_sets(a, lang)
        out, stats, written[lang] = build_splits(mods[lang], other_train, held, everyday)
        d = os.path.join(a.out, f"en-{lang}")
        for sp, pairs in out.items():
            G.write_pairs(d, sp, lang, pairs)
        summary.append(f"en-{lang}: {sum(ncat[lang].values())} catalogs, {sum(len(v) for v in raw[lang].values())} "
                       f"messages; units dropped by the filters: "
                       + ", ".join(f"{k} {v}" for k, v in sorted(why[lang].items())) + "; "
                       + "; ".join(f"{k} {v}" for k, v in sorted(stats.items()))
                       + "; written: " + ", ".join(f"{sp} {len(out[sp])}" for sp in ("train", "dev", "test")))
    with open(os.path.join(_mk(a.out), "modules.tsv"), "w", encoding="utf-8") as f:
        f.write("module\tsplit\tfr_catalogs\tfr_messages\tfr_pairs\tfr_written\tde_catalogs\tde_messages\tde_pairs\tde_written\n")
        for m in all_mods:
            cols = [m, split_of(m)]
            for lang in LANGS:
                cols += [str(ncat[lang][m]), str(len(raw[lang].get(m, []))), str(len(mods[lang].get(m, []))),
                         str(sum(written[lang][m].values()))]
            f.write("\t".join(cols) + "\n")
    if bad:
        summary.append(f"unreadable: {len(bad)}: " + "; ".join(bad))
    R.write_summary(a.out, summary)
    print(f"build: {time.time() - t0:.0f} s", flush=True)


# ---------------------------------------------------------------------------------------------
# Leak check


def check_corpus(a):
    """Exit status 1 when: a dev/test English sentence (normalised) is in this train or the
    other split; a dev/test English is in DDTP/gettext train or DDTP/gettext dev/test, or is
    an everyday sentence; a train pair holds a DDTP/gettext dev/test sentence or an everyday
    sentence."""
    status = 0
    for lang in LANGS:
        d = os.path.join(a.out, f"en-{lang}")
        tr_en = G.read_lines(os.path.join(d, "train.en"))
        tr_tg = G.read_lines(os.path.join(d, f"train.{lang}"))
        tr_norm = {norm_en(x) for x in tr_en}
        other_train, held, everyday = other_sets(a, lang)
        held_sets = {}
        for sp in ("dev", "test"):
            xs = G.read_lines(os.path.join(d, f"{sp}.en"))
            held_sets[sp] = {norm_en(x) for x in xs}
            for name, bad in (("this train (normalised)", [x for x in xs if norm_en(x) in tr_norm]),
                              ("DDTP/gettext train", [x for x in xs if x in other_train]),
                              ("DDTP/gettext dev/test", [x for x in xs if x in held]),
                              ("the everyday set", [x for x in xs if x in everyday or norm_en(x) in everyday])):
                if bad:
                    status = 1
                    print(f"check: en-{lang}: {len(bad)} {sp} English sentences occur in {name}, e.g. {bad[:3]}")
        both = held_sets["dev"] & held_sets["test"]
        if both:
            status = 1
            print(f"check: en-{lang}: {len(both)} English sentences in both dev and test, e.g. {sorted(both)[:3]}")
        leak = [(x, y) for x, y in zip(tr_en, tr_tg) if x in held or y in held]
        ev = [(x, y) for x, y in zip(tr_en, tr_tg) if x in everyday or y in everyday or norm_en(x) in everyday]
        for name, bad in (("a DDTP/gettext dev/test sentence", leak), ("an everyday sentence", ev)):
            if bad:
                status = 1
                print(f"check: en-{lang}: {len(bad)} train pairs hold {name}, e.g. {bad[:3]}")
        if status == 0:
            print(f"check: en-{lang}: none of the {len(held_sets['test'])} test and {len(held_sets['dev'])} dev English "
                  f"sentences occurs (normalised) in the {len(tr_en)} train pairs or the other split"
                  + (", in DDTP" if a.ddtp else "") + (" or gettext" if a.gettext else "")
                  + " train or dev/test, or in everyday.tsv; no train pair holds such a sentence")
    return status


def sha256_table(out):
    """'SHA-256  path' lines of the corpus files under out, sorted by path."""
    return R.sha256_lines(out, sorted(G._corpus_files(out, "modules.tsv")))


# ---------------------------------------------------------------------------------------------
# select


def cmd_select(a):
    covered = gettext_reads()
    cats = collections.defaultdict(set)                 # package -> {(lang, key)}
    for arch in ("amd64", "all"):
        for line in G._lz4_lines(G._list(rf".*_debian_dists_bookworm_main_Contents-{arch}\.lz4")):
            if ".mo " not in line and ".po " not in line:
                continue
            fn, _, locs = line.rpartition(" ")
            fn = fn.strip()
            if not fn.endswith((".mo", ".po")):
                continue
            for loc in locs.split(","):
                sec, _, pkg = loc.rpartition("/")
                if not (sec == "games" or pkg in EXTRA_PACKAGES):
                    continue
                c = wanted_catalog(pkg, fn, covered)
                if c:
                    cats[pkg].add(c[:2])
    pk = G.packages_fields(cats)
    rows, skipped = [], []
    for name in sorted(cats):
        d = pk.get(name)
        if d is None:
            skipped.append((name, "not in Packages"))
            continue
        langs = sorted({lang for lang, _ in cats[name]})
        rows.append(dict(package=name, version=d["Version"], architecture=d["Architecture"],
                         source=d.get("Source", name).split()[0], size=d["Size"], sha256=d["SHA256"],
                         languages=",".join(langs), catalogs=str(len(cats[name]))))
    cols = ["package", "version", "architecture", "source", "size", "sha256", "languages", "catalogs"]
    with open(a.manifest, "w", encoding="utf-8") as f:
        f.write("# Debian bookworm/main packages of section games (Contents-amd64 + Contents-all), and "
                + ", ".join(EXTRA_PACKAGES) + ", with French or German gettext catalogs (.mo/.po) that "
                "gettext_corpus.py does not read (outside usr/share/locale/{fr,de}/LC_MESSAGES, or in a "
                "package its manifest skips); no size limit.\n")
        f.write(f"# {len(rows)} packages, {sum(int(r['size']) for r in rows)} bytes; {len(skipped)} skipped: "
                + " ".join(f"{n}({w})" for n, w in skipped) + "\n")
        f.write("\t".join(cols) + "\n")
        for r in rows:
            f.write("\t".join(r[c] for c in cols) + "\n")
    print(f"select: {len(rows)} packages ({sum(int(r['size']) for r in rows) / 1e6:.0f} MB), "
          f"{sum(int(r['catalogs']) for r in rows)} catalogs, {len(skipped)} skipped -> {a.manifest}")


# ---------------------------------------------------------------------------------------------
# Licences


# A Files: pattern that covers French/German catalogs: po/*, po/*.po, locale/fr/*, *.po, de.po
# (not po/Makefile.in.in, data/i18n/fonts/*, or another language's catalog).
CATALOG_FILES = re.compile(r"(?i)(?:^|/)(?:po|locale|translations?|l10n|i18n|lang)/(?:\*|\*\.(?:po|mo|pot)|(?:fr|de)(?:/\*|/LC_MESSAGES/\S*|\.(?:po|mo)))$"
                           r"|^\*\.(?:po|mo)$|(?:^|/)(?:fr|de)\.(?:po|mo)$")


def catalog_licences(text):
    """The licences of a DEP-5 copyright file's paragraphs whose Files: name the French or
    German catalogs (CATALOG_FILES): the terms of the translations where they differ from
    the program's. [] if none."""
    out = []
    for p in re.split(r"\n\s*\n", text):
        m = re.search(r"(?ims)^files:(.*?)(?=^\S)", p + "\nX")
        lic = re.search(r"(?im)^license:[ \t]*(\S[^\n]*)", p)
        if m and lic and any(CATALOG_FILES.search(t) for t in m.group(1).split()):
            out.append(lic.group(1).strip())
    return sorted(set(out))


def free_form_licence(text):
    """A free-form (not DEP-5) copyright file's licence: the GNU licence and version its text
    states ("version 2 of the License, or (at your option) any later version" -> GPL-2+),
    else gettext_corpus.licence_of's first keyword; and the other licences it names."""
    _main, found = G.licence_of(text)
    t = re.sub(r"\s+", " ", text)
    m = re.search(r"GNU (Lesser |Library )?General Public License[^.]{0,200}?version (\d(?:\.\d)?)"
                  r"(?:[^.]{0,80}?(any later version))?", t, re.I)
    if m:
        main = ("LGPL-" if m.group(1) else "GPL-") + m.group(2) + ("+" if m.group(3) else "")
        fam = "LGPL" if m.group(1) else "GPL"
    else:
        main = fam = _main.replace("free-form: ", "")
    others = [f for f in found if f != fam]
    return f"free-form: {main}" + (f" (also names {', '.join(others)})" if others else "")


def licence_rows(cache, rows):
    """[(source, packages, version, licence, stated_in)] per source package ("dialogue: SOURCE"):
    the main licence of the copyright file of its first package (by name) that holds one
    (gettext_corpus.licence_of; free_form_licence for a file that is not DEP-5), and the
    licences its DEP-5 paragraphs give the catalogs, when they differ."""
    by_src = collections.defaultdict(list)
    for r in rows:
        by_src[r["source"]].append(r)
    out = []
    for src in sorted(by_src):
        pkgs = sorted(by_src[src], key=lambda r: r["package"])
        lic, where = "not stated", "no copyright file in these packages"
        for r in pkgs:
            want = f"usr/share/doc/{r['package']}/copyright"
            files = G.deb_files(os.path.join(cache, G.deb_name(r)), lambda n, w=want: "c" if n == w else None)
            if "c" in files:
                text = files["c"].decode("utf-8", "replace")
                main, _all = G.licence_of(text)
                free = main.startswith("free-form")
                if free:
                    main = free_form_licence(text)
                extra = [x for x in catalog_licences(text) if x != main]
                lic = main + (f"; catalogs: {', '.join(extra)}" if extra else "")
                where = f"{want} (" + ("free-form text" if free else "DEP-5 Files: *") \
                    + ("; the paragraphs whose Files: name the catalogs" if extra else "") + ")"
                break
        versions = sorted({r["version"] for r in pkgs})
        out.append((f"dialogue: {src}", ",".join(r["package"] for r in pkgs), ",".join(versions), lic, where))
    return out


def cmd_licences(a):
    """Appends this recipe's rows to models/corpus/licences.tsv (created with its header
    when missing; as many columns as its header has): rows already there (same source,
    packages and version) are left alone, other recipes' rows are never rewritten."""
    rows = licence_rows(a.cache, G.read_manifest(a.manifest))
    have, ncols = set(), 5
    if os.path.isfile(a.licences):
        with open(a.licences, encoding="utf-8") as f:
            for k, line in enumerate(f):
                cols = line.rstrip("\n").split("\t")
                if k == 0:
                    ncols = len(cols)
                have.add(tuple(cols[:3]))
    new = [r for r in rows if r[:3] not in have]
    with open(a.licences, "a", encoding="utf-8") as f:
        if not have:
            f.write("source\tpackage\tversion\tlicence\tstated_in\n")
        for r in new:
            f.write("\t".join(r[:ncols]) + "\n")
    tally = collections.Counter(G.family(r[3].split(";")[0].split(" (")[0].replace("free-form: ", "")) for r in rows)
    print(f"licences: {len(rows)} source packages ({len(new)} rows appended to {a.licences}); main licence family: "
          + ", ".join(f"{k} {v}" for k, v in tally.most_common()))
    for r in rows:
        print("  " + "\t".join((r[0], r[3])))


def main(argv=None):
    p = R.parser(__doc__, ["select", "download", "build", "check", "licences", "all"], manifest=MANIFEST,
                 cache="dialogue-debs", out="dialogue-corpus",
                 reference_help="a previous OUT folder: compare every split byte for byte",
                 sha256_help="a file of 'SHA-256  path' lines: compare the built files with it")
    p.add_argument("--ddtp", help="the DDTP corpus folder (en-fr/, en-de/)")
    p.add_argument("--gettext", help="the gettext corpus folder (en-fr/, en-de/), when it is built")
    p.add_argument("--licences", default=LICENCES, help="the licences table `licences` appends to")
    a = p.parse_args(argv)
    return R.run(a, "dialogue_corpus.py", select=cmd_select, licences=cmd_licences, download=G.cmd_download,
                 build=cmd_build, check=check_corpus, compare=lambda out, ref: G.compare(out, ref, "modules.tsv"),
                 sha256_table=sha256_table)


if __name__ == "__main__":
    sys.exit(main())
