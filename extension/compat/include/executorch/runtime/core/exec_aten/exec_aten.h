// Compatibility layer (extension/compat): the official executorch::aten names
// (the portable, non-ATen build).
#pragma once

#include <executorch/runtime/core/error.h>
#include <executorch/runtime/core/portable_type/tensor.h>
#include <executorch/runtime/core/result.h>

// The namespace of the runtime types (Method, Program, ...): `runtime` in the
// portable build, the only one etr provides.
#ifndef ET_RUNTIME_NAMESPACE
#define ET_RUNTIME_NAMESPACE runtime
#endif

namespace executorch {
namespace aten {

using Tensor = ::executorch::runtime::etensor::Tensor;
using TensorImpl = ::executorch::runtime::etensor::TensorImpl;
using ScalarType = ::executorch::runtime::etensor::ScalarType;
using TensorShapeDynamism = ::executorch::runtime::etensor::TensorShapeDynamism;
using SizesType = Tensor::SizesType;
using DimOrderType = Tensor::DimOrderType;
using StridesType = Tensor::StridesType;
template <typename T>
using ArrayRef = ::executorch::runtime::etensor::ArrayRef<T>;

}  // namespace aten
}  // namespace executorch

namespace torch {
namespace executor {
using ::executorch::aten::ScalarType;
using ::executorch::aten::Tensor;
using ::executorch::aten::TensorImpl;
using ::executorch::aten::TensorShapeDynamism;
}  // namespace executor
}  // namespace torch
