// _etr: the native half of the `etr` Python package (see python/etr/runtime.py
// for the public API, shaped like the official `executorch.runtime`).
//
// One _etr.Module wraps one etr::Module. Inputs are numpy arrays (any dtype
// the core has, float16 and bool included), Python scalars, or
// (array, scalar_type_code) pairs for dtypes numpy lacks (bfloat16). A
// C-contiguous, native-byte-order array is borrowed, not copied: the tensor
// points at the array's buffer, and the array is kept alive until the next
// execute of the same Module (the method may keep a pointer to an unplanned
// input). runtime.py makes other arrays contiguous first.
//
// Outputs: etr::Module copies every output out of the method's planned memory
// (the next execute overwrites that memory, and a mutable-buffer method would
// change arrays the user still holds). That copy is handed to numpy without a
// second one: the array's base is a capsule owning the output Value. BFloat16
// outputs come back as ("BFloat16", uint16 array) for runtime.py to widen.
//
// ETDump: with enable_etdump, every method load and execute of the Module is
// recorded (devtools/etdump, the official record the Inspector reads); a
// debug buffer of debug_buffer_size bytes (> 0) also logs every operator's
// and delegate's outputs, as the official Python runtime does. Methods then
// load without kernel fusion. write_etdump writes the record and the whole
// debug buffer.
//
// Errors: every failure raises _etr.Error (a RuntimeError) with `.code` (the
// etr::Error name) and `.message` (what the runtime logged, collected with
// etr::ErrorCapture: it names the method and input index).
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "devtools/etdump/etdump_observer.h"
#include "devtools/etdump/etdump_writer.h"
#include "extension/bundled_program/bundled_program.h"
#include "extension/module/module.h"
#include "extension/module/value.h"
#include "runtime/backend/backend.h"
#include "runtime/core/error.h"
#include "runtime/core/scalar_type.h"
#include "runtime/kernel/registry.h"
#include "runtime/platform/error_capture.h"

namespace py = pybind11;

#if ETR_PYTHON_HAS_LLM
// python/etr/_etr_llm.cpp: the submodule _etr.llm.
void etr_bind_llm(py::module_& m, py::handle error_type);
#endif

namespace {

struct EtrError {
  std::string code;
  std::string message;
};

constexpr size_t kCaptureBytes = 2048;

[[noreturn]] void raise(etr::Error err, const std::string& message) {
  throw EtrError{etr::to_string(err), message.empty() ? etr::to_string(err) : message};
}

// numpy dtype -> ScalarType; false when the core has no such dtype.
bool scalar_type_of(const py::dtype& dt, etr::ScalarType* out) {
  const char kind = dt.kind();
  const auto size = dt.itemsize();
  using etr::ScalarType;
  switch (kind) {
    case 'b': *out = ScalarType::Bool; return size == 1;
    case 'f':
      if (size == 2) *out = ScalarType::Half;
      if (size == 4) *out = ScalarType::Float;
      if (size == 8) *out = ScalarType::Double;
      return size == 2 || size == 4 || size == 8;
    case 'i':
      if (size == 1) *out = ScalarType::Char;
      if (size == 2) *out = ScalarType::Short;
      if (size == 4) *out = ScalarType::Int;
      if (size == 8) *out = ScalarType::Long;
      return size == 1 || size == 2 || size == 4 || size == 8;
    case 'u':
      if (size == 1) *out = ScalarType::Byte;
      if (size == 2) *out = ScalarType::UInt16;
      if (size == 4) *out = ScalarType::UInt32;
      if (size == 8) *out = ScalarType::UInt64;
      return size == 1 || size == 2 || size == 4 || size == 8;
    case 'c':
      if (size == 8) *out = ScalarType::ComplexFloat;
      if (size == 16) *out = ScalarType::ComplexDouble;
      return size == 8 || size == 16;
    default: return false;
  }
}

// ScalarType -> numpy dtype string; nullptr when numpy has none.
const char* numpy_dtype_of(etr::ScalarType t) {
  using etr::ScalarType;
  switch (t) {
    case ScalarType::Byte: return "u1";
    case ScalarType::Char: return "i1";
    case ScalarType::Short: return "i2";
    case ScalarType::Int: return "i4";
    case ScalarType::Long: return "i8";
    case ScalarType::Half: return "f2";
    case ScalarType::Float: return "f4";
    case ScalarType::Double: return "f8";
    case ScalarType::ComplexFloat: return "c8";
    case ScalarType::ComplexDouble: return "c16";
    case ScalarType::Bool: return "?";
    case ScalarType::UInt16: return "u2";
    case ScalarType::UInt32: return "u4";
    case ScalarType::UInt64: return "u8";
    case ScalarType::BFloat16: return "u2";  // raw bits; runtime.py converts
    default: return nullptr;
  }
}

py::dict tensor_info_dict(const etr::TensorInfo& info) {
  py::dict d;
  d["dtype"] = static_cast<int>(info.dtype);
  d["dtype_name"] = etr::to_string(info.dtype);
  const char* np = numpy_dtype_of(info.dtype);
  d["numpy_dtype"] = (np == nullptr || info.dtype == etr::ScalarType::BFloat16)
                         ? py::object(py::none())
                         : py::object(py::str(np));
  d["sizes"] = std::vector<int32_t>(info.sizes.begin(), info.sizes.end());
  d["dim_order"] = std::vector<int>(info.dim_order.begin(), info.dim_order.end());
  d["is_memory_planned"] = info.is_memory_planned;
  d["nbytes"] = info.nbytes;
  d["is_dynamic"] = info.is_dynamic;
  return d;
}

// A verified .bpte file (BundledProgram) in 16-byte aligned memory of its own.
// Methods whose inputs were loaded from it keep it alive (PyModule::kept_bundles_).
class PyBundle {
 public:
  explicit PyBundle(const py::bytes& data) {
    const std::string bytes = data;
    // A multiple of 16 bytes, so the copy is 16-byte aligned like the file.
    storage_.resize(bytes.size() / 16 + 1);
    std::memcpy(storage_.data(), bytes.data(), bytes.size());
    size_ = bytes.size();
    char why[kCaptureBytes] = {};
    etr::ErrorCapture capture(why, sizeof(why));
    etr::Result<etr::BundledProgram> bp = etr::BundledProgram::load(storage_.data(), size_);
    if (!bp.ok()) raise(bp.error(), std::string("bundled program: ") + why);
    bundle_ = std::make_unique<etr::BundledProgram>(std::move(*bp));
  }

  py::bytes program_data() const {
    etr::Span<const uint8_t> p = bundle_->program_data();
    return py::bytes(reinterpret_cast<const char*>(p.data()), p.size());
  }

  std::vector<std::string> method_names() const {
    std::vector<std::string> names;
    for (size_t i = 0; i < bundle_->num_suites(); ++i) {
      etr::Result<const char*> n = bundle_->suite_method_name(i);
      if (n.ok()) names.emplace_back(*n);
    }
    return names;
  }

  size_t num_test_cases(const std::string& method) const {
    char why[kCaptureBytes] = {};
    etr::ErrorCapture capture(why, sizeof(why));
    etr::Result<size_t> n = bundle_->num_test_cases(method.c_str());
    if (!n.ok()) raise(n.error(), why);
    return *n;
  }

  const etr::BundledProgram& get() const { return *bundle_; }

 private:
  struct alignas(16) Block {
    uint8_t bytes[16];
  };
  std::vector<Block> storage_;
  size_t size_ = 0;
  std::unique_ptr<etr::BundledProgram> bundle_;
};

// enable_etdump: the writer, its observer and the debug buffer.
struct EtdumpRecording {
  etr::etdump::ETDumpWriter writer;
  etr::etdump::ETDumpObserver observer{&writer};
  std::unique_ptr<uint8_t, decltype(&std::free)> debug{nullptr, &std::free};
  size_t debug_size = 0;
  etr::etdump::BufferDataSink sink;
};

std::unique_ptr<EtdumpRecording> start_etdump(bool enable, size_t debug_buffer_size) {
  if (!enable) return nullptr;
  auto rec = std::make_unique<EtdumpRecording>();
  if (debug_buffer_size > 0) {
    // 64-byte aligned like the official sink's blobs.
    const size_t rounded = (debug_buffer_size + 63) / 64 * 64;
    rec->debug.reset(static_cast<uint8_t*>(std::aligned_alloc(64, rounded)));
    if (rec->debug == nullptr) {
      raise(etr::Error::MemoryAllocationFailed,
            "cannot allocate a " + std::to_string(debug_buffer_size) + "-byte debug buffer");
    }
    std::memset(rec->debug.get(), 0, rounded);
    rec->debug_size = debug_buffer_size;
    rec->sink =
        etr::etdump::BufferDataSink(etr::Span<uint8_t>(rec->debug.get(), debug_buffer_size));
    rec->writer.set_data_sink(&rec->sink);
    rec->observer.set_debug_level(etr::etdump::DebugLevel::kIntermediateOutputs);
  }
  return rec;
}

void write_bytes(const std::string& path, const void* data, size_t size) {
  std::FILE* f = std::fopen(path.c_str(), "wb");
  bool ok = f != nullptr && std::fwrite(data, 1, size, f) == size;
  if (f != nullptr) ok = std::fclose(f) == 0 && ok;
  if (!ok) raise(etr::Error::AccessFailed, "cannot write '" + path + "'");
}

class PyModule {
 public:
  PyModule(std::string path, std::vector<std::string> data_paths, size_t num_threads,
           bool enable_etdump, size_t debug_buffer_size)
      : etdump_(start_etdump(enable_etdump, debug_buffer_size)),
        module_(std::move(path), std::move(data_paths), options(num_threads, etdump_.get())) {
    char why[kCaptureBytes] = {};
    etr::Error err;
    {
      py::gil_scoped_release release;
      std::lock_guard<std::mutex> lock(mu_);
      etr::ErrorCapture capture(why, sizeof(why));
      err = module_.load();
    }
    if (err != etr::Error::Ok) raise(err, why);
  }

  std::vector<std::string> method_names() {
    char why[kCaptureBytes] = {};
    std::lock_guard<std::mutex> lock(mu_);
    etr::ErrorCapture capture(why, sizeof(why));
    etr::Result<std::vector<std::string>> names = module_.method_names();
    if (!names.ok()) raise(names.error(), why);
    return *names;
  }

  py::dict method_meta(const std::string& name) {
    char why[kCaptureBytes] = {};
    std::lock_guard<std::mutex> lock(mu_);
    etr::ErrorCapture capture(why, sizeof(why));
    etr::Result<etr::MethodMeta> meta = module_.method_meta(name);
    if (!meta.ok()) raise(meta.error(), why);
    py::dict d;
    d["name"] = name;
    d["inputs"] = values_meta(*meta, meta->num_inputs(), true, why);
    d["outputs"] = values_meta(*meta, meta->num_outputs(), false, why);
    d["num_instructions"] = meta->num_instructions();
    std::vector<int64_t> planned;
    for (size_t i = 0; i < meta->num_memory_planned_buffers(); ++i) {
      etr::Result<int64_t> size = meta->memory_planned_buffer_size(i);
      if (!size.ok()) raise(size.error(), why);
      planned.push_back(*size);
    }
    d["memory_planned_buffer_sizes"] = planned;
    std::vector<std::string> backends;
    for (size_t i = 0; i < meta->num_backends(); ++i) {
      etr::Result<const char*> b = meta->get_backend_name(i);
      if (!b.ok()) raise(b.error(), why);
      backends.emplace_back(*b);
    }
    d["backends"] = backends;
    return d;
  }

  void load_method(const std::string& name) {
    char why[kCaptureBytes] = {};
    etr::Error err;
    {
      py::gil_scoped_release release;
      std::lock_guard<std::mutex> lock(mu_);
      etr::ErrorCapture capture(why, sizeof(why));
      err = module_.load_method(name);
    }
    if (err != etr::Error::Ok) raise(err, why);
  }

  // Writes the ETDump of everything since the last write (a new one starts)
  // and, when there is one, the whole debug buffer.
  void write_etdump(const std::string& etdump_path, const std::string& debug_buffer_path) {
    std::lock_guard<std::mutex> lock(mu_);
    if (etdump_ == nullptr) {
      raise(etr::Error::InvalidState,
            "ETDump is not enabled: load the program with enable_etdump=True");
    }
    if (etdump_->observer.logging_error() != etr::Error::Ok) {
      raise(etdump_->observer.logging_error(),
            "the debug buffer is too small for the values logged (debug_buffer_size=" +
                std::to_string(etdump_->debug_size) + ")");
    }
    const std::vector<uint8_t> bytes = etdump_->writer.finish();
    write_bytes(etdump_path, bytes.data(), bytes.size());
    if (etdump_->debug != nullptr && !debug_buffer_path.empty())
      write_bytes(debug_buffer_path, etdump_->debug.get(), etdump_->debug_size);
  }

  py::list execute(const std::string& name, const py::sequence& inputs) {
    const std::vector<std::string>& declared = input_tags(name);
    if (inputs.size() != declared.size()) {  // before converting anything
      raise(etr::Error::InvalidArgument, "method '" + name + "' takes " +
                                             std::to_string(declared.size()) + " inputs, got " +
                                             std::to_string(inputs.size()));
    }
    std::vector<etr::Value> values;
    py::list keep;  // borrowed buffers, alive until the next execute
    values.reserve(inputs.size());
    for (size_t i = 0; i < inputs.size(); ++i) {
      values.push_back(to_value(name, i, inputs[i], declared[i], &keep));
    }
    char why[kCaptureBytes] = {};
    auto run = [&]() -> etr::Result<std::vector<etr::Value>> {
      py::gil_scoped_release release;
      std::lock_guard<std::mutex> lock(mu_);
      etr::ErrorCapture capture(why, sizeof(why));
      return module_.execute(name, values);
    };
    etr::Result<std::vector<etr::Value>> outs = run();
    kept_inputs_ = keep;
    if (!outs.ok()) raise(outs.error(), why);
    py::list result;
    for (size_t i = 0; i < outs->size(); ++i) result.append(to_python(name, i, (*outs)[i]));
    return result;
  }

  // Runs `name` with the inputs it holds (from the last execute or a bundled
  // test case).
  py::list run(const std::string& name) {
    char why[kCaptureBytes] = {};
    auto call = [&]() -> etr::Result<std::vector<etr::Value>> {
      py::gil_scoped_release release;
      std::lock_guard<std::mutex> lock(mu_);
      etr::ErrorCapture capture(why, sizeof(why));
      return module_.run(name);
    };
    etr::Result<std::vector<etr::Value>> outs = call();
    if (!outs.ok()) raise(outs.error(), why);
    py::list result;
    for (size_t i = 0; i < outs->size(); ++i) result.append(to_python(name, i, (*outs)[i]));
    return result;
  }

  // Sets every input of `name` from test case `test_case` of `bundle`; the
  // method then reads the bundle's memory, so the bundle is kept alive.
  void load_bundled_input(py::object bundle, const std::string& name, size_t test_case) {
    const PyBundle& b = bundle.cast<const PyBundle&>();
    char why[kCaptureBytes] = {};
    etr::Error err;
    {
      std::lock_guard<std::mutex> lock(mu_);
      etr::ErrorCapture capture(why, sizeof(why));
      etr::Result<etr::Method*> m = module_.method(name);
      err = m.ok() ? b.get().load_inputs(**m, test_case) : m.error();
    }
    if (err != etr::Error::Ok) raise(err, why);
    kept_bundles_.append(bundle);
  }

  // Compares the outputs of the last run of `name` with test case
  // `test_case`'s expected outputs: a dict with the comparison's figures.
  py::dict compare_bundled_outputs(const PyBundle& bundle, const std::string& name,
                                   size_t test_case, double rtol, double atol) {
    char why[kCaptureBytes] = {};
    auto compare = [&]() -> etr::Result<etr::BundledComparison> {
      std::lock_guard<std::mutex> lock(mu_);
      etr::ErrorCapture capture(why, sizeof(why));
      etr::Result<etr::Method*> m = module_.method(name);
      if (!m.ok()) return m.error();
      return bundle.get().compare_outputs(**m, test_case, rtol, atol);
    };
    etr::Result<etr::BundledComparison> cmp = compare();
    if (!cmp.ok()) raise(cmp.error(), why);
    py::dict d;
    d["passed"] = cmp->passed;
    d["mismatches"] = cmp->mismatches;
    d["max_abs_error"] = cmp->max_abs_error;
    d["max_rel_error"] = cmp->max_rel_error;
    d["worst_output"] = cmp->worst_output;
    d["worst_index"] = cmp->worst_index;
    d["worst_actual"] = cmp->worst_actual;
    d["worst_expected"] = cmp->worst_expected;
    return d;
  }

 private:
  // The declared kind ("Tensor", "Int", ...) of each input; NotFound for an
  // unknown method.
  const std::vector<std::string>& input_tags(const std::string& name) {
    auto it = input_tags_.find(name);
    if (it != input_tags_.end()) return it->second;
    std::vector<std::string> tags;
    for (py::handle d : py::list(method_meta(name)["inputs"])) {
      tags.push_back(py::cast<std::string>(py::dict(py::reinterpret_borrow<py::dict>(d))["tag"]));
    }
    return input_tags_.emplace(name, std::move(tags)).first->second;
  }

  static etr::ModuleOptions options(size_t num_threads, EtdumpRecording* etdump) {
    etr::ModuleOptions o;
    o.num_threads = num_threads;
    if (etdump != nullptr) {
      o.observer = &etdump->observer;
      o.kernel_fusion = false;  // one event per operator of the program
    }
    return o;
  }

  static py::list values_meta(const etr::MethodMeta& meta, size_t n, bool inputs, const char* why) {
    py::list list;
    for (size_t i = 0; i < n; ++i) {
      etr::Result<etr::Tag> tag = inputs ? meta.input_tag(i) : meta.output_tag(i);
      if (!tag.ok()) raise(tag.error(), why);
      py::dict d;
      if (*tag == etr::Tag::Tensor) {
        etr::Result<etr::TensorInfo> info =
            inputs ? meta.input_tensor_meta(i) : meta.output_tensor_meta(i);
        if (!info.ok()) raise(info.error(), why);
        d = tensor_info_dict(*info);
      }
      d["tag"] = etr::to_string(*tag);
      list.append(d);
    }
    return list;
  }

  // One Python input -> Value, per the declared tag of input `index`.
  static etr::Value to_value(const std::string& method, size_t index, py::handle obj,
                             const std::string& tag, py::list* keep) {
    const std::string where = "method '" + method + "' input " + std::to_string(index) + ": ";
    // Scalars (also 0-d arrays and numpy scalars when the method wants a scalar).
    if (tag != "Tensor") {
      py::object v = py::reinterpret_borrow<py::object>(obj);
      if (py::isinstance<py::array>(v) && py::array(v).ndim() == 0) v = v.attr("item")();
      if (py::hasattr(v, "dtype") && py::hasattr(v, "item") && !py::isinstance<py::array>(v)) {
        v = v.attr("item")();  // numpy scalar
      }
      if (py::isinstance<py::bool_>(v)) return etr::Value(v.cast<bool>());
      if (py::isinstance<py::int_>(v)) return etr::Value(v.cast<int64_t>());
      if (py::isinstance<py::float_>(v)) return etr::Value(v.cast<double>());
      if (py::isinstance<py::str>(v)) return etr::Value(v.cast<std::string>());
      if (v.is_none()) return etr::Value();
      raise(etr::Error::InvalidType,
            where + "got a " + py::cast<std::string>(py::str(py::type::of(v).attr("__name__"))) +
                ", expected a " + tag);
    }
    etr::ScalarType dtype = etr::ScalarType::Float;
    py::object arr_obj;
    bool explicit_dtype = false;
    if (py::isinstance<py::tuple>(obj) && py::len(obj) == 2) {
      py::tuple pair = py::reinterpret_borrow<py::tuple>(obj);
      arr_obj = pair[0];
      dtype = static_cast<etr::ScalarType>(pair[1].cast<int>());
      explicit_dtype = true;
    } else {
      arr_obj = py::reinterpret_borrow<py::object>(obj);
    }
    if (!py::isinstance<py::array>(arr_obj)) {
      raise(etr::Error::InvalidType,
            where + "got a " +
                py::cast<std::string>(py::str(py::type::of(arr_obj).attr("__name__"))) +
                ", expected a numpy array");
    }
    py::array arr = py::reinterpret_borrow<py::array>(arr_obj);
    if (!explicit_dtype && !scalar_type_of(arr.dtype(), &dtype)) {
      raise(etr::Error::InvalidType, where + "numpy dtype " +
                                         py::cast<std::string>(py::str(arr.dtype())) +
                                         " has no etr ScalarType");
    }
    if (explicit_dtype && etr::element_size(dtype) != static_cast<size_t>(arr.itemsize())) {
      raise(etr::Error::InvalidType,
            where + "element size does not match " + std::string(etr::to_string(dtype)));
    }
    const char order = arr.dtype().attr("byteorder").cast<std::string>()[0];
    if (order == '>') raise(etr::Error::InvalidType, where + "big-endian arrays are not supported");
    if (!(arr.flags() & py::array::c_style)) {
      raise(etr::Error::InvalidArgument, where + "array is not C-contiguous");
    }
    std::vector<int32_t> sizes;
    for (py::ssize_t d = 0; d < arr.ndim(); ++d) {
      if (arr.shape(d) > INT32_MAX) raise(etr::Error::InvalidArgument, where + "dimension too big");
      sizes.push_back(static_cast<int32_t>(arr.shape(d)));
    }
    char why[kCaptureBytes] = {};
    etr::ErrorCapture capture(why, sizeof(why));
    // Borrowed: the tensor points at the array's buffer (no copy). The data is
    // only read (inputs are not written by the portable kernels' out variants).
    etr::Result<etr::BorrowedTensor> t =
        etr::BorrowedTensor::wrap(dtype, std::move(sizes), const_cast<void*>(arr.data()));
    if (!t.ok()) raise(t.error(), where + why);
    keep->append(arr);
    return etr::Value(std::move(*t));
  }

  static py::object to_python(const std::string& method, size_t index, const etr::Value& v) {
    switch (v.tag()) {
      case etr::Tag::None: return py::none();
      case etr::Tag::Int: return py::int_(v.to_int());
      case etr::Tag::Double: return py::float_(v.to_double());
      case etr::Tag::Bool: return py::bool_(v.to_bool());
      case etr::Tag::String: return py::str(v.to_string());
      case etr::Tag::Tensor: break;
      default:
        raise(etr::Error::NotSupported, "method '" + method + "' output " + std::to_string(index) +
                                            ": unsupported output kind");
    }
    const etr::Tensor& t = v.tensor();
    const char* np = numpy_dtype_of(t.dtype());
    if (np == nullptr) {
      raise(etr::Error::NotSupported, "method '" + method + "' output " + std::to_string(index) +
                                          ": dtype " + etr::to_string(t.dtype()) +
                                          " has no numpy equivalent");
    }
    std::vector<py::ssize_t> shape, strides;
    for (size_t d = 0; d < t.dim(); ++d) {
      shape.push_back(t.size(d));
      strides.push_back(static_cast<py::ssize_t>(t.stride(d) * t.element_size()));
    }
    // The array's base owns the output Value (and so its HostTensor copy).
    auto* owner = new etr::Value(v);
    py::capsule base(owner, [](void* p) { delete static_cast<etr::Value*>(p); });
    py::array arr(py::dtype(np), shape, strides, t.const_data(), base);
    if (t.dtype() == etr::ScalarType::BFloat16) return py::make_tuple("BFloat16", arr);
    return arr;
  }

  std::mutex mu_;
  std::unique_ptr<EtdumpRecording> etdump_;  // before module_, which points at it
  etr::Module module_;
  py::list kept_inputs_;
  py::list kept_bundles_;
  std::map<std::string, std::vector<std::string>> input_tags_;
};

}  // namespace

PYBIND11_MODULE(_etr, m) {
  m.doc() = "Native bindings of the etr runtime (use etr.runtime)";
  static py::exception<EtrError> error_type(m, "Error", PyExc_RuntimeError);
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const EtrError& e) {
      py::object inst = py::handle(error_type.ptr())(e.message);
      inst.attr("code") = e.code;
      inst.attr("message") = e.message;
      PyErr_SetObject(error_type.ptr(), inst.ptr());
    }
  });
  py::class_<PyModule>(m, "Module")
      .def(py::init<std::string, std::vector<std::string>, size_t, bool, size_t>(), py::arg("path"),
           py::arg("data_paths") = std::vector<std::string>{}, py::arg("num_threads") = 0,
           py::arg("enable_etdump") = false, py::arg("debug_buffer_size") = 0)
      .def("write_etdump", &PyModule::write_etdump, py::arg("etdump_path"),
           py::arg("debug_buffer_path"))
      .def("method_names", &PyModule::method_names)
      .def("method_meta", &PyModule::method_meta, py::arg("name"))
      .def("load_method", &PyModule::load_method, py::arg("name"))
      .def("execute", &PyModule::execute, py::arg("name"), py::arg("inputs"))
      .def("run", &PyModule::run, py::arg("name"))
      .def("load_bundled_input", &PyModule::load_bundled_input, py::arg("bundle"), py::arg("name"),
           py::arg("test_case"))
      .def("compare_bundled_outputs", &PyModule::compare_bundled_outputs, py::arg("bundle"),
           py::arg("name"), py::arg("test_case"), py::arg("rtol"), py::arg("atol"));
  py::class_<PyBundle>(m, "BundledProgram")
      .def(py::init<py::bytes>(), py::arg("data"))
      .def("program_data", &PyBundle::program_data)
      .def("method_names", &PyBundle::method_names)
      .def("num_test_cases", &PyBundle::num_test_cases, py::arg("method"));
  // The operators of the built-in kernel libraries (registered on first use)
  // and of any library registered since, each name once.
  m.def("operator_names", []() {
    char why[kCaptureBytes] = {};
    etr::ErrorCapture capture(why, sizeof(why));
    const etr::Error err = etr::register_builtins();
    if (err != etr::Error::Ok) raise(err, why);
    std::vector<std::string> names;
    etr::default_kernel_registry().for_each(
        [&](const etr::KernelEntry& e, const etr::KernelLibrary&) { names.emplace_back(e.name); });
    std::sort(names.begin(), names.end());
    names.erase(std::unique(names.begin(), names.end()), names.end());
    return names;
  });
  m.def("backend_names", []() {
    char why[kCaptureBytes] = {};
    etr::ErrorCapture capture(why, sizeof(why));
    const etr::Error err = etr::register_builtins();
    if (err != etr::Error::Ok) raise(err, why);
    std::vector<std::string> names;
    for (size_t i = 0; i < etr::num_registered_backends(); ++i) {
      names.emplace_back(etr::registered_backend_name(i));
    }
    return names;
  });
  m.def("scalar_type_code", [](const std::string& name) {
    for (int i = 0; i < etr::kNumScalarTypes; ++i) {
      if (name == etr::to_string(static_cast<etr::ScalarType>(i))) return i;
    }
    raise(etr::Error::InvalidArgument, "unknown ScalarType " + name);
  });
#if ETR_PYTHON_HAS_LLM
  etr_bind_llm(m, error_type);
#endif
}
