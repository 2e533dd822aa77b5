"""python_wheel_install: the pip-installable wheel works where the build tree is not.

1. scripts/build_wheel.sh builds dist/softalign-*-manylinux_*.whl, always:
   its CMake build in build-wheel/ is kept, so with the sources unchanged
   that takes a few seconds and never tests a stale wheel (the first run
   makes the tools' venv and compiles the runtime: a minute or two).
2. A clean venv (`python3 -m venv`, no system site packages) in the work
   folder gets the wheel with `pip install` (numpy, its dependency, from PyPI
   or pip's cache).
3. That venv's Python, run from a temporary folder outside the repository
   with no PYTHONPATH (so only the installed module can be imported), loads
   models/en-fr/en-fr.int8.softalign, translates "A simple text editor.",
   uses translate_batch and the attention matrix (numpy).

A missing tool fails with one line naming the setup step that provides it.
"""
import argparse
import fcntl
import glob
import os
import shutil
import subprocess
import sys
import tempfile
import zipfile

CHECK = r'''
import os, sys
import softalign
module = os.path.realpath(softalign.__file__)
assert module.startswith(os.path.realpath(sys.prefix) + os.sep), ("softalign imported from outside the venv", module)
assert not os.path.realpath(os.getcwd()).startswith(os.path.realpath(sys.argv[2])), "run from inside the repository"
# The libraries it links are the wheel's copies (auditwheel's softalign.libs/), not the system's.
maps = [line.split()[-1] for line in open("/proc/self/maps") if "libXNNPACK" in line or "libsentencepiece" in line]
assert maps and all("/softalign.libs/" in path for path in maps), sorted(set(maps))
model = softalign.Model.load(sys.argv[1])
tr = softalign.Translator(model, beam=4, max_batch=4)
fr = tr.translate("A simple text editor.")
assert isinstance(fr, str) and fr.strip(), repr(fr)
print("translate:", fr)
texts = ["A simple text editor.", "Open file", "Fonts for the desktop", "Python bindings", "Command line tools."]
out = tr.translate_batch(texts, beam_size=4, num_hypotheses=2, return_scores=True, max_batch_size=2)
assert len(out) == len(texts)
assert out[0].hypotheses[0] == fr, (out[0].hypotheses, fr)
assert all(len(r.hypotheses) == 2 and len(r.scores) == 2 and r.hypotheses[0].strip() for r in out)
assert all(r.scores[0] >= r.scores[1] for r in out)
assert [r.hypotheses[0] for r in out] == tr.translate(texts)
print("translate_batch:", [r.hypotheses[0] for r in out])
att = tr.translate_nbest("Open file", attention=True).hypotheses[0].attention
import numpy
assert isinstance(att, numpy.ndarray) and att.ndim == 2, type(att)
print("ok: softalign", softalign.__version__, "from", module, "numpy", numpy.__version__)
'''


def fail(line):
    print(f"python_wheel_install: FAIL: {line}", file=sys.stderr)
    sys.exit(1)


def run(cmd, what, shown=None, **kw):
    print("+", shown or " ".join(cmd), flush=True)
    r = subprocess.run(cmd, **kw)
    if r.returncode != 0:
        fail(f"{what} (exit status {r.returncode}; its output is above)")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--source", required=True, help="the repository")
    ap.add_argument("--work", required=True, help="a folder of the build tree for the venv")
    ap.add_argument("--python", default="/usr/bin/python3", help="the Python the wheel is built for")
    a = ap.parse_args()
    source = os.path.realpath(a.source)

    # What this test needs itself (scripts/build_wheel.sh checks the build's own needs the same way).
    if not os.access(a.python, os.X_OK):
        fail(f"{a.python} is missing: `bash scripts/setup.sh full` provides it (python3)")
    if subprocess.run([a.python, "-c", "import venv, ensurepip"], capture_output=True).returncode != 0:
        fail(f"{a.python} cannot make a venv: `bash scripts/setup.sh full` provides it (python3-venv)")
    if shutil.which("bash") is None:
        fail("bash is missing")

    lock_path = os.path.join(source, "build-wheel", ".lock")
    # Its output passes through; when it fails, its last line (a missing tool: the setup step) is ours.
    print("+ bash scripts/build_wheel.sh", flush=True)
    build = subprocess.Popen(["bash", os.path.join(source, "scripts", "build_wheel.sh")], stdout=subprocess.PIPE,
                             stderr=subprocess.STDOUT, env=dict(os.environ, SOFTALIGN_WHEEL_PYTHON=a.python))
    last = ""
    for raw in build.stdout:
        line = raw.decode("utf-8", "replace").rstrip("\n")
        print(line, flush=True)
        last = line or last
    if build.wait() != 0:
        fail(last if last.startswith("build_wheel.sh: ") else
             f"scripts/build_wheel.sh failed (exit status {build.returncode}; its output is above)")

    # Copy the wheel out while no build_wheel.sh replaces it (it holds the same lock).
    os.makedirs(a.work, exist_ok=True)
    os.makedirs(os.path.dirname(lock_path), exist_ok=True)
    with open(lock_path, "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        wheels = sorted(glob.glob(os.path.join(source, "dist", "softalign-*manylinux*.whl")))
        if len(wheels) != 1:
            fail(f"expected one dist/softalign-*manylinux*.whl, found {len(wheels)}: {wheels}")
        for old in glob.glob(os.path.join(a.work, "softalign-*.whl")):
            os.remove(old)
        wheel = shutil.copy2(wheels[0], a.work)
    names = zipfile.ZipFile(wheel).namelist()
    libs = sorted(os.path.basename(n) for n in names if n.startswith("softalign.libs/"))
    print(f"wheel: {os.path.basename(wheel)}, {os.path.getsize(wheel) / 1e6:.1f} MB, bundles {libs}")
    if not any(n.startswith("softalign.") and n.endswith(".so") and "/" not in n for n in names):
        fail(f"{os.path.basename(wheel)} holds no softalign*.so at its root: {names}")
    if not any(lib.startswith("libXNNPACK") for lib in libs):
        fail(f"{os.path.basename(wheel)} does not bundle XNNPACK (auditwheel repair): {libs}")

    # A clean venv: no system site packages, so nothing of Debian's (numpy included) is visible.
    venv = os.path.join(a.work, "venv")
    shutil.rmtree(venv, ignore_errors=True)
    run([a.python, "-m", "venv", venv], f"{a.python} -m venv failed")
    with open(os.path.join(venv, "pyvenv.cfg")) as f:
        if "include-system-site-packages = false" not in f.read():
            fail("the venv sees the system site packages")
    vpy = os.path.join(venv, "bin", "python")
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV")}
    env["PYTHONNOUSERSITE"] = "1"
    run([vpy, "-m", "pip", "install", "-q", "--disable-pip-version-check", wheel],
        "pip install of the wheel failed (numpy comes from PyPI or pip's cache)", env=env)

    model = os.path.join(source, "models", "en-fr", "en-fr.int8.softalign")
    with tempfile.TemporaryDirectory(prefix="softalign-wheel-") as cwd:
        if os.path.realpath(cwd).startswith(source + os.sep):
            fail(f"the temporary folder {cwd} is inside the repository (set TMPDIR elsewhere)")
        run([vpy, "-c", CHECK, model, source], "the installed wheel does not translate",
            shown=f"cd {cwd} && {vpy} -c <CHECK> {model} {source}", cwd=cwd, env=env)
    print("python_wheel_install: ok")


if __name__ == "__main__":
    main()
