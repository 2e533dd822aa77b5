#!/usr/bin/env python3
"""Synthetic English→French train pairs: English everyday sentences and dictionary entries
forward-translated by the rule-based Apertium pivot English→Catalan→French
(`apertium eng-cat | apertium cat-fra`), filtered so that Apertium's typical errors
(unknown words, broken generation, misparses a round trip exposes) stay out.
Train only: dev and test sets are never synthetic.

One command does everything (README.md beside this file):

  python3 models/corpus/apertium_corpus.py all --out runs/apertium-corpus \
      --ding runs/ding-corpus --bible runs/bible-corpus --ddtp ../shared/data/ddtp \
      [--dialogue runs/dialogue-corpus] [--wordnet runs/wordnet-examples] [--reference OLD_OUT] \
      [--sha256 models/corpus/apertium-corpus.sha256]

Steps (each is also a subcommand):
  select    the installed versions of the Apertium packages the pipelines run
            (dpkg-query), `apt-get download PKG=VERSION` into the cache and their
            SHA-256 -> the manifest apertium-packages.tsv beside this file. Only
            needed to refresh the committed manifest.
  download  `apt-get download PKG=VERSION` when the cache lacks a .deb, then every
            .deb's SHA-256 against the manifest (gettext_corpus.cmd_download).
  build     checks that the installed packages are the manifest's versions (and
            `dpkg --verify` finds no changed file), reads the English TRAIN inputs,
            drops those that are dev/test sentences of any corpus, translates them,
            filters (Apertium's marks, the form rules, the basic rules, the round
            trip), cleans and writes OUT/en-fr/train.{en,fr} (and the same pairs split
            into OUT/sentences/en-fr and OUT/entries/en-fr), OUT/candidates.tsv (every
            translated sentence, its round trip, chrF and fate) and OUT/SUMMARY.txt.
  check     the leak check on a built corpus (exit status 1 on a leak).

How Apertium is run: not `-f txt` (its deformatter inserts sentence ends at blank lines
and end of file, and a transfer rule can reach across a line end) nor `-f line` (its
reformatter drops each line's final full stop and passes `^`/`$` unescaped), but
`apertium -z -f none` (null-flush: every program of the pipeline flushes at a NUL) on
segments this recipe formats itself, as `apertium-destxt` would: the stream's reserved
characters escaped with a backslash, a leading sentence end `.[][\\n]` (what a sentence
has before it in running text: without it cat-fra omits subject pronouns, "Te veux."
for "I love you."), then the sentence, then a superblank `[N]` holding its index in the
chunk, then NUL. A segment whose output does not start with the prefix and end with its
own `[N]` is counted and dropped; where a program crashes (apertium-postchunk segfaults
on a few sentences) the chunk's output stops there: that sentence is dropped and the rest
of the chunk runs again; more segments than were sent stop the build.

Deterministic: the output depends only on the inputs, the manifest's package versions
(verified) and the fixed order and chunking below (the pipeline keeps some state from one
segment to the next, the tagger at least, so a sentence can translate differently in
another chunk: about 3 % did when a chunk's order was reversed); no clock, no randomness.
"""
import collections
import os
import re
import subprocess
import sys
import threading
import time
import unicodedata

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import recipe_cli as R  # noqa: E402  (the shared command line and SHA-256 checks)
import gettext_corpus as G  # noqa: E402  (manifest, download, SHA-256, compare)
import ding_corpus as D  # noqa: E402  (norm, read_everyday, drop_reason, sha256 table)

ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
MANIFEST = os.path.join(HERE, "apertium-packages.tsv")
# Every package whose program or data runs in the four pipelines (the modes' lt-proc,
# cg-proc, apertium-tagger, lsx-proc, lrx-proc, apertium-anaphora, transfer, ...).
PACKAGES = ("apertium", "libapertium3", "lttoolbox", "liblttoolbox3", "cg3", "libcg3-1",
            "apertium-lex-tools", "apertium-anaphora", "apertium-separable",
            "apertium-eng-cat", "apertium-fra-cat")
CHUNK = 5000                  # segments per apertium pipeline run
THRESHOLD = 60.0              # round-trip chrF2 (0-100) a pair must exceed (README.md: how chosen)
FORWARD = (("apertium", "-z", "-f", "none", "eng-cat"), ("apertium", "-z", "-f", "none", "cat-fra"))
BACKWARD = (("apertium", "-z", "-f", "none", "fra-cat"), ("apertium", "-z", "-f", "none", "cat-eng"))

# ---------------------------------------------------------------------------------------------
# The stream format

RESERVED = re.compile(r"([\\^$\[\]{}/@<>])")   # what apertium-destxt escapes
PREFIX = ".[][\n]"                             # a sentence end before each segment
MARKS = re.compile(r"[*#@]")                   # unknown word, generation error, transfer error
# English that the stream cannot carry as text (`~` is lt-proc's own joiner and vanishes;
# literal * # @ would read as Apertium's marks), or control characters.
UNSAFE = re.compile(r"[~*#@\x00-\x1f\x7f]")
# A program's placeholder or markup (the dialogue catalogs'), which a translation must keep
# as it is: Apertium translates or moves it.
PLACEHOLDER = re.compile(r"<[^<>]*>|\{[^{}]*\}")


def escape(s):
    """Text -> Apertium stream text (reserved characters backslash-escaped)."""
    return RESERVED.sub(r"\\\1", s)


def unescape(s):
    """Apertium stream text -> text: backslash escapes resolved, superblanks `[...]` (formatting
    Apertium carried through) replaced by their content."""
    out, i, n = [], 0, len(s)
    while i < n:
        c = s[i]
        if c == "\\" and i + 1 < n:
            out.append(s[i + 1])
            i += 2
        elif c == "[":
            j = i + 1
            while j < n and s[j] != "]":
                j += 2 if s[j] == "\\" else 1
            out.append(unescape(s[i + 1:j]))
            i = j + 1
        else:
            out.append(c)
            i += 1
    return "".join(out)


def segments(texts):
    """The NUL-separated input of one chunk: PREFIX + escaped stream text + `[index]` + NUL."""
    return "".join(f"{PREFIX}{t}[{i}]\0" for i, t in enumerate(texts))


CRASHED = "\0crashed"    # the output of a segment on which a program of the pipeline crashed


def split_output(out, n):
    """(outputs, complete) of a chunk of n segments, `out` the bytes the pipeline wrote.
    outputs: [stream text, or None where the segment's prefix or index mark was lost];
    complete: False when the pipeline stopped early (a program crashed on segment
    len(outputs): the NUL-flushed segments before it are whole, the rest never came).
    Trailing empty segments are the programs' own flushes at the end. Raises ValueError
    on more segments than n or a non-empty segment after an empty one."""
    parts = out.split(b"\0")
    whole = parts[:-1]                  # the piece after the last NUL is not a whole segment
    m = 0
    while m < len(whole) and whole[m]:
        m += 1
    if any(whole[m:]) or m > n:
        raise ValueError(f"apertium gave {sum(1 for p in whole if p)} non-empty segments for {n}")
    res = []
    for i, p in enumerate(whole[:m]):
        p = p.decode("utf-8")
        tail = f"[{i}]"
        res.append(p[len(PREFIX):-len(tail)] if p.startswith(PREFIX) and p.endswith(tail) else None)
    return res, m == n


def _run_once(stages, texts):
    data = segments(texts).encode("utf-8")
    procs = []
    for k, cmd in enumerate(stages):
        procs.append(subprocess.Popen(cmd, stdin=subprocess.PIPE if k == 0 else procs[-1].stdout,
                                      stdout=subprocess.PIPE))
        if k:
            procs[-2].stdout.close()       # the next process owns it now

    def feed():
        try:
            procs[0].stdin.write(data)
        except BrokenPipeError:            # a program crashed: split_output sees where
            pass
        finally:
            try:
                procs[0].stdin.close()
            except BrokenPipeError:
                pass
    t = threading.Thread(target=feed)
    t.start()
    out = procs[-1].stdout.read()
    t.join()
    for p in procs:
        p.wait()                           # exit codes say little: the NULs are checked instead
    return out


def run_pipeline(stages, texts):
    """Stream texts (already escaped) through the processes `stages` (each reading the
    previous one's output), one chunk: [output stream text, None (marks lost) or CRASHED].
    Where a program crashes (apertium-postchunk 3.8.3 segfaults on a few sentences, and the
    pipeline then stops), that segment is CRASHED and the rest of the chunk runs again from
    the next one."""
    res = []
    while len(res) < len(texts):
        start = len(res)
        out, complete = split_output(_run_once(stages, texts[start:]), len(texts) - start)
        res += out
        if not complete:
            res.append(CRASHED)
    return res


def translate(stages, texts, chunk=CHUNK, log=None):
    """run_pipeline over fixed chunks of `chunk` texts, in order."""
    res = []
    t0 = time.time()
    for i in range(0, len(texts), chunk):
        res += run_pipeline(stages, texts[i:i + chunk])
        if log:
            log(f"{min(i + chunk, len(texts))}/{len(texts)} ({(min(i + chunk, len(texts))) / max(time.time() - t0, 1e-9):.0f}/s)")
    return res


# ---------------------------------------------------------------------------------------------
# Filters and cleaning


def has_marks(text):
    """True when Apertium's output (unescaped) holds a mark: `*` unknown word, `#` a form the
    generator lacks, `@` a word the bilingual dictionary lacks (the inputs hold none of the
    three: UNSAFE)."""
    return bool(MARKS.search(text))


def lost_word(raw):
    """True when Apertium's output holds two spaces between words: a word it dropped left its
    blank ("Excuse me, do you speak English?" -> "Excuse-moi,  parles anglais?", "I don't like
    this" -> "Je  pas ainsi"). A blank at the start is not counted (a dropped "Do" of "Do you
    copy?" -> " tu copies?")."""
    return "  " in raw.strip()


def strip_marks(text):
    return MARKS.sub("", text)


def french_spacing(s):
    """The French text as the DDTP corpus writes it: NFC, one ASCII space between words (none
    before , . ) and none after ( [), and one ASCII space before ? ! ; and a colon that ends
    a clause (not 10:30 nor ://). Apertium writes `tu?`; DDTP (and everyday.tsv) `tu ?`."""
    s = unicodedata.normalize("NFC", s).replace("\u00a0", " ").replace("\u202f", " ")
    s = " ".join(s.split())
    s = re.sub(r" +([,.)\]])", r"\1", s)
    s = re.sub(r"([(\[]) +", r"\1", s)
    s = re.sub(r"(?<=[^\s?!])([?!]+)", r" \1", s)
    s = re.sub(r"(?<=[^\s;]);(?=\s|$)", " ;", s)
    s = re.sub(r"(?<=[^\s:]):(?=\s|$)", " :", s)
    return s


def clean_english(s):
    return " ".join(unicodedata.normalize("NFC", s).split())


def chrf(hyp, ref, order=6, beta=2):
    """Sentence chrF (0-100) as sacrebleu 2.x computes it (character n-grams 1..6 with the
    whitespace removed, beta 2, the average over the orders both strings have)."""
    hyp, ref = "".join(hyp.split()), "".join(ref.split())
    prec_sum = rec_sum = 0.0
    eff = 0
    for n in range(1, order + 1):
        h = collections.Counter(hyp[i:i + n] for i in range(len(hyp) - n + 1))
        r = collections.Counter(ref[i:i + n] for i in range(len(ref) - n + 1))
        nh, nr = sum(h.values()), sum(r.values())
        if nh and nr:
            m = sum((h & r).values())
            prec_sum += m / nh
            rec_sum += m / nr
            eff += 1
    if not eff:
        return 0.0
    p, r = prec_sum / eff, rec_sum / eff
    if p + r == 0:
        return 0.0
    f = beta * beta
    return 100 * (1 + f) * p * r / (f * p + r)


def roundtrip_score(english, roundtrip):
    """chrF2 of the round trip (French -> Catalan -> English, marks removed) against the English."""
    return chrf(strip_marks(roundtrip), english)


def keep_roundtrip(score, threshold=THRESHOLD):
    return score > threshold


# The French subject pronoun a sentence may start with, by the English one it starts with
# (after an auxiliary too: "Does it work?"), and the English a French il/elle/ils/elles needs.
SUBJECT_PRONOUNS = {"i": {"je", "j", "moi"}, "he": {"il"}, "she": {"elle"}, "we": {"nous", "on"},
                    "they": {"ils", "elles", "on"}, "you": {"tu", "vous", "toi"}}
FRENCH_NEEDS = {"il": {"he", "it", "there", "this", "that"}, "elle": {"she", "it", "this", "that"},
                "ils": {"they"}, "elles": {"they"}}
# A French sentence may start with these words (a subject pronoun, an article, a determiner):
# cat-fra writes some of them in lowercase at the start ("il n'a pas plu", "le mammouth de ...").
FRENCH_START = re.compile(r"(je|j'|tu|il|elle|on|nous|vous|ils|elles|le|la|les|l'|un|une|des|du|"
                          r"ce|cet|cette|ces|mon|ma|mes|ton|ta|tes|son|sa|ses|notre|nos|votre|vos|"
                          r"leur|leurs)(?=[\s'’]|$)|[ld]'")
AUXILIARIES = {"is", "was", "are", "were", "do", "does", "did", "can", "could", "will", "would",
               "shall", "should", "may", "might", "must", "has", "have", "had", "isn", "wasn",
               "aren", "weren", "don", "doesn", "didn", "can't", "couldn", "won", "wouldn",
               "shouldn", "hasn", "haven"}


def _words(s):
    return re.findall(r"[a-z]+(?:'[a-z]+)?", s.lower().replace("\u2019", "'"))


def _subject(words, aux=False):
    """The first word, or with aux the word after a leading auxiliary ("Does it work?")."""
    if not words:
        return ""
    if aux and words[0] in AUXILIARIES and len(words) > 1:
        return words[1]
    return words[0]


def subject_mismatch(en, fr):
    """The reason to drop a pair whose subject pronouns disagree (Catalan drops its subject
    pronouns, so the pivot loses them and cat-fra guesses "il"): a French il/elle/ils/elles
    first with no matching English subject first ("Turn on your mind!" -> "Il allume votre
    esprit !", the noun "rack" -> "il tourmente", "She is lecturing." -> "Il est en train
    d'enseigner."), or an English I/he/she/we/they/you first whose French pronoun is another
    or missing ("I felt fine." -> "Il sentait du but."), or a question's pronoun after an
    auxiliary missing anywhere in the French ("Did you sleep well?" -> "dormir bien ?").
    None if they agree."""
    fw = re.findall(r"[a-zàâçéèêëîïôûùüÿœæ]+", fr.lower())
    ew = [w.split("'")[0] for w in _words(en)]
    f0 = fw[0] if fw else ""
    if f0 in FRENCH_NEEDS and _subject(ew) not in FRENCH_NEEDS[f0] and _subject(ew, True) not in FRENCH_NEEDS[f0]:
        return "form: a French subject pronoun (il, elle, ils, elles) the English lacks"
    e0 = _subject(ew)
    if e0 in SUBJECT_PRONOUNS and f0 not in SUBJECT_PRONOUNS[e0]:
        return "form: the English subject pronoun (I, he, she, we, they, you) is not the French one"
    e1 = _subject(ew, True)
    if e0 in AUXILIARIES and e1 in SUBJECT_PRONOUNS and not SUBJECT_PRONOUNS[e1] & set(fw):
        return "form: a question's subject pronoun (Did you …?) missing in the French"
    return None


def is_sentence(en):
    """A sentence, as ding_corpus tells one: a capital (or digit) first, . ! ? last."""
    return D._sentence_like(en)


def is_entry(en):
    """A dictionary entry (word or phrase, "to give up", "kitchen table"), not a sentence:
    it starts with a lowercase letter."""
    return en[:1].islower()


def dictionary_form(en, fr):
    """(French, None) or (None, reason): the rules for Apertium's typical misreadings of a
    dictionary entry and its invented subject pronouns (README.md):
    - an infinitive entry "to X": Apertium reads "to" as "in order to" ("to write" -> "pour
      écrire"): "pour " is removed, as a French dictionary writes the infinitive; when the
      French does not start with "pour " the "to" was read as a preposition ("to wrinkle" ->
      "à ride"): dropped;
    - an entry whose first word ends in -ing translated as a gérondif ("processing" -> "en
      accusant", "praying" -> "en priant"): dropped;
    - subject pronouns that disagree (subject_mismatch): dropped;
    - a French that starts in lowercase where the English is a sentence (is_sentence): with a
      subject pronoun, article or determiner first (FRENCH_START: "Do you copy?" -> "tu copies
      ?", "Melendez's Mammoth can ..." -> "le mammouth de Melendez peut ...") it is capitalised,
      else its first word was lost or misread ("Did you arrive safely?" -> "arriver de forme
      sûre ?", "PDF document will not ..." -> "document de PDF ne sera pas ..."): dropped."""
    if is_entry(en) and re.match(r"to\s", en):
        if not fr.startswith("pour ") or len(fr) <= 5:
            return None, "form: an infinitive entry (to X) not translated as an infinitive"
        fr = fr[5:]
    elif is_entry(en) and re.match(r"[a-z]+ing\b", en) and fr.startswith("en "):
        return None, "form: an -ing entry translated as a gérondif (en ...)"
    why = subject_mismatch(en, fr)
    if why:
        return None, why
    if is_sentence(en) and fr[:1].islower():
        if not FRENCH_START.match(fr):
            return None, "form: the French starts in lowercase where the English has a capital (a lost first word)"
        fr = fr[0].upper() + fr[1:]
    return fr, None


def basic_drop_reason(en, fr):
    """ding_corpus.drop_reason on the cleaned pair: empty or identical sides, an English side
    without two letters, over 80/100 words, a length ratio beyond 3 (both sides >= 10 chars)."""
    return D.drop_reason(en, fr)


# ---------------------------------------------------------------------------------------------
# Inputs and held-out sentences


def held_out(ding, bible, ddtp, dialogue=None, everyday_path=None):
    """(normalised dev/test English of every corpus, normalised dev/test French of the en-fr
    ones) — ding_corpus.norm: NFKC, lowercase, punctuation dropped."""
    en, fr = set(), set()

    def add(path, into):
        for line in G.read_lines(path):
            into.add(D.norm(line))
    dirs = [(ding, ("en-de", os.path.join("words", "en-de"), os.path.join("all", "en-de"))),
            (bible, ("en-fr", "en-de")), (ddtp, ("en-fr", "en-de"))]
    if dialogue:
        dirs.append((dialogue, ("en-fr", "en-de")))
    for root, subs in dirs:
        for sub in subs:
            d = os.path.join(root, sub)
            lang = sub[-2:]
            for sp in ("dev", "test"):
                p = os.path.join(d, f"{sp}.en")
                if not os.path.isfile(p):
                    if sub.startswith("all"):
                        continue
                    raise SystemExit(f"apertium_corpus.py: {p} is missing")
                add(p, en)
                if lang == "fr":
                    add(os.path.join(d, f"{sp}.fr"), fr)
    for row in D.read_everyday(everyday_path):
        en.add(D.norm(row[0]))
        fr.add(D.norm(row[1]))
    en.discard("")
    fr.discard("")
    return en, fr


def inputs(a):
    """[(name, path)] of the English TRAIN inputs, in the order they are read."""
    res = [("ding sentences", os.path.join(a.ding, "en-de", "train.en")),
           ("ding words", os.path.join(a.ding, "words", "en-de", "train.en"))]
    if a.dialogue:
        res += [("dialogue en-fr", os.path.join(a.dialogue, "en-fr", "train.en")),
                ("dialogue en-de", os.path.join(a.dialogue, "en-de", "train.en"))]
    if a.wordnet:  # last, so that the inputs before it translate as they did without it
        res += [("wordnet examples", os.path.join(a.wordnet, "train.en"))]
    for _n, p in res:
        if os.path.basename(p) != "train.en":
            raise SystemExit(f"apertium_corpus.py: {p} is not a train split")
        if not os.path.isfile(p):
            raise SystemExit(f"apertium_corpus.py: {p} is missing")
    return res


def select_inputs(named_lines, held_en, counts):
    """[(name, English)] to translate: the inputs in order, each English once (the first
    input that has it), without the empty ones, those whose norm is a dev/test English
    sentence of any corpus (held_en), those UNSAFE for the stream and those holding a format
    specifier or placeholder."""
    seen, out = set(), []
    for name, lines in named_lines:
        for s in lines:
            counts[f"input lines: {name}"] += 1
            e = clean_english(s)
            if not e:
                counts["input dropped: empty"] += 1
            elif e in seen:
                counts["input dropped: a repeat (an earlier line or input has it)"] += 1
            elif D.norm(e) in held_en:
                counts["input dropped: a dev/test English sentence (normalised) of a corpus"] += 1
            elif UNSAFE.search(e):
                counts["input dropped: holds ~ * # @ or a control character"] += 1
            elif G.format_specs(e) or PLACEHOLDER.search(e):
                counts["input dropped: holds a format specifier or placeholder (%s, %1, {name}, <npcname>)"] += 1
            else:
                seen.add(e)
                out.append((name, e))
    return out


# ---------------------------------------------------------------------------------------------
# Packages


def installed_versions(packages=PACKAGES):
    p = subprocess.run(["dpkg-query", "-W", "-f", "${Package}\t${Version}\t${Architecture}\t${db:Status-Status}\n"]
                       + list(packages), capture_output=True, text=True)
    got = {}
    for line in p.stdout.splitlines():
        name, ver, arch, status = line.split("\t")
        if status == "installed":
            got[name] = (ver, arch)
    return got


def cmd_select(a):
    got = installed_versions()
    missing = [p for p in PACKAGES if p not in got]
    if missing:
        raise SystemExit(f"apertium_corpus.py: not installed: {missing}")
    os.makedirs(a.cache, exist_ok=True)
    subprocess.run(["apt-get", "download", "-q"] + [f"{p}={got[p][0]}" for p in PACKAGES],
                   cwd=a.cache, check=True, stdout=subprocess.DEVNULL)
    cols = ["package", "version", "architecture", "source", "size", "sha256"]
    rows = []
    for p in PACKAGES:
        ver, arch = got[p]
        src = subprocess.run(["dpkg-query", "-W", "-f", "${source:Package}", p],
                             capture_output=True, text=True, check=True).stdout.strip() or p
        r = dict(package=p, version=ver, architecture=arch, source=src)
        path = os.path.join(a.cache, G.deb_name(r))
        r.update(size=str(os.path.getsize(path)), sha256=R.sha256_file(path))
        rows.append(r)
    with open(a.manifest, "w", encoding="utf-8") as f:
        f.write("# Debian bookworm/main packages of the Apertium pipelines eng-cat|cat-fra and fra-cat|cat-eng "
                "(programs and language data); SHA-256 of the .deb (apt-get download).\n")
        f.write("\t".join(cols) + "\n")
        for r in rows:
            f.write("\t".join(r[c] for c in cols) + "\n")
    print(f"select: {len(rows)} packages -> {a.manifest}")


def check_installed(manifest):
    """Stop unless every manifest package is installed at the manifest's version and
    `dpkg --verify` reports no changed file of it."""
    rows = G.read_manifest(manifest)
    got = installed_versions([r["package"] for r in rows])
    bad = [f"{r['package']} {got.get(r['package'], ('not installed',))[0]} (manifest {r['version']})"
           for r in rows if got.get(r["package"], (None,))[0] != r["version"]]
    if bad:
        raise SystemExit("apertium_corpus.py: installed Apertium packages differ from the manifest: " + "; ".join(bad))
    v = subprocess.run(["dpkg", "--verify"] + [r["package"] for r in rows], capture_output=True, text=True)
    if v.stdout.strip():
        raise SystemExit("apertium_corpus.py: dpkg --verify finds changed files:\n" + v.stdout)
    return rows


# ---------------------------------------------------------------------------------------------
# Build


def build(named_lines, held_en, held_fr, threshold=THRESHOLD, chunk=CHUNK, log=print,
          forward=FORWARD, backward=BACKWARD):
    """(train pairs [(en, fr)], candidate rows, counts, timing). Each input is translated in its own
    fixed chunks (so one input's output does not depend on the next input)."""
    counts = collections.Counter()
    todo = select_inputs(named_lines, held_en, counts)
    counts["translated (English sent to Apertium)"] = len(todo)
    rows = []          # [name, en, fr_raw, fr_clean, roundtrip, score, fate]
    by_input = collections.OrderedDict()
    for name, e in todo:
        by_input.setdefault(name, []).append(e)
    t0 = time.time()
    fwd = {}
    for name, ens in by_input.items():
        log(f"forward {name}: {len(ens)} sentences")
        fwd[name] = translate(forward, [escape(e) for e in ens], chunk,
                              log=lambda m, n=name: log(f"  forward {n}: {m}"))
    t_fwd = time.time() - t0
    pending = collections.OrderedDict()   # name -> [(row index, French stream)]
    for name, ens in by_input.items():
        for e, out in zip(ens, fwd[name]):
            row = [name, e, "", "", "", "", ""]
            rows.append(row)
            if out is CRASHED:
                row[6] = "dropped: stream: an Apertium program crashed on it"
                continue
            if out is None:
                row[6] = "dropped: stream: the segment's prefix or index lost"
                continue
            raw = unescape(out)
            row[2] = raw
            if has_marks(raw):
                row[6] = "dropped: marks: an Apertium mark (* # @) in the French"
                continue
            if lost_word(raw):
                row[6] = "dropped: form: a word Apertium lost (two spaces inside its output)"
                continue
            fr = french_spacing(raw)
            row[3] = fr
            fr, why = dictionary_form(e, fr)
            if why:
                row[6] = f"dropped: {why}"
                continue
            row[3] = fr
            why = basic_drop_reason(e, fr)
            if why:
                row[6] = f"dropped: basic: {why}"
                continue
            pending.setdefault(name, []).append((len(rows) - 1, out))
    t1 = time.time()
    for name, items in pending.items():
        log(f"round trip {name}: {len(items)} sentences")
        back = translate(backward, [s for _i, s in items], chunk,
                         log=lambda m, n=name: log(f"  round trip {n}: {m}"))
        for (i, _s), rt in zip(items, back):
            row = rows[i]
            if rt is CRASHED:
                row[6] = "dropped: stream: an Apertium program crashed on it (round trip)"
                continue
            if rt is None:
                row[6] = "dropped: stream: the segment's prefix or index lost (round trip)"
                continue
            rt = unescape(rt)
            score = roundtrip_score(row[1], rt)
            row[4], row[5] = " ".join(rt.split()), f"{score:.2f}"
            if not keep_roundtrip(score, threshold):
                row[6] = f"dropped: round trip: chrF2 <= {threshold:g}"
            elif D.norm(row[3]) in held_fr:
                row[6] = "dropped: leak: the French is a dev/test French sentence (normalised) of a corpus"
            else:
                row[6] = "kept"
    t_back = time.time() - t1
    pairs = [(row[1], row[3]) for row in rows if row[6] == "kept"]   # the English is unique
    for row in rows:
        counts[row[6]] += 1
        counts[f"by input: {row[0]}: {row[6]}"] += 1
    counts["round trips with a mark (marks removed before scoring)"] = sum(
        1 for r in rows if r[4] and has_marks(r[4]))
    timing = {"forward_s": t_fwd, "backward_s": t_back,
              "forward_per_s": len(todo) / max(t_fwd, 1e-9),
              "backward_per_s": sum(len(v) for v in pending.values()) / max(t_back, 1e-9)}
    return pairs, rows, counts, timing


def cmd_build(a):
    t0 = time.time()
    pk = check_installed(a.manifest)
    held_en, held_fr = held_out(a.ding, a.bible, a.ddtp, a.dialogue)
    named = [(n, G.read_lines(p)) for n, p in inputs(a)]
    pairs, rows, counts, timing = build(named, held_en, held_fr, a.threshold, a.chunk)
    G.write_pairs(os.path.join(a.out, "en-fr"), "train", "fr", pairs)
    sentences = [(e, f) for e, f in pairs if is_sentence(e)]
    entries = [(e, f) for e, f in pairs if not is_sentence(e)]
    G.write_pairs(os.path.join(a.out, "sentences", "en-fr"), "train", "fr", sentences)
    G.write_pairs(os.path.join(a.out, "entries", "en-fr"), "train", "fr", entries)
    with open(os.path.join(a.out, "candidates.tsv"), "w", encoding="utf-8", newline="\n") as f:
        f.write("input\tenglish\tapertium_french\tfrench\troundtrip_english\troundtrip_chrf2\tfate\n")
        for r in rows:
            f.write("\t".join(x.replace("\t", " ").replace("\n", " ") for x in r) + "\n")
    summary = ["packages: " + ", ".join(f"{r['package']} {r['version']}" for r in pk),
               f"pipelines: {' | '.join(' '.join(c) for c in FORWARD)}; round trip "
               f"{' | '.join(' '.join(c) for c in BACKWARD)}; {a.chunk} segments a run",
               f"round-trip chrF2 threshold: > {a.threshold:g}",
               "inputs: " + ", ".join(f"{n} ({os.path.relpath(os.path.abspath(p), ROOT)})" for n, p in inputs(a)),
               f"held out (normalised): {len(held_en)} dev/test English, {len(held_fr)} dev/test French"]
    summary += [f"{k}: {v}" for k, v in sorted(counts.items())]
    summary.append(f"en-fr/train: {len(pairs)} pairs (sentences/en-fr {len(sentences)}, entries/en-fr {len(entries)})")
    R.write_summary(a.out, summary)
    print(f"build: forward {timing['forward_s']:.0f} s ({timing['forward_per_s']:.0f} sentences/s), "
          f"round trip {timing['backward_s']:.0f} s ({timing['backward_per_s']:.0f} sentences/s), "
          f"total {time.time() - t0:.0f} s", flush=True)


def cmd_check(a):
    """No train English or French (normalised) is a dev/test sentence of a corpus; line counts
    of train.en and train.fr agree; no Apertium mark or stream escape left."""
    held_en, held_fr = held_out(a.ding, a.bible, a.ddtp, a.dialogue)
    d = os.path.join(a.out, "en-fr")
    en, fr = G.read_lines(os.path.join(d, "train.en")), G.read_lines(os.path.join(d, "train.fr"))
    status = 0
    if len(en) != len(fr):
        print(f"check: train.en has {len(en)} lines, train.fr {len(fr)}")
        return 1
    bad = [e for e in en if D.norm(e) in held_en]
    badf = [f for f in fr if D.norm(f) in held_fr]
    marks = [f for f in fr if has_marks(f) or "\\" in f]
    for what, lst in (("English is a dev/test English sentence", bad),
                      ("French is a dev/test French sentence", badf), ("French holds a mark", marks)):
        if lst:
            status = 1
            print(f"check: {len(lst)} train pairs: {what}, e.g. {lst[:3]}")
        else:
            print(f"check: no train pair's {what.split(' is ')[0].split(' holds')[0]} "
                  f"{'is a dev/test sentence' if ' is ' in what else 'holds a mark'} ({len(en)} pairs)")
    return status


def sha256_table(out):
    files = ["SUMMARY.txt", "candidates.tsv"] + [f"{d}/train.{x}" for d in ("en-fr", "entries/en-fr", "sentences/en-fr")
                                                  for x in ("en", "fr")]
    return R.sha256_lines(out, files)


def main(argv=None):
    p = R.parser(__doc__, ["select", "download", "build", "check", "all"], manifest=MANIFEST,
                 cache="apertium-debs", out="apertium-corpus",
                 reference_help="a previous OUT folder: compare every output file byte for byte",
                 sha256_help="a file of 'SHA-256  path' lines (apertium-corpus.sha256): compare with it")
    p.add_argument("--ding", default=R.runs_path("ding-corpus"))
    p.add_argument("--bible", default=R.runs_path("bible-corpus"))
    p.add_argument("--ddtp", default=os.path.join(ROOT, "..", "shared", "data", "ddtp"))
    p.add_argument("--dialogue", help="the dialogue corpus folder: its en-fr and en-de train English are "
                                      "inputs, its dev/test sentences held out")
    p.add_argument("--wordnet", help="the WordNet examples folder (wordnet_examples.py): its train.en is "
                                     "translated too, after the other inputs")
    p.add_argument("--threshold", type=float, default=THRESHOLD)
    p.add_argument("--chunk", type=int, default=CHUNK)
    a = p.parse_args(argv)
    if not a.dialogue and os.path.isdir(R.runs_path("dialogue-corpus")) and a.command not in ("select", "download"):
        print("apertium_corpus.py: note: runs/dialogue-corpus exists but --dialogue was not given", flush=True)
    return R.run(a, "apertium_corpus.py", select=cmd_select, download=G.cmd_download, build=cmd_build,
                 check=cmd_check, compare=compare, sha256_table=sha256_table)


def compare(out, ref):
    """The corpus files, SUMMARY.txt and candidates.tsv under `out` against those under `ref`."""
    return G.compare(out, ref, "SUMMARY.txt") | R.compare_files(out, ref, ["candidates.tsv"])


if __name__ == "__main__":
    sys.exit(main())
