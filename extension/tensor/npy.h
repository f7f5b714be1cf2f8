// NumPy .npy files <-> tensors.
//
// Reading accepts format versions 1.0, 2.0 and 3.0, C-order arrays (0-d
// included) of little-endian (or byte-order-free) dtypes:
//   <f2 (Half), <f4, <f8, <i1, <i2, <i4, <i8, |u1, |b1, <u2, <u4, <u8,
//   <c8 (ComplexFloat), <c16 (ComplexDouble).
// Anything else (big-endian, fortran_order True, structured or string
// dtypes, malformed or oversized headers, a data size that does not match
// the shape) is an error: the reader never crashes on a bad file. Failures
// return an Error (AccessFailed for file I/O, NotSupported for valid but
// unsupported content, InvalidArgument for malformed content) and log a
// message naming the problem and, for files, the path; receive it with
// etr::ErrorCapture.
//
// Writing produces version 1.0 files (2.0 when the header needs it) with the
// elements in logical (row-major) order, whatever the tensor's dim order.
#pragma once

#include <cstddef>
#include <string>

#include "extension/tensor/host_tensor.h"
#include "runtime/core/error.h"
#include "runtime/core/evalue.h"
#include "runtime/core/result.h"

namespace etr {

// Largest header (dictionary text) the reader accepts.
constexpr size_t kMaxNpyHeaderBytes = 1 << 20;

// Reads a .npy file into a contiguous HostTensor.
Result<HostTensor> read_npy(const std::string& path);
// Parses a complete .npy image held in memory.
Result<HostTensor> parse_npy(const void* data, size_t size);

// Writes `t` (any dim order) as a C-order array. Fails with InvalidType for
// dtypes that have no .npy equivalent here (e.g. quantized types, or
// ComplexHalf: numpy has no complex32; ComplexFloat and ComplexDouble are
// '<c8' and '<c16'), AccessFailed when the file cannot be written.
Error write_npy(const std::string& path, const Tensor& t);
// Writes an Int (int64), Double (float64) or Bool (bool) value as a 0-d
// array; fails with InvalidType for any other kind of value.
Error write_npy_scalar(const std::string& path, const EValue& value);

// The .npy descr string for a dtype ("<f4"), or nullptr if there is none.
const char* npy_descr(ScalarType dtype);

}  // namespace etr
