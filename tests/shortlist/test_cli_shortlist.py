"""The shortlist through the command-line tools: softalign-convert
--shortlist-corpus, then softalign translate with it and with --no-shortlist.

usage: test_cli_shortlist.py SOFTALIGN_CONVERT SOFTALIGN GOLDEN_MODEL_DIR
"""
import json
import os
import subprocess
import sys
import tempfile


def run(*args, stdin=None):
    r = subprocess.run(list(args), input=stdin, capture_output=True, text=True)
    assert r.returncode == 0, f"{args}: exit {r.returncode}: {r.stderr}"
    return r.stdout


def main():
    convert, softalign, golden = sys.argv[1:4]
    g = json.load(open(os.path.join(golden, "golden.json"), encoding="utf-8"))
    src = [s["src_text"] for s in g["sentences"]]
    tgt = [s["tgt_text"] for s in g["sentences"]]
    weights = os.path.join(golden, "model.safetensors")
    with tempfile.TemporaryDirectory() as d:
        corpus_src, corpus_tgt = os.path.join(d, "train.src"), os.path.join(d, "train.tgt")
        open(corpus_src, "w", encoding="utf-8").write("\n".join(src) + "\n")
        open(corpus_tgt, "w", encoding="utf-8").write("\n".join(tgt) + "\n")
        plain, with_sl = os.path.join(d, "plain.softalign"), os.path.join(d, "sl.softalign")
        run(convert, weights, "-o", plain)
        # A tiny union (the specials and one piece per source piece): it must change the output.
        run(convert, weights, "-o", with_sl, "--shortlist-corpus", corpus_src, corpus_tgt,
            "--shortlist-top", "1", "--shortlist-frequent", "0")
        assert "shortlist:\n  method: ibm1\n  top_k: 1\n" in run(convert, "--inspect", with_sl)
        text = "\n".join(src) + "\n"
        common = ["translate", "--beam", "1", "--max-len-b", "8"]
        full = run(softalign, *common, "-m", plain, stdin=text)
        off = run(softalign, *common, "-m", with_sl, "--no-shortlist", stdin=text)
        on = run(softalign, *common, "-m", with_sl, stdin=text)
        assert off == full, "--no-shortlist must give the whole-vocabulary output"
        assert on != full, "the shortlist did not restrict the output"
        assert len(on.splitlines()) == len(src)
        assert "--no-shortlist" in run(softalign, "translate", "--help")
        assert "\nshortlist: yes\n" in run(softalign, "info", with_sl)
        assert "\nshortlist: no\n" in run(softalign, "info", plain)
    print("ok: shortlist on/off through the CLI")


if __name__ == "__main__":
    main()
