#include "backends/vulkan/vk_ops.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>

#include "backends/vulkan/spirv/batch_norm.h"
#include "backends/vulkan/spirv/binary.h"
#include "backends/vulkan/spirv/binary_fp16.h"
#include "backends/vulkan/spirv/cast.h"
#include "backends/vulkan/spirv/conv2d.h"
#include "backends/vulkan/spirv/conv2d_fp16.h"
#include "backends/vulkan/spirv/conv2d_oc4.h"
#include "backends/vulkan/spirv/conv2d_oc4_fp16.h"
#include "backends/vulkan/spirv/conv_transpose2d.h"
#include "backends/vulkan/spirv/copy_strided.h"
#include "backends/vulkan/spirv/copy_strided_fp16.h"
#include "backends/vulkan/spirv/embedding.h"
#include "backends/vulkan/spirv/embedding_q4gsw.h"
#include "backends/vulkan/spirv/group_norm.h"
#include "backends/vulkan/spirv/kv_update.h"
#include "backends/vulkan/spirv/layer_norm.h"
#include "backends/vulkan/spirv/linear_q4gsw.h"
#include "backends/vulkan/spirv/linear_q8ta_q8csw.h"
#include "backends/vulkan/spirv/matmul.h"
#include "backends/vulkan/spirv/matmul_fp16.h"
#include "backends/vulkan/spirv/pool2d.h"
#include "backends/vulkan/spirv/pool2d_fp16.h"
#include "backends/vulkan/spirv/q8ta_linear.h"
#include "backends/vulkan/spirv/quantize.h"
#include "backends/vulkan/spirv/reduce.h"
#include "backends/vulkan/spirv/reduce_fp16.h"
#include "backends/vulkan/spirv/rms_norm.h"
#include "backends/vulkan/spirv/rope.h"
#include "backends/vulkan/spirv/sdpa.h"
#include "backends/vulkan/spirv/softmax.h"
#include "backends/vulkan/spirv/unary.h"
#include "backends/vulkan/spirv/unary_fp16.h"
#include "backends/vulkan/spirv/upsample.h"
#include "backends/vulkan/spirv/where.h"
#include "backends/vulkan/vk_ops_llm.h"
#include "runtime/platform/log.h"

namespace etr {
namespace vulkan {
namespace {

const ShaderInfo kShaders[kNumShaders] = {
    {"binary", kSpirv_binary, kSpirv_binary_words, 3, 88, 64},
    {"unary", kSpirv_unary, kSpirv_unary_words, 2, 16, 64},
    {"matmul", kSpirv_matmul, kSpirv_matmul_words, 4, 56, 8},
    {"softmax", kSpirv_softmax, kSpirv_softmax_words, 2, 16, 64},
    {"copy_strided", kSpirv_copy_strided, kSpirv_copy_strided_words, 3, 100, 64},
    {"conv2d", kSpirv_conv2d, kSpirv_conv2d_words, 4, 76, 64},
    {"pool2d", kSpirv_pool2d, kSpirv_pool2d_words, 2, 64, 64},
    {"reduce", kSpirv_reduce, kSpirv_reduce_words, 2, 16, 64},
    {"layer_norm", kSpirv_layer_norm, kSpirv_layer_norm_words, 4, 20, 64},
    {"batch_norm", kSpirv_batch_norm, kSpirv_batch_norm_words, 6, 24, 64},
    {"upsample", kSpirv_upsample, kSpirv_upsample_words, 2, 36, 64},
    {"embedding", kSpirv_embedding, kSpirv_embedding_words, 3, 12, 64},
    {"cast", kSpirv_cast, kSpirv_cast_words, 2, 8, 64},
    {"conv_transpose2d", kSpirv_conv_transpose2d, kSpirv_conv_transpose2d_words, 4, 76, 64},
    {"linear_q4gsw", kSpirv_linear_q4gsw, kSpirv_linear_q4gsw_words, 5, 32, 64},
    {"rms_norm", kSpirv_rms_norm, kSpirv_rms_norm_words, 3, 12, 64},
    {"rope", kSpirv_rope, kSpirv_rope_words, 4, 16, 64},
    {"kv_update", kSpirv_kv_update, kSpirv_kv_update_words, 3, 20, 64},
    {"sdpa", kSpirv_sdpa, kSpirv_sdpa_words, 5, 32, 64},
    {"quantize", kSpirv_quantize, kSpirv_quantize_words, 2, 28, 64},
    {"q8ta_linear", kSpirv_q8ta_linear, kSpirv_q8ta_linear_words, 5, 36, 64},
    {"embedding_q4gsw", kSpirv_embedding_q4gsw, kSpirv_embedding_q4gsw_words, 4, 28, 64},
    {"group_norm", kSpirv_group_norm, kSpirv_group_norm_words, 4, 28, 64},
    {"conv2d_oc4", kSpirv_conv2d_oc4, kSpirv_conv2d_oc4_words, 4, 76, 64},
    {"where", kSpirv_where, kSpirv_where_words, 4, 104, 64},
    {"linear_q8ta_q8csw", kSpirv_linear_q8ta_q8csw, kSpirv_linear_q8ta_q8csw_words, 6, 24, 64},
};

// The float16-storage variants (same bindings, push constants and local
// size as the float32 shader).
struct Fp16Variant {
  Shader shader;
  const uint32_t* code;
  size_t words;
};
const Fp16Variant kFp16Variants[] = {
    {Shader::Binary, kSpirv_binary_fp16, kSpirv_binary_fp16_words},
    {Shader::Unary, kSpirv_unary_fp16, kSpirv_unary_fp16_words},
    {Shader::Matmul, kSpirv_matmul_fp16, kSpirv_matmul_fp16_words},
    {Shader::CopyStrided, kSpirv_copy_strided_fp16, kSpirv_copy_strided_fp16_words},
    {Shader::Conv2d, kSpirv_conv2d_fp16, kSpirv_conv2d_fp16_words},
    {Shader::Conv2dOc4, kSpirv_conv2d_oc4_fp16, kSpirv_conv2d_oc4_fp16_words},
    {Shader::Pool2d, kSpirv_pool2d_fp16, kSpirv_pool2d_fp16_words},
    {Shader::Reduce, kSpirv_reduce_fp16, kSpirv_reduce_fp16_words},
};

// What a descriptor needs to name the place of a refusal.
struct Ctx {
  const Graph& g;
  const Operator& op;
  const DispatchLimits& limits;
  std::vector<Step>* steps;
  std::vector<uint32_t>* alias;
  size_t d() const { return g.delegate_index; }
  const char* name() const { return op.name.c_str(); }
};

#define OP_FAIL(c, err, fmt, ...)                                                             \
  ETR_FAIL(err, "VulkanBackend: delegate %zu: operator %u (%s): " fmt, (c).d(), (c).op.index, \
           (c).name(), ##__VA_ARGS__)

Error expect_args(const Ctx& c, size_t n) {
  if (c.op.args.size() != n) {
    OP_FAIL(c, Error::InvalidProgram, "%zu arguments, expected %zu", c.op.args.size(), n);
  }
  return Error::Ok;
}

// Argument `a` as a tensor; `float_only` also requires float32.
Error tensor_arg(const Ctx& c, size_t a, const char* field, bool float_only,
                 const TensorInfo** out) {
  const uint32_t id = c.op.args[a];
  const Value& v = c.g.values[id];
  if (v.kind != Kind::Tensor) {
    OP_FAIL(c, Error::InvalidProgram, "argument %zu (%s): value %u is a %s, not a tensor", a, field,
            id, to_string(v.kind));
  }
  if (float_only && !is_float(v.tensor.device)) {
    OP_FAIL(c, Error::NotSupported, "argument %zu (%s): value %u is %s; only float runs here", a,
            field, id, to_string(v.tensor.dtype));
  }
  *out = &v.tensor;
  return Error::Ok;
}

// Argument `a` as a number (Int, Double, Bool); Null gives `fallback`.
Error scalar_arg(const Ctx& c, size_t a, const char* field, double fallback, double* out) {
  const Value& v = c.g.values[c.op.args[a]];
  switch (v.kind) {
    case Kind::Null: *out = fallback; return Error::Ok;
    case Kind::Int:
    case Kind::SymInt: *out = static_cast<double>(v.int_value); return Error::Ok;
    case Kind::Double: *out = v.double_value; return Error::Ok;
    case Kind::Bool: *out = v.bool_value ? 1.0 : 0.0; return Error::Ok;
    default: break;
  }
  OP_FAIL(c, Error::InvalidProgram, "argument %zu (%s): value %u is a %s, not a number", a, field,
          c.op.args[a], to_string(v.kind));
}

bool same_dims(const TensorInfo& a, const TensorInfo& b) {
  if (a.ndim != b.ndim) return false;
  for (uint32_t i = 0; i < a.ndim; ++i) {
    if (a.dims[i] != b.dims[i]) return false;
  }
  return true;
}

// Splits `n` workgroups over x and y so neither exceeds the device limit.
Error groups_1d(const Ctx& c, uint64_t invocations, uint32_t local, Step* s) {
  const uint64_t n = (invocations + local - 1) / local;
  const uint64_t max_x = c.limits.max_groups[0];
  const uint64_t x = n < max_x ? n : max_x;
  const uint64_t y = x == 0 ? 0 : (n + x - 1) / x;
  if (y > c.limits.max_groups[1]) {
    OP_FAIL(c, Error::NotSupported,
            "dispatch of %llu workgroups exceeds the device's limits (%u x %u)",
            static_cast<unsigned long long>(n), c.limits.max_groups[0], c.limits.max_groups[1]);
  }
  s->groups[0] = static_cast<uint32_t>(x == 0 ? 1 : x);
  s->groups[1] = static_cast<uint32_t>(y == 0 ? 1 : y);
  s->groups[2] = 1;
  return Error::Ok;
}

Step dispatch(const Ctx& c, Shader shader, uint32_t out, uint32_t in0, uint32_t in1 = kNoId,
              uint32_t in2 = kNoId) {
  Step s;
  s.kind = Step::Kind::Dispatch;
  s.shader = shader;
  s.op_index = c.op.index;
  s.buffers[0] = out;
  s.buffers[1] = in0;
  s.num_buffers = 2;
  if (in1 != kNoId) s.buffers[s.num_buffers++] = in1;
  if (in2 != kNoId) s.buffers[s.num_buffers++] = in2;
  return s;
}

uint32_t f2u(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}

// ---- elementwise binary ----------------------------------------------------

constexpr size_t kBinaryDims = 6;

// Element strides of `t` read as the output's dims (right-aligned; 0 where
// t broadcasts). False when t does not broadcast to `out`.
bool broadcast_strides(const TensorInfo& t, const TensorInfo& out, uint32_t* strides) {
  if (t.ndim > out.ndim) return false;
  uint32_t stride = 1;
  for (uint32_t i = 0; i < out.ndim; ++i) {
    const uint32_t od = out.ndim - 1 - i;
    if (i >= t.ndim) {
      strides[od] = 0;
      continue;
    }
    const uint32_t td = t.ndim - 1 - i;
    if (t.dims[td] == out.dims[od]) {
      strides[od] = t.dims[td] == 1 ? 0 : stride;
    } else if (t.dims[td] == 1) {
      strides[od] = 0;
    } else {
      return false;
    }
    stride *= t.dims[td];
  }
  return true;
}

// Whether `out` has exactly the broadcast shape of a and b.
bool is_broadcast_of(const TensorInfo& a, const TensorInfo& b, const TensorInfo& out) {
  const uint32_t n = a.ndim > b.ndim ? a.ndim : b.ndim;
  if (out.ndim != n) return false;
  for (uint32_t i = 0; i < n; ++i) {
    const uint32_t da = i < a.ndim ? a.dims[a.ndim - 1 - i] : 1;
    const uint32_t db = i < b.ndim ? b.dims[b.ndim - 1 - i] : 1;
    if (da != db && da != 1 && db != 1) return false;
    const uint32_t want = da == 1 ? db : da;
    if (out.dims[n - 1 - i] != want) return false;
  }
  return true;
}

// `opcode` selects binary.comp's operation.
Error plan_binary(const Ctx& c, uint32_t opcode, bool has_alpha) {
  ETR_RETURN_IF_ERROR(expect_args(c, has_alpha ? 4 : 3));
  const TensorInfo* a;
  const TensorInfo* b;
  const TensorInfo* out;
  ETR_RETURN_IF_ERROR(tensor_arg(c, 0, "self", true, &a));
  ETR_RETURN_IF_ERROR(tensor_arg(c, 1, "other", true, &b));
  ETR_RETURN_IF_ERROR(tensor_arg(c, c.op.args.size() - 1, "out", true, &out));
  if (opcode >= 7 && out->dtype != Dtype::Bool) {  // the comparisons
    OP_FAIL(c, Error::NotSupported, "the output is %s, not bool", to_string(out->dtype));
  }
  double alpha = 1.0;
  if (has_alpha) ETR_RETURN_IF_ERROR(scalar_arg(c, 2, "alpha", 1.0, &alpha));
  if (out->ndim > kBinaryDims) {
    OP_FAIL(c, Error::NotSupported, "output has %u dims (at most %zu here)", out->ndim,
            kBinaryDims);
  }
  Step s = dispatch(c, Shader::Binary, c.op.args.back(), c.op.args[0], c.op.args[1]);
  uint32_t* p = s.push;
  p[0] = static_cast<uint32_t>(out->numel);
  p[1] = out->ndim;
  p[2] = opcode;
  p[3] = f2u(static_cast<float>(alpha));
  for (uint32_t i = 0; i < out->ndim; ++i) p[4 + i] = out->dims[i];
  if (!broadcast_strides(*a, *out, p + 4 + kBinaryDims)) {
    OP_FAIL(c, Error::InvalidProgram, "argument 0 (self) does not broadcast to the output's shape");
  }
  if (!broadcast_strides(*b, *out, p + 4 + 2 * kBinaryDims)) {
    OP_FAIL(c, Error::InvalidProgram,
            "argument 1 (other) does not broadcast to the output's shape");
  }
  if (!is_broadcast_of(*a, *b, *out)) {
    OP_FAIL(c, Error::InvalidProgram, "output shape is not the broadcast of the inputs' shapes");
  }
  ETR_RETURN_IF_ERROR(groups_1d(c, out->numel, 64, &s));
  c.steps->push_back(s);
  return Error::Ok;
}

// ---- elementwise unary -----------------------------------------------------

enum UnaryOp : uint32_t {
  kRelu = 0,
  kClamp = 1,
  kSigmoid = 2,
  kTanh = 3,
  kSilu = 4,
  kGelu = 5,
  kGeluTanh = 6,
  kHardswish = 7,
  kHardsigmoid = 8,
  kAbs = 9,
  kNeg = 10,
  kExp = 11,
  kSqrt = 12,
  kRsqrt = 13,
  kEqScalar = 14,  // 14-19: eq, ne, lt, le, gt, ge with a scalar
  kLogicalNot = 20,
};

Error emit_unary(const Ctx& c, uint32_t opcode, float p0, float p1) {
  const TensorInfo* in;
  const TensorInfo* out;
  ETR_RETURN_IF_ERROR(tensor_arg(c, 0, "self", true, &in));
  ETR_RETURN_IF_ERROR(tensor_arg(c, c.op.args.size() - 1, "out", true, &out));
  if (!same_dims(*in, *out)) {
    OP_FAIL(c, Error::InvalidProgram, "output shape differs from the input's");
  }
  Step s = dispatch(c, Shader::Unary, c.op.args.back(), c.op.args[0]);
  s.push[0] = static_cast<uint32_t>(out->numel);
  s.push[1] = opcode;
  s.push[2] = f2u(p0);
  s.push[3] = f2u(p1);
  ETR_RETURN_IF_ERROR(groups_1d(c, out->numel, 64, &s));
  c.steps->push_back(s);
  return Error::Ok;
}

Error plan_unary(const Ctx& c, uint32_t opcode) {
  ETR_RETURN_IF_ERROR(expect_args(c, 2));
  return emit_unary(c, opcode, 0.0f, 0.0f);
}

// aten.{eq,ne,lt,le,gt,ge}.Scalar(self, other, out): out is bool (0.0 or
// 1.0 on the device).
Error plan_compare_scalar(const Ctx& c, uint32_t which) {
  ETR_RETURN_IF_ERROR(expect_args(c, 3));
  double other = 0.0;
  ETR_RETURN_IF_ERROR(scalar_arg(c, 1, "other", 0.0, &other));
  const TensorInfo* out;
  ETR_RETURN_IF_ERROR(tensor_arg(c, 2, "out", true, &out));
  if (out->dtype != Dtype::Bool) {
    OP_FAIL(c, Error::NotSupported, "argument 2 (out) is %s, not bool", to_string(out->dtype));
  }
  return emit_unary(c, kEqScalar + which, static_cast<float>(other), 0.0f);
}

// aten.logical_not.default(self, out): bool (or float: x == 0) to bool.
Error plan_logical_not(const Ctx& c) {
  ETR_RETURN_IF_ERROR(expect_args(c, 2));
  const TensorInfo* out;
  ETR_RETURN_IF_ERROR(tensor_arg(c, 1, "out", true, &out));
  if (out->dtype != Dtype::Bool) {
    OP_FAIL(c, Error::NotSupported, "argument 1 (out) is %s, not bool", to_string(out->dtype));
  }
  return emit_unary(c, kLogicalNot, 0.0f, 0.0f);
}

// aten.where.self(condition, self, other, out) with broadcasting.
Error plan_where(const Ctx& c) {
  ETR_RETURN_IF_ERROR(expect_args(c, 4));
  const TensorInfo *cond, *a, *b, *out;
  ETR_RETURN_IF_ERROR(tensor_arg(c, 0, "condition", true, &cond));
  ETR_RETURN_IF_ERROR(tensor_arg(c, 1, "self", true, &a));
  ETR_RETURN_IF_ERROR(tensor_arg(c, 2, "other", true, &b));
  ETR_RETURN_IF_ERROR(tensor_arg(c, 3, "out", true, &out));
  if (cond->dtype != Dtype::Bool) {
    OP_FAIL(c, Error::NotSupported, "argument 0 (condition) is %s, not bool",
            to_string(cond->dtype));
  }
  if (out->ndim > kBinaryDims) {
    OP_FAIL(c, Error::NotSupported, "output has %u dims (at most %zu here)", out->ndim,
            kBinaryDims);
  }
  Step s = dispatch(c, Shader::Where, c.op.args[3], c.op.args[0], c.op.args[1], c.op.args[2]);
  uint32_t* p = s.push;
  p[0] = static_cast<uint32_t>(out->numel);
  p[1] = out->ndim;
  for (uint32_t i = 0; i < out->ndim; ++i) p[2 + i] = out->dims[i];
  const TensorInfo* in[3] = {cond, a, b};
  const char* names[3] = {"condition", "self", "other"};
  uint32_t n = 0;
  for (int k = 0; k < 3; ++k) {
    if (!broadcast_strides(*in[k], *out, p + 2 + (k + 1) * kBinaryDims)) {
      OP_FAIL(c, Error::InvalidProgram, "argument %d (%s) does not broadcast to the output's shape",
              k, names[k]);
    }
    n = in[k]->ndim > n ? in[k]->ndim : n;
  }
  // The output is the broadcast of the three shapes: each dim is the
  // largest of the inputs' (each broadcasts to it, checked above).
  bool ok = out->ndim == n;
  for (uint32_t i = 0; ok && i < n; ++i) {
    uint32_t want = 1;
    for (int k = 0; k < 3; ++k) {
      const uint32_t nd = in[k]->ndim;
      const uint32_t dk = i < nd ? in[k]->dims[nd - 1 - i] : 1;
      want = dk > want ? dk : want;
    }
    ok = out->dims[n - 1 - i] == want;
  }
  if (!ok) OP_FAIL(c, Error::InvalidProgram, "output shape is not the broadcast of the inputs'");
  if (out->numel == 0) return Error::Ok;
  ETR_RETURN_IF_ERROR(groups_1d(c, out->numel, 64, &s));
  c.steps->push_back(s);
  return Error::Ok;
}

Error plan_hardtanh(const Ctx& c) {
  ETR_RETURN_IF_ERROR(expect_args(c, 4));
  double lo, hi;
  ETR_RETURN_IF_ERROR(scalar_arg(c, 1, "min_val", -1.0, &lo));
  ETR_RETURN_IF_ERROR(scalar_arg(c, 2, "max_val", 1.0, &hi));
  return emit_unary(c, kClamp, static_cast<float>(lo), static_cast<float>(hi));
}

Error plan_clamp(const Ctx& c) {
  ETR_RETURN_IF_ERROR(expect_args(c, 4));
  const double inf = std::numeric_limits<double>::infinity();
  double lo, hi;
  ETR_RETURN_IF_ERROR(scalar_arg(c, 1, "min", -inf, &lo));
  ETR_RETURN_IF_ERROR(scalar_arg(c, 2, "max", inf, &hi));
  return emit_unary(c, kClamp, static_cast<float>(lo), static_cast<float>(hi));
}

Error plan_gelu(const Ctx& c) {
  ETR_RETURN_IF_ERROR(expect_args(c, 3));
  const Value& v = c.g.values[c.op.args[1]];
  uint32_t opcode = kGelu;
  if (v.kind == Kind::String) {
    if (v.string == "tanh") {
      opcode = kGeluTanh;
    } else if (v.string != "none") {
      OP_FAIL(c, Error::InvalidProgram,
              "argument 1 (approximate): '%s' is neither 'none' nor 'tanh'", v.string.c_str());
    }
  } else if (v.kind != Kind::Null) {
    OP_FAIL(c, Error::InvalidProgram, "argument 1 (approximate): value %u is a %s, not a String",
            c.op.args[1], to_string(v.kind));
  }
  return emit_unary(c, opcode, 0.0f, 0.0f);
}

// ---- matrix products -------------------------------------------------------

struct MatmulParams {
  uint32_t M, N, K, batch;
  uint32_t a_batch, a_m, a_k, b_batch, b_k, b_n, c_m, c_n;
  bool has_bias;
  float alpha, beta;
};

Error emit_matmul(const Ctx& c, const MatmulParams& mp, const TensorInfo& out, uint32_t a,
                  uint32_t b, uint32_t bias) {
  if (out.numel != uint64_t{mp.M} * mp.N * mp.batch) {
    OP_FAIL(c, Error::InvalidProgram, "output has %llu elements, expected %u x %u x %u",
            static_cast<unsigned long long>(out.numel), mp.batch, mp.M, mp.N);
  }
  Step s = dispatch(c, Shader::Matmul, c.op.args.back(), a, b, mp.has_bias ? bias : a);
  const uint32_t v[14] = {mp.M,          mp.N,        mp.K,   mp.has_bias ? 1u : 0u,
                          mp.a_batch,    mp.a_m,      mp.a_k, mp.b_batch,
                          mp.b_k,        mp.b_n,      mp.c_m, mp.c_n,
                          f2u(mp.alpha), f2u(mp.beta)};
  std::memcpy(s.push, v, sizeof(v));
  s.groups[0] = (mp.N + 7) / 8;
  s.groups[1] = (mp.M + 7) / 8;
  s.groups[2] = mp.batch;
  for (int i = 0; i < 3; ++i) {
    if (s.groups[i] > c.limits.max_groups[i] || s.groups[i] == 0) {
      if (s.groups[i] == 0) {
        s.groups[i] = 1;
        continue;
      }
      OP_FAIL(c, Error::NotSupported,
              "dispatch of %u workgroups along axis %d exceeds the device's limit (%u)",
              s.groups[i], i, c.limits.max_groups[i]);
    }
  }
  if (mp.M == 0 || mp.N == 0 || mp.batch == 0) return Error::Ok;  // nothing to compute
  c.steps->push_back(s);
  return Error::Ok;
}

// Bias of an [M, N] product: 1-D [N], or 2-D [M|1, N|1]; sets its strides.
Error bias_strides(const Ctx& c, const TensorInfo& bias, uint32_t M, uint32_t N, MatmulParams* mp) {
  uint32_t bm = 1, bn = 1;
  if (bias.ndim == 1) {
    bn = bias.dims[0];
  } else if (bias.ndim == 2) {
    bm = bias.dims[0];
    bn = bias.dims[1];
  } else if (bias.ndim != 0) {
    OP_FAIL(c, Error::InvalidProgram, "bias has %u dims (0, 1 or 2 expected)", bias.ndim);
  }
  if ((bm != 1 && bm != M) || (bn != 1 && bn != N)) {
    OP_FAIL(c, Error::InvalidProgram, "bias [%u, %u] does not broadcast to [%u, %u]", bm, bn, M, N);
  }
  mp->c_n = bn == 1 ? 0 : 1;
  mp->c_m = bm == 1 ? 0 : bn;
  mp->has_bias = true;
  return Error::Ok;
}

// aten.linear.default(input [..., K], weight [N, K], bias [N]?, out [..., N])
Error plan_linear(const Ctx& c) {
  ETR_RETURN_IF_ERROR(expect_args(c, 4));
  const TensorInfo *in, *w, *out;
  ETR_RETURN_IF_ERROR(tensor_arg(c, 0, "input", true, &in));
  ETR_RETURN_IF_ERROR(tensor_arg(c, 1, "weight", true, &w));
  ETR_RETURN_IF_ERROR(tensor_arg(c, 3, "out", true, &out));
  if (in->ndim < 1 || w->ndim != 2 || w->dims[1] != in->dims[in->ndim - 1]) {
    OP_FAIL(c, Error::InvalidProgram, "weight must be [N, K] with K the input's last dim");
  }
  MatmulParams mp = {};
  mp.K = w->dims[1];
  mp.N = w->dims[0];
  mp.M = mp.K == 0 ? 0 : static_cast<uint32_t>(in->numel / mp.K);
  mp.batch = 1;
  mp.a_m = mp.K;
  mp.a_k = 1;
  mp.b_k = 1;
  mp.b_n = mp.K;
  mp.alpha = 1.0f;
  mp.beta = 1.0f;
  if (out->ndim != in->ndim || out->dims[out->ndim - 1] != mp.N) {
    OP_FAIL(c, Error::InvalidProgram, "output must be the input's shape with last dim %u", mp.N);
  }
  uint32_t bias_id = kNoId;
  if (c.g.values[c.op.args[2]].kind != Kind::Null) {
    const TensorInfo* bias;
    ETR_RETURN_IF_ERROR(tensor_arg(c, 2, "bias", true, &bias));
    ETR_RETURN_IF_ERROR(bias_strides(c, *bias, mp.M, mp.N, &mp));
    bias_id = c.op.args[2];
  }
  return emit_matmul(c, mp, *out, c.op.args[0], c.op.args[1], bias_id);
}

// aten.mm.default(self [M, K], mat2 [K, N], out) and
// aten.addmm.default(bias, mat1, mat2, beta, alpha, out)
Error plan_mm(const Ctx& c, bool addmm) {
  ETR_RETURN_IF_ERROR(expect_args(c, addmm ? 6 : 3));
  const size_t ia = addmm ? 1 : 0;
  const TensorInfo *a, *b, *out;
  ETR_RETURN_IF_ERROR(tensor_arg(c, ia, "mat1", true, &a));
  ETR_RETURN_IF_ERROR(tensor_arg(c, ia + 1, "mat2", true, &b));
  ETR_RETURN_IF_ERROR(tensor_arg(c, c.op.args.size() - 1, "out", true, &out));
  if (a->ndim != 2 || b->ndim != 2 || a->dims[1] != b->dims[0] || out->ndim != 2 ||
      out->dims[0] != a->dims[0] || out->dims[1] != b->dims[1]) {
    OP_FAIL(c, Error::InvalidProgram, "shapes disagree: [M, K] @ [K, N] -> [M, N] expected");
  }
  MatmulParams mp = {};
  mp.M = a->dims[0];
  mp.K = a->dims[1];
  mp.N = b->dims[1];
  mp.batch = 1;
  mp.a_m = mp.K;
  mp.a_k = 1;
  mp.b_k = mp.N;
  mp.b_n = 1;
  mp.alpha = 1.0f;
  mp.beta = 1.0f;
  uint32_t bias_id = kNoId;
  if (addmm) {
    const TensorInfo* bias;
    ETR_RETURN_IF_ERROR(tensor_arg(c, 0, "self", true, &bias));
    ETR_RETURN_IF_ERROR(bias_strides(c, *bias, mp.M, mp.N, &mp));
    double beta, alpha;
    ETR_RETURN_IF_ERROR(scalar_arg(c, 3, "beta", 1.0, &beta));
    ETR_RETURN_IF_ERROR(scalar_arg(c, 4, "alpha", 1.0, &alpha));
    mp.beta = static_cast<float>(beta);
    mp.alpha = static_cast<float>(alpha);
    bias_id = c.op.args[0];
  }
  return emit_matmul(c, mp, *out, c.op.args[ia], c.op.args[ia + 1], bias_id);
}

// aten.bmm.default(self [B, M, K], mat2 [B, K, N], out [B, M, N])
Error plan_bmm(const Ctx& c) {
  ETR_RETURN_IF_ERROR(expect_args(c, 3));
  const TensorInfo *a, *b, *out;
  ETR_RETURN_IF_ERROR(tensor_arg(c, 0, "self", true, &a));
  ETR_RETURN_IF_ERROR(tensor_arg(c, 1, "mat2", true, &b));
  ETR_RETURN_IF_ERROR(tensor_arg(c, 2, "out", true, &out));
  if (a->ndim != 3 || b->ndim != 3 || a->dims[0] != b->dims[0] || a->dims[2] != b->dims[1] ||
      out->ndim != 3 || out->dims[0] != a->dims[0] || out->dims[1] != a->dims[1] ||
      out->dims[2] != b->dims[2]) {
    OP_FAIL(c, Error::InvalidProgram,
            "shapes disagree: [B, M, K] @ [B, K, N] -> [B, M, N] expected");
  }
  MatmulParams mp = {};
  mp.batch = a->dims[0];
  mp.M = a->dims[1];
  mp.K = a->dims[2];
  mp.N = b->dims[2];
  mp.a_batch = mp.M * mp.K;
  mp.a_m = mp.K;
  mp.a_k = 1;
  mp.b_batch = mp.K * mp.N;
  mp.b_k = mp.N;
  mp.b_n = 1;
  mp.alpha = 1.0f;
  mp.beta = 1.0f;
  return emit_matmul(c, mp, *out, c.op.args[0], c.op.args[1], kNoId);
}

// ---- softmax ---------------------------------------------------------------

// aten._softmax.default / aten._log_softmax.default(self, dim, half_to_float, out)
Error plan_softmax(const Ctx& c, bool log) {
  ETR_RETURN_IF_ERROR(expect_args(c, 4));
  const TensorInfo *in, *out;
  ETR_RETURN_IF_ERROR(tensor_arg(c, 0, "self", true, &in));
  ETR_RETURN_IF_ERROR(tensor_arg(c, 3, "out", true, &out));
  if (!same_dims(*in, *out)) {
    OP_FAIL(c, Error::InvalidProgram, "output shape differs from the input's");
  }
  const Value& dv = c.g.values[c.op.args[1]];
  if (dv.kind != Kind::Int) {
    OP_FAIL(c, Error::InvalidProgram, "argument 1 (dim): value %u is a %s, not an Int",
            c.op.args[1], to_string(dv.kind));
  }
  const int64_t nd = in->ndim == 0 ? 1 : in->ndim;
  int64_t dim = dv.int_value < 0 ? dv.int_value + nd : dv.int_value;
  if (dim < 0 || dim >= nd) {
    OP_FAIL(c, Error::InvalidProgram, "argument 1 (dim): %lld out of range for %u dims",
            static_cast<long long>(dv.int_value), in->ndim);
  }
  uint64_t outer = 1, inner = 1;
  const uint32_t size = in->ndim == 0 ? 1 : in->dims[dim];
  for (int64_t i = 0; i < dim; ++i) outer *= in->dims[i];
  for (int64_t i = dim + 1; i < static_cast<int64_t>(in->ndim); ++i) inner *= in->dims[i];
  Step s = dispatch(c, Shader::Softmax, c.op.args[3], c.op.args[0]);
  s.push[0] = static_cast<uint32_t>(outer);
  s.push[1] = size;
  s.push[2] = static_cast<uint32_t>(inner);
  s.push[3] = log ? 1u : 0u;
  if (in->numel == 0) return Error::Ok;
  ETR_RETURN_IF_ERROR(groups_1d(c, outer * inner, 64, &s));
  c.steps->push_back(s);
  return Error::Ok;
}

// ---- data movement ---------------------------------------------------------

// Operators whose output holds the input's bytes unchanged (same element
// count and dtype): views and copies of a contiguous buffer.
Error plan_byte_copy(const Ctx& c) {
  const TensorInfo *in, *out;
  ETR_RETURN_IF_ERROR(tensor_arg(c, 0, "self", false, &in));
  ETR_RETURN_IF_ERROR(tensor_arg(c, c.op.args.size() - 1, "out", false, &out));
  if (in->numel != out->numel || in->device != out->device) {
    OP_FAIL(c, Error::InvalidProgram,
            "output (%s, %llu elements) does not hold the input's data (%s, %llu elements)",
            to_string(out->dtype), static_cast<unsigned long long>(out->numel),
            to_string(in->dtype), static_cast<unsigned long long>(in->numel));
  }
  Step s;
  s.kind = Step::Kind::Copy;
  s.op_index = c.op.index;
  s.buffers[0] = c.op.args.back();
  s.buffers[1] = c.op.args[0];
  s.num_buffers = 2;
  s.copy_bytes = in->device_nbytes();
  if (s.copy_bytes > 0) c.steps->push_back(s);
  return Error::Ok;
}

// et_vk.prepack.default(constant, out): the output is the constant itself
// (uploaded once at init), so no step runs.
Error plan_prepack(const Ctx& c) {
  ETR_RETURN_IF_ERROR(expect_args(c, 2));
  const TensorInfo *in, *out;
  ETR_RETURN_IF_ERROR(tensor_arg(c, 0, "self", false, &in));
  ETR_RETURN_IF_ERROR(tensor_arg(c, 1, "out", false, &out));
  if (in->constant_id < 0) return plan_byte_copy(c);
  if (in->numel != out->numel || in->device != out->device) {
    OP_FAIL(c, Error::InvalidProgram, "output does not match the constant's dtype and size");
  }
  if (out->constant_id >= 0) {
    OP_FAIL(c, Error::InvalidProgram, "output value %u is itself a constant", c.op.args[1]);
  }
  (*c.alias)[c.op.args[1]] = c.op.args[0];
  return Error::Ok;
}

constexpr uint32_t kViewDims = 6;

// Contiguous element strides of t.
void contiguous_strides(const TensorInfo& t, uint32_t* strides) {
  uint32_t stride = 1;
  for (uint32_t i = t.ndim; i-- > 0;) {
    strides[i] = stride;
    stride *= t.dims[i];
  }
}

// A position read on the device: element `index` of the int32 tensor
// `tensor`, clamped to [0, max], in units of `stride` elements; tensor
// kNoId: none.
struct DevicePos {
  uint32_t tensor = kNoId;
  uint32_t index = 0xFFFFFFFFu;
  uint32_t stride = 0;
  uint32_t max = 0;
};

// One copy_strided dispatch over a view of `ndim` dims.
Error emit_strided(const Ctx& c, uint32_t out_id, uint32_t in_id, uint32_t ndim,
                   const uint32_t* dims, const uint32_t* in_strides, const uint32_t* out_strides,
                   uint32_t in_offset, uint32_t out_offset, const DevicePos& pos = DevicePos()) {
  if (ndim > kViewDims) {
    OP_FAIL(c, Error::NotSupported, "%u dims (at most %u here)", ndim, kViewDims);
  }
  uint64_t numel = 1;
  for (uint32_t i = 0; i < ndim; ++i) numel *= dims[i];
  if (numel == 0) return Error::Ok;
  // Without a device position the input is bound again in its place, unread.
  Step s =
      dispatch(c, Shader::CopyStrided, out_id, in_id, pos.tensor == kNoId ? in_id : pos.tensor);
  s.push[0] = static_cast<uint32_t>(numel);
  s.push[1] = ndim;
  s.push[2] = in_offset;
  s.push[3] = out_offset;
  for (uint32_t i = 0; i < ndim; ++i) {
    s.push[4 + i] = dims[i];
    s.push[4 + kViewDims + i] = in_strides[i];
    s.push[4 + 2 * kViewDims + i] = out_strides[i];
  }
  s.push[4 + 3 * kViewDims] = pos.tensor == kNoId ? 0xFFFFFFFFu : pos.index;
  s.push[5 + 3 * kViewDims] = pos.stride;
  s.push[6 + 3 * kViewDims] = pos.max;
  ETR_RETURN_IF_ERROR(groups_1d(c, numel, 64, &s));
  c.steps->push_back(s);
  return Error::Ok;
}

Error copyable(const Ctx& c, const TensorInfo& in, const TensorInfo& out) {
  if ((element_size(in.device) != 4 && in.device != Dtype::Float16) || in.device != out.device) {
    OP_FAIL(c, Error::NotSupported,
            "only 32-bit or float16 elements of one dtype are copied here (%s, %s)",
            to_string(in.dtype), to_string(out.dtype));
  }
  return Error::Ok;
}

// A dim argument (Int) normalized against `ndim` dims.
Error dim_arg(const Ctx& c, size_t a, uint32_t ndim, uint32_t* out) {
  const Value& v = c.g.values[c.op.args[a]];
  if (v.kind != Kind::Int) {
    OP_FAIL(c, Error::InvalidProgram, "argument %zu (dim): value %u is a %s, not an Int", a,
            c.op.args[a], to_string(v.kind));
  }
  const int64_t d = v.int_value < 0 ? v.int_value + ndim : v.int_value;
  if (d < 0 || d >= static_cast<int64_t>(ndim)) {
    OP_FAIL(c, Error::InvalidProgram, "argument %zu (dim): %lld out of range for %u dims", a,
            static_cast<long long>(v.int_value), ndim);
  }
  *out = static_cast<uint32_t>(d);
  return Error::Ok;
}

// aten.permute_copy.default(self, dims, out)
Error plan_permute(const Ctx& c) {
  ETR_RETURN_IF_ERROR(expect_args(c, 3));
  const TensorInfo *in, *out;
  ETR_RETURN_IF_ERROR(tensor_arg(c, 0, "self", false, &in));
  ETR_RETURN_IF_ERROR(tensor_arg(c, 2, "out", false, &out));
  ETR_RETURN_IF_ERROR(copyable(c, *in, *out));
  const Value& dv = c.g.values[c.op.args[1]];
  if (dv.kind != Kind::IntList || dv.ints.size() != in->ndim || out->ndim != in->ndim) {
    OP_FAIL(c, Error::InvalidProgram, "argument 1 (dims) must list each of the %u dims", in->ndim);
  }
  uint32_t in_strides[kMaxDims], view_in[kMaxDims], out_strides[kMaxDims];
  contiguous_strides(*in, in_strides);
  contiguous_strides(*out, out_strides);
  bool seen[kMaxDims] = {};
  for (uint32_t i = 0; i < in->ndim; ++i) {
    int64_t p = dv.ints[i];
    if (p < 0) p += in->ndim;
    if (p < 0 || p >= static_cast<int64_t>(in->ndim) || seen[p]) {
      OP_FAIL(c, Error::InvalidProgram, "argument 1 (dims): entry %u (%lld) is not a permutation",
              i, static_cast<long long>(dv.ints[i]));
    }
    seen[p] = true;
    if (out->dims[i] != in->dims[p]) {
      OP_FAIL(c, Error::InvalidProgram, "output dim %u is %u, the permuted input has %u", i,
              out->dims[i], in->dims[p]);
    }
    view_in[i] = in_strides[p];
  }
  return emit_strided(c, c.op.args[2], c.op.args[0], out->ndim, out->dims, view_in, out_strides, 0,
                      0);
}

// slice_copy whose start is a position held on the device (the SymInt of an
// et_vk.select_as_symint, element `element` of `pos`) and whose end is that
// start plus a length known here (the exporter's `add` of the two, as in the
// LLM's rotary table slice freqs[input_pos : input_pos + seq_len]). The
// shader reads the start, clamped so that the slice stays inside; execute
// checks the start first when `pos` is a graph input.
Error plan_slice_at_device_pos(const Ctx& c, const TensorInfo& in, const TensorInfo& out,
                               uint32_t dim, uint32_t pos, uint32_t element) {
  const uint32_t start_id = c.op.args[2], end_id = c.op.args[3];
  const Value* length = nullptr;
  for (const Operator& o : c.g.ops) {
    if (o.index >= c.op.index) break;
    if (o.name != "add" || o.args.size() != 3 || o.args[2] != end_id) continue;
    if (o.args[0] == start_id) length = &c.g.values[o.args[1]];
    if (o.args[1] == start_id) length = &c.g.values[o.args[0]];
  }
  if (length == nullptr || (length->kind != Kind::Int && length->kind != Kind::SymInt)) {
    OP_FAIL(c, Error::NotSupported,
            "argument 3 (end): with a start held on the device, the end must be an earlier "
            "add of that start and a length");
  }
  const Value& step = c.g.values[c.op.args[4]];
  if (step.kind != Kind::Null && !(step.kind == Kind::Int && step.int_value == 1)) {
    OP_FAIL(c, Error::NotSupported, "argument 4 (step): must be 1 with a start held on the device");
  }
  const int64_t size = in.dims[dim];
  const int64_t len = length->int_value < 0 ? 0 : std::min<int64_t>(length->int_value, size);
  bool ok = out.ndim == in.ndim;
  for (uint32_t i = 0; ok && i < in.ndim; ++i) {
    ok = out.dims[i] == (i == dim ? static_cast<uint32_t>(len) : in.dims[i]);
  }
  if (!ok) OP_FAIL(c, Error::InvalidProgram, "output shape disagrees with the slice");
  Step check;
  check.kind = Step::Kind::CheckInput;
  check.op_index = c.op.index;
  check.buffers[0] = pos;
  check.num_buffers = 1;
  check.push[0] = element;
  check.push[1] = 0;
  check.push[2] = static_cast<uint32_t>(size - len);
  c.steps->push_back(check);
  uint32_t in_strides[kMaxDims], out_strides[kMaxDims];
  contiguous_strides(in, in_strides);
  contiguous_strides(out, out_strides);
  DevicePos dp;
  dp.tensor = pos;
  dp.index = element;
  dp.stride = in_strides[dim];
  dp.max = static_cast<uint32_t>(size - len);
  return emit_strided(c, c.op.args[5], c.op.args[0], out.ndim, out.dims, in_strides, out_strides, 0,
                      0, dp);
}

// aten.slice_copy.Tensor(self, dim, start, end, step, out)
Error plan_slice(const Ctx& c) {
  ETR_RETURN_IF_ERROR(expect_args(c, 6));
  const TensorInfo *in, *out;
  ETR_RETURN_IF_ERROR(tensor_arg(c, 0, "self", false, &in));
  ETR_RETURN_IF_ERROR(tensor_arg(c, 5, "out", false, &out));
  ETR_RETURN_IF_ERROR(copyable(c, *in, *out));
  uint32_t dim;
  ETR_RETURN_IF_ERROR(dim_arg(c, 1, in->ndim, &dim));
  if (c.g.values[c.op.args[2]].kind == Kind::SymInt) {
    bool on_device = false;
    uint32_t pos = 0, element = 0;
    ETR_RETURN_IF_ERROR(device_symint(c.g, c.op, c.op.args[2], &on_device, &pos, &element));
    if (on_device) return plan_slice_at_device_pos(c, *in, *out, dim, pos, element);
  }
  const int64_t size = in->dims[dim];
  double start_d, end_d, step_d;
  ETR_RETURN_IF_ERROR(scalar_arg(c, 2, "start", 0.0, &start_d));
  ETR_RETURN_IF_ERROR(scalar_arg(c, 3, "end", static_cast<double>(size), &end_d));
  ETR_RETURN_IF_ERROR(scalar_arg(c, 4, "step", 1.0, &step_d));
  if (step_d < 1.0 || step_d > 1e9) OP_FAIL(c, Error::InvalidProgram, "step %g", step_d);
  auto clampi = [&](double v) {
    int64_t i = v > 9e18 ? size : (v < -9e18 ? 0 : static_cast<int64_t>(v));
    if (i < 0) i += size;
    return i < 0 ? 0 : (i > size ? size : i);
  };
  const int64_t start = clampi(start_d), end = clampi(end_d);
  const int64_t step = static_cast<int64_t>(step_d);
  const int64_t len = end > start ? (end - start + step - 1) / step : 0;
  bool ok = out->ndim == in->ndim;
  for (uint32_t i = 0; ok && i < in->ndim; ++i) {
    ok = out->dims[i] == (i == dim ? static_cast<uint32_t>(len) : in->dims[i]);
  }
  if (!ok) OP_FAIL(c, Error::InvalidProgram, "output shape disagrees with the slice");
  uint32_t in_strides[kMaxDims], out_strides[kMaxDims];
  contiguous_strides(*in, in_strides);
  contiguous_strides(*out, out_strides);
  const uint32_t offset = static_cast<uint32_t>(start) * in_strides[dim];
  in_strides[dim] *= static_cast<uint32_t>(step);
  return emit_strided(c, c.op.args[5], c.op.args[0], out->ndim, out->dims, in_strides, out_strides,
                      offset, 0);
}

// aten.select_copy.int(self, dim, index, out)
Error plan_select(const Ctx& c) {
  ETR_RETURN_IF_ERROR(expect_args(c, 4));
  const TensorInfo *in, *out;
  ETR_RETURN_IF_ERROR(tensor_arg(c, 0, "self", false, &in));
  ETR_RETURN_IF_ERROR(tensor_arg(c, 3, "out", false, &out));
  ETR_RETURN_IF_ERROR(copyable(c, *in, *out));
  uint32_t dim;
  ETR_RETURN_IF_ERROR(dim_arg(c, 1, in->ndim, &dim));
  const Value& iv = c.g.values[c.op.args[2]];
  int64_t index = iv.kind == Kind::Int ? iv.int_value : -1 - static_cast<int64_t>(in->dims[dim]);
  if (index < 0) index += in->dims[dim];
  if (index < 0 || index >= in->dims[dim]) {
    OP_FAIL(c, Error::InvalidProgram, "argument 2 (index) out of range for size %u", in->dims[dim]);
  }
  uint32_t in_strides[kMaxDims], view_in[kMaxDims], out_strides[kMaxDims];
  contiguous_strides(*in, in_strides);
  contiguous_strides(*out, out_strides);
  bool ok = out->ndim + 1 == in->ndim;
  for (uint32_t i = 0, j = 0; ok && i < in->ndim; ++i) {
    if (i == dim) continue;
    ok = out->dims[j] == in->dims[i];
    view_in[j++] = in_strides[i];
  }
  if (!ok) OP_FAIL(c, Error::InvalidProgram, "output shape disagrees with the selection");
  return emit_strided(c, c.op.args[3], c.op.args[0], out->ndim, out->dims, view_in, out_strides,
                      static_cast<uint32_t>(index) * in_strides[dim], 0);
}

// aten.cat.default(tensors, dim, out): one strided copy per input.
Error plan_cat(const Ctx& c) {
  ETR_RETURN_IF_ERROR(expect_args(c, 3));
  const TensorInfo* out;
  ETR_RETURN_IF_ERROR(tensor_arg(c, 2, "out", false, &out));
  const Value& list = c.g.values[c.op.args[0]];
  if (list.kind != Kind::ValueList || list.values.empty()) {
    OP_FAIL(c, Error::InvalidProgram, "argument 0 (tensors) is not a non-empty ValueList");
  }
  uint32_t dim;
  ETR_RETURN_IF_ERROR(dim_arg(c, 1, out->ndim, &dim));
  uint32_t out_strides[kMaxDims];
  contiguous_strides(*out, out_strides);
  uint64_t offset = 0;
  for (size_t k = 0; k < list.values.size(); ++k) {
    const uint32_t id = list.values[k];
    const Value& v = c.g.values[id];
    if (v.kind != Kind::Tensor) {
      OP_FAIL(c, Error::InvalidProgram, "tensors[%zu] (value %u) is a %s", k, id,
              to_string(v.kind));
    }
    const TensorInfo& in = v.tensor;
    ETR_RETURN_IF_ERROR(copyable(c, in, *out));
    if (in.ndim == 1 && in.dims[0] == 0) continue;  // PyTorch skips empty 1-D inputs
    bool ok = in.ndim == out->ndim;
    for (uint32_t i = 0; ok && i < in.ndim; ++i) ok = i == dim || in.dims[i] == out->dims[i];
    if (!ok) OP_FAIL(c, Error::InvalidProgram, "tensors[%zu] does not fit the output", k);
    uint32_t in_strides[kMaxDims];
    contiguous_strides(in, in_strides);
    ETR_RETURN_IF_ERROR(emit_strided(c, c.op.args[2], id, in.ndim, in.dims, in_strides, out_strides,
                                     0, static_cast<uint32_t>(offset * out_strides[dim])));
    offset += in.dims[dim];
  }
  if (offset != out->dims[dim]) {
    OP_FAIL(c, Error::InvalidProgram, "inputs add up to %llu along dim %u, the output has %u",
            static_cast<unsigned long long>(offset), dim, out->dims[dim]);
  }
  return Error::Ok;
}

// aten.split_with_sizes_copy.default(self, split_sizes, dim, out: list):
// output k is the next split_sizes[k] entries along dim.
Error plan_split(const Ctx& c) {
  ETR_RETURN_IF_ERROR(expect_args(c, 4));
  const TensorInfo* in;
  ETR_RETURN_IF_ERROR(tensor_arg(c, 0, "self", false, &in));
  uint32_t dim;
  ETR_RETURN_IF_ERROR(dim_arg(c, 2, in->ndim, &dim));
  const Value& sizes = c.g.values[c.op.args[1]];
  const Value& list = c.g.values[c.op.args[3]];
  if (sizes.kind != Kind::IntList || list.kind != Kind::ValueList ||
      sizes.ints.size() != list.values.size()) {
    OP_FAIL(c, Error::InvalidProgram, "split_sizes and the output list must have one entry each");
  }
  uint32_t in_strides[kMaxDims];
  contiguous_strides(*in, in_strides);
  uint64_t offset = 0;
  for (size_t k = 0; k < list.values.size(); ++k) {
    const uint32_t id = list.values[k];
    const Value& v = c.g.values[id];
    if (v.kind != Kind::Tensor || v.tensor.constant_id >= 0) {
      OP_FAIL(c, Error::InvalidProgram, "out[%zu] (value %u) is not a computed tensor", k, id);
    }
    const TensorInfo& out = v.tensor;
    ETR_RETURN_IF_ERROR(copyable(c, *in, out));
    bool ok = out.ndim == in->ndim && sizes.ints[k] >= 0 &&
              static_cast<uint64_t>(sizes.ints[k]) == out.dims[dim];
    for (uint32_t i = 0; ok && i < in->ndim; ++i) ok = i == dim || out.dims[i] == in->dims[i];
    if (!ok) OP_FAIL(c, Error::InvalidProgram, "out[%zu] does not match split_sizes[%zu]", k, k);
    uint32_t out_strides[kMaxDims];
    contiguous_strides(out, out_strides);
    ETR_RETURN_IF_ERROR(emit_strided(c, id, c.op.args[0], out.ndim, out.dims, in_strides,
                                     out_strides, static_cast<uint32_t>(offset * in_strides[dim]),
                                     0));
    offset += out.dims[dim];
  }
  if (offset != in->dims[dim]) {
    OP_FAIL(c, Error::InvalidProgram, "split_sizes add up to %llu, the input has %u along dim %u",
            static_cast<unsigned long long>(offset), in->dims[dim], dim);
  }
  return Error::Ok;
}

// aten.expand_copy.default(self, size, implicit, out)
Error plan_expand(const Ctx& c) {
  ETR_RETURN_IF_ERROR(expect_args(c, 4));
  const TensorInfo *in, *out;
  ETR_RETURN_IF_ERROR(tensor_arg(c, 0, "self", false, &in));
  ETR_RETURN_IF_ERROR(tensor_arg(c, 3, "out", false, &out));
  ETR_RETURN_IF_ERROR(copyable(c, *in, *out));
  uint32_t strides[kMaxDims], out_strides[kMaxDims];
  if (!broadcast_strides(*in, *out, strides)) {
    OP_FAIL(c, Error::InvalidProgram, "the input does not broadcast to the output's shape");
  }
  contiguous_strides(*out, out_strides);
  return emit_strided(c, c.op.args[3], c.op.args[0], out->ndim, out->dims, strides, out_strides, 0,
                      0);
}

// Extra outputs of a multi-output operator that are not computed (pool
// indices, layer norm's mean and rstd): nothing may read them.
Error unused_output(const Ctx& c, uint32_t id, const char* what) {
  for (const Operator& other : c.g.ops) {
    if (other.index == c.op.index) continue;
    for (uint32_t a : other.args) {
      if (a == id) {
        OP_FAIL(c, Error::NotSupported, "the %s (value %u) are read by operator %u", what, id,
                other.index);
      }
    }
  }
  for (uint32_t o : c.g.outputs) {
    if (o == id)
      OP_FAIL(c, Error::NotSupported, "the %s (value %u) are a delegate output", what, id);
  }
  return Error::Ok;
}

// A normalization's output argument `arg`: the list [out, <stat1>, <stat2>]
// with the two statistics unused (they are not computed; `names` is how the
// message lists them, `stat1`/`stat2` how each is named) and out a float32
// tensor of the input's shape; its value id goes to *out_id.
Error norm_output(const Ctx& c, size_t arg, const TensorInfo& in, uint32_t* out_id,
                  const char* names = "[out, mean, rstd]", const char* stat1 = "mean",
                  const char* stat2 = "rstd") {
  const Value& list = c.g.values[c.op.args[arg]];
  if (list.kind != Kind::ValueList || list.values.size() != 3) {
    OP_FAIL(c, Error::InvalidProgram, "output %u is not a list of %s", c.op.args[arg], names);
  }
  ETR_RETURN_IF_ERROR(unused_output(c, list.values[1], stat1));
  ETR_RETURN_IF_ERROR(unused_output(c, list.values[2], stat2));
  const Value& ov = c.g.values[list.values[0]];
  if (ov.kind != Kind::Tensor || ov.tensor.device != in.device || ov.tensor.constant_id >= 0 ||
      !same_dims(ov.tensor, in)) {
    OP_FAIL(c, Error::InvalidProgram,
            "output value %u is not a float tensor of the input's shape and dtype", list.values[0]);
  }
  *out_id = list.values[0];
  return Error::Ok;
}

// aten.native_layer_norm.default(input, normalized_shape, weight, bias, eps,
// out: [out, mean, rstd]); mean and rstd are not computed.
Error plan_layer_norm(const Ctx& c) {
  ETR_RETURN_IF_ERROR(expect_args(c, 6));
  const TensorInfo* in;
  ETR_RETURN_IF_ERROR(tensor_arg(c, 0, "input", true, &in));
  uint32_t out_id = 0;
  ETR_RETURN_IF_ERROR(norm_output(c, 5, *in, &out_id));
  const Value& ns = c.g.values[c.op.args[1]];
  if (ns.kind != Kind::IntList || ns.ints.empty() || ns.ints.size() > in->ndim) {
    OP_FAIL(c, Error::InvalidProgram, "argument 1 (normalized_shape) is not a list of 1..%u dims",
            in->ndim);
  }
  uint64_t size = 1;
  for (size_t i = 0; i < ns.ints.size(); ++i) {
    const uint32_t d = in->dims[in->ndim - ns.ints.size() + i];
    if (ns.ints[i] != d) {
      OP_FAIL(c, Error::InvalidProgram, "normalized_shape[%zu] is %lld, the input has %u", i,
              static_cast<long long>(ns.ints[i]), d);
    }
    size *= d;
  }
  uint32_t ids[2] = {kNoId, kNoId};
  for (int k = 0; k < 2; ++k) {
    const size_t a = 2 + static_cast<size_t>(k);
    if (c.g.values[c.op.args[a]].kind == Kind::Null) continue;
    const TensorInfo* t;
    ETR_RETURN_IF_ERROR(tensor_arg(c, a, k == 0 ? "weight" : "bias", true, &t));
    if (t->numel != size) {
      OP_FAIL(c, Error::InvalidProgram, "%s has %llu elements, expected %llu",
              k == 0 ? "weight" : "bias", static_cast<unsigned long long>(t->numel),
              static_cast<unsigned long long>(size));
    }
    ids[k] = c.op.args[a];
  }
  double eps;
  ETR_RETURN_IF_ERROR(scalar_arg(c, 4, "eps", 1e-5, &eps));
  if (size == 0 || in->numel == 0) return Error::Ok;
  Step s =
      dispatch(c, Shader::LayerNorm, out_id, c.op.args[0], ids[0] == kNoId ? c.op.args[0] : ids[0],
               ids[1] == kNoId ? c.op.args[0] : ids[1]);
  const uint64_t rows = in->numel / size;
  s.push[0] = static_cast<uint32_t>(rows);
  s.push[1] = static_cast<uint32_t>(size);
  s.push[2] = ids[0] == kNoId ? 0u : 1u;
  s.push[3] = ids[1] == kNoId ? 0u : 1u;
  s.push[4] = f2u(static_cast<float>(eps));
  ETR_RETURN_IF_ERROR(groups_1d(c, rows, 64, &s));
  c.steps->push_back(s);
  return Error::Ok;
}

// ---- convolution and pooling -----------------------------------------------

// An IntList argument of 1 or 2 entries as (h, w); a single entry is both.
// `empty_as` fills an empty list (pooling's stride defaults to the kernel).
Error pair_arg(const Ctx& c, size_t a, const char* field, const uint32_t* empty_as,
               int64_t min_value, int64_t out[2]) {
  const Value& v = c.g.values[c.op.args[a]];
  if (v.kind != Kind::IntList) {
    OP_FAIL(c, Error::InvalidProgram, "argument %zu (%s): value %u is a %s, not an IntList", a,
            field, c.op.args[a], to_string(v.kind));
  }
  if (v.ints.empty() && empty_as != nullptr) {
    out[0] = empty_as[0];
    out[1] = empty_as[1];
    return Error::Ok;
  }
  if (v.ints.size() != 1 && v.ints.size() != 2) {
    OP_FAIL(c, Error::InvalidProgram, "argument %zu (%s): %zu entries (1 or 2 expected)", a, field,
            v.ints.size());
  }
  out[0] = v.ints[0];
  out[1] = v.ints.size() == 2 ? v.ints[1] : v.ints[0];
  for (int i = 0; i < 2; ++i) {
    if (out[i] < min_value || out[i] > (int64_t{1} << 20)) {
      OP_FAIL(c, Error::InvalidProgram, "argument %zu (%s): entry %d is %lld", a, field, i,
              static_cast<long long>(out[i]));
    }
  }
  return Error::Ok;
}

// Output size of a window sweep along one dim (PyTorch's rule; with
// ceil_mode the last window must start inside the input or its left pad).
int64_t window_out(int64_t in, int64_t k, int64_t s, int64_t p, int64_t d, bool ceil_mode) {
  const int64_t span = in + 2 * p - d * (k - 1) - 1;
  if (span < 0) return 0;
  int64_t out = (ceil_mode ? (span + s - 1) / s : span / s) + 1;
  if (ceil_mode && (out - 1) * s >= in + p) --out;
  return out;
}

bool bool_arg(const Ctx& c, size_t a, bool* out) {
  const Value& v = c.g.values[c.op.args[a]];
  if (v.kind != Kind::Bool) return false;
  *out = v.bool_value;
  return true;
}

// aten.convolution.default(input, weight, bias, stride, padding, dilation,
// transposed, output_padding, groups, out) and et_vk.conv_with_clamp.default
// (the same, then output_min, output_max).
Error plan_conv(const Ctx& c, bool with_clamp) {
  ETR_RETURN_IF_ERROR(expect_args(c, with_clamp ? 12 : 10));
  const TensorInfo *in, *w, *out;
  ETR_RETURN_IF_ERROR(tensor_arg(c, 0, "input", true, &in));
  ETR_RETURN_IF_ERROR(tensor_arg(c, 1, "weight", true, &w));
  ETR_RETURN_IF_ERROR(tensor_arg(c, c.op.args.size() - 1, "out", true, &out));
  bool transposed = false;
  if (!bool_arg(c, 6, &transposed)) {
    OP_FAIL(c, Error::InvalidProgram, "argument 6 (transposed) is not a Bool");
  }
  if (in->ndim != 4 || w->ndim != 4 || out->ndim != 4) {
    OP_FAIL(c, Error::NotSupported, "only 2-D convolutions (4-D input, weight, output) run here");
  }
  int64_t stride[2], pad[2], dil[2];
  ETR_RETURN_IF_ERROR(pair_arg(c, 3, "stride", nullptr, 1, stride));
  ETR_RETURN_IF_ERROR(pair_arg(c, 4, "padding", nullptr, 0, pad));
  ETR_RETURN_IF_ERROR(pair_arg(c, 5, "dilation", nullptr, 1, dil));
  const Value& gv = c.g.values[c.op.args[8]];
  if (gv.kind != Kind::Int || gv.int_value < 1 || gv.int_value > (int64_t{1} << 20)) {
    OP_FAIL(c, Error::InvalidProgram, "argument 8 (groups) must be an Int in [1, 2^20]");
  }
  const uint32_t groups = static_cast<uint32_t>(gv.int_value);
  const uint32_t N = in->dims[0], C = in->dims[1], H = in->dims[2], W = in->dims[3];
  // Weight [C_out, C_in / groups, KH, KW], or [C_in, C_out / groups, KH, KW]
  // when transposed.
  const uint64_t OC64 = transposed ? uint64_t{w->dims[1]} * groups : w->dims[0];
  if (OC64 > kMaxNumel) OP_FAIL(c, Error::InvalidProgram, "too many output channels");
  const uint32_t OC = static_cast<uint32_t>(OC64);
  const bool fits = transposed ? w->dims[0] == C && C % groups == 0
                               : C % groups == 0 && OC % groups == 0 && w->dims[1] == C / groups;
  if (!fits) {
    OP_FAIL(c, Error::InvalidProgram,
            "weight [%u, %u, %u, %u] does not fit %u input channels in %u groups", w->dims[0],
            w->dims[1], w->dims[2], w->dims[3], C, groups);
  }
  int64_t OH = window_out(H, w->dims[2], stride[0], pad[0], dil[0], false);
  int64_t OW = window_out(W, w->dims[3], stride[1], pad[1], dil[1], false);
  if (transposed) {
    int64_t out_pad[2];
    ETR_RETURN_IF_ERROR(pair_arg(c, 7, "output_padding", nullptr, 0, out_pad));
    if ((out_pad[0] >= stride[0] && out_pad[0] >= dil[0]) ||
        (out_pad[1] >= stride[1] && out_pad[1] >= dil[1])) {
      OP_FAIL(c, Error::InvalidProgram, "argument 7 (output_padding) is too large");
    }
    OH = (int64_t{H} - 1) * stride[0] - 2 * pad[0] + dil[0] * (w->dims[2] - 1) + out_pad[0] + 1;
    OW = (int64_t{W} - 1) * stride[1] - 2 * pad[1] + dil[1] * (w->dims[3] - 1) + out_pad[1] + 1;
  }
  if (out->dims[0] != N || out->dims[1] != OC || out->dims[2] != OH || out->dims[3] != OW) {
    OP_FAIL(c, Error::InvalidProgram, "output [%u, %u, %u, %u] should be [%u, %u, %lld, %lld]",
            out->dims[0], out->dims[1], out->dims[2], out->dims[3], N, OC,
            static_cast<long long>(OH), static_cast<long long>(OW));
  }
  uint32_t bias_id = kNoId;
  if (c.g.values[c.op.args[2]].kind != Kind::Null) {
    const TensorInfo* bias;
    ETR_RETURN_IF_ERROR(tensor_arg(c, 2, "bias", true, &bias));
    if (bias->numel != OC) {
      OP_FAIL(c, Error::InvalidProgram, "bias has %llu elements, expected %u",
              static_cast<unsigned long long>(bias->numel), OC);
    }
    bias_id = c.op.args[2];
  }
  const double inf = std::numeric_limits<double>::infinity();
  double lo = -inf, hi = inf;
  if (with_clamp) {
    ETR_RETURN_IF_ERROR(scalar_arg(c, 9, "output_min", -inf, &lo));
    ETR_RETURN_IF_ERROR(scalar_arg(c, 10, "output_max", inf, &hi));
  }
  // Four output channels per invocation for ungrouped convolutions (the
  // shader also handles groups of a multiple of 4 channels, but no exported
  // fixture has such a grouped convolution to check it against).
  const bool quads = !transposed && groups == 1 && OC % 4 == 0;
  const Shader shader =
      transposed ? Shader::ConvTranspose2d : (quads ? Shader::Conv2dOc4 : Shader::Conv2d);
  const uint64_t invocations = quads ? out->numel / 4 : out->numel;
  Step s = dispatch(c, shader, c.op.args.back(), c.op.args[0], c.op.args[1],
                    bias_id == kNoId ? c.op.args[0] : bias_id);
  const uint32_t v[19] = {static_cast<uint32_t>(invocations),
                          C,
                          H,
                          W,
                          OC,
                          static_cast<uint32_t>(OH),
                          static_cast<uint32_t>(OW),
                          w->dims[2],
                          w->dims[3],
                          static_cast<uint32_t>(stride[0]),
                          static_cast<uint32_t>(stride[1]),
                          static_cast<uint32_t>(pad[0]),
                          static_cast<uint32_t>(pad[1]),
                          static_cast<uint32_t>(dil[0]),
                          static_cast<uint32_t>(dil[1]),
                          groups,
                          bias_id == kNoId ? 0u : 1u,
                          f2u(static_cast<float>(lo)),
                          f2u(static_cast<float>(hi))};
  std::memcpy(s.push, v, sizeof(v));
  if (out->numel == 0) return Error::Ok;
  ETR_RETURN_IF_ERROR(groups_1d(c, invocations, 64, &s));
  c.steps->push_back(s);
  return Error::Ok;
}

// Pooling over a 3-D or 4-D input's last two dims.
Error emit_pool(const Ctx& c, uint32_t out_id, const TensorInfo& in, const TensorInfo& out,
                const int64_t k[2], const int64_t st[2], const int64_t pad[2], const int64_t dil[2],
                bool ceil_mode, bool avg, bool include_pad, int64_t divisor) {
  if (in.ndim != 3 && in.ndim != 4) {
    OP_FAIL(c, Error::InvalidProgram, "input has %u dims (3 or 4 expected)", in.ndim);
  }
  if (pad[0] * 2 > k[0] || pad[1] * 2 > k[1]) {
    OP_FAIL(c, Error::InvalidProgram, "padding (%lld, %lld) exceeds half the kernel",
            static_cast<long long>(pad[0]), static_cast<long long>(pad[1]));
  }
  const uint32_t H = in.dims[in.ndim - 2], W = in.dims[in.ndim - 1];
  const int64_t OH = window_out(H, k[0], st[0], pad[0], dil[0], ceil_mode);
  const int64_t OW = window_out(W, k[1], st[1], pad[1], dil[1], ceil_mode);
  bool ok = out.ndim == in.ndim && out.dims[in.ndim - 2] == OH && out.dims[in.ndim - 1] == OW;
  for (uint32_t i = 0; ok && i + 2 < in.ndim; ++i) ok = out.dims[i] == in.dims[i];
  if (!ok) {
    OP_FAIL(c, Error::InvalidProgram,
            "output shape disagrees with the pooling window (%lld x %lld)",
            static_cast<long long>(OH), static_cast<long long>(OW));
  }
  Step s = dispatch(c, Shader::Pool2d, out_id, c.op.args[0]);
  const uint32_t v[16] = {static_cast<uint32_t>(out.numel),
                          H,
                          W,
                          static_cast<uint32_t>(OH),
                          static_cast<uint32_t>(OW),
                          static_cast<uint32_t>(k[0]),
                          static_cast<uint32_t>(k[1]),
                          static_cast<uint32_t>(st[0]),
                          static_cast<uint32_t>(st[1]),
                          static_cast<uint32_t>(pad[0]),
                          static_cast<uint32_t>(pad[1]),
                          static_cast<uint32_t>(dil[0]),
                          static_cast<uint32_t>(dil[1]),
                          avg ? 1u : 0u,
                          include_pad ? 1u : 0u,
                          static_cast<uint32_t>(divisor)};
  std::memcpy(s.push, v, sizeof(v));
  if (out.numel == 0) return Error::Ok;
  ETR_RETURN_IF_ERROR(groups_1d(c, out.numel, 64, &s));
  c.steps->push_back(s);
  return Error::Ok;
}

// aten.max_pool2d_with_indices.default(self, kernel_size, stride, padding,
// dilation, ceil_mode, out: [values, indices]); the indices are not
// computed, so they may not be read by anything.
Error plan_max_pool(const Ctx& c, bool with_indices) {
  ETR_RETURN_IF_ERROR(expect_args(c, 7));
  const TensorInfo *in, *out;
  ETR_RETURN_IF_ERROR(tensor_arg(c, 0, "self", true, &in));
  uint32_t out_id = c.op.args[6];
  if (with_indices) {
    const Value& list = c.g.values[out_id];
    if (list.kind != Kind::ValueList || list.values.size() != 2) {
      OP_FAIL(c, Error::InvalidProgram, "output %u is not a list of [values, indices]", out_id);
    }
    ETR_RETURN_IF_ERROR(unused_output(c, list.values[1], "indices"));
    out_id = list.values[0];
  }
  const Value& ov = c.g.values[out_id];
  if (ov.kind != Kind::Tensor || ov.tensor.device != in->device || ov.tensor.constant_id >= 0) {
    OP_FAIL(c, Error::InvalidProgram, "output value %u is not a float tensor of the input's dtype",
            out_id);
  }
  out = &ov.tensor;
  int64_t k[2], st[2], pad[2], dil[2];
  ETR_RETURN_IF_ERROR(pair_arg(c, 1, "kernel_size", nullptr, 1, k));
  const uint32_t kk[2] = {static_cast<uint32_t>(k[0]), static_cast<uint32_t>(k[1])};
  ETR_RETURN_IF_ERROR(pair_arg(c, 2, "stride", kk, 1, st));
  ETR_RETURN_IF_ERROR(pair_arg(c, 3, "padding", nullptr, 0, pad));
  ETR_RETURN_IF_ERROR(pair_arg(c, 4, "dilation", nullptr, 1, dil));
  bool ceil_mode = false;
  if (!bool_arg(c, 5, &ceil_mode)) {
    OP_FAIL(c, Error::InvalidProgram, "argument 5 (ceil_mode) is not a Bool");
  }
  return emit_pool(c, out_id, *in, *out, k, st, pad, dil, ceil_mode, false, false, 0);
}

// aten.avg_pool2d.default(self, kernel_size, stride, padding, ceil_mode,
// count_include_pad, divisor_override, out)
Error plan_avg_pool(const Ctx& c) {
  ETR_RETURN_IF_ERROR(expect_args(c, 8));
  const TensorInfo *in, *out;
  ETR_RETURN_IF_ERROR(tensor_arg(c, 0, "self", true, &in));
  ETR_RETURN_IF_ERROR(tensor_arg(c, 7, "out", true, &out));
  int64_t k[2], st[2], pad[2];
  const int64_t dil[2] = {1, 1};
  ETR_RETURN_IF_ERROR(pair_arg(c, 1, "kernel_size", nullptr, 1, k));
  const uint32_t kk[2] = {static_cast<uint32_t>(k[0]), static_cast<uint32_t>(k[1])};
  ETR_RETURN_IF_ERROR(pair_arg(c, 2, "stride", kk, 1, st));
  ETR_RETURN_IF_ERROR(pair_arg(c, 3, "padding", nullptr, 0, pad));
  bool ceil_mode = false, include_pad = true;
  if (!bool_arg(c, 4, &ceil_mode) || !bool_arg(c, 5, &include_pad)) {
    OP_FAIL(c, Error::InvalidProgram, "arguments 4, 5 (ceil_mode, count_include_pad) must be Bool");
  }
  double divisor = 0.0;
  ETR_RETURN_IF_ERROR(scalar_arg(c, 6, "divisor_override", 0.0, &divisor));
  if (divisor < 0.0 || divisor > 1e9) {
    OP_FAIL(c, Error::InvalidProgram, "argument 6 (divisor_override) is %g", divisor);
  }
  return emit_pool(c, c.op.args[7], *in, *out, k, st, pad, dil, ceil_mode, true, include_pad,
                   static_cast<int64_t>(divisor));
}

// aten.mean.dim / aten.sum.dim_IntList(self, dims, keepdim, dtype, out) and
// aten.amax.default(self, dims, keepdim, out): the reduced dims must be one
// consecutive run.
Error plan_reduce(const Ctx& c, uint32_t opcode, size_t nargs) {
  ETR_RETURN_IF_ERROR(expect_args(c, nargs));
  const TensorInfo *in, *out;
  ETR_RETURN_IF_ERROR(tensor_arg(c, 0, "self", true, &in));
  ETR_RETURN_IF_ERROR(tensor_arg(c, nargs - 1, "out", true, &out));
  const Value& dv = c.g.values[c.op.args[1]];
  bool reduced[kMaxDims] = {};
  if (dv.kind == Kind::IntList && !dv.ints.empty()) {
    for (int64_t d : dv.ints) {
      const int64_t nd = in->ndim;
      const int64_t dd = d < 0 ? d + nd : d;
      if (dd < 0 || dd >= nd) {
        OP_FAIL(c, Error::InvalidProgram, "argument 1 (dim): %lld out of range for %u dims",
                static_cast<long long>(d), in->ndim);
      }
      reduced[dd] = true;
    }
  } else if (dv.kind == Kind::Null || dv.kind == Kind::IntList) {
    for (uint32_t i = 0; i < in->ndim; ++i) reduced[i] = true;  // every dim
  } else {
    OP_FAIL(c, Error::InvalidProgram, "argument 1 (dim) is a %s", to_string(dv.kind));
  }
  int first = -1, last = -1;
  for (uint32_t i = 0; i < in->ndim; ++i) {
    if (!reduced[i]) continue;
    if (first < 0) first = static_cast<int>(i);
    if (last >= 0 && last != static_cast<int>(i) - 1) {
      OP_FAIL(c, Error::NotSupported, "reduced dims are not consecutive");
    }
    last = static_cast<int>(i);
  }
  uint64_t outer = 1, size = 1, inner = 1;
  for (uint32_t i = 0; i < in->ndim; ++i) {
    const int ii = static_cast<int>(i);
    (ii < first ? outer : (ii <= last && first >= 0 ? size : inner)) *= in->dims[i];
  }
  if (out->numel != outer * inner) {
    OP_FAIL(c, Error::InvalidProgram, "output has %llu elements, expected %llu",
            static_cast<unsigned long long>(out->numel),
            static_cast<unsigned long long>(outer * inner));
  }
  if (size == 0 && opcode >= 2) OP_FAIL(c, Error::InvalidProgram, "reduction over zero elements");
  Step s = dispatch(c, Shader::Reduce, c.op.args.back(), c.op.args[0]);
  s.push[0] = static_cast<uint32_t>(outer);
  s.push[1] = static_cast<uint32_t>(size);
  s.push[2] = static_cast<uint32_t>(inner);
  s.push[3] = opcode;
  if (out->numel == 0) return Error::Ok;
  ETR_RETURN_IF_ERROR(groups_1d(c, outer * inner, 64, &s));
  c.steps->push_back(s);
  return Error::Ok;
}

// ---- normalization, resampling, lookup -------------------------------------

// aten.native_group_norm.default(input, weight, bias, N, C, HxW, group, eps,
// out: [out, mean, rstd]) on a contiguous [N, C, *] input; mean and rstd
// are not computed (refused when another operator or the caller reads them).
Error plan_group_norm(const Ctx& c) {
  ETR_RETURN_IF_ERROR(expect_args(c, 9));
  const TensorInfo* in;
  ETR_RETURN_IF_ERROR(tensor_arg(c, 0, "input", true, &in));
  uint32_t out_id = 0;
  ETR_RETURN_IF_ERROR(norm_output(c, 8, *in, &out_id));
  if (in->ndim < 2) OP_FAIL(c, Error::InvalidProgram, "input has %u dims (2 or more)", in->ndim);
  const uint32_t N = in->dims[0], C = in->dims[1];
  const uint64_t hw = C == 0 || N == 0 ? 0 : in->numel / (uint64_t{N} * C);
  // N, C and HxW restate the input's shape (the exporter may write them as
  // symbolic ints: those are checked by the input's dims alone).
  const char* names[3] = {"N", "C", "HxW"};
  const uint64_t want[3] = {N, C, hw};
  for (int k = 0; k < 3; ++k) {
    const Value& v = c.g.values[c.op.args[3 + k]];
    if (v.kind == Kind::Int && static_cast<uint64_t>(v.int_value) != want[k]) {
      OP_FAIL(c, Error::InvalidProgram, "argument %d (%s) is %lld, the input has %llu", 3 + k,
              names[k], static_cast<long long>(v.int_value),
              static_cast<unsigned long long>(want[k]));
    }
  }
  const Value& gv = c.g.values[c.op.args[6]];
  if (gv.kind != Kind::Int || gv.int_value < 1 || gv.int_value > C || C % gv.int_value != 0) {
    OP_FAIL(c, Error::InvalidProgram, "argument 6 (group) must be an Int dividing C = %u", C);
  }
  const uint32_t groups = static_cast<uint32_t>(gv.int_value);
  uint32_t ids[2] = {kNoId, kNoId};
  for (int k = 0; k < 2; ++k) {
    const size_t a = 1 + static_cast<size_t>(k);
    if (c.g.values[c.op.args[a]].kind == Kind::Null) continue;
    const TensorInfo* t;
    ETR_RETURN_IF_ERROR(tensor_arg(c, a, k == 0 ? "weight" : "bias", true, &t));
    if (t->numel != C) {
      OP_FAIL(c, Error::InvalidProgram, "%s has %llu elements, expected C = %u",
              k == 0 ? "weight" : "bias", static_cast<unsigned long long>(t->numel), C);
    }
    ids[k] = c.op.args[a];
  }
  double eps;
  ETR_RETURN_IF_ERROR(scalar_arg(c, 7, "eps", 1e-5, &eps));
  if (in->numel == 0) return Error::Ok;
  Step s =
      dispatch(c, Shader::GroupNorm, out_id, c.op.args[0], ids[0] == kNoId ? c.op.args[0] : ids[0],
               ids[1] == kNoId ? c.op.args[0] : ids[1]);
  const uint64_t rows = uint64_t{N} * groups;
  s.push[0] = static_cast<uint32_t>(rows);
  s.push[1] = groups;
  s.push[2] = C / groups;
  s.push[3] = static_cast<uint32_t>(hw);
  s.push[4] = ids[0] == kNoId ? 0u : 1u;
  s.push[5] = ids[1] == kNoId ? 0u : 1u;
  s.push[6] = f2u(static_cast<float>(eps));
  ETR_RETURN_IF_ERROR(groups_1d(c, rows, 64, &s));
  c.steps->push_back(s);
  return Error::Ok;
}

// aten._native_batch_norm_legit_no_training.default(input, weight, bias,
// running_mean, running_var, momentum, eps, out: [out, mean, invstd]).
Error plan_batch_norm(const Ctx& c) {
  ETR_RETURN_IF_ERROR(expect_args(c, 8));
  const TensorInfo *in, *mean, *var;
  ETR_RETURN_IF_ERROR(tensor_arg(c, 0, "input", true, &in));
  ETR_RETURN_IF_ERROR(tensor_arg(c, 3, "running_mean", true, &mean));
  ETR_RETURN_IF_ERROR(tensor_arg(c, 4, "running_var", true, &var));
  uint32_t out_id = 0;
  ETR_RETURN_IF_ERROR(
      norm_output(c, 7, *in, &out_id, "[out, mean, invstd]", "saved mean", "saved invstd"));
  if (in->ndim < 2) OP_FAIL(c, Error::InvalidProgram, "input has %u dims (2 or more)", in->ndim);
  const uint32_t C = in->dims[1];
  if (mean->numel != C || var->numel != C) {
    OP_FAIL(c, Error::InvalidProgram, "running_mean/var must have %u elements", C);
  }
  uint32_t wb[2] = {kNoId, kNoId};
  for (int k = 0; k < 2; ++k) {
    const size_t a = 1 + static_cast<size_t>(k);
    if (c.g.values[c.op.args[a]].kind == Kind::Null) continue;
    const TensorInfo* t;
    ETR_RETURN_IF_ERROR(tensor_arg(c, a, k == 0 ? "weight" : "bias", true, &t));
    if (t->numel != C) {
      OP_FAIL(c, Error::InvalidProgram, "%s has %llu elements, expected %u",
              k == 0 ? "weight" : "bias", static_cast<unsigned long long>(t->numel), C);
    }
    wb[k] = c.op.args[a];
  }
  double eps;
  ETR_RETURN_IF_ERROR(scalar_arg(c, 6, "eps", 1e-5, &eps));
  uint64_t inner = 1;
  for (uint32_t i = 2; i < in->ndim; ++i) inner *= in->dims[i];
  if (in->numel == 0) return Error::Ok;
  Step s = dispatch(c, Shader::BatchNorm, out_id, c.op.args[0], c.op.args[3], c.op.args[4]);
  s.buffers[4] = wb[0] == kNoId ? c.op.args[0] : wb[0];
  s.buffers[5] = wb[1] == kNoId ? c.op.args[0] : wb[1];
  s.num_buffers = 6;
  s.push[0] = static_cast<uint32_t>(in->numel);
  s.push[1] = C;
  s.push[2] = static_cast<uint32_t>(inner);
  s.push[3] = wb[0] == kNoId ? 0u : 1u;
  s.push[4] = wb[1] == kNoId ? 0u : 1u;
  s.push[5] = f2u(static_cast<float>(eps));
  ETR_RETURN_IF_ERROR(groups_1d(c, in->numel, 64, &s));
  c.steps->push_back(s);
  return Error::Ok;
}

// aten.upsample_nearest2d.vec(input, output_size, scale_factors, out) and
// aten.upsample_bilinear2d.vec(input, output_size, align_corners,
// scale_factors, out) on [N, C, H, W].
Error plan_upsample(const Ctx& c, bool bilinear) {
  ETR_RETURN_IF_ERROR(expect_args(c, bilinear ? 5 : 4));
  const TensorInfo *in, *out;
  ETR_RETURN_IF_ERROR(tensor_arg(c, 0, "input", true, &in));
  ETR_RETURN_IF_ERROR(tensor_arg(c, c.op.args.size() - 1, "out", true, &out));
  if (in->ndim != 4 || out->ndim != 4 || out->dims[0] != in->dims[0] ||
      out->dims[1] != in->dims[1] || in->dims[2] == 0 || in->dims[3] == 0 || out->dims[2] == 0 ||
      out->dims[3] == 0) {
    OP_FAIL(c, Error::InvalidProgram, "input and output must be non-empty [N, C, H, W] planes");
  }
  bool align = false;
  if (bilinear && !bool_arg(c, 2, &align)) {
    OP_FAIL(c, Error::InvalidProgram, "argument 2 (align_corners) is not a Bool");
  }
  const uint32_t H = in->dims[2], W = in->dims[3], OH = out->dims[2], OW = out->dims[3];
  float rh = static_cast<float>(H) / static_cast<float>(OH);
  float rw = static_cast<float>(W) / static_cast<float>(OW);
  const Value& scales = c.g.values[c.op.args[bilinear ? 3 : 2]];
  if (scales.kind == Kind::DoubleList) {
    if (scales.doubles.size() != 2 || !(scales.doubles[0] > 0.0) || !(scales.doubles[1] > 0.0)) {
      OP_FAIL(c, Error::InvalidProgram, "scale_factors must be two positive numbers");
    }
    rh = static_cast<float>(1.0 / scales.doubles[0]);
    rw = static_cast<float>(1.0 / scales.doubles[1]);
  }
  if (align) {
    rh = OH > 1 ? static_cast<float>(H - 1) / static_cast<float>(OH - 1) : 0.0f;
    rw = OW > 1 ? static_cast<float>(W - 1) / static_cast<float>(OW - 1) : 0.0f;
  }
  Step s = dispatch(c, Shader::Upsample, c.op.args.back(), c.op.args[0]);
  const uint32_t v[9] = {static_cast<uint32_t>(out->numel),
                         H,
                         W,
                         OH,
                         OW,
                         bilinear ? 1u : 0u,
                         align ? 1u : 0u,
                         f2u(rh),
                         f2u(rw)};
  std::memcpy(s.push, v, sizeof(v));
  ETR_RETURN_IF_ERROR(groups_1d(c, out->numel, 64, &s));
  c.steps->push_back(s);
  return Error::Ok;
}

// aten.embedding.default(weight, indices, padding_idx, scale_grad_by_freq,
// sparse, out): int32 indices (the exporter narrows int64).
Error plan_embedding(const Ctx& c) {
  ETR_RETURN_IF_ERROR(expect_args(c, 6));
  const TensorInfo *table, *idx, *out;
  ETR_RETURN_IF_ERROR(tensor_arg(c, 0, "weight", true, &table));
  ETR_RETURN_IF_ERROR(tensor_arg(c, 1, "indices", false, &idx));
  ETR_RETURN_IF_ERROR(tensor_arg(c, 5, "out", true, &out));
  if (idx->dtype != Dtype::Int32) {
    OP_FAIL(c, Error::NotSupported, "indices are %s (int32 expected)", to_string(idx->dtype));
  }
  if (table->ndim != 2 || out->numel != idx->numel * table->dims[1] || table->dims[1] == 0) {
    OP_FAIL(c, Error::InvalidProgram, "output must be the indices' shape times the row size");
  }
  if (out->numel == 0) return Error::Ok;
  Step s = dispatch(c, Shader::Embedding, c.op.args[5], c.op.args[0], c.op.args[1]);
  s.push[0] = static_cast<uint32_t>(out->numel);
  s.push[1] = table->dims[1];
  s.push[2] = table->dims[0];
  ETR_RETURN_IF_ERROR(groups_1d(c, out->numel, 64, &s));
  c.steps->push_back(s);
  return Error::Ok;
}

// dim_order_ops._to_dim_order_copy.default(self, dtype, layout, device,
// pin_memory, non_blocking, dim_order, out): tensors are always contiguous
// here, so only the default order is supported; int32 <-> float32 convert.
Error plan_to_dim_order_copy(const Ctx& c) {
  ETR_RETURN_IF_ERROR(expect_args(c, 8));
  const Value& order = c.g.values[c.op.args[6]];
  if (order.kind == Kind::IntList) {
    for (size_t i = 0; i < order.ints.size(); ++i) {
      if (order.ints[i] != static_cast<int64_t>(i)) {
        OP_FAIL(c, Error::NotSupported, "argument 6 (dim_order) is not the default order");
      }
    }
  } else if (order.kind != Kind::Null) {
    OP_FAIL(c, Error::InvalidProgram, "argument 6 (dim_order) is a %s", to_string(order.kind));
  }
  const TensorInfo *in, *out;
  ETR_RETURN_IF_ERROR(tensor_arg(c, 0, "self", false, &in));
  ETR_RETURN_IF_ERROR(tensor_arg(c, 7, "out", false, &out));
  // Bool tensors are float32 0/1 on the device: only bool itself converts
  // to bool by copying.
  if (out->dtype == Dtype::Bool && in->dtype != Dtype::Bool) {
    OP_FAIL(c, Error::NotSupported, "conversion from %s to bool", to_string(in->dtype));
  }
  if (in->device == out->device) return plan_byte_copy(c);
  uint32_t mode;
  if (in->device == Dtype::Int32 && out->device == Dtype::Float32) {
    mode = 0;
  } else if (in->device == Dtype::Float32 && out->device == Dtype::Int32) {
    mode = 1;
  } else {
    OP_FAIL(c, Error::NotSupported, "conversion from %s to %s", to_string(in->dtype),
            to_string(out->dtype));
  }
  if (in->numel != out->numel) {
    OP_FAIL(c, Error::InvalidProgram, "output has %llu elements, the input %llu",
            static_cast<unsigned long long>(out->numel),
            static_cast<unsigned long long>(in->numel));
  }
  if (out->numel == 0) return Error::Ok;
  Step s = dispatch(c, Shader::Cast, c.op.args[7], c.op.args[0]);
  s.push[0] = static_cast<uint32_t>(out->numel);
  s.push[1] = mode;
  ETR_RETURN_IF_ERROR(groups_1d(c, out->numel, 64, &s));
  c.steps->push_back(s);
  return Error::Ok;
}

// ---- symbolic sizes --------------------------------------------------------

// sym_size.int(self, dim, out) and the symbolic arithmetic (add, sub, mul,
// floordiv)(a, b, out) of a program exported with dynamic dims: their SymInt
// outputs are computed on the host (vk_shapes.cpp), so no step runs.
Error plan_symint(const Ctx& c, bool size) {
  ETR_RETURN_IF_ERROR(expect_args(c, 3));
  if (size) {
    const TensorInfo* t;
    ETR_RETURN_IF_ERROR(tensor_arg(c, 0, "self", false, &t));
  }
  for (size_t a = size ? 1 : 0; a < 2; ++a) {
    const Kind k = c.g.values[c.op.args[a]].kind;
    if (k != Kind::Int && k != Kind::SymInt) {
      OP_FAIL(c, Error::InvalidProgram, "argument %zu: value %u is a %s, not an int", a,
              c.op.args[a], to_string(k));
    }
  }
  if (c.g.values[c.op.args[2]].kind != Kind::SymInt) {
    OP_FAIL(c, Error::InvalidProgram, "output value %u is a %s, not a SymInt", c.op.args[2],
            to_string(c.g.values[c.op.args[2]].kind));
  }
  return Error::Ok;
}

// ---- the table -------------------------------------------------------------

using PlanFn = Error (*)(const Ctx&);

struct OpKind {
  const char* name;
  PlanFn plan;
};

const OpKind kOps[] = {
    {"aten.add.Tensor", [](const Ctx& c) { return plan_binary(c, 0, true); }},
    {"aten.sub.Tensor", [](const Ctx& c) { return plan_binary(c, 1, true); }},
    {"aten.mul.Tensor", [](const Ctx& c) { return plan_binary(c, 2, false); }},
    {"aten.div.Tensor", [](const Ctx& c) { return plan_binary(c, 3, false); }},
    {"aten.maximum.default", [](const Ctx& c) { return plan_binary(c, 4, false); }},
    {"aten.minimum.default", [](const Ctx& c) { return plan_binary(c, 5, false); }},
    {"aten.pow.Tensor_Tensor", [](const Ctx& c) { return plan_binary(c, 6, false); }},
    {"aten.eq.Tensor", [](const Ctx& c) { return plan_binary(c, 7, false); }},
    {"aten.ne.Tensor", [](const Ctx& c) { return plan_binary(c, 8, false); }},
    {"aten.lt.Tensor", [](const Ctx& c) { return plan_binary(c, 9, false); }},
    {"aten.le.Tensor", [](const Ctx& c) { return plan_binary(c, 10, false); }},
    {"aten.gt.Tensor", [](const Ctx& c) { return plan_binary(c, 11, false); }},
    {"aten.ge.Tensor", [](const Ctx& c) { return plan_binary(c, 12, false); }},
    {"aten.eq.Scalar", [](const Ctx& c) { return plan_compare_scalar(c, 0); }},
    {"aten.ne.Scalar", [](const Ctx& c) { return plan_compare_scalar(c, 1); }},
    {"aten.lt.Scalar", [](const Ctx& c) { return plan_compare_scalar(c, 2); }},
    {"aten.le.Scalar", [](const Ctx& c) { return plan_compare_scalar(c, 3); }},
    {"aten.gt.Scalar", [](const Ctx& c) { return plan_compare_scalar(c, 4); }},
    {"aten.ge.Scalar", [](const Ctx& c) { return plan_compare_scalar(c, 5); }},
    {"aten.logical_not.default", plan_logical_not},
    {"aten.where.self", plan_where},
    {"aten.relu.default", [](const Ctx& c) { return plan_unary(c, kRelu); }},
    {"aten.sigmoid.default", [](const Ctx& c) { return plan_unary(c, kSigmoid); }},
    {"aten.tanh.default", [](const Ctx& c) { return plan_unary(c, kTanh); }},
    {"aten.silu.default", [](const Ctx& c) { return plan_unary(c, kSilu); }},
    {"aten.hardswish.default", [](const Ctx& c) { return plan_unary(c, kHardswish); }},
    {"aten.hardsigmoid.default", [](const Ctx& c) { return plan_unary(c, kHardsigmoid); }},
    {"aten.abs.default", [](const Ctx& c) { return plan_unary(c, kAbs); }},
    {"aten.neg.default", [](const Ctx& c) { return plan_unary(c, kNeg); }},
    {"aten.exp.default", [](const Ctx& c) { return plan_unary(c, kExp); }},
    {"aten.sqrt.default", [](const Ctx& c) { return plan_unary(c, kSqrt); }},
    {"aten.rsqrt.default", [](const Ctx& c) { return plan_unary(c, kRsqrt); }},
    {"aten.hardtanh.default", plan_hardtanh},
    {"aten.clamp.default", plan_clamp},
    {"aten.gelu.default", plan_gelu},
    {"aten.linear.default", plan_linear},
    {"aten.mm.default", [](const Ctx& c) { return plan_mm(c, false); }},
    {"aten.addmm.default", [](const Ctx& c) { return plan_mm(c, true); }},
    {"aten.bmm.default", plan_bmm},
    {"aten._softmax.default", [](const Ctx& c) { return plan_softmax(c, false); }},
    {"aten._log_softmax.default", [](const Ctx& c) { return plan_softmax(c, true); }},
    {"aten.view_copy.default", plan_byte_copy},
    {"aten._unsafe_view.default", plan_byte_copy},
    {"aten.squeeze_copy.dims", plan_byte_copy},
    {"aten.squeeze_copy.dim", plan_byte_copy},
    {"aten.squeeze_copy.default", plan_byte_copy},
    {"aten.unsqueeze_copy.default", plan_byte_copy},
    {"aten.clone.default", plan_byte_copy},
    {"aten.alias_copy.default", plan_byte_copy},
    {"et_vk.prepack.default", plan_prepack},
    {"aten.permute_copy.default", plan_permute},
    {"aten.slice_copy.Tensor", plan_slice},
    {"aten.select_copy.int", plan_select},
    {"aten.cat.default", plan_cat},
    {"aten.split_with_sizes_copy.default", plan_split},
    {"aten.expand_copy.default", plan_expand},
    {"aten.native_layer_norm.default", plan_layer_norm},
    {"aten._native_batch_norm_legit_no_training.default", plan_batch_norm},
    {"aten.native_group_norm.default", plan_group_norm},
    {"aten.upsample_nearest2d.vec", [](const Ctx& c) { return plan_upsample(c, false); }},
    {"aten.upsample_bilinear2d.vec", [](const Ctx& c) { return plan_upsample(c, true); }},
    {"aten.embedding.default", plan_embedding},
    {"dim_order_ops._to_dim_order_copy.default", plan_to_dim_order_copy},
    {"aten.convolution.default", [](const Ctx& c) { return plan_conv(c, false); }},
    {"et_vk.conv_with_clamp.default", [](const Ctx& c) { return plan_conv(c, true); }},
    {"aten.max_pool2d_with_indices.default", [](const Ctx& c) { return plan_max_pool(c, true); }},
    {"aten.max_pool2d.default", [](const Ctx& c) { return plan_max_pool(c, false); }},
    {"aten.avg_pool2d.default", plan_avg_pool},
    {"aten.mean.dim", [](const Ctx& c) { return plan_reduce(c, 1, 5); }},
    {"aten.sum.dim_IntList", [](const Ctx& c) { return plan_reduce(c, 0, 5); }},
    {"aten.amax.default", [](const Ctx& c) { return plan_reduce(c, 2, 4); }},
    {"aten.amin.default", [](const Ctx& c) { return plan_reduce(c, 3, 4); }},
    {"sym_size.int", [](const Ctx& c) { return plan_symint(c, true); }},
    {"add", [](const Ctx& c) { return plan_symint(c, false); }},
    {"sub", [](const Ctx& c) { return plan_symint(c, false); }},
    {"mul", [](const Ctx& c) { return plan_symint(c, false); }},
    {"floordiv", [](const Ctx& c) { return plan_symint(c, false); }},
};

const OpKind* find_op(const char* name) {
  for (const OpKind& k : kOps) {
    if (std::strcmp(k.name, name) == 0) return &k;
  }
  return nullptr;
}

}  // namespace

const ShaderInfo& shader_info(Shader s) { return kShaders[static_cast<size_t>(s)]; }

const ShaderInfo* shader_info_fp16(Shader s) {
  // Built on first use from the float32 entries (names get an "_fp16").
  static ShaderInfo table[kNumShaders];
  static bool has[kNumShaders];
  static const bool built = [] {
    static char names[kNumShaders][40];
    for (const Fp16Variant& v : kFp16Variants) {
      const size_t i = static_cast<size_t>(v.shader);
      table[i] = kShaders[i];
      std::snprintf(names[i], sizeof(names[i]), "%s_fp16", kShaders[i].name);
      table[i].name = names[i];
      table[i].code = v.code;
      table[i].words = v.words;
      has[i] = true;
    }
    return true;
  }();
  (void)built;
  const size_t i = static_cast<size_t>(s);
  return i < kNumShaders && has[i] ? &table[i] : nullptr;
}

bool is_supported_operator(const char* name) {
  return find_op(name) != nullptr || find_llm_operator(name) != nullptr;
}

Error plan_operator(const Graph& g, const Operator& op, const DispatchLimits& limits,
                    std::vector<Step>* steps, std::vector<uint32_t>* alias) {
  const OpKind* k = find_op(op.name.c_str());
  const LlmPlanFn llm = k == nullptr ? find_llm_operator(op.name.c_str()) : nullptr;
  ETR_CHECK_OR_FAIL(k != nullptr || llm != nullptr, Error::NotSupported,
                    "VulkanBackend: delegate %zu: operator %u (%s) is not supported",
                    g.delegate_index, op.index, op.name.c_str());
  const Ctx c{g, op, limits, steps, alias};
  // Every output must be a non-constant tensor: nothing writes a constant.
  const uint32_t out = op.args.back();
  if (g.values[out].kind == Kind::Tensor && g.values[out].tensor.constant_id >= 0) {
    OP_FAIL(c, Error::InvalidProgram, "output value %u is a constant", out);
  }
  return k != nullptr ? k->plan(c) : llm(g, op, limits, steps);
}

}  // namespace vulkan
}  // namespace etr
