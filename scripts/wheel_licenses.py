"""Adds the copyright files of the libraries auditwheel bundled into a wheel (scripts/build_wheel.sh).

auditwheel copies Debian's shared libraries into softalign.libs/ (renamed with a hash); their
licences ask that their notices travel with them. Each bundled library is mapped to the Debian
package that ships it (one table below; a library missing from it is an error, so the table
cannot fall behind), and that package's /usr/share/doc/<package>/copyright is added to the wheel
as <name>.dist-info/licenses/<package>.copyright, its RECORD updated. The copyright file is the
source package's, the same for every architecture, so the host's serves a cross-built wheel too.

    python3 scripts/wheel_licenses.py WHEEL
"""
import base64
import hashlib
import os
import re
import shutil
import sys
import tempfile
import zipfile

# The soname (without auditwheel's hash) -> the Debian package whose copyright covers it.
PACKAGES = {
    "libXNNPACK.so.0": "libxnnpack0",
    "libpthreadpool.so.0": "libpthreadpool0",
    "libcpuinfo.so.0": "libcpuinfo0",
    "libsentencepiece.so.0": "libsentencepiece0",
    "libprotobuf-lite.so.32": "libprotobuf-lite32",
}


def record_line(name, data):
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"{name},sha256={digest},{len(data)}"


def main():
    if len(sys.argv) != 2:
        print(__doc__.strip().splitlines()[-1], file=sys.stderr)
        return 2
    wheel = sys.argv[1]
    with zipfile.ZipFile(wheel) as z:
        names = z.namelist()
        entries = {n: z.read(n) for n in names}
        infos = {n: z.getinfo(n) for n in names}
    dist_info = next(n.split("/")[0] for n in names if re.match(r"[^/]+\.dist-info/RECORD$", n))
    added = {}
    for name in names:
        m = re.match(r"[^/]+\.libs/(lib[^/]+?)-[0-9a-f]{8}(\.so[.0-9]*)$", name)
        if not m:
            continue
        soname = re.match(r"(.*\.so\.\d+)", m.group(1) + m.group(2)).group(1)
        package = PACKAGES.get(soname)
        if package is None:
            print(f"wheel_licenses: {name} ({soname}) has no Debian package in the table: add it", file=sys.stderr)
            return 1
        path = f"/usr/share/doc/{package}/copyright"
        if not os.path.exists(path):
            print(f"wheel_licenses: {path} is missing (apt-get install {package})", file=sys.stderr)
            return 1
        with open(path, "rb") as f:
            added[f"{dist_info}/licenses/{package}.copyright"] = f.read()
    if not added:
        print("wheel_licenses: no bundled library found", file=sys.stderr)
        return 1
    record_name = f"{dist_info}/RECORD"
    record = entries[record_name].decode().rstrip("\n").split("\n")
    record = [line for line in record if line.split(",")[0] not in added and line.split(",")[0] != record_name]
    record += [record_line(n, d) for n, d in sorted(added.items())] + [f"{record_name},,"]
    entries.update(added)
    entries[record_name] = ("\n".join(record) + "\n").encode()
    fd, tmp = tempfile.mkstemp(dir=os.path.dirname(os.path.abspath(wheel)), suffix=".whl")
    os.close(fd)
    with zipfile.ZipFile(tmp, "w", zipfile.ZIP_DEFLATED) as out:
        for name in [n for n in names if n != record_name] + sorted(set(added) - set(names)) + [record_name]:
            info = infos.get(name) or zipfile.ZipInfo(name, date_time=(2026, 1, 1, 0, 0, 0))
            info.compress_type = zipfile.ZIP_DEFLATED
            if name not in infos:
                info.external_attr = 0o644 << 16
            out.writestr(info, entries[name])
    os.chmod(tmp, os.stat(wheel).st_mode & 0o777)  # mkstemp's file is 0600: keep the wheel's mode
    shutil.move(tmp, wheel)
    print(f"wheel_licenses: {', '.join(sorted(os.path.basename(n) for n in added))} added to {os.path.basename(wheel)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
