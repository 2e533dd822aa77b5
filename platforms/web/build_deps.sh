#!/usr/bin/env bash
# The WebAssembly build's dependencies, in a git-ignored sysroot
# (build-wasm-sysroot/ by default; SOFTALIGN_WASM_SYSROOT overrides it).
# Nothing here is committed and the runtime downloads nothing:
#   - SentencePiece: its C++ source from the PyPI sdist, compiled by Debian's
#     emscripten (-fexceptions, no threads) into a static library, its headers
#     beside it (scripts/build_sentencepiece.sh);
#   - FlatBuffers, FP16, SIMDe, doctest and nlohmann-json: header-only, copied from Debian's
#     packages (libflatbuffers-dev, libfp16-dev, libsimde-dev, doctest-dev,
#     nlohmann-json3-dev),
#     with a small CMake package for FlatBuffers whose flatc is the host's
#     /usr/bin/flatc.
# Idempotent: a second run with everything in place does nothing.
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$PWD
sysroot=${SOFTALIGN_WASM_SYSROOT:-$root/build-wasm-sysroot}
jobs=${JOBS:-2}
prefix=$sysroot  # include/ and lib/: emscripten's CMake searches / under each root
mkdir -p "$sysroot/src" "$prefix/include" "$prefix/lib/cmake/flatbuffers"

for tool in emcmake emcc /usr/bin/flatc; do
  command -v "$tool" >/dev/null || { echo "build_deps: $tool is missing: bash scripts/setup.sh web" >&2; exit 1; }
done

# Header-only dependencies from Debian.
cp -a /usr/include/flatbuffers "$prefix/include/"
cp -a /usr/include/fp16.h /usr/include/fp16 "$prefix/include/"
cp -a /usr/include/simde "$prefix/include/"        # libsimde-dev: the wasm_simd kernel set
cp -a /usr/include/doctest "$prefix/include/"      # doctest-dev: the kernel tests under node
cp -a /usr/include/nlohmann "$prefix/include/"     # nlohmann-json3-dev: the options and results as JSON
cat > "$prefix/lib/cmake/flatbuffers/FlatBuffersConfig.cmake" <<'CFG'
# Written by platforms/web/build_deps.sh: Debian's FlatBuffers headers (copied
# beside this file) and the host's flatc, for the WebAssembly build.
get_filename_component(_fb_prefix "${CMAKE_CURRENT_LIST_DIR}/../../.." ABSOLUTE)
if(NOT TARGET flatbuffers::flatbuffers)
  add_library(flatbuffers::flatbuffers INTERFACE IMPORTED)
  set_target_properties(flatbuffers::flatbuffers PROPERTIES INTERFACE_INCLUDE_DIRECTORIES "${_fb_prefix}/include")
endif()
if(NOT TARGET flatbuffers::flatc)
  add_executable(flatbuffers::flatc IMPORTED)
  set_target_properties(flatbuffers::flatc PROPERTIES IMPORTED_LOCATION /usr/bin/flatc)
endif()
set(FlatBuffers_FOUND TRUE)
CFG

# SentencePiece from source (scripts/build_sentencepiece.sh: the pinned sdist).
SOFTALIGN_CMAKE="emcmake cmake" JOBS=$jobs bash scripts/build_sentencepiece.sh "$prefix" \
  -DCMAKE_CXX_FLAGS="-fexceptions" -DCMAKE_C_FLAGS="-fexceptions"
