#!/usr/bin/env python3
"""English→French and English→German message pairs from the gettext catalogs
(usr/share/locale/{fr,de}/LC_MESSAGES/*.mo) of Debian bookworm's binary packages.

One command does everything (README.md beside this file):

  python3 models/corpus/gettext_corpus.py all --cache DIR --out OUTDIR \
      [--ddtp ../shared/data/ddtp] [--reference OLD_OUTDIR]

Steps (each is also a subcommand):
  select    bookworm/main Contents-{amd64,all} + Packages (apt's lists, after
            `apt-file update` or `apt-get update` with apt-file installed) -> the
            package manifest (gettext-packages.tsv beside this file: package,
            version, architecture, source, size, SHA-256). Only needed to refresh
            the committed manifest; `all` uses the committed one.
  download  `apt-get download PKG=VERSION` for every manifest entry missing from
            the cache, then checks every .deb's SHA-256 against the manifest.
  build     reads the .mo files straight out of the .deb files (ar + tar, stdlib
            only), extracts, normalises, deduplicates and splits by source
            package into OUTDIR/en-fr and OUTDIR/en-de; with --ddtp also
            OUTDIR/combined/en-{fr,de} (DDTP train + gettext train; DDTP dev +
            the first gettext dev pairs) for the trainer.
  check     the leak check on a built corpus (check_no_leak below).
  licences  OUTDIR/licences.tsv: each source package's licence from its
            copyright file, and a tally (not part of `all`).

Deterministic: the output depends only on the manifest's .deb files (verified
by hash) and the DDTP files; no clock, no randomness, sorted everywhere.
"""
import bz2
import collections
import gzip
import hashlib
import io
import lzma
import os
import re
import struct
import subprocess
import sys
import tarfile
import time
import unicodedata

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import recipe_cli as R  # noqa: E402  (the shared command line and SHA-256 checks)
MANIFEST = os.path.join(HERE, "gettext-packages.tsv")
LANGS = ("fr", "de")
LISTS = "/var/lib/apt/lists"
# A .deb above this size is skipped: they are mostly game and data packages whose
# catalogs are a tiny fraction of the download (README.md: the rule and its cost).
MAX_DEB_BYTES = 20_000_000
MO_PATH = re.compile(r"^(?:\./)?usr/share/locale/(fr|de)/LC_MESSAGES/([^/]+)\.mo$")
# Split by the SHA-1 of the source package name, modulo 1000.
TEST_PERMILLE, DEV_PERMILLE = 50, 80          # < 50 test, < 80 dev, else train
COMBINED_DEV_GETTEXT = 1000                   # gettext dev pairs added to DDTP dev in combined/

# ---------------------------------------------------------------------------------------------
# .mo files


class MoError(ValueError):
    pass


def parse_mo(data):
    """The entries of a GNU .mo file as a list of (msgid, msgstr) *bytes* in file order
    (msgid may hold a context: ctx 0x04 id; plurals: singular 0x00 plural)."""
    if len(data) < 28:
        raise MoError("too short for a .mo header")
    magic = struct.unpack("<I", data[:4])[0]
    if magic == 0x950412DE:
        end = "<"
    elif magic == 0xDE120495:
        end = ">"
    else:
        raise MoError(f"bad magic 0x{magic:08x}")
    _rev, n, o_orig, o_trans = struct.unpack(end + "4I", data[4:20])
    if o_orig + 8 * n > len(data) or o_trans + 8 * n > len(data):
        raise MoError("table beyond the end of the file")
    out = []
    for i in range(n):
        ln, off = struct.unpack(end + "2I", data[o_orig + 8 * i:o_orig + 8 * i + 8])
        lt, ot = struct.unpack(end + "2I", data[o_trans + 8 * i:o_trans + 8 * i + 8])
        if off + ln > len(data) or ot + lt > len(data):
            raise MoError("string beyond the end of the file")
        out.append((data[off:off + ln], data[ot:ot + lt]))
    return out


def header_charset(entries):
    for k, v in entries:
        if k == b"":
            m = re.search(rb"charset=([-A-Za-z0-9_.]+)", v)
            if m:
                cs = m.group(1).decode("ascii").lower()
                return "utf-8" if cs in ("charset", "") else cs
    return "utf-8"


# Entries whose "translation" is the translators' names, not a translation.
CREDITS = {"translator-credits", "translator_credits", "translator-credits:", "Your names", "Your emails",
           "NAME OF TRANSLATORS", "EMAIL OF TRANSLATORS", "ROLES_OF_TRANSLATORS", "CREDIT_FOR_TRANSLATORS"}


# .po files (the source form of a catalog; some packages ship them instead of .mo files)

_PO_KEYWORD = re.compile(rb"^(msgctxt|msgid_plural|msgid|msgstr(?:\[(\d+)\])?)\s*(\".*)$")
_PO_ESCAPES = {b"n": b"\n", b"t": b"\t", b"r": b"\r", b"a": b"\a", b"b": b"\b", b"f": b"\f", b"v": b"\v",
               b"\\": b"\\", b'"': b'"', b"'": b"'", b"?": b"?"}


def _po_string(s):
    """The bytes of one quoted .po string (C escapes: \\n \\t \\" \\\\ ..., octal \\NNN, hex \\xHH)."""
    s = s.strip()
    if len(s) < 2 or not (s.startswith(b'"') and s.endswith(b'"')):
        raise MoError(f"not a quoted string: {s[:40]!r}")
    s, out, i = s[1:-1], bytearray(), 0
    while i < len(s):
        c = s[i:i + 1]
        if c != b"\\":
            out += c
            i += 1
            continue
        n = s[i + 1:i + 2]
        if n in _PO_ESCAPES:
            out += _PO_ESCAPES[n]
            i += 2
        elif n.isdigit():
            m = re.match(rb"[0-7]{1,3}", s[i + 1:])
            out.append(int(m.group(0), 8) & 0xFF)
            i += 1 + len(m.group(0))
        elif n == b"x" and re.match(rb"[0-9A-Fa-f]{1,2}", s[i + 2:]):
            m = re.match(rb"[0-9A-Fa-f]{1,2}", s[i + 2:])
            out.append(int(m.group(0), 16))
            i += 2 + len(m.group(0))
        else:                       # an unknown escape: kept as written
            out += c + n
            i += 2
    return bytes(out)


def parse_po(data):
    """The entries of a .po file as parse_mo gives them: a list of (msgid, msgstr) *bytes*
    in file order (msgid may hold a context: ctx 0x04 id; plurals: singular 0x00 plural,
    the msgstr[N] forms joined by 0x00), the header entry (msgid "") included. Strings may
    continue over several quoted lines; entries flagged fuzzy and obsolete entries (#~)
    are left out, as msgfmt leaves them out of a .mo (the header is kept even when
    fuzzy: it only gives the charset)."""
    out = []
    cur, key, fuzzy = {}, None, False

    def flush():
        if "msgid" in cur and (not cur.get("fuzzy") or (cur["msgid"] == b"" and "msgctxt" not in cur)):
            k = cur["msgid"]
            if "msgid_plural" in cur:
                k += b"\0" + cur["msgid_plural"]
            if "msgctxt" in cur:
                k = cur["msgctxt"] + b"\x04" + k
            forms = [cur[f] for f in sorted(f for f in cur if isinstance(f, int))]
            out.append((k, b"\0".join(forms)))

    for n, line in enumerate(data.replace(b"\r\n", b"\n").split(b"\n"), 1):
        line = line.strip()
        if line.startswith(b"\xef\xbb\xbf"):
            line = line[3:]
        if not line:
            continue
        if line.startswith(b"#"):
            if line.startswith(b"#,") and b"fuzzy" in line[2:].replace(b",", b" ").split():
                fuzzy = True
            continue
        if line.startswith(b'"'):
            if key is None:
                raise MoError(f"line {n}: a string outside an entry")
            cur[key] += _po_string(line)
            continue
        m = _PO_KEYWORD.match(line)
        if not m:
            raise MoError(f"line {n}: cannot parse {line[:40]!r}")
        kw = m.group(1).decode("ascii")
        if kw in ("msgctxt", "msgid") and (key is not None and (key == "msgstr" or isinstance(key, int))):
            flush()                 # a new entry starts
            cur = {}
        if not cur:
            cur["fuzzy"], fuzzy = fuzzy, False
        key = int(m.group(2)) if m.group(2) is not None else 0 if kw == "msgstr" else kw
        cur[key] = _po_string(m.group(3))
    if key is not None:
        flush()
    return out


def mo_messages(data):
    """(English, translation) string pairs of one .mo file (catalog_messages)."""
    return catalog_messages(parse_mo(data))


def po_messages(data):
    """(English, translation) string pairs of one .po file (catalog_messages; fuzzy
    entries are already left out by parse_po)."""
    return catalog_messages(parse_po(data))


def catalog_messages(entries):
    """(English, translation) string pairs of a catalog's (msgid, msgstr) byte entries
    (parse_mo or parse_po): header dropped, context
    dropped (it only disambiguates), plurals paired form by form (singular with the
    first form, plural with the second), empty translations and translator credits
    dropped. Raw strings:
    normalisation is `clean_pair`'s job."""
    cs = header_charset(entries)
    try:
        "".encode(cs)
    except LookupError:
        raise MoError(f"unknown charset {cs}")
    out = []
    for k, v in entries:
        if k == b"":
            continue
        try:
            ks, vs = k.decode(cs), v.decode(cs)
        except UnicodeDecodeError:
            continue
        if "\x04" in ks:
            ks = ks.split("\x04", 1)[1]
        ids = ks.split("\x00")
        if ids[0].strip() in CREDITS:
            continue
        forms = vs.split("\x00")
        if len(ids) == 1:
            out.append((ids[0], forms[0]))
        else:
            out.append((ids[0], forms[0]))
            if len(forms) >= 2:
                out.append((ids[1], forms[1]))
    return [(a, b) for a, b in out if a.strip() and b.strip()]


# ---------------------------------------------------------------------------------------------
# Normalisation

# printf conversions (no space flag: "100% done" is not "% d"), Qt's %1..%99, Python's
# %(name)s and {name}/{0}: they must occur equally often on both sides.
FORMAT = re.compile(r"%(?:\d+\$|\([A-Za-z_][A-Za-z0-9_]*\))?[-+#0']*(?:\d+|\*)?(?:\.(?:\d+|\*))?"
                    r"(?:hh|h|ll|l|L|q|j|z|t|I64|I32)?[diouxXeEfFgGaAcspSC]"
                    r"|%\d{1,2}(?![\d$])|\{[A-Za-z_0-9]*\}")


def format_specs(s):
    """The format specifiers of s, positions dropped, as a sorted list."""
    s = s.replace("%%", "")
    return sorted(re.sub(r"^%\d+\$", "%", m) for m in FORMAT.findall(s))


# An accelerator marker: '_' (GTK) or '&' (Qt/KDE) right before a letter or digit.
# '__' and '&&' are literal characters; '&amp;'-style entities are not markers.
def _marker_positions(s, mark):
    pos = []
    i = 0
    while i < len(s):
        c = s[i]
        if c == mark:
            if i + 1 < len(s) and s[i + 1] == mark:
                i += 2
                continue
            if i + 1 < len(s) and s[i + 1].isalnum():
                if mark == "&" and re.match(r"&#?[A-Za-z0-9]+;", s[i:]):
                    i += 1
                    continue
                pos.append(i)
        i += 1
    return pos


def _token_at(s, i):
    a = i
    while a > 0 and (s[a - 1].isalnum() or s[a - 1] in "_&"):
        a -= 1
    b = i + 1
    while b < len(s) and (s[b].isalnum() or s[b] in "_&"):
        b += 1
    return s[a:b]


def _markers(s, other, mark):
    """The positions of s's accelerator markers `mark` that are not part of a name: a
    marker whose word (e.g. LC_ALL, _sym, AT&T) also occurs verbatim on the other side
    is a name when it sits inside the word, the word holds several markers, or the
    letter after it is not a capital ("_Zoom" kept as "_Zoom" is still a mnemonic)."""
    out = []
    for i in _marker_positions(s, mark):
        tok = _token_at(s, i)
        if tok in other and ((i > 0 and s[i - 1].isalnum()) or tok.count(mark) > 1 or not s[i + 1].isupper()):
            continue
        out.append(i)
    return out


def _drop(s, positions):
    for i in reversed(positions):
        s = s[:i] + s[i + 1:]
    return s


def strip_accelerators(src, tgt):
    """Remove the mnemonic markers from both sides, the same way: the marker kind is
    the one the English uses ('_' or '&'; a button list such as "&Yes &No" has several);
    a translation's markers are removed too when the English has none of either kind
    (the translator added one)."""
    for mark in ("_", "&"):
        ps = _markers(src, tgt, mark)
        if ps:
            return _drop(src, ps), _drop(tgt, _markers(tgt, src, mark))
    for mark in ("_", "&"):
        pt = _markers(tgt, src, mark)
        if pt:
            return src, _drop(tgt, pt)
    return src, tgt


def clean(s):
    s = s.replace("\u00a0", " ").replace("\u202f", " ").replace("\t", " ")
    s = unicodedata.normalize("NFC", s)
    return re.sub(r"\s+", " ", s).strip()


def clean_pair(src, tgt):
    """Normalised (src, tgt) pairs from one catalog entry: [] when dropped. Paragraphs
    (blank-line separated) become separate pairs when both sides have as many."""
    src, tgt = src.replace("\r\n", "\n"), tgt.replace("\r\n", "\n")
    ps = [p for p in re.split(r"\n\s*\n", src) if p.strip()]
    pt = [p for p in re.split(r"\n\s*\n", tgt) if p.strip()]
    units = list(zip(ps, pt)) if len(ps) == len(pt) and len(ps) > 1 else [(src, tgt)]
    out = []
    for a, b in units:
        a, b = strip_accelerators(a, b)
        a, b = clean(a), clean(b)
        if keep(a, b):
            out.append((a, b))
    return out


def sane_pair(a, b):
    """The length and sanity rules every catalog-like recipe shares: both sides present and
    different, letters in the English, at most 80 / 100 words, and a length ratio within 3
    either way once a side has 10 characters."""
    if not a or not b or a == b:
        return False
    if not re.search(r"[A-Za-z]{2}", a):
        return False
    if len(a.split()) > 80 or len(b.split()) > 100:
        return False
    if min(len(a), len(b)) >= 10:
        r = (len(a) + 1) / (len(b) + 1)
        if r > 3 or r < 1 / 3:
            return False
    return True


def keep(a, b):
    """sane_pair, and the same printf/Qt/Python format specifiers on both sides."""
    return sane_pair(a, b) and format_specs(a) == format_specs(b)


# ---------------------------------------------------------------------------------------------
# .deb files


def deb_members(path):
    """(name, bytes) of the members of a .deb (an ar archive)."""
    with open(path, "rb") as f:
        data = f.read()
    if not data.startswith(b"!<arch>\n"):
        raise ValueError(f"{path}: not an ar archive")
    i = 8
    while i + 60 <= len(data):
        hdr = data[i:i + 60]
        name = hdr[:16].decode("ascii").strip().rstrip("/")
        size = int(hdr[48:58].decode("ascii").strip())
        yield name, data[i + 60:i + 60 + size]
        i += 60 + size + (size & 1)


def deb_files(path, key):
    """{key(name): bytes} of the files of a .deb's data.tar whose path (without "./")
    gives a key other than None; symlinks and hard links are followed within the package."""
    for name, blob in deb_members(path):
        if not name.startswith("data.tar"):
            continue
        if name.endswith(".xz"):
            raw = lzma.decompress(blob)
        elif name.endswith(".gz"):
            raw = gzip.decompress(blob)
        elif name.endswith(".bz2"):
            raw = bz2.decompress(blob)
        elif name == "data.tar":
            raw = blob
        else:
            raise ValueError(f"{path}: unsupported member {name}")
        found = {}
        with tarfile.open(fileobj=io.BytesIO(raw), mode="r:") as tf:
            members = {m.name.lstrip("./"): m for m in tf.getmembers()}
            for n, m in sorted(members.items()):
                k = key(n)
                if k is None:
                    continue
                t = m
                for _ in range(10):   # follow links inside the package
                    if t is None or not (t.issym() or t.islnk()):
                        break
                    tgt = t.linkname if t.islnk() else os.path.normpath(
                        os.path.join(os.path.dirname(n), t.linkname))
                    t = members.get(tgt.lstrip("./").lstrip("/"))
                if t is not None and t.isfile():
                    found[k] = tf.extractfile(t).read()
        return found
    raise ValueError(f"{path}: no data.tar member")


def deb_mo_files(path):
    """{(lang, domain): bytes} of the fr/de .mo files in a .deb."""
    def key(n):
        m = MO_PATH.match(n)
        return (m.group(1), m.group(2)) if m else None
    return deb_files(path, key)


# ---------------------------------------------------------------------------------------------
# select / download


def read_manifest(path=MANIFEST):
    rows = []
    with open(path, encoding="utf-8") as f:
        head = None
        for line in f:
            if line.startswith("#"):
                continue
            cols = line.rstrip("\n").split("\t")
            if head is None:
                head = cols
                continue
            rows.append(dict(zip(head, cols)))
    return rows


def deb_name(r):
    return f"{r['package']}_{r['version'].replace(':', '%3a')}_{r['architecture']}.deb"


def one_deb(manifest, cache, who):
    """(path of the .deb in cache, its manifest row) for a manifest that names one package."""
    rows = read_manifest(manifest)
    if len(rows) != 1:
        raise SystemExit(f"{who}: {manifest} should name one package")
    return os.path.join(cache, deb_name(rows[0])), rows[0]


def select_one(package, manifest, comment):
    """`apt-cache show PACKAGE` -> a one-package manifest (package, version, architecture,
    source, size, SHA-256) under the line `# COMMENT`; returns its row."""
    text = subprocess.run(["apt-cache", "show", package], check=True, capture_output=True, text=True).stdout
    for block in text.split("\n\n"):
        d = dict(re.findall(r"^([A-Za-z0-9-]+): (.*)$", block, re.M))
        if d.get("Package") == package:
            break
    else:
        raise SystemExit(f"apt-cache knows no {package}")
    cols = ["package", "version", "architecture", "source", "size", "sha256"]
    row = dict(package=package, version=d["Version"], architecture=d["Architecture"],
               source=d.get("Source", package).split()[0], size=d["Size"], sha256=d["SHA256"])
    with open(manifest, "w", encoding="utf-8") as f:
        f.write(f"# {comment}\n" + "\t".join(cols) + "\n" + "\t".join(row[c] for c in cols) + "\n")
    print(f"select: {package} {row['version']} -> {manifest}")
    return row


def _lz4_lines(path):
    p = subprocess.run(["lz4", "-dc", path], check=True, capture_output=True)
    return p.stdout.decode("utf-8", "replace").split("\n")


def _list(pattern):
    names = sorted(n for n in os.listdir(LISTS) if re.fullmatch(pattern, n))
    if not names:
        raise SystemExit(f"gettext_corpus.py: no {pattern} in {LISTS}: install apt-file and run apt-get update")
    return os.path.join(LISTS, names[0])


def packages_fields(names):
    """{package: its fields} from the archive's Packages index (bookworm main, amd64), for
    the packages of `names` that it lists."""
    pk = {}
    text = "\n".join(_lz4_lines(_list(r".*_debian_dists_bookworm_main_binary-amd64_Packages\.lz4")))
    for block in text.split("\n\n"):
        d = dict(re.findall(r"^([A-Za-z0-9-]+): (.*)$", block, re.M))
        if d.get("Package") in names:
            pk[d["Package"]] = d
    return pk


def cmd_select(a):
    want = collections.defaultdict(set)
    for arch in ("amd64", "all"):
        path = _list(rf".*_debian_dists_bookworm_main_Contents-{arch}\.lz4")
        for line in _lz4_lines(path):
            if "/LC_MESSAGES/" not in line:
                continue
            fn, _, locs = line.rpartition(" ")
            fn = fn.strip()
            m = MO_PATH.match(fn)
            if not m:
                continue
            for loc in locs.split(","):
                want[loc.rsplit("/", 1)[-1]].add(m.group(1))
    pk = packages_fields(want)
    rows, skipped = [], []
    for name in sorted(want):
        d = pk.get(name)
        if d is None:
            skipped.append((name, "not in Packages"))
            continue
        size = int(d["Size"])
        src = d.get("Source", name).split()[0]
        row = dict(package=name, version=d["Version"], architecture=d["Architecture"], source=src,
                   size=str(size), sha256=d["SHA256"], languages=",".join(sorted(want[name])))
        if size > MAX_DEB_BYTES:
            skipped.append((name, f"{size} bytes"))
            continue
        rows.append(row)
    cols = ["package", "version", "architecture", "source", "size", "sha256", "languages"]
    with open(a.manifest, "w", encoding="utf-8") as f:
        f.write(f"# Debian bookworm/main binary packages with usr/share/locale/{{fr,de}}/LC_MESSAGES/*.mo "
                f"(Contents-amd64 + Contents-all), .deb size <= {MAX_DEB_BYTES} bytes.\n")
        f.write(f"# {len(rows)} packages, {sum(int(r['size']) for r in rows)} bytes; "
                f"{len(skipped)} skipped: " + " ".join(f"{n}({w})" for n, w in skipped) + "\n")
        f.write("\t".join(cols) + "\n")
        for r in rows:
            f.write("\t".join(r[c] for c in cols) + "\n")
    print(f"select: {len(want)} packages carry fr/de catalogs; {len(rows)} kept "
          f"({sum(int(r['size']) for r in rows) / 1e9:.2f} GB), {len(skipped)} skipped -> {a.manifest}")


def cmd_download(a):
    rows = read_manifest(a.manifest)
    os.makedirs(a.cache, exist_ok=True)
    missing = [r for r in rows if not os.path.isfile(os.path.join(a.cache, deb_name(r)))]
    print(f"download: {len(rows)} packages in the manifest, {len(missing)} to fetch "
          f"({sum(int(r['size']) for r in missing) / 1e6:.0f} MB)", flush=True)
    for i in range(0, len(missing), 100):
        chunk = missing[i:i + 100]
        subprocess.run(["apt-get", "download", "-q"] + [f"{r['package']}={r['version']}" for r in chunk],
                       cwd=a.cache, check=True, stdout=subprocess.DEVNULL)
        print(f"download: {min(i + 100, len(missing))}/{len(missing)}", flush=True)
    bad = []
    for r in rows:
        p = os.path.join(a.cache, deb_name(r))
        if not os.path.isfile(p) or R.sha256_file(p) != r["sha256"]:
            bad.append(deb_name(r))
    if bad:
        raise SystemExit(f"gettext_corpus.py: {len(bad)} .deb files missing or with a wrong SHA-256: {bad[:10]}")
    print(f"download: all {len(rows)} .deb files match the manifest's SHA-256", flush=True)


# ---------------------------------------------------------------------------------------------
# build


def split_of(source_package):
    h = int(hashlib.sha1(source_package.encode("utf-8")).hexdigest(), 16) % 1000
    return "test" if h < TEST_PERMILLE else "dev" if h < DEV_PERMILLE else "train"


def read_lines(path):
    with open(path, encoding="utf-8") as f:
        return f.read().split("\n")[:-1]


def held_out_sets(corpus, lang):
    """(train sources, dev+test sources and targets) of CORPUS/en-LANG, a folder laid out as
    DDTP's and the recipes' outputs are ({train,dev,test}.{en,LANG}), or empty sets."""
    if not corpus:
        return set(), set()
    d = os.path.join(corpus, f"en-{lang}")
    train = set(read_lines(os.path.join(d, "train.en")))
    held = set()
    for split in ("dev", "test"):
        held.update(read_lines(os.path.join(d, f"{split}.en")))
        held.update(read_lines(os.path.join(d, f"{split}.{lang}")))
    return train, held


def other_corpora_sets(corpora, lang):
    """held_out_sets of each of CORPORA (None skipped), united."""
    train, held = set(), set()
    for corpus in corpora:
        tr, he = held_out_sets(corpus, lang)
        train |= tr
        held |= he
    return train, held


def build_splits(units, other_train=frozenset(), other_held=frozenset(), split_of=split_of,
                 held_name="DDTP dev/test sentences", train_name="DDTP train"):
    """The splits of one language from {unit: [(src, tgt), ...]} (normalised pairs; a unit
    is a source package here, a documentation module in docs_corpus.py): returns
    ({split: sorted list of (src, tgt)}, counts), where:
    - each pair's split is its unit's (split_of);
    - an English sentence in a train unit is train only (removed from dev/test): no
      dev or test English sentence occurs in train; one in a dev and a test unit is dev;
    - train: every distinct (src, tgt), minus pairs whose source or target is in
      other_held (held_name: DDTP's dev/test sentences); dev/test: one reference per
      English sentence (the most frequent translation across units, ties by code point
      order), minus English sentences in other_train (train_name: DDTP's train).
    """
    where = collections.defaultdict(set)          # src -> splits it occurs in
    counts = {s: collections.Counter() for s in ("train", "dev", "test")}
    raw = 0
    for unit, pairs in sorted(units.items()):
        sp = split_of(unit)
        for x, y in pairs:
            raw += 1
            counts[sp][(x, y)] += 1
            where[x].add(sp)
    out, stats = {}, {"raw pairs": raw}
    tr = [(x, y) for (x, y) in counts["train"] if x not in other_held and y not in other_held]
    stats[f"train pairs dropped ({held_name})"] = len(counts["train"]) - len(tr)
    out["train"] = sorted(tr)
    for sp, earlier in (("dev", ("train",)), ("test", ("train", "dev"))):
        best, dropped = {}, set()
        for (x, y), c in counts[sp].items():
            if any(e in where[x] for e in earlier) or x in other_train:
                dropped.add(x)
                continue
            if x not in best or (-c, y) < (-best[x][1], best[x][0]):
                best[x] = (y, c)
        out[sp] = sorted((x, y) for x, (y, _) in best.items())
        stats[f"{sp} English dropped (in an earlier split or {train_name})"] = len(dropped)
    return out, stats


def write_pairs(d, split, lang, pairs):
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, f"{split}.en"), "w", encoding="utf-8", newline="\n") as fe, \
            open(os.path.join(d, f"{split}.{lang}"), "w", encoding="utf-8", newline="\n") as ft:
        for x, y in pairs:
            fe.write(x + "\n")
            ft.write(y + "\n")


def cmd_build(a):
    t0 = time.time()
    rows = read_manifest(a.manifest)
    per_lang = {lang: collections.defaultdict(list) for lang in LANGS}
    n_mo = collections.Counter()
    bad = []
    for k, r in enumerate(rows):
        path = os.path.join(a.cache, deb_name(r))
        try:
            mos = deb_mo_files(path)
        except (ValueError, OSError, tarfile.TarError, lzma.LZMAError) as e:
            bad.append(f"{deb_name(r)}: {e}")
            continue
        for (lang, domain), data in sorted(mos.items()):
            try:
                msgs = mo_messages(data)
            except MoError as e:
                bad.append(f"{deb_name(r)} {lang}/{domain}.mo: {e}")
                continue
            n_mo[lang] += 1
            for x, y in msgs:
                per_lang[lang][r["source"]].extend(clean_pair(x, y))
        if (k + 1) % 200 == 0:
            print(f"build: {k + 1}/{len(rows)} packages read ({time.time() - t0:.0f} s)", flush=True)
    summary = [f"packages: {len(rows)} (.deb total {sum(int(r['size']) for r in rows)} bytes), "
               f"source packages: {len({r['source'] for r in rows})}"]
    splits_src = collections.Counter(split_of(s) for s in {r["source"] for r in rows})
    summary.append("source packages per split: " + ", ".join(f"{s} {splits_src[s]}" for s in ("train", "dev", "test")))
    for lang in LANGS:
        tr_src, held = held_out_sets(a.ddtp, lang)
        out, stats = build_splits(per_lang[lang], tr_src, held)
        d = os.path.join(a.out, f"en-{lang}")
        for sp, pairs in out.items():
            write_pairs(d, sp, lang, pairs)
        summary.append(f"en-{lang}: {n_mo[lang]} .mo files from {len(per_lang[lang])} source packages; "
                       + "; ".join(f"{k} {v}" for k, v in stats.items())
                       + "; " + ", ".join(f"{sp} {len(out[sp])}" for sp in ("train", "dev", "test")))
        if a.ddtp:
            c = os.path.join(a.out, "combined", f"en-{lang}")
            dd = os.path.join(a.ddtp, f"en-{lang}")
            ddtp_train = list(zip(read_lines(os.path.join(dd, "train.en")), read_lines(os.path.join(dd, f"train.{lang}"))))
            ddtp_dev = list(zip(read_lines(os.path.join(dd, "dev.en")), read_lines(os.path.join(dd, f"dev.{lang}"))))
            # The gettext dev pairs added: a deterministic sample (by SHA-1 of the English).
            gdev = sorted(out["dev"], key=lambda p: hashlib.sha1(p[0].encode("utf-8")).hexdigest())
            write_pairs(c, "train", lang, ddtp_train + out["train"])
            write_pairs(c, "dev", lang, ddtp_dev + gdev[:COMBINED_DEV_GETTEXT])
            summary.append(f"combined/en-{lang}: train {len(ddtp_train) + len(out['train'])} "
                           f"(DDTP {len(ddtp_train)} first), dev {len(ddtp_dev) + min(len(gdev), COMBINED_DEV_GETTEXT)} "
                           f"(DDTP {len(ddtp_dev)} first)")
    with open(os.path.join(a.out, "packages.tsv"), "w", encoding="utf-8") as f:
        f.write("source\tsplit\tpackages\n")
        by_src = collections.defaultdict(list)
        for r in rows:
            by_src[r["source"]].append(f"{r['package']}={r['version']}")
        for s in sorted(by_src):
            f.write(f"{s}\t{split_of(s)}\t{' '.join(sorted(by_src[s]))}\n")
    if bad:
        summary.append(f"unreadable: {len(bad)}: " + "; ".join(bad))
    R.write_summary(a.out, summary)
    print(f"build: {time.time() - t0:.0f} s", flush=True)


# Licence families for the tally; keywords for copyright files that are not DEP-5.
FAMILIES = [("LGPL", r"^L?GPL-?L|^LGPL|^LGPLv|^LGPL"), ("GPL", r"^GPL|^AGPL"), ("MIT/X11", r"^(MIT|Expat|X11)"),
            ("BSD", r"BSD"), ("Apache", r"(?i)^Apache"), ("MPL", r"^MPL"), ("Artistic", r"Artistic"),
            ("public domain", r"(?i)public.?domain"), ("CC", r"^CC")]
PROSE = [("LGPL", r"GNU (Lesser|Library) General Public"), ("GPL", r"GNU (Affero )?General Public|GPL"),
         ("MIT/X11", r"Permission is hereby granted, free of charge|\bMIT\b"), ("BSD", r"\bBSD\b|Redistribution and use"),
         ("Apache", r"Apache License"), ("MPL", r"Mozilla Public"), ("Artistic", r"Artistic"),
         ("public domain", r"(?i)public domain")]


def licence_of(text):
    """(main licence, all licences) of a copyright file: DEP-5's "Files: *" paragraph
    (else every License: line), or keywords for a free-form file ("free-form: GPL")."""
    paras = [p for p in re.split(r"\n\s*\n", text) if p.strip()]
    if re.match(r"(?i)format:", text.lstrip()) and any(re.search(r"(?im)^license:", p) for p in paras):
        names, main = [], None
        for p in paras:
            m = re.search(r"(?im)^license:[ \t]*(\S[^\n]*)?", p)
            if not m or not m.group(1):
                continue
            lic = m.group(1).strip()
            names.append(lic)
            if main is None and re.search(r"(?im)^files:\s*\*\s*$", p):
                main = lic
        return (main or (names[0] if names else "unknown")), sorted(set(names))
    hits = sorted((m.start(), f) for f, rx in PROSE for m in [re.search(rx, text)] if m)
    found = sorted({f for _, f in hits})
    return ("free-form: " + hits[0][1] if hits else "free-form: unknown"), found


def family(lic):
    lic = lic.replace("free-form: ", "")
    first = re.split(r"\s+or\s+|\s+and\s+|\s*[|,]\s*", lic)[0]
    for f, rx in FAMILIES:
        if re.search(rx, first):
            return f
    return "other"


def cmd_licences(a):
    """OUT/licences.tsv: each source package's licence as its copyright file states it
    (the first of its manifest's packages, by name, that holds one), and a tally."""
    rows = read_manifest(a.manifest)
    by_src = collections.defaultdict(list)
    for r in rows:
        by_src[r["source"]].append(r)
    out, tally = [], collections.Counter()
    for src in sorted(by_src):
        got = None
        for r in sorted(by_src[src], key=lambda r: r["package"]):
            want = f"usr/share/doc/{r['package']}/copyright"
            files = deb_files(os.path.join(a.cache, deb_name(r)), lambda n, w=want: "c" if n == w else None)
            if "c" in files:
                got = (r["package"],) + licence_of(files["c"].decode("utf-8", "replace"))
                break
        if got is None:
            got = ("-", "no copyright file in these packages (a linked doc folder)", [])
        tally[family(got[1]) if got[0] != "-" else "not found"] += 1
        out.append(f"{src}\t{got[0]}\t{got[1]}\t{'; '.join(got[2])}")
    os.makedirs(a.out, exist_ok=True)
    with open(os.path.join(a.out, "licences.tsv"), "w", encoding="utf-8") as f:
        f.write("source\tcopyright_of\tmain_licence\tall_licences\n" + "\n".join(out) + "\n")
    print(f"licences: {len(by_src)} source packages, main licence family: "
          + ", ".join(f"{k} {v}" for k, v in tally.most_common()))


def check_no_leak(corpus_dir, lang, extra_train_dirs=()):
    """English sentences of the test (and dev) split that also occur in train (the
    gettext train, and any extra train folders given): [] when clean."""
    d = os.path.join(corpus_dir, f"en-{lang}")
    train = set(read_lines(os.path.join(d, "train.en")))
    for e in extra_train_dirs:
        train.update(read_lines(os.path.join(e, "train.en")))
    bad = []
    for sp in ("test", "dev"):
        for x in read_lines(os.path.join(d, f"{sp}.en")):
            if x in train:
                bad.append((sp, x))
    return bad


def cmd_check(a):
    status = 0
    for lang in LANGS:
        extra = [os.path.join(a.out, "combined", f"en-{lang}")] if os.path.isdir(
            os.path.join(a.out, "combined", f"en-{lang}")) else []
        bad = check_no_leak(a.out, lang, extra)
        n = {sp: len(read_lines(os.path.join(a.out, f"en-{lang}", f"{sp}.en"))) for sp in ("train", "dev", "test")}
        if bad:
            status = 1
            print(f"check: en-{lang}: {len(bad)} dev/test English sentences occur in train, e.g. {bad[:3]}")
        else:
            print(f"check: en-{lang}: none of the {n['test']} test and {n['dev']} dev English sentences "
                  f"occurs in the {n['train']} train pairs" + (" or in combined/ train" if extra else ""))
        if a.ddtp:
            _tr, held = held_out_sets(a.ddtp, lang)
            d = os.path.join(a.out, f"en-{lang}")
            leak = [x for x, y in zip(read_lines(os.path.join(d, "train.en")),
                                      read_lines(os.path.join(d, f"train.{lang}"))) if x in held or y in held]
            if leak:
                status = 1
                print(f"check: en-{lang}: {len(leak)} train pairs hold a DDTP dev/test sentence")
            else:
                print(f"check: en-{lang}: no train pair holds a DDTP dev/test sentence")
    return status


def compare(out, ref, manifest="packages.tsv"):
    """Compare the corpus files under `ref` (the splits and `manifest`) with those under `out`."""
    return R.compare_files(out, ref, sorted(_corpus_files(ref, manifest)))


def _corpus_files(root, manifest="packages.tsv"):
    """The corpus files under `root`: the splits and the manifest (relative paths)."""
    for dp, _dn, fn in os.walk(root):
        for f in fn:
            if re.fullmatch(r"(train|dev|test)\.[a-z]{2}", f) or f == manifest:
                yield os.path.relpath(os.path.join(dp, f), root)


def main(argv=None):
    p = R.parser(__doc__, ["select", "download", "build", "check", "licences", "all"], manifest=MANIFEST,
                 cache="gettext-debs", out="gettext-corpus",
                 reference_help="a previous OUT folder: compare every split byte for byte")
    p.add_argument("--ddtp", help="the DDTP corpus folder (en-fr/, en-de/): its dev/test sentences are kept "
                                  "out of train, its train English out of dev/test; also writes combined/")
    a = p.parse_args(argv)
    return R.run(a, "gettext_corpus.py", select=cmd_select, licences=cmd_licences, download=cmd_download,
                 build=cmd_build, check=cmd_check, compare=compare)


if __name__ == "__main__":
    sys.exit(main())
