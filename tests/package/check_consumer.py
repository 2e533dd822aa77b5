"""Runs an outside program built against softalign (translate.cpp, or the C
example built with plain cc) on a golden model and checks each output line
against the golden greedy translation (golden.json's ids, detokenised by
SentencePiece itself), how it links libsoftalign, and its error path.

    check_consumer.py PROGRAM MODEL.softalign GOLDEN_DIR shared|static
"""
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "golden"))
from golden_outputs import GoldenOutputs  # noqa: E402


def main() -> int:
    program, model, golden_dir, kind = sys.argv[1], sys.argv[2], Path(sys.argv[3]), sys.argv[4]
    golden = GoldenOutputs(golden_dir)
    sources, expected = golden.sources, golden.greedy_texts()

    checks = []
    proc = subprocess.run([program, model, *sources], capture_output=True, text=True, timeout=120)
    checks.append((proc.returncode == 0, f"exit status {proc.returncode} {proc.stderr.strip()!r}"))
    got = proc.stdout.split("\n")[:-1]
    for i, (src, want) in enumerate(zip(sources, expected)):
        have = got[i] if i < len(got) else None
        checks.append((have == want, f"{src!r} -> {have!r} (expected {want!r})"))
    checks.append((len(got) == len(expected), f"{len(got)} lines for {len(expected)} sentences"))

    dynamic = subprocess.run(["readelf", "-d", program], capture_output=True, text=True, check=True).stdout
    needs = "Shared library: [libsoftalign.so" in dynamic
    checks.append((needs == (kind == "shared"), f"{kind}: needs libsoftalign.so: {needs}"))

    bad = subprocess.run([program, model + ".missing", "x"], capture_output=True, text=True, timeout=60)
    checks.append((bad.returncode == 1 and bad.stdout == "" and len(bad.stderr.strip().splitlines()) == 1,
                   f"missing model: exit {bad.returncode}, stderr {bad.stderr.strip()!r}"))
    failed = 0
    for ok, what in checks:
        failed += not ok
        print("ok  " if ok else "FAIL", what)
    print(f"{len(checks) - failed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
