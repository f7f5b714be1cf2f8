// Fusion rules: a kernel library's declaration that a chain of consecutive
// operator calls may run as one of its kernels. A library lists its rules
// next to its kernel table (KernelLibrary::fusion_rules, registry.h); the
// method loader applies every registered library's rules at load
// (runtime/executor/kernel_fusion.cpp, CMake option ETR_KERNEL_FUSION) and
// knows no operator by name.
//
// A rule is:
//   - the pattern (runtime/core/chain_pattern.h): the operator names and
//     argument counts of the consecutive calls (return slot included) and
//     the links between them (which argument of step i is which of step j,
//     or a plan view of its bytes);
//   - the fused call's arguments, in order, each an argument of some step
//     with a role: Input (read), Scratch (an intermediate tensor the fused
//     kernel may use as working memory), Shape (a tensor whose sizes only it
//     reads) or Output (the group's result and its return slot, last);
//   - the intermediates: arguments the group writes that must be invisible
//     outside it (read by no other instruction, not a method output, not an
//     Input of the fused call);
//   - value checks on the program's values (a constant 2-D tensor, an int
//     list equal to given dims, a scalar equal to a number);
//   - the fused kernel's name (the library registers it like any kernel) and
//     the step whose operator names the fused call in logs and profiles.
//
// The loader fuses only when, on top of the rule: the calls are consecutive
// in one chain, no jump lands inside the group, no argument of any step is
// written while the method runs, and (rules with a Scratch argument) the
// scratch tensor shares no memory with any Input tensor and the Output is
// bound. Longer rules are tried before shorter ones; among equal lengths,
// libraries in priority order, then each library's declaration order. The
// fused kernel is then chosen like any other (KernelRegistry::select):
// when every library declines it, the calls load one by one.
//
// Rules are constant aggregates, one FusionRule{...} per rule, whose string
// literals are the fused kernel's name first and then the steps' operator
// names in order: cmake/selective_build.cmake reads them from the source
// (kernels/*/fusion_rules.cpp) to keep a fused kernel whenever its operators
// are selected. Keep other string literals out of a rule's initializer.
#pragma once

#include <cstddef>
#include <cstdint>

#include "runtime/core/chain_pattern.h"

namespace etr {

// The longest rule's fused call (two convolution -> batch norm -> hardtanh
// chains, kernels/optimized/fusion_rules.cpp) takes 36 arguments; the
// longest pattern (nn.MultiheadAttention's 30 calls) names 41 intermediates.
constexpr size_t kMaxFusionArgs = 40;
constexpr size_t kMaxFusionIntermediates = 48;
constexpr size_t kMaxFusionChecks = 4;
constexpr size_t kMaxFusionCheckInts = 6;

enum class FusionArgRole : uint8_t {
  None,     // unused slot (ends the list)
  Input,    // read by the fused kernel
  Scratch,  // an intermediate the fused kernel may write as working memory
  Output,   // the group's result, then its return slot (the last two)
  // A tensor the fused kernel reads only the sizes, dtype and dim order of
  // (e.g. a plan view inside the group, to check the group's shapes); its
  // memory is not read, so no overlap rule applies to it.
  Shape,
};

struct FusionArg {
  FusionArgRole role = FusionArgRole::None;
  ChainRef ref{};
};

enum class FusionCheckKind : uint8_t {
  None,              // unused slot (ends the list)
  ConstantTensor2D,  // a program-constant tensor of rank 2
  IntListEquals,     // an int list equal to `ints` (a negative item counts from the list's length)
  ScalarEquals,      // an Int, Double or Bool equal to `number`
};

struct FusionCheck {
  FusionCheckKind kind = FusionCheckKind::None;
  ChainRef ref{};
  int64_t ints[kMaxFusionCheckInts] = {};
  uint8_t num_ints = 0;
  double number = 0.0;
};

struct FusionRule {
  // The kernel the library registers for the group.
  const char* fused = nullptr;
  ChainPattern pattern{};
  FusionArg args[kMaxFusionArgs]{};
  // Ends at the first reference to no step.
  ChainRef intermediates[kMaxFusionIntermediates]{};
  FusionCheck checks[kMaxFusionChecks]{};
  // The step whose operator names the fused call (its op index).
  uint8_t name_step = 0;
  // More checks for a long rule, in a constant array of its own (so that
  // every rule does not carry room for them).
  const FusionCheck* more_checks = nullptr;
  uint8_t num_more_checks = 0;

  constexpr size_t num_args() const {
    size_t n = 0;
    while (n < kMaxFusionArgs && args[n].role != FusionArgRole::None) ++n;
    return n;
  }
  constexpr size_t num_intermediates() const {
    size_t n = 0;
    while (n < kMaxFusionIntermediates && intermediates[n].step != kChainNoStep) ++n;
    return n;
  }
  constexpr size_t num_checks() const {
    size_t n = 0;
    while (n < kMaxFusionChecks && checks[n].kind != FusionCheckKind::None) ++n;
    return n;
  }
};

// Shorthands for rule declarations.
constexpr ChainRef arg_of(uint8_t step, int8_t arg) { return ChainRef{step, arg}; }
constexpr ChainLink same(ChainRef a, ChainRef b) { return ChainLink{ChainLinkKind::Same, a, b}; }
constexpr ChainLink different(ChainRef a, ChainRef b) {
  return ChainLink{ChainLinkKind::Different, a, b};
}
constexpr FusionArg input(ChainRef r) { return FusionArg{FusionArgRole::Input, r}; }
constexpr FusionArg scratch(ChainRef r) { return FusionArg{FusionArgRole::Scratch, r}; }
constexpr FusionArg output(ChainRef r) { return FusionArg{FusionArgRole::Output, r}; }
constexpr FusionArg shape_of(ChainRef r) { return FusionArg{FusionArgRole::Shape, r}; }
constexpr ChainLink same_bytes(ChainRef a, ChainRef b) {
  return ChainLink{ChainLinkKind::SameBytes, a, b};
}

// Whether a rule is well formed: a valid pattern, at least two steps, every
// reference within it, the last two arguments Outputs and no Output before
// them, at most one Scratch. KernelRegistry::add refuses a library whose
// rules are not.
constexpr bool fusion_rule_valid(const FusionRule& r) {
  if (r.fused == nullptr || !chain_pattern_valid(r.pattern)) return false;
  const size_t steps = r.pattern.num_steps();
  const size_t n = r.num_args();
  if (steps < 2 || n < 2 || r.name_step >= steps) return false;
  size_t scratches = 0;
  for (size_t i = 0; i < n; ++i) {
    if (!internal::chain_ref_valid(r.pattern, r.args[i].ref, steps)) return false;
    const bool is_output = r.args[i].role == FusionArgRole::Output;
    if (is_output != (i + 2 >= n)) return false;
    scratches += r.args[i].role == FusionArgRole::Scratch ? 1 : 0;
  }
  if (scratches > 1) return false;
  for (size_t i = 0; i < r.num_intermediates(); ++i) {
    if (!internal::chain_ref_valid(r.pattern, r.intermediates[i], steps)) return false;
  }
  for (size_t i = 0; i < r.num_checks(); ++i) {
    if (!internal::chain_ref_valid(r.pattern, r.checks[i].ref, steps) ||
        r.checks[i].num_ints > kMaxFusionCheckInts)
      return false;
  }
  if ((r.more_checks == nullptr) != (r.num_more_checks == 0)) return false;
  for (size_t i = 0; i < r.num_more_checks; ++i) {
    if (r.more_checks[i].kind == FusionCheckKind::None ||
        !internal::chain_ref_valid(r.pattern, r.more_checks[i].ref, steps) ||
        r.more_checks[i].num_ints > kMaxFusionCheckInts)
      return false;
  }
  return true;
}

}  // namespace etr
