#!/usr/bin/env bash
# Installs the Debian 12 packages the build and tests need (as root).
set -euo pipefail
PKGS=(cmake ninja-build g++ pkg-config libflatbuffers-dev flatbuffers-compiler flatbuffers-compiler-dev
      libgtest-dev libgmock-dev libbenchmark-dev clang libclang-rt-14-dev
      libpthreadpool-dev libcpuinfo-dev clang-format libxnnpack-dev nlohmann-json3-dev libpcre2-dev
      libsentencepiece-dev libvulkan-dev glslc mesa-vulkan-drivers vulkan-validationlayers spirv-tools)
missing=()
for p in "${PKGS[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  SUDO=""
  [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
