// An app written only against the official ExecuTorch C++ runtime API (the
// calls examples/portable/executor_runner makes, and their error cases):
// loads MODEL.pte (and DATA.ptd), runs it on IN.npy and compares output 0
// with EXPECTED.npy (float32). Exit 0 when every check passes.
//   official_runner MODEL.pte IN.npy EXPECTED.npy [DATA.ptd]
#include <executorch/extension/data_loader/buffer_data_loader.h>
#include <executorch/extension/data_loader/file_data_loader.h>
#include <executorch/extension/data_loader/mmap_data_loader.h>
#include <executorch/extension/data_loader/shared_ptr_data_loader.h>
#include <executorch/extension/evalue_util/print_evalue.h>
#include <executorch/extension/flat_tensor/flat_tensor_data_map.h>
#include <executorch/extension/flat_tensor/serialize/flat_tensor_header.h>
#include <executorch/extension/memory_allocator/malloc_memory_allocator.h>
#include <executorch/extension/runner_util/inputs.h>
#include <executorch/runtime/core/device_memory_buffer.h>
#include <executorch/runtime/core/event_tracer.h>
#include <executorch/runtime/core/exec_aten/util/dim_order_util.h>
#include <executorch/runtime/core/exec_aten/util/tensor_dimension_limit.h>
#include <executorch/runtime/core/exec_aten/util/tensor_shape_to_c_string.h>
#include <executorch/runtime/core/exec_aten/util/tensor_util.h>
#include <executorch/runtime/core/function_ref.h>
#include <executorch/runtime/executor/method.h>
#include <executorch/runtime/executor/program.h>
#include <executorch/runtime/kernel/thread_parallel_interface.h>
#include <executorch/runtime/platform/log.h>
#include <executorch/runtime/platform/platform.h>
#include <executorch/runtime/platform/runtime.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

using executorch::aten::ScalarType;
using executorch::aten::Tensor;
using executorch::extension::BufferDataLoader;
using executorch::extension::FileDataLoader;
using executorch::extension::FlatTensorDataMap;
using executorch::runtime::DataLoader;
using executorch::runtime::Error;
using executorch::runtime::EValue;
using executorch::runtime::FreeableBuffer;
using executorch::runtime::HierarchicalAllocator;
using executorch::runtime::MemoryAllocator;
using executorch::runtime::MemoryManager;
using executorch::runtime::Method;
using executorch::runtime::MethodMeta;
using executorch::runtime::Program;
using executorch::runtime::Result;
using executorch::runtime::Span;
using executorch::runtime::Tag;
using executorch::runtime::etensor::Device;

namespace {

int g_failures = 0;

#define EXPECT(cond)                                                                \
  do {                                                                              \
    if (!(cond)) {                                                                  \
      std::fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
      ++g_failures;                                                                 \
    }                                                                               \
  } while (0)

std::vector<char> read_file(const char* path) {
  std::ifstream f(path, std::ios::binary);
  return std::vector<char>((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
}

// The data bytes of a version-1 .npy file.
std::vector<char> npy_data(const char* path) {
  std::vector<char> b = read_file(path);
  if (b.size() < 10) return {};
  const size_t start = 10 + static_cast<uint8_t>(b[8]) + 256 * static_cast<uint8_t>(b[9]);
  return std::vector<char>(b.begin() + static_cast<std::ptrdiff_t>(std::min(start, b.size())),
                           b.end());
}

// A loader of the app's own (not one of the extension's): the whole file in
// a vector, handed out as views.
class VectorLoader final : public DataLoader {
 public:
  explicit VectorLoader(std::vector<char> bytes) : bytes_(std::move(bytes)) {}
  Result<FreeableBuffer> load(size_t offset, size_t size,
                              const SegmentInfo& segment_info) const override {
    (void)segment_info;
    if (offset > bytes_.size() || size > bytes_.size() - offset) return Error::InvalidArgument;
    ++loads;
    return FreeableBuffer(bytes_.data() + offset, size, nullptr);
  }
  Result<size_t> size() const override { return bytes_.size(); }
  mutable int loads = 0;

 private:
  std::vector<char> bytes_;  // heap storage: 16-byte aligned on the targets etr supports
};

// Runs `fn` in a child process; true when it ended by a signal (an abort).
template <typename F>
bool aborts(F fn) {
  std::fflush(nullptr);
  const pid_t pid = fork();
  if (pid == 0) {
    std::freopen("/dev/null", "w", stderr);
    fn();
    _exit(0);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  return WIFSIGNALED(status);
}

std::vector<std::string> g_logged;
void capture_log(et_timestamp_t, et_pal_log_level_t level, const char*, const char*, size_t,
                 const char* message, size_t length) {
  g_logged.push_back(std::string(1, static_cast<char>(level)) + std::string(message, length));
}

// Planned buffers for a method, owned by the caller as the official API asks.
struct Planned {
  std::vector<std::unique_ptr<uint8_t[]>> buffers;
  std::vector<Span<uint8_t>> spans;
  std::optional<HierarchicalAllocator> allocator;
};

void plan(const MethodMeta& meta, Planned& p) {
  for (size_t id = 0; id < meta.num_memory_planned_buffers(); ++id) {
    const size_t size = static_cast<size_t>(meta.memory_planned_buffer_size(id).get());
    Result<Device> device = meta.memory_planned_buffer_device(id);
    EXPECT(device.ok() && device->is_cpu());
    p.buffers.push_back(std::make_unique<uint8_t[]>(size));
    p.spans.push_back({p.buffers.back().get(), size});
  }
  p.allocator.emplace(Span<Span<uint8_t>>(p.spans.data(), p.spans.size()));
}

// Sets the input from `input`, runs twice, and returns the largest
// difference of output 0 from `expected` (or infinity).
float run(Method& method, std::vector<char>& input, const std::vector<char>& expected) {
  std::vector<std::pair<char*, size_t>> buffers = {{input.data(), input.size()}};
  for (int i = 0; i < 2; ++i) {
    auto prepared = executorch::extension::prepare_input_tensors(method, {}, buffers);
    EXPECT(prepared.ok());
    if (!prepared.ok()) return INFINITY;
    EXPECT(method.execute() == Error::Ok);
  }
  std::vector<EValue> outputs(method.outputs_size());
  EXPECT(method.get_outputs(outputs.data(), outputs.size()) == Error::Ok);
  if (outputs.empty() || !outputs[0].isTensor()) return INFINITY;
  const Tensor out = outputs[0].toTensor();
  EXPECT(out.scalar_type() == ScalarType::Float);
  // get_output(0) is the same tensor, not a copy.
  EXPECT(method.get_output(0).toTensor().const_data_ptr() == out.const_data_ptr());
  const size_t n = expected.size() / sizeof(float);
  if (static_cast<size_t>(out.numel()) != n) return INFINITY;
  float worst = 0;
  for (size_t i = 0; i < n; ++i) {
    float want;
    std::memcpy(&want, expected.data() + i * sizeof(float), sizeof(float));
    worst = std::fmax(worst, std::fabs(out.const_data_ptr<float>()[i] - want));
  }
  return worst;
}

}  // namespace

static uint8_t method_allocator_pool[4 * 1024U * 1024U];
static uint8_t temp_allocator_pool[1024U * 1024U];

int main(int argc, char** argv) {
  if (argc != 4 && argc != 5) {
    std::fprintf(stderr, "usage: %s MODEL.pte IN.npy EXPECTED.npy [DATA.ptd]\n", argv[0]);
    return 2;
  }
  executorch::runtime::runtime_init();
  const char* model_path = argv[1];
  std::vector<char> input = npy_data(argv[2]);
  const std::vector<char> expected = npy_data(argv[3]);

  // Logs go through the PAL; an app may install its own.
  executorch::runtime::register_pal(executorch::runtime::PalImpl::create(capture_log, __FILE__));
  ET_LOG(Info, "hello %d", 42);
  executorch::runtime::register_pal(executorch::runtime::PalImpl());
  EXPECT(g_logged.size() == 1 && g_logged[0] == "Ihello 42");

  // Loaders and programs: the official error codes.
  EXPECT(FileDataLoader::from("/nonexistent/model.pte").error() == Error::AccessFailed);
  EXPECT(FileDataLoader::from(model_path, 3).error() == Error::InvalidArgument);
  EXPECT(Program::load(nullptr).error() == Error::InvalidArgument);
  static const char junk[128] = "this is not a program";
  BufferDataLoader junk_loader(junk, sizeof(junk));
  EXPECT(Program::load(&junk_loader).error() == Error::InvalidProgram);
  EXPECT(Program::check_header(junk, sizeof(junk)) == Program::HeaderStatus::NotPresent);
  EXPECT(Program::check_header(junk, 8) == Program::HeaderStatus::ShortData);
  const std::vector<char> model_bytes = read_file(model_path);
  EXPECT(Program::check_header(model_bytes.data(), model_bytes.size()) ==
         Program::HeaderStatus::CompatibleVersion);

  Result<FileDataLoader> file_loader = FileDataLoader::from(model_path);
  EXPECT(file_loader.ok());
  if (!file_loader.ok()) return 1;
  EXPECT(file_loader->size().ok() && *file_loader->size() == model_bytes.size());
  char head[8] = {};
  EXPECT(file_loader->load_into(0, 8,
                                DataLoader::SegmentInfo(DataLoader::SegmentInfo::Type::Program),
                                head) == Error::Ok);
  EXPECT(std::memcmp(head + 4, "ET12", 4) == 0);
  EXPECT(file_loader->load(model_bytes.size(), 1, DataLoader::SegmentInfo()).error() ==
         Error::InvalidArgument);
  auto loader = std::make_unique<FileDataLoader>(std::move(file_loader.get()));

  Result<Program> program = Program::load(loader.get());
  EXPECT(program.ok());
  if (!program.ok()) return 1;
  EXPECT(program->num_methods() >= 1);
  Result<const char*> name = program->get_method_name(0);
  EXPECT(name.ok() && std::strcmp(*name, "forward") == 0);
  EXPECT(program->get_method_name(program->num_methods()).error() == Error::InvalidArgument);
  EXPECT(program->method_meta("no_such_method").error() == Error::InvalidArgument);

  Result<MethodMeta> meta = program->method_meta("forward");
  EXPECT(meta.ok());
  if (!meta.ok()) return 1;
  EXPECT(meta->num_inputs() >= 1 && meta->input_tag(0).ok() && *meta->input_tag(0) == Tag::Tensor);
  EXPECT(meta->input_tensor_meta(0).ok() &&
         meta->input_tensor_meta(0)->scalar_type() == ScalarType::Float);
  EXPECT(meta->input_tensor_meta(0)->nbytes() == input.size());
  EXPECT(meta->memory_planned_buffer_device(meta->num_memory_planned_buffers()).error() ==
         Error::InvalidArgument);

  // External data, when given.
  std::unique_ptr<FileDataLoader> ptd_loader;
  std::unique_ptr<FlatTensorDataMap> ptd;
  if (argc == 5) {
    Result<FileDataLoader> l = FileDataLoader::from(argv[4]);
    EXPECT(l.ok());
    ptd_loader = std::make_unique<FileDataLoader>(std::move(l.get()));
    Result<FlatTensorDataMap> map = FlatTensorDataMap::load(ptd_loader.get());
    EXPECT(map.ok());
    if (!map.ok()) return 1;
    ptd = std::make_unique<FlatTensorDataMap>(std::move(map.get()));
    // The header, read by hand: the segment data lies inside the file.
    const std::vector<char> ptd_bytes = read_file(argv[4]);
    auto header =
        executorch::extension::FlatTensorHeader::Parse(ptd_bytes.data(), ptd_bytes.size());
    EXPECT(header.ok() &&
           header->segment_base_offset + header->segment_data_size <= ptd_bytes.size());
    EXPECT(executorch::extension::FlatTensorHeader::Parse(model_bytes.data(), model_bytes.size())
               .error() == Error::NotFound);
    EXPECT(executorch::extension::FlatTensorHeader::Parse(ptd_bytes.data(), 16).error() ==
           Error::InvalidArgument);
    EXPECT(ptd->get_num_keys().ok() && *ptd->get_num_keys() >= 1);
    Result<const char*> key = ptd->get_key(0);
    EXPECT(key.ok());
    Result<FreeableBuffer> data = ptd->get_data(*key);
    EXPECT(data.ok() && data->size() > 0);
    EXPECT(ptd->get_data("no such key").error() == Error::NotFound);
    EXPECT(ptd->get_key(*ptd->get_num_keys()).error() == Error::InvalidArgument);
  }

  MemoryAllocator method_allocator(sizeof(method_allocator_pool), method_allocator_pool);
  MemoryAllocator temp_allocator(sizeof(temp_allocator_pool), temp_allocator_pool);
  Planned planned;
  plan(*meta, planned);
  MemoryManager memory_manager(&method_allocator, &*planned.allocator, &temp_allocator);
  EXPECT(program->load_method("no_such_method", &memory_manager).error() == Error::InvalidArgument);

  Result<Method> method = program->load_method("forward", &memory_manager, nullptr, ptd.get());
  EXPECT(method.ok());
  if (!method.ok()) return 1;
  EXPECT(method_allocator.used_size() > 0);  // the method's tables live in the caller's pool
  EXPECT(method->inputs_size() == meta->num_inputs());
  EXPECT(method->method_meta().num_outputs() == method->outputs_size());
  const float worst = run(*method, input, expected);
  std::printf("official runner: max abs error %g\n", static_cast<double>(worst));
  EXPECT(worst <= 1e-5f);

  // Argument errors of the official API.
  EXPECT(method->set_input(EValue(), method->inputs_size()) == Error::InvalidArgument);
  EValue one;
  EXPECT(method->get_outputs(&one, 0) == Error::InvalidArgument);
  std::vector<char> short_input(input.size() / 2);
  std::vector<std::pair<char*, size_t>> short_buffers = {{short_input.data(), short_input.size()}};
  EXPECT(executorch::extension::prepare_input_tensors(*method, {}, short_buffers).error() ==
         Error::InvalidArgument);
  executorch::extension::PrepareInputTensorsOptions tight;
  tight.max_total_allocation_size = 1;
  EXPECT(executorch::extension::prepare_input_tensors(*method, tight).error() ==
         Error::InvalidArgument);

  // Printing, with two items at each end of a long list.
  std::ostringstream printed;
  printed << executorch::extension::evalue_edge_items(2) << method->get_output(0) << " "
          << EValue(static_cast<int64_t>(7)) << " " << EValue(2.0) << " " << EValue(true) << " "
          << EValue();
  EXPECT(printed.str().rfind("tensor(sizes=[", 0) == 0);
  EXPECT(printed.str().find("..., ") != std::string::npos ||
         method->get_output(0).toTensor().numel() <= 4);
  const std::string suffix = "]) 7 2. True None";
  EXPECT(printed.str().size() > suffix.size() &&
         printed.str().compare(printed.str().size() - suffix.size(), suffix.size(), suffix) == 0);

  // A too small method allocator: the load fails, naming nothing it cannot.
  static uint8_t tiny_pool[64];
  MemoryAllocator tiny(sizeof(tiny_pool), tiny_pool);
  MemoryManager tiny_manager(&tiny, &*planned.allocator, &temp_allocator);
  EXPECT(program->load_method("forward", &tiny_manager, nullptr, ptd.get()).error() ==
         Error::MemoryAllocationFailed);

  // A loader of the app's own, read through load().
  VectorLoader vector_loader(read_file(model_path));
  Result<Program> program2 = Program::load(&vector_loader);
  EXPECT(program2.ok() && vector_loader.loads > 0);
  if (program2.ok()) {
    static uint8_t pool2[4 * 1024U * 1024U];
    MemoryAllocator method_allocator2(sizeof(pool2), pool2);
    Planned planned2;
    plan(*program2->method_meta("forward"), planned2);
    MemoryManager memory_manager2(&method_allocator2, &*planned2.allocator, &temp_allocator);
    Result<Method> method2 = program2->load_method("forward", &memory_manager2, nullptr, ptd.get());
    EXPECT(method2.ok());
    if (method2.ok()) EXPECT(run(*method2, input, expected) <= 1e-5f);
  }

  // Memory-mapped program, malloc-backed method allocator.
  auto mmap_loader = executorch::extension::MmapDataLoader::from(
      model_path, executorch::extension::MmapDataLoader::MlockConfig::NoMlock);
  EXPECT(mmap_loader.ok());
  EXPECT(executorch::extension::MmapDataLoader::from("/nonexistent/m.pte").error() ==
         Error::AccessFailed);
  if (mmap_loader.ok()) {
    Result<Program> program3 = Program::load(&mmap_loader.get());
    EXPECT(program3.ok());
    if (program3.ok()) {
      executorch::extension::MallocMemoryAllocator malloc_allocator;
      Planned planned3;
      plan(*program3->method_meta("forward"), planned3);
      MemoryManager memory_manager3(&malloc_allocator, &*planned3.allocator, &temp_allocator);
      Result<Method> method3 =
          program3->load_method("forward", &memory_manager3, nullptr, ptd.get());
      EXPECT(method3.ok());
      if (method3.ok()) EXPECT(run(*method3, input, expected) <= 1e-5f);
    }
  }
  // A program in memory owned through a shared_ptr.
  std::shared_ptr<void> shared(std::aligned_alloc(16, (model_bytes.size() + 15) / 16 * 16),
                               std::free);
  std::memcpy(shared.get(), model_bytes.data(), model_bytes.size());
  executorch::extension::SharedPtrDataLoader shared_loader(shared, model_bytes.size());
  EXPECT(Program::load(&shared_loader).ok());
  EXPECT(shared_loader.load(model_bytes.size(), 1, DataLoader::SegmentInfo()).error() ==
         Error::InvalidArgument);

  // Small utilities.
  int calls = 0;
  auto add = [&calls](int a, int b) {
    ++calls;
    return a + b;
  };
  executorch::runtime::FunctionRef<int(int, int)> ref(add);
  EXPECT(ref(2, 3) == 5 && calls == 1);
  EXPECT(executorch::runtime::kTensorDimensionLimit == 16);
  const int32_t shape[] = {2, 8};
  EXPECT(std::string(
             executorch::runtime::tensor_shape_to_c_string(Span<const int32_t>(shape, 2)).data()) ==
         "(2, 8)");
  int64_t covered = 0;
  EXPECT(executorch::extension::parallel_for(0, 100, 8,
                                             [&](int64_t b, int64_t e) { covered += e - b; }));
  EXPECT(covered == 100);
  EXPECT(!executorch::extension::parallel_for(5, 1, 8, [](int64_t, int64_t) {}));
  // Dim orders: a channels-last [2, 3, 4, 5] tensor.
  const int32_t nchw[] = {2, 3, 4, 5};
  const uint8_t channels_last[] = {0, 2, 3, 1};
  int64_t strides[4] = {};
  EXPECT(executorch::runtime::dim_order_to_stride(nchw, channels_last, 4, strides) == Error::Ok);
  EXPECT(strides[0] == 60 && strides[1] == 1 && strides[2] == 15 && strides[3] == 3);
  uint8_t order[4] = {};
  EXPECT(executorch::runtime::stride_to_dim_order(strides, 4, order) == Error::Ok);
  EXPECT(std::memcmp(order, channels_last, 4) == 0);
  EXPECT(executorch::runtime::is_channels_last_dim_order(order, 4));
  EXPECT(!executorch::runtime::is_contiguous_dim_order(order, 4));
  const uint8_t bad_order[] = {0, 0, 1, 2};
  EXPECT(executorch::runtime::dim_order_to_stride(nchw, bad_order, 4, strides) ==
         Error::InvalidArgument);

  // Contract violations abort, as in the official runtime.
  EXPECT(aborts([&] { (void)method->get_output(method->outputs_size()); }));
  EXPECT(aborts([] {
    Result<int> r(Error::NotFound);
    std::printf("%d\n", *r);
  }));
  EXPECT(aborts([] { MemoryManager m(nullptr, nullptr, nullptr); }));
  EXPECT(!aborts([&] { (void)method->get_output(0); }));

  if (g_failures != 0) {
    std::fprintf(stderr, "official runner: %d check(s) failed\n", g_failures);
    return 1;
  }
  std::printf("official runner: ok\n");
  return 0;
}
