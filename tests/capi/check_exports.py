"""Every function softalign.h declares is exported by the shared library.

    check_exports.py HEADER LIBRARY
"""
import re
import subprocess
import sys


def main() -> int:
    header, library = sys.argv[1], sys.argv[2]
    text = open(header, encoding="utf-8").read()
    declared = set(re.findall(r"SOFTALIGN_API\s[^;(]*?\b(softalign_\w+)\s*\(", text))
    nm = subprocess.run(["nm", "-D", "--defined-only", library], capture_output=True, text=True, check=True)
    exported = {fields[2] for fields in (line.split() for line in nm.stdout.splitlines())
                if len(fields) == 3 and fields[1] == "T"}
    missing = sorted(declared - exported)
    for name in missing:
        print(f"FAIL: {name} is declared in softalign.h but not exported by {library}")
    print(f"{len(declared) - len(missing)} passed, {len(missing)} failed")
    return 0 if declared and not missing else 1


if __name__ == "__main__":
    sys.exit(main())
