#!/usr/bin/env bash
# Enforces the layer stack by grepping includes against an allow-list:
#   platform <- core <- kernel, backend <- executor
# and keeps generated flatbuffer code out of public headers and the heap/
# standard containers out of the core.
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
  done < <(grep -rn '#include "' "$dir" --include='*.h' --include='*.cpp' --exclude-dir=fuzz || true)
}
check runtime/platform '^runtime/platform/'
check runtime/core '^runtime/(platform|core)/'
check runtime/kernel '^runtime/(platform|core|kernel)/'
check runtime/backend '^runtime/(platform|core|backend)/'
check runtime/executor '^(runtime/|schema/program_generated.h)'
# Generated schema code only in executor .cpp files and its internal headers.
for h in $(grep -rl 'program_generated.h' runtime --include='*.h' || true); do
  case "$h" in runtime/executor/method_loader.h|runtime/executor/flatbuffer_util.h) ;;
    *) echo "generated schema included from public header $h"; fail=1 ;; esac
done
if grep -rnE '#include <(vector|map|unordered_map|string|memory|functional|iostream)>' runtime; then
  echo "standard containers or heap types in the core"; fail=1
fi
[ $fail -eq 0 ] && echo "layering: ok"
exit $fail
