// The size of a method's own tables, computed from the program alone, so
// MethodMeta can report it before load. It must count exactly the tables the
// loader allocates through TableAllocator (value_parser.cpp,
// instruction_resolver.cpp, kernel_selection.cpp, method_load.cpp); the
// method tests check load succeeds with this many bytes and fails with one less.
#include "runtime/executor/method_loader.h"

namespace etr {
namespace {

// One table of `count` items of `item` bytes, rounded as TableAllocator does.
// Saturates instead of overflowing: a hostile count then fails at load.
size_t table(size_t count, size_t item) {
  size_t bytes = 0;
  if (!checked_mul(count, item, &bytes) || bytes > SIZE_MAX - 15) return SIZE_MAX / 4;
  return (bytes + 15) & ~size_t{15};
}

// Saturating sum, so a hostile program cannot wrap the total.
void add(size_t* total, size_t bytes) {
  size_t sum = 0;
  *total = checked_add(*total, bytes, &sum) ? sum : SIZE_MAX / 2;
}

size_t value_bytes(const etr_fb::EValue* v) {
  if (v == nullptr || v->val() == nullptr) return 0;
  switch (v->val_type()) {
    case etr_fb::KernelTypes::Tensor: {
      const auto* sizes = v->val_as_Tensor()->sizes();
      const size_t dim = sizes == nullptr ? 0 : sizes->size();
      return table(1, sizeof(Tensor)) + table(dim, sizeof(int32_t)) + table(dim, sizeof(uint8_t)) +
             table(dim, sizeof(int64_t));
    }
    case etr_fb::KernelTypes::IntList: {
      const auto* items = v->val_as_IntList()->items();
      const size_t n = items == nullptr ? 0 : items->size();
      return table(n, sizeof(EValue*)) + table(n, sizeof(int64_t));
    }
    case etr_fb::KernelTypes::BoolList: {
      const auto* items = v->val_as_BoolList()->items();
      return table(items == nullptr ? 0 : items->size(), sizeof(bool));
    }
    case etr_fb::KernelTypes::TensorList: {
      const auto* items = v->val_as_TensorList()->items();
      return table(items == nullptr ? 0 : items->size(), sizeof(EValue*));
    }
    case etr_fb::KernelTypes::OptionalTensorList: {
      const auto* items = v->val_as_OptionalTensorList()->items();
      return table(items == nullptr ? 0 : items->size(), sizeof(EValue*));
    }
    default: return 0;
  }
}

bool is_external(const etr_fb::EValue* v) {
  const etr_fb::Tensor* t = v == nullptr ? nullptr : v->val_as_Tensor();
  return t != nullptr && t->extra_tensor_info() != nullptr &&
         t->extra_tensor_info()->location() == etr_fb::TensorDataLocation::EXTERNAL;
}

size_t values_bytes(const etr_fb::ExecutionPlan* plan) {
  const auto* values = plan->values();
  const size_t n = values == nullptr ? 0 : values->size();
  size_t total = table(n, sizeof(EValue));
  size_t external = 0;
  for (flatbuffers::uoffset_t i = 0; i < n; ++i) {
    add(&total, value_bytes(values->Get(i)));
    if (is_external(values->Get(i))) ++external;
  }
  if (external != 0) add(&total, table(external, sizeof(FreeableBuffer)));
  const size_t ni = plan->inputs() == nullptr ? 0 : plan->inputs()->size();
  const size_t no = plan->outputs() == nullptr ? 0 : plan->outputs()->size();
  add(&total, 3 * table(ni, sizeof(bool)) + table(no, sizeof(bool)));
  return total;
}

size_t instruction_bytes(const etr_fb::ExecutionPlan* plan) {
  size_t total = 0;
  const auto* ops = plan->operators();
  const size_t nops = ops == nullptr ? 0 : ops->size();
  add(&total, table(nops, sizeof(const char*)));
  for (flatbuffers::uoffset_t i = 0; i < nops; ++i) {
    const etr_fb::Operator* op = ops->Get(i);
    if (op == nullptr || op->name() == nullptr) continue;
    add(&total, table(op->name()->size() + (op->overload() ? op->overload()->size() : 0) + 2, 1));
  }
  const size_t nv = plan->values() == nullptr ? 0 : plan->values()->size();
  if (nv != 0) add(&total, 2 * table((nv + 7) / 8, 1));  // the run-time and constant value maps
  const auto* chains = plan->chains();
  const size_t nc = chains == nullptr ? 0 : chains->size();
  add(&total, table(nc, sizeof(internal::Chain)));
  for (flatbuffers::uoffset_t c = 0; c < nc; ++c) {
    const auto* instrs = chains->Get(c) == nullptr ? nullptr : chains->Get(c)->instructions();
    const size_t n = instrs == nullptr ? 0 : instrs->size();
    add(&total, table(n, sizeof(internal::Instruction)));
    for (flatbuffers::uoffset_t k = 0; k < n; ++k) {
      const etr_fb::Instruction* in = instrs->Get(k);
      if (in == nullptr) continue;
      const flatbuffers::Vector<int32_t>* args = nullptr;
      if (const auto* kc = in->instr_args_as_KernelCall()) args = kc->args();
      if (const auto* dc = in->instr_args_as_DelegateCall()) args = dc->args();
      if (args != nullptr) add(&total, table(args->size(), sizeof(EValue*)));
    }
  }
  return total;
}

size_t delegate_bytes(const etr_fb::ExecutionPlan* plan) {
  const auto* delegates = plan->delegates();
  const size_t n = delegates == nullptr ? 0 : delegates->size();
  if (n == 0) return 0;
  size_t total = table(n, sizeof(internal::Delegate));
  for (flatbuffers::uoffset_t i = 0; i < n; ++i) {
    const etr_fb::BackendDelegate* d = delegates->Get(i);
    const size_t ns =
        d == nullptr || d->compile_specs() == nullptr ? 0 : d->compile_specs()->size();
    add(&total, table(ns, sizeof(CompileSpec)) + table(1, sizeof(internal::MergedNamedData)));
  }
  return total;
}

}  // namespace

size_t method_table_bytes(const etr_fb::ExecutionPlan* plan) {
  size_t total = values_bytes(plan);
  add(&total, instruction_bytes(plan));
  add(&total, delegate_bytes(plan));
  return total;
}

size_t MethodMeta::method_allocator_bytes() const { return method_table_bytes(plan_); }

}  // namespace etr
