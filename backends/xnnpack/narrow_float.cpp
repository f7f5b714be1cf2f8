#include "backends/xnnpack/narrow_float.h"

#include <cstring>

#include "backends/xnnpack/narrow_float_internal.h"
#include "kernels/cpu_math/cpu_features.h"
#include "runtime/core/half.h"
#include "runtime/platform/log.h"

#if defined(__aarch64__)
#include <arm_neon.h>
#endif

namespace etr {
namespace xnnpack {
namespace {

#if defined(__x86_64__) || defined(__i386__)
// narrow_float_avx2.cpp is built with AVX2 as well as F16C.
bool use_f16c() { return opt::cpu_features().avx2_fma && opt::cpu_features().f16c; }
#endif

// The payload dtype a narrow format stands for.
Dtype dtype_of(NarrowFloat f) { return f == NarrowFloat::BF16 ? Dtype::BF16 : Dtype::Fp16; }

// widen_narrow_values for one format.
Error widen_format(Graph* g, NarrowFloat f, size_t delegate) {
  const Dtype dtype = dtype_of(f);
  size_t count = 0, values = 0, bytes = 0;
  for (Value& v : g->values) {
    if (v.dtype != dtype) continue;
    if (v.quant != QuantKind::None) {
      ETR_FAIL(Error::NotSupported,
               "XnnpackBackend: delegate %zu: value %u: a quantized %s value is not supported",
               delegate, v.id, to_string(f));
    }
    v.dtype = Dtype::Fp32;
    v.narrowed = f;
    ++values;
    if (v.data == nullptr) continue;
    // The constant's bytes were checked against its 16-bit size when parsed.
    const size_t n = v.numel();
    g->widened.emplace_back();
    std::vector<float>& w = g->widened.back();
    w.resize(n);
    std::vector<uint16_t> bits(n);  // the constant may sit unaligned in the payload
    if (n != 0) std::memcpy(bits.data(), v.data, n * sizeof(uint16_t));
    narrow_to_fp32(f, bits.data(), w.data(), n);
    v.data = reinterpret_cast<const uint8_t*>(w.data());
    v.widened_index = static_cast<int32_t>(g->widened.size() - 1);
    v.named_buffer = -1;  // the widened copy replaces the named data
    v.named_key = nullptr;
    ++count;
    bytes += n * sizeof(float);
  }
  if (values == 0) return Error::Ok;
  // Named-data buffers no value reads any more (every constant in them was
  // widened) are released.
  std::vector<bool> read(g->named_buffers.size(), false);
  for (const Value& v : g->values) {
    if (v.named_buffer >= 0 && static_cast<size_t>(v.named_buffer) < read.size())
      read[static_cast<size_t>(v.named_buffer)] = true;
  }
  size_t released = 0;
  for (size_t b = 0; b < g->named_buffers.size(); ++b) {
    if (read[b] || g->named_buffers[b].data() == nullptr) continue;
    released += g->named_buffers[b].size();
    g->named_buffers[b].release();
  }
  ETR_LOG(Info,
          "XnnpackBackend: delegate %zu: %zu %s values held as fp32; %zu %s constants widened "
          "to %zu bytes of fp32 (%zu bytes of %s named data released)",
          delegate, values, to_string(f), count, to_string(f), bytes, released, to_string(f));
  return Error::Ok;
}

}  // namespace

const char* to_string(NarrowFloat f) {
  switch (f) {
    case NarrowFloat::BF16: return "bf16";
    case NarrowFloat::Fp16: return "fp16";
    default: return "none";
  }
}

void bf16_to_fp32(const uint16_t* src, float* dst, size_t n) {
  for (size_t i = 0; i < n; ++i) dst[i] = internal::bfloat16_bits_to_float(src[i]);
}

void fp32_to_bf16(const float* src, uint16_t* dst, size_t n) {
  for (size_t i = 0; i < n; ++i) dst[i] = internal::float_to_bfloat16_bits(src[i]);
}

void round_to_bf16(float* data, size_t n) {
  for (size_t i = 0; i < n; ++i)
    data[i] = internal::bfloat16_bits_to_float(internal::float_to_bfloat16_bits(data[i]));
}

void fp16_to_fp32_scalar(const uint16_t* src, float* dst, size_t n) {
  for (size_t i = 0; i < n; ++i) dst[i] = internal::half_bits_to_float(src[i]);
}

void fp32_to_fp16_scalar(const float* src, uint16_t* dst, size_t n) {
  for (size_t i = 0; i < n; ++i) dst[i] = internal::float_to_half_bits(src[i]);
}

void round_to_fp16_scalar(float* data, size_t n) {
  for (size_t i = 0; i < n; ++i)
    data[i] = internal::half_bits_to_float(internal::float_to_half_bits(data[i]));
}

#if defined(__aarch64__)

// NEON converts 4 at a time (to fp16 in the FPCR's rounding mode, nearest
// even unless a caller changed it); the tail goes the scalar way.
void fp16_to_fp32(const uint16_t* src, float* dst, size_t n) {
  size_t i = 0;
  for (; i + 4 <= n; i += 4)
    vst1q_f32(dst + i, vcvt_f32_f16(vreinterpret_f16_u16(vld1_u16(src + i))));
  fp16_to_fp32_scalar(src + i, dst + i, n - i);
}

void fp32_to_fp16(const float* src, uint16_t* dst, size_t n) {
  size_t i = 0;
  for (; i + 4 <= n; i += 4)
    vst1_u16(dst + i, vreinterpret_u16_f16(vcvt_f16_f32(vld1q_f32(src + i))));
  fp32_to_fp16_scalar(src + i, dst + i, n - i);
}

void round_to_fp16(float* data, size_t n) {
  size_t i = 0;
  for (; i + 4 <= n; i += 4) vst1q_f32(data + i, vcvt_f32_f16(vcvt_f16_f32(vld1q_f32(data + i))));
  round_to_fp16_scalar(data + i, n - i);
}

#else

void fp16_to_fp32(const uint16_t* src, float* dst, size_t n) {
#if defined(__x86_64__) || defined(__i386__)
  if (use_f16c()) return f16c::fp16_to_fp32(src, dst, n);
#endif
  fp16_to_fp32_scalar(src, dst, n);
}

void fp32_to_fp16(const float* src, uint16_t* dst, size_t n) {
#if defined(__x86_64__) || defined(__i386__)
  if (use_f16c()) return f16c::fp32_to_fp16(src, dst, n);
#endif
  fp32_to_fp16_scalar(src, dst, n);
}

void round_to_fp16(float* data, size_t n) {
#if defined(__x86_64__) || defined(__i386__)
  if (use_f16c()) return f16c::round_to_fp16(data, n);
#endif
  round_to_fp16_scalar(data, n);
}

#endif

void narrow_to_fp32(NarrowFloat f, const uint16_t* src, float* dst, size_t n) {
  if (f == NarrowFloat::BF16) {
    bf16_to_fp32(src, dst, n);
  } else {
    fp16_to_fp32(src, dst, n);
  }
}

void fp32_to_narrow(NarrowFloat f, const float* src, uint16_t* dst, size_t n) {
  if (f == NarrowFloat::BF16) {
    fp32_to_bf16(src, dst, n);
  } else {
    fp32_to_fp16(src, dst, n);
  }
}

void round_to_narrow(NarrowFloat f, float* data, size_t n) {
  if (f == NarrowFloat::BF16) {
    round_to_bf16(data, n);
  } else {
    round_to_fp16(data, n);
  }
}

Error widen_narrow_values(Graph* g, size_t delegate) {
  ETR_RETURN_IF_ERROR(widen_format(g, NarrowFloat::BF16, delegate));
  return widen_format(g, NarrowFloat::Fp16, delegate);
}

}  // namespace xnnpack
}  // namespace etr
