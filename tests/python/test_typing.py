"""The softalign package's types (platforms/python/softalign/__init__.pyi, py.typed) against the
compiled module, and the README's Python example under `mypy --strict`.

- mypy --strict passes on the README's example, and fails on a misuse of the same API (the
  stubs are read, not Any);
- mypy.stubtest finds every public name of the module in the stubs and no name the module
  lacks (a small allowlist: pybind11's metaclass, and the classes Python cannot construct);
- every public method's parameters (names, keyword-only or not, with a default or not) equal
  the module's own signature (pybind11's docstring line: stubtest cannot read a compiled
  function's signature);
- the Translator's keywords are the library's options (option_defaults()), glossary included.

Needs mypy (Debian's, `bash scripts/setup.sh full`); ctest sets PYTHONPATH to the built package.
"""
import ast
import os
import subprocess
import sys
import tempfile

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))

try:
    import softalign
except ImportError:
    if os.environ.get("SOFTALIGN_BINDINGS_REQUIRED") == "1":
        raise
    pytest.skip("the softalign module is not built (pybind11-dev, python3-dev)", allow_module_level=True)

PACKAGE_DIR = os.path.dirname(os.path.abspath(softalign.__file__))
STUB = os.path.join(PACKAGE_DIR, "__init__.pyi")
# stubtest's findings that are pybind11's, not the stubs': every class's metaclass is
# pybind11_type, and a class with no constructor has pybind11's __init__(*args, **kwargs) that raises.
ALLOWLIST = """
softalign\\.(Hypothesis|Model|Result|StreamEvent|TranslationResult|Translator)
softalign\\.(Hypothesis|Model|Result|StreamEvent|TranslationResult|TranslationStream)\\.__init__
"""


def mypy(*args, cwd):
    try:
        import mypy  # noqa: F401
    except ImportError:
        pytest.fail("mypy is missing: `bash scripts/setup.sh full` installs it (Debian's mypy)")
    env = dict(os.environ, MYPYPATH=os.path.dirname(PACKAGE_DIR), PYTHONPATH=os.path.dirname(PACKAGE_DIR))
    return subprocess.run([sys.executable, "-m", *args], cwd=cwd, env=env, capture_output=True, text=True)


def readme_example():
    """The indented block under the README's '## Python' heading."""
    with open(os.path.join(ROOT, "README.md"), encoding="utf-8") as f:
        lines = f.read().split("## Python\n", 1)[1].split("\n## ", 1)[0].splitlines()
    code = [line[4:] for line in lines if line.startswith("    ")]
    assert code and code[0].startswith("import softalign"), code
    return "\n".join(code) + "\n"


def test_readme_example_passes_mypy_strict():
    with tempfile.TemporaryDirectory() as d:
        with open(os.path.join(d, "example.py"), "w", encoding="utf-8") as f:
            f.write(readme_example())
        r = mypy("mypy", "--strict", "--no-incremental", "--cache-dir", os.path.join(d, "cache"), "example.py", cwd=d)
        assert r.returncode == 0, r.stdout + r.stderr
        # The same API misused: mypy must see it (the stubs are read, the types are not Any).
        with open(os.path.join(d, "wrong.py"), "w", encoding="utf-8") as f:
            f.write("import softalign\n"
                    "tr = softalign.Translator(softalign.Model.load('m'), beam='4')\n"
                    "n: int = tr.translate('x')\n"
                    "tr.translate_batch(['x'], target_prefix=3)\n"
                    "for e in tr.translate_iter('x'):\n    e.score\n"
                    "raise softalign.Cancelled() from softalign.DeadlineExceeded()\n")
        r = mypy("mypy", "--strict", "--no-incremental", "--cache-dir", os.path.join(d, "cache"), "wrong.py", cwd=d)
        for line in ('wrong.py:2: error: Argument "beam"', "wrong.py:3: error: Incompatible types",
                     'wrong.py:4: error: Argument "target_prefix"', 'wrong.py:6: error: "StreamEvent" has no attribute'):
            assert line in r.stdout, r.stdout
        assert "wrong.py:7" not in r.stdout, r.stdout


def test_stubtest():
    with tempfile.TemporaryDirectory() as d:
        allow = os.path.join(d, "allowlist.txt")
        with open(allow, "w", encoding="utf-8") as f:
            f.write(ALLOWLIST)
        r = mypy("mypy.stubtest", "softalign", "--allowlist", allow, cwd=d)
        assert r.returncode == 0, r.stdout + r.stderr


def runtime_params(func):
    """(name, keyword-only, has a default) of each parameter but self, from pybind11's docstring line."""
    line = func.__doc__.splitlines()[0]
    inside = line[line.index("(") + 1:line.rindex(") ->")]
    params, depth, cur, quote = [], 0, "", None
    for ch in inside:  # split on the commas outside brackets and quotes
        if quote:
            quote = None if ch == quote else quote
        elif ch in "'\"":
            quote = ch
        elif ch in "[(":
            depth += 1
        elif ch in "])":
            depth -= 1
        elif ch == "," and depth == 0:
            params.append(cur.strip())
            cur = ""
            continue
        cur += ch
    params.append(cur.strip())
    out, kw_only = [], False
    for p in params:
        if p == "*":
            kw_only = True
        elif p and not p.startswith("self"):
            out.append((p.split(":")[0].split("=")[0].strip(), kw_only, "=" in p))
    return out


def stub_params(fn):
    a = fn.args
    params = a.posonlyargs + a.args
    first_default = len(params) - len(a.defaults)
    out = [(p.arg, False, i >= first_default) for i, p in enumerate(params) if p.arg != "self"]
    out += [(p.arg, True, d is not None) for p, d in zip(a.kwonlyargs, a.kw_defaults)]
    return out


def test_stub_signatures_equal_the_module():
    tree = ast.parse(open(STUB, encoding="utf-8").read())
    checked = 0
    for node in tree.body:
        if isinstance(node, ast.ClassDef):
            owner = getattr(softalign, node.name)
            defs = [(f"{node.name}.{f.name}", getattr(owner, f.name), f) for f in node.body
                    if isinstance(f, ast.FunctionDef) and not f.name.startswith("_")]
        elif isinstance(node, ast.FunctionDef):
            defs = [(node.name, getattr(softalign, node.name), node)]
        else:
            continue
        for name, func, fn in defs:
            if any(isinstance(d, ast.Name) and d.id == "property" for d in fn.decorator_list):
                assert isinstance(func, property), name
                continue
            assert runtime_params(func) == stub_params(fn), name
            checked += 1
    assert checked >= 12, checked  # the module's methods and functions, overloads included


def test_translator_keywords_are_the_library_options():
    tree = ast.parse(open(STUB, encoding="utf-8").read())
    cls = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "Translator")
    init = next(f for f in cls.body if isinstance(f, ast.FunctionDef) and f.name == "__init__")
    assert [a.arg for a in init.args.args] == ["self", "model"]
    assert sorted(a.arg for a in init.args.kwonlyargs) == sorted(softalign.option_defaults())
