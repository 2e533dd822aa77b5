# WebAssembly with Debian's emscripten (3.1.6): platforms/web/build.sh uses it.
#   bash platforms/web/build_deps.sh   # SentencePiece etc. into build-wasm-sysroot/
#   cmake -S . -B build-wasm -G Ninja -DCMAKE_TOOLCHAIN_FILE=cmake/toolchains/emscripten.cmake
# SOFTALIGN_WASM_SYSROOT (a cache variable or the environment) overrides the
# sysroot. Programs (flatc) come from the host, headers and libraries from the
# sysroot and emscripten's own; tests run under node (ctest works unchanged).
include(/usr/share/emscripten/cmake/Modules/Platform/Emscripten.cmake)

if(NOT SOFTALIGN_WASM_SYSROOT)
  if(DEFINED ENV{SOFTALIGN_WASM_SYSROOT})
    set(SOFTALIGN_WASM_SYSROOT $ENV{SOFTALIGN_WASM_SYSROOT})
  else()
    get_filename_component(SOFTALIGN_WASM_SYSROOT ${CMAKE_CURRENT_LIST_DIR}/../../build-wasm-sysroot ABSOLUTE)
  endif()
endif()
set(SOFTALIGN_WASM_SYSROOT ${SOFTALIGN_WASM_SYSROOT} CACHE PATH "The WebAssembly dependencies (platforms/web/build_deps.sh)")
set(ENV{SOFTALIGN_WASM_SYSROOT} ${SOFTALIGN_WASM_SYSROOT})
list(APPEND CMAKE_TRY_COMPILE_PLATFORM_VARIABLES SOFTALIGN_WASM_SYSROOT)

list(APPEND CMAKE_FIND_ROOT_PATH ${SOFTALIGN_WASM_SYSROOT})
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)
set(ENV{PKG_CONFIG_LIBDIR} "${SOFTALIGN_WASM_SYSROOT}/lib/pkgconfig")
set(ENV{PKG_CONFIG_PATH} "")

# C++ exceptions on (emscripten's default is off): the API's guard turns them
# into statuses; without them a throw aborts the module.
set(CMAKE_C_FLAGS_INIT "-fexceptions")
set(CMAKE_CXX_FLAGS_INIT "-fexceptions")
set(CMAKE_EXE_LINKER_FLAGS_INIT "-fexceptions")

# Debian's emscripten needs node to find its modules; tests run under node.
set(ENV{NODE_PATH} /usr/share/nodejs)
set(CMAKE_CROSSCOMPILING_EMULATOR /usr/bin/node)
