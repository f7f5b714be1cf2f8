// Compatibility layer (extension/compat): the official executorch::aten names
// (the portable, non-ATen build).
#pragma once

#include <executorch/runtime/core/error.h>
#include <executorch/runtime/core/portable_type/bfloat16.h>
#include <executorch/runtime/core/portable_type/complex.h>
#include <executorch/runtime/core/portable_type/device.h>
#include <executorch/runtime/core/portable_type/half.h>
#include <executorch/runtime/core/portable_type/qint_types.h>
#include <executorch/runtime/core/portable_type/scalar.h>
#include <executorch/runtime/core/portable_type/scalar_type.h>
#include <executorch/runtime/core/portable_type/tensor.h>
#include <executorch/runtime/core/portable_type/tensor_impl.h>
#include <executorch/runtime/core/portable_type/tensor_options.h>
#include <executorch/runtime/core/result.h>

#include <optional>
#include <string_view>

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
using TensorList = ArrayRef<Tensor>;
using IntArrayRef = ArrayRef<int64_t>;
template <typename T>
using OptionalArrayRef = std::optional<ArrayRef<T>>;
using OptionalIntArrayRef = OptionalArrayRef<int64_t>;

using Scalar = ::executorch::runtime::etensor::Scalar;
using MemoryFormat = ::executorch::runtime::etensor::MemoryFormat;
using Layout = ::executorch::runtime::etensor::Layout;
using Device = ::executorch::runtime::etensor::Device;
using DeviceType = ::executorch::runtime::etensor::DeviceType;
using DeviceIndex = ::executorch::runtime::etensor::DeviceIndex;

// Element types (Half and BFloat16 are etr's own, runtime/core/half.h).
using Half = ::executorch::runtime::etensor::Half;
using BFloat16 = ::executorch::runtime::etensor::BFloat16;
template <typename T>
using complex = ::executorch::runtime::etensor::complex<T>;
using qint8 = ::executorch::runtime::etensor::qint8;
using quint8 = ::executorch::runtime::etensor::quint8;
using qint32 = ::executorch::runtime::etensor::qint32;
using quint4x2 = ::executorch::runtime::etensor::quint4x2;
using quint2x4 = ::executorch::runtime::etensor::quint2x4;

using std::nullopt;
using std::nullopt_t;
using std::optional;
using std::string_view;

using ::executorch::runtime::etensor::compute_numel;
using ::executorch::runtime::etensor::safe_numel;

}  // namespace aten
}  // namespace executorch

// The former name of executorch::aten (deprecated upstream, still used).
namespace exec_aten = ::executorch::aten;

namespace torch {
namespace executor {
using ::executorch::aten::IntArrayRef;
using ::executorch::aten::ScalarType;
using ::executorch::aten::Tensor;
using ::executorch::aten::TensorImpl;
using ::executorch::aten::TensorList;
using ::executorch::aten::TensorShapeDynamism;
}  // namespace executor
}  // namespace torch
