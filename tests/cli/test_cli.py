"""Tests of the `softalign` command line, run on golden tiny models.

Expected translations come from tests/golden/<name>/golden.json (the reference
implementation's ids, scores and attention), detokenised by SentencePiece.

Environment (set by ctest): SOFTALIGN_CLI (the program), SOFTALIGN_GOLDEN_BIN_DIR
(converted models, <name>.f32.softalign), SOFTALIGN_GOLDEN_SRC_DIR (tests/golden).
"""
import glob
import json
import os
import re
import subprocess
import sys
import tempfile
import time
import unittest
from pathlib import Path

CLI = os.environ.get("SOFTALIGN_CLI", "build/bin/softalign")
BIN_DIR = Path(os.environ.get("SOFTALIGN_GOLDEN_BIN_DIR", "build/golden"))
SRC_DIR = Path(os.environ.get("SOFTALIGN_GOLDEN_SRC_DIR", "tests/golden"))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "golden"))
from golden_outputs import GoldenOutputs  # noqa: E402

# The golden searches' length limit (golden.json "searches"), given explicitly
# so the tests do not depend on the model's stored defaults.
LEN = ["--max-len-a", "1", "--max-len-b", "3"]


def run(*args, stdin=None):
    return subprocess.run([CLI, *args], input=stdin, capture_output=True, text=True, timeout=60)


class Golden(GoldenOutputs):
    """A golden model's reference outputs and its converted f32 file."""

    def __init__(self, name):
        super().__init__(SRC_DIR / name)
        self.model = str(BIN_DIR / f"{name}.f32.softalign")


def argmax_links(attn, n_ids, src_len):
    """The expected hard alignment: per target piece, the most attended source piece (EOS left out)."""
    links = []
    for t in range(n_ids):
        row = attn[t][: src_len - 1]
        links.append((max(range(len(row)), key=lambda j: (row[j], -j)), t))
    return links


def parse_pharaoh(s):
    return [tuple(int(x) for x in link.split("-")) for link in s.split()]


class HelpAndVersion(unittest.TestCase):
    def test_help_on_every_command(self):
        for args in (["--help"], ["translate", "--help"], ["info", "--help"]):
            p = run(*args)
            self.assertEqual(p.returncode, 0, args)
            self.assertIn("Usage", p.stdout + p.stderr, args)
        p = run("translate", "--help")
        for option in ("--model", "--beam", "--alpha", "--beta", "--nbest", "--alignment", "--batch",
                       "--threads", "--max-len-a", "--max-len-b"):
            self.assertIn(option, p.stdout)
        self.assertIn("|||", p.stdout)  # the output formats are documented

    def test_version(self):
        p = run("--version")
        self.assertEqual(p.returncode, 0)
        self.assertRegex(p.stdout.strip(), r"^softalign \d+\.\d+\.\d+$")

    def test_no_command_is_an_error(self):
        p = run()
        self.assertNotEqual(p.returncode, 0)
        self.assertTrue(p.stderr.strip())


class Translate(unittest.TestCase):
    g = None

    @classmethod
    def setUpClass(cls):
        cls.g = Golden("bahdanau")

    def translate(self, *args, stdin=None):
        return run("translate", "-m", self.g.model, *args, stdin=stdin)

    def test_greedy_from_arguments(self):
        p = self.translate("--beam", "1", *LEN, *self.g.sources)
        self.assertEqual(p.returncode, 0, p.stderr)
        want = [self.g.greedy_text(i) for i in range(len(self.g.sources))]
        self.assertEqual(p.stdout.split("\n")[:-1], want)
        self.assertEqual(p.stderr, "")

    def test_stdin_keeps_order_and_empty_lines(self):
        # Repeated, reordered and empty lines; batches that split the input unevenly.
        order = [3, 0, 1, None, 2, 0, None, 3]
        lines = ["" if i is None else self.g.sources[i] for i in order]
        want = ["" if i is None else self.g.greedy_text(i) for i in order]
        stdin = "\n".join(lines) + "\n"
        for batch, workers in (("1", "1"), ("3", "1"), ("16", "1"), ("3", "2"), ("16", "3")):
            p = self.translate("--beam", "1", *LEN, "--batch", batch, "--workers", workers, stdin=stdin)
            self.assertEqual(p.returncode, 0, p.stderr)
            self.assertEqual(p.stdout.split("\n")[:-1], want, f"--batch {batch} --workers {workers}")
        # CRLF line ends and a last line without a newline.
        p = self.translate("--beam", "1", *LEN, stdin="\r\n".join(lines))
        self.assertEqual(p.stdout.split("\n")[:-1], want)

    def test_nbest(self):
        p = self.translate("--beam", "4", "--alpha", "0.6", "--beta", "0.2", "--nbest", "4", *LEN,
                           *self.g.sources)
        self.assertEqual(p.returncode, 0, p.stderr)
        got = [line.split(" ||| ") for line in p.stdout.split("\n")[:-1]]
        want = [(i, h) for i in range(len(self.g.sources)) for h in self.g.hyps(i, "beam4")]
        self.assertEqual(len(got), len(want))
        for fields, (i, h) in zip(got, want):
            self.assertEqual(len(fields), 3, fields)
            self.assertEqual(int(fields[0]), i)
            self.assertEqual(fields[1], self.g.text(h["ids"]))
            self.assertAlmostEqual(float(fields[2]), h["score"], delta=1e-4)

    def test_nbest_with_fewer_than_beam(self):
        p = self.translate("--beam", "4", "--alpha", "0.6", "--beta", "0.2", "--nbest", "2", *LEN,
                           self.g.sources[1], "")
        self.assertEqual(p.returncode, 0, p.stderr)
        lines = p.stdout.split("\n")[:-1]
        # Exactly N lines per input: an empty line has one empty hypothesis, then a missing one.
        self.assertEqual([line.split(" ||| ")[0] for line in lines], ["0", "0", "1", "1"])
        self.assertEqual(lines[2], "1 |||  ||| 0.000000")
        self.assertEqual(lines[3], "1 |||  ||| -inf")

    def test_nbest_failed_line_keeps_n_lines(self):
        stdin = (self.g.sources[0] + "\n").encode() + b"caf\xff\n"
        p = subprocess.run([CLI, "translate", "-m", self.g.model, "--beam", "3", "--nbest", "3", *LEN],
                           input=stdin, capture_output=True, timeout=60)
        self.assertEqual(p.returncode, 1)
        lines = p.stdout.decode().split("\n")[:-1]
        self.assertEqual([line.split(" ||| ")[0] for line in lines], ["0"] * 3 + ["1"] * 3)
        self.assertEqual(lines[3:], ["1 |||  ||| -inf"] * 3)

    def test_alignment(self):
        p = self.translate("--beam", "1", *LEN, "--alignment", *self.g.sources)
        self.assertEqual(p.returncode, 0, p.stderr)
        lines = p.stdout.split("\n")[:-1]
        self.assertEqual(len(lines), len(self.g.sources))
        for i, line in enumerate(lines):
            text, pharaoh = line.split(" ||| ")
            h = self.g.hyps(i, "greedy")[0]
            self.assertEqual(text, self.g.text(h["ids"]))
            src_len = len(self.g.sentences[i]["src_ids"])
            self.assertEqual(parse_pharaoh(pharaoh), argmax_links(h["attn"], len(h["ids"]), src_len))

    def test_word_alignment(self):
        p = self.translate("--beam", "1", *LEN, "--word-alignment", self.g.sources[3])
        self.assertEqual(p.returncode, 0, p.stderr)
        text, pharaoh = p.stdout.rstrip("\n").split(" ||| ")
        n_src, n_tgt = len(self.g.sources[3].split()), len(text.split())
        links = parse_pharaoh(pharaoh)
        self.assertTrue(links)
        self.assertEqual(links, sorted(set(links)))
        for j, t in links:
            self.assertTrue(0 <= j < n_src and 0 <= t < n_tgt, (j, t))

    def test_nbest_with_alignment(self):
        p = self.translate("--beam", "4", "--alpha", "0.6", "--beta", "0.2", "--nbest", "4", *LEN,
                           "--alignment", self.g.sources[0])
        self.assertEqual(p.returncode, 0, p.stderr)
        for line, h in zip(p.stdout.split("\n")[:-1], self.g.hyps(0, "beam4")):
            fields = line.split(" ||| ")
            self.assertEqual(len(fields), 4, line)
            self.assertEqual(parse_pharaoh(fields[3]), argmax_links(h["attn"], len(h["ids"]), 2))

    def test_json_has_the_soft_alignment(self):
        p = self.translate("--beam", "4", "--alpha", "0.6", "--beta", "0.2", "--nbest", "4", *LEN, "--json",
                           *self.g.sources)
        self.assertEqual(p.returncode, 0, p.stderr)
        objs = [json.loads(line) for line in p.stdout.split("\n")[:-1]]
        self.assertEqual([o["index"] for o in objs], list(range(len(self.g.sources))))
        for i, o in enumerate(objs):
            self.assertEqual(len(o["source_pieces"]) + 1, len(self.g.sentences[i]["src_ids"]))
            for got, want in zip(o["hypotheses"], self.g.hyps(i, "beam4"), strict=True):
                self.assertEqual(got["ids"], want["ids"])
                self.assertEqual(len(got["attention"]), len(want["attn"]))
                for row_got, row_want in zip(got["attention"], want["attn"], strict=True):
                    for a, b in zip(row_got, row_want, strict=True):
                        self.assertAlmostEqual(a, b, delta=1e-5)

    def test_threads_give_the_same_output(self):
        one = self.translate("--beam", "4", "--nbest", "4", *LEN, "--threads", "1", *self.g.sources)
        two = self.translate("--beam", "4", "--nbest", "4", *LEN, "--threads", "2", *self.g.sources)
        self.assertEqual(one.returncode, 0, one.stderr)
        self.assertEqual(two.returncode, 0, two.stderr)
        self.assertEqual(one.stdout, two.stdout)

    def test_a_bad_line_fails_alone(self):
        # Invalid UTF-8 in line 2 and a too-long line 4: each gets an empty output line and a
        # message naming it; the others are translated, in order; the exit status is 1.
        long_src = self.g.sources[3]
        stdin = (self.g.sources[0] + "\n").encode() + b"caf\xff\n" + (self.g.sources[1] + "\n" + long_src + "\n").encode()
        for workers in ("1", "2"):
            p = subprocess.run([CLI, "translate", "-m", self.g.model, "--beam", "1", *LEN, "--max-src-len", "12",
                                "--no-split-long", "--batch", "4", "--workers", workers], input=stdin,
                               capture_output=True, timeout=60)
            self.assertEqual(p.returncode, 1)
            out = p.stdout.decode().split("\n")[:-1]
            self.assertEqual(out, [self.g.greedy_text(0), "", self.g.greedy_text(1), ""])
            err = p.stderr.decode().strip().split("\n")
            self.assertEqual(len(err), 2, err)
            self.assertRegex(err[0], r"^softalign: error: line 2: invalid_utf8")
            self.assertRegex(err[1], r"^softalign: error: line 4: input_too_long")

    def test_split_long(self):
        # Too long as a whole, two sentences that fit: the parts' translations joined.
        part = self.g.sources[1] + "."
        alone = self.translate("--beam", "1", *LEN, part)
        self.assertEqual(alone.returncode, 0, alone.stderr)
        n = len(self.g.sentences[1]["src_ids"]) + 1  # room for one part only
        args = ["--beam", "1", *LEN, "--max-src-len", str(n + 2), part + " " + part]
        for split in ([], ["--split-long"]):  # splitting is the default
            p = self.translate(*split, *args)
            self.assertEqual(p.returncode, 0, p.stderr)
            self.assertEqual(p.stdout, alone.stdout.rstrip("\n") + " " + alone.stdout)
        p = self.translate("--no-split-long", *args)
        self.assertEqual(p.returncode, 1)
        self.assertIn("input_too_long", p.stderr)
        # No sentence end: still one non-empty line, from clauses or halves.
        words = " ".join([self.g.sources[1]] * 6)
        p = self.translate("--beam", "1", *LEN, "--max-src-len", str(n + 2), words)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(len(p.stdout.split("\n")), 2)
        self.assertTrue(p.stdout.strip())

    def test_a_line_over_max_line_bytes_fails_alone(self):
        # A line longer than --max-line-bytes is read to its end without being kept (bounded
        # memory) and fails alone; the lines around it are translated.
        first, second = self.g.sources[0], self.g.sources[1]
        limit = max(len(first), len(second)) + 1
        stdin = f"{first}\n{'x' * (limit * 1000)}\n{second}\n"
        for extra in ([], ["--copy-model"]):
            p = run("translate", "-m", self.g.model, "--beam", "1", *LEN, "--max-line-bytes", str(limit), *extra,
                    stdin=stdin)
            self.assertEqual(p.returncode, 1)
            self.assertEqual(p.stdout.split("\n")[:-1], [self.g.greedy_text(0), "", self.g.greedy_text(1)])
            self.assertRegex(p.stderr, r"line 2: input_too_long: the input has \d+ bytes, more than max_line_bytes")
        p = run("translate", "-m", self.g.model, "--max-line-bytes", "0", first)
        self.assertEqual(p.returncode, 2)

    def test_block_repeats(self):
        # On by flag, refused out of range; with 0 it is the default output.
        plain = self.translate("--beam", "1", *LEN, *self.g.sources)
        self.assertEqual(plain.returncode, 0, plain.stderr)
        off = self.translate("--beam", "1", *LEN, "--block-repeats", "0", *self.g.sources)
        self.assertEqual(off.stdout, plain.stdout)
        on = self.translate("--beam", "1", *LEN, "--block-repeats", "4", *self.g.sources)
        self.assertEqual(on.returncode, 0, on.stderr)
        self.assertEqual(len(on.stdout.split("\n")), len(self.g.sources) + 1)
        for bad in ("9", "-1"):
            p = self.translate("--block-repeats", bad, self.g.sources[0])
            self.assertEqual(p.returncode, 2, p.stderr)

    def test_huge_batch_with_workers(self):
        # Each worker's share of a --batch near INT_MAX: computed without overflow (an int
        # overflowed into a negative max_batch, refused as a bad argument).
        p = self.translate("--beam", "1", *LEN, "--batch", "2147483647", "--workers", "2", *self.g.sources)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(p.stdout.split("\n")[:-1], [self.g.greedy_text(i) for i in range(len(self.g.sources))])

    def test_stats(self):
        p = self.translate("--beam", "1", *LEN, "--stats", *self.g.sources)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(p.stdout.split("\n")[:-1], [self.g.greedy_text(i) for i in range(len(self.g.sources))])
        target = sum(len(self.g.hyps(i, "greedy")[0]["ids"]) for i in range(len(self.g.sources)))
        source = sum(len(s["src_ids"]) - 1 for s in self.g.sentences)
        self.assertRegex(p.stderr, rf"^softalign: stats: {len(self.g.sources)} lines \(0 failed\), {source} source "
                                   rf"and {target} target pieces in [0-9.]+ s: .* lines/s, .* target pieces/s; "
                                   rf"load [0-9.]+ ms, prepare [0-9.]+ ms, arena [0-9]+ bytes per translator\n$")

    def test_replace_invalid_utf8(self):
        p = subprocess.run([CLI, "translate", "-m", self.g.model, "--replace-invalid-utf8"],
                           input=b"caf\xff\n", capture_output=True, timeout=60)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(len(p.stdout.decode().split("\n")), 2)

    def test_a_line_with_a_nul_fails_alone_or_is_replaced(self):
        # Issue 49, one rule for bad text: a NUL is invalid text as invalid UTF-8 is. Its line gets an
        # empty output line and a message (exit status 1), the others their translations; with
        # --replace-invalid-utf8 each NUL, encoded surrogate or bad byte is one U+FFFD.
        src = self.g.sources
        stdin = (src[0] + "\n").encode() + b"ab\x00cd\n" + (src[1] + "\n").encode() + b"x\xed\xb2\x80y\n"
        for workers in ("1", "2"):
            p = subprocess.run([CLI, "translate", "-m", self.g.model, "--beam", "1", *LEN, "--workers", workers],
                               input=stdin, capture_output=True, timeout=60)
            self.assertEqual(p.returncode, 1, p.stderr)
            self.assertEqual(p.stdout.decode().split("\n")[:-1], [self.g.greedy_text(0), "", self.g.greedy_text(1), ""])
            err = p.stderr.decode().strip().split("\n")
            self.assertEqual(len(err), 2, err)
            self.assertRegex(err[0], r"^softalign: error: line 2: invalid_utf8: .*at byte 2")
            self.assertRegex(err[1], r"^softalign: error: line 4: invalid_utf8: .*at byte 1")
        fixed = "\n".join([src[0], "ab\ufffdcd", src[1], "x\ufffdy"]) + "\n"
        want = run("translate", "-m", self.g.model, "--beam", "1", *LEN, "--json", stdin=fixed)
        self.assertEqual(want.returncode, 0, want.stderr)
        p = subprocess.run([CLI, "translate", "-m", self.g.model, "--beam", "1", *LEN, "--json",
                            "--replace-invalid-utf8"], input=stdin, capture_output=True, timeout=60)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(p.stdout.decode(), want.stdout)


class EnsembleAndPrefix(unittest.TestCase):
    """-m A -m B (an ensemble) and --prefix, against tests/golden/ensembles.json."""

    def setUp(self):
        self.g = Golden("bahdanau")
        self.ensembles = json.loads((SRC_DIR / "ensembles.json").read_text(encoding="utf-8"))["ensembles"]
        self.beam4 = ["--beam", "4", "--alpha", "0.6", "--beta", "0.2", "--nbest", "4", *LEN, "--json"]

    def entries(self, members, with_prefix):
        e = next(e for e in self.ensembles if e["members"] == members)
        return [s for s in e["sentences"] if bool(s["prefix"]) == with_prefix]

    def source_text(self, src_ids):
        return next(s["src_text"] for s in self.g.sentences if s["src_ids"] == src_ids)

    def check(self, p, entry):
        self.assertEqual(p.returncode, 0, p.stderr)
        got = json.loads(p.stdout)["hypotheses"]
        want = next(r for r in entry["search"] if r["name"] == "beam4")["hyps"]
        self.assertEqual([h["ids"] for h in got], [h["ids"] for h in want])
        for a, b in zip(got, want):
            self.assertAlmostEqual(a["score"], b["score"], delta=1e-4)

    def test_an_ensemble_gives_the_reference_ensemble(self):
        other = str(BIN_DIR / "luong_general.f32.softalign")
        for entry in self.entries(["bahdanau", "luong_general"], False):
            self.check(run("translate", "-m", self.g.model, "-m", other, *self.beam4,
                           self.source_text(entry["src_ids"])), entry)

    def test_a_model_with_itself_is_the_model(self):
        one = run("translate", "-m", self.g.model, *self.beam4, *self.g.sources)
        two = run("translate", "-m", self.g.model, "--model", self.g.model, *self.beam4, *self.g.sources)
        self.assertEqual(one.returncode, 0, one.stderr)
        self.assertEqual(one.stdout, two.stdout)

    def test_prefix(self):
        for entry in self.entries(["bahdanau"], True):
            prefix = self.g.text(entry["prefix"])
            self.assertEqual(self.g.sp.encode(prefix), entry["prefix"])  # the text gives those pieces
            p = run("translate", "-m", self.g.model, "--prefix", prefix, *self.beam4, self.source_text(entry["src_ids"]))
            self.check(p, entry)
            for h in json.loads(p.stdout)["hypotheses"]:
                self.assertTrue(h["text"].startswith(prefix), (h["text"], prefix))

    def test_a_prefix_the_vocabulary_cannot_write(self):
        # U+2603 would be <unk>, which copy-through would replace with a source word: refused, named,
        # and the bidi override in the message escaped.
        p = run("translate", "-m", self.g.model, "--prefix", "le \u2603\u202e", "--beam", "1", *LEN,
                self.g.sources[0])
        self.assertEqual(p.returncode, 1)
        self.assertEqual(p.stdout, "\n")
        self.assertEqual(p.stderr, 'softalign: error: line 1: invalid_argument: target prefix: the target '
                                   'vocabulary lacks "\u2603", "\\u202e"\n')

    def test_incompatible_models_and_a_long_prefix(self):
        p = run("translate", "-m", self.g.model, "-m", str(BIN_DIR / "bahdanau_shared.f32.softalign"), "x")
        self.assertEqual(p.returncode, 2)
        self.assertIn("target vocabulary size", p.stderr)
        p = run("translate", "-m", self.g.model, "--max-len-a", "0", "--max-len-b", "2", "--prefix", "le chat est",
                self.g.sources[0])
        self.assertEqual(p.returncode, 1)
        self.assertIn("target prefix", p.stderr)

class CopyThrough(unittest.TestCase):
    """--copy-through (the default) and --no-copy-through on luong_dot, whose greedy
    translation of "with" holds <unk> (golden.json)."""

    g = None

    @classmethod
    def setUpClass(cls):
        cls.g = Golden("luong_dot")

    def translate(self, *args):
        return run("translate", "-m", self.g.model, "--beam", "1", *LEN, *args)

    def test_unknown_word_replaced_by_default(self):
        self.assertIn(1, self.g.hyps(0, "greedy")[0]["ids"])  # the model emits <unk> (id 1)
        unk = "\u2047"
        for flags in ([], ["--copy-through"]):
            p = self.translate(*flags, "with")
            self.assertEqual(p.returncode, 0, p.stderr)
            self.assertNotIn(unk, p.stdout)
            self.assertRegex(p.stdout, r"(^|\s)with(\s|$)")
        p = self.translate("--no-copy-through", "with")
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(p.stdout, self.g.greedy_text(0) + "\n")
        self.assertIn(unk, p.stdout)

    def test_json_lists_the_protected_spans(self):
        line = "use dh_foo with `a b` at http://x.org/"
        p = self.translate("--json", line)
        self.assertEqual(p.returncode, 0, p.stderr)
        spans = json.loads(p.stdout)["protected_spans"]
        self.assertEqual([line.encode()[b:e].decode() for b, e in spans], ["dh_foo", "`a b`", "http://x.org/"])
        text = json.loads(p.stdout)["hypotheses"][0]["text"]
        for s in ("dh_foo", "`a b`", "http://x.org/"):
            self.assertIn(s, text)
        p = self.translate("--json", "--no-copy-through", line)
        self.assertEqual(json.loads(p.stdout)["protected_spans"], [])

    def test_flags_exclude_each_other(self):
        p = self.translate("--copy-through", "--no-copy-through", "with")
        self.assertEqual(p.returncode, 2)
        self.assertIn("--copy-through", run("translate", "--help").stdout)


class Placeholders(unittest.TestCase):
    """--check-placeholders names the lines whose placeholders had to be repaired (docs/api.md)."""

    model = Path(__file__).resolve().parents[2] / "models" / "en-fr" / "en-fr.int8.softalign"

    @unittest.skipUnless(model.exists(), "no shipped en-fr model")
    def test_check_placeholders(self):
        # Each placeholder comes out exactly once; the lines named on stderr are
        # as many as the summary counts (here: the shipped model drops Qt's %1
        # from "%1 database", which the repair puts back).
        src = "%1 database\nDelete %s files?\n"
        p = run("translate", "-m", str(self.model), "--check-placeholders", stdin=src)
        self.assertEqual(p.returncode, 0, p.stderr)
        out = p.stdout.split("\n")[:-1]
        self.assertEqual([out[0].count("%1"), out[1].count("%s")], [1, 1])
        named = re.findall(r"line (\d+): placeholders repaired", p.stderr)
        self.assertIn(f"placeholders repaired in {len(named)} of 2 lines", p.stderr)
        # Without the repair, a line is reported exactly when its placeholder is not there once.
        p = run("translate", "-m", str(self.model), "--check-placeholders", "--no-repair-placeholders", stdin=src)
        self.assertEqual(p.returncode, 0, p.stderr)
        out = p.stdout.split("\n")[:-1]
        flagged = set(re.findall(r"line (\d+): placeholders not kept", p.stderr))
        self.assertEqual("1" in flagged, out[0].count("%1") != 1)
        self.assertEqual("2" in flagged, out[1].count("%s") != 1)

    def test_glossary(self):
        # The terms come out as the glossary gives them, where the model says otherwise;
        # --json lists the occurrences; a bad glossary is a bad argument naming its line.
        with tempfile.TemporaryDirectory() as d:
            g = Path(d) / "terms.tsv"
            g.write_text("# terms\nsave\tsauvegarder\nfile\tdossier\n", encoding="utf-8")
            src = "Save the file.\nCould not save the file to disk.\n"
            plain = run("translate", "-m", str(self.model), stdin=src)
            p = run("translate", "-m", str(self.model), "--glossary", str(g), stdin=src)
            self.assertEqual(p.returncode, 0, p.stderr)
            out = p.stdout.split("\n")[:-1]
            self.assertNotIn("dossier", plain.stdout)
            self.assertIn("Sauvegarder", out[0])
            self.assertIn("sauvegarder", out[1])
            self.assertTrue(all("dossier" in line for line in out), out)
            p = run("translate", "-m", str(self.model), "--glossary", str(g), "--json", stdin="Save the file.\n")
            self.assertEqual(json.loads(p.stdout)["glossary_matches"], [[0, 4], [9, 13]])
            g.write_text("save\tsauvegarder\nno tab here\n", encoding="utf-8")
            p = run("translate", "-m", str(self.model), "--glossary", str(g), stdin=src)
            self.assertEqual(p.returncode, 2, p.stderr)
            self.assertIn("glossary line 2", p.stderr)
            p = run("translate", "-m", str(self.model), "--glossary", str(Path(d) / "none.tsv"), stdin=src)
            self.assertEqual(p.returncode, 2, p.stderr)
            self.assertIn("cannot read the glossary", p.stderr)

    def test_min_confidence(self):
        # --json gives each hypothesis's confidence; --min-confidence marks those below it
        # ("[?] " in plain and n-best output, "low_confidence" in JSON) or drops them, and counts them.
        src = "This package contains the documentation.\nI love you.\n"
        p = run("translate", "-m", str(self.model), "--json", "--nbest", "2", stdin=src)
        self.assertEqual(p.returncode, 0, p.stderr)
        rows = [json.loads(line) for line in p.stdout.splitlines()]
        conf = [[h["confidence"] for h in r["hypotheses"]] for r in rows]
        self.assertTrue(all(0 <= c <= 1 for cs in conf for c in cs), conf)
        self.assertGreater(conf[0][0], conf[1][0])  # software text above what the model fails at
        cut = (conf[0][0] + conf[1][0]) / 2
        plain = run("translate", "-m", str(self.model), stdin=src).stdout.splitlines()
        p = run("translate", "-m", str(self.model), "--min-confidence", f"{cut:.6f}", stdin=src)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(p.stdout.splitlines(), [plain[0], "[?] " + plain[1]])
        self.assertIn("1 of 2 lines below confidence", p.stderr)
        self.assertIn("(marked)", p.stderr)
        p = run("translate", "-m", str(self.model), "--min-confidence", f"{cut:.6f}", "--low-confidence", "drop",
                stdin=src)
        self.assertEqual(p.stdout.split("\n"), [plain[0], "", ""])
        self.assertIn("(dropped)", p.stderr)
        p = run("translate", "-m", str(self.model), "--min-confidence", f"{cut:.6f}", "--json", stdin=src)
        rows = [json.loads(line) for line in p.stdout.splitlines()]
        self.assertEqual([r["hypotheses"][0]["low_confidence"] for r in rows], [False, True])
        p = run("translate", "-m", str(self.model), "--min-confidence", "1", "--low-confidence", "drop", "--json",
                stdin=src)
        self.assertEqual([r["hypotheses"] for r in map(json.loads, p.stdout.splitlines())], [[], []])
        p = run("translate", "-m", str(self.model), "--min-confidence", "1", "--low-confidence", "drop",
                "--nbest", "2", stdin=src)
        self.assertEqual(p.stdout.splitlines(), ["0 |||  ||| -inf", "0 |||  ||| -inf", "1 |||  ||| -inf",
                                                 "1 |||  ||| -inf"])
        # Bad arguments: exit status 2, one line.
        for args in (["--min-confidence", "1.5"], ["--min-confidence", "-0.1"], ["--low-confidence", "drop"],
                     ["--min-confidence", "0.5", "--low-confidence", "hide"]):
            p = run("translate", "-m", str(self.model), *args, stdin=src)
            self.assertEqual(p.returncode, 2, (args, p.stderr))
            self.assertEqual(p.stdout, "")


class Errors(unittest.TestCase):
    model = str(BIN_DIR / "bahdanau.f32.softalign")

    def assert_error(self, p, *needles):
        self.assertNotEqual(p.returncode, 0)
        self.assertEqual(p.stdout, "")
        err = p.stderr.strip()
        self.assertTrue(err)
        for needle in needles:
            self.assertIn(needle, err)
        return err

    def test_missing_model(self):
        for cmd in (["translate", "-m", "no/such.softalign", "x"], ["info", "no/such.softalign"]):
            err = self.assert_error(run(*cmd), "no/such.softalign", "not_found")
            self.assertEqual(len(err.split("\n")), 1, err)

    def test_corrupt_model(self):
        with tempfile.TemporaryDirectory() as d:
            good = Path(self.model).read_bytes()
            for name, data in (("junk", bytes(range(256)) * 64), ("truncated", good[: len(good) // 2]),
                               ("empty", b"")):
                path = Path(d) / f"{name}.softalign"
                path.write_bytes(data)
                for cmd in (["translate", "-m", str(path), "x"], ["info", str(path)]):
                    err = self.assert_error(run(*cmd), "invalid_model")
                    self.assertEqual(len(err.split("\n")), 1, err)

    def test_bad_option_values(self):
        for args in (["--beam", "0"], ["--beam", "abc"], ["--alpha", "-1"], ["--batch", "0"],
                     ["--threads", "0"], ["--workers", "0"], ["--nbest", "0"], ["--max-len-a", "x"], ["--no-such-option"]):
            self.assert_error(run("translate", "-m", self.model, *args, "x"))

    def test_float_options_refuse_nan_and_infinity(self):
        # Issue 49: every float option has one validator (a finite number in its range): NaN was taken
        # by --min-confidence (exit 0, nothing marked) while inf and 2 were refused.
        for option in ("--alpha", "--beta", "--max-len-a", "--max-len-b", "--min-confidence"):
            for value in ("nan", "NaN", "-nan", "inf", "-inf", "infinity", "1e999"):
                p = run("translate", "-m", self.model, f"{option}={value}", "x")
                err = self.assert_error(p, option)
                self.assertEqual(p.returncode, 2, (option, value, err))
                self.assertEqual(len(err.split("\n")), 1, err)
            self.assertEqual(run("translate", "-m", self.model, option, "0.5", "x").returncode, 0, option)

    def test_workers_beyond_the_limit(self):
        # One translator each: more than 256 (TranslatorOptions::threads' limit too) is a bad argument,
        # before any is made (2147483647 of them once reserved 16 GiB of pointers).
        for workers in ("257", "2147483647"):
            p = run("translate", "-m", self.model, "--workers", workers, "x")
            err = self.assert_error(p, "--workers", "256")
            self.assertEqual(p.returncode, 2, err)
            self.assertEqual(len(err.split("\n")), 1, err)
        self.assertEqual(run("translate", "-m", self.model, "--workers", "256", "x").returncode, 0)

    def test_values_the_model_refuses_are_bad_arguments(self):
        # Exit status 2, one line, whether the parser or the runtime refuses the value.
        for args, needle in ((["--beam", "2000"], "beam size must be in [1, 1024]"),
                             (["--kernels", "bogus"], "bogus"),
                             (["--beam", "1024", "--max-len-a", "100", "--max-len-b", "10000"], "resource_exhausted")):
            p = run("translate", "-m", self.model, *args, "x")
            err = self.assert_error(p, needle)
            self.assertEqual(p.returncode, 2, err)
            self.assertEqual(len(err.split("\n")), 1, err)

    def test_memory_cap_option(self):
        p = run("translate", "-m", self.model, "--max-arena-mb", "1", "--beam", "64", "x")
        self.assertEqual(p.returncode, 2, p.stderr)
        self.assertIn("max_arena_bytes (1 MiB)", p.stderr)
        self.assertEqual(run("translate", "-m", self.model, "--max-arena-mb", "64", "x").returncode, 0)

    def test_nbest_larger_than_beam(self):
        self.assert_error(run("translate", "-m", self.model, "--beam", "2", "--nbest", "3", "x"), "nbest")

    def test_model_is_required(self):
        self.assert_error(run("translate", "x"), "--model")
        self.assert_error(run("info"))


class Timeout(unittest.TestCase):
    """--timeout: a 900 kB line runs past it (deadline_exceeded, exit status 3), the next line is translated."""

    model = str(Path(__file__).resolve().parents[2] / "models" / "en-fr" / "en-fr.int8.softalign")

    def test_a_huge_line_runs_past_the_timeout_and_the_next_line_is_translated(self):
        sentence = "This package contains the documentation. A simple text editor with many plugins. "
        huge = (sentence * (900 * 1024 // len(sentence))).strip()
        expected = run("translate", "-m", self.model, "--beam", "4", "A simple text editor.")
        self.assertEqual(expected.returncode, 0, expected.stderr)
        t0 = time.monotonic()
        p = run("translate", "-m", self.model, "--beam", "4", "--batch", "1", "--timeout", "0.1",
                stdin=huge + "\nA simple text editor.\n")
        seconds = time.monotonic() - t0
        print(f"stop: CLI --timeout 0.1 on a 900 kB line then a short one: {seconds * 1000:.0f} ms in all "
              "(the process, the model's load and the short line included)", file=sys.stderr)
        self.assertEqual(p.returncode, 3, p.stderr)
        self.assertIn("line 1: deadline_exceeded: past timeout_ms (--timeout)", p.stderr)
        self.assertIn("1 of 2 lines ran past --timeout 0.1 s", p.stderr)
        self.assertEqual(p.stdout.split("\n"), ["", expected.stdout.strip(), ""])
        self.assertLess(seconds, 5.0)

    def test_timeout_must_be_positive(self):
        for bad in ("0", "-1", "nan", "x"):
            p = run("translate", "-m", self.model, "--timeout", bad, "Hello")
            self.assertEqual(p.returncode, 2, bad)


class Device(unittest.TestCase):
    """--device auto|cpu|vulkan and --verbose (the backend and why, on stderr)."""

    g = None

    @classmethod
    def setUpClass(cls):
        cls.g = Golden("luong_local_p")

    def translate(self, *args, env=None):
        stdin = "\n".join(self.g.sources) + "\n"
        return subprocess.run([CLI, "translate", "-m", self.g.model, "--beam", "1", *LEN, *args], input=stdin,
                              capture_output=True, text=True, timeout=120, env=env)

    def greedy(self):
        return [self.g.greedy_text(i) for i in range(len(self.g.sources))]

    def test_cpu_and_auto(self):
        p = self.translate("--device", "cpu", "--verbose")
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(p.stdout.split("\n")[:-1], self.greedy())
        self.assertRegex(p.stderr, r"^softalign: backend cpu \(backend=cpu\), kernels \w+\n$")
        p = self.translate("--verbose")  # the default: the CPU, without probing
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertRegex(p.stderr, r"^softalign: backend cpu \(backend=cpu\), kernels \w+\n$")
        p = self.translate("--device", "auto", "--verbose")
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(p.stdout.split("\n")[:-1], self.greedy())
        self.assertRegex(p.stderr, r"^softalign: backend (cpu \(backend=auto: .+\)|vulkan on .+ \(backend=auto: a Vulkan GPU\)), kernels")
        self.assertEqual(self.translate("--device", "cpu").stderr, "")  # quiet without --verbose

    def test_auto_on_the_cpu_sizes_for_the_cpu(self):
        # Beam search decodes one by one on the CPU: auto that fell back to it
        # prepares the CPU's arena, not the one a GPU batch would need.
        def arena(device):
            p = subprocess.run([CLI, "translate", "-m", self.g.model, "--beam", "4", "--batch", "32", *LEN,
                                "--device", device, "--verbose", "--stats"],
                               input="\n".join(self.g.sources) + "\n", capture_output=True, text=True, timeout=120)
            self.assertEqual(p.returncode, 0, p.stderr)
            return p.stderr, re.search(r"arena (\d+) bytes per translator", p.stderr).group(1)
        auto_err, auto_arena = arena("auto")
        if "backend vulkan" in auto_err:
            self.skipTest("auto found a Vulkan GPU here")
        self.assertEqual(auto_arena, arena("cpu")[1])

    def test_unknown_device(self):
        p = self.translate("--device", "gpu")
        self.assertEqual(p.returncode, 2)
        self.assertIn("--device", p.stderr)

    @unittest.skipUnless(os.environ.get("SOFTALIGN_TEST_VULKAN") == "1", "this build has no Vulkan backend")
    def test_vulkan(self):
        # The device backend=vulkan finds (lavapipe in CI) gives the CPU's output.
        p = self.translate("--device", "vulkan", "--verbose")
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(p.stdout.split("\n")[:-1], self.greedy())
        self.assertRegex(p.stderr, r"^softalign: backend vulkan on .+ \(backend=vulkan\)")
        # No driver: explicit vulkan is a bad argument that says why; auto takes the CPU and says why.
        with tempfile.TemporaryDirectory() as empty:
            env = dict(os.environ, VK_ICD_FILENAMES=empty, VK_DRIVER_FILES=empty)
            p = self.translate("--device", "vulkan", env=env)
            self.assertEqual(p.returncode, 2)
            self.assertEqual(p.stdout, "")
            self.assertRegex(p.stderr, r"^softalign: error: unsupported: backend=vulkan: no Vulkan driver")
            p = self.translate("--device", "auto", "--batch", "8", "--verbose", env=env)
            self.assertEqual(p.returncode, 0, p.stderr)
            self.assertEqual(p.stdout.split("\n")[:-1], self.greedy())
            # Without a GPU device node auto does not load the drivers at all.
            nodes = glob.glob("/dev/dri/renderD*") + [n for n in ("/dev/nvidia0", "/dev/kgsl-3d0", "/dev/mali0")
                                                      if os.path.exists(n)]
            reason = "no Vulkan driver" if nodes else "no GPU device node"
            self.assertRegex(p.stderr, r"^softalign: backend cpu \(backend=auto: " + reason)


class Info(unittest.TestCase):
    def test_info(self):
        for name in ("bahdanau", "luong_local_p", "bahdanau_shared"):
            g = Golden(name)
            p = run("info", g.model)
            self.assertEqual(p.returncode, 0, p.stderr)
            fields = dict(line.split(": ", 1) for line in p.stdout.splitlines() if ": " in line and
                          not line.startswith("  "))
            config = g.data["config"]
            for key in ("variant", "score", "scope", "window_d", "enc_layers", "dec_layers", "emb_size",
                        "enc_hidden", "dec_hidden", "src_vocab", "tgt_vocab", "max_src_len", "eos_id"):
                self.assertEqual(fields[key], str(config[key]), key)
            self.assertEqual(fields["shared_vocab"], "true" if config["shared_vocab"] else "false")
            self.assertEqual(fields["weights"], "f32")
            self.assertEqual(int(fields["file_bytes"].split()[0]), os.path.getsize(g.model))
            self.assertIn("arena_bytes", fields)
            self.assertIn("metadata:", p.stdout)
            self.assertIn("  converter_version: ", p.stdout)

    def test_info_escapes_control_characters(self):
        # Metadata is text from the file: a newline or escape in it stays on one line.
        convert = Path(CLI).with_name("softalign-convert")
        src = SRC_DIR / "bahdanau"
        with tempfile.TemporaryDirectory() as d:
            out = Path(d) / "m.softalign"
            c = subprocess.run([convert, src / "model.safetensors", "-o", out, "--meta", "name=two\nlines",
                                "--meta", "note=bell\x07\x1b[31mred"], capture_output=True, text=True, timeout=60)
            self.assertEqual(c.returncode, 0, c.stderr)
            p = run("info", str(out))
            self.assertEqual(p.returncode, 0, p.stderr)
            self.assertIn("name: two\\nlines\n", p.stdout)
            self.assertIn("  note: bell\\x07\\x1b[31mred\n", p.stdout)
            self.assertNotIn("\x1b", p.stdout)

    def test_info_escapes_c1_controls_and_bidi_overrides(self):
        # A C1 control (U+0085 breaks a line, U+009B starts an escape sequence) or a bidi
        # override/isolate/mark (it reorders what follows on the terminal) is written as \uXXXX.
        convert = Path(CLI).with_name("softalign-convert")
        src = SRC_DIR / "bahdanau"
        with tempfile.TemporaryDirectory() as d:
            out = Path(d) / "m.softalign"
            c = subprocess.run([convert, src / "model.safetensors", "-o", out, "--meta",
                                "note=a\u0085b\u009b31m \u202eevil\u202c \u2066x\u2069\u200f caf\u00e9"],
                               capture_output=True, text=True, timeout=60)
            self.assertEqual(c.returncode, 0, c.stderr)
            p = run("info", str(out))
            self.assertEqual(p.returncode, 0, p.stderr)
            self.assertIn("  note: a\\u0085b\\u009b31m \\u202eevil\\u202c \\u2066x\\u2069\\u200f caf\u00e9\n", p.stdout)


if __name__ == "__main__":
    unittest.main()
