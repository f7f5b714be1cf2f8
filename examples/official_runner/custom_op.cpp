// Custom operators registered through the official API and run by etr:
// my_ops::mul3.out (x * 3) and my_ops::affine.out (int list, Double and Bool
// arguments) registered with EXECUTORCH_LIBRARY, a third kernel with
// register_kernels and a hand-boxed OpFunction, and test/models/custom_op.pte
// (which calls both custom operators between ATen ops) run through
// Program/Method and through Module, compared with PyTorch's output. Exit 0
// when every check passes.
//   official_custom_op MODEL.pte IN.npy EXPECTED.npy
#include <executorch/extension/data_loader/file_data_loader.h>
#include <executorch/extension/kernel_util/make_boxed_from_unboxed_functor.h>
#include <executorch/extension/module/module.h>
#include <executorch/extension/runner_util/inputs.h>
#include <executorch/extension/tensor/tensor.h>
#include <executorch/extension/tensor/tensor_accessor.h>
#include <executorch/runtime/executor/method.h>
#include <executorch/runtime/executor/program.h>
#include <executorch/runtime/kernel/kernel_includes.h>
#include <executorch/runtime/kernel/operator_registry.h>
#include <executorch/runtime/platform/runtime.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
#include <memory>
#include <vector>

using executorch::aten::ScalarType;
using executorch::aten::Tensor;
using executorch::runtime::Error;
using executorch::runtime::EValue;
using executorch::runtime::Kernel;
using executorch::runtime::KernelRuntimeContext;
using executorch::runtime::Span;

namespace {

int g_failures = 0;
int g_mul3_calls = 0;
int g_affine_calls = 0;
size_t g_affine_shifts = 0;

#define EXPECT(cond)                                                                \
  do {                                                                              \
    if (!(cond)) {                                                                  \
      std::fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
      ++g_failures;                                                                 \
    }                                                                               \
  } while (0)

// The kernel, written as for the official runtime.
Tensor& mul3_out(KernelRuntimeContext& ctx, const Tensor& in, Tensor& out) {
  ++g_mul3_calls;
  if (in.scalar_type() != ScalarType::Float || out.scalar_type() != ScalarType::Float) {
    ctx.fail(Error::InvalidArgument);
    return out;
  }
  if (executorch::runtime::resize_tensor(out, in.sizes()) != Error::Ok) {
    ctx.fail(Error::InvalidArgument);
    return out;
  }
  const float* x = in.const_data_ptr<float>();
  float* y = out.mutable_data_ptr<float>();
  for (ptrdiff_t i = 0; i < in.numel(); ++i) y[i] = 3.0f * x[i];
  return out;
}

// (x * factor + sum(shifts)), negated when `negate`.
Tensor& affine_out(KernelRuntimeContext& ctx, const Tensor& in,
                   executorch::aten::ArrayRef<int64_t> shifts, double factor, bool negate,
                   Tensor& out) {
  ++g_affine_calls;
  g_affine_shifts = shifts.size();
  if (in.scalar_type() != ScalarType::Float ||
      executorch::runtime::resize_tensor(out, in.sizes()) != Error::Ok) {
    ctx.fail(Error::InvalidArgument);
    return out;
  }
  double shift = 0;
  for (int64_t s : shifts) shift += static_cast<double>(s);
  // Rows and columns through tensor accessors (the input is [rows, cols]).
  auto x = executorch::extension::make_tensor_accessor<const float, 2>(in);
  auto y = executorch::extension::make_tensor_accessor<float, 2>(out);
  if (!x.ok() || !y.ok()) {
    ctx.fail(Error::InvalidArgument);
    return out;
  }
  for (ssize_t r = 0; r < x->size(0); ++r) {
    for (ssize_t c = 0; c < x->size(1); ++c) {
      const double v = (*x)[r][c] * factor + shift;
      (*y)[r][c] = static_cast<float>(negate ? -v : v);
    }
  }
  return out;
}

// A hand-boxed kernel: adds the Int argument to every element.
void add_int_boxed(KernelRuntimeContext& ctx, Span<EValue*> stack) {
  if (stack.size() < 3 || !stack[0]->isTensor() || !stack[1]->isInt()) {
    ctx.fail(Error::InvalidArgument);
    return;
  }
  (void)stack;
}

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

}  // namespace

EXECUTORCH_LIBRARY(my_ops, "mul3.out", mul3_out);
EXECUTORCH_LIBRARY(my_ops, "affine.out", affine_out);

static uint8_t method_pool[1024 * 1024];

int main(int argc, char** argv) {
  if (argc != 4) {
    std::fprintf(stderr, "usage: %s MODEL.pte IN.npy EXPECTED.npy\n", argv[0]);
    return 2;
  }
  executorch::runtime::runtime_init();
  std::vector<char> input = npy_data(argv[2]);
  const std::vector<char> expected = npy_data(argv[3]);

  // make_tensor_accessor refuses a rank or element size that does not match.
  {
    std::vector<float> data(6, 0.f);
    auto t = executorch::extension::from_blob(data.data(), {2, 3});  // wraps data
    EXPECT((executorch::extension::make_tensor_accessor<float, 3>(*t).error() ==
            Error::InvalidArgument));
    EXPECT((executorch::extension::make_tensor_accessor<double, 2>(*t).error() ==
            Error::InvalidArgument));
    auto acc = executorch::extension::make_tensor_accessor<float, 2>(*t);
    EXPECT(acc.ok());
    if (acc.ok()) {
      (*acc)[1][2] = 7.f;
      EXPECT(data[5] == 7.f && acc->size(1) == 3 && acc->stride(0) == 3);
    }
  }

  // The registry as the official API shows it.
  static const Kernel extra[] = {Kernel("my_ops::add_int.out", add_int_boxed)};
  EXPECT(executorch::runtime::register_kernels({extra, 1}) == Error::Ok);
  EXPECT(executorch::runtime::registry_has_op_function("my_ops::mul3.out"));
  EXPECT(executorch::runtime::registry_has_op_function("my_ops::add_int.out"));
  EXPECT(!executorch::runtime::registry_has_op_function("my_ops::nope.out"));
  EXPECT(executorch::runtime::get_op_function_from_registry("my_ops::nope.out").error() ==
         Error::OperatorMissing);
  auto add_fn = executorch::runtime::get_op_function_from_registry("my_ops::add_int.out");
  EXPECT(add_fn.ok() && *add_fn == &add_int_boxed);
  EXPECT(executorch::runtime::get_registered_kernels().size() == 3);
  // Registering the same operator twice aborts, as in the official runtime.
  EXPECT(aborts([] { (void)executorch::runtime::register_kernels({extra, 1}); }));

  // Program / Method.
  auto loader = executorch::extension::FileDataLoader::from(argv[1]);
  EXPECT(loader.ok());
  if (!loader.ok()) return 1;
  auto program = executorch::runtime::Program::load(&loader.get());
  EXPECT(program.ok());
  if (!program.ok()) return 1;
  auto meta = program->method_meta("forward");
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
  auto method = program->load_method("forward", &memory);
  EXPECT(method.ok());
  if (!method.ok()) return 1;
  std::vector<std::pair<char*, size_t>> inputs = {{input.data(), input.size()}};
  auto prepared = executorch::extension::prepare_input_tensors(*method, {}, inputs);
  EXPECT(prepared.ok());
  EXPECT(method->execute() == Error::Ok);
  EXPECT(g_mul3_calls == 1);
  EXPECT(g_affine_calls == 1 && g_affine_shifts == 2);
  const float worst = max_diff(method->get_output(0).toTensor(), expected);
  std::printf("custom op (Program/Method): max abs error %g\n", static_cast<double>(worst));
  EXPECT(worst <= 1e-5f);

  // Module.
  executorch::extension::Module module(argv[1]);
  const auto in_meta = module.method_meta("forward");
  EXPECT(in_meta.ok());
  if (in_meta.ok()) {
    const auto info = in_meta->input_tensor_meta(0);
    std::vector<executorch::aten::SizesType> sizes(info->sizes().begin(), info->sizes().end());
    std::vector<float> values(input.size() / sizeof(float));
    std::memcpy(values.data(), input.data(), input.size());
    auto tensor = executorch::extension::make_tensor_ptr(sizes, values);
    auto outputs = module.forward(tensor);
    EXPECT(outputs.ok());
    if (outputs.ok()) {
      EXPECT(max_diff(outputs->at(0).toTensor(), expected) <= 1e-5f);
    }
    EXPECT(g_mul3_calls == 2 && g_affine_calls == 2);
  }

  if (g_failures != 0) {
    std::fprintf(stderr, "custom op: %d check(s) failed\n", g_failures);
    return 1;
  }
  std::printf("custom op: ok\n");
  return 0;
}
