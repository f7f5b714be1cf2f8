#!/usr/bin/env bash
# Installs the cross toolchains and emulators scripts/cross_test.sh needs (Debian 12, as root):
# aarch64 Linux (g++ + qemu-user) and bare-metal Arm (arm-none-eabi + newlib + qemu-system-arm).
# GoogleTest for aarch64 is built from /usr/src/googletest by cross_test.sh itself; flatbuffers
# headers are architecture-independent, so the host's libflatbuffers-dev serves both targets.
set -euo pipefail
bash "$(dirname "$0")/install_deps.sh"
PKGS=(g++-aarch64-linux-gnu qemu-user-static gcc-arm-none-eabi libnewlib-arm-none-eabi
      libstdc++-arm-none-eabi-newlib qemu-system-arm)
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
