#!/usr/bin/env bash
# Debian's Python for a cross target, unpacked into its sysroot: the headers
# the aarch64 wheel is built against (scripts/build_wheel.sh aarch64) and the
# interpreter that installs and runs it under qemu-user (tests/wheel:
# python_wheel_install_aarch64):
#   scripts/cross_python.sh aarch64 [DIR]      (DIR: build-<arch>-sysroot/, as cross_sysroot.sh)
#
# python3.11 (bookworm's, the same version as the host's /usr/bin/python3, so
# that both wheels are cp311) and the libraries its standard modules load are
# downloaded (apt-get download, 16 MB for arm64) and unpacked (dpkg-deb
# -x) beside the sysroot's libc; pip's own wheel (python3-pip-whl) is what
# installs into a venv. Idempotent: nothing is fetched once it is there.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/apt_retry.sh

arch=${1:-}
[ "$arch" = aarch64 ] || { echo "usage: $0 aarch64 [DIR] (the one target with a wheel)" >&2; exit 2; }
deb_arch=arm64
triple=aarch64-linux-gnu
root=$(realpath -m "${2:-build-$arch-sysroot}")
[ -d "$root" ] || { echo "cross_python: no sysroot at $root: run scripts/cross_sysroot.sh $arch first" >&2; exit 1; }

pkgs=(
  python3.11-minimal libpython3.11-minimal libpython3.11-stdlib python3.11 libpython3.11 libpython3.11-dev
  libexpat1 libffi8 libbz2-1.0 liblzma5 libsqlite3-0 libuuid1 libcrypt1 libssl3
)
pkgs_all=(python3-pip-whl)
if ! dpkg --print-foreign-architectures | grep -qx "$deb_arch"; then
  echo "cross_python: dpkg lacks the $deb_arch architecture: run scripts/cross_sysroot.sh $arch first" >&2
  exit 1
fi
unpack_debs "$root" "$deb_arch" "${pkgs[@]}" -- "${pkgs_all[@]}"

py="$root/usr/bin/python3.11"
[ -x "$py" ] || { echo "cross_python: $py is missing" >&2; exit 1; }
[ -e "$root/usr/include/$triple/python3.11/pyconfig.h" ] || { echo "cross_python: the headers are missing" >&2; exit 1; }
echo "Python for $arch ($deb_arch): $py"
