# Cross build for 32-bit ARM Linux (armhf: ARMv7-A, hard float) with Debian's
# g++-arm-linux-gnueabihf:
#   scripts/cross_sysroot.sh armhf          # the dependencies, in build-armhf-sysroot/
#   cmake -S . -B build-armhf -G Ninja -DCMAKE_TOOLCHAIN_FILE=cmake/toolchains/arm-linux-gnueabihf.cmake
# Debian's armhf baseline is ARMv7-A with VFPv3-D16 and no NEON; the NEON
# kernel files add -mfpu=neon-vfpv4 themselves and are listed only when the CPU
# has NEON and VFPv4 (runtime/kernels/select.cpp). Tests run under qemu-arm.
set(SOFTALIGN_CROSS_TRIPLE arm-linux-gnueabihf)
set(SOFTALIGN_CROSS_PROCESSOR armv7l)
set(SOFTALIGN_CROSS_QEMU qemu-arm)
set(SOFTALIGN_CROSS_SYSROOT_NAME build-armhf-sysroot)
set(SOFTALIGN_CROSS_FLAGS "")
include(${CMAKE_CURRENT_LIST_DIR}/debian-cross.cmake)
