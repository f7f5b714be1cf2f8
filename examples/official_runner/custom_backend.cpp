// A backend written against the official API (runtime/backend/interface.h)
// and registered with register_backend(), run by etr on
// test/models/custom_backend.pte, whose whole graph (y = x * 2.5 + 0.5) is
// delegated to "OfficialTestBackend" with payload "AFFINE" + scale + bias
// (float32) and the compile spec "scale". Checked: what init() receives,
// the outputs (against PyTorch's), destroy(), and the registry's answers.
// Exit 0 when every check passes.
//   official_custom_backend MODEL.pte IN.npy EXPECTED.npy
#include <executorch/extension/data_loader/file_data_loader.h>
#include <executorch/extension/module/module.h>
#include <executorch/extension/runner_util/inputs.h>
#include <executorch/extension/tensor/tensor.h>
#include <executorch/runtime/backend/backend_options_map.h>
#include <executorch/runtime/backend/interface.h>
#include <executorch/runtime/core/exec_aten/util/tensor_util.h>
#include <executorch/runtime/executor/method.h>
#include <executorch/runtime/executor/program.h>
#include <executorch/runtime/platform/runtime.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
#include <memory>
#include <optional>
#include <string>
#include <vector>

using executorch::aten::ScalarType;
using executorch::aten::Tensor;
using executorch::runtime::ArrayRef;
using executorch::runtime::BackendExecutionContext;
using executorch::runtime::BackendInitContext;
using executorch::runtime::BackendInterface;
using executorch::runtime::BackendOption;
using executorch::runtime::BackendOptionContext;
using executorch::runtime::CompileSpec;
using executorch::runtime::DelegateHandle;
using executorch::runtime::Error;
using executorch::runtime::EValue;
using executorch::runtime::FreeableBuffer;
using executorch::runtime::Result;
using executorch::runtime::Span;

namespace {

int g_failures = 0;

#define EXPECT(cond)                                                                \
  do {                                                                              \
    if (!(cond)) {                                                                  \
      std::fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
      ++g_failures;                                                                 \
    }                                                                               \
  } while (0)

struct Affine {
  float scale;
  float bias;
};

class OfficialTestBackend final : public BackendInterface {
 public:
  bool is_available() const override { return true; }

  Result<DelegateHandle*> init(BackendInitContext& context, FreeableBuffer* processed,
                               ArrayRef<CompileSpec> compile_specs) const override {
    ++inits;
    auto threads_spec = context.get_runtime_spec<int>("threads");
    spec_threads = threads_spec.ok() ? *threads_spec : -1;
    auto mode_spec = context.get_runtime_spec<const char*>("mode");
    spec_mode = mode_spec.ok() ? *mode_spec : "";
    spec_wrong_type = context.get_runtime_spec<bool>("threads").error() == Error::InvalidArgument &&
                      context.get_runtime_spec<int>("absent").error() == Error::NotFound;
    method_name_seen = context.get_method_name() != nullptr &&
                       std::strcmp(context.get_method_name(), "forward") == 0;
    if (processed->size() != 14 || std::memcmp(processed->data(), "AFFINE", 6) != 0) {
      return Error::InvalidProgram;
    }
    Affine* state = context.get_runtime_allocator()->allocateInstance<Affine>();
    if (state == nullptr) return Error::MemoryAllocationFailed;
    const auto* bytes = static_cast<const uint8_t*>(processed->data());
    std::memcpy(&state->scale, bytes + 6, 4);
    std::memcpy(&state->bias, bytes + 10, 4);
    processed->Free();  // the payload is no longer needed
    spec_matches = false;
    for (const CompileSpec& spec : compile_specs) {
      float scale = 0;
      if (std::strcmp(spec.key, "scale") == 0 && spec.value.nbytes == 4) {
        std::memcpy(&scale, spec.value.buffer, 4);
        spec_matches = scale == state->scale;
      }
    }
    return static_cast<DelegateHandle*>(state);
  }

  Error execute(BackendExecutionContext& context, DelegateHandle* handle,
                Span<EValue*> args) const override {
    (void)context;
    ++executes;
    const Affine* a = static_cast<const Affine*>(handle);
    if (args.size() != 2 || !args[0]->isTensor() || !args[1]->isTensor()) {
      return Error::InvalidArgument;
    }
    const Tensor in = args[0]->toTensor();
    Tensor out = args[1]->toTensor();
    if (in.scalar_type() != ScalarType::Float ||
        executorch::runtime::resize_tensor(out, in.sizes()) != Error::Ok) {
      return Error::InvalidArgument;
    }
    for (ptrdiff_t i = 0; i < in.numel(); ++i) {
      out.mutable_data_ptr<float>()[i] = in.const_data_ptr<float>()[i] * a->scale + a->bias;
    }
    return Error::Ok;
  }

  Error set_option(BackendOptionContext& context, const Span<BackendOption>& options) override {
    (void)context;
    for (const BackendOption& o : options) {
      if (std::strcmp(o.key, "threads") == 0 && std::holds_alternative<int>(o.value)) {
        threads = std::get<int>(o.value);
      } else {
        return Error::InvalidArgument;
      }
    }
    return Error::Ok;
  }

  void destroy(DelegateHandle* handle) const override {
    if (handle != nullptr) ++destroys;
  }

  mutable int inits = 0;
  mutable int executes = 0;
  mutable int destroys = 0;
  mutable bool spec_matches = false;
  mutable bool method_name_seen = false;
  mutable int spec_threads = -1;
  mutable std::string spec_mode;
  mutable bool spec_wrong_type = false;
  int threads = 0;
};

OfficialTestBackend g_backend;
const auto g_registered =
    executorch::runtime::register_backend({"OfficialTestBackend", &g_backend});

std::vector<char> npy_data(const char* path) {
  std::ifstream f(path, std::ios::binary);
  std::vector<char> b((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  if (b.size() < 10) return {};
  const size_t start = 10 + static_cast<uint8_t>(b[8]) + 256 * static_cast<uint8_t>(b[9]);
  return std::vector<char>(b.begin() + static_cast<std::ptrdiff_t>(std::min(start, b.size())),
                           b.end());
}

float max_diff(const Tensor& out, const std::vector<char>& expected) {
  const size_t n = expected.size() / sizeof(float);
  if (out.scalar_type() != ScalarType::Float || static_cast<size_t>(out.numel()) != n) {
    return INFINITY;
  }
  float worst = 0;
  for (size_t i = 0; i < n; ++i) {
    float want;
    std::memcpy(&want, expected.data() + i * sizeof(float), sizeof(float));
    worst = std::fmax(worst, std::fabs(out.const_data_ptr<float>()[i] - want));
  }
  return worst;
}

}  // namespace

static uint8_t method_pool[1024 * 1024];

int main(int argc, char** argv) {
  if (argc != 4) {
    std::fprintf(stderr, "usage: %s MODEL.pte IN.npy EXPECTED.npy\n", argv[0]);
    return 2;
  }
  executorch::runtime::runtime_init();
  std::vector<char> input = npy_data(argv[2]);
  const std::vector<char> expected = npy_data(argv[3]);

  // The registry.
  EXPECT(g_registered == Error::Ok);
  EXPECT(executorch::runtime::get_backend_class("OfficialTestBackend") == &g_backend);
  EXPECT(executorch::runtime::get_backend_class("NoSuchBackend") == nullptr);
  EXPECT(executorch::runtime::register_backend({"OfficialTestBackend", &g_backend}) ==
         Error::InvalidArgument);
  bool listed = false;
  for (size_t i = 0; i < executorch::runtime::get_num_registered_backends(); ++i) {
    auto name = executorch::runtime::get_backend_name(i);
    listed = listed || (name.ok() && std::strcmp(*name, "OfficialTestBackend") == 0);
  }
  EXPECT(listed);
  EXPECT(executorch::runtime::get_backend_name(executorch::runtime::get_num_registered_backends())
             .error() == Error::InvalidArgument);
  executorch::runtime::BackendOptions<2> options;
  EXPECT(options.set_option("threads", 3) == Error::Ok);
  EXPECT(executorch::runtime::set_option("OfficialTestBackend", options.view()) == Error::Ok);
  EXPECT(g_backend.threads == 3);
  EXPECT(executorch::runtime::set_option("NoSuchBackend", options.view()) == Error::NotFound);

  {
    // Program / Method.
    auto loader = executorch::extension::FileDataLoader::from(argv[1]);
    EXPECT(loader.ok());
    if (!loader.ok()) return 1;
    auto program = executorch::runtime::Program::load(&loader.get());
    EXPECT(program.ok());
    if (!program.ok()) return 1;
    auto meta = program->method_meta("forward");
    EXPECT(meta.ok() && meta->uses_backend("OfficialTestBackend"));
    std::vector<std::unique_ptr<uint8_t[]>> buffers;
    std::vector<Span<uint8_t>> spans;
    for (size_t i = 0; i < meta->num_memory_planned_buffers(); ++i) {
      const size_t size = static_cast<size_t>(*meta->memory_planned_buffer_size(i));
      buffers.push_back(std::make_unique<uint8_t[]>(size));
      spans.push_back({buffers.back().get(), size});
    }
    executorch::runtime::HierarchicalAllocator planned({spans.data(), spans.size()});
    executorch::runtime::MemoryAllocator method_allocator(sizeof(method_pool), method_pool);
    executorch::runtime::MemoryManager memory(&method_allocator, &planned);
    // Load-time options for the backend.
    executorch::runtime::BackendOptions<2> load_options;
    EXPECT(load_options.set_option("threads", 2) == Error::Ok);
    EXPECT(load_options.set_option("mode", "fast") == Error::Ok);
    executorch::runtime::LoadBackendOptionsMap options_map;
    EXPECT(options_map.set_options("OfficialTestBackend", load_options.view()) == Error::Ok);
    EXPECT(options_map.set_options("", load_options.view()) == Error::InvalidArgument);
    auto method = program->load_method("forward", &memory, nullptr, nullptr, &options_map);
    EXPECT(method.ok());
    if (!method.ok()) return 1;
    EXPECT(g_backend.inits == 1 && g_backend.spec_matches && g_backend.method_name_seen);
    EXPECT(g_backend.spec_threads == 2 && g_backend.spec_mode == "fast" &&
           g_backend.spec_wrong_type);
    std::vector<std::pair<char*, size_t>> inputs = {{input.data(), input.size()}};
    auto prepared = executorch::extension::prepare_input_tensors(*method, {}, inputs);
    EXPECT(prepared.ok());
    EXPECT(method->execute() == Error::Ok);
    EXPECT(g_backend.executes == 1);
    const float worst = max_diff(method->get_output(0).toTensor(), expected);
    std::printf("custom backend (Program/Method): max abs error %g\n", static_cast<double>(worst));
    EXPECT(worst <= 1e-6f);
  }
  EXPECT(g_backend.destroys == 1);  // the method is gone

  // Module.
  {
    executorch::extension::Module module(argv[1]);
    auto meta = module.method_meta("forward");
    EXPECT(meta.ok());
    if (meta.ok()) {
      const auto info = meta->input_tensor_meta(0);
      std::vector<executorch::aten::SizesType> sizes(info->sizes().begin(), info->sizes().end());
      std::vector<float> values(input.size() / sizeof(float));
      std::memcpy(values.data(), input.data(), input.size());
      auto outputs = module.forward(executorch::extension::make_tensor_ptr(sizes, values));
      EXPECT(outputs.ok() && max_diff(outputs->at(0).toTensor(), expected) <= 1e-6f);
    }
  }
  EXPECT(g_backend.inits == 2 && g_backend.executes == 2 && g_backend.destroys == 2);

  if (g_failures != 0) {
    std::fprintf(stderr, "custom backend: %d check(s) failed\n", g_failures);
    return 1;
  }
  std::printf("custom backend: ok\n");
  return 0;
}
