"""python_wheel_install(_aarch64): the pip-installable wheel works where the build tree is not.

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

4. The console script softalign-import (the package softalign_import) runs from there:
   its help, and, in that venv without PyTorch, the error that says reading a checkpoint
   needs it (exit status 1, no traceback).

5. `pip show` gives the metadata (pyproject.toml's [project]): name, summary, author,
   licence, classifiers. The wheel carries a copyright file for each library auditwheel
   bundled (scripts/wheel_licenses.py).

--arch aarch64 (python_wheel_install_aarch64, the ARM stage): the wheel is cross-built
(`scripts/build_wheel.sh aarch64`) and Debian's arm64 Python 3.11 in the sysroot
(scripts/cross_python.sh), run by qemu-user, makes a clean venv (--without-pip: ensurepip
would start pip in a child process, which qemu-user without binfmt cannot run), and pip,
run from Debian's pip wheel, installs the wheel into it with numpy (downloaded here for
aarch64 from PyPI once, into the work folder; pip under qemu then installs offline). That
venv's Python translates the 100 DDTP test lines of ddtp-en-fr-test-100.en with the
shipped model, and so does a host venv with the x86-64 wheel (built by build_wheel.sh
too): the outputs must be equal.

A missing tool fails with one line naming the setup step that provides it.
"""
import argparse
import fcntl
import glob
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
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


# Translates argv[2]'s lines (not '#' ones) with argv[1], the Translator's defaults, and prints
# them as JSON; the module and the libraries it loaded must be the venv's.
TRANSLATE = r'''
import json, os, sys
import softalign
module = os.path.realpath(softalign.__file__)
assert module.startswith(os.path.realpath(sys.prefix) + os.sep), ("softalign imported from outside the venv", module)
maps = [line.split()[-1] for line in open("/proc/self/maps") if "libXNNPACK" in line or "libsentencepiece" in line]
assert maps and all("/softalign.libs/" in path for path in maps), sorted(set(maps))
lines = [l.rstrip("\n") for l in open(sys.argv[2], encoding="utf-8") if not l.startswith("#")]
tr = softalign.Translator(softalign.Model.load(sys.argv[1]))
out = tr.translate(lines)
assert all(isinstance(o, str) for o in out), [o for o in out if not isinstance(o, str)]
print(json.dumps({"machine": os.uname().machine, "kernels": tr.kernels, "out": out}))
'''


def fail(line):
    print(f"python_wheel_install: FAIL: {line}", file=sys.stderr)
    sys.exit(1)


def run(cmd, what, shown=None, **kw):
    print("+", shown or " ".join(cmd), flush=True)
    r = subprocess.run(cmd, **kw)
    if r.returncode != 0:
        fail(f"{what} (exit status {r.returncode}; its output is above)")


def build_wheel(source, work, python, arch):
    """scripts/build_wheel.sh [arch], then its wheel copied into work (under the build's lock)."""
    print(f"+ bash scripts/build_wheel.sh {arch}", flush=True)
    # Its output passes through; when it fails, its last line (a missing tool: the setup step) is ours.
    build = subprocess.Popen(["bash", os.path.join(source, "scripts", "build_wheel.sh"), arch],
                             stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                             env=dict(os.environ, SOFTALIGN_WHEEL_PYTHON=python))
    last = ""
    for raw in build.stdout:
        line = raw.decode("utf-8", "replace").rstrip("\n")
        print(line, flush=True)
        last = line or last
    if build.wait() != 0:
        fail(last if last.startswith("build_wheel.sh: ") else
             f"scripts/build_wheel.sh failed (exit status {build.returncode}; its output is above)")
    # Copy the wheel out while no build_wheel.sh replaces it (it holds the same lock).
    lock_path = os.path.join(source, "build-wheel", ".lock")
    os.makedirs(work, exist_ok=True)
    os.makedirs(os.path.dirname(lock_path), exist_ok=True)
    with open(lock_path, "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        wheels = sorted(glob.glob(os.path.join(source, "dist", f"softalign-*manylinux*_{arch}.whl")))
        if len(wheels) != 1:
            fail(f"expected one dist/softalign-*manylinux*_{arch}.whl, found {len(wheels)}: {wheels}")
        for old in glob.glob(os.path.join(work, f"softalign-*_{arch}.whl")):
            os.remove(old)
        wheel = shutil.copy2(wheels[0], work)
    names = zipfile.ZipFile(wheel).namelist()
    libs = sorted(os.path.basename(n) for n in names if n.startswith("softalign.libs/") and not n.endswith("/"))
    print(f"wheel: {os.path.basename(wheel)}, {os.path.getsize(wheel) / 1e6:.2f} MB, bundles {libs}")
    for want in ("softalign/__init__.py", "softalign/__init__.pyi", "softalign/py.typed", "softalign_import/cli.py",
                 "softalign_import/common.py"):
        if want not in names:
            fail(f"{os.path.basename(wheel)} lacks {want}: {names}")
    if not any(n.startswith("softalign/_softalign.") and n.endswith(f"-{arch}-linux-gnu.so") for n in names):
        fail(f"{os.path.basename(wheel)} holds no softalign/_softalign*-{arch}-linux-gnu.so: {names}")
    if not any(lib.startswith("libXNNPACK") for lib in libs):
        fail(f"{os.path.basename(wheel)} does not bundle XNNPACK (auditwheel repair): {libs}")
    return wheel


def clean_env():
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV")}
    env["PYTHONNOUSERSITE"] = "1"
    return env


def make_venv(python, venv, *options):
    """A clean venv: no system site packages, so nothing of Debian's (numpy included) is visible."""
    shutil.rmtree(venv, ignore_errors=True)
    run([*python, "-m", "venv", *options, venv], f"{' '.join(python)} -m venv failed", env=clean_env())
    with open(os.path.join(venv, "pyvenv.cfg")) as f:
        if "include-system-site-packages = false" not in f.read():
            fail("the venv sees the system site packages")


def check_metadata(pip):
    """pip show: pyproject.toml's [project] fields."""
    show = subprocess.run([*pip, "show", "-v", "--disable-pip-version-check", "softalign"],
                          capture_output=True, text=True, env=clean_env())
    print(show.stdout, end="")
    fields = dict(line.split(": ", 1) for line in show.stdout.splitlines() if ": " in line)
    for field, want in (("Name", "softalign"), ("Author", "softalign maintainers"),
                        ("License", "No licence chosen yet"), ("Requires", "numpy")):
        if not fields.get(field, "").startswith(want):
            fail(f"pip show: {field} is {fields.get(field)!r}, not {want!r}...")
    if "Offline translation" not in fields.get("Summary", ""):
        fail(f"pip show: no summary: {fields.get('Summary')!r}")
    for classifier in ("Typing :: Typed", "Topic :: Text Processing :: Linguistic"):
        if classifier not in show.stdout:
            fail(f"pip show -v: no classifier {classifier!r}")


def check_licenses(wheel):
    """One <package>.copyright in the dist-info's licenses/ for each bundled library."""
    with zipfile.ZipFile(wheel) as z:
        names = z.namelist()
    bundled = [n for n in names if ".libs/" in n and not n.endswith("/")]
    notices = [n for n in names if ".dist-info/licenses/" in n and n.endswith(".copyright")]
    print(f"{os.path.basename(wheel)}: {len(bundled)} bundled libraries, notices: "
          + ", ".join(os.path.basename(n) for n in notices))
    if not bundled or len(notices) != len(bundled):
        fail(f"{len(bundled)} bundled libraries but {len(notices)} copyright files in the wheel")


def check_import_script(source, vpy):
    """The wheel's console script softalign-import, from outside the repository: its help runs
    without PyTorch (the clean venv has none), and reading a checkpoint says that it needs it."""
    script = os.path.join(os.path.dirname(vpy[-1]), "softalign-import")
    if not os.access(script, os.X_OK):
        fail(f"the wheel installed no console script {script}")
    has_torch = subprocess.run([*vpy, "-c", "import torch"], capture_output=True, env=clean_env()).returncode == 0
    with tempfile.TemporaryDirectory(prefix="softalign-wheel-") as cwd:
        print(f"+ cd {cwd} && {script} --help", flush=True)
        r = subprocess.run([script, "--help"], cwd=cwd, env=clean_env(), capture_output=True, text=True)
        if r.returncode != 0 or "opennmt-py" not in r.stdout:
            fail(f"softalign-import --help: exit status {r.returncode}: {r.stderr[-1000:]}")
        if has_torch:
            print("softalign-import: the venv has torch; the missing-torch error is not checked")
            return
        print(f"+ cd {cwd} && {script} opennmt-py model.pt", flush=True)
        r = subprocess.run([script, "opennmt-py", "model.pt"], cwd=cwd, env=clean_env(), capture_output=True,
                           text=True)
        print(r.stderr, end="")
        if r.returncode != 1 or "needs PyTorch" not in r.stderr or "Traceback" in r.stderr:
            fail(f"softalign-import without torch: exit status {r.returncode}, not 1 with a line naming PyTorch")


def run_outside(source, python, script, args, what):
    """python -c script args, from a temporary folder outside the repository, with no PYTHONPATH."""
    with tempfile.TemporaryDirectory(prefix="softalign-wheel-") as cwd:
        if os.path.realpath(cwd).startswith(source + os.sep):
            fail(f"the temporary folder {cwd} is inside the repository (set TMPDIR elsewhere)")
        print(f"+ cd {cwd} && {' '.join(python)} -c <script> {' '.join(args)}", flush=True)
        r = subprocess.run([*python, "-c", script, *args], cwd=cwd, env=clean_env(), capture_output=True, text=True)
        print(r.stderr, end="")
        if r.returncode != 0:
            fail(f"{what} (exit status {r.returncode}; its output is above)")
        return r.stdout


def host_venv(source, work, python, wheel):
    """A host venv with the wheel pip-installed (numpy from PyPI or pip's cache): its python."""
    if subprocess.run([python, "-c", "import venv, ensurepip"], capture_output=True).returncode != 0:
        fail(f"{python} cannot make a venv: `bash scripts/setup.sh full` provides it (python3-venv)")
    venv = os.path.join(work, "venv")
    make_venv([python], venv)
    vpy = os.path.join(venv, "bin", "python")
    run([vpy, "-m", "pip", "install", "-q", "--disable-pip-version-check", wheel],
        "pip install of the wheel failed (numpy comes from PyPI or pip's cache)", env=clean_env())
    return [vpy]


def emulated_venv(source, work, wheel, sysroot, tools_python):
    """A venv of the sysroot's aarch64 Python under qemu-user, the wheel pip-installed: its python."""
    pip_wheels = sorted(glob.glob(os.path.join(sysroot, "usr", "share", "python-wheels", "pip-*.whl")))
    target_python = os.path.join(sysroot, "usr", "bin", "python3.11")
    if not os.access(target_python, os.X_OK) or not pip_wheels:
        fail(f"the aarch64 Python is missing in {sysroot}: `bash scripts/cross_python.sh aarch64` provides it")
    if shutil.which("qemu-aarch64") is None:
        fail("qemu-aarch64 is missing: `bash scripts/cross_sysroot.sh aarch64` installs it (qemu-user)")
    emulator = ["qemu-aarch64", "-L", sysroot]
    # numpy, the wheel's dependency, for aarch64 (downloaded once by the host's pip: pip under qemu
    # then installs offline).
    deps = os.path.join(work, "deps-aarch64")
    if not glob.glob(os.path.join(deps, "numpy-*aarch64*.whl")):
        run([tools_python, "-m", "pip", "download", "-q", "--disable-pip-version-check", "--only-binary=:all:",
             "--platform", "manylinux2014_aarch64", "--python-version", "3.11", "--implementation", "cp",
             "--abi", "cp311", "numpy==1.26.4", "-d", deps], "pip download of numpy for aarch64 failed (PyPI)")
    venv = os.path.join(work, "venv-aarch64")
    make_venv([*emulator, target_python], venv, "--without-pip")
    vpy = [*emulator, os.path.join(venv, "bin", "python")]
    pip = [*vpy, os.path.join(pip_wheels[-1], "pip")]
    run([*pip, "install", "-q", "--disable-pip-version-check", "--no-index", "--find-links", deps, wheel],
        "pip install of the aarch64 wheel under qemu failed", env=clean_env())
    return vpy, pip


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--source", required=True, help="the repository")
    ap.add_argument("--work", required=True, help="a folder of the build tree for the venv")
    ap.add_argument("--python", default="/usr/bin/python3", help="the Python the wheel is built for")
    ap.add_argument("--arch", default="x86_64", help="x86_64 (this machine) or aarch64 (cross-built, run under qemu)")
    ap.add_argument("--sysroot", help="aarch64: the sysroot (scripts/cross_sysroot.sh, cross_python.sh)")
    a = ap.parse_args()
    source = os.path.realpath(a.source)

    # What this test needs itself (scripts/build_wheel.sh checks the build's own needs the same way).
    if not os.access(a.python, os.X_OK):
        fail(f"{a.python} is missing: `bash scripts/setup.sh full` provides it (python3)")
    if shutil.which("bash") is None:
        fail("bash is missing")
    model = os.path.join(source, "models", "en-fr", "en-fr.int8.softalign")
    host_arch = os.uname().machine
    wheel = build_wheel(source, a.work, a.python, host_arch)
    vpy = host_venv(source, a.work, a.python, wheel)
    if a.arch == host_arch:
        check_licenses(wheel)
        check_metadata([*vpy, "-m", "pip"])
        print(run_outside(source, vpy, CHECK, [model, source], "the installed wheel does not translate"), end="")
        check_import_script(source, vpy)
        print("python_wheel_install: ok")
        return

    # aarch64: its wheel under qemu against the host's, on the same lines.
    start = time.time()
    target_wheel = build_wheel(source, a.work, a.python, a.arch)
    target_vpy, target_pip = emulated_venv(source, a.work, target_wheel, os.path.realpath(a.sysroot),
                                           os.path.join(source, "build-wheel", "venv", "bin", "python"))
    print(f"aarch64 venv and pip install under qemu: {time.time() - start:.0f} s")
    check_licenses(target_wheel)
    check_metadata(target_pip)
    lines = os.path.join(os.path.dirname(os.path.abspath(__file__)), "ddtp-en-fr-test-100.en")
    want = json.loads(run_outside(source, vpy, TRANSLATE, [model, lines], "the x86-64 wheel does not translate"))
    got = json.loads(run_outside(source, target_vpy, TRANSLATE, [model, lines], "the aarch64 wheel does not translate"))
    print(f"x86-64 ({want['machine']}, kernels {want['kernels']}) and aarch64 under qemu ({got['machine']}, "
          f"kernels {got['kernels']}): {len(got['out'])} lines")
    if got["machine"] != "aarch64" or len(got["out"]) != 100:
        fail(f"not the aarch64 wheel's 100 lines: {got['machine']}, {len(got['out'])}")
    differ = [(i, w, g) for i, (w, g) in enumerate(zip(want["out"], got["out"])) if w != g]
    for i, w, g in differ[:5]:
        print(f"line {i + 1}: x86-64 {w!r}\n        aarch64 {g!r}")
    if differ or len(want["out"]) != len(got["out"]):
        fail(f"{len(differ)} of {len(got['out'])} lines differ between the x86-64 and the aarch64 wheel")
    print(f"python_wheel_install_aarch64: ok, the 100 lines equal ({time.time() - start:.0f} s)")


if __name__ == "__main__":
    main()
