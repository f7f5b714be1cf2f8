# aarch64 Linux with Debian's cross g++ (g++-aarch64-linux-gnu); tests run under qemu-user.
#   cmake -S . -B build-aarch64 -DCMAKE_TOOLCHAIN_FILE=cmake/toolchains/aarch64-linux-gnu.cmake
# Optional: ETR_CROSS_SYSROOT = a directory holding arm64 .debs unpacked with dpkg-deb -x
# (libxnnpack, libpthreadpool, libcpuinfo; see scripts/cross_test.sh). Host tools (flatc) and
# the architecture-independent flatbuffers headers come from the build machine.
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(CMAKE_C_COMPILER aarch64-linux-gnu-gcc)
set(CMAKE_CXX_COMPILER aarch64-linux-gnu-g++)
set(CMAKE_LIBRARY_ARCHITECTURE aarch64-linux-gnu)

set(ETR_CROSS_SYSROOT "" CACHE PATH "Unpacked arm64 packages (optional)")
# try_compile projects read this file again: hand them the sysroot too, or their pass through
# the else() branch below would reset PKG_CONFIG_LIBDIR for the whole configure run.
list(APPEND CMAKE_TRY_COMPILE_PLATFORM_VARIABLES ETR_CROSS_SYSROOT)
# binfmt_misc is usually not set up: every target binary runs through qemu explicitly.
set(_etr_qemu_ld_path /usr/aarch64-linux-gnu/lib)
if(ETR_CROSS_SYSROOT)
  string(APPEND _etr_qemu_ld_path ":${ETR_CROSS_SYSROOT}/usr/lib/aarch64-linux-gnu")
endif()
set(CMAKE_CROSSCOMPILING_EMULATOR qemu-aarch64-static -L /usr/aarch64-linux-gnu
    -E LD_LIBRARY_PATH=${_etr_qemu_ld_path})

set(CMAKE_FIND_ROOT_PATH /usr/aarch64-linux-gnu ${ETR_CROSS_SYSROOT})
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
# Packages: GTest is given by GTest_DIR (built for the target); FlatBuffers' CMake config is the
# host's (flatc runs on the host, its headers are the same on every architecture).
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE BOTH)
if(ETR_CROSS_SYSROOT)
  set(ENV{PKG_CONFIG_LIBDIR} "${ETR_CROSS_SYSROOT}/usr/lib/aarch64-linux-gnu/pkgconfig")
  set(ENV{PKG_CONFIG_SYSROOT_DIR} "${ETR_CROSS_SYSROOT}")
  # libXNNPACK.so needs libcpuinfo/libpthreadpool at link time.
  set(CMAKE_EXE_LINKER_FLAGS_INIT
      "-Wl,-rpath-link,${ETR_CROSS_SYSROOT}/usr/lib/aarch64-linux-gnu")
else()
  set(ENV{PKG_CONFIG_LIBDIR} "/usr/lib/aarch64-linux-gnu/pkgconfig")
endif()
