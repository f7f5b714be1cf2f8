#!/usr/bin/env bash
# Builds bench/official_method_load.cpp against the pip executorch wheel's C++
# library and runs it on the given .pte files (default: the framework-tax
# fixtures). Needs the wheel (see bench/compare.py) and g++; tooling only.
#   bash bench/official_method_load.sh [FILE.pte ...]
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-/opt/tv/bin/python}
ET=$("$PY" -c 'import executorch; print(list(executorch.__path__)[0])')
TORCH_INC=$("$PY" -c 'import torch, os; print(os.path.join(os.path.dirname(torch.__file__), "include"))')
PYLIB=$("$PY" -c 'import sysconfig; print(sysconfig.get_config_var("LDLIBRARY"))')
PYLIBDIR=$("$PY" -c 'import sysconfig; print(sysconfig.get_config_var("LIBDIR"))')
out=${TMPDIR:-/tmp}/official_method_load
# The Python extension registers the wheel's kernels (portable, optimized,
# quantized) from static initializers, as the official Python runtime does.
ext=$(ls "$ET"/extension/pybindings/_C.*.so | head -n1)
g++ -O2 -std=c++17 -I"$ET/include" -I"$ET/include/executorch/runtime/core/portable_type/c10" \
  -I"$TORCH_INC" bench/official_method_load.cpp -Wl,--no-as-needed -L"$ET/lib" -lexecutorch \
  "$ext" -L"$PYLIBDIR" -l:"$PYLIB" -Wl,-rpath,"$ET/lib" -Wl,-rpath,"$(dirname "$ext")" -o "$out"
if [ $# -eq 0 ]; then
  set -- test/models/no_constants.pte test/models/op_chain.pte test/models/transformer.pte
  [ -f bench/models/mobilenet_v2.pte ] && set -- "$@" bench/models/mobilenet_v2.pte
fi
"$out" "$@"
