#include "backends/vulkan/vk_graph.h"

#include <cstring>

#include "backends/vulkan/schema_generated.h"
#include "runtime/platform/log.h"

namespace etr {
namespace vulkan {
namespace {

namespace fb = etr_vkgraph;

constexpr uint64_t kNamedOffset = ~uint64_t{0};

uint64_t read_le(const uint8_t* p, size_t n) {
  uint64_t v = 0;
  for (size_t i = 0; i < n; ++i) v |= uint64_t{p[i]} << (8 * i);
  return v;
}

bool known_dtype(int8_t d) { return (d >= 0 && d <= 7) || d == 127; }
bool known_storage(uint8_t s) { return s <= 2 || s == 255; }
bool known_layout(uint8_t l) { return l <= 6 || l == 8 || l == 9 || l == 255; }

// Copies and checks one VkTensor.
Error parse_tensor(const fb::VkTensor* t, uint32_t id, size_t num_constants, size_t num_values,
                   size_t d, TensorInfo* out) {
  const int8_t dt = static_cast<int8_t>(t->datatype());
  ETR_CHECK_OR_FAIL(known_dtype(dt) && dt != 127, Error::InvalidProgram,
                    "VulkanBackend: delegate %zu: value %u: tensor datatype %d is unknown", d, id,
                    dt);
  out->dtype = static_cast<Dtype>(dt);
  // float16 (until the backend picks float16 storage) and bool (0 or 1)
  // tensors are float32 on the device.
  out->device =
      out->dtype == Dtype::Float16 || out->dtype == Dtype::Bool ? Dtype::Float32 : out->dtype;
  const int8_t st = static_cast<int8_t>(t->staging_datatype());
  ETR_CHECK_OR_FAIL(known_dtype(st), Error::InvalidProgram,
                    "VulkanBackend: delegate %zu: value %u: staging datatype %d is unknown", d, id,
                    st);
  out->staging = st == 127 ? out->dtype : static_cast<Dtype>(st);
  const uint8_t storage = static_cast<uint8_t>(t->storage_type());
  ETR_CHECK_OR_FAIL(known_storage(storage), Error::InvalidProgram,
                    "VulkanBackend: delegate %zu: value %u: storage type %u is unknown", d, id,
                    storage);
  out->storage = storage;
  const uint8_t layout = static_cast<uint8_t>(t->memory_layout());
  ETR_CHECK_OR_FAIL(known_layout(layout), Error::InvalidProgram,
                    "VulkanBackend: delegate %zu: value %u: memory layout %u is unknown", d, id,
                    layout);
  out->layout = layout;
  const flatbuffers::Vector<uint32_t>* dims = t->dims();
  const size_t n = dims == nullptr ? 0 : dims->size();
  ETR_CHECK_OR_FAIL(n <= kMaxDims, Error::InvalidProgram,
                    "VulkanBackend: delegate %zu: value %u: %zu dims (at most %zu)", d, id, n,
                    kMaxDims);
  out->ndim = static_cast<uint32_t>(n);
  uint64_t numel = 1;
  for (size_t i = 0; i < n; ++i) {
    const uint32_t s = dims->Get(static_cast<flatbuffers::uoffset_t>(i));
    ETR_CHECK_OR_FAIL(s <= kMaxNumel, Error::InvalidProgram,
                      "VulkanBackend: delegate %zu: value %u: dim %zu is %u (too large)", d, id, i,
                      s);
    out->dims[i] = s;
    numel *= s;  // each factor <= 2^30 and the running product is checked below
    ETR_CHECK_OR_FAIL(numel <= kMaxNumel, Error::InvalidProgram,
                      "VulkanBackend: delegate %zu: value %u: more than 2^30 elements", d, id);
  }
  out->numel = numel;
  std::memcpy(out->max_dims, out->dims, sizeof(out->dims));
  out->max_numel = numel;
  out->constant_id = t->constant_id();
  if (out->constant_id < 0) out->constant_id = -1;
  ETR_CHECK_OR_FAIL(out->constant_id < 0 || static_cast<size_t>(out->constant_id) < num_constants,
                    Error::InvalidProgram,
                    "VulkanBackend: delegate %zu: value %u: constant_id %d out of range (%zu "
                    "constants)",
                    d, id, out->constant_id, num_constants);
  out->mem_obj_id = t->mem_obj_id();
  if (out->mem_obj_id < 0) out->mem_obj_id = -1;
  // Memory objects are numbered densely by the exporter: never more than there are values.
  ETR_CHECK_OR_FAIL(out->mem_obj_id < 0 || static_cast<size_t>(out->mem_obj_id) < num_values,
                    Error::InvalidProgram,
                    "VulkanBackend: delegate %zu: value %u: mem_obj_id %d out of range (%zu "
                    "values)",
                    d, id, out->mem_obj_id, num_values);
  return Error::Ok;
}

Error parse_value(const fb::VkValue* v, uint32_t id, size_t num_constants, size_t num_values,
                  size_t d, Value* out) {
  ETR_CHECK_OR_FAIL(v != nullptr, Error::InvalidProgram,
                    "VulkanBackend: delegate %zu: value %u is missing", d, id);
  const uint8_t type = static_cast<uint8_t>(v->value_type());
  ETR_CHECK_OR_FAIL(type >= 1 && type <= 11, Error::InvalidProgram,
                    "VulkanBackend: delegate %zu: value %u: union type %u is unknown", d, id, type);
  out->kind = static_cast<Kind>(type);
  // The verifier accepts a union type whose table is absent.
  ETR_CHECK_OR_FAIL(v->value() != nullptr, Error::InvalidProgram,
                    "VulkanBackend: delegate %zu: value %u: %s without its table", d, id,
                    to_string(out->kind));
  switch (out->kind) {
    case Kind::Null: break;
    case Kind::Int: out->int_value = v->value_as_Int()->int_val(); break;
    case Kind::Double: out->double_value = v->value_as_Double()->double_val(); break;
    case Kind::Bool: out->bool_value = v->value_as_Bool()->bool_val(); break;
    case Kind::SymInt: out->int_value = v->value_as_SymInt()->value(); break;
    case Kind::String: {
      const flatbuffers::String* s = v->value_as_String()->string_val();
      if (s != nullptr) out->string.assign(s->c_str(), s->size());
      break;
    }
    case Kind::IntList: {
      // Copied bytewise: this flatbuffers' verifier checks a vector's
      // length word for 4-byte alignment only, so 8-byte items may be misaligned.
      const flatbuffers::Vector<int64_t>* items = v->value_as_IntList()->items();
      if (items != nullptr && items->size() > 0) {
        out->ints.resize(items->size());
        std::memcpy(out->ints.data(), items->Data(), items->size() * sizeof(int64_t));
      }
      break;
    }
    case Kind::DoubleList: {
      const flatbuffers::Vector<double>* items = v->value_as_DoubleList()->items();
      if (items != nullptr && items->size() > 0) {
        out->doubles.resize(items->size());
        std::memcpy(out->doubles.data(), items->Data(), items->size() * sizeof(double));
      }
      break;
    }
    case Kind::BoolList: {
      const flatbuffers::Vector<uint8_t>* items = v->value_as_BoolList()->items();
      if (items != nullptr) out->bools.assign(items->begin(), items->end());
      break;
    }
    case Kind::ValueList: {
      const flatbuffers::Vector<int32_t>* items = v->value_as_ValueList()->items();
      const size_t n = items == nullptr ? 0 : items->size();
      out->values.resize(n);
      for (size_t i = 0; i < n; ++i) {
        const int32_t item = items->Get(static_cast<flatbuffers::uoffset_t>(i));
        ETR_CHECK_OR_FAIL(item >= 0 && static_cast<size_t>(item) < num_values,
                          Error::InvalidProgram,
                          "VulkanBackend: delegate %zu: value %u: list item %zu is value id %d, "
                          "out of range (%zu values)",
                          d, id, i, item, num_values);
        out->values[i] = static_cast<uint32_t>(item);
      }
      break;
    }
    case Kind::Tensor:
      return parse_tensor(v->value_as_VkTensor(), id, num_constants, num_values, d, &out->tensor);
    case Kind::None: break;
  }
  return Error::Ok;
}

// Resolves constant i to bytes in the payload's byte region or in named data.
Error resolve_constant(const fb::VkBytes* c, size_t i, const uint8_t* bytes, uint64_t bytes_size,
                       const NamedDataMap* named, size_t d, Graph* g) {
  ETR_CHECK_OR_FAIL(c != nullptr, Error::InvalidProgram,
                    "VulkanBackend: delegate %zu: constant %zu is missing", d, i);
  Constant& out = g->constants[i];
  out.size = c->length();
  if (c->offset() == kNamedOffset) {
    const flatbuffers::String* key = c->named_key();
    ETR_CHECK_OR_FAIL(key != nullptr && key->size() > 0, Error::InvalidProgram,
                      "VulkanBackend: delegate %zu: constant %zu: offset says named data but "
                      "named_key is empty",
                      d, i);
    ETR_CHECK_OR_FAIL(named != nullptr, Error::NotFound,
                      "VulkanBackend: delegate %zu: constant %zu: named data '%s' but the program "
                      "has no named data",
                      d, i, key->c_str());
    Result<FreeableBuffer> buf = named->get_data(StringView(key->c_str(), key->size()));
    ETR_CHECK_OR_FAIL(buf.ok(), buf.error(),
                      "VulkanBackend: delegate %zu: constant %zu: named data key '%s' not found", d,
                      i, key->c_str());
    ETR_CHECK_OR_FAIL(buf->size() >= out.size, Error::InvalidProgram,
                      "VulkanBackend: delegate %zu: constant %zu: named data '%s' holds %zu bytes, "
                      "the payload says %llu",
                      d, i, key->c_str(), buf->size(), static_cast<unsigned long long>(out.size));
    out.data = static_cast<const uint8_t*>(buf->data());
    g->named_buffers.push_back(std::move(*buf));
    return Error::Ok;
  }
  ETR_CHECK_OR_FAIL(
      c->offset() <= bytes_size && out.size <= bytes_size - c->offset(), Error::InvalidProgram,
      "VulkanBackend: delegate %zu: constant %zu: bytes [%llu, +%llu) outside the "
      "payload's constant region (%llu bytes)",
      d, i, static_cast<unsigned long long>(c->offset()), static_cast<unsigned long long>(out.size),
      static_cast<unsigned long long>(bytes_size));
  out.data = bytes + c->offset();
  return Error::Ok;
}

Error read_ids(const flatbuffers::Vector<uint32_t>* ids, const char* what, size_t d, const Graph& g,
               std::vector<uint32_t>* out) {
  const size_t n = ids == nullptr ? 0 : ids->size();
  out->resize(n);
  for (size_t i = 0; i < n; ++i) {
    const uint32_t id = ids->Get(static_cast<flatbuffers::uoffset_t>(i));
    ETR_CHECK_OR_FAIL(id < g.values.size(), Error::InvalidProgram,
                      "VulkanBackend: delegate %zu: %s %zu: value id %u out of range (%zu values)",
                      d, what, i, id, g.values.size());
    // A SymInt passes a size between delegates (a program split in several).
    const TensorInfo* t = g.tensor(id);
    if (t == nullptr && g.values[id].kind == Kind::SymInt) {
      (*out)[i] = id;
      continue;
    }
    ETR_CHECK_OR_FAIL(t != nullptr, Error::InvalidProgram,
                      "VulkanBackend: delegate %zu: %s %zu: value %u is a %s, not a tensor or a "
                      "SymInt",
                      d, what, i, id, to_string(g.values[id].kind));
    ETR_CHECK_OR_FAIL(t->constant_id < 0, Error::InvalidProgram,
                      "VulkanBackend: delegate %zu: %s %zu: value %u is a constant", d, what, i,
                      id);
    (*out)[i] = id;
  }
  return Error::Ok;
}

}  // namespace

const char* to_string(Dtype d) {
  switch (d) {
    case Dtype::Bool: return "bool";
    case Dtype::UInt8: return "uint8";
    case Dtype::Int8: return "int8";
    case Dtype::Int32: return "int32";
    case Dtype::Float16: return "float16";
    case Dtype::Float32: return "float32";
    case Dtype::Float64: return "float64";
    case Dtype::Int64: return "int64";
    case Dtype::Unset: return "unset";
  }
  return "unknown";
}

size_t element_size(Dtype d) {
  switch (d) {
    case Dtype::Bool:
    case Dtype::UInt8:
    case Dtype::Int8: return 1;
    case Dtype::Float16: return 2;
    case Dtype::Int32:
    case Dtype::Float32: return 4;
    case Dtype::Float64:
    case Dtype::Int64: return 8;
    case Dtype::Unset: return 0;
  }
  return 0;
}

const char* to_string(Kind k) {
  switch (k) {
    case Kind::None: return "none";
    case Kind::Null: return "Null";
    case Kind::Int: return "Int";
    case Kind::Double: return "Double";
    case Kind::Bool: return "Bool";
    case Kind::Tensor: return "VkTensor";
    case Kind::IntList: return "IntList";
    case Kind::DoubleList: return "DoubleList";
    case Kind::BoolList: return "BoolList";
    case Kind::ValueList: return "ValueList";
    case Kind::String: return "String";
    case Kind::SymInt: return "SymInt";
  }
  return "unknown";
}

Error parse_header(const uint8_t* data, size_t size, size_t d, Header* out) {
  ETR_CHECK_OR_FAIL(data != nullptr && size >= kHeaderSize, Error::DelegateInvalidCompatibility,
                    "VulkanBackend: delegate %zu: payload of %zu bytes is shorter than the VH00 "
                    "header (%zu)",
                    d, size, kHeaderSize);
  ETR_CHECK_OR_FAIL(std::memcmp(data + 4, "VH00", 4) == 0, Error::DelegateInvalidCompatibility,
                    "VulkanBackend: delegate %zu: payload has no VH00 header (magic bytes 4..7)",
                    d);
  const uint64_t header_size = read_le(data + 8, 2);
  ETR_CHECK_OR_FAIL(header_size == kHeaderSize, Error::DelegateInvalidCompatibility,
                    "VulkanBackend: delegate %zu: header_size is %llu, expected %zu", d,
                    static_cast<unsigned long long>(header_size), kHeaderSize);
  out->flatbuffer_offset = static_cast<uint32_t>(read_le(data + 10, 4));
  out->flatbuffer_size = static_cast<uint32_t>(read_le(data + 14, 4));
  out->bytes_offset = static_cast<uint32_t>(read_le(data + 18, 4));
  out->bytes_size = read_le(data + 22, 8);
  const uint64_t fb_end = uint64_t{out->flatbuffer_offset} + out->flatbuffer_size;
  ETR_CHECK_OR_FAIL(
      out->flatbuffer_offset >= kHeaderSize && out->flatbuffer_size > 0 && fb_end <= size,
      Error::InvalidProgram,
      "VulkanBackend: delegate %zu: header: flatbuffer [%u, +%u) outside the "
      "payload (%zu bytes)",
      d, out->flatbuffer_offset, out->flatbuffer_size, size);
  ETR_CHECK_OR_FAIL(out->bytes_offset <= size && out->bytes_size <= size - out->bytes_offset,
                    Error::InvalidProgram,
                    "VulkanBackend: delegate %zu: header: constant bytes [%u, +%llu) outside the "
                    "payload (%zu bytes)",
                    d, out->bytes_offset, static_cast<unsigned long long>(out->bytes_size), size);
  return Error::Ok;
}

Error parse_graph(const uint8_t* data, size_t size, const NamedDataMap* named, size_t d, Graph* g) {
  Header h;
  ETR_RETURN_IF_ERROR(parse_header(data, size, d, &h));
  const uint8_t* fbuf = data + h.flatbuffer_offset;
  // The verifier checks field alignment relative to memory: read a
  // misaligned flatbuffer from an aligned copy (nothing keeps pointers into it).
  std::vector<uint64_t> aligned;
  if (reinterpret_cast<uintptr_t>(fbuf) % 8 != 0) {
    aligned.resize((size_t{h.flatbuffer_size} + 7) / 8);
    std::memcpy(aligned.data(), fbuf, h.flatbuffer_size);
    fbuf = reinterpret_cast<const uint8_t*>(aligned.data());
  }
  ETR_CHECK_OR_FAIL(
      flatbuffers::BufferHasIdentifier(fbuf, fb::VkGraphIdentifier()) && h.flatbuffer_size >= 8,
      Error::DelegateInvalidCompatibility,
      "VulkanBackend: delegate %zu: flatbuffer identifier is not VK00", d);
  flatbuffers::Verifier::Options vopts;
  vopts.max_depth = 16;
  vopts.max_tables = 1u << 22;
  flatbuffers::Verifier verifier(fbuf, h.flatbuffer_size, vopts);
  ETR_CHECK_OR_FAIL(fb::VerifyVkGraphBuffer(verifier), Error::InvalidProgram,
                    "VulkanBackend: delegate %zu: VkGraph flatbuffer failed verification", d);
  const fb::VkGraph* graph = fb::GetVkGraph(fbuf);
  g->delegate_index = d;

  const size_t num_constants = graph->constants() == nullptr ? 0 : graph->constants()->size();
  const size_t num_values = graph->values() == nullptr ? 0 : graph->values()->size();
  ETR_CHECK_OR_FAIL(num_values < kNoId, Error::InvalidProgram,
                    "VulkanBackend: delegate %zu: too many values", d);
  g->values.resize(num_values);
  for (size_t i = 0; i < num_values; ++i) {
    ETR_RETURN_IF_ERROR(parse_value(graph->values()->Get(static_cast<flatbuffers::uoffset_t>(i)),
                                    static_cast<uint32_t>(i), num_constants, num_values, d,
                                    &g->values[i]));
    if (g->values[i].kind == Kind::SymInt) g->dynamic = true;
  }

  g->constants.resize(num_constants);
  const uint8_t* bytes = data + h.bytes_offset;
  for (size_t i = 0; i < num_constants; ++i) {
    ETR_RETURN_IF_ERROR(
        resolve_constant(graph->constants()->Get(static_cast<flatbuffers::uoffset_t>(i)), i, bytes,
                         h.bytes_size, named, d, g));
  }
  // A constant tensor's bytes must be exactly its dims times its element size.
  for (size_t i = 0; i < num_values; ++i) {
    const Value& v = g->values[i];
    if (v.kind != Kind::Tensor || v.tensor.constant_id < 0) continue;
    const Constant& c = g->constants[static_cast<size_t>(v.tensor.constant_id)];
    ETR_CHECK_OR_FAIL(c.size == v.tensor.nbytes(), Error::InvalidProgram,
                      "VulkanBackend: delegate %zu: value %zu: constant %d holds %llu bytes, the "
                      "tensor (%s, %llu elements) needs %llu",
                      d, i, v.tensor.constant_id, static_cast<unsigned long long>(c.size),
                      to_string(v.tensor.dtype), static_cast<unsigned long long>(v.tensor.numel),
                      static_cast<unsigned long long>(v.tensor.nbytes()));
  }

  ETR_RETURN_IF_ERROR(read_ids(graph->input_ids(), "input", d, *g, &g->inputs));
  ETR_RETURN_IF_ERROR(read_ids(graph->output_ids(), "output", d, *g, &g->outputs));

  const size_t num_ops = graph->chain() == nullptr ? 0 : graph->chain()->size();
  g->ops.resize(num_ops);
  for (size_t i = 0; i < num_ops; ++i) {
    const fb::OperatorCall* call = graph->chain()->Get(static_cast<flatbuffers::uoffset_t>(i));
    Operator& op = g->ops[i];
    op.index = static_cast<uint32_t>(i);
    ETR_CHECK_OR_FAIL(call != nullptr && call->name() != nullptr && call->name()->size() > 0,
                      Error::InvalidProgram,
                      "VulkanBackend: delegate %zu: operator %zu has no name", d, i);
    op.name.assign(call->name()->c_str(), call->name()->size());
    const size_t nargs = call->args() == nullptr ? 0 : call->args()->size();
    ETR_CHECK_OR_FAIL(nargs > 0, Error::InvalidProgram,
                      "VulkanBackend: delegate %zu: operator %zu (%s) has no arguments", d, i,
                      op.name.c_str());
    op.args.resize(nargs);
    for (size_t a = 0; a < nargs; ++a) {
      const int32_t id = call->args()->Get(static_cast<flatbuffers::uoffset_t>(a));
      ETR_CHECK_OR_FAIL(id >= 0 && static_cast<size_t>(id) < num_values, Error::InvalidProgram,
                        "VulkanBackend: delegate %zu: operator %zu (%s): arg %zu: value id %d out "
                        "of range (%zu values)",
                        d, i, op.name.c_str(), a, id, num_values);
      op.args[a] = static_cast<uint32_t>(id);
    }
  }
  return Error::Ok;
}

}  // namespace vulkan
}  // namespace etr
