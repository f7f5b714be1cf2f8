#!/usr/bin/env bash
# Cross-builds and tests under QEMU (install the tools first: scripts/install_cross_deps.sh).
#   bash scripts/cross_test.sh aarch64    whole project + every ctest test under qemu-aarch64
#                                         (build-aarch64/; XNNPACK etc. from Debian arm64 .debs)
#   bash scripts/cross_test.sh cortex-m   examples/bare_metal firmware on qemu-system-arm:
#                                         mps2-an386 (Cortex-M4F, build-cortexm/) and
#                                         mps3-an547 (Cortex-M55, build-cortexm55/)
# Extra arguments after the target go to ctest (aarch64), e.g. -R Kernel. With
# CROSS_TARGETS="t1 t2 ..." (aarch64) only those targets are built and tested (CI's bounded run).
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
TARGET=${1:-}
shift || true
JOBS=${JOBS:-$(nproc)}

# Unpacks the arm64 builds of the libraries apt cannot co-install with the amd64 ones
# (libxnnpack/libpthreadpool have no Multi-Arch field) into $1, with a private apt state
# (dpkg's architecture list and the system's apt lists stay untouched).
arm64_sysroot() {
  local sysroot=$1 state=$1/.apt
  [ -f "$sysroot/.done" ] && return 0
  mkdir -p "$state/lists/partial" "$state/cache/archives/partial" "$state/debs"
  local opts=(-qq -o APT::Architectures::=amd64 -o APT::Architectures::=arm64
              -o Dir::State::Lists="$state/lists" -o Dir::Cache="$state/cache")
  apt-get "${opts[@]}" update
  (cd "$state/debs" && apt-get "${opts[@]}" download libxnnpack0:arm64 libxnnpack-dev:arm64 \
    libpthreadpool0:arm64 libpthreadpool-dev:arm64 libcpuinfo0:arm64 libcpuinfo-dev:arm64 \
    2> >(grep -v "unsandboxed" >&2))
  for deb in "$state/debs"/*.deb; do dpkg-deb -x "$deb" "$sysroot"; done
  # The .pc files name /usr; pkg-config prefixes PKG_CONFIG_SYSROOT_DIR.
  touch "$sysroot/.done"
}

# GoogleTest built for the target from Debian's sources.
target_gtest() {
  local toolchain=$1 build=$2 prefix=$3
  [ -f "$prefix/.done" ] && return 0
  cmake -S /usr/src/googletest -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_TOOLCHAIN_FILE="$toolchain" -DCMAKE_INSTALL_PREFIX="$prefix" > /dev/null
  cmake --build "$build" -j"$JOBS" > /dev/null
  cmake --install "$build" > /dev/null
  touch "$prefix/.done"
}

# The host's FlatBuffers CMake config: flatc runs on the host; the headers fit every target.
host_flatbuffers_dir() {
  dirname "$(dpkg -L libflatbuffers-dev | grep '/FlatBuffersConfig.cmake$' | head -1)"
}

case "$TARGET" in
  aarch64)
    B=build-aarch64
    TC=$ROOT/cmake/toolchains/aarch64-linux-gnu.cmake
    mkdir -p $B
    arm64_sysroot "$ROOT/$B/sysroot"
    target_gtest "$TC" "$ROOT/$B/_gtest_build" "$ROOT/$B/_gtest"
    cmake -S . -B $B -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_TOOLCHAIN_FILE="$TC" \
      -DETR_CROSS_SYSROOT="$ROOT/$B/sysroot" -DFlatBuffers_DIR="$(host_flatbuffers_dir)" -DGTest_DIR="$ROOT/$B/_gtest/lib/cmake/GTest" \
      -DETR_BUILD_TESTS=ON -DETR_WERROR=ON $(command -v ccache > /dev/null &&
      echo -DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
    if [ -n "${CROSS_TARGETS:-}" ]; then
      # A bounded run (CI): only these targets, and only their tests.
      # shellcheck disable=SC2086
      cmake --build $B -j"$JOBS" --target $CROSS_TARGETS
      # Tests whose binary the bounded build left out: gtest's _NOT_BUILT
      # placeholders, and the conformance suite unless its target was built.
      skip='_NOT_BUILT'
      [ -x $B/test/etr_conformance_test ] || skip="$skip|^etr_conformance\$"
      (cd $B && ctest -j"$JOBS" --output-on-failure --timeout 600 -E "$skip" "$@")
    else
      cmake --build $B -j"$JOBS"
      (cd $B && ctest -j"$JOBS" --output-on-failure --timeout 600 "$@")
    fi
    ;;
  cortex-m)
    # Cortex-M4F on mps2-an386, then Cortex-M55 on mps3-an547 (CORTEX_M_CPUS="m4f" for one).
    for cpu in ${CORTEX_M_CPUS:-m4f m55}; do
      case $cpu in
        m4f) B=build-cortexm TC=arm-none-eabi-m4f.cmake LD=mps2_an386.ld MACHINE=mps2-an386 ;;
        m55) B=build-cortexm55 TC=arm-none-eabi-m55.cmake LD=mps3_an547.ld MACHINE=mps3-an547 ;;
        *) echo "CORTEX_M_CPUS: m4f and/or m55, not $cpu" >&2; exit 2 ;;
      esac
      cmake -S . -B $B -G Ninja -DCMAKE_BUILD_TYPE=MinSizeRel -Wno-dev -DETR_WERROR=ON \
        -DCMAKE_TOOLCHAIN_FILE="$ROOT/cmake/toolchains/$TC" \
        -DETR_BOARD_LINKER_SCRIPT="$ROOT/examples/bare_metal/$LD" \
        -DFlatBuffers_DIR="$(host_flatbuffers_dir)" > /dev/null
      # The whole core and every portable kernel and prim op must build (-Werror), not only
      # what the firmware links.
      cmake --build $B -j"$JOBS" --target etr_executor etr_portable_kernels etr_prim_ops \
        etr_bare_metal_kws etr_bare_metal_core
      echo "== $cpu sizes (arm-none-eabi-size; flash = text + data, RAM = data + bss)"
      arm-none-eabi-size $B/examples/bare_metal/etr_bare_metal_core.elf \
        $B/examples/bare_metal/etr_bare_metal_kws.elf
      for elf in etr_bare_metal_core etr_bare_metal_kws; do
        echo "== qemu-system-arm -M $MACHINE: $elf"
        status=0
        timeout 120 qemu-system-arm -M $MACHINE -nographic -semihosting -monitor none \
          -kernel $B/examples/bare_metal/$elf.elf || status=$?
        echo "exit status $status"
        [ $status -eq 0 ] || exit 1
      done
    done
    ;;
  *)
    echo "usage: $0 aarch64|cortex-m [ctest args]" >&2
    exit 2
    ;;
esac
