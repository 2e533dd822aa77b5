# Shared part of the Debian cross toolchain files (aarch64-linux-gnu.cmake,
# arm-linux-gnueabihf.cmake): the compiler is Debian's <triple>-g++, the
# dependencies come from a sysroot made by scripts/cross_sysroot.sh (Debian's
# target -dev packages unpacked, plus the target's libc for qemu), flatc is the
# host's (the sysroot's FlatBuffers package imports /usr/bin/flatc).
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR ${SOFTALIGN_CROSS_PROCESSOR})
set(CMAKE_C_COMPILER ${SOFTALIGN_CROSS_TRIPLE}-gcc)
set(CMAKE_CXX_COMPILER ${SOFTALIGN_CROSS_TRIPLE}-g++)
set(CMAKE_LIBRARY_ARCHITECTURE ${SOFTALIGN_CROSS_TRIPLE})

# The sysroot: -DSOFTALIGN_SYSROOT=..., else $ENV{SOFTALIGN_SYSROOT}, else
# <source>/build-<arch>-sysroot. (Also read by try_compile's own projects.)
if(NOT SOFTALIGN_SYSROOT)
  if(DEFINED ENV{SOFTALIGN_SYSROOT})
    set(SOFTALIGN_SYSROOT $ENV{SOFTALIGN_SYSROOT})
  else()
    get_filename_component(SOFTALIGN_SYSROOT ${CMAKE_CURRENT_LIST_DIR}/../../${SOFTALIGN_CROSS_SYSROOT_NAME} ABSOLUTE)
  endif()
endif()
set(SOFTALIGN_SYSROOT ${SOFTALIGN_SYSROOT} CACHE PATH "The target's dependencies (scripts/cross_sysroot.sh)")
set(ENV{SOFTALIGN_SYSROOT} ${SOFTALIGN_SYSROOT})
list(APPEND CMAKE_TRY_COMPILE_PLATFORM_VARIABLES SOFTALIGN_SYSROOT)

# Headers and libraries from the sysroot only; programs (flatc) from the host.
set(CMAKE_FIND_ROOT_PATH ${SOFTALIGN_SYSROOT})
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)
# pkg-config (SentencePiece) reads the target's .pc files.
set(ENV{PKG_CONFIG_LIBDIR} "${SOFTALIGN_SYSROOT}/usr/lib/${SOFTALIGN_CROSS_TRIPLE}/pkgconfig:${SOFTALIGN_SYSROOT}/usr/share/pkgconfig")
set(ENV{PKG_CONFIG_SYSROOT_DIR} ${SOFTALIGN_SYSROOT})
set(ENV{PKG_CONFIG_PATH} "")

# The sysroot's shared libraries need each other at link time (libXNNPACK needs
# libcpuinfo, ...): -rpath-link, not an rpath in the binaries.
set(_softalign_rpath_link "-Wl,-rpath-link,${SOFTALIGN_SYSROOT}/usr/lib/${SOFTALIGN_CROSS_TRIPLE}:${SOFTALIGN_SYSROOT}/lib/${SOFTALIGN_CROSS_TRIPLE}")
set(CMAKE_EXE_LINKER_FLAGS_INIT "${_softalign_rpath_link}")
set(CMAKE_SHARED_LINKER_FLAGS_INIT "${_softalign_rpath_link}")
set(CMAKE_MODULE_LINKER_FLAGS_INIT "${_softalign_rpath_link}")
if(SOFTALIGN_CROSS_FLAGS)
  set(CMAKE_C_FLAGS_INIT "${SOFTALIGN_CROSS_FLAGS}")
  set(CMAKE_CXX_FLAGS_INIT "${SOFTALIGN_CROSS_FLAGS}")
endif()

# ctest (and add_test commands) run target programs under qemu-user, with the
# sysroot as the prefix for the dynamic loader and libraries.
set(CMAKE_CROSSCOMPILING_EMULATOR ${SOFTALIGN_CROSS_QEMU} -L ${SOFTALIGN_SYSROOT})
