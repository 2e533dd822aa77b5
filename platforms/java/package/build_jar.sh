#!/usr/bin/env bash
# The Java package (docs/java.md, "The jar"): org.softalign:softalign, one jar with the classes
# and a self-contained libsoftalign_jni.so for linux-x86_64 and linux-aarch64 (NativeLoader
# extracts and loads the one for the JVM's platform), installed by Maven into a local repository.
#
#   platforms/java/package/build_jar.sh          build the jar and mvn install it
#   platforms/java/package/build_jar.sh test     then run its tests (ctest -L java_package)
#
# For each platform: SentencePiece as a static library (scripts/build_sentencepiece.sh), then
# the runtime and the JNI library with SOFTALIGN_SELF_CONTAINED=ON (runtime/CMakeLists.txt: no
# XNNPACK, the pthreadpool and cpuinfo stand-ins), so that it needs only libc, libm, libstdc++
# and libgcc; aarch64 is cross-built with the ARM stage's toolchain and sysroot
# (scripts/cross_sysroot.sh). The stripped libraries go under build-jar/natives/, and
# mvn install (the pom written by CMake, platforms/java/package/pom.xml.in) makes the jar and
# installs it into build-jar/m2 (SOFTALIGN_JAR_REPO overrides: ~/.m2/repository for your own
# Maven). Maven takes every plugin from Debian's repository (settings.xml): no network.
#
# Needs the full setup profile (scripts/setup.sh full); installs the java-package profile (Maven
# and its plugins), the aarch64 sysroot with the cross compiler and qemu-user
# (scripts/cross_sysroot.sh) and, for test, the arm64 JRE (scripts/cross_jre.sh). Work files:
# build-jar/ (kept, so that a rerun is incremental). Cost on the 2 loaded cores: see docs/java.md.
set -euo pipefail
cd "$(dirname "$0")/../../.."
root=$PWD
work=$root/build-jar
repo=${SOFTALIGN_JAR_REPO:-$work/m2}
jobs=${JOBS:-$(nproc)}
host=$(uname -m)
mode=${1:-build}
case "$mode" in build | test) ;; *) echo "usage: $0 [test]" >&2; exit 2 ;; esac
[ "$host" = x86_64 ] || { echo "build_jar: builds on x86-64 (cross-builds aarch64)" >&2; exit 1; }
bash scripts/setup.sh java-package >/dev/null
for tool in javac mvn cmake ninja; do
  command -v "$tool" >/dev/null || { echo "build_jar: $tool is missing: bash scripts/setup.sh full" >&2; exit 1; }
done

sysroot=$root/build-aarch64-sysroot
bash scripts/cross_sysroot.sh aarch64 "$sysroot" >/dev/null  # also the cross compiler and qemu-user
[ "$mode" = test ] && bash scripts/cross_jre.sh aarch64 "$sysroot" >/dev/null

natives=$work/natives
for arch in x86_64 aarch64; do
  t=$(date +%s)
  target=()
  strip=strip
  if [ "$arch" != "$host" ]; then
    target=(-DCMAKE_TOOLCHAIN_FILE="$root/cmake/toolchains/$arch-linux-gnu.cmake" -DSOFTALIGN_SYSROOT="$sysroot")
    strip=$arch-linux-gnu-strip
  fi
  deps=$work/deps-$arch
  JOBS=$jobs bash scripts/build_sentencepiece.sh "$deps" -DCMAKE_POSITION_INDEPENDENT_CODE=ON "${target[@]}"
  tests=()
  if [ "$arch" = "$host" ]; then  # the package's tests live in the host's build
    tests=(-DSOFTALIGN_JAVA_PACKAGE_TESTS=ON -DSOFTALIGN_JAVA_PACKAGE_REPO="$repo"
      -DSOFTALIGN_JAVA_PACKAGE_AARCH64_SYSROOT="$sysroot")
  fi
  cmake -S . -B "$work/$arch" -G Ninja -DCMAKE_BUILD_TYPE=Release "${target[@]}" \
    -DSOFTALIGN_SELF_CONTAINED=ON -DSentencePiece_LIBRARY="$deps/lib/libsentencepiece.a" \
    -DSentencePiece_INCLUDE_DIR="$deps/include" -DSOFTALIGN_JAVA=ON -DSOFTALIGN_BUILD_TOOLS=OFF \
    -DSOFTALIGN_BUILD_TESTS=OFF -DSOFTALIGN_INSTALL=OFF -DSOFTALIGN_JAVA_NATIVES_DIR="$natives" "${tests[@]}" >/dev/null
  cmake --build "$work/$arch" -j"$jobs" --target softalign_jni
  mkdir -p "$natives/org/softalign/native/linux-$arch"
  "$strip" -o "$natives/org/softalign/native/linux-$arch/libsoftalign_jni.so" "$work/$arch/lib/libsoftalign_jni.so"
  echo "build_jar: linux-$arch: $(stat -c %s "$natives/org/softalign/native/linux-$arch/libsoftalign_jni.so") bytes stripped ($(( $(date +%s) - t )) s)"
done

# SentencePiece is inside each library, with the code it bundles (absl, darts-clone, esaxx,
# protobuf-lite): their licences go into the jar, META-INF/licenses/.
licenses=$natives/META-INF/licenses
mkdir -p "$licenses"
spm=$(ls -d "$work/deps-$host"/src/sentencepiece-*/sentencepiece)
cp "$spm/LICENSE" "$licenses/sentencepiece.txt"
for part in absl darts_clone esaxx protobuf-lite; do
  cp "$spm/third_party/$part/LICENSE" "$licenses/sentencepiece-$part.txt"
done

t=$(date +%s)
mvn -B -q -Dstyle.color=never -s platforms/java/package/settings.xml -Dmaven.repo.local="$repo" -f "$work/$host/java-package/pom.xml" install
version=$(sed -n 's:^  <version>\(.*\)</version>:\1:p' "$work/$host/java-package/pom.xml")
jar=$repo/org/softalign/softalign/$version/softalign-$version.jar
echo "build_jar: $jar ($(stat -c %s "$jar") bytes; mvn install $(( $(date +%s) - t )) s)"

if [ "$mode" = test ]; then
  ctest --test-dir "$work/$host" -L java_package --output-on-failure -j"$jobs"
fi
