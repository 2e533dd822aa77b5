#!/usr/bin/env bash
# Installs what softalign needs on Debian bookworm (run as root; idempotent).
#
#   bash scripts/setup.sh runtime   build and run the C++ runtime and its tools
#                                   (compiler, CMake, Ninja, the C++ -dev packages);
#                                   what scripts/demo.sh uses
#   bash scripts/setup.sh [full]    everything the tests need: the runtime profile,
#                                   PyTorch and the Python tools, pybind11, Vulkan
#                                   tools, the JDK (the Java binding), and the project venv (.venv) for the
#                                   PyPI packages Debian lacks; what scripts/test.sh uses
#   bash scripts/setup.sh web       the WebAssembly build and its tests (platforms/web/build.sh):
#                                   Debian's emscripten, chromium and npm, flatc, the
#                                   header-only -dev packages, pip (SentencePiece's source)
#   bash scripts/setup.sh hardening clang 14 with its runtime libraries (libFuzzer,
#                                   ASan/UBSan for clang), on top of full; what
#                                   scripts/ci_hardening.sh adds (gcc's ASan/UBSan/TSan
#                                   runtimes come with build-essential)
#   bash scripts/setup.sh java-package  the JDK, Maven and the Maven plugins of Debian's
#                                   repository: what platforms/java/package/build_jar.sh
#                                   adds to full (the cross compiler comes from
#                                   scripts/cross_sysroot.sh)
#
# The first run downloads from Debian's archive (and, for full, PyPI); the
# README gives each profile's download size and time on a fresh machine.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/apt_retry.sh

profile="${1:-full}"
RUNTIME_DEBS=(
  g++ cmake ninja-build pkg-config
  libxnnpack-dev libpthreadpool-dev libcpuinfo-dev libfp16-dev
  libflatbuffers-dev flatbuffers-compiler libsentencepiece-dev
  nlohmann-json3-dev libcli11-dev
)
FULL_DEBS=(
  "${RUNTIME_DEBS[@]}"
  build-essential doctest-dev file  # file: cpack -G DEB (dpkg-shlibdeps) needs it
  python3 python3-venv python3-pip python3-dev pybind11-dev python3-torch libopenblas0-pthread
  python3-sentencepiece sentencepiece python3-numpy python3-yaml python3-tqdm
  python3-matplotlib python3-pytest python3-flatbuffers
  mypy  # tests/python/test_typing.py: the stubs (mypy --strict, stubtest)
  libvulkan-dev glslc mesa-vulkan-drivers
  default-jdk-headless  # the Java binding (platforms/java) and its java_binding test
)
HARDENING_DEBS=(clang libclang-rt-14-dev)
# The Java package (platforms/java/package/build_jar.sh): Maven and the plugins its pom names, from
# Debian's repository (/usr/share/maven-repo; junit5 holds the BOM the compiler plugin's parent
# imports), so that Maven needs no network.
JAVA_PACKAGE_DEBS=(default-jdk-headless maven libmaven-resources-plugin-java libmaven-compiler-plugin-java
  libmaven-jar-plugin-java libmaven-install-plugin-java junit5)
WEB_DEBS=(cmake ninja-build flatbuffers-compiler libflatbuffers-dev libfp16-dev libsimde-dev doctest-dev python3-pip
  emscripten chromium)
# npm packs and installs the npm package in its test (wasm.package). Debian's
# npm goes with Debian's nodejs; a node from elsewhere brings its own npm.
command -v npm >/dev/null || WEB_DEBS+=(npm)
case "$profile" in
  runtime) DEBS=("${RUNTIME_DEBS[@]}") ;;
  full) DEBS=("${FULL_DEBS[@]}") ;;
  hardening) DEBS=("${HARDENING_DEBS[@]}") ;;
  java-package) DEBS=("${JAVA_PACKAGE_DEBS[@]}") ;;
  web) DEBS=("${WEB_DEBS[@]}") ;;
  *) echo "usage: $0 [runtime|full|hardening|java-package|web]" >&2; exit 2 ;;
esac

missing=()
for p in "${DEBS[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  apt_retry $SUDO apt-get update -q
  DEBIAN_FRONTEND=noninteractive apt_retry $SUDO apt-get install -y -q --no-install-recommends "${missing[@]}"
fi

if [ "$profile" = full ]; then
  # Python packages Debian lacks, in a venv that still sees Debian's torch.
  if [ ! -x .venv/bin/python ]; then
    /usr/bin/python3 -m venv --system-site-packages .venv
  fi
  if ! .venv/bin/python -c "import sacrebleu, onnx, onnxruntime, safetensors" 2>/dev/null; then
    .venv/bin/python -m pip install -q --disable-pip-version-check \
      "sacrebleu==2.4.3" "onnx==1.16.2" "onnxruntime==1.19.2" "safetensors==0.4.5"
  fi
fi
echo "setup ($profile): ok"
