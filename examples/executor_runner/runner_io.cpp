// executor_runner helpers: flags, the log hook, inputs and outputs.
#include "examples/executor_runner/runner_io.h"

#include <sys/stat.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "extension/tensor/npy.h"
#include "runtime/platform/error_capture.h"
#include "runtime/platform/platform.h"

namespace etr {
namespace runner {
namespace {

struct FlagSpec {
  const char* name;
  bool takes_value;
};

constexpr FlagSpec kFlags[] = {
    {"model_path", true},
    {"method", true},
    {"input", true},
    {"data_path", true},
    {"output_dir", true},
    {"num_executions", true},
    {"list_operators", false},
    {"help", false},
    {"verbose", false},
    {"threads", true},
    {"bundled_program", true},
    {"rtol", true},
    {"atol", true},
    {"profile", true},
    {"info", false},
    {"backend_option", true},
    {"loader", true},
    {"weight_cache_dir", true},
    {"etdump_path", true},
    {"debug_buffer_path", true},
    {"debug_output_path", true},  // the official example runner's name for it
    {"debug_buffer_size", true},
    {"etdump_debug_level", true},
    {"dump_outputs", false},  // the official example runner's level flags
    {"dump_intermediate_outputs", false},
};

bool parse_bool(const std::string& v, bool* out) {
  if (v == "1" || v == "true") return *out = true, true;
  if (v == "0" || v == "false") return *out = false, true;
  return false;
}

bool parse_count(const std::string& v, int64_t* out) {
  if (v.empty() || v.size() > 10) return false;
  for (char c : v) {
    if (c < '0' || c > '9') return false;
  }
  *out = std::strtoll(v.c_str(), nullptr, 10);
  return *out >= 1 && *out <= 1000000000;
}

// A finite, non-negative tolerance.
bool parse_tolerance(const std::string& v, double* out) {
  if (v.empty()) return false;
  char* end = nullptr;
  const double d = std::strtod(v.c_str(), &end);
  if (end == nullptr || *end != '\0' || !(d >= 0) || d > 1e300) return false;
  *out = d;
  return true;
}

// Applies one recognised flag; false (with *error set) on a bad value.
bool apply_flag(const std::string& name, const std::string& value, bool has_value, Options* o,
                std::string* error) {
  if (name == "model_path") o->model_path = value;
  if (name == "method") o->method = value;
  if (name == "input") o->inputs.push_back(value);
  if (name == "data_path") o->data_paths.push_back(value);
  if (name == "output_dir") o->output_dir = value;
  if (name == "bundled_program") o->bundled_program = value;
  if (name == "profile") o->profile = value;
  if (name == "etdump_path") o->etdump_path = value;
  if (name == "debug_buffer_path" || name == "debug_output_path") o->debug_buffer_path = value;
  if (name == "dump_outputs" || name == "dump_intermediate_outputs") {
    bool on = true;
    if (has_value && !parse_bool(value, &on)) {
      *error = "--" + name + " takes no value (or true/false), got '" + value + "'";
      return false;
    }
    const int level = name == "dump_outputs" ? 1 : 2;
    if (on && level > o->etdump_debug_level) o->etdump_debug_level = level;
    return true;
  }
  if (name == "etdump_debug_level") {
    static const char* const kLevels[3][3] = {{"0", "none", "kNoLogging"},
                                              {"1", "outputs", "kProgramOutputs"},
                                              {"2", "intermediate", "kIntermediateOutputs"}};
    int level = -1;
    for (int l = 0; l < 3; ++l) {
      for (const char* n : kLevels[l]) {
        if (value == n) level = l;
      }
    }
    o->etdump_debug_level = level;
    if (level < 0) {
      *error =
          "--etdump_debug_level needs none, outputs or intermediate (0, 1, 2), got '" + value + "'";
      return false;
    }
  }
  if (name == "debug_buffer_size" &&
      (!parse_count(value, &o->debug_buffer_size) || o->debug_buffer_size > (int64_t{1} << 34))) {
    *error =
        "--debug_buffer_size needs a whole number of bytes from 1 to 2^34, got '" + value + "'";
    return false;
  }
  if (name == "loader") {
    if (value != "mmap" && value != "file") {
      *error = "--loader needs mmap or file, got '" + value + "'";
      return false;
    }
    o->mmap_loader = value == "mmap";
  }
  if (name == "weight_cache_dir") {
    if (value.empty()) {
      *error = "--weight_cache_dir needs a directory";
      return false;
    }
    o->backend_options.push_back("XnnpackBackend:weight_cache_dir=" + value);
  }
  if (name == "backend_option") {
    const size_t colon = value.find(':');
    const size_t eq = value.find('=', colon == std::string::npos ? 0 : colon);
    if (colon == std::string::npos || colon == 0 || eq == std::string::npos || eq == colon + 1) {
      *error = "--backend_option needs BACKEND:KEY=VALUE, got '" + value + "'";
      return false;
    }
    o->backend_options.push_back(value);
  }
  if ((name == "rtol" && !parse_tolerance(value, &o->rtol)) ||
      (name == "atol" && !parse_tolerance(value, &o->atol))) {
    *error = "--" + name + " needs a number >= 0, got '" + value + "'";
    return false;
  }
  if (name == "threads" && (!parse_count(value, &o->threads) || o->threads > 256)) {
    *error = "--threads needs a whole number from 1 to 256, got '" + value + "'";
    return false;
  }
  if (name == "num_executions" && !parse_count(value, &o->num_executions)) {
    *error = "--num_executions needs a whole number from 1 to 1000000000, got '" + value + "'";
    return false;
  }
  bool* target = name == "list_operators" ? &o->list_operators
                 : name == "help"         ? &o->help
                 : name == "verbose"      ? &o->verbose
                 : name == "info"         ? &o->info
                                          : nullptr;
  if (target != nullptr) {
    *target = true;
    if (has_value && !parse_bool(value, target)) {
      *error = "--" + name + " takes no value (or true/false), got '" + value + "'";
      return false;
    }
  }
  if (!has_value && target == nullptr) {
    *error = "--" + name + " needs a value";
    return false;
  }
  if (has_value && target == nullptr && value.empty() && name != "method") {
    *error = "--" + name + " needs a non-empty value";
    return false;
  }
  return true;
}

bool g_verbose = false;
bool g_have_error = false;
std::string g_first_error;
std::string g_last_error;

// The first Error message is the most specific cause; the last one says where
// it surfaced (e.g. which instruction of which method).
void log_hook(LogLevel level, const char* file, int line, const char* message) {
  if (level == LogLevel::Error) {
    if (!g_have_error) g_first_error = message != nullptr ? message : "";
    g_last_error = message != nullptr ? message : "";
    g_have_error = true;
  }
  if (!g_verbose) return;
  static const char kLevels[] = {'D', 'I', 'E'};
  const char tag = kLevels[static_cast<uint8_t>(level) % 3];
  if (file != nullptr) {
    std::fprintf(stderr, "%c %s:%d] %s\n", tag, file, line, message);
  } else {
    std::fprintf(stderr, "%c] %s\n", tag, message);
  }
}

std::string one_line(std::string s) {
  for (char& c : s) {
    if (c == '\n' || c == '\r') c = ' ';
  }
  return s;
}

// Room for the messages a failing helper logs (see ErrorCapture).
constexpr size_t kMessageBytes = 1024;

// Scatters a contiguous (logical order) tensor into one with `dim_order`.
Result<HostTensor> with_dim_order(const HostTensor& src, Span<const uint8_t> dim_order) {
  Result<HostTensor> dst = HostTensor::zeros(
      src.dtype(), src.shape(), std::vector<uint8_t>(dim_order.begin(), dim_order.end()));
  if (!dst.ok()) return dst;
  const size_t elem = src.tensor().element_size();
  const size_t n = static_cast<size_t>(src.tensor().numel());
  for (size_t i = 0; i < n; ++i) {
    std::memcpy(dst->data() + element_offset(dst->tensor(), i), src.data() + i * elem, elem);
  }
  return dst;
}

// Input `index` as a tensor read from `path`, in the method's dim order.
int tensor_input_from_file(const Method& method, size_t index, const std::string& path,
                           InputSet* inputs) {
  const std::string what = "cannot read input " + std::to_string(index) + " from '" + path + "'";
  char message[kMessageBytes];
  ErrorCapture capture(message, sizeof(message));
  Result<HostTensor> t = read_npy(path);
  if (!t.ok()) return fail(kExitInput, what, t.error(), capture.message());
  const Tensor& declared = method.get_input(index).to_tensor();
  if (t->dtype() != declared.dtype()) {
    return fail(kExitInput, what, Error::InvalidType,
                std::string("the file holds ") + to_string(t->dtype()) +
                    " but the method expects " + to_string(declared.dtype()));
  }
  if (t->sizes().size() == declared.dim() && !declared.is_contiguous_order()) {
    Result<HostTensor> reordered = with_dim_order(*t, declared.dim_order());
    if (!reordered.ok()) return fail(kExitInput, what, reordered.error(), capture.message());
    inputs->tensors.push_back(std::make_unique<HostTensor>(std::move(*reordered)));
  } else {
    inputs->tensors.push_back(std::make_unique<HostTensor>(std::move(*t)));
  }
  inputs->values.emplace_back(&inputs->tensors.back()->tensor());
  return kExitOk;
}

// Input `index` (an Int, Double or Bool) read from a 0-d .npy file.
int scalar_input_from_file(const Method& method, size_t index, const std::string& path,
                           InputSet* inputs) {
  const std::string what = "cannot read input " + std::to_string(index) + " from '" + path + "'";
  const Tag tag = method.get_input(index).tag();
  char message[kMessageBytes];
  ErrorCapture capture(message, sizeof(message));
  Result<HostTensor> t = read_npy(path);
  if (!t.ok()) return fail(kExitInput, what, t.error(), capture.message());
  const ScalarType want = tag == Tag::Int      ? ScalarType::Long
                          : tag == Tag::Double ? ScalarType::Double
                                               : ScalarType::Bool;
  if ((tag != Tag::Int && tag != Tag::Double && tag != Tag::Bool) || t->dtype() != want ||
      t->tensor().numel() != 1) {
    return fail(kExitInput, what, Error::InvalidType,
                std::string("input is ") + to_string(tag) +
                    "; expected a one-element int64, float64 or bool array to match it");
  }
  if (tag == Tag::Int) {
    int64_t v = 0;
    std::memcpy(&v, t->data(), sizeof(v));
    inputs->values.emplace_back(v);
  } else if (tag == Tag::Double) {
    double v = 0;
    std::memcpy(&v, t->data(), sizeof(v));
    inputs->values.emplace_back(v);
  } else {
    inputs->values.emplace_back(t->data()[0] != 0);
  }
  return kExitOk;
}

// Input `index` without a file: ones for a tensor, else the program's value.
int default_input(const Method& method, size_t index, InputSet* inputs) {
  const EValue& current = method.get_input(index);
  if (!current.is_tensor()) {
    inputs->values.push_back(current);
    return kExitOk;
  }
  const std::string what = "cannot build input " + std::to_string(index);
  Result<TensorInfo> info = method.method_meta().input_tensor_meta(index);
  if (!info.ok()) return fail(kExitInput, what, info.error());
  char message[kMessageBytes];
  ErrorCapture capture(message, sizeof(message));
  Result<HostTensor> t =
      HostTensor::zeros(info->dtype, std::vector<int32_t>(info->sizes.begin(), info->sizes.end()),
                        std::vector<uint8_t>(info->dim_order.begin(), info->dim_order.end()));
  if (!t.ok()) return fail(kExitInput, what, t.error(), capture.message());
  const Error filled = t->fill_ones();
  if (filled != Error::Ok) return fail(kExitInput, what, filled, capture.message());
  inputs->tensors.push_back(std::make_unique<HostTensor>(std::move(*t)));
  inputs->values.emplace_back(&inputs->tensors.back()->tensor());
  return kExitOk;
}

void print_values(const Tensor& t) {
  if (t.numel() != 0 && t.const_data() == nullptr) {
    std::printf(" (no data)");
    return;
  }
  constexpr size_t kShown = 8;
  const size_t n = static_cast<size_t>(t.numel());
  std::printf(" = [");
  for (size_t i = 0; i < n && i < kShown; ++i) {
    double v = 0;
    const uint8_t* p = static_cast<const uint8_t*>(t.const_data()) + element_offset(t, i);
    if (is_complex(t.dtype())) {  // "re+imj", as numpy prints it
      const ScalarType part = t.dtype() == ScalarType::ComplexHalf    ? ScalarType::Half
                              : t.dtype() == ScalarType::ComplexFloat ? ScalarType::Float
                                                                      : ScalarType::Double;
      double im = 0;
      element_to_double(part, p, &v);
      element_to_double(part, p + element_size(part), &im);
      std::printf(i == 0 ? "%g%+gj" : ", %g%+gj", v, im);
      continue;
    }
    if (!element_to_double(t.dtype(), p, &v)) {
      std::printf("?");
      break;
    }
    std::printf(i == 0 ? "%g" : ", %g", v);
  }
  std::printf(n > kShown ? ", ...]" : "]");
}

Error write_text(const std::string& path, StringView s) {
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (f == nullptr) {
    ETR_FAIL(Error::AccessFailed, "cannot create %s: %s", path.c_str(), std::strerror(errno));
  }
  bool ok = s.size() == 0 || std::fwrite(s.data(), 1, s.size(), f) == s.size();
  if (std::fclose(f) != 0) ok = false;
  if (!ok) ETR_FAIL(Error::AccessFailed, "cannot write %s", path.c_str());
  return Error::Ok;
}

template <typename T>
Error write_list(const std::string& path, ScalarType dtype, Span<const T> items) {
  Result<HostTensor> t = HostTensor::from_bytes(dtype, {static_cast<int32_t>(items.size())},
                                                items.data(), items.size() * sizeof(T));
  if (!t.ok()) return t.error();
  return write_npy(path, t->tensor());
}

// Writes output `index`; *written is false when the kind has no file form.
Error write_output(const EValue& v, const std::string& base, bool* written) {
  *written = true;
  switch (v.tag()) {
    case Tag::Tensor: return write_npy(base + ".npy", v.to_tensor());
    case Tag::Int:
    case Tag::Double:
    case Tag::Bool: return write_npy_scalar(base + ".npy", v);
    case Tag::String: return write_text(base + ".txt", v.to_string());
    case Tag::IntList: return write_list(base + ".npy", ScalarType::Long, v.to_int_list());
    case Tag::DoubleList: return write_list(base + ".npy", ScalarType::Double, v.to_double_list());
    case Tag::BoolList: {
      std::vector<uint8_t> bytes(v.to_bool_list().begin(), v.to_bool_list().end());
      return write_list(base + ".npy", ScalarType::Bool,
                        Span<const uint8_t>(bytes.data(), bytes.size()));
    }
    default: *written = false; return Error::Ok;
  }
}

}  // namespace

void print_usage(std::FILE* out) {
  std::fprintf(
      out,
      "usage: executor_runner --model_path=FILE [--method=NAME] [--input=FILE.npy ...]\n"
      "                       [--data_path=FILE.ptd ...] [--output_dir=DIR]\n"
      "                       [--num_executions=N] [--threads=N] [--verbose]\n"
      "       executor_runner --bundled_program=FILE.bpte [--method=NAME]\n"
      "                       [--rtol=X] [--atol=X] [--data_path=FILE.ptd ...]\n"
      "       executor_runner --model_path=FILE --info [--method=NAME]\n"
      "                       [--data_path=FILE.ptd ...]\n"
      "       executor_runner --list_operators | --help\n"
      "\n"
      "Runs one method of an ExecuTorch .pte program (portable kernels, prim ops and,\n"
      "when built with libxnnpack-dev, the XnnpackBackend delegate).\n"
      "  --model_path=FILE     program to load\n"
      "  --method=NAME         method to run (default: forward, else the first method)\n"
      "  --input=FILE.npy      one per method input, in order (repeat the flag); without\n"
      "                        it tensor inputs are ones and other inputs keep the\n"
      "                        program's value\n"
      "  --data_path=FILE.ptd  external data (weights the program stores outside the\n"
      "                        .pte); repeat the flag for several files, searched in\n"
      "                        order\n"
      "  --output_dir=DIR      write output <i> as DIR/output_<i>.npy (.txt for strings)\n"
      "  --num_executions=N    execute N times and report min/median/max time\n"
      "  --threads=N           threads for kernels and delegates (default: one per\n"
      "                        physical core)\n"
      "  --bundled_program=FILE.bpte  run every test case of a BundledProgram (of\n"
      "                        --method only, if given) and compare each output with\n"
      "                        the expected one: |actual - expected| <= atol +\n"
      "                        rtol * |actual| (--rtol default 1e-5, --atol 1e-6;\n"
      "                        integer and bool outputs must be equal)\n"
      "  --backend_option=BACKEND:KEY=VALUE  a load option for every delegate of\n"
      "                        BACKEND (repeat the flag); VALUE true/false is a bool,\n"
      "                        a whole number an int, anything else a string; e.g.\n"
      "                        XnnpackBackend:native_fp32=false runs fp32 convolutions,\n"
      "                        linear layers, sigmoid and multiply in XNNPACK\n"
      "  --weight_cache_dir=DIR  keep the XNNPACK delegate's packed weights in DIR and\n"
      "                        map them on later loads of the same program (the same\n"
      "                        as --backend_option=XnnpackBackend:weight_cache_dir=DIR\n"
      "                        or the environment variable ETR_WEIGHT_CACHE_DIR)\n"
      "  --loader=mmap|file    how the program and .ptd files are read: mmap (default)\n"
      "                        maps them (weights read in place, pages shared with the\n"
      "                        page cache); file reads each segment into memory\n"
      "  --profile=FILE.json   write a trace of every kernel and delegate call (name,\n"
      "                        tensor shapes, duration) for ui.perfetto.dev or\n"
      "                        chrome://tracing\n"
      "  --etdump_path=FILE.etdp  write an ETDump (the official runtime's profiling record,\n"
      "                        read by ExecuTorch's Python Inspector): method load and\n"
      "                        every execute, one event per operator and delegate call\n"
      "  --debug_buffer_path=FILE  with --etdump_path: write the logged tensors there\n"
      "                        (Inspector's debug_buffer_path; alias --debug_output_path)\n"
      "  --debug_buffer_size=N debug buffer bytes (default 64 MiB)\n"
      "  --etdump_debug_level=L  none, outputs (the method's outputs) or intermediate\n"
      "                        (every operator's and delegate's outputs too; the\n"
      "                        default when --debug_buffer_path is given);\n"
      "                        --dump_outputs / --dump_intermediate_outputs (the\n"
      "                        official example runner's flags) pick the same levels\n"
      "  --info                describe the file (methods, I/O, planned memory, every\n"
      "                        operator with its dtypes and kernel, delegates) and\n"
      "                        load each method; exit 0 when this build can run it\n"
      "  --list_operators      print every registered operator and exit\n"
      "  --verbose             echo runtime log messages to stderr\n"
      "  --help                print this help and exit\n"
      "Every flag also accepts '--flag value'. Exit status: 0 success, 1 usage,\n"
      "2 program load, 3 method load, 4 inputs, 5 execution, 6 outputs, 7 setup,\n"
      "8 a bundled output differs from the expected one.\n");
}

bool parse_options(int argc, char** argv, Options* options, std::string* error) {
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg.size() < 3 || arg.compare(0, 2, "--") != 0) {
      *error = "unexpected argument '" + arg + "'";
      return false;
    }
    const size_t eq = arg.find('=');
    const std::string name = arg.substr(2, eq == std::string::npos ? std::string::npos : eq - 2);
    const FlagSpec* spec = nullptr;
    for (const FlagSpec& f : kFlags) {
      if (name == f.name) spec = &f;
    }
    if (spec == nullptr) {
      *error = "unknown flag '--" + name + "'";
      return false;
    }
    bool has_value = eq != std::string::npos;
    std::string value = has_value ? arg.substr(eq + 1) : "";
    if (!has_value && spec->takes_value && i + 1 < argc) {
      value = argv[++i];
      has_value = true;
    }
    if (!apply_flag(name, value, has_value, options, error)) return false;
  }
  if (options->etdump_debug_level < 0)
    options->etdump_debug_level = options->debug_buffer_path.empty() ? 0 : 2;
  if (options->etdump_debug_level > 0 && options->debug_buffer_path.empty()) {
    *error =
        "logging values in the ETDump (--etdump_debug_level, --dump_outputs, "
        "--dump_intermediate_outputs) needs --debug_buffer_path";
    return false;
  }
  if (!options->debug_buffer_path.empty() && options->etdump_path.empty()) {
    *error = "--debug_buffer_path needs --etdump_path";
    return false;
  }
  if (!options->help && !options->list_operators && options->model_path.empty() &&
      options->bundled_program.empty()) {
    *error = "--model_path (or --bundled_program) is required";
    return false;
  }
  return true;
}

void install_log_hook(bool verbose) {
  g_verbose = verbose;
  PlatformHooks hooks{};
  hooks.log = &log_hook;
  set_platform_hooks(hooks);
}

void reset_first_error() {
  g_have_error = false;
  g_first_error.clear();
  g_last_error.clear();
}

std::string first_error() { return g_first_error; }

int fail(int code, const std::string& what, Error error, const std::string& fallback) {
  std::string detail = g_have_error && !g_first_error.empty() ? g_first_error : fallback;
  if (g_have_error && !g_last_error.empty() && g_last_error != g_first_error) {
    detail = g_last_error + "; cause: " + g_first_error;
  }
  if (detail.empty()) detail = "no further detail was logged";
  std::fprintf(stderr, "executor_runner: error: %s: %s (%s)\n", one_line(what).c_str(),
               to_string(error), one_line(detail).c_str());
  return code;
}

int prepare_inputs(const Method& method, const std::vector<std::string>& files, InputSet* inputs) {
  const size_t n = method.inputs_size();
  if (!files.empty() && files.size() != n) {
    return fail(kExitInput, "wrong number of inputs", Error::InvalidArgument,
                "method '" + std::string(method.name()) + "' has " + std::to_string(n) +
                    " inputs but " + std::to_string(files.size()) + " --input files were given");
  }
  inputs->tensors.reserve(n);
  for (size_t i = 0; i < n; ++i) {
    reset_first_error();
    int rc = kExitOk;
    if (files.empty()) {
      rc = default_input(method, i, inputs);
    } else if (method.get_input(i).is_tensor()) {
      rc = tensor_input_from_file(method, i, files[i], inputs);
    } else {
      rc = scalar_input_from_file(method, i, files[i], inputs);
    }
    if (rc != kExitOk) return rc;
  }
  return kExitOk;
}

int apply_inputs(Method& method, const InputSet& inputs) {
  for (size_t i = 0; i < inputs.values.size(); ++i) {
    reset_first_error();
    const Error err = method.set_input(inputs.values[i], i);
    if (err != Error::Ok) return fail(kExitInput, "cannot set input " + std::to_string(i), err);
  }
  return kExitOk;
}

int bind_unplanned_outputs(Method& method, std::vector<std::unique_ptr<uint8_t[]>>* storage) {
  const MethodMeta meta = method.method_meta();
  for (size_t i = 0; i < method.outputs_size(); ++i) {
    const EValue& out = method.get_output(i);
    if (!out.is_tensor() || out.to_tensor().mutable_data() != nullptr) continue;
    reset_first_error();
    Result<TensorInfo> info = meta.output_tensor_meta(i);
    if (!info.ok())
      return fail(kExitMethodLoad, "cannot inspect output " + std::to_string(i), info.error());
    if (info->is_memory_planned) continue;
    const size_t size = info->nbytes == 0 ? 1 : info->nbytes;
    storage->push_back(std::unique_ptr<uint8_t[]>(new uint8_t[size]()));
    const Error err = method.set_output_data_ptr(storage->back().get(), size, i);
    if (err != Error::Ok) {
      return fail(kExitMethodLoad, "cannot bind memory to output " + std::to_string(i), err);
    }
  }
  return kExitOk;
}

void print_outputs(const Method& method) {
  for (size_t i = 0; i < method.outputs_size(); ++i) {
    const EValue& v = method.get_output(i);
    std::printf("output %zu: %s", i, to_string(v.tag()));
    switch (v.tag()) {
      case Tag::Tensor: {
        const Tensor& t = v.to_tensor();
        std::printf(" %s %s", to_string(t.dtype()), shape_string(t.sizes()).c_str());
        print_values(t);
        break;
      }
      case Tag::Int: std::printf(" = %lld", static_cast<long long>(v.to_int())); break;
      case Tag::Double: std::printf(" = %.17g", v.to_double()); break;
      case Tag::Bool: std::printf(" = %s", v.to_bool() ? "true" : "false"); break;
      case Tag::String:
        std::printf(" = \"%.*s\"", static_cast<int>(v.to_string().size()), v.to_string().data());
        break;
      default: break;
    }
    std::printf("\n");
  }
}

int make_directories(const std::string& dir) {
  for (size_t pos = dir.find('/', 1); pos != std::string::npos; pos = dir.find('/', pos + 1)) {
    const std::string parent = dir.substr(0, pos);
    if (::mkdir(parent.c_str(), 0755) != 0 && errno != EEXIST) return -1;
  }
  if (::mkdir(dir.c_str(), 0755) != 0 && errno != EEXIST) return -1;
  struct stat st {};
  if (::stat(dir.c_str(), &st) != 0) return -1;
  if (!S_ISDIR(st.st_mode)) {
    errno = ENOTDIR;
    return -1;
  }
  return 0;
}

int write_outputs(const Method& method, const std::string& dir) {
  if (make_directories(dir) != 0) {
    return fail(kExitOutput, "cannot create output directory '" + dir + "'", Error::AccessFailed,
                std::strerror(errno));
  }
  for (size_t i = 0; i < method.outputs_size(); ++i) {
    reset_first_error();
    const EValue& v = method.get_output(i);
    const std::string base = dir + "/output_" + std::to_string(i);
    bool written = false;
    char message[kMessageBytes];
    ErrorCapture capture(message, sizeof(message));
    const Error err = write_output(v, base, &written);
    if (err != Error::Ok) {
      return fail(kExitOutput, "cannot write output " + std::to_string(i), err, capture.message());
    }
    if (!written) std::printf("output %zu: %s value not written\n", i, to_string(v.tag()));
  }
  return kExitOk;
}

}  // namespace runner
}  // namespace etr
