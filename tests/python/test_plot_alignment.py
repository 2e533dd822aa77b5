"""models/plot_alignment.py: heat maps from `softalign translate --json` lines, and clear errors."""
import json
import os
import subprocess
import sys

from conftest import ROOT

PLOT = os.path.join(ROOT, "models", "plot_alignment.py")

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


def sentence(index, src, tgt, nbest=1):
    """A JSON object shaped like the CLI's: attention rows = target pieces + EOS, columns = source pieces + EOS."""
    rows, cols = len(tgt) + 1, len(src) + 1
    att = [[(1.0 if j == min(t, cols - 1) else 0.0) for j in range(cols)] for t in range(rows)]
    hyp = {"text": "".join(tgt).replace("\u2581", " ").strip(), "pieces": tgt, "ids": list(range(4, 4 + len(tgt))),
           "score": -1.0, "log_prob": -2.0, "attention": att, "alignment": "", "word_alignment": ""}
    return {"index": index, "source_pieces": src, "hypotheses": [hyp] * nbest}


def run(*args, stdin=""):
    env = dict(os.environ, MPLBACKEND="Agg")
    return subprocess.run([sys.executable, PLOT, *args], input=stdin, capture_output=True, text=True, env=env,
                          timeout=120)


def jsonl(*objs):
    return "".join(json.dumps(o, ensure_ascii=False) + "\n" for o in objs)


def test_one_png_per_sentence_from_stdin(tmp_path):
    lines = jsonl(sentence(0, ["\u2581Hello", "\u2581world", "."], ["\u2581Bonjour", "\u2581le", "\u2581monde", "."]),
                  {"index": 1, "error": "invalid_utf8: the input is not valid UTF-8 (at byte 3)"},
                  sentence(2, ["\u2581Yes"], ["\u2581Oui"], nbest=2))
    out = tmp_path / "maps"
    r = run("-o", str(out), stdin=lines)
    assert r.returncode == 0, r.stderr
    assert sorted(os.listdir(out)) == ["alignment-1.png", "alignment-3.png"]
    for name in ("alignment-1.png", "alignment-3.png"):
        data = (out / name).read_bytes()
        assert data.startswith(PNG_MAGIC) and 1000 < len(data) < 100_000
    assert "line 2: skipped" in r.stderr and "invalid_utf8" in r.stderr
    assert r.stdout.split() == [str(out / "alignment-1.png"), str(out / "alignment-3.png")]


def test_file_input_line_selection_numbers_and_hypothesis(tmp_path):
    src = tmp_path / "in.jsonl"
    src.write_text(jsonl(*(sentence(i, ["\u2581a", "\u2581b"], ["\u2581x"], nbest=2) for i in range(4))),
                   encoding="utf-8")
    r = run(str(src), "-o", str(tmp_path), "--lines", "2,4", "--numbers", "10,20,30,40", "--prefix", "t-",
            "--hypothesis", "1")
    assert r.returncode == 0, r.stderr
    assert sorted(p for p in os.listdir(tmp_path) if p.endswith(".png")) == ["t-20.png", "t-40.png"]


def test_bad_input_is_a_clear_error(tmp_path):
    good = jsonl(sentence(0, ["\u2581a"], ["\u2581b"]))
    bad_shape = sentence(0, ["\u2581a", "\u2581b"], ["\u2581c"])
    bad_shape["hypotheses"][0]["attention"] = [[0.5, 0.5], [0.5, 0.5]]  # 2 x 2, should be 2 x 3
    cases = [
        (good + "this is not json\n", "line 2: not JSON"),
        (jsonl({"index": 0, "text": "plain output"}), "line 1: no 'source_pieces'"),
        (jsonl(bad_shape), "line 1: 'attention' should be 2 x 3"),
        (good, "no hypothesis 3"),
        ("", "the input is empty"),
    ]
    for stdin, message in cases:
        args = ["-o", str(tmp_path / "x")]
        if message == "no hypothesis 3":
            args += ["--hypothesis", "3"]
        r = run(*args, stdin=stdin)
        assert r.returncode == 1, (message, r.stderr)
        assert r.stderr.startswith("plot_alignment: error: ") and message in r.stderr, r.stderr
        assert len(r.stderr.strip().splitlines()) == 1, r.stderr  # one line, no traceback
    r = run(str(tmp_path / "missing.jsonl"))
    assert r.returncode == 1 and "cannot read" in r.stderr
    r = run("--lines", "5", "-o", str(tmp_path / "y"), stdin=good)
    assert r.returncode == 1 and "--lines asks for line 5, the input has 1" in r.stderr
    r = run("--lines", "3-1", stdin=good)
    assert r.returncode == 2 and "bad line range" in r.stderr
