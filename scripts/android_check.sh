#!/usr/bin/env bash
# Android arm64 as far as this machine allows (no NDK can be installed here): compiles every
# source of the core, the executor, the data loaders, the portable kernels, the prim ops and
# the optimized kernels (their NEON GEMM kernel included)
# with clang's Android target (--target=aarch64-linux-android24: __ANDROID__ and
# __ANDROID_API__ defined, Bionic's ABI) and -Wall -Wextra -Werror, in syntax-only mode,
# against Debian's aarch64 C/C++ headers. Bionic's own headers are not available, so one
# header FlatBuffers includes on Android (<android/api-level.h>) is stubbed. This proves the
# code has no Android-only compile errors; linking and running need the NDK (see
# cmake/toolchains/android-arm64.md).
#   bash scripts/android_check.sh       (needs clang and g++-aarch64-linux-gnu's headers)
set -euo pipefail
cd "$(dirname "$0")/.."
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
mkdir -p "$WORK/gen/schema" "$WORK/inc/android"
flatc --cpp --scoped-enums -o "$WORK/gen/schema" schema/program.fbs
# FlatBuffers lives in /usr/include, which must not be searched whole (host glibc headers).
ln -s /usr/include/flatbuffers "$WORK/inc/flatbuffers"
echo "/* stand-in: clang's android24 target defines __ANDROID_API__ itself */" \
  > "$WORK/inc/android/api-level.h"
CXX_INC=/usr/aarch64-linux-gnu/include/c++/12
[ -d "$CXX_INC" ] || { echo "android_check: install g++-aarch64-linux-gnu" >&2; exit 2; }
sources=$(ls runtime/*/*.cpp kernels/portable/*.cpp kernels/portable/util/*.cpp \
  kernels/prim_ops/*.cpp kernels/cpu_math/*.cpp kernels/optimized/*.cpp kernels/optimized/util/*.cpp \
  extension/data_loader/*.cpp | grep -v default_bare_metal)
check() {
  clang++ --target=aarch64-linux-android24 -std=c++17 -fsyntax-only -fno-exceptions -fno-rtti \
    -nostdinc++ -isystem "$CXX_INC" -isystem "$CXX_INC/aarch64-linux-gnu" \
    -isystem /usr/aarch64-linux-gnu/include -isystem "$WORK/inc" -I. -I"$WORK/gen" \
    -Wall -Wextra -Wshadow -Werror "$1" || { echo "android_check: FAILED $1" >&2; return 1; }
}
export -f check
export CXX_INC WORK
n=$(echo "$sources" | wc -w)
echo "$sources" | xargs -P "$(nproc)" -n 1 bash -c 'check "$0"'
echo "android_check: $n sources compile for aarch64-linux-android24"
