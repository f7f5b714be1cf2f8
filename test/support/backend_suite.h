// A test suite written once against BackendInterface (init / execute /
// destroy), instantiated by each backend's test file for its fixtures
// (test/xnnpack/backend_suite_test.cpp, test/vulkan/backend_suite_test.cpp):
// repeated execute matches PyTorch, incompatible and corrupted payloads are
// refused without a crash, a failing allocation at any point of init is
// reported (and leaks nothing under ASan), and two delegates executing at
// the same time on one shared thread pool give the same answers.
//
// Each fixture is a program with one delegate call whose arguments are the
// method's input and output, so the method's expected .npy files (PyTorch
// eager) are the delegate's. Bounded shape changes through BackendInterface
// are in xnnpack_backend_test.cpp (InputsAreCheckedAgainstTheExportedBounds).
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "extension/data_loader/buffer_data_loader.h"
#include "extension/tensor/host_tensor.h"
#include "extension/tensor/npy.h"
#include "extension/threadpool/pthread_pool.h"
#include "runtime/executor/program.h"
#include "runtime/platform/error_capture.h"
#include "runtime/platform/platform.h"
#include "test/support/in_process.h"

namespace etr {
namespace testing {
namespace {

struct BackendCase {
  const char* name;
  const BackendInterface* (*backend)();
  const char* pte;       // under test/models/
  const char* input;     // .npy, under test/models/
  const char* expected;  // .npy (PyTorch eager), under test/models/
  double rtol, atol;
  // The payload header's magic (bytes 4..7): "XH00", "VH00". Both headers
  // keep the constant region's offset (u32) and size (u64) at bytes 18 and 22.
  const char* magic;
  // Allocations of init that EveryFailingAllocationOfInitIsReported must see
  // fail cleanly, at least: the allocations the backend makes through the
  // platform hook and the method allocator (others come from the heap).
  int64_t min_init_allocations;
};

std::vector<uint8_t> read_file(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  return std::vector<uint8_t>((std::istreambuf_iterator<char>(f)),
                              std::istreambuf_iterator<char>());
}

// The program, its delegate's processed bytes (from the XH00 header to the
// end of its constant region), the input and the expected output.
class BackendSuite : public ::testing::TestWithParam<BackendCase> {
 protected:
  void SetUp() override {
    const BackendCase& c = GetParam();
    file_ = read_file(models_dir() + c.pte);
    ASSERT_FALSE(file_.empty()) << c.pte;
    loader_ = std::make_unique<BufferDataLoader>(file_.data(), file_.size());
    Result<Program> p = Program::load(loader_.get());
    ASSERT_TRUE(p.ok());
    program_ = std::make_unique<Program>(std::move(*p));
    for (size_t i = 0; i + 30 < file_.size() && payload_.empty(); ++i) {
      if (std::memcmp(&file_[i + 4], c.magic, 4) != 0) continue;
      uint32_t cd_off = 0;
      uint64_t cd_size = 0;
      std::memcpy(&cd_off, &file_[i + 18], 4);
      std::memcpy(&cd_size, &file_[i + 22], 8);
      const size_t end = i + cd_off + static_cast<size_t>(cd_size);
      if (end <= file_.size()) payload_.assign(file_.begin() + i, file_.begin() + end);
    }
    ASSERT_FALSE(payload_.empty()) << "no " << c.magic << " payload in " << c.pte;
    Result<HostTensor> x = read_npy(models_dir() + c.input);
    Result<HostTensor> y = read_npy(models_dir() + c.expected);
    ASSERT_TRUE(x.ok() && y.ok());
    input_ = std::make_unique<HostTensor>(std::move(*x));
    expected_ = std::make_unique<HostTensor>(std::move(*y));
  }

  const BackendInterface& backend() const { return *GetParam().backend(); }

  // init on a copy of `bytes`; the error and its message on failure.
  Result<DelegateHandle*> init(const std::vector<uint8_t>& bytes, ThreadPool* pool,
                               std::string* message = nullptr) {
    char buf[512];
    ErrorCapture capture(buf, sizeof(buf));
    copies_.push_back(bytes);
    FreeableBuffer processed(copies_.back().data(), copies_.back().size());
    BackendInitContext ctx{init_alloc_, &program_->named_data(), "forward", 0, pool, {}};
    Result<DelegateHandle*> h = backend().init(ctx, &processed, {});
    if (message != nullptr) *message = capture.message();
    return h;
  }

  // Executes with the fixture's input into a fresh output; the output's values.
  Error execute(DelegateHandle* h, ThreadPool* pool, std::vector<float>* out) {
    Result<HostTensor> x = HostTensor::contiguous_copy(input_->tensor());
    Result<HostTensor> y = HostTensor::zeros(
        ScalarType::Float, std::vector<int32_t>(expected_->tensor().sizes().begin(),
                                                expected_->tensor().sizes().end()));
    if (!x.ok() || !y.ok()) return Error::Internal;
    EValue xv(&x->tensor()), yv(&y->tensor());
    EValue* args[2] = {&xv, &yv};
    BackendExecutionContext ctx{nullptr, "forward", pool};
    const Error e = backend().execute(ctx, h, Span<EValue*>(args, 2));
    *out = y->values<float>();
    return e;
  }

  void expect_matches_pytorch(const std::vector<float>& got) const {
    const std::vector<float> want = expected_->values<float>();
    ASSERT_EQ(got.size(), want.size());
    for (size_t i = 0; i < want.size(); ++i) {
      EXPECT_NEAR(got[i], want[i], GetParam().atol + GetParam().rtol * std::fabs(want[i]))
          << "element " << i;
    }
  }

  std::vector<uint8_t> file_;
  std::unique_ptr<BufferDataLoader> loader_;
  std::unique_ptr<Program> program_;
  std::vector<uint8_t> payload_;
  std::unique_ptr<HostTensor> input_, expected_;
  std::vector<std::vector<uint8_t>> copies_;  // processed bytes outlive their delegates
  // The delegate's value buffers, packed weights and scratch come from the
  // method allocator: room for the two delegates one test holds at a time.
  std::vector<uint8_t> method_pool_ = std::vector<uint8_t>(size_t{32} << 20);
  MemoryAllocator method_alloc_{method_pool_.data(), method_pool_.size()};
  MemoryAllocator* init_alloc_ = &method_alloc_;  // what init() gives the delegate
};

TEST_P(BackendSuite, RepeatedExecuteMatchesPyTorch) {
  ASSERT_TRUE(backend().is_available());
  for (int round = 0; round < 2; ++round) {  // init / destroy twice
    Result<DelegateHandle*> h = init(payload_, nullptr);
    ASSERT_TRUE(h.ok());
    for (int i = 0; i < 3; ++i) {
      std::vector<float> y;
      ASSERT_EQ(execute(*h, nullptr, &y), Error::Ok);
      expect_matches_pytorch(y);
    }
    backend().destroy(*h);
  }
  backend().destroy(nullptr);  // tolerated
}

TEST_P(BackendSuite, IncompatiblePayloadsAreRefusedWithAMessage) {
  const std::vector<std::vector<uint8_t>> bad = {
      {},
      std::vector<uint8_t>(7, 0),
      std::vector<uint8_t>(256, 0xAB),
      std::vector<uint8_t>(payload_.begin(), payload_.begin() + payload_.size() / 2)};
  for (const std::vector<uint8_t>& b : bad) {
    std::string msg;
    Result<DelegateHandle*> h = init(b, nullptr, &msg);
    EXPECT_FALSE(h.ok()) << b.size() << " bytes";
    EXPECT_FALSE(msg.empty()) << b.size() << " bytes";
    if (h.ok()) backend().destroy(*h);
  }
}

TEST_P(BackendSuite, CorruptedPayloadsAreRefusedOrRunWithoutACrash) {
  const size_t stride = payload_.size() / 512 + 1;
  for (size_t i = 0; i < payload_.size(); i += stride) {
    for (uint8_t flip : {uint8_t{0x01}, uint8_t{0x80}, uint8_t{0xFF}}) {
      method_alloc_.reset();  // as a fresh method's: the previous delegate is destroyed
      std::vector<uint8_t> b = payload_;
      b[i] ^= flip;
      std::string msg;
      Result<DelegateHandle*> h = init(b, nullptr, &msg);
      if (!h.ok()) {
        EXPECT_FALSE(msg.empty()) << "byte " << i;
        continue;
      }
      std::vector<float> y;
      (void)execute(*h, nullptr, &y);  // any result, never a crash or a read out of bounds
      backend().destroy(*h);
    }
    copies_.clear();
  }
}

// Fails allocation number `fail_at` of the platform heap (counting from 0).
struct FailingHeap {
  static int64_t count;
  static int64_t fail_at;
  static void* allocate(size_t size, size_t alignment) {
    if (count++ == fail_at) return nullptr;
    return aligned_alloc(alignment < sizeof(void*) ? sizeof(void*) : alignment,
                         (size + alignment - 1) / alignment * alignment);
  }
  static void deallocate(void* p) { free(p); }
};
int64_t FailingHeap::count = 0;
int64_t FailingHeap::fail_at = -1;

// The method allocator, failing the same numbered allocation as FailingHeap
// (one count over both).
class FailingMethodAllocator final : public MemoryAllocator {
 public:
  using MemoryAllocator::MemoryAllocator;
  void* allocate(size_t size, size_t alignment) override {
    if (FailingHeap::count++ == FailingHeap::fail_at) return nullptr;
    return MemoryAllocator::allocate(size, alignment);
  }
};

TEST_P(BackendSuite, EveryFailingAllocationOfInitIsReported) {
  const PlatformHooks saved = platform_hooks();
  PlatformHooks hooks = saved;
  hooks.allocate = &FailingHeap::allocate;
  hooks.deallocate = &FailingHeap::deallocate;
  set_platform_hooks(hooks);
  FailingMethodAllocator failing(method_pool_.data(), method_pool_.size());
  init_alloc_ = &failing;
  bool succeeded = false;
  int64_t failures = 0;
  for (int64_t k = 0; k < 1000 && !succeeded; ++k) {
    failing.reset();
    FailingHeap::count = 0;
    FailingHeap::fail_at = k;
    std::string msg;
    Result<DelegateHandle*> h = init(payload_, nullptr, &msg);
    if (h.ok()) {  // allocation k was never reached: init needs fewer
      succeeded = true;
      std::vector<float> y;
      EXPECT_EQ(execute(*h, nullptr, &y), Error::Ok);
      expect_matches_pytorch(y);
      backend().destroy(*h);
    } else {
      ++failures;
      EXPECT_FALSE(msg.empty()) << "allocation " << k;
    }
  }
  std::printf("[ INFO     ] init failed cleanly at each of its first %lld allocations\n",
              static_cast<long long>(failures));
  FailingHeap::fail_at = -1;
  set_platform_hooks(saved);
  init_alloc_ = &method_alloc_;
  EXPECT_TRUE(succeeded);
  EXPECT_GE(failures, GetParam().min_init_allocations);
}

// Two methods' delegates running at the same time on one pool: the pool
// serializes their parallel sections (see extension/threadpool), and each
// gets PyTorch's answer every time.
TEST_P(BackendSuite, TwoDelegatesShareOnePoolConcurrently) {
  std::unique_ptr<PthreadPool> pool = PthreadPool::create(2);
  ASSERT_NE(pool, nullptr);
  Result<DelegateHandle*> a = init(payload_, pool.get());
  Result<DelegateHandle*> b = init(payload_, pool.get());
  ASSERT_TRUE(a.ok() && b.ok());
  std::vector<std::vector<float>> results(2);
  std::vector<Error> errors(2, Error::Ok);
  auto worker = [&](int w, DelegateHandle* h) {
    for (int i = 0; i < 20 && errors[w] == Error::Ok; ++i) {
      errors[w] = execute(h, pool.get(), &results[w]);
      const std::vector<float> want = expected_->values<float>();
      for (size_t j = 0; j < want.size() && errors[w] == Error::Ok; ++j) {
        if (!(std::fabs(results[w][j] - want[j]) <=
              GetParam().atol + GetParam().rtol * std::fabs(want[j])))
          errors[w] = Error::Internal;
      }
    }
  };
  std::thread t0(worker, 0, *a), t1(worker, 1, *b);
  t0.join();
  t1.join();
  EXPECT_EQ(errors[0], Error::Ok);
  EXPECT_EQ(errors[1], Error::Ok);
  backend().destroy(*a);
  backend().destroy(*b);
}

}  // namespace
}  // namespace testing
}  // namespace etr
