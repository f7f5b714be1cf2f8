# Android arm64 (untested here: the NDK cannot be installed on this machine). A thin wrapper
# around the NDK's own toolchain file; see android-arm64.md.
#   cmake -S . -B build-android -DCMAKE_TOOLCHAIN_FILE=cmake/toolchains/android-arm64.cmake \
#     -DANDROID_NDK=/path/to/ndk -DETR_BUILD_TESTS=OFF
if(NOT ANDROID_NDK AND DEFINED ENV{ANDROID_NDK_HOME})
  set(ANDROID_NDK $ENV{ANDROID_NDK_HOME})
endif()
if(NOT ANDROID_NDK)
  message(FATAL_ERROR "android-arm64.cmake: set ANDROID_NDK (or ANDROID_NDK_HOME) to the NDK")
endif()
set(ANDROID_ABI arm64-v8a CACHE STRING "")
set(ANDROID_PLATFORM android-24 CACHE STRING "")
set(ANDROID_STL c++_static CACHE STRING "")
include(${ANDROID_NDK}/build/cmake/android.toolchain.cmake)
# flatc runs on the build machine: point FlatBuffers_DIR at the host's CMake config.
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE BOTH)
