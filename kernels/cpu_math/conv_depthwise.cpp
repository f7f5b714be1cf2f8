#include "kernels/cpu_math/conv_depthwise.h"

#include <algorithm>
#include <cstring>

namespace etr {
namespace opt {
namespace {

// Scratch per chunk is kept near this many floats (L2-resident band).
constexpr int64_t kBandFloats = 32 * 1024;

size_t round_up64(size_t n) { return (n + 63) & ~size_t{63}; }

// One padded input row (sw * pitch floats): zeros, input row ir, zeros.
void fill_line(const DepthwiseGeom& g, const float* row, int64_t len, float* line) {
  const int64_t lo = std::min(g.pw, len);
  const int64_t hi = std::min(g.pw + g.w, len);
  std::memset(line, 0, static_cast<size_t>(lo) * sizeof(float));
  if (hi > lo) std::memcpy(line + lo, row, static_cast<size_t>(hi - lo) * sizeof(float));
  if (len > hi) std::memset(line + hi, 0, static_cast<size_t>(len - hi) * sizeof(float));
}

// Stride 2: even[x] / odd[x] = padded columns 2x / 2x + 1 of input row
// `row`, read straight from the input where both are inside it.
void fill_pairs(const DepthwiseGeom& g, const float* row, int64_t pitch, float* even, float* odd,
                bool use_avx2) {
  auto at = [&](int64_t c) { return c >= 0 && c < g.w ? row[c] : 0.0f; };
  const int64_t lo = std::min(pitch, (g.pw + 1) / 2);
  const int64_t top = g.w - 2 + g.pw;  // 2x <= top
  const int64_t hi = top < 0 ? lo : std::max(lo, std::min(pitch, top / 2 + 1));
  for (int64_t x = 0; x < lo; ++x) {
    even[x] = at(2 * x - g.pw);
    odd[x] = at(2 * x + 1 - g.pw);
  }
  if (use_avx2) {
    deinterleave2_avx2(row + 2 * lo - g.pw, even + lo, odd + lo, hi - lo);
  } else {
    for (int64_t x = lo; x < hi; ++x) {
      even[x] = row[2 * x - g.pw];
      odd[x] = row[2 * x + 1 - g.pw];
    }
  }
  for (int64_t x = hi; x < pitch; ++x) {
    even[x] = at(2 * x - g.pw);
    odd[x] = at(2 * x + 1 - g.pw);
  }
}

// Copies padded input rows [pr0, pr0 + rows) of one channel plane into the
// phase-split band `dst` (phase p at dst + p * phase_stride); `line` holds
// one padded row.
void fill_band(const DepthwiseGeom& g, const DepthwisePlan& plan, const float* plane, int64_t pr0,
               int64_t rows, float* dst, float* line, bool use_avx2) {
  const int64_t pitch = plan.pitch;
  const int64_t phase_stride = plan.in_rows * pitch;
  const size_t row_bytes = static_cast<size_t>(pitch) * sizeof(float);
  for (int64_t i = 0; i < rows; ++i) {
    const int64_t ir = pr0 + i - g.ph;
    float* d = dst + i * pitch;
    if (ir < 0 || ir >= g.h) {
      for (int64_t p = 0; p < g.sw; ++p) std::memset(d + p * phase_stride, 0, row_bytes);
      continue;
    }
    const float* s = plane + ir * g.w;
    if (g.sw == 1) {
      if (use_avx2) {
        pad_row_avx2(s, g.w, g.pw, d, pitch);
      } else {
        fill_line(g, s, pitch, d);
      }
      continue;
    }
    if (g.sw == 2) {
      fill_pairs(g, s, pitch, d, d + phase_stride, use_avx2);
      continue;
    }
    fill_line(g, s, g.sw * pitch, line);
    for (int64_t p = 0; p < g.sw; ++p) {
      float* dp = d + p * phase_stride;
      for (int64_t x = 0; x < pitch; ++x) dp[x] = line[x * g.sw + p];
    }
  }
}

}  // namespace

DepthwisePlan plan_depthwise(const DepthwiseGeom& g, size_t max_slots) {
  DepthwisePlan plan;
  // Padded columns the outputs read: [0, (ow - 1) * sw + (kw - 1) * dw].
  const int64_t need_w = (g.ow - 1) * g.sw + (g.kw - 1) * g.dw + 1;
  plan.pitch = (need_w + g.sw - 1) / g.sw;
  const int64_t reach = (g.kh - 1) * g.dh + 1;  // input rows of one output row
  const int64_t row_floats = g.sw * plan.pitch;
  int64_t rows = 1;
  if (row_floats > 0 && kBandFloats / row_floats > reach) {
    rows = (kBandFloats / row_floats - reach) / g.sh + 1;
  }
  plan.band_rows = std::max<int64_t>(1, std::min(rows, g.oh));
  plan.num_bands = (g.oh + plan.band_rows - 1) / plan.band_rows;
  plan.in_rows = (plan.band_rows - 1) * g.sh + reach;
  const int64_t items = g.batch * g.channels * plan.num_bands;
  plan.slots = static_cast<size_t>(
      std::max<int64_t>(1, std::min<int64_t>(static_cast<int64_t>(max_slots), items)));
  // Padding can make rows huge: every product is checked (0 bytes: too large).
  size_t slot = 0, all = 0, taps = 0;
  if (__builtin_mul_overflow(static_cast<size_t>(plan.in_rows), static_cast<size_t>(row_floats),
                             &slot) ||
      __builtin_mul_overflow(slot, plan.slots, &all) || all > (SIZE_MAX >> 3) ||
      __builtin_mul_overflow(static_cast<size_t>(g.kh), static_cast<size_t>(g.kw), &taps) ||
      taps > (SIZE_MAX >> 4)) {
    return plan;
  }
  // Slots start on 64-byte boundaries.
  plan.slot_floats =
      round_up64((slot + static_cast<size_t>(row_floats)) * sizeof(float)) / sizeof(float);
  plan.scratch_bytes = plan.slot_floats * sizeof(float) * plan.slots + taps * sizeof(int64_t);
  return plan;
}

void depthwise_rows_generic(const float* in, int64_t in_stride, const int64_t* off, const float* w,
                            int64_t taps, float bias, float* out, int64_t out_stride, int64_t n,
                            int64_t rows) {
  for (int64_t r = 0; r < rows; ++r) {
    const float* row_in = in + r * in_stride;
    float* __restrict o = out + r * out_stride;
    for (int64_t x = 0; x < n; ++x) o[x] = bias;
    for (int64_t t = 0; t < taps; ++t) {
      const float* __restrict s = row_in + off[t];
      const float wt = w[t];
      for (int64_t x = 0; x < n; ++x) o[x] += wt * s[x];
    }
  }
}

void depthwise_conv(const DepthwiseGeom& g, const DepthwisePlan& plan, const float* in,
                    const float* weight, const float* bias, float* out, void* scratch,
                    ThreadPool* pool, bool use_avx2) {
  const int64_t taps = g.kh * g.kw;
  float* slots = static_cast<float*>(scratch);
  int64_t* off = reinterpret_cast<int64_t*>(slots + plan.slot_floats * plan.slots);
  const int64_t phase_stride = plan.in_rows * plan.pitch;
  for (int64_t ki = 0; ki < g.kh; ++ki) {
    for (int64_t kj = 0; kj < g.kw; ++kj) {
      const int64_t c = kj * g.dw;
      off[ki * g.kw + kj] = (c % g.sw) * phase_stride + ki * g.dh * plan.pitch + c / g.sw;
    }
  }
  const auto rows_fn = use_avx2 ? &depthwise_rows_avx2 : &depthwise_rows_generic;
  const int64_t items = g.batch * g.channels * plan.num_bands;
  const int64_t nslots = static_cast<int64_t>(plan.slots);
  const int64_t in_plane = g.h * g.w, out_plane = g.oh * g.ow;
  parallel_for(pool, plan.slots, 1, [&](size_t begin, size_t end) {
    for (int64_t s = static_cast<int64_t>(begin); s < static_cast<int64_t>(end); ++s) {
      float* buf = slots + static_cast<size_t>(s) * plan.slot_floats;
      float* line = buf + plan.in_rows * g.sw * plan.pitch;
      const int64_t first = items * s / nslots, last = items * (s + 1) / nslots;
      for (int64_t item = first; item < last; ++item) {
        const int64_t plane = item / plan.num_bands, band = item % plan.num_bands;
        const int64_t c = plane % g.channels;
        const int64_t r0 = band * plan.band_rows;
        const int64_t r1 = std::min(g.oh, r0 + plan.band_rows);
        const int64_t rows = (r1 - r0 - 1) * g.sh + (g.kh - 1) * g.dh + 1;
        fill_band(g, plan, in + plane * in_plane, r0 * g.sh, rows, buf, line, use_avx2);
        const float* w = weight + c * taps;
        const float b = bias == nullptr ? 0.0f : bias[c];
        float* o = out + plane * out_plane + r0 * g.ow;
        rows_fn(buf, g.sh * plan.pitch, off, w, taps, b, o, g.ow, g.ow, r1 - r0);
      }
    }
  });
}

}  // namespace opt
}  // namespace etr
