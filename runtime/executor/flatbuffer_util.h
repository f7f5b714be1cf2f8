// Internal helpers for reading verified flatbuffers safely.
#pragma once

#include <cstdint>

#include "schema/program_generated.h"

namespace etr {
namespace internal {

// The flatbuffers verifier (2.0.8) checks only the 4-byte alignment of a
// vector's length prefix, so a hostile file can place 8-byte elements at a
// 4-aligned address. Every 8-byte-element vector is checked before use.
template <typename T>
bool vector_aligned(const flatbuffers::Vector<T>* v) {
  return v == nullptr || reinterpret_cast<uintptr_t>(v->data()) % alignof(T) == 0;
}

// The argument value ids of a kernel or delegate call (unchecked); null for
// any other instruction.
inline const flatbuffers::Vector<int32_t>* call_args(const etr_fb::Instruction* in) {
  if (const auto* kc = in->instr_args_as_KernelCall()) return kc->args();
  if (const auto* dc = in->instr_args_as_DelegateCall()) return dc->args();
  return nullptr;
}

}  // namespace internal
}  // namespace etr
