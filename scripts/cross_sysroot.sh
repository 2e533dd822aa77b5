#!/usr/bin/env bash
# The sysroot of softalign's dependencies for a cross build (README: "Cross
# builds for ARM"): scripts/cross_sysroot.sh aarch64|armhf [DIR]
#
# Debian's arm64/armhf -dev packages do not co-install with the amd64 ones, so
# they are downloaded (apt-get download PKG:ARCH) and unpacked (dpkg-deb -x)
# into DIR (default build-<arch>-sysroot/, gitignored). The same folder is
# qemu's -L prefix: it also holds the target's libc, libstdc++ and libgcc from
# Debian's own arm64/armhf packages (the versions of the cross toolchain's).
# Installs the cross compiler, qemu-user and the host's flatc when missing
# (root), and adds the foreign architecture to dpkg once (apt needs it to
# download). Idempotent: a package already unpacked is not fetched again.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/apt_retry.sh

arch=${1:-}
case "$arch" in
  aarch64) deb_arch=arm64; triple=aarch64-linux-gnu ;;
  armhf) deb_arch=armhf; triple=arm-linux-gnueabihf ;;
  *) echo "usage: $0 aarch64|armhf [DIR]" >&2; exit 2 ;;
esac
root=$(realpath -m "${2:-build-$arch-sysroot}")

sudo_() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }

# The host tools: the cross compiler, qemu-user, the host's flatc.
need=()
command -v "$triple-g++" >/dev/null || need+=("g++-$triple")
command -v "qemu-${arch/armhf/arm}" >/dev/null || need+=(qemu-user)
command -v flatc >/dev/null || need+=(flatbuffers-compiler)
if [ ${#need[@]} -gt 0 ]; then
  apt_retry sudo_ apt-get update -qq
  apt_retry sudo_ env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${need[@]}"
fi
if ! dpkg --print-foreign-architectures | grep -qx "$deb_arch"; then
  sudo_ dpkg --add-architecture "$deb_arch"
  apt_retry sudo_ apt-get update -qq
fi

# Headers and libraries of the dependencies, and the runtime libraries qemu
# loads (libc6, libstdc++6, libgcc-s1: the target's own, for -L). Header-only
# packages are Architecture: all. One apt-get call per list (each call reads
# apt's whole cache: slow).
pkgs=(
  libxnnpack-dev libxnnpack0 libpthreadpool-dev libpthreadpool0 libcpuinfo-dev libcpuinfo0
  libsentencepiece-dev libsentencepiece0 libprotobuf-lite32
  libflatbuffers-dev libflatbuffers2 libfp16-dev libpsimd-dev
  libc6 libstdc++6 libgcc-s1 zlib1g
)
pkgs_all=(doctest-dev nlohmann-json3-dev libcli11-dev)
unpack_debs "$root" "$deb_arch" "${pkgs[@]}" -- "${pkgs_all[@]}"

# The FlatBuffers CMake package of the target, but flatc is the host's: the
# target's FlatcTargets.cmake (flatbuffers-compiler-dev, not downloaded) is
# replaced by one that imports /usr/bin/flatc.
fbdir="$root/usr/lib/$triple/cmake/flatbuffers"
if [ -d "$fbdir" ]; then
  cat >"$fbdir/FlatcTargets.cmake" <<EOF
# Written by scripts/cross_sysroot.sh: the host's flatc (a code generator).
if(NOT TARGET flatbuffers::flatc)
  add_executable(flatbuffers::flatc IMPORTED)
  set_target_properties(flatbuffers::flatc PROPERTIES IMPORTED_LOCATION "$(command -v flatc)")
endif()
EOF
fi
# usr-merged layout for the guest: /lib -> the unpacked lib/ (already there).
echo "sysroot for $arch ($deb_arch): $root"
