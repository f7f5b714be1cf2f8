// Internal: the steps of loading a method. Only included from .cpp files in
// runtime/executor (it pulls in the generated schema).
#pragma once

#include "runtime/executor/method.h"
#include "runtime/executor/program.h"
#include "runtime/kernel/registry.h"
#include "schema/program_generated.h"

namespace etr {

class MethodLoader final {
 public:
  MethodLoader(const Program& program, const etr_fb::ExecutionPlan* plan, MemoryManager* memory,
               const NamedDataMap* external, const KernelRegistry& registry, Method* method)
      : program_(program),
        plan_(plan),
        memory_(memory),
        alloc_(memory->method_allocator()),
        external_(external),
        registry_(registry),
        method_(method) {}

  [[nodiscard]] Error load();

 private:
  // value_parser.cpp
  [[nodiscard]] Error parse_values();
  [[nodiscard]] Error parse_value(size_t index, const etr_fb::EValue* value);
  [[nodiscard]] Error parse_tensor(size_t index, const etr_fb::Tensor* t, EValue* out);
  [[nodiscard]] Error bind_tensor_data(size_t index, const etr_fb::Tensor* t, Tensor* tensor);
  [[nodiscard]] Error parse_list_refs(size_t index, const flatbuffers::Vector<int32_t>* items,
                                      bool optional, EValue* out);
  [[nodiscard]] Error parse_int_list(size_t index, const etr_fb::IntList* list, EValue* out);
  [[nodiscard]] Error check_data_alignment(size_t index, const Tensor* tensor);
  [[nodiscard]] Error copy_mutable_data(size_t index, uint32_t buffer_idx, void* dst, size_t nbytes);
  [[nodiscard]] Error bind_external(size_t index, const etr_fb::Tensor* t, Tensor* tensor,
                                    bool planned);
  [[nodiscard]] Error parse_io(const flatbuffers::Vector<int32_t>* ids, const char* what,
                               const int32_t** out, size_t* count);

  // instruction_resolver.cpp
  [[nodiscard]] Error resolve_chains();
  [[nodiscard]] Error resolve_instruction(size_t chain, size_t pc, size_t chain_len,
                                          const etr_fb::Instruction* in,
                                          internal::Instruction* out, size_t* missing);
  [[nodiscard]] Error resolve_kernel(size_t chain, size_t pc, const etr_fb::KernelCall* call,
                                     internal::Instruction* out, size_t* missing);
  [[nodiscard]] Error resolve_jump(size_t pc, size_t chain_len, const etr_fb::JumpFalseCall* j,
                                   internal::Instruction* out);
  [[nodiscard]] Error resolve_args(size_t chain, size_t pc, const flatbuffers::Vector<int32_t>* args,
                                   internal::Instruction* out);
  [[nodiscard]] Error report_missing_operators(size_t missing);
  [[nodiscard]] Error check_output_overlap(size_t pc, const char* op_name, const KernelEntry& entry,
                                           const internal::Instruction* in);

  // method_load.cpp
  [[nodiscard]] Error init_delegates();
  [[nodiscard]] Error init_delegate(size_t index, const etr_fb::BackendDelegate* d);
  [[nodiscard]] Error check_planned_memory();
  // True when another tensor value's memory overlaps t's.
  bool shares_memory(const Tensor* t) const;

  bool value_in_range(int64_t index) const {
    return index >= 0 && static_cast<uint64_t>(index) < method_->num_values_;
  }
  const char* name() const { return plan_->name()->c_str(); }

  const Program& program_;
  const etr_fb::ExecutionPlan* plan_;
  MemoryManager* memory_;
  MemoryAllocator* alloc_;
  const NamedDataMap* external_;
  const KernelRegistry& registry_;
  Method* method_;
  FreeableBuffer mutable_segment_;
  bool mutable_segment_loaded_ = false;
};

// Logs "method 'x': out of method-allocator memory while allocating <what>" and
// returns MemoryAllocationFailed.
Error method_allocation_failed(const char* method, const char* what, size_t bytes);

}  // namespace etr
