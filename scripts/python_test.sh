#!/usr/bin/env bash
# Builds the Python bindings (-DETR_BUILD_PYTHON=ON, only the _etr target and
# what it links) into build-python and runs python/tests with Debian's
# interpreter (/usr/bin/python3: a pyenv `python3` on PATH cannot see the
# Debian packages). Exit status = result.
#   bash scripts/python_test.sh            # BUILD_DIR=build-python JOBS=2 by default
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD_DIR=${BUILD_DIR:-build-python}
JOBS=${JOBS:-2}
PYTHON=/usr/bin/python3
bash scripts/install_python_deps.sh
cmake -S . -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE=Release -DETR_BUILD_PYTHON=ON \
  -DETR_BUILD_TESTS=OFF -DETR_BUILD_EXAMPLES=OFF -DPython_EXECUTABLE="$PYTHON" > /dev/null
cmake --build "$BUILD_DIR" --target _etr -j"$JOBS"
PYTHONPATH="$BUILD_DIR/python" "$PYTHON" -m pytest -q -p no:cacheprovider python/tests "$@"
