# SPDX-License-Identifier: MIT
# Cross-compiling for 64-bit Arm with Debian's toolchain
# (g++-aarch64-linux-gnu, and the arm64 -dev packages through multiarch);
# tests and generators run under qemu-aarch64. See tools/cross-test.sh.
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(CMAKE_C_COMPILER aarch64-linux-gnu-gcc)
set(CMAKE_CXX_COMPILER aarch64-linux-gnu-g++)
set(CMAKE_LIBRARY_ARCHITECTURE aarch64-linux-gnu)
set(CMAKE_CROSSCOMPILING_EMULATOR qemu-aarch64)
# The arm64 packages' pkg-config files, not the build machine's.
set(ENV{PKG_CONFIG_LIBDIR}
    "/usr/lib/aarch64-linux-gnu/pkgconfig:/usr/share/pkgconfig")
