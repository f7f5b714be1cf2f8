#!/usr/bin/env bash
# Enforces the layer stack by grepping includes against an allow-list:
#   platform <- core <- kernel, backend <- executor
#   core <- CPU math (kernels/cpu_math) <- optimized kernels, delegates
#   kernel libraries (kernels/portable, kernels/prim_ops) see only platform, core
#   and the kernel interface; delegates (backends/) see platform, core, the
#   backend interface and CPU math, never a kernel library; extensions see only platform and core (plus
#   their own folder); tests may use extensions but never executor internals
# and keeps generated flatbuffer code out of public headers and the heap/
# standard containers out of the core and the kernel libraries.
set -euo pipefail
cd "$(dirname "$0")/.."
fail=0
check() {  # check DIR ALLOWED-REGEX
  local dir=$1 allowed=$2
  while IFS= read -r line; do
    inc=$(echo "$line" | sed -E 's/.*#include "([^"]+)".*/\1/')
    if ! echo "$inc" | grep -qE "$allowed"; then
      echo "layering: $line"; fail=1
    fi
  done < <(grep -rn '#include "' "$dir" --include='*.h' --include='*.cpp' --include='*.inc' \
             --exclude-dir=test || true)
}
check runtime/platform '^runtime/platform/'
check runtime/core '^runtime/(platform|core)/'
check runtime/kernel '^runtime/(platform|core|kernel)/'
check runtime/backend '^runtime/(platform|core|backend)/'
check runtime/executor '^(runtime/|schema/program_generated.h)'
check kernels/portable '^(runtime/(platform|core|kernel)/|kernels/portable/)'
check kernels/prim_ops '^(runtime/(platform|core|kernel)/|kernels/prim_ops/)'
check kernels/quantized '^(runtime/(platform|core|kernel)/|kernels/(quantized|portable/util)/)'
# LLM kernels (llama::*): the kernel interface, CPU math and their own folder.
check kernels/llm '^(runtime/(platform|core|kernel)/|kernels/(llm|cpu_math)/)'
check kernels/llm/test \
  '^(runtime/(platform|core|kernel)/|kernels/(llm|test|cpu_math)/|extension/(tensor|threadpool|module)/)'
check kernels/test '^(runtime/(platform|core|kernel)/|kernels/(portable|prim_ops|test)/|extension/tensor/)'
# CPU math: below every kernel library and delegate; no kernel interface.
check kernels/cpu_math '^(runtime/(platform|core)/|kernels/cpu_math/)'
# The optimized library: the runtime below it, its own files, CPU math and the portable helpers.
check kernels/optimized '^(runtime/(platform|core|kernel)/|kernels/(optimized|portable|cpu_math)/)'
# Delegates: the backend interface, CPU math and their own schema; no kernel library.
check backends '^(runtime/(platform|core|backend)/|kernels/cpu_math/|backends/|schema/xnnpack_graph_generated\.h$)'
check kernels/optimized/test \
  '^(runtime/(platform|core|kernel)/|kernels/(optimized|portable|test|cpu_math)/|extension/(tensor|threadpool)/)'
check kernels/prim_ops/test '^(runtime/(platform|core|kernel)/|kernels/(prim_ops|test)/|extension/tensor/)'
check extension/data_loader '^(runtime/(platform|core)/|extension/data_loader/)'
check extension/tensor '^(runtime/(platform|core)/|extension/tensor/)'
check extension/flat_tensor \
  '^(runtime/(platform|core)/|extension/flat_tensor/|schema/flat_tensor_generated.h)'
# libFuzzer harnesses drive whole stacks: any public header, and the test helpers.
check test/fuzz '^(runtime/|kernels/|backends/|extension/|test/support/)'
# The Module API sits on top: public executor headers, other extensions, the
# kernel libraries' and backends' registration headers.
if [ -d extension/module ]; then
  check extension/module '^(runtime/(platform|core|kernel|backend|executor)/|extension/|kernels/(portable/portable_kernels|prim_ops/prim_ops|quantized/quantized_kernels|llm/llm_kernels|optimized/optimized_kernels)\.h$|backends/(xnnpack/xnnpack|vulkan/vulkan)_backend\.h$)'
fi
# The LLM runner sits on the Module API: platform, core and the extensions it
# uses (the text runner: the tokenizers' interface too).
if [ -d extension/llm ]; then
  check extension/llm '^(runtime/(platform|core)/|extension/(llm|module|tensor|tokenizers)/)'
fi
# The official-API compatibility layer: faces over the Module API, the
# public executor headers, the data loaders, the .ptd map, the thread pool
# (the official Module's own) and the ETDump writer.
if [ -d extension/compat ]; then
  check extension/compat '^(runtime/(platform|core|kernel|backend)/|runtime/executor/(method_meta|method|program)\.h$|extension/(module|tensor|compat|data_loader|flat_tensor|threadpool)/|devtools/etdump/(etdump_writer|etdump_observer)\.h$)'
fi
# Tokenizers: plain C++17 on their own folder (no runtime dependency).
if [ -d extension/tokenizers ]; then
  check extension/tokenizers '^extension/tokenizers/'
fi
# The ETDump writer (devtools/etdump): platform, core and the public executor
# headers; its generated schema code stays out of its public headers.
if [ -d devtools/etdump ]; then
  check devtools/etdump '^(runtime/(platform|core)/|runtime/executor/(execute_observer|method|method_meta)\.h$|devtools/etdump/)'
  if grep -rln 'etdump_generated.h' devtools/etdump --include='*.h'; then
    echo "generated ETDump schema included from a public header"; fail=1
  fi
fi
check extension/memory '^(runtime/(platform|core|executor)/|extension/memory/)'
check extension/bundled_program \
  '^(runtime/(platform|core|executor)/|extension/bundled_program/|schema/bundled_program_generated.h)'
if grep -rln 'bundled_program_generated.h' extension/bundled_program --include='*.h'; then
  echo "generated .bpte schema included from a public header"; fail=1
fi
if [ -d extension/threadpool ]; then
  check extension/threadpool '^(runtime/(platform|core)/|extension/threadpool/)'
fi
# The .ptd schema's generated code stays out of the extension's public headers.
if grep -rln 'flat_tensor_generated.h' extension/flat_tensor --include='*.h'; then
  echo "generated .ptd schema included from a public header"; fail=1
fi
# Nothing outside runtime/executor reaches into its internal headers.
if grep -rnE '#include "runtime/executor/(method_loader|flatbuffer_util|merged_named_data)\.h"' \
     --include='*.h' --include='*.cpp' . | grep -v '^./runtime/executor/' | grep -v '^./build'; then
  echo "executor internals included from outside runtime/executor"; fail=1
fi
# Generated schema code only in executor .cpp files and its internal headers.
for h in $(grep -rl 'program_generated.h' runtime --include='*.h' || true); do
  case "$h" in runtime/executor/method_loader.h|runtime/executor/flatbuffer_util.h) ;;
    *) echo "generated schema included from public header $h"; fail=1 ;; esac
done
if grep -rnE '#include <(vector|map|unordered_map|string|memory|functional|iostream)>' runtime \
     kernels/portable kernels/prim_ops kernels/quantized kernels/llm kernels/optimized kernels/cpu_math \
     --exclude-dir=test; then
  echo "standard containers or heap types in the core or the kernel libraries"; fail=1
fi
[ $fail -eq 0 ] && echo "layering: ok"
exit $fail
