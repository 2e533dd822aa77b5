"""The Java package's natives are self-contained (tests/java/package/CMakeLists.txt).

For each org/softalign/native/<os>-<arch>/libsoftalign_jni.so in the jar: its ELF machine is
its folder's architecture, the libraries it names (readelf -d: NEEDED) are only libc, libm,
libstdc++, libgcc_s and the dynamic loader, and so is every library the dynamic loader then
loads for it (ldd on this machine's own architecture; for another, the target's loader under
qemu with --list, when a sysroot is given). Prints the newest GLIBC_ and GLIBCXX_ versions each
needs (the oldest system it loads on). The jar carries SentencePiece's licence.

    python3 check_natives.py JAR --platform linux-x86_64 --platform linux-aarch64 [--sysroot ARCH=DIR ...]
"""
import argparse
import os
import platform
import re
import subprocess
import sys
import tempfile
import zipfile

ALLOWED = re.compile(r"^(libc\.so\.6|libm\.so\.6|libstdc\+\+\.so\.6|libgcc_s\.so\.1|ld-linux[-\w.]*\.so\.\d|linux-vdso\.so\.1)$")
MACHINES = {"x86_64": "Advanced Micro Devices X86-64", "aarch64": "AArch64"}
LOADERS = {"aarch64": ("qemu-aarch64", "lib/ld-linux-aarch64.so.1")}


def readelf(*args):
    return subprocess.run(["readelf", *args], check=True, capture_output=True, text=True).stdout


def loaded_libraries(path, arch, sysroots):
    """The libraries the dynamic loader loads for path (None where it cannot be asked here)."""
    if arch == platform.machine():
        out = subprocess.run(["ldd", path], check=True, capture_output=True, text=True).stdout
    elif arch in sysroots and arch in LOADERS:
        qemu, loader = LOADERS[arch]
        root = sysroots[arch]
        out = subprocess.run([qemu, "-L", root, os.path.join(root, loader), "--list", path],
                             check=True, capture_output=True, text=True).stdout
    else:
        return None
    # "name => path (address)" or "path (address)"; under qemu the vDSO is a bare "(address)".
    return [line.split()[0] for line in out.splitlines() if line.strip() and not line.strip().startswith("(")]


def newest(symbols, prefix):
    versions = re.findall(re.escape(prefix) + r"_([0-9.]+)", symbols)
    return max(versions, key=lambda v: [int(x) for x in v.split(".")]) if versions else "none"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("jar")
    parser.add_argument("--platform", action="append", default=[], help="a folder the jar must have")
    parser.add_argument("--sysroot", action="append", default=[], help="ARCH=DIR: the target's sysroot")
    args = parser.parse_args()
    sysroots = dict(s.split("=", 1) for s in args.sysroot)
    failures = checked = 0
    with zipfile.ZipFile(args.jar) as jar, tempfile.TemporaryDirectory() as scratch:
        natives = sorted(n for n in jar.namelist() if re.match(r"org/softalign/native/[^/]+/libsoftalign_jni\.so$", n))
        for name in natives:
            folder = name.split("/")[3]
            arch = folder.split("-", 1)[1]
            path = jar.extract(name, scratch)
            checked += 1
            problems = []
            machine = re.search(r"Machine:\s+(.*)", readelf("-h", path)).group(1).strip()
            if machine != MACHINES.get(arch):
                problems.append(f"machine {machine!r}, not {arch}'s")
            needed = re.findall(r"\(NEEDED\)\s+Shared library: \[(.*?)\]", readelf("-d", path))
            problems += [f"needs {lib}" for lib in needed if not ALLOWED.match(lib)]
            loaded = loaded_libraries(path, arch, sysroots)
            if loaded is not None:
                problems += [f"the loader loads {lib}" for lib in loaded if not ALLOWED.match(os.path.basename(lib))]
            symbols = readelf("--dyn-syms", "-W", path)
            print(f"{folder}: {jar.getinfo(name).file_size} bytes; NEEDED {', '.join(needed)}; "
                  f"loaded {'(not checked: no sysroot)' if loaded is None else ', '.join(map(os.path.basename, loaded))}; "
                  f"newest GLIBC_{newest(symbols, 'GLIBC')}, GLIBCXX_{newest(symbols, 'GLIBCXX')}")
            for p in problems:
                print(f"  FAIL {folder}: {p}")
            failures += bool(problems)
        # SentencePiece, linked into each library, is Apache-2.0: its licence travels with it.
        if "META-INF/licenses/sentencepiece.txt" not in jar.namelist():
            print("FAIL: the jar has no META-INF/licenses/sentencepiece.txt (SentencePiece is linked in)")
            failures += 1
    present = {n.split("/")[3] for n in natives}
    for missing in sorted(set(args.platform) - present):
        print(f"FAIL: the jar has no org/softalign/native/{missing}/libsoftalign_jni.so")
        failures += 1
    if checked == 0:
        print(f"FAIL: no org/softalign/native/*/libsoftalign_jni.so in {args.jar}")
        return 1
    print(f"{checked - failures} passed, {failures} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
