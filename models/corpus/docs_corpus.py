#!/usr/bin/env python3
"""English→French and English→German documentation prose from Debian bookworm's
binary packages: LibreOffice's help (libreoffice-help-{en-us,fr,de}, HTML paired by
file and paragraph id), the Debian Reference (debian-reference-{en,fr,de}, HTML
paired element by element per chapter), the GNOME/application help pages under
usr/share/help/{C,fr,de}/DOC/ (Mallard and DocBook translated through itstool) and
KDE's manuals under usr/share/doc/HTML/{en,fr,de}/DOC/ (DocBook, kdoctools' entities
from kdoctools5), paired element by element per page (in order where the structures
are equal, by a Gale-Church alignment where they differ).

One command does everything (README.md beside this file):

  python3 models/corpus/docs_corpus.py all --cache runs/docs-debs --out runs/docs-corpus \
      --ddtp ../shared/data/ddtp --gettext runs/gettext-corpus [--reference OLD_OUT]

Steps (each is also a subcommand):
  select    bookworm/main Contents-{amd64,all} + Packages (apt's lists, after
            `apt-get install apt-file && apt-get update`) -> the package manifest
            docs-packages.tsv beside this file (package, version, architecture,
            source, size, SHA-256, kind: libreoffice, debian-reference, help, kde,
            kdoctools). Only needed to refresh the committed
            manifest; `all` uses the committed one.
  download  `apt-get download PKG=VERSION` for what the cache lacks, then every
            .deb's SHA-256 against the manifest.
  build     reads the documents straight out of the .deb files (stdlib only),
            pairs, cleans, deduplicates and splits by module into OUT/en-fr and
            OUT/en-de; with --gettext also OUT/combined/en-{fr,de} (the gettext
            corpus's combined train + docs train; its combined dev + docs dev).
  check     the leak check on a built corpus (exit status 1 on a leak).
  licences  OUT/licences.tsv: each source package's licence (copyright files).

Deterministic: the output depends only on the manifest's .deb files (verified by
hash), the DDTP and gettext corpora given and everyday.tsv; sorted everywhere.
"""
import collections
import hashlib
import html
import html.entities
import html.parser
import math
import os
import re
import sys
import time
import unicodedata
import xml.etree.ElementTree as ET

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import recipe_cli as R  # noqa: E402  (the shared command line and SHA-256 checks)
import gettext_corpus as G  # noqa: E402  (the .deb reader, manifest and licence helpers)

MANIFEST = os.path.join(HERE, "docs-packages.tsv")
EVERYDAY = os.path.join(HERE, "everyday.tsv")
LANGS = ("fr", "de")
MAX_DEB_BYTES = 20_000_000
# Split by the SHA-1 of the module name ("SOURCE:MODULE"), modulo 1000.
TEST_PERMILLE, DEV_PERMILLE = 100, 150          # < 100 test, < 150 dev, else train
COMBINED_DEV_DOCS = 1000                        # docs dev pairs added to the combined dev
LIBREOFFICE = {"en": "libreoffice-help-en-us", "fr": "libreoffice-help-fr", "de": "libreoffice-help-de"}
DEBREF = {"en": "debian-reference-en", "fr": "debian-reference-fr", "de": "debian-reference-de"}
HELP_PATH = re.compile(r"^usr/share/help/(C|fr|de)/([^/]+)/(.+\.(?:page|xml|docbook))$")
LO_PATH = re.compile(r"^usr/share/libreoffice/help/(en-US|fr|de)/(text/.+\.html)$")
DR_PATH = re.compile(r"^usr/share/debian-reference/([a-z0-9]+)\.(en|fr|de)\.html$")

# ---------------------------------------------------------------------------------------------
# Text units of one document: [(key, text)] in document order. A unit is an element of
# a block kind holding text; a block nested in another is a unit of its own and its
# text is not part of the outer one's. Markup inside a unit is dropped, its text kept
# (menu paths, commands, GUI labels stay verbatim); key sequences become "Ctrl+C",
# menu paths "Edit ▸ Preferences" (as yelp renders them).
# A link whose text the renderer fills in (an empty Mallard <link xref>) makes the
# unit unusable: it holds LINK, and such units are dropped.

LINK = "\x00"
UNKNOWN = "\ue000"      # an entity whose text is not known here (XML-valid, private use)
HTML_BLOCKS = {"p", "h1", "h2", "h3", "h4", "h5", "h6", "td", "th", "dt", "dd", "li", "caption"}
HTML_SKIP = {"script", "style", "pre", "head", "title", "button", "label", "nav"}
HTML_SKIP_CLASSES = {"bascode", "pycode", "code", "debug"}
HTML_VOID = {"br", "img", "input", "meta", "link", "hr", "wbr", "col", "area", "base", "source"}


class _HTMLUnits(html.parser.HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.stack = []          # [tag, unit index or None, skipping]
        self.units = []          # [tag, id, [text pieces]]

    def _cur(self):
        for tag, u, _ in reversed(self.stack):
            if u is not None:
                return u
        return None

    def _skipping(self):
        return any(s for _, _, s in self.stack)

    def handle_starttag(self, tag, attrs):
        if tag in HTML_VOID:
            if tag == "br" and self._cur() is not None:
                self.units[self._cur()][2].append(" ")
            return
        u = None
        d = dict(attrs)
        # LibreOffice: a switch shows one of its cases (hidden spans, per system or module):
        # the default case is kept, the others (MAC, WIN, CALC, ...) dropped; code blocks dropped.
        skip = (tag in HTML_SKIP or ("hidden" in d and not (d.get("id") or "").startswith("default"))
                or bool(HTML_SKIP_CLASSES & set((d.get("class") or "").split())))
        if tag in HTML_BLOCKS and not self._skipping():
            u = len(self.units)
            self.units.append([tag, d.get("id") or "", []])
        self.stack.append([tag, u, skip])

    def handle_startendtag(self, tag, attrs):
        if tag in HTML_VOID:
            self.handle_starttag(tag, attrs)

    def handle_endtag(self, tag):
        for i in range(len(self.stack) - 1, -1, -1):
            if self.stack[i][0] == tag:
                del self.stack[i:]
                return

    def handle_data(self, data):
        if self._skipping():
            return
        u = self._cur()
        if u is not None:
            self.units[u][2].append(data)


def html_units(text):
    """[(tag, id, text)] of an HTML document's block units, in document order."""
    p = _HTMLUnits()
    p.feed(text)
    p.close()
    return [(t, i, "".join(x)) for t, i, x in p.units]


XML_BLOCKS = {"title", "subtitle", "desc", "p", "para", "simpara", "term", "entry", "caption", "td", "th",
              "glossterm", "refpurpose", "question", "answer"}
# Subtrees without prose to pair: page metadata (credits, revisions, licence), code.
XML_SKIP = {"info", "bookinfo", "articleinfo", "chapterinfo", "sectioninfo", "legalnotice", "credit",
            "revision", "screen", "programlisting", "synopsis", "literallayout", "cmdsynopsis",
            "funcsynopsis", "comment", "media", "include", "remark", "indexterm", "authorgroup"}
KEYSEQ = {"keyseq", "keycombo"}             # Ctrl+C, as the renderers show them
GUISEQ = {"guiseq", "menuchoice"}           # Edit ▸ Preferences


def _local(tag):
    return tag.rsplit("}", 1)[-1] if isinstance(tag, str) else ""


XML_BUILTIN = {"amp", "lt", "gt", "quot", "apos"}


def entity_table(text):
    """{name: value} of the internal general entity declarations in DTD text (the first
    declaration of a name wins, as in XML); external (SYSTEM/PUBLIC) and parameter
    entities are left out."""
    out = {}
    text = re.sub(r"<!--.*?-->", "", text, flags=re.S)
    for n, _q, v in re.findall(r"<!ENTITY\s+([A-Za-z_][\w.-]*)\s+([\"'])(.*?)\2\s*>", text, re.S):
        out.setdefault(n, v)
    return out


def resolve_entities(data, extra=None):
    """The document as a str without its DOCTYPE: references to the internal subset's
    general entities are expanded (DocBook's &app;), then those of `extra` (KDE's
    kdoctools tables: &kate;, &Ctrl;), HTML's named entities (DocBook's ISO sets:
    &eacute;, &mdash;) become their characters; a reference to an external or unknown
    entity (&legal; = legal.xml, &FDLNotice;) becomes UNKNOWN, which drops the unit that
    holds it (outside the units it is harmless) — expat would stop at it. Comments are
    dropped."""
    s = data.decode("utf-8", "replace") if isinstance(data, bytes) else data
    s = re.sub(r"^\ufeff?<\?xml[^>]*\?>", "", s)
    s = re.sub(r"<!--.*?-->", "", s, flags=re.S)
    m = re.search(r"<!DOCTYPE\s[^\[>]*(?:\[(.*?)\])?\s*>", s, re.S)
    internal = {}
    if m:
        internal = entity_table(m.group(1) or "")
        s = s[:m.start()] + s[m.end():]
    for k, v in (extra or {}).items():
        internal.setdefault(k, v)

    def sub(t, depth=0):
        def one(mm):
            n = mm.group(1)
            if n in XML_BUILTIN:
                return mm.group(0)
            if n in internal:
                return sub(internal[n], depth + 1) if depth < 5 else UNKNOWN
            c = html.entities.html5.get(n + ";")        # DocBook's ISO entities: &eacute;, &mdash;
            if c is not None:
                return {"&": "&amp;", "<": "&lt;"}.get(c, c)
            return UNKNOWN
        return re.sub(r"&([A-Za-z_][\w.-]*);", one, t)
    return sub(s)


def xml_units(data, entities=None):
    """[(tag, text)] of a Mallard or DocBook document's block units in document order
    (the desc of the page's info is kept, the rest of info is skipped)."""
    root = ET.fromstring(resolve_entities(data, entities))
    out = []

    def text_of(e, nested):
        """The text of e without its nested block units (appended to `nested`)."""
        parts = [e.text or ""]
        for c in e:
            t = _local(c.tag)
            if t in XML_BLOCKS:
                nested.append(c)
            elif t in XML_SKIP:
                pass
            elif (t in KEYSEQ or t in GUISEQ) and len(c):
                keys = [text_of(k, nested).strip() for k in c if _local(k.tag) != "shortcut"]
                short = [text_of(k, nested).strip() for k in c if _local(k.tag) == "shortcut"]
                parts.append(("+" if t in KEYSEQ else " ▸ ").join(k for k in keys if k)
                             + "".join(f" ({k})" for k in short if k))     # DocBook: File ▸ New (Ctrl+N)
            elif t in ("link", "xref") and (c.get("xref") or c.get("linkend")) and not "".join(c.itertext()).strip():
                parts.append(LINK)
            else:
                parts.append(text_of(c, nested))
            parts.append(c.tail or "")
        return "".join(parts)

    def walk(e, in_info=False):
        t = _local(e.tag)
        if t in XML_BLOCKS:
            nested = []
            out.append((t, text_of(e, nested)))
            for c in nested:
                walk(c, in_info)
            return
        if t in ("info", "bookinfo", "articleinfo", "chapterinfo", "sectioninfo"):
            for c in e:
                if _local(c.tag) == "desc":
                    walk(c, True)
            return
        if t in XML_SKIP:
            return
        for c in e:
            walk(c, in_info)

    walk(root)
    return out


def _gc_cost(l1, l2, c):
    """Gale and Church's length cost: -log P(|delta|) of an English unit of l1 characters
    against a translation of l2, c the translation's length per English character."""
    m = (l1 + l2 / c) / 2
    d = (l2 - l1 * c) / math.sqrt(max(m, 1) * 6.8)
    return -math.log(max(math.erfc(abs(d) / math.sqrt(2)), 1e-12)), abs(d)


# Characters of translation per English character (docs train, 2026-12-04: 1.210 and 1.184).
LENGTH_RATIO = {"fr": 1.2, "de": 1.18}


def align_sequences(a, b, ratio=1.2):
    """Pairs (text_a, text_b) of two unit lists [(tag, text)]: the whole lists when their tag
    sequences are equal (itstool and po4a rebuild the translation on the source's structure).
    Otherwise (an out-of-date translation, a section missing or added, translator credits):
    a Gale-Church dynamic programme over 1-1 (same tag), 1-0 and 0-1 moves with the units'
    character lengths (priors 0.89 and 0.0099, the length cost on 1-1 moves only — a
    paragraph missing from the translation is what this is for —, variance 6.8, `ratio` translation characters
    per English character: LENGTH_RATIO),
    in a band around the diagonal; its 1-1 pairs are kept when the lengths are plausible
    (|delta| <= 2.5). A document whose unpaired units exceed max(4, 5 %) of all is dropped
    whole: an out-of-date translation, whose edited paragraphs lengths cannot tell apart."""
    ta, tb = [t for t, _ in a], [t for t, _ in b]
    if ta == tb:
        return [(x[1], y[1]) for x, y in zip(a, b)]
    n, m = len(a), len(b)
    if not n or not m:
        return []
    la = [len(clean(t)) for _, t in a]
    lb = [len(clean(t)) for _, t in b]
    c = ratio
    p11, p10 = -math.log(0.89), -math.log(0.0099)
    band = abs(n - m) + 50
    INF = float("inf")
    cost = [[INF] * (m + 1) for _ in range(n + 1)]
    back = [[0] * (m + 1) for _ in range(n + 1)]
    cost[0][0] = 0.0
    for i in range(n + 1):
        centre = i * m // n
        for j in range(max(0, centre - band), min(m, centre + band) + 1):
            if i == 0 and j == 0:
                continue
            best, move = INF, 0
            if i and j and ta[i - 1] == tb[j - 1] and cost[i - 1][j - 1] < INF:
                v = cost[i - 1][j - 1] + p11 + _gc_cost(la[i - 1], lb[j - 1], c)[0]
                if v < best:
                    best, move = v, 1
            if i and cost[i - 1][j] < INF:
                v = cost[i - 1][j] + p10
                if v < best:
                    best, move = v, 2
            if j and cost[i][j - 1] < INF:
                v = cost[i][j - 1] + p10
                if v < best:
                    best, move = v, 3
            cost[i][j], back[i][j] = best, move
    if cost[n][m] == INF:
        return []
    out, matched = [], 0
    i, j = n, m
    while i or j:
        mv = back[i][j]
        if mv == 1:
            matched += 1
            if _gc_cost(la[i - 1], lb[j - 1], c)[1] <= 2.5:
                out.append((a[i - 1][1], b[j - 1][1]))
            i, j = i - 1, j - 1
        elif mv == 2:
            i -= 1
        else:
            j -= 1
    if n + m - 2 * matched > max(4, 0.05 * (n + m)):
        return []           # too far out of step: an out-of-date translation, where lengths cannot tell
    return out[::-1]


def align_by_id(a, b):
    """Pairs of two unit lists [(tag, id, text)] by (id, occurrence of that id) — LibreOffice's
    paragraph ids (par_id…, hd_id…) — in the English document's order."""
    def keyed(units):
        seen = collections.Counter()
        d = {}
        for tag, i, t in units:
            if not re.match(r"(par_id|hd_id)", i):
                continue
            seen[i] += 1
            d[(i, seen[i])] = t
        return d
    ka, kb = keyed(a), keyed(b)
    order = []
    seen = collections.Counter()
    for tag, i, _t in a:
        if re.match(r"(par_id|hd_id)", i):
            seen[i] += 1
            order.append((i, seen[i]))
    return [(ka[k], kb[k]) for k in order if k in kb]


# ---------------------------------------------------------------------------------------------
# Cleaning

SENT = re.compile(r'(?<=[.!?])\s+(?=[A-ZÀ-ÝÄÖÜ«"(])')
INVISIBLE = re.compile("[\u00ad\u200b\u200c\u200d\u2060\ufeff]")


def clean(s):
    s = s.replace("\u00a0", " ").replace("\u202f", " ").replace("\u2007", " ").replace("\t", " ")
    s = INVISIBLE.sub("", s)
    s = unicodedata.normalize("NFC", s)
    return re.sub(r"\s+", " ", s).strip()


def keep(a, b):
    """The gettext corpus's sanity rules (without its format-specifier rule), and no link
    or unknown entity left in either side."""
    if any(m in a or m in b for m in (LINK, UNKNOWN)):
        return False
    return G.sane_pair(a, b)


def clean_pair(a, b):
    """Normalised sentence pairs of one aligned unit: [] when dropped. A paragraph is split
    into sentences when both sides have as many (else kept whole, within the length rules)."""
    a, b = clean(a), clean(b)
    if not a or not b or a == b or any(m in a or m in b for m in (LINK, UNKNOWN)):
        return []
    sa, sb = SENT.split(a), SENT.split(b)
    units = list(zip(sa, sb)) if len(sa) == len(sb) else [(a, b)]
    return [(x, y) for x, y in units if keep(x, y)]


# ---------------------------------------------------------------------------------------------
# Reading the packages


def _decode(data):
    return data.decode("utf-8", "replace")


def libreoffice_units(cache, rows):
    """{lang: {module: [(src, tgt)]}} of LibreOffice's help; module = libreoffice:text/APP/SUB."""
    pk = {r["package"]: r for r in rows}
    docs = {}
    for lang, name in LIBREOFFICE.items():
        if name not in pk:
            return {lang: {} for lang in LANGS}, collections.Counter()
        def key(n):
            m = LO_PATH.match(n)
            return m.group(2) if m else None
        docs[lang] = G.deb_files(os.path.join(cache, G.deb_name(pk[name])), key)
    out = {lang: collections.defaultdict(list) for lang in LANGS}
    stats = collections.Counter()
    for path in sorted(docs["en"]):
        parts = path.split("/")
        module = "libreoffice:" + "/".join(parts[:3] if len(parts) > 3 else parts[:2])
        en = html_units(_decode(docs["en"][path]))
        for lang in LANGS:
            if path not in docs[lang]:
                continue
            tr = html_units(_decode(docs[lang][path]))
            for x, y in align_by_id(en, tr):
                stats[lang] += 1
                out[lang][module].extend(clean_pair(x, y))
    return out, stats


def debref_units(cache, rows):
    """{lang: {module: [(src, tgt)]}} of the Debian Reference; module = debian-reference:CHAPTER."""
    pk = {r["package"]: r for r in rows}
    docs = {}
    for lang, name in DEBREF.items():
        def key(n, lang=lang):
            m = DR_PATH.match(n)
            return m.group(1) if m and m.group(2) == lang else None
        docs[lang] = G.deb_files(os.path.join(cache, G.deb_name(pk[name])), key)
    out = {lang: collections.defaultdict(list) for lang in LANGS}
    stats = collections.Counter()
    for ch in sorted(docs["en"]):
        en = [(t, x) for t, _i, x in html_units(_decode(docs["en"][ch]))]
        for lang in LANGS:
            if ch not in docs[lang]:
                continue
            tr = [(t, x) for t, _i, x in html_units(_decode(docs[lang][ch]))]
            for x, y in align_sequences(en, tr, LENGTH_RATIO[lang]):
                stats[lang] += 1
                out[lang]["debian-reference:" + ch].extend(clean_pair(x, y))
    return out, stats


KDE_PATH = re.compile(r"^usr/share/doc/HTML/(en|fr|de)/(.+)/([^/]+\.docbook)$")
KDOCTOOLS = "usr/share/kf5/kdoctools/customization/"


def kde_entities(cache, rows):
    """{lang: {name: value}} of kdoctools' entity tables for en, fr and de, in the DTD's
    order of precedence: entities/general.entities, then LANG/strings.entities,
    LANG/lang.entities, LANG/user.entities (the first declaration wins)."""
    r = [r for r in rows if r["kind"] == "kdoctools"]
    if not r:
        return None
    files = G.deb_files(os.path.join(cache, G.deb_name(r[0])),
                        lambda n: n[len(KDOCTOOLS):] if n.startswith(KDOCTOOLS) and n.endswith(".entities") else None)
    out = {}
    for lang in ("en",) + LANGS:
        t = {}
        for f in ("entities/general.entities", f"{lang}/strings.entities", f"{lang}/lang.entities",
                  f"{lang}/user.entities"):
            for k, v in entity_table(_decode(files.get(f, b""))).items():
                t.setdefault(k, v)
        out[lang] = t
    return out


def kde_units(cache, rows, bad):
    """{lang: {module: [(src, tgt)]}} of KDE's DocBook manuals in usr/share/doc/HTML/{en,fr,de}/DOC/
    of each 'kde' package, kdoctools' entities expanded in each language's own values (&Ctrl;
    is Strg in German); module = SOURCE:kde/DOC. A file is paired with the same path in en/."""
    out = {lang: collections.defaultdict(list) for lang in LANGS}
    stats = collections.Counter()
    ents = kde_entities(cache, rows)
    if ents is None:
        return out, stats
    for r in rows:
        if r["kind"] != "kde":
            continue
        def key(n):
            m = KDE_PATH.match(n)
            return (m.group(1), m.group(2), m.group(3)) if m else None
        files = G.deb_files(os.path.join(cache, G.deb_name(r)), key)
        parsed = {}

        def units(k):
            if k not in parsed:
                try:
                    parsed[k] = xml_units(files[k], ents[k[0]])
                except ET.ParseError as e:
                    bad.append(f"{G.deb_name(r)} {'/'.join(k)}: {e}")
                    parsed[k] = None
            return parsed[k]
        for (lang, doc, page) in sorted(files):
            if lang == "en" or ("en", doc, page) not in files:
                continue
            en, tr = units(("en", doc, page)), units((lang, doc, page))
            if en is None or tr is None:
                continue
            for x, y in align_sequences(en, tr, LENGTH_RATIO[lang]):
                stats[lang] += 1
                out[lang][f"{r['source']}:kde/{doc}"].extend(clean_pair(x, y))
    return out, stats


def help_units(cache, rows, bad):
    """{lang: {module: [(src, tgt)]}} of the help pages in usr/share/help/{C,fr,de}/DOC/ of
    each 'help' package; module = SOURCE:DOC. A page is paired with the same path in C/."""
    out = {lang: collections.defaultdict(list) for lang in LANGS}
    stats = collections.Counter()
    for r in rows:
        if r["kind"] != "help":
            continue
        def key(n):
            m = HELP_PATH.match(n)
            return (m.group(1), m.group(2), m.group(3)) if m else None
        try:
            files = G.deb_files(os.path.join(cache, G.deb_name(r)), key)
        except Exception as e:   # noqa: BLE001 - a broken .deb is reported, not fatal
            bad.append(f"{G.deb_name(r)}: {e}")
            continue
        parsed = {}

        def units(k):
            if k not in parsed:
                try:
                    parsed[k] = xml_units(files[k])
                except ET.ParseError as e:
                    bad.append(f"{G.deb_name(r)} {'/'.join(k)}: {e}")
                    parsed[k] = None
            return parsed[k]
        for (lang, doc, page) in sorted(files):
            if lang == "C":
                continue
            c = ("C", doc, page)
            if c not in files:
                continue
            en, tr = units(c), units((lang, doc, page))
            if en is None or tr is None:
                continue
            for x, y in align_sequences(en, tr, LENGTH_RATIO[lang]):
                stats[lang] += 1
                out[lang][f"{r['source']}:{doc}"].extend(clean_pair(x, y))
    return out, stats


# ---------------------------------------------------------------------------------------------
# Splits


def split_of(module):
    h = int(hashlib.sha1(module.encode("utf-8")).hexdigest(), 16) % 1000
    return "test" if h < TEST_PERMILLE else "dev" if h < DEV_PERMILLE else "train"


def read_everyday(path=EVERYDAY):
    """[(en, fr, de)] of the everyday sentences (everyday.tsv: a header, then en<TAB>fr<TAB>de)."""
    rows = []
    with open(path, encoding="utf-8") as f:
        for k, line in enumerate(f):
            if k == 0 or line.startswith("#") or not line.strip():
                continue
            rows.append(tuple(line.rstrip("\n").split("\t")))
    return rows


def other_sets(a, lang):
    """(sentences of other corpora's train English, their dev/test sentences on both sides,
    the everyday sentences on both sides)."""
    train, held = G.other_corpora_sets((a.ddtp, a.gettext), lang)
    col = 1 if lang == "fr" else 2
    everyday = {s for row in read_everyday() for s in (row[0], row[col])}
    return train, held, everyday


def build_splits(modules, other_train=frozenset(), other_held=frozenset()):
    """The splits of one language from {module: [(src, tgt)]}, by the gettext corpus's rule
    (gettext_corpus.build_splits) with this corpus's split_of: other_held are the other
    corpora's dev/test sentences and the everyday set, other_train their train."""
    return G.build_splits(modules, other_train, other_held, split_of=split_of,
                          held_name="other corpora's dev/test, everyday set", train_name="another corpus's train")


def cmd_build(a):
    t0 = time.time()
    rows = G.read_manifest(a.manifest)
    bad = []
    lo, lo_stats = libreoffice_units(a.cache, rows)
    print(f"build: LibreOffice help read ({time.time() - t0:.0f} s)", flush=True)
    dr, dr_stats = debref_units(a.cache, rows)
    print(f"build: Debian Reference read ({time.time() - t0:.0f} s)", flush=True)
    hp, hp_stats = help_units(a.cache, rows, bad)
    print(f"build: help pages read ({time.time() - t0:.0f} s)", flush=True)
    kd, kd_stats = kde_units(a.cache, rows, bad)
    print(f"build: KDE manuals read ({time.time() - t0:.0f} s)", flush=True)
    summary = [f"packages: {len(rows)} (.deb total {sum(int(r['size']) for r in rows)} bytes), "
               f"source packages: {len({r['source'] for r in rows})}"]
    mods = {}
    for lang in LANGS:
        mods[lang] = {}
        for part in (lo, dr, hp, kd):
            for m, p in part[lang].items():
                mods[lang].setdefault(m, []).extend(p)
    all_mods = sorted(set(mods["fr"]) | set(mods["de"]))
    per = collections.Counter(split_of(m) for m in all_mods)
    summary.append(f"modules: {len(all_mods)} (train {per['train']}, dev {per['dev']}, test {per['test']})")
    with open(os.path.join(_mk(a.out), "modules.tsv"), "w", encoding="utf-8") as f:
        f.write("module\tsplit\tfr_pairs\tde_pairs\n")
        for m in all_mods:
            f.write(f"{m}\t{split_of(m)}\t{len(mods['fr'].get(m, []))}\t{len(mods['de'].get(m, []))}\n")
    for lang in LANGS:
        other_train, held, everyday = other_sets(a, lang)
        out, stats = build_splits(mods[lang], other_train, held | everyday)
        d = os.path.join(a.out, f"en-{lang}")
        for sp, pairs in out.items():
            G.write_pairs(d, sp, lang, pairs)
        src_counts = collections.Counter()
        for m, p in mods[lang].items():
            src_counts[m.split(":")[0] if m.startswith(("libreoffice:", "debian-reference:"))
                       else "KDE" if ":kde/" in m else "help"] += len(p)
        summary.append(f"en-{lang}: aligned units: LibreOffice {lo_stats[lang]}, Debian Reference {dr_stats[lang]}, "
                       f"help pages {hp_stats[lang]}, KDE manuals {kd_stats[lang]}; sentence pairs: "
                       + ", ".join(f"{k} {v}" for k, v in sorted(src_counts.items())) + "; "
                       + "; ".join(f"{k} {v}" for k, v in stats.items())
                       + "; " + ", ".join(f"{sp} {len(out[sp])}" for sp in ("train", "dev", "test")))
        if a.gettext and os.path.isdir(os.path.join(a.gettext, "combined", f"en-{lang}")):
            c = os.path.join(a.out, "combined", f"en-{lang}")
            gc = os.path.join(a.gettext, "combined", f"en-{lang}")
            g_train = list(zip(G.read_lines(os.path.join(gc, "train.en")), G.read_lines(os.path.join(gc, f"train.{lang}"))))
            g_dev = list(zip(G.read_lines(os.path.join(gc, "dev.en")), G.read_lines(os.path.join(gc, f"dev.{lang}"))))
            ddev = sorted(out["dev"], key=lambda p: hashlib.sha1(p[0].encode("utf-8")).hexdigest())
            G.write_pairs(c, "train", lang, g_train + out["train"])
            G.write_pairs(c, "dev", lang, g_dev + ddev[:COMBINED_DEV_DOCS])
            summary.append(f"combined/en-{lang}: train {len(g_train) + len(out['train'])} (gettext combined "
                           f"{len(g_train)} first), dev {len(g_dev) + min(len(ddev), COMBINED_DEV_DOCS)} "
                           f"(gettext combined {len(g_dev)} first)")
    if bad:
        summary.append(f"unreadable: {len(bad)}: " + "; ".join(bad))
    R.write_summary(a.out, summary)
    print(f"build: {time.time() - t0:.0f} s", flush=True)


def _mk(d):
    os.makedirs(d, exist_ok=True)
    return d


# ---------------------------------------------------------------------------------------------
# Leak check


def check_corpus(a):
    """Exit status 1 when: a docs dev/test English sentence is in docs train, DDTP train,
    gettext train or the combined train; a docs train pair holds a DDTP/gettext dev/test
    sentence or an everyday sentence."""
    status = 0
    for lang in LANGS:
        d = os.path.join(a.out, f"en-{lang}")
        tr_en = G.read_lines(os.path.join(d, "train.en"))
        tr_tg = G.read_lines(os.path.join(d, f"train.{lang}"))
        trains = {"docs train": set(tr_en)}
        if a.ddtp:
            trains["DDTP train"] = set(G.read_lines(os.path.join(a.ddtp, f"en-{lang}", "train.en")))
        if a.gettext:
            trains["gettext train"] = set(G.read_lines(os.path.join(a.gettext, f"en-{lang}", "train.en")))
        comb = os.path.join(a.out, "combined", f"en-{lang}", "train.en")
        if os.path.isfile(comb):
            trains["combined train"] = set(G.read_lines(comb))
        n = {}
        for sp in ("dev", "test"):
            xs = G.read_lines(os.path.join(d, f"{sp}.en"))
            n[sp] = len(xs)
            for name, s in trains.items():
                leak = [x for x in xs if x in s]
                if leak:
                    status = 1
                    print(f"check: en-{lang}: {len(leak)} docs {sp} English sentences occur in {name}, e.g. {leak[:3]}")
        if status == 0:
            print(f"check: en-{lang}: none of the {n['test']} test and {n['dev']} dev English sentences occurs in "
                  + ", ".join(trains) + f" ({len(tr_en)} docs train pairs)")
        _tr, held, everyday = other_sets(a, lang)
        for name, s in (("a DDTP/gettext dev/test sentence", held), ("an everyday sentence", everyday)):
            leak = [(x, y) for x, y in zip(tr_en, tr_tg) if x in s or y in s]
            if leak:
                status = 1
                print(f"check: en-{lang}: {len(leak)} docs train pairs hold {name}, e.g. {leak[:3]}")
            else:
                print(f"check: en-{lang}: no docs train pair holds {name}")
        # Informational: the everyday English sentences in the other corpora's train.
        seen = sorted({e for e in everyday if any(e in s for k, s in trains.items() if k != "docs train")})
        print(f"check: en-{lang}: everyday sentences found in DDTP/gettext/combined train (not an error): "
              f"{len(seen)}" + (f" {seen[:5]}" if seen else ""))
    return status


def sha256_table(out):
    """'SHA-256  path' lines of the corpus files under out, sorted by path."""
    return R.sha256_lines(out, sorted(G._corpus_files(out, "modules.tsv")))


# ---------------------------------------------------------------------------------------------
# select / download / licences


def cmd_select(a):
    help_docs = collections.defaultdict(lambda: collections.defaultdict(set))   # pkg -> doc -> langs
    kde_docs = collections.defaultdict(lambda: collections.defaultdict(set))
    for arch in ("amd64", "all"):
        for line in G._lz4_lines(G._list(rf".*_debian_dists_bookworm_main_Contents-{arch}\.lz4")):
            if line.startswith("usr/share/help/"):
                table, rx = help_docs, HELP_PATH
            elif line.startswith("usr/share/doc/HTML/"):
                table, rx = kde_docs, KDE_PATH
            else:
                continue
            fn, _, locs = line.rpartition(" ")
            m = rx.match(fn.strip())
            if not m:
                continue
            for loc in locs.split(","):
                table[loc.rsplit("/", 1)[-1]][m.group(2)].add(m.group(1))
    want = {}
    for kind, table, en in (("help", help_docs, "C"), ("kde", kde_docs, "en")):
        for pkg, docs in table.items():
            ok = sorted(d for d, ls in docs.items() if en in ls and ({"fr", "de"} & ls))
            if ok:
                want[pkg] = (kind, ok)
    want["kdoctools5"] = ("kdoctools", [])
    for name in list(LIBREOFFICE.values()):
        want[name] = ("libreoffice", [])
    for name in list(DEBREF.values()):
        want[name] = ("debian-reference", [])
    pk = G.packages_fields(want)
    rows, skipped = [], []
    for name in sorted(want):
        d = pk.get(name)
        if d is None:
            skipped.append((name, "not in Packages"))
            continue
        size = int(d["Size"])
        if size > MAX_DEB_BYTES:
            skipped.append((name, f"{size} bytes"))
            continue
        kind, docs = want[name]
        rows.append(dict(package=name, version=d["Version"], architecture=d["Architecture"],
                         source=d.get("Source", name).split()[0], size=str(size), sha256=d["SHA256"],
                         kind=kind, docs=",".join(docs) or "-"))
    cols = ["package", "version", "architecture", "source", "size", "sha256", "kind", "docs"]
    with open(a.manifest, "w", encoding="utf-8") as f:
        f.write("# Debian bookworm/main: libreoffice-help-{en-us,fr,de}, debian-reference-{en,fr,de}, every package "
                "with usr/share/help/C/DOC/ and usr/share/help/{fr,de}/DOC/ (kind help) or with "
                "usr/share/doc/HTML/en/DOC/*.docbook and usr/share/doc/HTML/{fr,de}/DOC/ (kind kde; Contents-amd64 + "
                f"Contents-all), and kdoctools5 (KDE's entities); .deb size <= {MAX_DEB_BYTES} bytes.\n")
        f.write(f"# {len(rows)} packages, {sum(int(r['size']) for r in rows)} bytes; {len(skipped)} skipped: "
                + " ".join(f"{n}({w})" for n, w in skipped) + "\n")
        f.write("\t".join(cols) + "\n")
        for r in rows:
            f.write("\t".join(r[c] for c in cols) + "\n")
    print(f"select: {len(rows)} packages kept ({sum(int(r['size']) for r in rows) / 1e6:.0f} MB), "
          f"{len(skipped)} skipped -> {a.manifest}")


def doc_licences(text):
    """The licences of a DEP-5 copyright file's paragraphs whose Files: name the help or
    documentation (help/, doc/, docs/, *.page, *.docbook, po files of the help): the
    terms the pages themselves carry where they differ from the program's. [] if none."""
    out = []
    for p in re.split(r"\n\s*\n", text):
        m = re.search(r"(?ims)^files:(.*?)(?=^\S)", p + "\nX")
        lic = re.search(r"(?im)^license:[ \t]*(\S[^\n]*)", p)
        if m and lic and re.search(r"(?i)help|\bdocs?/|doc/|\.page|\.docbook|manual|user-guide", m.group(1)):
            out.append(lic.group(1).strip())
    return sorted(set(out))


def cmd_licences(a):
    """OUT/licences.tsv: per source package, the package's main licence, the licences of
    its copyright file's help/documentation paragraphs, and all it lists; and a tally."""
    rows = G.read_manifest(a.manifest)
    by_src = collections.defaultdict(list)
    for r in rows:
        by_src[r["source"]].append(r)
    out, tally, doc_tally = [], collections.Counter(), collections.Counter()
    for src in sorted(by_src):
        got = None
        for r in sorted(by_src[src], key=lambda r: r["package"]):
            want = f"usr/share/doc/{r['package']}/copyright"
            files = G.deb_files(os.path.join(a.cache, G.deb_name(r)), lambda n, w=want: "c" if n == w else None)
            if "c" in files:
                text = files["c"].decode("utf-8", "replace")
                got = (r["package"],) + G.licence_of(text) + (doc_licences(text),)
                break
        if got is None:
            got = ("-", "no copyright file in these packages (a linked doc folder)", [], [])
        tally[G.family(got[1]) if got[0] != "-" else "not found"] += 1
        if got[3]:
            doc_tally[G.family(got[3][0])] += 1
        out.append(f"{src}\t{got[0]}\t{got[1]}\t{'; '.join(got[3]) or '-'}\t{'; '.join(got[2])}")
    with open(os.path.join(_mk(a.out), "licences.tsv"), "w", encoding="utf-8") as f:
        f.write("source\tcopyright_of\tmain_licence\thelp_licences\tall_licences\n" + "\n".join(out) + "\n")
    print(f"licences: {len(by_src)} source packages, main licence family: "
          + ", ".join(f"{k} {v}" for k, v in tally.most_common())
          + f"; {sum(doc_tally.values())} name the help's own licence, family: "
          + ", ".join(f"{k} {v}" for k, v in doc_tally.most_common()))


def main(argv=None):
    p = R.parser(__doc__, ["select", "download", "build", "check", "licences", "all"], manifest=MANIFEST,
                 cache="docs-debs", out="docs-corpus",
                 reference_help="a previous OUT folder: compare every split byte for byte",
                 sha256_help="a file of 'SHA-256  path' lines: compare the built files with it")
    p.add_argument("--ddtp", help="the DDTP corpus folder (en-fr/, en-de/)")
    p.add_argument("--gettext", help="the gettext corpus folder (en-fr/, en-de/, combined/)")
    a = p.parse_args(argv)
    return R.run(a, "docs_corpus.py", select=cmd_select, licences=cmd_licences, download=G.cmd_download,
                 build=cmd_build, check=check_corpus, compare=lambda out, ref: G.compare(out, ref, "modules.tsv"),
                 sha256_table=sha256_table)


if __name__ == "__main__":
    sys.exit(main())
