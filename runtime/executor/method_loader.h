// Internal: the steps of loading a method. Only included from .cpp files in
// runtime/executor (it pulls in the generated schema).
#pragma once

#include "runtime/executor/merged_named_data.h"
#include "runtime/executor/method.h"
#include "runtime/executor/method_load_options.h"
#include "runtime/executor/program.h"
#include "runtime/kernel/registry.h"
#include "schema/program_generated.h"

namespace etr {

class MethodLoader final {
 public:
  // The method's tables, kernel state and (unless options.delegate_allocator
  // is set) delegate state all come from memory->method_allocator().
  MethodLoader(const Program& program, const etr_fb::ExecutionPlan* plan, MemoryManager* memory,
               const MethodLoadOptions& options, const KernelRegistry& registry,
               const BackendRegistry& backends, Method* method)
      : program_(program),
        plan_(plan),
        memory_(memory),
        alloc_(memory->method_allocator()),
        options_(options),
        registry_(registry),
        backends_(backends),
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
  [[nodiscard]] Error copy_mutable_data(size_t index, uint32_t buffer_idx, void* dst,
                                        size_t nbytes);
  [[nodiscard]] Error bind_external(size_t index, const etr_fb::Tensor* t, Tensor* tensor,
                                    bool planned);
  [[nodiscard]] Error parse_io(const flatbuffers::Vector<int32_t>* ids, const char* what,
                               const int32_t** out, size_t* count);

  // instruction_resolver.cpp
  [[nodiscard]] Error resolve_chains();
  [[nodiscard]] Error resolve_instruction(size_t chain, size_t pc, size_t chain_len,
                                          const etr_fb::Instruction* in, internal::Instruction* out,
                                          size_t* missing);
  [[nodiscard]] Error resolve_kernel(size_t chain, size_t pc, const etr_fb::KernelCall* call,
                                     internal::Instruction* out, size_t* missing);
  [[nodiscard]] Error select_kernel(size_t pc, uint32_t op_index, internal::KernelInstr* k,
                                    const KernelEntry** chosen, bool* found);
  [[nodiscard]] Error check_kernel_args(size_t pc, const char* op_name, const KernelEntry& entry,
                                        internal::KernelInstr* k, bool check_overlap = true);
  [[nodiscard]] Error name_operators();
  [[nodiscard]] Error mark_run_time_values();
  bool is_run_time_value(const EValue* v) const;
  // True when value `index` is a program constant tensor: its data is a
  // constant buffer or segment or external data, not planned memory, so
  // nothing may write to it (recorded by bind_tensor_data).
  bool is_constant_value(size_t index) const {
    return constant_values_ != nullptr && index < method_->s_.num_values &&
           ((constant_values_[index / 8] >> (index % 8)) & 1) != 0;
  }
  bool has_run_time_arg(const internal::KernelInstr& k, size_t* arg) const;
  // True when `v`, or an item of the list it is, is written while the method runs.
  bool is_run_time_arg(const EValue* v) const;
  // The load-time facts about a call's arguments that kernel selection needs.
  CallFacts call_facts(const internal::KernelInstr& k) const;
  [[nodiscard]] Error resolve_jump(size_t pc, size_t chain_len, const etr_fb::JumpFalseCall* j,
                                   internal::Instruction* out);
  [[nodiscard]] Error resolve_args(size_t chain, size_t pc,
                                   const flatbuffers::Vector<int32_t>* args, EValue*** out_args,
                                   uint32_t* out_count);
  [[nodiscard]] Error report_missing_operators(size_t missing);

  // kernel_fusion.cpp
  using FbInstructions = flatbuffers::Vector<flatbuffers::Offset<etr_fb::Instruction>>;
  struct FusionGraph;
  // Resolves instruction `pc` and the ones after it as one fused kernel call
  // when a registered library's fusion rule applies and is safe; *absorbed
  // is then how many following instructions it took (0: nothing fused).
  [[nodiscard]] Error try_fuse(size_t chain, size_t pc, const FbInstructions* instrs,
                               internal::Instruction* table, size_t* absorbed);
  // Applies `rule`, whose pattern matched at match.first, when its checks
  // and the loader's safety conditions hold and a library takes the fused call.
  // fused_hash is op_name_hash(rule.fused).
  [[nodiscard]] Error try_fuse_rule(size_t chain, const FusionGraph& graph,
                                    internal::Instruction* table, const FusionRule& rule,
                                    uint32_t fused_hash, const ChainMatch& match, size_t* absorbed);
  // The steps of the longest rule whose pattern matches from pc (1: none),
  // whatever its value checks and the loader's conditions would decide, and
  // the value ids of that rule's fused call and their FusionArgRoles
  // (kMaxFusionArgs at most).
  size_t fusion_span(const FbInstructions* instrs, size_t pc, int32_t* args, uint8_t* roles,
                     size_t* num_args);
  // True when a jump of `instrs` lands in (first, last].
  bool jump_lands_in(const FbInstructions* instrs, size_t first, size_t last) const;
  // False when the instruction at pc cannot start a fusion group (its
  // operator starts no registered rule); cheap.
  bool may_start_fusion(const FbInstructions* instrs, size_t pc);
  bool value_used_outside(int32_t v, size_t chain, size_t first, size_t last) const;
  [[nodiscard]] Error check_output_overlap(size_t pc, const char* op_name, const KernelEntry& entry,
                                           const internal::KernelInstr* in);

  // view_elision.cpp: view copies whose output is a run of their input's
  // bytes become aliases (their instructions InstrKind::Absorbed) and the
  // method's planned memory is laid out again around them. Only for a single
  // chain without jumps or moves, after the delegates' init (they say which
  // arguments they write) and before any instruction is resolved; does
  // nothing when it cannot apply safely.
  struct ViewPlan;
  [[nodiscard]] Error elide_view_copies(const FbInstructions* instrs, internal::Instruction* table);
  [[nodiscard]] Error plan_views(const FbInstructions* instrs, internal::Instruction* table,
                                 ViewPlan& p);
  void scan_instructions(const FbInstructions* instrs, ViewPlan& p);
  void classify_values(ViewPlan& p) const;
  void join_groups(ViewPlan& p, int32_t x, int32_t y) const;
  bool plan_round(const FbInstructions* instrs, ViewPlan& p, size_t* num_elided);
  void bind_plan(ViewPlan& p, internal::Instruction* table, size_t num_elided);
  bool place_groups(ViewPlan& p) const;
  bool try_placement(ViewPlan& p, size_t num, uint64_t align, bool best_fit, bool keep) const;
  bool view_copy_alias(const etr_fb::KernelCall* kc, size_t* self_v, size_t* out_v,
                       uint64_t* extra) const;
  uint64_t bytes_of(size_t v) const;
  static bool ranges_overlap(uint64_t a, uint64_t an, uint64_t b, uint64_t bn);
  template <typename Fn>
  void for_each_mention(const etr_fb::Instruction* in, Fn&& fn) const;
  template <typename Fn>
  void for_each_tensor(size_t v, Fn&& fn) const;

  // method_load.cpp
  [[nodiscard]] Error init_delegates();
  [[nodiscard]] Error init_delegate(size_t index, const etr_fb::BackendDelegate* d);
  [[nodiscard]] Error check_planned_memory();
  // Refuses a constant tensor as an input (before anything is resolved).
  [[nodiscard]] Error check_inputs();
  // Allocates and fills the input/output state (the load's last allocation).
  [[nodiscard]] Error init_io_state();
  [[nodiscard]] Error merge_named_data();
  // True when another tensor value's memory overlaps t's.
  bool shares_memory(const Tensor* t) const;

  bool value_in_range(int64_t index) const {
    return index >= 0 && static_cast<uint64_t>(index) < method_->s_.num_values;
  }
  const char* name() const { return plan_->name()->c_str(); }

  const Program& program_;
  const etr_fb::ExecutionPlan* plan_;
  MemoryManager* memory_;
  // memory_->method_allocator(): the method's own tables.
  MemoryAllocator* alloc_;
  const MethodLoadOptions& options_;
  const KernelRegistry& registry_;
  const BackendRegistry& backends_;
  // The program's named data, then options_.external_data.
  internal::MergedNamedData named_data_;
  // One bit per value: written while the method runs (mark_run_time_values).
  uint8_t* run_time_values_ = nullptr;
  // One bit per value: a program constant tensor (parse_values).
  uint8_t* constant_values_ = nullptr;
  Method* method_;
  FreeableBuffer mutable_segment_;
  bool mutable_segment_loaded_ = false;
  // The registry's candidates for recently seen operators (select_kernel):
  // a program calls few operators many times, and this spares hashing the
  // name and searching every library for each call. Direct-mapped by
  // operator index; an operator with more candidates than kCachedCandidates
  // is looked up every time.
  // (16 x 56 bytes of the loader's stack.)
  static constexpr size_t kCachedOperators = 16;
  static constexpr size_t kCachedCandidates = 3;
  struct CandidateCache {
    int32_t op_index = -1;
    uint32_t count = 0;
    KernelCandidate candidates[kCachedCandidates];
  };
  CandidateCache candidates_[kCachedOperators];
  // Operators that can start a fusion group (may_start_fusion): bit i for
  // operator i < 64; `fusion_heads_beyond_` for any at index 64 or more.
  // fusion_max_steps_: the longest registered rule; ordered_rules_: the
  // rules in the order try_fuse tries them (unless there are more than fit).
  bool fusion_heads_known_ = false;
  size_t fusion_max_steps_ = 0;
  static constexpr size_t kMaxOrderedRules = 32;
  const FusionRule* ordered_rules_[kMaxOrderedRules];
  uint32_t ordered_hashes_[kMaxOrderedRules];  // op_name_hash of each one's fused kernel
  size_t num_ordered_rules_ = 0;
  bool ordered_rules_overflow_ = false;
  uint64_t fusion_heads_ = 0;
  bool fusion_heads_beyond_ = false;
};

// Logs "method 'x': out of method-allocator memory while allocating <what>" and
// returns MemoryAllocationFailed.
Error method_allocation_failed(const char* method, const char* what, size_t bytes);

}  // namespace etr
