#!/usr/bin/env bash
# Installs the Debian 12 packages the Python bindings (python/, -DETR_BUILD_PYTHON=ON)
# and their tests need (as root, or through sudo). No PyPI: everything comes from apt.
# The build and tests use Debian's interpreter, /usr/bin/python3 (3.11).
set -euo pipefail
PKGS=(python3 python3-dev pybind11-dev python3-pybind11 python3-numpy python3-pytest)
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
