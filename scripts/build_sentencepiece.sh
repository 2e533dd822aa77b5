#!/usr/bin/env bash
# SentencePiece as a static library, from its C++ source in the PyPI sdist
# (pinned by version and sha256; 0.1.97's sdist has no C++ source, 0.1.99's
# does), for the builds that cannot link Debian's shared libsentencepiece: the
# WebAssembly module (platforms/web/build_deps.sh) and the self-contained JNI
# library of the Java package (platforms/java/package/build_jar.sh).
#
#   scripts/build_sentencepiece.sh PREFIX [CMAKE_ARG...]
#
# Writes PREFIX/lib/libsentencepiece.a (with SentencePiece's own copy of
# protobuf-lite inside) and PREFIX/include/
# sentencepiece_{processor,trainer}.h; the work files go to PREFIX/src and
# PREFIX/spm-build. CMAKE_ARGs go to SentencePiece's configure (a toolchain
# file, flags; -DCMAKE_POSITION_INDEPENDENT_CODE=ON for a shared library).
# SOFTALIGN_CMAKE is the configure command (default cmake; the web build's is
# "emcmake cmake"). Idempotent: with the library and headers in
# place it does nothing. Needs pip (the download, once) and CMake with Ninja.
set -euo pipefail
cd "$(dirname "$0")/.."
[ $# -ge 1 ] || { echo "usage: $0 PREFIX [CMAKE_ARG...]" >&2; exit 2; }
prefix=$(realpath -m "$1")
shift
jobs=${JOBS:-2}
spm_version=0.1.99
spm_sha256=189c48f5cb2949288f97ccdb97f0473098d9c3dcf5a3d99d4eabe719ec27297f
read -r -a configure <<<"${SOFTALIGN_CMAKE:-cmake}"

if [ -f "$prefix/lib/libsentencepiece.a" ] && [ -f "$prefix/include/sentencepiece_processor.h" ]; then
  echo "build_sentencepiece: SentencePiece $spm_version already in $prefix"
  exit 0
fi
mkdir -p "$prefix/src" "$prefix/lib" "$prefix/include"
tarball=$prefix/src/sentencepiece-$spm_version.tar.gz
if [ ! -f "$tarball" ]; then
  python3 -m pip download -q --disable-pip-version-check --no-deps --no-binary :all: \
    "sentencepiece==$spm_version" -d "$prefix/src"
fi
echo "$spm_sha256  $tarball" | sha256sum -c --quiet
rm -rf "$prefix/src/sentencepiece-$spm_version"
tar xzf "$tarball" -C "$prefix/src"
src=$prefix/src/sentencepiece-$spm_version/sentencepiece
"${configure[@]}" -S "$src" -B "$prefix/spm-build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DSPM_ENABLE_SHARED=OFF -DSPM_ENABLE_TCMALLOC=OFF -DSPM_USE_BUILTIN_PROTOBUF=ON \
  "$@" >/dev/null
cmake --build "$prefix/spm-build" -j"$jobs" --target sentencepiece-static
cp "$prefix/spm-build/src/libsentencepiece.a" "$prefix/lib/"
cp "$src/src/sentencepiece_processor.h" "$src/src/sentencepiece_trainer.h" "$prefix/include/"
echo "build_sentencepiece: SentencePiece $spm_version built into $prefix"
