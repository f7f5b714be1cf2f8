// Compatibility layer (extension/compat): the official program validation
// entry points, which take flatbuffers objects of the official schema. etr
// does not use the flatbuffers library: it checks a program's bounds,
// indices and sizes while parsing it (Program::load with any Verification
// level), so these return Error::NotSupported, with a log line saying so.
#pragma once

#include <executorch/runtime/core/error.h>
#include <executorch/runtime/platform/compiler.h>

namespace executorch_flatbuffer {
struct ExecutionPlan;
struct Program;
struct Tensor;
struct TensorList;
}  // namespace executorch_flatbuffer

namespace executorch {
namespace runtime {

ET_NODISCARD Error validate_tensor(const executorch_flatbuffer::Tensor* tensor);
ET_NODISCARD Error validate_program(const executorch_flatbuffer::Program* program);

}  // namespace runtime
}  // namespace executorch
