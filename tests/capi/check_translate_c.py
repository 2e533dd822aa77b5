"""Runs the C example program (platforms/c/translate.c) on a golden model and
checks that each output line is the golden greedy translation: the expected
ids of golden.json detokenised by SentencePiece itself.

    check_translate_c.py PROGRAM MODEL.softalign GOLDEN_DIR
"""
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "golden"))
from golden_outputs import GoldenOutputs  # noqa: E402


def main() -> int:
    program, model, golden_dir = sys.argv[1], sys.argv[2], Path(sys.argv[3])
    golden = GoldenOutputs(golden_dir)
    sources, expected = golden.sources, golden.greedy_texts()

    proc = subprocess.run([program, model, *sources], capture_output=True, text=True, timeout=60)
    if proc.returncode != 0:
        print(f"exit status {proc.returncode}: {proc.stderr.strip()}")
        return 1
    got = proc.stdout.split("\n")
    if got and got[-1] == "":
        got.pop()
    failed = 0
    for i, (src, want) in enumerate(zip(sources, expected)):
        have = got[i] if i < len(got) else None
        ok = have == want
        failed += not ok
        print(f"{'ok  ' if ok else 'FAIL'} {src!r} -> {have!r} (expected {want!r})")
    if len(got) != len(expected):
        print(f"FAIL: {len(got)} output lines for {len(expected)} sentences")
        failed += 1
    # The program links the shared library (not the static one).
    dynamic = subprocess.run(["readelf", "-d", program], capture_output=True, text=True).stdout
    shared_ok = "Shared library: [libsoftalign.so" in dynamic
    failed += not shared_ok
    print(f"{'ok  ' if shared_ok else 'FAIL'} {program} needs libsoftalign.so")
    # A bad model path: exit status 1 and one line on stderr.
    bad = subprocess.run([program, model + ".missing", "x"], capture_output=True, text=True, timeout=60)
    bad_ok = bad.returncode == 1 and bad.stdout == "" and len(bad.stderr.strip().splitlines()) == 1
    failed += not bad_ok
    print(f"{'ok  ' if bad_ok else 'FAIL'} missing model: {bad.returncode} {bad.stderr.strip()!r}")
    print(f"{len(expected) + 2 - failed} passed, {failed} failed")
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
