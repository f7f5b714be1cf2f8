#!/usr/bin/env bash
# Applies .clang-format to every tracked C++ file; with --check, lists the
# files that differ and fails instead of rewriting them.
set -euo pipefail
cd "$(dirname "$0")/.."
mapfile -t files < <(git ls-files '*.h' '*.cpp' '*.inc' | grep -v '^third-party/' | grep -v '\.inc$')
if [ "${1:-}" = "--check" ]; then
  bad=0
  for f in "${files[@]}"; do
    if ! clang-format --style=file "$f" | cmp -s - "$f"; then echo "not formatted: $f"; bad=1; fi
  done
  exit $bad
fi
clang-format --style=file -i "${files[@]}"
