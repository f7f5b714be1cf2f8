#include "backends/vulkan/vk_shapes.h"

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
                                  nullptr};

// Elementwise operators of two broadcast tensors.
const char* const kBinary[] = {
    "aten.add.Tensor",      "aten.sub.Tensor",      "aten.mul.Tensor",        "aten.div.Tensor",
    "aten.maximum.default", "aten.minimum.default", "aten.pow.Tensor_Tensor", nullptr};

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

  Error binary() {
    const TensorInfo *a, *b;
    ETR_RETURN_IF_ERROR(tensor_arg(0, "self", &a));
    ETR_RETURN_IF_ERROR(tensor_arg(1, "other", &b));
    Shape s;
    s.ndim = a->ndim > b->ndim ? a->ndim : b->ndim;
    for (uint32_t i = 0; i < s.ndim; ++i) {
      const uint32_t da = i < a->ndim ? a->dims[a->ndim - 1 - i] : 1;
      const uint32_t db = i < b->ndim ? b->dims[b->ndim - 1 - i] : 1;
      if (da != db && da != 1 && db != 1) {
        SHAPE_FAIL(g_, op_, Error::InvalidProgram,
                   "the inputs do not broadcast (%u and %u at dim %u from the end)", da, db, i);
      }
      s.dims[s.ndim - 1 - i] = da == 1 ? db : da;
    }
    return set(op_.args.back(), s);
  }

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

Error propagate_shapes(Graph* g) {
  for (const Operator& op : g->ops) {
    Propagator p(g, op);
    ETR_RETURN_IF_ERROR(p.run());
  }
  return Error::Ok;
}

}  // namespace vulkan
}  // namespace etr
