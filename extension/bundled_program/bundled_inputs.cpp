// Sets a Method's inputs from one bundled test case.
#include <cstdint>

#include "extension/bundled_program/bundled_program.h"
#include "extension/bundled_program/bundled_tensor.h"
#include "schema/bundled_program_generated.h"

namespace etr {
namespace {

bool is_identity(const uint8_t* order, size_t rank) {
  for (size_t d = 0; d < rank; ++d) {
    if (order[d] != d) return false;
  }
  return true;
}

Error set_tensor_input(Method& method, size_t test_case, size_t i, const etr_bp::Tensor& t) {
  const EValue& slot = method.get_input(i);
  if (!slot.is_tensor()) {
    ETR_FAIL(Error::InvalidType,
             "method '%s' case %zu input %zu: bundled Tensor, the method "
             "takes %s",
             method.name(), test_case, i, to_string(slot.tag()));
  }
  const Tensor& want = slot.to_tensor();
  internal::BundledTensor b = internal::read_bundled_tensor(t);
  if (b.dtype != want.dtype()) {
    ETR_FAIL(Error::InvalidType,
             "method '%s' case %zu input %zu: bundled %s tensor, the method "
             "takes %s",
             method.name(), test_case, i, to_string(b.dtype), to_string(want.dtype()));
  }
  if (b.rank != want.dim()) {
    ETR_FAIL(Error::InvalidArgument,
             "method '%s' case %zu input %zu: bundled rank %zu, the "
             "method takes rank %zu",
             method.name(), test_case, i, b.rank, want.dim());
  }
  if (!is_identity(b.dim_order, b.rank) || !want.is_contiguous_order()) {
    ETR_FAIL(Error::NotSupported,
             "method '%s' case %zu input %zu: only contiguous dim orders "
             "are supported (bundled and declared)",
             method.name(), test_case, i);
  }
  int64_t strides[kTensorMaxDim];
  // set_input only reads the data, or keeps the pointer for an unplanned input.
  Tensor view(b.dtype, b.rank, b.sizes, b.dim_order, strides, const_cast<uint8_t*>(b.data));
  const Error err = method.set_input(view, i);
  if (err != Error::Ok) {
    ETR_LOG(Error, "method '%s' case %zu input %zu: the bundled tensor was refused", method.name(),
            test_case, i);
  }
  return err;
}

Error set_scalar_input(Method& method, size_t test_case, size_t i, const etr_bp::Value& v) {
  const EValue& slot = method.get_input(i);
  EValue value;
  Tag want = Tag::None;
  switch (v.val_type()) {
    case etr_bp::ValueUnion::Int:
      value = EValue(static_cast<int64_t>(v.val_as_Int()->int_val()));
      want = Tag::Int;
      break;
    case etr_bp::ValueUnion::Bool:
      value = EValue(v.val_as_Bool()->bool_val());
      want = Tag::Bool;
      break;
    default:
      value = EValue(v.val_as_Double()->double_val());
      want = Tag::Double;
      break;
  }
  if (slot.tag() != want) {
    ETR_FAIL(Error::InvalidType, "method '%s' case %zu input %zu: bundled %s, the method takes %s",
             method.name(), test_case, i, to_string(want), to_string(slot.tag()));
  }
  const Error err = method.set_input(value, i);
  if (err != Error::Ok) {
    ETR_LOG(Error, "method '%s' case %zu input %zu: the bundled %s was refused", method.name(),
            test_case, i, to_string(want));
  }
  return err;
}

}  // namespace

Error BundledProgram::load_inputs(Method& method, size_t test_case) const {
  ETR_ASSIGN_OR_RETURN(const etr_bp::BundledMethodTestCase* tc,
                       find_case(method.name(), test_case));
  const auto* inputs = tc->inputs();
  const size_t n = inputs != nullptr ? inputs->size() : 0;
  if (n != method.inputs_size()) {
    ETR_FAIL(Error::InvalidArgument,
             "method '%s' case %zu: %zu bundled inputs, the method takes "
             "%zu",
             method.name(), test_case, n, method.inputs_size());
  }
  for (size_t i = 0; i < n; ++i) {
    const etr_bp::Value& v = *inputs->Get(static_cast<flatbuffers::uoffset_t>(i));
    // load() checked that every value has a payload of a known kind.
    if (v.val_type() == etr_bp::ValueUnion::Tensor) {
      ETR_RETURN_IF_ERROR(set_tensor_input(method, test_case, i, *v.val_as_Tensor()));
    } else {
      ETR_RETURN_IF_ERROR(set_scalar_input(method, test_case, i, v));
    }
  }
  return Error::Ok;
}

}  // namespace etr
