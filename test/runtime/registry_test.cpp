#include "runtime/kernel/registry.h"

#include <gtest/gtest.h>

#include <string>

#include "runtime/backend/backend.h"
#include "runtime/kernel/kernel.h"

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
    make_kernel<&add_like>("test::add.out", kRealTypes),
    make_kernel<&relu_like>("test::relu.out", kFloatingTypes),
};
constexpr KernelEntry kFast[] = {make_kernel<&relu_like>("test::relu.out", kFloatingTypes)};
constexpr KernelEntry kSelfDuplicate[] = {make_kernel<&relu_like>("test::x.out", kAllTypes),
                                          make_kernel<&relu_like>("test::x.out", kAllTypes)};
constexpr KernelEntry kOther[] = {make_kernel<&opt_args>("test::opt.out", kAllTypes)};

// The names of the candidates for `op`, in the order the loader tries them.
std::string candidates(const KernelRegistry& reg, const char* op) {
  std::string out;
  reg.for_each_candidate(op, op_name_hash(op), [&](const KernelEntry&, const KernelLibrary& lib) {
    out += std::string(out.empty() ? "" : ",") + lib.name;
    return false;
  });
  return out;
}

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

TEST(KernelRegistryTest, AddAndFind) {
  KernelRegistry reg;
  ASSERT_EQ(reg.add({"base", kPortablePriority, Span<const KernelEntry>(kTable)}), Error::Ok);
  EXPECT_EQ(reg.num_kernels(), 2u);
  EXPECT_EQ(reg.num_libraries(), 1u);
  EXPECT_EQ(reg.find("test::add.out"), &kTable[0]);
  EXPECT_EQ(reg.find("test::relu.out"), &kTable[1]);
  EXPECT_EQ(reg.find("test::missing.out"), nullptr);
  EXPECT_EQ(reg.find("test::add"), nullptr);  // exact names only
  EXPECT_EQ(kTable[0].name_hash, op_name_hash("test::add.out"));
}

TEST(KernelRegistryTest, LibrariesStackByPriorityThenOrder) {
  KernelRegistry reg;
  ASSERT_EQ(reg.add({"base", kPortablePriority, Span<const KernelEntry>(kTable)}), Error::Ok);
  ASSERT_EQ(reg.add({"user", kCustomPriority, Span<const KernelEntry>(kFast)}), Error::Ok);
  ASSERT_EQ(reg.add({"fast", kOptimizedPriority, Span<const KernelEntry>(kFast)}), Error::Ok);
  ASSERT_EQ(reg.add({"fast2", kOptimizedPriority, Span<const KernelEntry>(kFast)}), Error::Ok);
  EXPECT_EQ(candidates(reg, "test::relu.out"), "user,fast,fast2,base");
  EXPECT_EQ(candidates(reg, "test::add.out"), "base");
  EXPECT_EQ(reg.find("test::relu.out"), &kFast[0]);
  EXPECT_STREQ(reg.library(0).name, "user");
  EXPECT_STREQ(reg.library(3).name, "base");
}

TEST(KernelRegistryTest, DuplicatesAreErrorsAndAddIsAtomic) {
  KernelRegistry reg;
  ASSERT_EQ(reg.add({"base", kPortablePriority, Span<const KernelEntry>(kTable)}), Error::Ok);
  EXPECT_EQ(reg.add({"base", kOptimizedPriority, Span<const KernelEntry>(kFast)}),
            Error::RegistrationAlreadyRegistered);
  EXPECT_EQ(reg.add({"dup", kPortablePriority, Span<const KernelEntry>(kSelfDuplicate)}),
            Error::RegistrationAlreadyRegistered);
  EXPECT_EQ(reg.add({nullptr, kPortablePriority, Span<const KernelEntry>(kFast)}),
            Error::InvalidArgument);
  EXPECT_EQ(reg.num_kernels(), 2u);
  EXPECT_EQ(reg.find("test::x.out"), nullptr);
}

// A variadic entry (kVariadicArgs): any count and kinds of values; the
// kernel finds the count in its context.
size_t g_variadic_seen = 0;
void variadic_kernel(KernelContext& ctx, EValue* const* args) {
  g_variadic_seen = ctx.num_args();
  if (ctx.num_args() < 2 || !args[0]->is_int()) ctx.fail(Error::InvalidArgument);
}
constexpr KernelEntry kVariadic[] = {{"test::any.out", op_name_hash("test::any.out"),
                                      variadic_kernel, nullptr, nullptr, kVariadicArgs, 0,
                                      kFloatingTypes}};

TEST(KernelRegistryTest, VariadicEntriesTakeAnyCallWithTheirDtypes) {
  KernelRegistry reg;
  ASSERT_EQ(reg.add({"variadic", kCustomPriority, Span<const KernelEntry>(kVariadic)}), Error::Ok);
  EXPECT_EQ(arg_kind_of(kVariadic[0], 3), ArgKind::Any);
  EXPECT_EQ(arg_kind_of(kTable[0], 3), ArgKind::MutableTensor);
  int32_t sizes[] = {2};
  uint8_t order[] = {0};
  int64_t strides[1];
  float x[2] = {1.f, 2.f};
  int32_t xi[2] = {1, 2};
  Tensor t(ScalarType::Float, 1, sizes, order, strides, x);
  Tensor ti(ScalarType::Int, 1, sizes, order, strides, xi);
  EValue tv(&t);
  EValue tiv(&ti);
  EValue three(int64_t{3});
  EValue none;
  // Three values and four: both accepted (no count or kind check).
  for (size_t n : {size_t{3}, size_t{4}}) {
    EValue* args[] = {&three, &tv, &none, &tv};
    KernelPrepareContext pctx("test::any.out", nullptr, nullptr);
    CallMismatch mismatch;
    EXPECT_EQ(accept_call(kVariadic[0], args, n, pctx, &mismatch), Error::Ok) << n;
    KernelContext ctx;
    ctx.bind_instruction("test::any.out", nullptr, n);
    kVariadic[0].fn(ctx, args);
    EXPECT_EQ(ctx.failure_state(), Error::Ok);
    EXPECT_EQ(g_variadic_seen, n);
  }
  // The declared dtypes still hold.
  EValue* int_args[] = {&three, &tiv, &tiv};
  KernelPrepareContext pctx("test::any.out", nullptr, nullptr);
  CallMismatch mismatch;
  EXPECT_EQ(accept_call(kVariadic[0], int_args, 3, pctx, &mismatch), Error::InvalidType);
  EXPECT_EQ(mismatch.kind, CallMismatch::Kind::Dtype);
  EXPECT_EQ(mismatch.arg, 1u);
  // The kernel checks its own arguments at run time.
  EValue* bad[] = {&tv, &tv, &tv};
  KernelContext ctx;
  ctx.bind_instruction("test::any.out", nullptr, 3);
  kVariadic[0].fn(ctx, bad);
  EXPECT_EQ(ctx.failure_state(), Error::InvalidArgument);
}

TEST(KernelRegistryTest, DtypeSetsFormatAndContain) {
  EXPECT_TRUE(kFloatingTypes.contains(ScalarType::Float));
  EXPECT_FALSE(kFloatingTypes.contains(ScalarType::Half));
  EXPECT_TRUE(kRealAndBoolTypes.contains(ScalarType::Bool));
  EXPECT_FALSE(kRealTypes.contains(ScalarType::Bool));
  EXPECT_FALSE(kAllTypes.contains(static_cast<ScalarType>(-1)));
  char buf[64];
  EXPECT_STREQ(format_dtypes(kFloatingTypes, buf, sizeof(buf)), "Float, Double");
  EXPECT_STREQ(format_dtypes(kAllTypes, buf, sizeof(buf)), "any");
  EXPECT_STREQ(format_dtypes(DtypeSet(), buf, sizeof(buf)), "");
}

TEST(KernelRegistryTest, CapacityIsEnforced) {
  KernelRegistry reg;
  static char names[KernelRegistry::kMaxLibraries + 1][32];
  for (size_t i = 0; i <= KernelRegistry::kMaxLibraries; ++i) {
    snprintf(names[i], sizeof(names[i]), "lib%zu", i);
    const Error err = reg.add({names[i], kPortablePriority, Span<const KernelEntry>(kFast)});
    EXPECT_EQ(err, i < KernelRegistry::kMaxLibraries ? Error::Ok
                                                     : Error::RegistrationExceedingMaxKernels);
  }
}

class NullBackend final : public BackendInterface {
 public:
  bool is_available() const override { return true; }
  Result<DelegateHandle*> init(BackendInitContext&, FreeableBuffer*,
                               Span<const CompileSpec>) const override {
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
