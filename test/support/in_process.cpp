#include "test/support/in_process.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>

#include "extension/tensor/npy.h"
#include "kernels/llm/llm_kernels.h"
#include "kernels/portable/portable_kernels.h"
#include "kernels/prim_ops/prim_ops.h"
#include "kernels/quantized/quantized_kernels.h"
#include "runtime/kernel/registry.h"
#include "runtime/platform/error_capture.h"
#include "test/support/fixtures.h"

namespace etr {
namespace testing {
namespace {

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::stringstream ss(s);
  std::string item;
  while (std::getline(ss, item, sep)) {
    if (!item.empty()) out.push_back(item);
  }
  return out;
}

std::string read_text(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

template <typename T>
std::string compare_values(const T* got, const T* want, int64_t n, double rtol, double atol,
                           bool exact) {
  for (int64_t i = 0; i < n; ++i) {
    const double g = static_cast<double>(got[i]);
    const double w = static_cast<double>(want[i]);
    const bool ok =
        exact ? got[i] == want[i]
              : (std::isnan(w) ? std::isnan(g) : std::fabs(g - w) <= atol + rtol * std::fabs(w));
    if (!ok) {
      std::ostringstream os;
      os << "element " << i << ": got " << g << ", expected " << w;
      return os.str();
    }
  }
  return "";
}

std::string compare_tensor(const Tensor& got_t, const HostTensor& want, double rtol, double atol) {
  if (got_t.dtype() != want.dtype()) {
    return std::string("dtype ") + to_string(got_t.dtype()) + " != expected " +
           to_string(want.dtype());
  }
  if (got_t.dim() != want.sizes().size()) return "rank differs";
  for (size_t d = 0; d < got_t.dim(); ++d) {
    if (got_t.size(d) != want.sizes()[d]) return "shape differs at dim " + std::to_string(d);
  }
  char message[512];
  ErrorCapture capture(message, sizeof(message));
  Result<HostTensor> got = HostTensor::contiguous_copy(got_t);
  if (!got.ok()) return std::string("cannot copy the output: ") + capture.message();
  const int64_t n = got_t.numel();
  switch (got_t.dtype()) {
    case ScalarType::Float:
      return compare_values(reinterpret_cast<const float*>(got->data()),
                            reinterpret_cast<const float*>(want.data()), n, rtol, atol, false);
    case ScalarType::Double:
      return compare_values(reinterpret_cast<const double*>(got->data()),
                            reinterpret_cast<const double*>(want.data()), n, rtol, atol, false);
    default:
      return std::memcmp(got->data(), want.data(), got_t.nbytes()) == 0
                 ? ""
                 : "integer/bool data differs";
  }
}

std::string compare_one(const EValue& v, const std::string& path, double rtol, double atol) {
  if (path.size() > 4 && path.compare(path.size() - 4, 4, ".txt") == 0) {
    if (!v.is_string()) return std::string("expected a String, got ") + to_string(v.tag());
    const std::string want = read_text(path);
    const StringView got = v.to_string();
    return std::string(got.data(), got.size()) == want ? "" : "string differs";
  }
  char message[512];
  ErrorCapture capture(message, sizeof(message));
  Result<HostTensor> want = read_npy(path);
  if (!want.ok()) {
    return "cannot read " + path + ": " + to_string(want.error()) + " (" + capture.message() + ")";
  }
  if (v.is_tensor()) return compare_tensor(v.to_tensor(), *want, rtol, atol);
  const uint8_t* w = want->data();
  if (v.is_int() && want->dtype() == ScalarType::Long) {
    int64_t x;
    std::memcpy(&x, w, 8);
    return x == v.to_int() ? "" : "Int differs";
  }
  if (v.is_double() && want->dtype() == ScalarType::Double) {
    double x;
    std::memcpy(&x, w, 8);
    return std::fabs(x - v.to_double()) <= atol + rtol * std::fabs(x) ? "" : "Double differs";
  }
  if (v.is_bool() && want->dtype() == ScalarType::Bool)
    return (w[0] != 0) == v.to_bool() ? "" : "Bool differs";
  return std::string("output kind ") + to_string(v.tag()) + " does not match " + path;
}

}  // namespace

std::string models_dir() { return std::string(ETR_SOURCE_DIR) + "/test/models/"; }

std::vector<FixtureCase> load_manifest(const std::string& dir, const std::string& file) {
  std::vector<FixtureCase> cases;
  char message[512];
  ErrorCapture capture(message, sizeof(message));
  // The same strict parser as the runner tests: a missing file or a malformed
  // line yields no cases (and a message here); the suites' count checks fail.
  Result<std::vector<ManifestEntry>> entries = parse_manifest(dir + file);
  if (!entries.ok()) {
    std::fprintf(stderr, "load_manifest: %s%s: %s (%s)\n", dir.c_str(), file.c_str(),
                 to_string(entries.error()), capture.message());
    return cases;
  }
  for (const ManifestEntry& e : *entries) {
    FixtureCase c;
    c.line = e.describe();
    c.pte = e.pte;
    c.method = e.method;
    c.inputs = e.inputs;
    c.expected = e.expected;
    c.executions = e.executions;
    c.rtol = e.rtol;
    c.atol = e.atol;
    c.expect_error = e.expect_error;
    const auto data = e.extra.find("data");
    if (data != e.extra.end()) {
      for (const std::string& p : split(data->second, ',')) c.data.push_back(dir + p);
    }
    cases.push_back(c);
  }
  return cases;
}

void register_all_kernels() {
  // A test may have registered some of these before; add only the others.
  KernelRegistry& registry = default_kernel_registry();
  auto add_once = [&](const KernelLibrary& lib) {
    for (size_t i = 0; i < registry.num_libraries(); ++i) {
      if (StringView(registry.library(i).name) == StringView(lib.name)) return;
    }
    (void)registry.add(lib);
  };
  add_once(portable_kernel_library());
  add_once(portable_half_kernel_library());
  add_once(prim_ops_library());
  add_once(quantized_kernel_library());
  add_once(llm_kernel_library());
}

LoadedMethod::~LoadedMethod() {
  method.reset();
  program.reset();
  std::free(program_bytes);
}

bool load_fixture_method(const FixtureCase& c, LoadedMethod* lm, const MethodLoadOptions* options) {
  const std::string bytes = read_text(c.pte);
  if (bytes.empty()) {
    lm->error = "cannot read " + c.pte;
    return false;
  }
  lm->program_bytes = std::aligned_alloc(64, (bytes.size() + 63) / 64 * 64);
  std::memcpy(lm->program_bytes, bytes.data(), bytes.size());
  lm->loader = std::make_unique<BufferDataLoader>(lm->program_bytes, bytes.size());
  Result<Program> p = Program::load(lm->loader.get());
  if (!p.ok()) {
    lm->load_error = p.error();
    lm->error = std::string("Program::load: ") + to_string(p.error());
    return false;
  }
  lm->program = std::make_unique<Program>(std::move(*p));
  Result<MethodMeta> meta = lm->program->method_meta(c.method.c_str());
  if (!meta.ok()) {
    lm->load_error = meta.error();
    lm->error = "method_meta failed";
    return false;
  }
  for (size_t i = 0; i < meta->num_memory_planned_buffers(); ++i) {
    lm->planned.emplace_back(static_cast<size_t>(*meta->memory_planned_buffer_size(i)));
  }
  for (auto& b : lm->planned) lm->spans.emplace_back(b.data(), b.size());
  lm->method_pool.resize(4 << 20);
  lm->temp_pool.resize(4 << 20);
  lm->method_alloc =
      std::make_unique<MemoryAllocator>(lm->method_pool.data(), lm->method_pool.size());
  lm->temp_alloc = std::make_unique<MemoryAllocator>(lm->temp_pool.data(), lm->temp_pool.size());
  lm->planned_alloc = std::make_unique<HierarchicalAllocator>(
      Span<Span<uint8_t>>(lm->spans.data(), lm->spans.size()));
  lm->manager = std::make_unique<MemoryManager>(lm->method_alloc.get(), lm->planned_alloc.get(),
                                                lm->temp_alloc.get());
  const MethodLoadOptions defaults;
  Result<Method> m = lm->program->load_method(c.method.c_str(), lm->manager.get(),
                                              options == nullptr ? defaults : *options);
  if (!m.ok()) {
    lm->load_error = m.error();
    lm->error = std::string("load_method: ") + to_string(m.error());
    return false;
  }
  lm->method = std::make_unique<Method>(std::move(*m));
  return true;
}

bool set_fixture_inputs(const FixtureCase& c, LoadedMethod* lm) {
  if (c.inputs.size() != lm->method->inputs_size()) {
    lm->error = "manifest input count differs from the method's";
    return false;
  }
  lm->inputs.clear();
  for (size_t i = 0; i < c.inputs.size(); ++i) {
    char message[512];
    ErrorCapture capture(message, sizeof(message));
    Result<HostTensor> t = read_npy(c.inputs[i]);
    if (!t.ok()) {
      lm->error = std::string("input ") + std::to_string(i) + ": " + to_string(t.error()) + " (" +
                  capture.message() + ")";
      return false;
    }
    lm->inputs.push_back(std::move(*t));
  }
  for (size_t i = 0; i < lm->inputs.size(); ++i) {
    const EValue& declared = lm->method->get_input(i);
    Error err;
    if (declared.is_tensor()) {
      err = lm->method->set_input(lm->inputs[i].tensor(), i);
    } else {
      err = lm->method->set_input(declared, i);
    }
    if (err != Error::Ok) {
      lm->error = "set_input " + std::to_string(i) + ": " + to_string(err);
      return false;
    }
  }
  return true;
}

std::string compare_outputs(const FixtureCase& c, const Method& m) {
  if (c.expected.size() != m.outputs_size()) {
    return "method has " + std::to_string(m.outputs_size()) + " outputs, manifest lists " +
           std::to_string(c.expected.size());
  }
  for (size_t i = 0; i < c.expected.size(); ++i) {
    const std::string diff = compare_one(m.get_output(i), c.expected[i], c.rtol, c.atol);
    if (!diff.empty()) return "output " + std::to_string(i) + ": " + diff;
  }
  return "";
}

}  // namespace testing
}  // namespace etr
