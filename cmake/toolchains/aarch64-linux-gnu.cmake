# Cross build for 64-bit ARM Linux (arm64) with Debian's g++-aarch64-linux-gnu:
#   scripts/cross_sysroot.sh aarch64        # the dependencies, in build-aarch64-sysroot/
#   cmake -S . -B build-aarch64 -G Ninja -DCMAKE_TOOLCHAIN_FILE=cmake/toolchains/aarch64-linux-gnu.cmake
# SOFTALIGN_SYSROOT (a cache variable or the environment) overrides the sysroot.
# Tests run under qemu-aarch64 (CMAKE_CROSSCOMPILING_EMULATOR), so ctest works
# unchanged; QEMU_CPU in the environment picks the emulated CPU (max: with the
# dot product; cortex-a53: without).
set(SOFTALIGN_CROSS_TRIPLE aarch64-linux-gnu)
set(SOFTALIGN_CROSS_PROCESSOR aarch64)
set(SOFTALIGN_CROSS_QEMU qemu-aarch64)
set(SOFTALIGN_CROSS_SYSROOT_NAME build-aarch64-sysroot)
set(SOFTALIGN_CROSS_FLAGS "")
include(${CMAKE_CURRENT_LIST_DIR}/debian-cross.cmake)
