"""libsoftalign.so exports exactly the public API.

    check_exports.py HEADER LIBRARY

HEADER is softalign.h; the C++ headers beside it are read too. Checks:
  1. every function softalign.h declares is exported by LIBRARY;
  2. every symbol LIBRARY exports is public: a C function softalign.h declares,
     or a C++ symbol in namespace softalign whose name and signature name no
     internal namespace (softalign::internal, softalign::kernels, ...);
  3. the C++ entry points an application needs are exported (version, load,
     prepare, translate, Status::to_string);
  4. no public header lets an internal type out: `internal::` appears only in
     forward declarations and private sections (the pimpl members);
  5. every out-of-line function a C++ header declares at namespace scope or
     in a class's public section is marked SOFTALIGN_API (else an app linking
     libsoftalign.so could not call it).
"""
import os
import re
import subprocess
import sys

INTERNAL = re.compile(r"softalign::(internal|kernels|cli|fb|detail)\b")
REQUIRED_CXX = [
    "softalign::version()",
    "softalign::Model::load(",
    "softalign::Model::~Model()",
    "softalign::Translator::prepare(",
    "softalign::Translator::translate(",
    "softalign::Translator::translate_ids(",
    "softalign::Translator::~Translator()",
    "softalign::Status::to_string",
    "softalign::status_code_name(",
]


def exported_symbols(library):
    """(mangled, demangled) of every defined dynamic symbol."""
    out = []
    for flag in ([], ["-C"]):
        nm = subprocess.run(["nm", "-D", "--defined-only", *flag, library],
                            capture_output=True, text=True, check=True)
        names = []
        for line in nm.stdout.splitlines():
            fields = line.split(maxsplit=2)
            if len(fields) == 3 and fields[1] not in ("U", "w", "v"):
                names.append(fields[2].split("@")[0])
        out.append(names)
    return list(zip(*out))


def header_leaks(include_dir):
    """Lines of public headers that name an internal type outside a private section."""
    leaks = []
    for name in sorted(os.listdir(include_dir)):
        if not name.endswith((".h", ".hpp")):
            continue
        section = "namespace"  # outside a class: only forward declarations may name internal::
        for number, line in enumerate(open(os.path.join(include_dir, name), encoding="utf-8"), 1):
            code = line.split("//")[0]
            label = re.match(r"\s*(public|private|protected)\s*:", code)
            if label:
                section = label.group(1)
            elif re.match(r"(class|struct)\s+\w+\s*(final\s*)?(:[^;]*)?\{", code.strip()):
                section = "private" if code.strip().startswith("class") else "public"
            elif code.startswith("};"):
                section = "namespace"
            if "internal::" in code and section not in ("private", "protected"):
                leaks.append(f"{name}:{number}: {line.strip()}")
    return leaks


def unexported_declarations(include_dir):
    """Public C++ declarations of out-of-line functions without SOFTALIGN_API."""
    missing = []
    for name in sorted(os.listdir(include_dir)):
        if not name.endswith(".hpp"):
            continue
        text = open(os.path.join(include_dir, name), encoding="utf-8").read()
        text = re.sub(r"//[^\n]*", "", text)
        text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
        text = re.sub(r"(?m)^\s*#.*$", "", text)  # preprocessor lines
        section, depth, statement = "namespace", 0, ""
        for token in re.split(r"([{};]|\b(?:public|private|protected)\s*:)", text):
            if token is None or token == "":
                continue
            label = re.match(r"(public|private|protected)\s*:", token)
            if label:
                section, statement = label.group(1), ""
            elif token == "{":
                head = statement.strip()
                kind = re.match(r"(?:template\s*<[^>]*>\s*)?(class|struct|namespace|enum)\b", head)
                if kind and kind.group(1) in ("class", "struct") and depth == 0:
                    section = "private" if kind.group(1) == "class" else "public"
                depth += 0 if kind and kind.group(1) == "namespace" else 1
                statement = ""
            elif token == "}":
                depth = max(depth - 1, 0)
                if depth == 0:
                    section = "namespace"
                statement = ""
            elif token == ";":
                decl = " ".join(statement.split())
                statement = ""
                in_class = depth == 1 and section == "public"
                if not (depth == 0 or in_class) or "(" not in decl:
                    continue
                if re.search(r"=\s*(delete|default|0)$|^(using|typedef|friend|template|constexpr|inline|static_assert)\b"
                             r"|^SOFTALIGN_API\b|^#", decl):
                    continue
                if in_class and re.match(r"(explicit\s+)?~?\w+\s*\(", decl):
                    continue  # a struct's inline-less constructor would be caught at link time anyway
                missing.append(f"{name}: {decl}")
            else:
                statement += token
    return missing


def main() -> int:
    header, library = sys.argv[1], sys.argv[2]
    text = open(header, encoding="utf-8").read()
    declared = set(re.findall(r"SOFTALIGN_API\s[^;(]*?\b(softalign_\w+)\s*\(", text))
    symbols = exported_symbols(library)
    failures = []
    exported_c = {m for m, _ in symbols if m == _}  # C names demangle to themselves
    for name in sorted(declared - exported_c):
        failures.append(f"{name} is declared in softalign.h but not exported by {library}")
    public_cxx = []
    for mangled, demangled in symbols:
        if mangled.startswith("_Z"):
            if demangled.startswith("softalign::") and not INTERNAL.search(demangled):
                public_cxx.append(demangled)
            else:
                failures.append(f"internal C++ symbol exported: {demangled}")
        elif mangled not in declared:
            failures.append(f"exported symbol not declared in softalign.h: {mangled}")
    for prefix in REQUIRED_CXX:
        if not any(d.startswith(prefix) for d in public_cxx):
            failures.append(f"public C++ API not exported: {prefix}")
    for leak in header_leaks(os.path.dirname(os.path.abspath(header))):
        failures.append(f"public header names an internal type outside a private section: {leak}")
    for decl in unexported_declarations(os.path.dirname(os.path.abspath(header))):
        failures.append(f"declared in a public header without SOFTALIGN_API: {decl}")
    for f in failures:
        print("FAIL:", f)
    checks = len(declared) + len(symbols) + len(REQUIRED_CXX) + 1
    print(f"exports: {len(exported_c)} C functions, {len(public_cxx)} C++ symbols, nothing else")
    print(f"{checks - len(failures)} passed, {len(failures)} failed")
    return 0 if declared and not failures else 1


if __name__ == "__main__":
    sys.exit(main())
