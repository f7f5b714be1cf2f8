// etr::Module on the fixture zoo: outputs against the PyTorch eager values in
// test/models (computed by test/models/export_models.py and
// test/models/xnnpack/export_xnnpack.py with `model(*inputs)`), state across
// calls, lazy loading, and the errors for bad inputs and files.
#include "extension/module/module.h"

#include <gtest/gtest.h>

#include <dirent.h>
#include <stdlib.h>
#include <unistd.h>

#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "extension/data_loader/file_data_loader.h"
#include "extension/tensor/npy.h"
#include "runtime/platform/error_capture.h"
#include "test/support/fixtures.h"
#include "test/support/in_process.h"

namespace etr {
namespace {

std::string model(const std::string& name) { return testing::models_dir() + name; }

// The .npy input as a Value of the kind the method declares (0-d arrays
// become Int/Double/Bool for non-tensor inputs).
Value input_value(const std::string& path, Tag declared) {
  Result<HostTensor> t = read_npy(path);
  if (!t.ok() || declared == Tag::Tensor) return Value(std::move(t));
  double d = 0;
  EXPECT_TRUE(element_to_double(t->dtype(), t->data(), &d)) << path;
  if (declared == Tag::Int) return Value(static_cast<int64_t>(d));
  if (declared == Tag::Bool) return Value(d != 0);
  return Value(d);
}

std::vector<Value> fixture_inputs(Module& m, const testing::FixtureCase& c) {
  Result<MethodMeta> meta = m.method_meta(c.method);
  EXPECT_TRUE(meta.ok()) << c.line;
  std::vector<Value> inputs;
  for (size_t i = 0; meta.ok() && i < c.inputs.size(); ++i) {
    Result<Tag> tag = meta->input_tag(i);
    inputs.push_back(input_value(c.inputs[i], tag.ok() ? *tag : Tag::Tensor));
  }
  return inputs;
}

// "" when every output matches its expected file.
std::string compare(const std::vector<Value>& outs, const testing::FixtureCase& c) {
  if (outs.size() != c.expected.size()) return "output count " + std::to_string(outs.size());
  for (size_t i = 0; i < outs.size(); ++i) {
    const Value& v = outs[i];
    EValue e;
    if (v.is_tensor()) e = EValue(const_cast<Tensor*>(&v.tensor()));
    if (v.is_int()) e = EValue(v.to_int());
    if (v.is_double()) e = EValue(v.to_double());
    if (v.is_bool()) e = EValue(v.to_bool());
    if (v.is_string()) e = EValue(StringView(v.to_string().data(), v.to_string().size()));
    char msg[512];
    ErrorCapture capture(msg, sizeof(msg));
    if (testing::compare_value(e, c.expected[i], c.rtol, c.atol) != Error::Ok) {
      return "output " + std::to_string(i) + ": " + capture.message();
    }
  }
  return "";
}

// Runs every successful check of a manifest through a fresh Module.
void run_manifest(const std::string& dir, bool xnnpack, size_t min_cases) {
  const std::vector<testing::FixtureCase> cases = testing::load_manifest(dir);
  ASSERT_GE(cases.size(), min_cases);
  size_t ran = 0;
  for (const testing::FixtureCase& c : cases) {
    if (!c.expect_error.empty()) continue;
    if (!xnnpack && c.pte.find("xnnpack") != std::string::npos) continue;
    SCOPED_TRACE(c.line);
    Module m(c.pte, c.data);
    const std::vector<Value> inputs = fixture_inputs(m, c);
    ASSERT_EQ(inputs.size(), c.inputs.size());
    std::vector<Value> outs;
    for (int r = 0; r < c.executions; ++r) {
      char msg[512];
      ErrorCapture capture(msg, sizeof(msg));
      Result<std::vector<Value>> run = m.execute(c.method, inputs);
      ASSERT_TRUE(run.ok()) << to_string(run.error()) << ": " << capture.message();
      outs = std::move(*run);
    }
    EXPECT_EQ(compare(outs, c), "");
    ++ran;
  }
  EXPECT_GE(ran, min_cases);
}

TEST(ModuleTest, FixtureZooMatchesEager) { run_manifest(testing::models_dir(), false, 20); }

#if ETR_MODULE_TEST_HAS_XNNPACK
TEST(ModuleTest, XnnpackZooMatchesEager) { run_manifest(model("xnnpack/"), true, 9); }

// ETR_WEIGHT_CACHE_DIR turns the XNNPACK delegate's packed-weight cache on for
// Module: the first pass writes the files, the second maps them; both match.
TEST(ModuleTest, XnnpackZooMatchesEagerWithTheWeightCache) {
  char tmpl[] = "/tmp/etr_module_weight_cacheXXXXXX";
  const char* dir = ::mkdtemp(tmpl);
  ASSERT_NE(dir, nullptr);
  ASSERT_EQ(::setenv("ETR_WEIGHT_CACHE_DIR", dir, 1), 0);
  for (int pass = 0; pass < 2; ++pass) {
    SCOPED_TRACE(pass == 0 ? "writing the cache" : "mapping it");
    run_manifest(model("xnnpack/"), true, 9);
  }
  ::unsetenv("ETR_WEIGHT_CACHE_DIR");
  size_t files = 0;
  if (DIR* d = ::opendir(dir)) {
    while (const dirent* e = ::readdir(d)) {
      const std::string name = e->d_name;
      if (name == "." || name == "..") continue;
      files += name.find(".etrwc") != std::string::npos ? 1 : 0;
      std::remove((std::string(dir) + "/" + name).c_str());
    }
    ::closedir(d);
  }
  ::rmdir(dir);
  EXPECT_GE(files, size_t{5});  // one per fixture whose delegate packs fp32 filters
}

// external_weights: the XNNPACK payload refers to weights in a .ptd file.
TEST(ModuleTest, ExternalWeightsFromPtd) {
  const std::string dir = model("xnnpack/");
  Module m(dir + "external_weights.pte", {dir + "external_weights.ptd"});
  Result<std::vector<Value>> outs = m.forward({read_npy(dir + "external_weights/a_in0.npy")});
  ASSERT_TRUE(outs.ok()) << to_string(outs.error());
  testing::FixtureCase c;
  c.expected = {dir + "external_weights/a_out0.npy"};
  c.rtol = 1e-4;
  c.atol = 4.3e-5;
  EXPECT_EQ(compare(*outs, c), "");

  Module without(dir + "external_weights.pte");
  char msg[512];
  ErrorCapture capture(msg, sizeof(msg));
  Result<std::vector<Value>> refused =
      without.forward({read_npy(dir + "external_weights/a_in0.npy")});
  EXPECT_FALSE(refused.ok());
  EXPECT_NE(std::string(capture.message()), "");
}
#endif

// A Module over data loaders it takes, and Modules over its program: the
// program (with its loader) lives as long as any of them; each has its own
// methods and .ptd maps. official_module/ModuleAddMul computes 3 * x + 2
// with both constants in its .ptd (test/models/export_official_module.py).
TEST(ModuleTest, LoadersAndASharedProgram) {
  const std::string dir = model("official_module/");
  auto ptd_loader = [&] {
    std::vector<std::unique_ptr<DataLoader>> data;
    Result<FileDataLoader> ptd = FileDataLoader::from((dir + "ModuleAddMul.ptd").c_str());
    EXPECT_TRUE(ptd.ok());
    if (ptd.ok()) data.push_back(std::make_unique<FileDataLoader>(std::move(*ptd)));
    return data;
  };
  auto x = [] { return Value(make_tensor({2, 2}, std::vector<float>{2.f, 3.f, 4.f, -1.f})); };
  auto expect_affine = [](const Result<std::vector<Value>>& outs) {
    ASSERT_TRUE(outs.ok()) << to_string(outs.error());
    EXPECT_EQ((*outs)[0].values<float>(), (std::vector<float>{8.f, 11.f, 14.f, -1.f}));
  };
  Result<FileDataLoader> pte = FileDataLoader::from((dir + "ModuleAddMul.pte").c_str());
  ASSERT_TRUE(pte.ok());
  auto first =
      std::make_unique<Module>(std::make_unique<FileDataLoader>(std::move(*pte)), ptd_loader());
  EXPECT_EQ(first->shared_program(), nullptr);
  expect_affine(first->forward({x()}));
  std::shared_ptr<const Program> program = first->shared_program();
  ASSERT_NE(program, nullptr);

  // Without a .ptd, a Module over the program cannot load the method.
  Module bare(program);
  EXPECT_TRUE(bare.is_loaded());
  EXPECT_FALSE(bare.is_method_loaded("forward"));
  first.reset();
  program.reset();
  char msg[512];
  ErrorCapture capture(msg, sizeof(msg));
  EXPECT_NE(bare.load_method("forward"), Error::Ok);

  // With one it runs, after the Module that loaded the program is gone.
  Module second(bare.shared_program(), ptd_loader());
  expect_affine(second.forward({x()}));
}

TEST(ModuleTest, MethodNamesAndLazyLoading) {
  Module m(model("two_methods.pte"));
  EXPECT_FALSE(m.is_loaded());
  Result<std::vector<std::string>> names = m.method_names();
  ASSERT_TRUE(names.ok());
  // Program order (two_methods.pte as export_models.py writes it).
  EXPECT_EQ(*names, (std::vector<std::string>{"decode", "forward", "get_int", "get_float",
                                              "get_bool", "get_name"}));
  EXPECT_TRUE(m.is_loaded());
  EXPECT_FALSE(m.is_method_loaded("decode"));
  Result<MethodMeta> meta = m.method_meta("decode");
  ASSERT_TRUE(meta.ok());
  EXPECT_EQ(meta->num_inputs(), 2u);
  EXPECT_FALSE(m.is_method_loaded("decode"));
  ASSERT_EQ(m.load_method("decode"), Error::Ok);
  EXPECT_TRUE(m.is_method_loaded("decode"));
  EXPECT_FALSE(m.is_method_loaded("forward"));
  // get_int takes no input: returns the Int the program computes.
  Result<std::vector<Value>> i = m.execute("get_int");
  ASSERT_TRUE(i.ok());
  ASSERT_EQ(i->size(), 1u);
  EXPECT_TRUE((*i)[0].is_int());
}

TEST(ModuleTest, MutableBufferStateAcrossCalls) {
  const std::string dir = model("mutable_buffer/");
  Module once(model("mutable_buffer.pte"));
  testing::FixtureCase c1;
  c1.expected = {dir + "run1_out0.npy"};
  Result<std::vector<Value>> first = once.forward({read_npy(dir + "run1_in0.npy")});
  ASSERT_TRUE(first.ok());
  EXPECT_EQ(compare(*first, c1), "");

  Module thrice(model("mutable_buffer.pte"));
  const std::vector<Value> in = {read_npy(dir + "run3_in0.npy")};
  Result<std::vector<Value>> r1 = thrice.forward(in);
  Result<std::vector<Value>> r2 = thrice.forward(in);
  Result<std::vector<Value>> r3 = thrice.forward(in);
  ASSERT_TRUE(r1.ok() && r2.ok() && r3.ok());
  testing::FixtureCase c3;
  c3.expected = {dir + "run3_out0.npy"};
  EXPECT_EQ(compare(*r3, c3), "");
  // The state changed between calls, and earlier outputs were not overwritten.
  EXPECT_NE(compare(*r1, c3), "");
  EXPECT_NE((*r1)[0].values<float>(), (*r3)[0].values<float>());
}

TEST(ModuleTest, OutputsStayValidAfterNextCallAndModuleEnd) {
  const std::string dir = model("mlp/");
  std::vector<Value> kept;
  {
    Module m(model("mlp.pte"));
    Result<std::vector<Value>> a = m.forward({read_npy(dir + "a_in0.npy")});
    ASSERT_TRUE(a.ok());
    kept = *a;  // a copy shares the tensor
    Result<HostTensor> other = read_npy(dir + "a_in0.npy");
    ASSERT_TRUE(other.ok());
    std::vector<float> x = other->values<float>();
    for (float& v : x) v = -v;
    Result<std::vector<Value>> b = m.forward({make_tensor(other->shape(), x)});
    ASSERT_TRUE(b.ok());
    EXPECT_NE((*b)[0].values<float>(), kept[0].values<float>());
  }
  testing::FixtureCase c;
  c.expected = {dir + "a_out0.npy"};
  EXPECT_EQ(compare(kept, c), "");
}

TEST(ModuleTest, RunReusesTheInputsTheMethodHolds) {
  const std::string dir = model("mlp/");
  Module m(model("mlp.pte"));
  // Nothing set yet: the method refuses to run rather than read unset inputs.
  EXPECT_FALSE(m.run("forward").ok());
  Result<std::vector<Value>> a = m.forward({read_npy(dir + "a_in0.npy")});
  ASSERT_TRUE(a.ok());
  // mlp.pte plans its input into memory the program reuses: it must be set
  // again before every run.
  EXPECT_EQ(m.run("forward").error(), Error::InvalidState);
  Result<HostTensor> x = read_npy(dir + "a_in0.npy");
  Result<Method*> method = m.method("forward");
  ASSERT_TRUE(x.ok() && method.ok());
  ASSERT_EQ((*method)->set_input(EValue(&x->tensor()), 0), Error::Ok);
  Result<std::vector<Value>> again = m.run("forward");
  ASSERT_TRUE(again.ok());
  testing::FixtureCase c;
  c.expected = {dir + "a_out0.npy"};
  EXPECT_EQ(compare(*again, c), "");
  EXPECT_EQ(m.run("decode").error(), Error::NotFound);
}

TEST(ModuleTest, BorrowedAndOwnedInputsAgree) {
  const std::string dir = model("linear/");
  Result<HostTensor> x = read_npy(dir + "a_in0.npy");
  ASSERT_TRUE(x.ok());
  std::vector<float> data = x->values<float>();
  Module m(model("linear.pte"));
  Result<std::vector<Value>> owned = m.forward({make_tensor(x->shape(), data)});
  Result<std::vector<Value>> borrowed = m.forward({make_tensor(x->shape(), data.data())});
  ASSERT_TRUE(owned.ok() && borrowed.ok());
  testing::FixtureCase c;
  c.expected = {dir + "a_out0.npy"};
  EXPECT_EQ(compare(*owned, c), "");
  EXPECT_EQ(compare(*borrowed, c), "");
}

TEST(ModuleTest, FileLoaderOptionGivesSameOutputs) {
  const std::string dir = model("cnn/");
  ModuleOptions options;
  options.loader = ModuleOptions::Loader::File;
  options.num_threads = 1;
  Module m(model("cnn.pte"), {}, options);
  Result<std::vector<Value>> outs = m.forward({read_npy(dir + "a_in0.npy")});
  ASSERT_TRUE(outs.ok());
  testing::FixtureCase c;
  c.expected = {dir + "a_out0.npy"};
  EXPECT_EQ(compare(*outs, c), "");
}

// Runs `call` and returns its error and the logged message.
template <typename F>
std::pair<Error, std::string> failure(F&& call) {
  char msg[512];
  ErrorCapture capture(msg, sizeof(msg));
  const Error err = call();
  return {err, capture.message()};
}

TEST(ModuleTest, WrongInputsAreRefusedNamingMethodAndIndex) {
  Module m(model("mlp.pte"));
  Result<MethodMeta> meta = m.method_meta("forward");
  ASSERT_TRUE(meta.ok());
  Result<TensorInfo> info = meta->input_tensor_meta(0);
  ASSERT_TRUE(info.ok());
  const std::vector<int32_t> shape(info->sizes.begin(), info->sizes.end());
  size_t numel = 1;
  for (int32_t s : shape) numel *= static_cast<size_t>(s);

  auto count = failure([&] { return m.forward({}).error(); });
  EXPECT_EQ(count.first, Error::InvalidArgument);
  EXPECT_NE(count.second.find("method 'forward' takes 1 inputs, got 0"), std::string::npos)
      << count.second;

  auto dtype = failure(
      [&] { return m.forward({make_tensor(shape, std::vector<int32_t>(numel, 1))}).error(); });
  EXPECT_EQ(dtype.first, Error::InvalidType);
  EXPECT_NE(dtype.second.find("method 'forward' input 0: dtype Int, expected Float"),
            std::string::npos)
      << dtype.second;

  std::vector<int32_t> wrong = shape;
  wrong.back() += 1;
  const size_t wrong_numel = numel / static_cast<size_t>(shape.back()) * wrong.back();
  auto bad_shape = failure(
      [&] { return m.forward({make_tensor(wrong, std::vector<float>(wrong_numel, 1))}).error(); });
  EXPECT_EQ(bad_shape.first, Error::InvalidArgument);
  EXPECT_NE(bad_shape.second.find("method 'forward' input 0: shape"), std::string::npos)
      << bad_shape.second;

  auto kind = failure([&] { return m.forward({Value(int64_t{3})}).error(); });
  EXPECT_EQ(kind.first, Error::InvalidType);
  EXPECT_NE(kind.second.find("input 0: got a Int, expected a Tensor"), std::string::npos)
      << kind.second;

  // A failed helper (3 values for 4 elements) is reported at the call.
  auto helper = failure([&] {
    return m.forward({make_tensor({2, 2}, std::vector<float>{1, 2, 3})}).error();
  });
  EXPECT_EQ(helper.first, Error::InvalidArgument);
  EXPECT_NE(helper.second.find("input 0: the value could not be built"), std::string::npos)
      << helper.second;

  // The module still works after refusals.
  EXPECT_TRUE(m.forward({make_tensor(shape, std::vector<float>(numel, 1))}).ok());
}

TEST(ModuleTest, MissingFilesAndMethodsAreErrors) {
  Module missing("/nonexistent/model.pte");
  auto open = failure([&] { return missing.load(); });
  EXPECT_EQ(open.first, Error::AccessFailed);
  EXPECT_NE(open.second.find("/nonexistent/model.pte"), std::string::npos) << open.second;
  EXPECT_EQ(missing.forward({}).error(), Error::AccessFailed);
  EXPECT_FALSE(missing.is_loaded());

  Module bad_ptd(model("mlp.pte"), {"/nonexistent/weights.ptd"});
  auto ptd = failure([&] { return bad_ptd.load(); });
  EXPECT_EQ(ptd.first, Error::AccessFailed);
  EXPECT_NE(ptd.second.find("/nonexistent/weights.ptd"), std::string::npos) << ptd.second;

  Module not_a_program(model("manifest.txt"));
  EXPECT_NE(not_a_program.load(), Error::Ok);

  Module m(model("mlp.pte"));
  auto method = failure([&] { return m.execute("nope", {}).error(); });
  EXPECT_EQ(method.first, Error::NotFound);
  EXPECT_NE(method.second.find("no method 'nope'"), std::string::npos) << method.second;
}

TEST(ModuleTest, MovedModuleKeepsWorking) {
  Module a(model("linear.pte"));
  ASSERT_EQ(a.load_method("forward"), Error::Ok);
  Module b(std::move(a));
  Result<HostTensor> x = read_npy(model("linear/a_in0.npy"));
  Result<std::vector<Value>> outs = b.forward({std::move(x)});
  ASSERT_TRUE(outs.ok());
  testing::FixtureCase c;
  c.expected = {model("linear/a_out0.npy")};
  EXPECT_EQ(compare(*outs, c), "");
}

}  // namespace
}  // namespace etr
