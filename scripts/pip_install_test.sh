#!/usr/bin/env bash
# `pip install .` as a user runs it: a fresh venv, the current build dependencies
# from PyPI (scikit-build-core, pybind11), then python/tests against the
# installed package (run from outside the source tree so that `import etr`
# finds the installed one). Exit status = result. Without PyPI (an offline
# machine) it says so and runs scripts/python_test.sh instead (the bindings
# built from Debian's pybind11), so the Python tests run either way.
#   bash scripts/pip_install_test.sh        # VENV=/tmp/etr-pip-venv JOBS=2
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)
VENV=${VENV:-/tmp/etr-pip-venv}
JOBS=${JOBS:-2}
bash scripts/install_python_deps.sh
if ! dpkg-query -W -f='${Status}' python3-venv 2>/dev/null | grep -q "install ok installed"; then
  SUDO=""
  [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends python3-venv
fi
if ! /usr/bin/python3 -c "import urllib.request; urllib.request.urlopen('https://pypi.org/simple/pip/', timeout=15)" \
    2> /dev/null; then
  echo "pip_install_test: pypi.org is not reachable from this machine: testing the bindings" \
    "built from Debian's pybind11 instead (scripts/python_test.sh)"
  exec bash scripts/python_test.sh
fi
rm -rf "$VENV"
/usr/bin/python3 -m venv "$VENV"
"$VENV/bin/pip" install -q --upgrade pip
defines=()
command -v ccache > /dev/null && defines+=("-Ccmake.define.CMAKE_CXX_COMPILER_LAUNCHER=ccache")
# A build folder of its own, kept between runs (scikit-build-core reuses it).
CMAKE_BUILD_PARALLEL_LEVEL=$JOBS "$VENV/bin/pip" install -q -Cbuild-dir="$ROOT/build-pip" \
  "${defines[@]}" .
"$VENV/bin/pip" install -q pytest numpy
cd /tmp
"$VENV/bin/python" -c "import etr, os; print('installed etr from', os.path.dirname(etr.__file__))"
"$VENV/bin/python" -m pytest -q -p no:cacheprovider "$ROOT/python/tests"
