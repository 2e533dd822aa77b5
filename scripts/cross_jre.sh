#!/usr/bin/env bash
# Debian's JRE for a cross target, unpacked into its sysroot so that the Java binding's test
# (tests/java: java_binding_aarch64) runs the target's JVM under qemu-user:
#   scripts/cross_jre.sh aarch64|armhf [DIR]      (DIR: build-<arch>-sysroot/, as cross_sysroot.sh)
#
# openjdk-17-jre-headless:<arch> is downloaded (apt-get download, 43 MB for arm64) and unpacked
# (dpkg-deb -x) beside the sysroot's libc, libstdc++ and zlib, which are all the JVM needs to run
# headless; its other dependencies (fonts, sound, printing, NSS) are not. The package's absolute
# symbolic links into /etc/java-17-openjdk are made relative, so that they point into the
# sysroot and not at the host's files. Idempotent: nothing is fetched once it is there.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/apt_retry.sh

arch=${1:-}
case "$arch" in
  aarch64) deb_arch=arm64 ;;
  armhf) deb_arch=armhf ;;
  *) echo "usage: $0 aarch64|armhf [DIR]" >&2; exit 2 ;;
esac
root=$(realpath -m "${2:-build-$arch-sysroot}")
pkg=openjdk-17-jre-headless
[ -d "$root" ] || { echo "cross_jre: no sysroot at $root: run scripts/cross_sysroot.sh $arch first" >&2; exit 1; }

debs="$root/.debs"
mkdir -p "$debs"
chmod 777 "$debs"  # apt downloads as _apt when it can
if [ ! -e "$debs/$pkg.done" ]; then
  if ! dpkg --print-foreign-architectures | grep -qx "$deb_arch"; then
    echo "cross_jre: dpkg lacks the $deb_arch architecture: run scripts/cross_sysroot.sh $arch first" >&2
    exit 1
  fi
  (cd "$debs" && apt_retry apt-get download -qq "$pkg:$deb_arch")
  deb=$(ls "$debs/${pkg}"_*_"$deb_arch".deb | head -1)
  dpkg-deb -x "$deb" "$root"
  touch "$debs/$pkg.done"
fi

jvm="$root/usr/lib/jvm/java-17-openjdk-$deb_arch"
# Absolute links (lib/jvm.cfg -> /etc/java-17-openjdk/jvm-arm64.cfg, ...) made relative.
find "$jvm" -type l -lname '/*' | while read -r link; do
  target=$(readlink "$link")
  ln -sfn "$(realpath -m --relative-to="$(dirname "$link")" "$root$target")" "$link"
done
[ -x "$jvm/bin/java" ] || { echo "cross_jre: $jvm/bin/java is missing" >&2; exit 1; }
echo "JRE for $arch ($deb_arch): $jvm/bin/java"
