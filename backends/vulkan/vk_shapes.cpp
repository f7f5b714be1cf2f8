#include "backends/vulkan/vk_shapes.h"

#include <cmath>
#include <cstring>

#include "runtime/platform/log.h"

namespace etr {
namespace vulkan {
namespace {

#define SHAPE_FAIL(g, op, err, fmt, ...)                                                   \
  ETR_FAIL(err, "VulkanBackend: delegate %zu: operator %u (%s): " fmt, (g).delegate_index, \
           (op).index, (op).name.c_str(), ##__VA_ARGS__)

struct Shape {
  uint32_t ndim = 0;
  uint32_t dims[kMaxDims] = {};
};

Shape shape_of(const TensorInfo& t) {
  Shape s;
  s.ndim = t.ndim;
  std::memcpy(s.dims, t.dims, sizeof(s.dims));
  return s;
}

bool in_list(const char* name, const char* const* list) {
  for (; *list != nullptr; ++list) {
    if (std::strcmp(name, *list) == 0) return true;
  }
  return false;
}

// Operators whose first output has their first argument's shape.
const char* const kSameShape[] = {"aten.relu.default",
                                  "aten.sigmoid.default",
                                  "aten.tanh.default",
                                  "aten.silu.default",
                                  "aten.hardswish.default",
                                  "aten.hardsigmoid.default",
                                  "aten.abs.default",
                                  "aten.neg.default",
                                  "aten.exp.default",
                                  "aten.sqrt.default",
                                  "aten.rsqrt.default",
                                  "aten.hardtanh.default",
                                  "aten.clamp.default",
                                  "aten.gelu.default",
                                  "aten._softmax.default",
                                  "aten._log_softmax.default",
                                  "aten.clone.default",
                                  "aten.alias_copy.default",
                                  "dim_order_ops._to_dim_order_copy.default",
                                  "et_vk.rms_norm.default",
                                  "aten.eq.Scalar",
                                  "aten.ne.Scalar",
                                  "aten.lt.Scalar",
                                  "aten.le.Scalar",
                                  "aten.gt.Scalar",
                                  "aten.ge.Scalar",
                                  "aten.logical_not.default",
                                  nullptr};

// Elementwise operators of two broadcast tensors.
const char* const kBinary[] = {"aten.add.Tensor",        "aten.sub.Tensor",
                               "aten.mul.Tensor",        "aten.div.Tensor",
                               "aten.maximum.default",   "aten.minimum.default",
                               "aten.pow.Tensor_Tensor", "aten.eq.Tensor",
                               "aten.ne.Tensor",         "aten.lt.Tensor",
                               "aten.le.Tensor",         "aten.gt.Tensor",
                               "aten.ge.Tensor",         nullptr};

// Operators with [out, saved statistics...] outputs whose out has the
// input's shape (the statistics are never read: the planner checks that).
const char* const kNormalization[] = {"aten.native_layer_norm.default",
                                      "aten._native_batch_norm_legit_no_training.default",
                                      "aten.native_group_norm.default", nullptr};

class Propagator {
 public:
  Propagator(Graph* g, const Operator& op) : g_(*g), op_(op) {}

  const TensorInfo* tensor(size_t a) const {
    return a < op_.args.size() ? g_.tensor(op_.args[a]) : nullptr;
  }

  // Gives value `id` the shape `s`, within its bounds.
  Error set(uint32_t id, const Shape& s) {
    Value& v = g_.values[id];
    if (v.kind != Kind::Tensor) {
      SHAPE_FAIL(g_, op_, Error::InvalidProgram, "output value %u is a %s, not a tensor", id,
                 to_string(v.kind));
    }
    TensorInfo& t = v.tensor;
    if (t.constant_id >= 0) {
      SHAPE_FAIL(g_, op_, Error::InvalidProgram, "output value %u is a constant", id);
    }
    if (s.ndim != t.ndim) {
      SHAPE_FAIL(g_, op_, Error::InvalidProgram, "output value %u would have %u dims, not %u", id,
                 s.ndim, t.ndim);
    }
    uint64_t numel = 1;
    for (uint32_t i = 0; i < s.ndim; ++i) {
      if (s.dims[i] > t.max_dims[i]) {
        SHAPE_FAIL(g_, op_, Error::InvalidProgram,
                   "output value %u: dim %u would be %u, above its exported bound %u", id, i,
                   s.dims[i], t.max_dims[i]);
      }
      numel *= s.dims[i];
    }
    std::memcpy(t.dims, s.dims, sizeof(t.dims));
    t.numel = numel;
    return Error::Ok;
  }

  // An Int or SymInt argument's current value.
  Error int_arg(size_t a, const char* field, int64_t* out) const {
    if (a >= op_.args.size()) {
      SHAPE_FAIL(g_, op_, Error::InvalidProgram, "argument %zu (%s) is missing", a, field);
    }
    const Value& v = g_.values[op_.args[a]];
    if (v.kind != Kind::Int && v.kind != Kind::SymInt) {
      SHAPE_FAIL(g_, op_, Error::InvalidProgram, "argument %zu (%s): value %u is a %s, not an int",
                 a, field, op_.args[a], to_string(v.kind));
    }
    *out = v.int_value;
    return Error::Ok;
  }

  Error tensor_arg(size_t a, const char* field, const TensorInfo** out) const {
    *out = tensor(a);
    if (*out == nullptr) {
      SHAPE_FAIL(g_, op_, Error::InvalidProgram, "argument %zu (%s) is not a tensor", a, field);
    }
    return Error::Ok;
  }

  Error run() {
    const char* name = op_.name.c_str();
    if (op_.args.empty()) return Error::Ok;
    if (in_list(name, kSameShape)) return same_shape();
    if (in_list(name, kBinary)) return binary();
    if (in_list(name, kNormalization)) return normalization();
    if (std::strcmp(name, "sym_size.int") == 0) return sym_size();
    if (std::strcmp(name, "add") == 0 || std::strcmp(name, "sub") == 0 ||
        std::strcmp(name, "mul") == 0 || std::strcmp(name, "floordiv") == 0) {
      return sym_arith();
    }
    if (std::strcmp(name, "aten.view_copy.default") == 0 ||
        std::strcmp(name, "aten._unsafe_view.default") == 0) {
      return view();
    }
    if (std::strcmp(name, "aten.linear.default") == 0 ||
        std::strcmp(name, "et_vk.linear_q4gsw.default") == 0) {
      return linear();
    }
    if (std::strcmp(name, "aten.embedding.default") == 0) return embedding(1);
    if (std::strcmp(name, "et_vk.embedding_q4gsw.default") == 0) return embedding(3);
    if (std::strcmp(name, "et_vk.apply_rotary_emb.default") == 0) return rotary();
    if (std::strcmp(name, "sdpa_with_kv_cache.default") == 0) {
      const TensorInfo* q;
      ETR_RETURN_IF_ERROR(tensor_arg(0, "query", &q));
      return set(op_.args.back(), shape_of(*q));
    }
    // The position an LLM step starts at lives on the device (input_pos):
    // the operators that take it read it there, and the shapes computed
    // from it here (a slice [pos, pos + seq_len)) depend only on lengths, so
    // it counts as 0 on the host.
    if (std::strcmp(name, "et_vk.select_as_symint.default") == 0) return set_int(0);
    if (std::strcmp(name, "aten.bmm.default") == 0) return bmm();
    if (std::strcmp(name, "aten.convolution.default") == 0 ||
        std::strcmp(name, "et_vk.conv_with_clamp.default") == 0) {
      return conv();
    }
    if (std::strcmp(name, "aten.max_pool2d_with_indices.default") == 0) return pool(true, 1, 2);
    if (std::strcmp(name, "aten.max_pool2d.default") == 0) return pool(false, 1, 2);
    if (std::strcmp(name, "aten.avg_pool2d.default") == 0) return pool(false, 1, 2);
    if (std::strcmp(name, "aten.upsample_nearest2d.vec") == 0) return upsample(1, 2);
    if (std::strcmp(name, "aten.upsample_bilinear2d.vec") == 0) return upsample(1, 3);
    if (std::strcmp(name, "aten.cat.default") == 0) return cat();
    // squeeze_copy.default (every size-1 dim) has none: which dims are 1
    // depends on the shape, and the output's rank is fixed.
    if (std::strcmp(name, "aten.squeeze_copy.dims") == 0 ||
        std::strcmp(name, "aten.squeeze_copy.dim") == 0) {
      return squeeze();
    }
    if (std::strcmp(name, "aten.unsqueeze_copy.default") == 0) return unsqueeze();
    if (std::strcmp(name, "aten.where.self") == 0) return broadcast(0, 3);
    if (std::strcmp(name, "aten.expand_copy.default") == 0) return expand();
    if (std::strcmp(name, "aten.mean.dim") == 0 || std::strcmp(name, "aten.sum.dim_IntList") == 0 ||
        std::strcmp(name, "aten.amax.default") == 0 ||
        std::strcmp(name, "aten.amin.default") == 0) {
      return reduce();
    }
    if (std::strcmp(name, "aten.permute_copy.default") == 0) return permute();
    if (std::strcmp(name, "aten.slice_copy.Tensor") == 0) return slice();
    if (std::strcmp(name, "aten.select_copy.int") == 0) return select_dim();
    if (std::strcmp(name, "aten.split_with_sizes_copy.default") == 0) return split();
    return unchanged();
  }

 private:
  Error same_shape() {
    const TensorInfo* in;
    ETR_RETURN_IF_ERROR(tensor_arg(0, "self", &in));
    return set(op_.args.back(), shape_of(*in));
  }

  // The broadcast shape of tensor arguments first .. first + n - 1.
  Error broadcast(size_t first, size_t n) {
    Shape s;
    for (size_t k = first; k < first + n; ++k) {
      const TensorInfo* t;
      ETR_RETURN_IF_ERROR(tensor_arg(k, "input", &t));
      const uint32_t nd = t->ndim > s.ndim ? t->ndim : s.ndim;
      Shape r;
      r.ndim = nd;
      for (uint32_t i = 0; i < nd; ++i) {
        const uint32_t da = i < s.ndim ? s.dims[s.ndim - 1 - i] : 1;
        const uint32_t db = i < t->ndim ? t->dims[t->ndim - 1 - i] : 1;
        if (da != db && da != 1 && db != 1) {
          SHAPE_FAIL(g_, op_, Error::InvalidProgram,
                     "the inputs do not broadcast (%u and %u at dim %u from the end)", da, db, i);
        }
        r.dims[nd - 1 - i] = da == 1 ? db : da;
      }
      s = r;
    }
    return set(op_.args.back(), s);
  }

  Error binary() { return broadcast(0, 2); }

  Error normalization() {
    const TensorInfo* in;
    ETR_RETURN_IF_ERROR(tensor_arg(0, "input", &in));
    const Value& list = g_.values[op_.args.back()];
    if (list.kind != Kind::ValueList || list.values.empty()) {
      SHAPE_FAIL(g_, op_, Error::InvalidProgram, "output %u is not a list of tensors",
                 op_.args.back());
    }
    return set(list.values[0], shape_of(*in));
  }

  Error sym_size() {
    const TensorInfo* in;
    ETR_RETURN_IF_ERROR(tensor_arg(0, "self", &in));
    int64_t dim;
    ETR_RETURN_IF_ERROR(int_arg(1, "dim", &dim));
    if (dim < 0) dim += in->ndim;
    if (dim < 0 || dim >= static_cast<int64_t>(in->ndim)) {
      SHAPE_FAIL(g_, op_, Error::InvalidProgram, "argument 1 (dim) out of range for %u dims",
                 in->ndim);
    }
    return set_int(in->dims[dim]);
  }

  Error sym_arith() {
    if (op_.args.size() != 3) {
      SHAPE_FAIL(g_, op_, Error::InvalidProgram, "%zu arguments, expected 3", op_.args.size());
    }
    int64_t a, b;
    ETR_RETURN_IF_ERROR(int_arg(0, "self", &a));
    ETR_RETURN_IF_ERROR(int_arg(1, "other", &b));
    const char* name = op_.name.c_str();
    // Shapes are below 2^30, so sums and products of two fit in int64.
    if (a < -(int64_t{1} << 31) || a > (int64_t{1} << 31) || b < -(int64_t{1} << 31) ||
        b > (int64_t{1} << 31)) {
      SHAPE_FAIL(g_, op_, Error::InvalidProgram, "operands %lld and %lld are out of range",
                 static_cast<long long>(a), static_cast<long long>(b));
    }
    int64_t r;
    if (name[0] == 'a') {
      r = a + b;
    } else if (name[0] == 's') {
      r = a - b;
    } else if (name[0] == 'm') {
      r = a * b;
    } else {
      if (b == 0) SHAPE_FAIL(g_, op_, Error::InvalidProgram, "division by zero");
      r = a / b;
      if ((a % b != 0) && ((a < 0) != (b < 0))) --r;  // floor
    }
    return set_int(r);
  }

  Error set_int(int64_t v) {
    Value& out = g_.values[op_.args.back()];
    if (out.kind != Kind::SymInt) {
      SHAPE_FAIL(g_, op_, Error::InvalidProgram, "output value %u is a %s, not a SymInt",
                 op_.args.back(), to_string(out.kind));
    }
    out.int_value = v;
    return Error::Ok;
  }

  // view_copy(self, sizes, out): sizes is an IntList or a ValueList of
  // Int/SymInt values; one entry may be -1 (inferred from the element count).
  Error view() {
    const TensorInfo* in;
    ETR_RETURN_IF_ERROR(tensor_arg(0, "self", &in));
    if (op_.args.size() != 3) {
      SHAPE_FAIL(g_, op_, Error::InvalidProgram, "%zu arguments, expected 3", op_.args.size());
    }
    const Value& sv = g_.values[op_.args[1]];
    int64_t sizes[kMaxDims];
    size_t n = 0;
    if (sv.kind == Kind::IntList) {
      n = sv.ints.size();
      if (n > kMaxDims) SHAPE_FAIL(g_, op_, Error::InvalidProgram, "argument 1 (size): too long");
      for (size_t i = 0; i < n; ++i) sizes[i] = sv.ints[i];
    } else if (sv.kind == Kind::ValueList) {
      n = sv.values.size();
      if (n > kMaxDims) SHAPE_FAIL(g_, op_, Error::InvalidProgram, "argument 1 (size): too long");
      for (size_t i = 0; i < n; ++i) {
        const Value& e = g_.values[sv.values[i]];
        if (e.kind != Kind::Int && e.kind != Kind::SymInt) {
          SHAPE_FAIL(g_, op_, Error::InvalidProgram, "argument 1 (size): entry %zu is a %s", i,
                     to_string(e.kind));
        }
        sizes[i] = e.int_value;
      }
    } else {
      SHAPE_FAIL(g_, op_, Error::InvalidProgram, "argument 1 (size) is a %s", to_string(sv.kind));
    }
    Shape s;
    s.ndim = static_cast<uint32_t>(n);
    int inferred = -1;
    uint64_t known = 1;
    for (size_t i = 0; i < n; ++i) {
      if (sizes[i] == -1 && inferred < 0) {
        inferred = static_cast<int>(i);
        continue;
      }
      if (sizes[i] < 0 || sizes[i] > static_cast<int64_t>(kMaxNumel)) {
        SHAPE_FAIL(g_, op_, Error::InvalidProgram, "argument 1 (size): entry %zu is %lld", i,
                   static_cast<long long>(sizes[i]));
      }
      s.dims[i] = static_cast<uint32_t>(sizes[i]);
      known *= s.dims[i];
      if (known > kMaxNumel) SHAPE_FAIL(g_, op_, Error::InvalidProgram, "size too large");
    }
    if (inferred >= 0) {
      if (known == 0 || in->numel % known != 0) {
        SHAPE_FAIL(g_, op_, Error::InvalidProgram,
                   "argument 1 (size): -1 cannot be inferred for %llu elements",
                   static_cast<unsigned long long>(in->numel));
      }
      s.dims[inferred] = static_cast<uint32_t>(in->numel / known);
      known = in->numel;
    }
    if (known != in->numel) {
      SHAPE_FAIL(
          g_, op_, Error::InvalidProgram, "argument 1 (size) has %llu elements, the input %llu",
          static_cast<unsigned long long>(known), static_cast<unsigned long long>(in->numel));
    }
    return set(op_.args.back(), s);
  }

  Error linear() {
    const TensorInfo *in, *w;
    ETR_RETURN_IF_ERROR(tensor_arg(0, "input", &in));
    ETR_RETURN_IF_ERROR(tensor_arg(1, "weight", &w));
    if (in->ndim < 1 || w->ndim != 2) {
      SHAPE_FAIL(g_, op_, Error::InvalidProgram, "input or weight has the wrong rank");
    }
    Shape s = shape_of(*in);
    s.dims[s.ndim - 1] = w->dims[0];
    return set(op_.args.back(), s);
  }

  // embedding(weight, indices, ...) and embedding_q4gsw(.., indices at
  // `idx_arg`, ..): the indices' shape followed by the row size.
  Error embedding(size_t idx_arg) {
    const TensorInfo* idx;
    ETR_RETURN_IF_ERROR(tensor_arg(idx_arg, "indices", &idx));
    const TensorInfo* out = g_.tensor(op_.args.back());
    if (out == nullptr || out->ndim != idx->ndim + 1) {
      SHAPE_FAIL(g_, op_, Error::InvalidProgram, "output must be the indices' shape and a row");
    }
    Shape s = shape_of(*idx);
    s.ndim = idx->ndim + 1;
    s.dims[idx->ndim] = out->dims[out->ndim - 1];
    return set(op_.args.back(), s);
  }

  // apply_rotary_emb(xq, xk, cos, sin) -> [xq_out, xk_out]: each output has
  // its input's shape.
  Error rotary() {
    const Value& list = g_.values[op_.args.back()];
    if (list.kind != Kind::ValueList || list.values.size() != 2) {
      SHAPE_FAIL(g_, op_, Error::InvalidProgram, "output %u is not a list of two tensors",
                 op_.args.back());
    }
    for (size_t k = 0; k < 2; ++k) {
      const TensorInfo* x;
      ETR_RETURN_IF_ERROR(tensor_arg(k, k == 0 ? "xq" : "xk", &x));
      ETR_RETURN_IF_ERROR(set(list.values[k], shape_of(*x)));
    }
    return Error::Ok;
  }

  Error bmm() {
    const TensorInfo *a, *b;
    ETR_RETURN_IF_ERROR(tensor_arg(0, "self", &a));
    ETR_RETURN_IF_ERROR(tensor_arg(1, "mat2", &b));
    if (a->ndim != 3 || b->ndim != 3) {
      SHAPE_FAIL(g_, op_, Error::InvalidProgram, "inputs must be 3-D");
    }
    Shape s;
    s.ndim = 3;
    s.dims[0] = a->dims[0];
    s.dims[1] = a->dims[1];
    s.dims[2] = b->dims[2];
    return set(op_.args.back(), s);
  }

  // An IntList argument of one or two entries as a pair (a single entry
  // counts for both); an empty list gives `empty_as` when it is not null.
  Error pair(size_t a, const char* field, const int64_t* empty_as, int64_t out[2]) const {
    const Value& v = g_.values[op_.args[a]];
    if (v.kind == Kind::IntList && v.ints.empty() && empty_as != nullptr) {
      out[0] = empty_as[0];
      out[1] = empty_as[1];
      return Error::Ok;
    }
    if (v.kind != Kind::IntList || v.ints.empty() || v.ints.size() > 2) {
      SHAPE_FAIL(g_, op_, Error::InvalidProgram, "argument %zu (%s) must list 1 or 2 ints", a,
                 field);
    }
    out[0] = v.ints[0];
    out[1] = v.ints.size() == 2 ? v.ints[1] : v.ints[0];
    for (int i = 0; i < 2; ++i) {
      if (out[i] < 0 || out[i] > (int64_t{1} << 20)) {
        SHAPE_FAIL(g_, op_, Error::InvalidProgram, "argument %zu (%s): entry %d is %lld", a, field,
                   i, static_cast<long long>(out[i]));
      }
    }
    return Error::Ok;
  }

  Error bool_arg(size_t a, const char* field, bool* out) const {
    const Value& v = g_.values[op_.args[a]];
    if (v.kind != Kind::Bool) {
      SHAPE_FAIL(g_, op_, Error::InvalidProgram, "argument %zu (%s) is a %s, not a Bool", a, field,
                 to_string(v.kind));
    }
    *out = v.bool_value;
    return Error::Ok;
  }

  // Output size of a sliding window (convolution, pooling) as PyTorch
  // computes it; negative when the window does not fit.
  static int64_t window(int64_t in, int64_t k, int64_t s, int64_t p, int64_t d, bool ceil_mode) {
    const int64_t span = in + 2 * p - d * (k - 1) - 1;
    if (span < 0 || s < 1) return -1;
    int64_t out = (ceil_mode ? (span + s - 1) / s : span / s) + 1;
    if (ceil_mode && (out - 1) * s >= in + p) --out;
    return out;
  }

  // The spatial output dims (oh, ow) of a 4-D tensor op: [in N, C from
  // the output, oh, ow] after checking they fit.
  Error set_spatial(uint32_t id, const TensorInfo& in, int64_t oh, int64_t ow, bool keep_channels) {
    const TensorInfo* out = g_.tensor(id);
    if (out == nullptr || out->ndim != in.ndim || in.ndim < 3) {
      SHAPE_FAIL(g_, op_, Error::InvalidProgram, "output value %u must have the input's rank", id);
    }
    if (oh < 1 || ow < 1) {
      SHAPE_FAIL(g_, op_, Error::InvalidProgram,
                 "an input of %u x %u gives an empty output (%lld x %lld)", in.dims[in.ndim - 2],
                 in.dims[in.ndim - 1], static_cast<long long>(oh), static_cast<long long>(ow));
    }
    Shape s = shape_of(in);
    if (!keep_channels) s.dims[1] = out->dims[1];
    s.dims[in.ndim - 2] = static_cast<uint32_t>(oh > (int64_t{1} << 30) ? 0 : oh);
    s.dims[in.ndim - 1] = static_cast<uint32_t>(ow > (int64_t{1} << 30) ? 0 : ow);
    return set(id, s);
  }

  // convolution(input, weight, bias, stride, padding, dilation, transposed,
  // output_padding, groups, [output_min, output_max,] out): N from the
  // input, the output channels as exported, the spatial dims as PyTorch.
  Error conv() {
    const TensorInfo *in, *w;
    ETR_RETURN_IF_ERROR(tensor_arg(0, "input", &in));
    ETR_RETURN_IF_ERROR(tensor_arg(1, "weight", &w));
    if (op_.args.size() < 10 || in->ndim != 4 || w->ndim != 4) {
      SHAPE_FAIL(g_, op_, Error::InvalidProgram, "a 2-D convolution needs 4-D input and weight");
    }
    int64_t st[2], pad[2], dil[2], opad[2];
    ETR_RETURN_IF_ERROR(pair(3, "stride", nullptr, st));
    ETR_RETURN_IF_ERROR(pair(4, "padding", nullptr, pad));
    ETR_RETURN_IF_ERROR(pair(5, "dilation", nullptr, dil));
    bool transposed = false;
    ETR_RETURN_IF_ERROR(bool_arg(6, "transposed", &transposed));
    int64_t o[2];
    for (int i = 0; i < 2; ++i) {
      const int64_t x = in->dims[2 + i], k = w->dims[2 + i];
      if (transposed) {
        ETR_RETURN_IF_ERROR(pair(7, "output_padding", nullptr, opad));
        o[i] = (x - 1) * st[i] - 2 * pad[i] + dil[i] * (k - 1) + opad[i] + 1;
      } else {
        o[i] = window(x, k, st[i], pad[i], dil[i], false);
      }
    }
    return set_spatial(op_.args.back(), *in, o[0], o[1], false);
  }

  // max_pool2d[_with_indices](self, kernel, stride, padding, dilation,
  // ceil_mode, out) and avg_pool2d(self, kernel, stride, padding,
  // ceil_mode, ...): the planner's window over the last two dims.
  Error pool(bool with_indices, size_t kernel_arg, size_t stride_arg) {
    const TensorInfo* in;
    ETR_RETURN_IF_ERROR(tensor_arg(0, "self", &in));
    const bool avg = op_.name == "aten.avg_pool2d.default";
    if (op_.args.size() < (avg ? 8u : 7u) || in->ndim < 3) {
      SHAPE_FAIL(g_, op_, Error::InvalidProgram, "pooling needs a 3-D or 4-D input");
    }
    int64_t k[2], st[2], pad[2], dil[2] = {1, 1};
    ETR_RETURN_IF_ERROR(pair(kernel_arg, "kernel_size", nullptr, k));
    ETR_RETURN_IF_ERROR(pair(stride_arg, "stride", k, st));
    ETR_RETURN_IF_ERROR(pair(3, "padding", nullptr, pad));
    if (!avg) ETR_RETURN_IF_ERROR(pair(4, "dilation", nullptr, dil));
    bool ceil_mode = false;
    ETR_RETURN_IF_ERROR(bool_arg(avg ? 4 : 5, "ceil_mode", &ceil_mode));
    const uint32_t h = in->dims[in->ndim - 2], w = in->dims[in->ndim - 1];
    const int64_t oh = window(h, k[0], st[0], pad[0], dil[0], ceil_mode);
    const int64_t ow = window(w, k[1], st[1], pad[1], dil[1], ceil_mode);
    if (!with_indices) return set_spatial(op_.args.back(), *in, oh, ow, true);
    const Value& list = g_.values[op_.args.back()];
    if (list.kind != Kind::ValueList || list.values.size() != 2) {
      SHAPE_FAIL(g_, op_, Error::InvalidProgram, "output %u is not a list of [values, indices]",
                 op_.args.back());
    }
    ETR_RETURN_IF_ERROR(set_spatial(list.values[0], *in, oh, ow, true));
    return set_spatial(list.values[1], *in, oh, ow, true);
  }

  // upsample_*2d.vec(input, output_size, [align_corners,] scale_factors,
  // out): a fixed output_size keeps the exported dims; scale factors give
  // floor(dim * scale) as PyTorch.
  Error upsample(size_t size_arg, size_t scales_arg) {
    const TensorInfo* in;
    ETR_RETURN_IF_ERROR(tensor_arg(0, "input", &in));
    if (op_.args.size() <= scales_arg || in->ndim != 4) {
      SHAPE_FAIL(g_, op_, Error::InvalidProgram, "upsampling needs a 4-D input");
    }
    const Value& size = g_.values[op_.args[size_arg]];
    const Value& scales = g_.values[op_.args[scales_arg]];
    int64_t o[2];
    if (size.kind == Kind::IntList && size.ints.size() == 2) {
      o[0] = size.ints[0];
      o[1] = size.ints[1];
    } else if (size.kind == Kind::Null && scales.kind == Kind::DoubleList &&
               scales.doubles.size() == 2) {
      for (int i = 0; i < 2; ++i) {
        const double v = std::floor(static_cast<double>(in->dims[2 + i]) * scales.doubles[i]);
        o[i] = v > 0 && v < 1e9 ? static_cast<int64_t>(v) : 0;
      }
    } else {
      SHAPE_FAIL(g_, op_, Error::InvalidProgram,
                 "needs an output_size of two ints or two scale factors");
    }
    return set_spatial(op_.args.back(), *in, o[0], o[1], true);
  }

  // cat(tensors, dim, out): the inputs' sizes along dim add up; the other
  // dims are the first non-empty input's.
  Error cat() {
    if (op_.args.size() != 3) {
      SHAPE_FAIL(g_, op_, Error::InvalidProgram, "%zu arguments, expected 3", op_.args.size());
    }
    const Value& list = g_.values[op_.args[0]];
    const TensorInfo* out = g_.tensor(op_.args[2]);
    if (list.kind != Kind::ValueList || list.values.empty() || out == nullptr) {
      SHAPE_FAIL(g_, op_, Error::InvalidProgram, "argument 0 (tensors) is not a list of tensors");
    }
    uint32_t dim;
    ETR_RETURN_IF_ERROR(dim_arg(1, out->ndim, &dim));
    Shape s;
    bool first = true;
    uint64_t total = 0;
    for (size_t k = 0; k < list.values.size(); ++k) {
      const TensorInfo* t = g_.tensor(list.values[k]);
      if (t == nullptr) {
        SHAPE_FAIL(g_, op_, Error::InvalidProgram, "tensors[%zu] is not a tensor", k);
      }
      if (t->ndim == 1 && t->dims[0] == 0) continue;  // PyTorch skips empty 1-D inputs
      if (t->ndim != out->ndim) {
        SHAPE_FAIL(g_, op_, Error::InvalidProgram, "tensors[%zu] has %u dims, the output %u", k,
                   t->ndim, out->ndim);
      }
      if (first) s = shape_of(*t);
      first = false;
      for (uint32_t i = 0; i < t->ndim; ++i) {
        if (i != dim && t->dims[i] != s.dims[i]) {
          SHAPE_FAIL(g_, op_, Error::InvalidProgram,
                     "tensors[%zu] has %u at dim %u, the first input %u", k, t->dims[i], i,
                     s.dims[i]);
        }
      }
      total += t->dims[dim];
    }
    if (first) return unchanged();
    s.dims[dim] = static_cast<uint32_t>(total > kMaxNumel ? kMaxNumel + 1 : total);
    return set(op_.args[2], s);
  }

  // squeeze_copy.dims(self, dims, out) / .dim(self, dim, out): the listed
  // dims of size 1 go (as exported: the output's rank is fixed).
  Error squeeze() {
    const TensorInfo* in;
    ETR_RETURN_IF_ERROR(tensor_arg(0, "self", &in));
    bool drop[kMaxDims] = {};
    if (op_.args.size() != 3) {
      SHAPE_FAIL(g_, op_, Error::InvalidProgram, "%zu arguments, expected 3", op_.args.size());
    }
    {
      const Value& dv = g_.values[op_.args[1]];
      int64_t list[kMaxDims];
      size_t n = 0;
      if (dv.kind == Kind::Int) {
        list[n++] = dv.int_value;
      } else if (dv.kind == Kind::IntList && dv.ints.size() <= kMaxDims) {
        for (int64_t d : dv.ints) list[n++] = d;
      } else {
        SHAPE_FAIL(g_, op_, Error::InvalidProgram, "argument 1 (dim) is a %s", to_string(dv.kind));
      }
      for (size_t k = 0; k < n; ++k) {
        const int64_t d = list[k] < 0 ? list[k] + in->ndim : list[k];
        if (d < 0 || d >= static_cast<int64_t>(in->ndim)) {
          SHAPE_FAIL(g_, op_, Error::InvalidProgram, "argument 1 (dim): %lld out of range",
                     static_cast<long long>(list[k]));
        }
        drop[d] = in->max_dims[d] == 1 || in->dims[d] == 1;
      }
    }
    Shape s;
    for (uint32_t i = 0; i < in->ndim; ++i) {
      if (drop[i] && in->dims[i] != 1) {
        SHAPE_FAIL(g_, op_, Error::InvalidProgram, "dim %u to squeeze has size %u", i, in->dims[i]);
      }
      if (!drop[i]) s.dims[s.ndim++] = in->dims[i];
    }
    return set(op_.args.back(), s);
  }

  // unsqueeze_copy(self, dim, out): a 1 inserted at dim.
  Error unsqueeze() {
    const TensorInfo* in;
    ETR_RETURN_IF_ERROR(tensor_arg(0, "self", &in));
    if (in->ndim >= kMaxDims) {
      SHAPE_FAIL(g_, op_, Error::InvalidProgram, "argument 0 (self) already has %u dims", in->ndim);
    }
    uint32_t dim;
    ETR_RETURN_IF_ERROR(dim_arg(1, in->ndim + 1, &dim));
    Shape s;
    for (uint32_t i = 0, j = 0; i <= in->ndim; ++i) s.dims[s.ndim++] = i == dim ? 1 : in->dims[j++];
    return set(op_.args.back(), s);
  }

  // expand_copy(self, size, implicit, out): -1 keeps the input's dim (the
  // input aligned to the right), other entries are the new sizes.
  Error expand() {
    const TensorInfo* in;
    ETR_RETURN_IF_ERROR(tensor_arg(0, "self", &in));
    if (op_.args.size() != 4) {
      SHAPE_FAIL(g_, op_, Error::InvalidProgram, "%zu arguments, expected 4", op_.args.size());
    }
    const Value& sv = g_.values[op_.args[1]];
    int64_t sizes[kMaxDims];
    size_t n = 0;
    if (sv.kind == Kind::IntList && sv.ints.size() <= kMaxDims) {
      n = sv.ints.size();
      for (size_t i = 0; i < n; ++i) sizes[i] = sv.ints[i];
    } else if (sv.kind == Kind::ValueList && sv.values.size() <= kMaxDims) {
      n = sv.values.size();
      for (size_t i = 0; i < n; ++i) {
        const Value& e = g_.values[sv.values[i]];
        if (e.kind != Kind::Int && e.kind != Kind::SymInt) {
          SHAPE_FAIL(g_, op_, Error::InvalidProgram, "argument 1 (size): entry %zu is a %s", i,
                     to_string(e.kind));
        }
        sizes[i] = e.int_value;
      }
    } else {
      SHAPE_FAIL(g_, op_, Error::InvalidProgram, "argument 1 (size) must list up to %zu sizes",
                 kMaxDims);
    }
    if (n < in->ndim) {
      SHAPE_FAIL(g_, op_, Error::InvalidProgram, "argument 1 (size) has fewer dims than the input");
    }
    Shape s;
    s.ndim = static_cast<uint32_t>(n);
    for (size_t i = 0; i < n; ++i) {
      const size_t lead = n - in->ndim;
      const int64_t have = i >= lead ? in->dims[i - lead] : -1;
      int64_t v = sizes[i];
      if (v == -1) {
        if (have < 0) {
          SHAPE_FAIL(g_, op_, Error::InvalidProgram, "argument 1 (size): -1 at a new dim %zu", i);
        }
        v = have;
      }
      if (v < 0 || v > static_cast<int64_t>(kMaxNumel) || (have >= 0 && have != 1 && have != v)) {
        SHAPE_FAIL(g_, op_, Error::InvalidProgram,
                   "argument 1 (size): entry %zu (%lld) does not expand the input's %lld", i,
                   static_cast<long long>(v), static_cast<long long>(have));
      }
      s.dims[i] = static_cast<uint32_t>(v);
    }
    return set(op_.args.back(), s);
  }

  // mean.dim / sum.dim_IntList(self, dims, keepdim, dtype, out) and
  // amax / amin(self, dims, keepdim, out): the listed dims (all when the
  // list is empty or null) become 1 with keepdim, or go.
  Error reduce() {
    const TensorInfo* in;
    ETR_RETURN_IF_ERROR(tensor_arg(0, "self", &in));
    if (op_.args.size() < 4) {
      SHAPE_FAIL(g_, op_, Error::InvalidProgram, "%zu arguments, expected 4 or 5", op_.args.size());
    }
    const Value& dv = g_.values[op_.args[1]];
    bool reduced[kMaxDims] = {};
    if (dv.kind == Kind::IntList && !dv.ints.empty()) {
      for (int64_t d : dv.ints) {
        if (d < 0) d += in->ndim;
        if (d < 0 || d >= static_cast<int64_t>(in->ndim)) {
          SHAPE_FAIL(g_, op_, Error::InvalidProgram, "argument 1 (dim): %lld out of range",
                     static_cast<long long>(d));
        }
        reduced[d] = true;
      }
    } else if (dv.kind == Kind::IntList || dv.kind == Kind::Null) {
      for (uint32_t i = 0; i < in->ndim; ++i) reduced[i] = true;
    } else {
      SHAPE_FAIL(g_, op_, Error::InvalidProgram, "argument 1 (dim) is a %s", to_string(dv.kind));
    }
    bool keepdim = false;
    ETR_RETURN_IF_ERROR(bool_arg(2, "keepdim", &keepdim));
    Shape s;
    for (uint32_t i = 0; i < in->ndim; ++i) {
      if (!reduced[i]) {
        s.dims[s.ndim++] = in->dims[i];
      } else if (keepdim) {
        s.dims[s.ndim++] = 1;
      }
    }
    return set(op_.args.back(), s);
  }

  Error permute() {
    const TensorInfo* in;
    ETR_RETURN_IF_ERROR(tensor_arg(0, "self", &in));
    if (op_.args.size() != 3) {
      SHAPE_FAIL(g_, op_, Error::InvalidProgram, "%zu arguments, expected 3", op_.args.size());
    }
    const Value& dv = g_.values[op_.args[1]];
    if (dv.kind != Kind::IntList || dv.ints.size() != in->ndim) {
      SHAPE_FAIL(g_, op_, Error::InvalidProgram, "argument 1 (dims) must list each of the %u dims",
                 in->ndim);
    }
    Shape s;
    s.ndim = in->ndim;
    for (uint32_t i = 0; i < in->ndim; ++i) {
      int64_t p = dv.ints[i];
      if (p < 0) p += in->ndim;
      if (p < 0 || p >= static_cast<int64_t>(in->ndim)) {
        SHAPE_FAIL(g_, op_, Error::InvalidProgram, "argument 1 (dims): entry %u out of range", i);
      }
      s.dims[i] = in->dims[p];
    }
    return set(op_.args.back(), s);
  }

  // A dim argument normalized against `ndim` dims.
  Error dim_arg(size_t a, uint32_t ndim, uint32_t* out) const {
    int64_t d;
    ETR_RETURN_IF_ERROR(int_arg(a, "dim", &d));
    if (d < 0) d += ndim;
    if (d < 0 || d >= static_cast<int64_t>(ndim)) {
      SHAPE_FAIL(g_, op_, Error::InvalidProgram, "argument %zu (dim) out of range for %u dims", a,
                 ndim);
    }
    *out = static_cast<uint32_t>(d);
    return Error::Ok;
  }

  // An optional (Null) Int or SymInt argument.
  Error optional_int(size_t a, const char* field, int64_t fallback, int64_t* out) const {
    if (a < op_.args.size() && g_.values[op_.args[a]].kind == Kind::Null) {
      *out = fallback;
      return Error::Ok;
    }
    return int_arg(a, field, out);
  }

  // slice_copy(self, dim, start, end, step, out): start and end clamp to the
  // dim's size as in PyTorch (negative ones count from the end).
  Error slice() {
    const TensorInfo* in;
    ETR_RETURN_IF_ERROR(tensor_arg(0, "self", &in));
    if (op_.args.size() != 6) {
      SHAPE_FAIL(g_, op_, Error::InvalidProgram, "%zu arguments, expected 6", op_.args.size());
    }
    uint32_t dim;
    ETR_RETURN_IF_ERROR(dim_arg(1, in->ndim, &dim));
    const int64_t size = in->dims[dim];
    int64_t start, end, step;
    ETR_RETURN_IF_ERROR(optional_int(2, "start", 0, &start));
    ETR_RETURN_IF_ERROR(optional_int(3, "end", size, &end));
    ETR_RETURN_IF_ERROR(optional_int(4, "step", 1, &step));
    if (step < 1)
      SHAPE_FAIL(g_, op_, Error::InvalidProgram, "argument 4 (step) is %lld",
                 static_cast<long long>(step));
    auto clamp = [size](int64_t v) {
      if (v < 0) v += size;
      return v < 0 ? 0 : (v > size ? size : v);
    };
    start = clamp(start);
    end = clamp(end);
    Shape s = shape_of(*in);
    s.dims[dim] = static_cast<uint32_t>(end > start ? (end - start + step - 1) / step : 0);
    return set(op_.args.back(), s);
  }

  // select_copy(self, dim, index, out): the dim goes.
  Error select_dim() {
    const TensorInfo* in;
    ETR_RETURN_IF_ERROR(tensor_arg(0, "self", &in));
    uint32_t dim;
    ETR_RETURN_IF_ERROR(dim_arg(1, in->ndim, &dim));
    Shape s;
    s.ndim = in->ndim - 1;
    for (uint32_t i = 0, j = 0; i < in->ndim; ++i) {
      if (i != dim) s.dims[j++] = in->dims[i];
    }
    return set(op_.args.back(), s);
  }

  // split_with_sizes_copy(self, split_sizes, dim, out: list): output k has
  // split_sizes[k] entries along dim and the input's other dims.
  Error split() {
    const TensorInfo* in;
    ETR_RETURN_IF_ERROR(tensor_arg(0, "self", &in));
    if (op_.args.size() != 4) {
      SHAPE_FAIL(g_, op_, Error::InvalidProgram, "%zu arguments, expected 4", op_.args.size());
    }
    uint32_t dim;
    ETR_RETURN_IF_ERROR(dim_arg(2, in->ndim, &dim));
    const Value& sizes = g_.values[op_.args[1]];
    const Value& list = g_.values[op_.args[3]];
    if (sizes.kind != Kind::IntList || list.kind != Kind::ValueList ||
        sizes.ints.size() != list.values.size()) {
      SHAPE_FAIL(g_, op_, Error::InvalidProgram,
                 "split_sizes and the output list must have one entry each");
    }
    for (size_t k = 0; k < list.values.size(); ++k) {
      if (sizes.ints[k] < 0 || sizes.ints[k] > static_cast<int64_t>(kMaxNumel)) {
        SHAPE_FAIL(g_, op_, Error::InvalidProgram, "split_sizes[%zu] is %lld", k,
                   static_cast<long long>(sizes.ints[k]));
      }
      Shape s = shape_of(*in);
      s.dims[dim] = static_cast<uint32_t>(sizes.ints[k]);
      ETR_RETURN_IF_ERROR(set(list.values[k], s));
    }
    return Error::Ok;
  }

  // No shape function: every tensor argument must still have its exported shape.
  Error unchanged() {
    for (size_t a = 0; a + 1 < op_.args.size(); ++a) {
      const TensorInfo* t = tensor(a);
      if (t == nullptr) continue;
      if (t->numel != t->max_numel ||
          std::memcmp(t->dims, t->max_dims, sizeof(uint32_t) * t->ndim) != 0) {
        SHAPE_FAIL(g_, op_, Error::NotSupported,
                   "argument %zu (value %u) changed shape, and this operator cannot be resized", a,
                   op_.args[a]);
      }
    }
    return Error::Ok;
  }

  Graph& g_;
  const Operator& op_;
};

}  // namespace

void infer_symint_inputs(Graph* g) {
  for (uint32_t id : g->inputs) {
    Value& sym = g->values[id];
    if (sym.kind != Kind::SymInt) continue;
    bool found = false;
    for (const Operator& op : g->ops) {
      if (found) break;
      if (op.args.empty()) continue;
      const TensorInfo* out = g->tensor(op.args.back());
      if (out == nullptr) continue;
      const bool sized = op.name == "aten.view_copy.default" ||
                         op.name == "aten._unsafe_view.default" ||
                         op.name == "aten.expand_copy.default";
      if (sized && op.args.size() >= 3) {
        const Value& list = g->values[op.args[1]];
        if (list.kind != Kind::ValueList || list.values.size() != out->ndim) continue;
        for (size_t k = 0; k < list.values.size() && !found; ++k) {
          if (list.values[k] != id) continue;
          sym.int_value = out->max_dims[k];
          found = true;
        }
      } else if (op.name == "aten.slice_copy.Tensor" && op.args.size() == 6 && op.args[3] == id) {
        const TensorInfo* in = g->tensor(op.args[0]);
        const Value& dim = g->values[op.args[1]];
        const Value& start = g->values[op.args[2]];
        const Value& step = g->values[op.args[4]];
        if (in == nullptr || dim.kind != Kind::Int || start.kind != Kind::Int ||
            step.kind != Kind::Int || step.int_value != 1 || start.int_value < 0) {
          continue;
        }
        int64_t d = dim.int_value < 0 ? dim.int_value + in->ndim : dim.int_value;
        if (d < 0 || d >= static_cast<int64_t>(out->ndim)) continue;
        sym.int_value = start.int_value + out->max_dims[d];
        found = true;
      }
    }
  }
}

Error propagate_shapes(Graph* g) {
  for (const Operator& op : g->ops) {
    Propagator p(g, op);
    ETR_RETURN_IF_ERROR(p.run());
  }
  return Error::Ok;
}

}  // namespace vulkan
}  // namespace etr
