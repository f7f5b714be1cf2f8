#!/usr/bin/env bash
# Selective build check (cmake/selective_build.cmake): builds executor_runner
# with only the operators of test/models/mlp.pte and checks that
#   - an unknown operator name in ETR_SELECT_OPS is a configure error naming it;
#   - the MLP runs and matches PyTorch (test/models/bundled/mlp.bpte);
#   - a program needing an unselected operator (cnn.pte: convolution) is
#     refused at load, naming the operator;
#   - the unselected kernels are not in the binary (nm), the selected ones are;
# then prints the stripped size next to a full build's when one exists.
# Build directory: $BUILD_DIR (default build-selective); ccache is used when present.
set -euo pipefail
cd "$(dirname "$0")/.."
dir=${BUILD_DIR:-build-selective}
launcher=()
if command -v ccache > /dev/null; then launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache); fi
# The flags of scripts/measure_size.sh, so ccache shares the kernel objects with its builds.
common=(-G Ninja -DCMAKE_BUILD_TYPE=MinSizeRel -DETR_BUILD_TESTS=OFF "${launcher[@]}"
  "-DCMAKE_CXX_FLAGS=-ffunction-sections -fdata-sections -fno-asynchronous-unwind-tables \
-fno-unwind-tables -fno-pie" "-DCMAKE_EXE_LINKER_FLAGS=-Wl,--gc-sections -no-pie")
fail() { echo "selective_build_test: FAIL: $*" >&2; exit 1; }

# 1. An unknown operator is refused at configure time, by name.
bad=$(mktemp -d)
trap 'rm -rf "$bad"' EXIT
if cmake -S . -B "$bad" "${common[@]}" -DETR_SELECT_OPS="aten::add.out,aten::no_such_op.out" \
     > "$bad/log" 2>&1; then
  fail "configuring with an unknown operator succeeded"
fi
grep -q "unknown operator 'aten::no_such_op.out'" "$bad/log" \
  || fail "the configure error does not name the unknown operator: $(tail -5 "$bad/log")"
echo "ok: unknown operator refused at configure time"

# 2. Build the runner for mlp.pte's operators.
cmake -S . -B "$dir" "${common[@]}" -DETR_SELECT_OPS_FROM_PTE=test/models/mlp.pte > /dev/null
cmake --build "$dir" --target executor_runner -j"${JOBS:-2}" > "$dir/build.log" 2>&1 \
  || { tail -30 "$dir/build.log"; fail "build"; }
runner=$dir/examples/executor_runner/executor_runner
echo "selected: $(grep -c '^    "' "$dir/selective_build/runtime/kernel/selected_operators.h")" \
  "operators: $(tr '\n' ' ' < "$dir/selective_build/pte_operators.txt")"

# The listing tool names what it cannot read.
set +e
"$dir/etr_list_operators" test/models/manifest.txt > "$dir/list.log" 2>&1
rc=$?
set -e
if [ $rc -ne 2 ] || ! grep -q "manifest.txt' is not a valid program" "$dir/list.log"; then
  fail "etr_list_operators on a non-program: exit $rc: $(cat "$dir/list.log")"
fi

# 3. The selected program runs and matches PyTorch.
"$runner" --bundled_program=test/models/bundled/mlp.bpte || fail "mlp.bpte"
"$runner" --model_path=test/models/mlp.pte > /dev/null || fail "mlp.pte"

# 4. A program needing an unselected operator is refused, naming it.
set +e
"$runner" --model_path=test/models/cnn.pte > "$dir/cnn.log" 2>&1
rc=$?
set -e
[ $rc -ne 0 ] || fail "cnn.pte ran although aten::convolution.out is not selected"
grep -q "aten::convolution.out" "$dir/cnn.log" \
  || fail "the refusal does not name aten::convolution.out: $(cat "$dir/cnn.log")"
echo "ok: cnn.pte refused (exit $rc): $(grep -m1 convolution "$dir/cnn.log")"

# 5. Unselected kernels are not linked; selected ones are.
syms=$(nm -C "$runner")
for absent in "etr::convolution_out(" "etr::mul_out(" "etr::softmax_out("; do
  if grep -qF "$absent" <<< "$syms"; then fail "unselected kernel $absent is linked"; fi
done
for present in "etr::addmm_out(" "etr::relu_out("; do
  grep -qF "$present" <<< "$syms" || fail "selected kernel $present is missing"
done
"$runner" --list_operators | awk '{print $1}' | sort -u > "$dir/registered.txt"
# The selection is the program's operators plus the fused kernels that stand
# in for a chain of them (mlp.pte: permute_copy + addmm -> etr::linear.fused,
# when the optimized library is built).
expected=$(sort -u "$dir/selective_build/pte_operators.txt")
if grep -q '"etr::linear.fused"' "$dir/selective_build/runtime/kernel/selected_operators.h"; then
  expected=$(printf '%s\netr::linear.fused\n' "$expected" | sort -u)
elif grep -q "^ETR_BUILD_OPTIMIZED_KERNELS:BOOL=ON" "$dir/CMakeCache.txt"; then
  fail "the selection lacks etr::linear.fused although mlp.pte calls permute_copy and addmm"
fi
diff <(echo "$expected") "$dir/registered.txt" \
  || fail "registered operators differ from the selection"
echo "ok: only the selected kernels (and the fused one for their chain) are linked and registered"

strip -o "$dir/executor_runner.stripped" "$runner"
echo "executor_runner (MinSizeRel, stripped, mlp.pte's operators): \
$(stat -c %s "$dir/executor_runner.stripped") bytes"
echo "selective_build_test: PASS"
