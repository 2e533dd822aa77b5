"""Packaging tests (tests/package/CMakeLists.txt registers each with ctest).

    package_tests.py install    --build-dir B --prefix P --version V [--source S --python PY]
    package_tests.py cmake      --prefix P --work W --model M --golden G [--generator N --cxx C]
    package_tests.py pkgconfig  --prefix P --work W --model M --golden G --source S [--cc C]
    package_tests.py fetch      --source S --work W --model M --golden G --version V [--generator N --cxx C --c C]
    package_tests.py deb        --build-dir B --work W --model M --golden G --version V --source S [--cc C]
    package_tests.py tools      --prefix P --work W --model M --source S --version V [--generator N --cxx C]
                                [--python PY]

install: `cmake --install B --prefix P` into an empty P; checks the tree
(headers, both libraries, SONAME, CLI, converter, CMake package, softalign.pc)
and that the installed tools report the version of project(VERSION); with --source and
--python (a Python with PyTorch: the launcher's $SOFTALIGN_PYTHON), softalign-import as
installed imports a JoeyNMT fixture (tests/import/fixtures) through the installed
softalign-convert, from outside the source tree, and the installed CLI translates it.
cmake: an outside project finds P with find_package(softalign CONFIG) and links
the shared and the static library. pkgconfig: platforms/c/translate.c built
with plain cc and `pkg-config --cflags --libs softalign`. fetch: an outside
project builds softalign from S as a subproject. deb: cpack -G DEB makes
libsoftalign0, libsoftalign-dev and softalign-tools; their fields and contents
are checked with dpkg-deb, then they are unpacked (dpkg -x) into a scratch
root, whose tools and pkg-config file are used in place (and lintian runs if
installed). Every consumer translates the golden model's sentences
(check_consumer.py). tools: the CLI (platforms/cli) and the converter, each
built from S as a CMake project of its own against P (find_package, the shared
library, which exports the public API only: a tool that used the runtime's
internals would not build), then run on the model M beside the tools
installed in P; with --python, the installed softalign-import writes the same file through
the converter built there ($SOFTALIGN_CONVERT) as through the installed one.
"""
import argparse
import os
import shutil
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
failures = []


def check(ok, what):
    print("ok  " if ok else "FAIL", what, flush=True)
    if not ok:
        failures.append(what)
    return ok


def run(cmd, env=None, cwd=None, check_rc=True):
    print("+", " ".join(str(c) for c in cmd), flush=True)
    p = subprocess.run([str(c) for c in cmd], capture_output=True, text=True, env=env, cwd=cwd)
    if check_rc and p.returncode != 0:
        print(p.stdout[-4000:], p.stderr[-4000:], sep="\n")
        raise SystemExit(f"FAIL: exit status {p.returncode}: {' '.join(str(c) for c in cmd)}")
    return p


def fresh(path):
    path = Path(path)
    if path.exists():
        shutil.rmtree(path)
    path.mkdir(parents=True)
    return path


def consumer(program, args, kind, env=None):
    p = subprocess.run([sys.executable, HERE / "check_consumer.py", program, args.model, args.golden, kind],
                       capture_output=True, text=True, env=env)
    print(p.stdout, p.stderr, sep="", end="")
    check(p.returncode == 0, f"{program} translates the golden sentences ({kind})")


def libdir_of(prefix):
    found = sorted(Path(prefix).glob("lib*/**/libsoftalign.so.*"))
    return found[0].parent if found else Path(prefix) / "lib"


def cmd_install(args):
    prefix = fresh(args.prefix)
    run(["cmake", "--install", args.build_dir, "--prefix", prefix])
    major = args.version.split(".")[0]
    lib = libdir_of(prefix)
    expect = [
        "include/softalign/softalign.h", "include/softalign/softalign.hpp", "include/softalign/export.h",
        "include/softalign/version.hpp", "bin/softalign", "bin/softalign-convert",
    ]
    for rel in expect:
        check((prefix / rel).is_file(), f"installed {rel}")
    for name in ["libsoftalign.a", f"libsoftalign.so.{args.version}"]:
        check((lib / name).is_file(), f"installed {lib.relative_to(prefix)}/{name}")
    for name, target in [(f"libsoftalign.so.{major}", f"libsoftalign.so.{args.version}"),
                         ("libsoftalign.so", f"libsoftalign.so.{major}")]:
        path = lib / name
        check(path.is_symlink() and os.readlink(path) == target, f"{name} -> {target}")
    for rel in ["cmake/softalign/softalignConfig.cmake", "cmake/softalign/softalignConfigVersion.cmake",
                "cmake/softalign/softalignTargets.cmake", "cmake/softalign/FindXNNPACK.cmake",
                "cmake/softalign/FindSentencePiece.cmake", "pkgconfig/softalign.pc"]:
        check((lib / rel).is_file(), f"installed {lib.relative_to(prefix)}/{rel}")
    soname = run(["readelf", "-d", lib / f"libsoftalign.so.{args.version}"]).stdout
    check(f"Library soname: [libsoftalign.so.{major}]" in soname, f"SONAME libsoftalign.so.{major}")
    internal = [p for p in (prefix / "include").rglob("*") if p.is_file() and p.parent.name != "softalign"]
    check(not internal, f"only include/softalign/ is installed ({internal})")
    out = run([prefix / "bin/softalign", "--version"], check_rc=False)
    check(out.returncode == 0 and out.stdout.strip() == f"softalign {args.version}", f"softalign --version: {out.stdout.strip()!r}")
    out = run([prefix / "bin/softalign-convert", "--help"], check_rc=False)
    check(out.returncode == 0 and "softalign-convert" in out.stdout, "softalign-convert --help runs")
    if args.source and args.python:
        check_import_installed(args, prefix)


IMPORT_FIXTURE = "joey-gru-bahdanau"


def import_env(args):
    """The installed softalign-import's environment: the tests' Python (it has PyTorch), and no
    PYTHONPATH, so only the installed package can be imported."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env.update(SOFTALIGN_PYTHON=args.python, OMP_NUM_THREADS="1", PYTHONDONTWRITEBYTECODE="1")
    return env


def run_import(args, prefix, out, env, cwd):
    """The installed softalign-import on a JoeyNMT fixture (tests/import/fixtures), -o out (fp32)."""
    fx = Path(args.source).resolve() / "tests/import/fixtures"
    return run([prefix / "bin/softalign-import", "joeynmt", fx / IMPORT_FIXTURE / "model.ckpt", "--config",
                fx / IMPORT_FIXTURE / "config.yaml", "--src-spm", fx / "data/spm.en.model", "--tgt-spm",
                fx / "data/spm.fr.model", "-o", out], env=env, cwd=cwd, check_rc=False)


def check_import_installed(args, prefix):
    """softalign-import as installed: its package under share/, its launcher finding it from its own
    place, run from outside the source tree; -o goes through the installed softalign-convert, and the
    installed CLI translates the file."""
    for rel in ["bin/softalign-import", "share/softalign/python/softalign_import/cli.py",
                "share/softalign/python/softalign_import/common.py"]:
        check((prefix / rel).is_file(), f"installed {rel}")
    check(not list(prefix.rglob("__pycache__")), "no __pycache__ installed")
    env = import_env(args)
    out = run([prefix / "bin/softalign-import", "--help"], env=env, check_rc=False)
    check(out.returncode == 0 and "opennmt-py" in out.stdout, "softalign-import --help runs")
    work = fresh(prefix.parent / "import-check")
    model = work / "joey.softalign"
    out = run_import(args, prefix, model, env, work)
    print(out.stdout, out.stderr, sep="", end="")
    check(out.returncode == 0 and model.is_file(), "installed softalign-import -o writes a model file")
    if not model.is_file():
        return
    lines = (Path(args.source) / "tests/import/fixtures/data/test200.en").read_text(encoding="utf-8").splitlines()[:3]
    p = subprocess.run([str(prefix / "bin/softalign"), "translate", "-m", str(model), "--threads", "1"],
                       input="\n".join(lines) + "\n", capture_output=True, text=True)
    check(p.returncode == 0 and len(p.stdout.splitlines()) == 3,
          f"installed softalign translates the imported model: exit {p.returncode}, {p.stdout.splitlines()}")


def cmake_args(args):
    extra = []
    if args.generator:
        extra += ["-G", args.generator]
    if args.cxx:
        extra += [f"-DCMAKE_CXX_COMPILER={args.cxx}"]
    if args.c:
        extra += [f"-DCMAKE_C_COMPILER={args.c}"]
    return extra


def cmd_cmake(args):
    build = fresh(Path(args.work) / "consumer_cmake")
    run(["cmake", "-S", HERE / "consumer_cmake", "-B", build, "-DCMAKE_BUILD_TYPE=Release",
         f"-DCMAKE_PREFIX_PATH={Path(args.prefix).resolve()}", *cmake_args(args)])
    run(["cmake", "--build", build])
    consumer(build / "translate_shared", args, "shared")
    consumer(build / "translate_static", args, "static")


def pkg_config_build(args, pcdir, out):
    env = dict(os.environ, PKG_CONFIG_PATH=str(pcdir))
    flags = run(["pkg-config", "--cflags", "--libs", "softalign"], env=env).stdout.split()
    version = run(["pkg-config", "--modversion", "softalign"], env=env).stdout.strip()
    check(version == args.version if args.version else True, f"pkg-config --modversion softalign: {version}")
    run([args.cc or "cc", "-std=c99", "-Wall", "-Wextra", "-pedantic", "-Werror",
         Path(args.source) / "platforms/c/translate.c", "-o", out, *flags])
    return out


def cmd_pkgconfig(args):
    work = fresh(Path(args.work) / "consumer_pkgconfig")
    prefix = Path(args.prefix).resolve()
    lib = libdir_of(prefix)
    program = pkg_config_build(args, lib / "pkgconfig", work / "translate_c")
    env = dict(os.environ, LD_LIBRARY_PATH=str(lib))
    consumer(program, args, "shared", env=env)


def cmd_fetch(args):
    build = fresh(Path(args.work) / "consumer_fetch")
    # Debug: the library compiles at -O0 (faster); the outputs are the same.
    run(["cmake", "-S", HERE / "consumer_fetch", "-B", build, "-DCMAKE_BUILD_TYPE=Debug",
         f"-DSOFTALIGN_SOURCE_DIR={Path(args.source).resolve()}", f"-DSOFTALIGN_EXPECTED_VERSION={args.version}",
         *cmake_args(args)])
    run(["cmake", "--build", build, "--target", "translate_fetch", "--parallel", str(os.cpu_count() or 2)])
    consumer(build / "translate_fetch", args, "shared")


def deb_field(deb, field):
    return run(["dpkg-deb", "-f", deb, field]).stdout.strip()


def cmd_deb(args):
    work = fresh(Path(args.work) / "deb")
    run(["cpack", "-G", "DEB", "-B", work, "--config", Path(args.build_dir) / "CPackConfig.cmake"])
    debs = {deb_field(d, "Package"): d for d in work.glob("*.deb")}
    major = args.version.split(".")[0]
    names = [f"libsoftalign{major}", "libsoftalign-dev", "softalign-tools"]
    check(sorted(debs) == sorted(names), f"cpack made {sorted(debs)}")
    if sorted(debs) != sorted(names):
        return
    lib, dev, tools = (debs[n] for n in names)
    contents = {}
    for name, deb in debs.items():
        print(run(["dpkg-deb", "-I", deb]).stdout)
        listing = run(["dpkg-deb", "-c", deb]).stdout
        contents[name] = [line.split()[5].lstrip(".") for line in listing.splitlines()]
        check(deb_field(deb, "Version").startswith(args.version), f"{name} version {deb_field(deb, 'Version')}")
        check(deb_field(deb, "Maintainer") != "", f"{name} has a maintainer")
    files = lambda name: [f for f in contents[name] if not f.endswith("/") and not f.startswith("/usr/share/doc/")]
    for name in names:
        check(f"/usr/share/doc/{name}/changelog.Debian.gz" in contents[name], f"{name} has its changelog.Debian.gz")
    check(all("/libsoftalign.so." in f for f in files(names[0])) and len(files(names[0])) == 2,
          f"{names[0]} holds the versioned library only: {files(names[0])}")
    dev_files = files("libsoftalign-dev")
    for want in ["/include/softalign/softalign.h", "/libsoftalign.a", "/libsoftalign.so",
                 "/softalignConfig.cmake", "/pkgconfig/softalign.pc"]:
        check(any(f.endswith(want) for f in dev_files), f"libsoftalign-dev has {want}")
    check(sorted(files("softalign-tools")) == ["/usr/bin/softalign", "/usr/bin/softalign-convert"],
          f"softalign-tools holds the tools: {files('softalign-tools')}")
    lib_dep = deb_field(lib, "Depends")
    check(all(d in lib_dep for d in ["libc6", "libstdc++6", "libsentencepiece0", "libxnnpack0"]),
          f"{names[0]} Depends: {lib_dep}")
    dev_dep = deb_field(dev, "Depends")
    check(f"libsoftalign{major} (= {deb_field(lib, 'Version')})" in dev_dep
          and all(d in dev_dep for d in ["libsentencepiece-dev", "libxnnpack-dev", "libpthreadpool-dev",
                                         "libcpuinfo-dev"]), f"libsoftalign-dev Depends: {dev_dep}")
    tools_dep = deb_field(tools, "Depends")
    check(all(d in tools_dep for d in ["libsentencepiece0", "libxnnpack0"]), f"softalign-tools Depends: {tools_dep}")
    control = fresh(work / "control")
    run(["dpkg-deb", "-e", lib, control])
    shlibs = (control / "shlibs").read_text() if (control / "shlibs").exists() else ""
    check(f"libsoftalign {major} libsoftalign{major}" in shlibs, f"{names[0]} shlibs: {shlibs.strip()!r}")
    triggers = (control / "triggers").read_text() if (control / "triggers").exists() else ""
    check("activate-noawait ldconfig" in triggers, f"{names[0]} triggers: {triggers.strip()!r}")
    # Unpack all three into a scratch root and use them in place.
    root = fresh(work / "root")
    for deb in debs.values():
        run(["dpkg", "-x", deb, root])
    libdir = libdir_of(root / "usr")
    env = dict(os.environ, LD_LIBRARY_PATH=str(libdir))
    out = run([root / "usr/bin/softalign", "--version"], env=env, check_rc=False)
    check(out.returncode == 0 and args.version in out.stdout, f"unpacked softalign --version: {out.stdout.strip()!r}")
    program = pkg_config_build(args, libdir / "pkgconfig", work / "translate_c")
    consumer(program, args, "shared", env=env)
    if shutil.which("lintian"):
        lint = run(["lintian", "--no-tag-display-limit", *debs.values()], check_rc=False)
        print(lint.stdout, lint.stderr)
        # Known and accepted until the project has them: a license (so no
        # copyright file) and a maintainer address (-DSOFTALIGN_DEB_MAINTAINER).
        accepted = ("no-copyright-file", "bogus-mail-host")
        errors = [l for l in lint.stdout.splitlines() if l.startswith("E:") and not any(a in l for a in accepted)]
        check(not errors, f"lintian: {len(errors)} errors besides {', '.join(accepted)}: {errors}")
    else:
        print("lintian is not installed: skipped")


def cmd_tools(args):
    prefix = Path(args.prefix).resolve()
    lib = libdir_of(prefix)
    work = fresh(Path(args.work) / "tools")
    built = {}
    for subdir, program in [("platforms/cli", "softalign"), ("converter", "softalign-convert")]:
        build = work / Path(subdir).name
        # Debug: -O0 compiles faster; the runs below are short.
        run(["cmake", "-S", Path(args.source).resolve() / subdir, "-B", build, "-DCMAKE_BUILD_TYPE=Debug",
             f"-DCMAKE_PREFIX_PATH={prefix}", *cmake_args(args)])
        run(["cmake", "--build", build, "--parallel", str(os.cpu_count() or 2)])
        built[program] = build / program
        deps = run(["ldd", built[program]]).stdout
        check(f"{lib}/libsoftalign.so." in deps, f"{subdir} links the installed libsoftalign.so")

    def same(program, *cmd):
        """The program built here and the installed one: exit status 0 and the same output."""
        ours = run([built[program], *cmd], check_rc=False)
        theirs = run([prefix / "bin" / program, *cmd], check_rc=False)
        ok = ours.returncode == 0 and ours.stdout != "" and (ours.stdout, ours.stderr) == (theirs.stdout, theirs.stderr)
        if not ok:
            print(ours.stdout[-2000:], ours.stderr[-2000:], theirs.stdout[-2000:], theirs.stderr[-2000:], sep="\n")
        check(ok, f"{program} {' '.join(str(c) for c in cmd)}: exit status {ours.returncode}, output as installed")
        return ours.stdout

    out = run([built["softalign"], "--version"], check_rc=False)
    check(out.returncode == 0 and out.stdout.strip() == f"softalign {args.version}", f"softalign --version: {out.stdout.strip()!r}")
    info = same("softalign", "info", args.model)
    check("file_bytes: " in info and "src_lang: " in info, "softalign info prints the model's fields")
    same("softalign", "translate", "-m", args.model, "The library is used by many programs.")
    out = run([built["softalign-convert"], "--help"], check_rc=False)
    check(out.returncode == 0 and "softalign-convert --inspect FILE" in out.stdout, "softalign-convert --help runs")
    same("softalign-convert", "--inspect", args.model)
    if args.python:
        # softalign-import with the converter built here ($SOFTALIGN_CONVERT) writes the same file
        # as with the installed one beside it.
        files = {}
        for name, env in (("installed", import_env(args)),
                          ("built", dict(import_env(args), SOFTALIGN_CONVERT=str(built["softalign-convert"])))):
            files[name] = work / f"import-{name}.softalign"
            out = run_import(args, prefix, files[name], env, work)
            check(out.returncode == 0, f"softalign-import -o through the {name} softalign-convert: {out.stderr[-500:]}")
        check(all(f.is_file() for f in files.values()) and
              files["installed"].read_bytes() == files["built"].read_bytes(),
              "softalign-import: the same model file through the converter built here and the installed one")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("command", choices=["install", "cmake", "pkgconfig", "fetch", "deb", "tools"])
    for opt in ["build-dir", "prefix", "work", "model", "golden", "source", "version", "generator", "cxx", "c", "cc",
                "python"]:
        ap.add_argument(f"--{opt}")
    args = ap.parse_args()
    globals()[f"cmd_{args.command}"](args)
    print(f"{'FAILED' if failures else 'passed'}: {len(failures)} failed checks")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
