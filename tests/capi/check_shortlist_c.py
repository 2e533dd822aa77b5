"""The C API's use_shortlist on a golden model converted with a small
vocabulary shortlist: converts it (softalign-convert --shortlist-corpus on the
golden sentences, one target piece per source piece, as the CLI shortlist
test does), then runs `capi_test --shortlist` on it.

    check_shortlist_c.py SOFTALIGN_CONVERT CAPI_TEST GOLDEN_DIR GOLDEN.txt
"""
import json
import os
import subprocess
import sys
import tempfile


def main() -> int:
    convert, capi_test, golden_dir, golden_txt = sys.argv[1:5]
    g = json.load(open(os.path.join(golden_dir, "golden.json"), encoding="utf-8"))
    with tempfile.TemporaryDirectory() as d:
        src, tgt = os.path.join(d, "train.src"), os.path.join(d, "train.tgt")
        open(src, "w", encoding="utf-8").write("".join(s["src_text"] + "\n" for s in g["sentences"]))
        open(tgt, "w", encoding="utf-8").write("".join(s["tgt_text"] + "\n" for s in g["sentences"]))
        model = os.path.join(d, "sl.softalign")
        conv = subprocess.run([convert, os.path.join(golden_dir, "model.safetensors"), "-o", model,
                               "--shortlist-corpus", src, tgt, "--shortlist-top", "1", "--shortlist-frequent", "0"],
                              capture_output=True, text=True)
        if conv.returncode != 0:
            print(f"softalign-convert: exit {conv.returncode}: {conv.stderr.strip()}")
            return 1
        run = subprocess.run([capi_test, "--shortlist", model, golden_txt], capture_output=True, text=True,
                             timeout=300)
        sys.stdout.write(run.stdout)
        sys.stderr.write(run.stderr)
        return run.returncode


if __name__ == "__main__":
    sys.exit(main())
