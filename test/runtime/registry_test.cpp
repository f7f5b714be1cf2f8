#include <gtest/gtest.h>

#include "runtime/backend/backend.h"
#include "runtime/kernel/kernel.h"
#include "runtime/kernel/registry.h"

namespace etr {
namespace {

void add_like(KernelContext& ctx, const Tensor& a, const Tensor& b, Scalar alpha, Tensor& out) {
  (void)a;
  (void)b;
  (void)alpha;
  (void)out;
  ctx.fail(Error::NotImplemented);
}
void relu_like(KernelContext& ctx, const Tensor& a, Tensor& out) {
  (void)a;
  (void)out;
  ctx.fail(Error::NotImplemented);
}
void opt_args(KernelContext& ctx, const Tensor* t, std::optional<int64_t> i, IntArrayRef l,
              std::optional<StringView> s, TensorList tl, Tensor& out) {
  (void)ctx, (void)t, (void)i, (void)l, (void)s, (void)tl, (void)out;
}

constexpr KernelEntry kTable[] = {
    make_kernel<&add_like>("test::add.out"),
    make_kernel<&relu_like>("test::relu.out"),
    make_kernel<&relu_like>("test::relu.out", "v1/6;0|6;0"),
};
constexpr KernelEntry kDuplicate[] = {make_kernel<&relu_like>("test::relu.out")};
constexpr KernelEntry kSelfDuplicate[] = {make_kernel<&relu_like>("test::x.out"),
                                          make_kernel<&relu_like>("test::x.out")};
constexpr KernelEntry kOther[] = {make_kernel<&opt_args>("test::opt.out")};

TEST(KernelSignatureTest, ArgumentKindsComeFromTheFunctionType) {
  const KernelEntry& add = kTable[0];
  ASSERT_EQ(add.num_args, 5);  // self, other, alpha, out + return slot
  EXPECT_EQ(add.arg_kinds[0], ArgKind::Tensor);
  EXPECT_EQ(add.arg_kinds[2], ArgKind::Scalar);
  EXPECT_EQ(add.arg_kinds[3], ArgKind::MutableTensor);
  EXPECT_EQ(add.arg_kinds[4], ArgKind::Any);
  const KernelEntry& opt = kOther[0];
  ASSERT_EQ(opt.num_args, 7);
  EXPECT_EQ(opt.arg_kinds[0], ArgKind::OptionalTensor);
  EXPECT_EQ(opt.arg_kinds[1], ArgKind::OptionalInt);
  EXPECT_EQ(opt.arg_kinds[2], ArgKind::IntList);
  EXPECT_EQ(opt.arg_kinds[3], ArgKind::OptionalString);
  EXPECT_EQ(opt.arg_kinds[4], ArgKind::TensorList);
  EXPECT_TRUE(arg_kind_accepts(ArgKind::Scalar, Tag::Bool));
  EXPECT_TRUE(arg_kind_accepts(ArgKind::Double, Tag::Int));
  EXPECT_FALSE(arg_kind_accepts(ArgKind::Tensor, Tag::None));
  EXPECT_TRUE(arg_kind_accepts(ArgKind::OptionalTensor, Tag::None));
  EXPECT_FALSE(arg_kind_accepts(ArgKind::IntList, Tag::TensorList));
}

TEST(KernelSignatureTest, WrapperUnboxesAndReportsFailure) {
  int32_t sizes[] = {1};
  uint8_t order[] = {0};
  int64_t strides[1];
  float x = 1.f;
  Tensor t(ScalarType::Float, 1, sizes, order, strides, &x);
  EValue tv(&t);
  EValue alpha(int64_t{1});
  EValue* args[] = {&tv, &tv, &alpha, &tv, &tv};
  KernelContext ctx;
  kTable[0].fn(ctx, args);
  EXPECT_EQ(ctx.failure_state(), Error::NotImplemented);
}

TEST(KernelRegistryTest, AddFindAndKeyFallback) {
  KernelRegistry reg;
  ASSERT_EQ(reg.add(Span<const KernelEntry>(kTable)), Error::Ok);
  EXPECT_EQ(reg.num_kernels(), 3u);
  EXPECT_EQ(reg.find("test::add.out", StringView()), &kTable[0]);
  EXPECT_EQ(reg.find("test::relu.out", "v1/6;0|6;0"), &kTable[2]);
  EXPECT_EQ(reg.find("test::relu.out", "v1/3;0|3;0"), &kTable[1]);  // generic fallback
  EXPECT_EQ(reg.find("test::missing.out", StringView()), nullptr);
  EXPECT_EQ(reg.find("test::add", StringView()), nullptr);  // exact names only
}

TEST(KernelRegistryTest, DuplicatesAreErrorsAndAddIsAtomic) {
  KernelRegistry reg;
  ASSERT_EQ(reg.add(Span<const KernelEntry>(kTable)), Error::Ok);
  EXPECT_EQ(reg.add(Span<const KernelEntry>(kDuplicate)), Error::RegistrationAlreadyRegistered);
  EXPECT_EQ(reg.add(Span<const KernelEntry>(kSelfDuplicate)), Error::RegistrationAlreadyRegistered);
  EXPECT_EQ(reg.num_kernels(), 3u);
  EXPECT_EQ(reg.find("test::x.out", StringView()), nullptr);
}

TEST(KernelRegistryTest, CapacityIsEnforced) {
  KernelRegistry reg;
  static KernelEntry tables[KernelRegistry::kMaxTables + 1][1];
  static char names[KernelRegistry::kMaxTables + 1][32];
  for (size_t i = 0; i <= KernelRegistry::kMaxTables; ++i) {
    snprintf(names[i], sizeof(names[i]), "test::k%zu.out", i);
    tables[i][0] = make_kernel<&relu_like>(names[i]);
    const Error err = reg.add(Span<const KernelEntry>(tables[i], 1));
    EXPECT_EQ(err, i < KernelRegistry::kMaxTables ? Error::Ok : Error::RegistrationExceedingMaxKernels);
  }
}

class NullBackend final : public BackendInterface {
 public:
  bool is_available() const override { return true; }
  Result<DelegateHandle*> init(BackendInitContext&, FreeableBuffer*, Span<const CompileSpec>) const override {
    return static_cast<DelegateHandle*>(nullptr);
  }
  Error execute(BackendExecutionContext&, DelegateHandle*, Span<EValue*>) const override {
    return Error::Ok;
  }
};

TEST(BackendRegistryTest, RegisterFindAndDuplicates) {
  clear_backends_for_testing();
  static NullBackend backend;
  EXPECT_EQ(register_backend({"NullBackend", &backend}), Error::Ok);
  EXPECT_EQ(register_backend({"NullBackend", &backend}), Error::RegistrationAlreadyRegistered);
  EXPECT_EQ(register_backend({nullptr, &backend}), Error::InvalidArgument);
  EXPECT_EQ(find_backend("NullBackend"), &backend);
  EXPECT_EQ(find_backend("Other"), nullptr);
  EXPECT_EQ(num_registered_backends(), 1u);
  EXPECT_STREQ(registered_backend_name(0), "NullBackend");
  static char names[ETR_MAX_BACKENDS][16];
  for (int i = 1; i < ETR_MAX_BACKENDS; ++i) {
    snprintf(names[i], sizeof(names[i]), "B%d", i);
    EXPECT_EQ(register_backend({names[i], &backend}), Error::Ok);
  }
  EXPECT_EQ(register_backend({"OneTooMany", &backend}), Error::RegistrationExceedingMaxKernels);
  clear_backends_for_testing();
}

}  // namespace
}  // namespace etr
