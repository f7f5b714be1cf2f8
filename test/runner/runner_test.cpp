// Tests of the executor_runner command line, run as a child process: flags,
// error reporting, and every check of test/models/manifest.txt.
#include <gtest/gtest.h>

#include <dirent.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cctype>
#include <cstdio>
#include <map>
#include <ostream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "runtime/platform/error_capture.h"
#include "test/support/fixtures.h"
#include "test/support/generated_tests.h"

// test/CMakeLists.txt says what the runner was built with; the tests for a
// configured-in feature are compiled in, never skipped at run time.
#if !defined(ETR_RUNNER_HAS_XNNPACK) || !defined(ETR_RUNNER_HAS_FUSION) || \
    !defined(ETR_RUNNER_HAS_OPTIMIZED)
#error "ETR_RUNNER_HAS_XNNPACK, _FUSION and _OPTIMIZED come from test/CMakeLists.txt"
#endif

namespace etr {
namespace testing {

// Names a manifest case in test output (instead of a byte dump).
void PrintTo(const ManifestEntry& e, std::ostream* os) { *os << e.describe(); }

}  // namespace testing

namespace {

using testing::ManifestEntry;

const std::string kRunner = ETR_RUNNER_PATH;
const std::string kSourceDir = ETR_SOURCE_DIR;

std::string quote(const std::string& s) {
  std::string out = "'";
  for (char c : s) {
    if (c == '\'') {
      out += "'\\''";
    } else {
      out += c;
    }
  }
  return out + "'";
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) lines.push_back(line);
  return lines;
}

bool file_exists(const std::string& p) {
  struct stat st;
  return ::stat(p.c_str(), &st) == 0;
}

// A scratch directory removed (with its files) at destruction.
class TempDir {
 public:
  TempDir() {
    char tmpl[] = "/tmp/etr_runner_testXXXXXX";
    const char* d = mkdtemp(tmpl);
    path_ = d != nullptr ? d : "/tmp";
  }
  ~TempDir() {
    if (path_ != "/tmp" && std::system(("rm -rf " + quote(path_)).c_str()) != 0) path_.clear();
  }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

struct RunResult {
  int exit_code = -1;
  std::string out;
  std::string err;
};

// Runs the runner with `args` (already shell-quoted where needed).
RunResult run_runner(const std::string& args) {
  TempDir scratch;
  const std::string out = scratch.path() + "/stdout";
  const std::string err = scratch.path() + "/stderr";
  const std::string emulator = ETR_TEST_EMULATOR;  // cross builds: "qemu-aarch64 ..."
  const std::string cmd = (emulator.empty() ? "" : emulator + " ") + quote(kRunner) + " " + args +
                          " >" + quote(out) + " 2>" + quote(err);
  const int status = std::system(cmd.c_str());
  RunResult r;
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  auto o = testing::read_file(out);
  auto e = testing::read_file(err);
  r.out = o.ok() ? *o : "";
  r.err = e.ok() ? *e : "";
  return r;
}

// The failure contract: a code in 1..123 and exactly one stderr line.
void expect_single_error(const RunResult& r, int expected_code = 0) {
  EXPECT_GE(r.exit_code, 1);
  EXPECT_LT(r.exit_code, 124);
  if (expected_code != 0) {
    EXPECT_EQ(r.exit_code, expected_code);
  }
  const std::vector<std::string> lines = lines_of(r.err);
  ASSERT_EQ(lines.size(), 1u) << "stderr:\n" << r.err;
  EXPECT_EQ(lines[0].rfind("executor_runner: error: ", 0), 0u) << lines[0];
}

std::string model(const std::string& name) { return kSourceDir + "/test/models/" + name; }

TEST(RunnerCliTest, HelpPrintsUsage) {
  const RunResult r = run_runner("--help");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("usage: executor_runner"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("--model_path"), std::string::npos);
}

TEST(RunnerCliTest, ListOperatorsNeedsNoModel) {
  const RunResult r = run_runner("--list_operators");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  // Each line: operator <TAB> library <TAB> dtypes [<TAB> prepare].
  std::set<std::string> unique;
  std::map<std::string, std::string> dtypes;
  for (const std::string& line : lines_of(r.out)) {
    const size_t t1 = line.find('\t');
    const size_t t2 = line.find('\t', t1 + 1);
    ASSERT_NE(t2, std::string::npos) << line;
    const std::string op = line.substr(0, t1);
    EXPECT_TRUE(unique.insert(op + "/" + line.substr(t1 + 1, t2 - t1 - 1)).second)
        << "listed once per library: " << line;
    EXPECT_NE(op.find("::"), std::string::npos) << op;
    dtypes[op] = line.substr(t2 + 1);
  }
  EXPECT_TRUE(unique.count("aten::add.out/portable"));
  EXPECT_TRUE(unique.count("executorch_prim::et_view.default/prim"));
  EXPECT_TRUE(unique.count("aten::sym_size.int/prim"));
  EXPECT_NE(dtypes["aten::add.out"].find("Float"), std::string::npos) << dtypes["aten::add.out"];
}

TEST(RunnerCliTest, MissingModelFileIsOneErrorLine) {
  const std::string missing = "/nonexistent/dir/no_such_model.pte";
  const RunResult r = run_runner("--model_path=" + quote(missing));
  expect_single_error(r, 2);
  EXPECT_NE(r.err.find(missing), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("AccessFailed"), std::string::npos) << r.err;
}

TEST(RunnerCliTest, BadFlagsAreUsageErrors) {
  const char* bad[] = {"--bogus",
                       "--model_path",
                       "--model_path=x.pte extra",
                       "--model_path=x.pte --num_executions=0",
                       "--model_path=x.pte --num_executions=abc",
                       "--help=maybe",
                       "--model_path=x.pte --backend_option=XnnpackBackend",
                       "--model_path=x.pte --backend_option=:native_fp32=true",
                       "--model_path=x.pte --backend_option=XnnpackBackend:=1",
                       "--model_path=x.pte --loader=stream",
                       "--model_path=x.pte --weight_cache_dir=",
                       ""};
  for (const char* args : bad) {
    SCOPED_TRACE(args);
    const RunResult r = run_runner(args);
    expect_single_error(r, 1);
    EXPECT_NE(r.err.find("invalid command line: InvalidArgument"), std::string::npos) << r.err;
  }
  EXPECT_NE(run_runner("--bogus").err.find("--bogus"), std::string::npos);
}

#if ETR_RUNNER_HAS_XNNPACK
TEST(RunnerCliTest, BackendOptionsReachTheDelegate) {
  const std::string model = "--model_path " + quote(kSourceDir + "/test/models/add_xnnpack.pte");
  // The XNNPACK delegate checks the kind of its native_fp32 option.
  const RunResult bad = run_runner(model + " --backend_option=XnnpackBackend:native_fp32=2");
  expect_single_error(bad, 3);
  EXPECT_NE(bad.err.find("option 'native_fp32' takes a bool"), std::string::npos) << bad.err;
  for (const char* v : {"true", "false"}) {
    const RunResult ok = run_runner(model + " --backend_option=XnnpackBackend:native_fp32=" + v);
    EXPECT_EQ(ok.exit_code, 0) << ok.err;
  }
}

// --weight_cache_dir: the first run writes the delegate's packed weights
// there, the second maps them; both match PyTorch.
TEST(RunnerCliTest, WeightCacheDirKeepsThePackedWeights) {
  const std::string dir = kSourceDir + "/test/models/xnnpack/";
  TempDir cache;
  for (int run = 0; run < 2; ++run) {
    SCOPED_TRACE(run == 0 ? "first run (writes the cache)" : "second run (maps it)");
    TempDir out;
    const RunResult r =
        run_runner("--model_path " + quote(dir + "resnet18_small.pte") + " --input " +
                   quote(dir + "resnet18_small/a_in0.npy") + " --output_dir " + quote(out.path()) +
                   " --weight_cache_dir " + quote(cache.path()));
    ASSERT_EQ(r.exit_code, 0) << r.err;
    char message[1024];
    ErrorCapture capture(message, sizeof(message));
    EXPECT_EQ(testing::compare_output_files(out.path() + "/output_0.npy",
                                            dir + "resnet18_small/a_out0.npy", 1e-4, 7.8e-5),
              Error::Ok)
        << capture.message();
    std::string names;
    if (DIR* d = ::opendir(cache.path().c_str())) {
      while (const dirent* e = ::readdir(d)) names += std::string(e->d_name) + " ";
      ::closedir(d);
    }
    EXPECT_NE(names.find(".etrwc"), std::string::npos) << names;
  }
}
#endif  // ETR_RUNNER_HAS_XNNPACK

TEST(RunnerCliTest, NotAProgramFailsToLoad) {
  const RunResult r = run_runner("--model_path " + quote(kSourceDir + "/test/models/manifest.txt"));
  expect_single_error(r, 2);
}

TEST(RunnerCliTest, InputCountMustMatch) {
  const std::string pte = model("add_mul.pte");
  ASSERT_TRUE(file_exists(pte)) << "committed fixture missing: " << pte;
  const RunResult r =
      run_runner("--model_path " + quote(pte) + " --input " + quote(model("add_mul/a_in0.npy")));
  expect_single_error(r, 4);
  EXPECT_NE(r.err.find(" 1 --input"), std::string::npos) << r.err;
}

TEST(RunnerCliTest, BadInputFileNamesTheFileAndTheProblem) {
  const std::string pte = model("add_mul.pte");
  ASSERT_TRUE(file_exists(pte)) << "committed fixture missing: " << pte;
  const std::string missing = "/nonexistent/dir/no_such_input.npy";
  std::string args = "--model_path " + quote(pte);
  for (const char* in : {"add_mul/a_in0.npy", "add_mul/a_in1.npy"}) {
    args += " --input " + quote(model(in));
  }
  RunResult r = run_runner(args + " --input " + quote(missing) + " --input " +
                           quote(model("add_mul/a_in3.npy")));
  expect_single_error(r, 4);
  EXPECT_NE(r.err.find("cannot read input 2 from '" + missing + "': AccessFailed"),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("cannot open " + missing), std::string::npos) << r.err;

  // Not a .npy file at all.
  const std::string not_npy = kSourceDir + "/test/models/manifest.txt";
  r = run_runner(args + " --input " + quote(not_npy) + " --input " +
                 quote(model("add_mul/a_in3.npy")));
  expect_single_error(r, 4);
  EXPECT_NE(r.err.find("cannot read input 2 from '" + not_npy + "': InvalidArgument"),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find(not_npy + ": not a .npy file (bad magic)"), std::string::npos) << r.err;
}

TEST(RunnerCliTest, UnknownMethodFails) {
  const std::string pte = model("add_mul.pte");
  ASSERT_TRUE(file_exists(pte)) << "committed fixture missing: " << pte;
  const RunResult r = run_runner("--model_path=" + quote(pte) + " --method=no_such_method");
  expect_single_error(r, 3);
  EXPECT_NE(r.err.find("no_such_method"), std::string::npos) << r.err;
}

TEST(RunnerCliTest, DefaultInputsAreOnesAndTimingIsPrinted) {
  const std::string pte = model("add_mul.pte");
  ASSERT_TRUE(file_exists(pte)) << "committed fixture missing: " << pte;
  TempDir out;
  const RunResult r = run_runner("--model_path " + quote(pte) +
                                 " --num_executions 3 --output_dir " + quote(out.path()));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(r.err.empty()) << r.err;
  EXPECT_NE(r.out.find("median"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("output 0: Tensor"), std::string::npos) << r.out;
  EXPECT_TRUE(file_exists(out.path() + "/output_0.npy"));
}

// ---- Every manifest check, one test case per line. ----

// No entries when the manifest is missing or malformed: ManifestParses then
// fails with the reason, and the generated-case count check fails too.
std::vector<ManifestEntry> manifest_entries() {
  auto m = testing::parse_manifest(testing::default_manifest_path(kSourceDir));
  return m.ok() ? *m : std::vector<ManifestEntry>();
}

TEST(RunnerManifestTest, ManifestParses) {
  const std::string path = testing::default_manifest_path(kSourceDir);
  ASSERT_TRUE(file_exists(path)) << "committed manifest missing: " << path;
  char message[512];
  ErrorCapture capture(message, sizeof(message));
  auto m = testing::parse_manifest(path);
  ASSERT_TRUE(m.ok()) << to_string(m.error()) << ": " << capture.message();
  EXPECT_GE(m->size(), testing::kMinManifestCases);
  // Every check became a case below, and every file a check names is there.
  EXPECT_EQ(testing::generated_tests("Models/RunnerManifestCase"), m->size());
  for (const ManifestEntry& e : *m) {
    EXPECT_TRUE(file_exists(e.pte)) << e.describe() << ": missing " << e.pte;
    for (const std::string& f : e.inputs)
      EXPECT_TRUE(file_exists(f)) << e.describe() << ": missing " << f;
    for (const std::string& f : e.expected)
      EXPECT_TRUE(file_exists(f)) << e.describe() << ": missing " << f;
  }
}

// The error name the runner reports for a manifest expect_error word.
const char* error_name_for(const std::string& word) {
  if (word == "missing_backend") return "BackendMissing";
  if (word == "missing_operator") return "OperatorMissing";
  return nullptr;
}

class RunnerManifestCase : public ::testing::TestWithParam<ManifestEntry> {};

// Checks one run of manifest case `e` (outputs in `out`) against its expected files.
void check_manifest_run(const ManifestEntry& e, const RunResult& r, const TempDir& out);

// Once with each loader: mapped (the default) and read into memory.
TEST_P(RunnerManifestCase, MatchesExpectedOutputs) {
  for (const char* loader : {"mmap", "file"}) {
    const ManifestEntry& e = GetParam();
    SCOPED_TRACE(e.describe() + " --loader=" + loader);
    TempDir out;
    std::string args = "--model_path=" + quote(e.pte) + " --method=" + quote(e.method);
    for (const std::string& in : e.inputs) args += " --input=" + quote(in);
    args += " --num_executions=" + std::to_string(e.executions) +
            " --output_dir=" + quote(out.path()) + " --loader=" + loader;
    check_manifest_run(e, run_runner(args), out);
  }
}

void check_manifest_run(const ManifestEntry& e, const RunResult& r, const TempDir& out) {
  // "missing_backend" fixtures need XNNPACK, which the runner registers when
  // it was built with libxnnpack-dev: then they must run and match.
  const bool runner_has_xnnpack = ETR_RUNNER_HAS_XNNPACK != 0;
  if (!e.expect_error.empty() && !(e.expect_error == "missing_backend" && runner_has_xnnpack)) {
    expect_single_error(r);
    const char* name = error_name_for(e.expect_error);
    if (name != nullptr) {
      EXPECT_NE(r.err.find(name), std::string::npos) << r.err;
    }
    return;
  }
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (size_t i = 0; i < e.expected.size(); ++i) {
    const std::string& exp = e.expected[i];
    const bool text = exp.size() >= 4 && exp.compare(exp.size() - 4, 4, ".txt") == 0;
    const std::string got = out.path() + "/output_" + std::to_string(i) + (text ? ".txt" : ".npy");
    char message[1024];
    ErrorCapture capture(message, sizeof(message));
    const Error err = testing::compare_output_files(got, exp, e.rtol, e.atol);
    EXPECT_EQ(err, Error::Ok) << "output " << i << " vs " << exp << ": " << to_string(err) << " ("
                              << capture.message() << ")";
  }
  const std::string extra = out.path() + "/output_" + std::to_string(e.expected.size());
  EXPECT_FALSE(file_exists(extra + ".npy") || file_exists(extra + ".txt"))
      << "the method has more outputs than the manifest expects";
}

std::string case_name(const ::testing::TestParamInfo<ManifestEntry>& info) {
  std::string name = info.param.describe();
  name = name.substr(0, name.find(' ')) + "_line" + std::to_string(info.param.line);
  for (char& c : name) {
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  }
  return name;
}

INSTANTIATE_TEST_SUITE_P(Models, RunnerManifestCase, ::testing::ValuesIn(manifest_entries()),
                         case_name);

}  // namespace
}  // namespace etr

namespace etr {
namespace {

// --profile: one complete ("X") event per kernel call and per execute, with
// the operator names of test/models/add_mul (add, mul, sub, div).
TEST(RunnerProfileTest, WritesAChromeTraceOfEveryKernelCall) {
  TempDir dir;
  const std::string trace = dir.path() + "/new/sub/trace.json";
  const RunResult r = run_runner("--model_path " + quote(model("add_mul.pte")) +
                                 " --num_executions=2 --profile=" + quote(trace));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto text = testing::read_file(trace);
  ASSERT_TRUE(text.ok());
  size_t events = 0;
  for (size_t at = text->find("\"ph\": \"X\""); at != std::string::npos;
       at = text->find("\"ph\": \"X\"", at + 1))
    ++events;
  EXPECT_EQ(events, 2u * (4u + 1u));  // two executes of 4 kernels, plus the executes
  for (const char* op : {"aten::add.out", "aten::mul.out", "aten::sub.out", "aten::div.out"})
    EXPECT_NE(text->find(op), std::string::npos) << op;
  EXPECT_NE(text->find("[2, 3, 4] Float"), std::string::npos);
  EXPECT_EQ(text->rfind("]}\n"), text->size() - 3);
}

// Kernel fusion is part of the optimized library: the tests below exist only
// in builds that have it (CMake sets ETR_RUNNER_HAS_FUSION).
#if ETR_RUNNER_HAS_FUSION
// How often `what` occurs in `text`.
size_t count_of(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

// The --profile trace of one run of test/models/`file`, with or without the
// optimized kernels (and so kernel fusion).
void profile_trace(const char* file, bool optimized, std::string* text) {
  TempDir dir;
  const std::string trace = dir.path() + "/trace.json";
  if (!optimized) setenv("ETR_OPTIMIZED_KERNELS", "0", 1);
  const RunResult r =
      run_runner("--model_path " + quote(model(file)) + " --profile=" + quote(trace));
  if (!optimized) unsetenv("ETR_OPTIMIZED_KERNELS");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto t = testing::read_file(trace);
  ASSERT_TRUE(t.ok());
  *text = *t;
}

// Convolution -> batch norm (-> relu / hardtanh) chains run as one fused
// kernel of the optimized library; the chain whose convolution output is read
// elsewhere keeps its convolution apart (its batch norm -> relu runs as
// etr::batch_norm_relu.fused, profiled under the batch norm's name), and the
// relu after a batch norm whose output is a method output stays apart
// (test/models/conv_bn_fusion: 6 chains; its outputs are checked against
// PyTorch by the manifest cases above).
TEST(RunnerProfileTest, FusesConvolutionBatchNormChainsOnlyWhereInvisible) {
  auto count = count_of;
  std::string fused, plain;
  profile_trace("conv_bn_fusion.pte", true, &fused);
  profile_trace("conv_bn_fusion.pte", false, &plain);
  const std::string bn = "\"aten::_native_batch_norm_legit_no_training.out\"";
  EXPECT_EQ(count(plain, "\"aten::convolution.out\""), 6u);
  EXPECT_EQ(count(plain, bn), 6u);
  EXPECT_EQ(count(plain, "\"aten::relu.out\""), 3u);
  EXPECT_EQ(count(plain, "\"aten::hardtanh.out\""), 2u);
  EXPECT_EQ(count(fused, "\"aten::convolution.out\""), 6u);
  EXPECT_EQ(count(fused, bn), 1u) << fused;
  EXPECT_EQ(count(fused, "\"aten::relu.out\""), 1u) << fused;
  EXPECT_EQ(count(fused, "\"aten::hardtanh.out\""), 0u) << fused;
}

// A linear layer's constant weight transpose (permute_copy) runs inside the
// product that reads it (etr::linear.fused / linear_nobias.fused, profiled
// under the product's name): mlp has three linear layers; the transformer
// has six plus four activation transposes, which stay (their input is not a
// constant). Outputs are checked against PyTorch by the manifest cases.
TEST(RunnerProfileTest, FusesConstantWeightTransposesIntoTheProduct) {
  auto count = count_of;
  auto profile = profile_trace;
  const std::string permute = "\"aten::permute_copy.out\"", addmm = "\"aten::addmm.out\"";
  std::string fused, plain;
  profile("mlp.pte", true, &fused);
  profile("mlp.pte", false, &plain);
  EXPECT_EQ(count(plain, permute), 3u);
  EXPECT_EQ(count(plain, addmm), 3u);
  EXPECT_EQ(count(fused, permute), 0u) << fused;
  EXPECT_EQ(count(fused, addmm), 3u) << fused;
  profile("transformer.pte", true, &fused);
  profile("transformer.pte", false, &plain);
  EXPECT_EQ(count(plain, permute), 10u);
  EXPECT_EQ(count(fused, permute), 4u) << fused;
  EXPECT_EQ(count(fused, addmm), 6u) << fused;
}

// PyTorch's safe softmax (softmax, eq(x, -inf), logical_not, any,
// logical_not, full_like, where) runs as one etr::safe_softmax.fused,
// profiled under the softmax's name (test/models/safe_softmax: masked rows
// among the scores; its output is checked against PyTorch by the manifest
// case).
TEST(RunnerProfileTest, FusesTheSafeSoftmaxChain) {
  std::string fused, plain;
  profile_trace("safe_softmax.pte", true, &fused);
  profile_trace("safe_softmax.pte", false, &plain);
  for (const char* op : {"\"aten::any.out\"", "\"aten::eq.Scalar_out\"", "\"aten::full_like.out\"",
                         "\"aten::where.self_out\""}) {
    EXPECT_EQ(count_of(plain, op), 1u) << op;
    EXPECT_EQ(count_of(fused, op), 0u) << op << fused;
  }
  EXPECT_EQ(count_of(plain, "\"aten::logical_not.out\""), 2u);
  EXPECT_EQ(count_of(fused, "\"aten::logical_not.out\""), 0u) << fused;
  EXPECT_EQ(count_of(fused, "\"aten::_softmax.out\""), 1u) << fused;
}

// nn.MultiheadAttention's self-attention core, from the packed q/k/v
// projection to the heads merged back (30 calls: the head split, the q/k
// scales, both products, the safe softmax, the merge), runs as one
// etr::attention.fused, profiled under its first bmm's name: one call per
// layer in test/models/transformer_nn (batch 2, 2 heads, 5 tokens) and
// attention_blocks (batch 2, 3 heads, 45 tokens); the input projection's
// bmm stays. Without the optimized kernels every call runs. Outputs are
// checked against PyTorch by the manifest cases.
TEST(RunnerProfileTest, RunsMultiheadAttentionAsOneKernel) {
  for (const char* file : {"transformer_nn.pte", "attention_blocks.pte"}) {
    std::string fused, plain;
    profile_trace(file, true, &fused);
    profile_trace(file, false, &plain);
    EXPECT_EQ(count_of(plain, "\"aten::bmm.out\""), 3u) << file;
    EXPECT_EQ(count_of(fused, "\"aten::bmm.out\""), 2u) << file << fused;
    EXPECT_EQ(count_of(plain, "\"aten::mul.Scalar_out\""), 2u) << file;
    for (const char* op :
         {"\"aten::_softmax.out\"", "\"aten::any.out\"", "\"aten::where.self_out\"",
          "\"aten::mul.Scalar_out\"", "\"dim_order_ops::_clone_dim_order.out\"",
          "\"aten::select_copy.int_out\""}) {
      EXPECT_EQ(count_of(fused, op), 0u) << file << " " << op << fused;
    }
    EXPECT_EQ(count_of(plain, "\"aten::_softmax.out\""), 1u) << file;
  }
}

// A decoder's causal self-attention (test/models/causal_attention: heads by
// permute, q @ k^T times a scale tensor plus the [L, L] mask, softmax, @ v,
// heads merged back; 16 calls) runs as one etr::attention_mask.fused,
// profiled under its first bmm's name; the split before it stays. Without
// the optimized kernels every call runs. The output is checked against
// PyTorch by the manifest case.
TEST(RunnerProfileTest, RunsCausalAttentionAsOneKernel) {
  std::string fused, plain;
  profile_trace("causal_attention.pte", true, &fused);
  profile_trace("causal_attention.pte", false, &plain);
  EXPECT_EQ(count_of(plain, "\"aten::bmm.out\""), 2u);
  EXPECT_EQ(count_of(fused, "\"aten::bmm.out\""), 1u) << fused;
  for (const char* op : {"\"aten::_softmax.out\"", "\"aten::mul.out\"", "\"aten::add.out\""}) {
    EXPECT_EQ(count_of(plain, op), 1u) << op;
    EXPECT_EQ(count_of(fused, op), 0u) << op << fused;
  }
  EXPECT_EQ(count_of(plain, "\"aten::permute_copy.out\""), 7u);  // 5 in the attention, 2 weights
  EXPECT_EQ(count_of(fused, "\"aten::permute_copy.out\""), 0u) << fused;
  EXPECT_EQ(count_of(fused, "\"aten::split_with_sizes_copy.out\""), 1u) << fused;
}

// The same guard around a delegated softmax (test/models/xnnpack/
// transformer_encoder: the XNNPACK partition ends at the softmax, two
// layers) runs as one etr::softmax_guard.fused, profiled under the where's
// name; the output is checked against PyTorch by the xnnpack manifest case.
TEST(RunnerProfileTest, FusesTheGuardAroundADelegatedSoftmax) {
  std::string fused, plain;
  profile_trace("xnnpack/transformer_encoder.pte", true, &fused);
  profile_trace("xnnpack/transformer_encoder.pte", false, &plain);
  for (const char* op :
       {"\"aten::any.out\"", "\"aten::eq.Scalar_out\"", "\"aten::full_like.out\""}) {
    EXPECT_EQ(count_of(plain, op), 2u) << op;
    EXPECT_EQ(count_of(fused, op), 0u) << op << fused;
  }
  EXPECT_EQ(count_of(plain, "\"aten::logical_not.out\""), 4u);
  EXPECT_EQ(count_of(fused, "\"aten::logical_not.out\""), 0u) << fused;
  EXPECT_EQ(count_of(fused, "\"aten::where.self_out\""), 2u) << fused;
}

// View copies whose output is a run of their input's bytes run as aliases
// (runtime/executor/view_elision.cpp, with or without the optimized kernels):
// nn.TransformerEncoderLayer's unsqueeze, squeeze.dims and three leading-dim
// selects (test/models/transformer_nn; test/models/operators.txt lists the
// calls: permute_copy 14, expand_copy 6, unsqueeze 1, squeeze 1, select 3),
// and five of its six expands (to the shape they already have; the sixth
// broadcasts a [16, 48] weight over 5); and every such copy between the
// delegates of
// test/models/xnnpack/transformer_encoder. Outputs are checked against
// PyTorch by the manifest cases.
TEST(RunnerProfileTest, RunsViewCopiesAsAliases) {
  for (bool optimized : {true, false}) {
    std::string trace;
    profile_trace("transformer_nn.pte", optimized, &trace);
    for (const char* op : {"\"aten::unsqueeze_copy.out\"", "\"aten::squeeze_copy.dims_out\"",
                           "\"aten::select_copy.int_out\""}) {
      EXPECT_EQ(count_of(trace, op), 0u) << op << " optimized=" << optimized;
    }
    EXPECT_EQ(count_of(trace, "\"aten::expand_copy.out\""), 1u) << optimized;
    profile_trace("xnnpack/transformer_encoder.pte", optimized, &trace);
    for (const char* op : {"\"aten::unsqueeze_copy.out\"", "\"aten::squeeze_copy.dims_out\"",
                           "\"aten::select_copy.int_out\"", "\"aten::expand_copy.out\""}) {
      EXPECT_EQ(count_of(trace, op), 0u) << op << " optimized=" << optimized;
    }
  }
}

// test/models/silu_linear_fusion: four conv -> batch norm -> SiLU chains
// (sigmoid + mul as exported) fuse; the fifth batch norm's output is a method
// output, so its conv + batch norm fuse and its SiLU runs apart. Two of the
// three weight transposes go into their products; the third is a method
// output and stays. Outputs are checked against PyTorch by the manifest.
TEST(RunnerProfileTest, FusesSiluChainsAndWeightTransposesOnlyWhereInvisible) {
  std::string fused, plain;
  profile_trace("silu_linear_fusion.pte", true, &fused);
  profile_trace("silu_linear_fusion.pte", false, &plain);
  const std::string bn = "\"aten::_native_batch_norm_legit_no_training.out\"";
  const std::string sigmoid = "\"aten::sigmoid.out\"", mul = "\"aten::mul.out\"";
  const std::string permute = "\"aten::permute_copy.out\"";
  EXPECT_EQ(count_of(plain, bn), 5u);
  EXPECT_EQ(count_of(plain, sigmoid), 5u);
  EXPECT_EQ(count_of(plain, mul), 5u);
  EXPECT_EQ(count_of(plain, permute), 3u);
  EXPECT_EQ(count_of(fused, "\"aten::convolution.out\""), 5u) << fused;
  EXPECT_EQ(count_of(fused, bn), 0u) << fused;
  EXPECT_EQ(count_of(fused, sigmoid), 1u) << fused;
  EXPECT_EQ(count_of(fused, mul), 1u) << fused;
  EXPECT_EQ(count_of(fused, permute), 1u) << fused;
  EXPECT_EQ(count_of(fused, "\"aten::mm.out\""), 2u) << fused;
  EXPECT_EQ(count_of(fused, "\"aten::addmm.out\""), 1u) << fused;
}

// test/models/hardswish_fusion: four conv -> batch norm -> hardswish chains
// (the hardswish as exported: copy(3), add, clamp, clamp, mul, copy(6), div)
// each run as one convolution (etr::conv_bn_hardswish.fused: the direct
// first-layer, depthwise, pointwise and transposed-im2col paths); the
// hardswish after the linear layer runs as one kernel (etr::hardswish.fused,
// named after its add, its leading copy apart); the second squeeze-excite
// scale goes into its 1x1 convolution (etr::mul_conv_bn.fused, 48 output
// channels at 7x7: the transposed product), the first one (32 output
// channels) stays a mul; the hardsigmoids (copy, add, clamp, clamp, copy,
// div) stay apart. Outputs are checked against PyTorch by the manifest.
TEST(RunnerProfileTest, FusesDecomposedHardswishAndSqueezeExciteScale) {
  std::string fused, plain;
  profile_trace("hardswish_fusion.pte", true, &fused);
  profile_trace("hardswish_fusion.pte", false, &plain);
  const std::string conv = "\"aten::convolution.out\"";
  const std::string bn = "\"aten::_native_batch_norm_legit_no_training.out\"";
  const std::string add = "\"aten::add.out\"", clamp = "\"aten::clamp.out\"";
  const std::string mul = "\"aten::mul.out\"", div = "\"aten::div.out\"";
  const std::string copy = "\"dim_order_ops::_to_dim_order_copy.out\"";
  EXPECT_EQ(count_of(plain, conv), 9u);
  EXPECT_EQ(count_of(plain, bn), 5u);
  EXPECT_EQ(count_of(plain, add), 7u);
  EXPECT_EQ(count_of(plain, clamp), 14u);
  EXPECT_EQ(count_of(plain, mul), 7u);
  EXPECT_EQ(count_of(plain, div), 7u);
  EXPECT_EQ(count_of(plain, copy), 14u);
  EXPECT_EQ(count_of(fused, conv), 9u) << fused;
  EXPECT_EQ(count_of(fused, bn), 0u) << fused;
  EXPECT_EQ(count_of(fused, add), 3u) << fused;
  EXPECT_EQ(count_of(fused, clamp), 4u) << fused;
  EXPECT_EQ(count_of(fused, mul), 1u) << fused;
  EXPECT_EQ(count_of(fused, div), 2u) << fused;
  EXPECT_EQ(count_of(fused, copy), 5u) << fused;
}
#endif  // ETR_RUNNER_HAS_FUSION

}  // namespace
}  // namespace etr

namespace etr {
namespace {

// --info on a fixture this build runs: every operator has a kernel, exit 0.
TEST(RunnerInfoTest, DescribesARunnableProgram) {
  const RunResult r = run_runner("--model_path " + quote(model("cnn.pte")) + " --info");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("input 0: Tensor Float [1, 3, 16, 16]"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("aten::convolution.out"), std::string::npos) << r.out;
  // Each operator's line names the library whose kernel runs it: avg_pool2d's
  // is the optimized library's where the runner has it.
  const size_t pool = r.out.find("operator aten::avg_pool2d.out");
  ASSERT_NE(pool, std::string::npos) << r.out;
  const std::string pool_line = r.out.substr(pool, r.out.find('\n', pool) - pool);
  const char* library = ETR_RUNNER_HAS_OPTIMIZED ? "kernel: optimized" : "kernel: portable";
  EXPECT_NE(pool_line.find(library), std::string::npos) << pool_line;
  EXPECT_NE(r.out.find("load: ok"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("MISSING"), std::string::npos) << r.out;
}

// --info on the LLM exporter's tiny Llama: one "llm:" block with the values
// its metadata methods return (manifest.txt: bos 1, eos [2], context 32,
// vocab 128, 2 layers); none for a program without them.
TEST(RunnerInfoTest, PrintsTheLlmMetadata) {
  RunResult r =
      run_runner("--model_path " + quote(model("llm/tiny_llama_portable.pte")) + " --info");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const size_t at = r.out.find("\nllm:\n");
  ASSERT_NE(at, std::string::npos) << r.out;
  const std::string block = r.out.substr(at);
  for (const char* line : {"  get_bos_id: 1\n", "  get_eos_ids: [2]\n", "  get_max_seq_len: 32\n",
                           "  get_max_context_len: 32\n", "  get_vocab_size: 128\n",
                           "  get_n_layers: 2\n", "  use_kv_cache: true\n",
                           "  use_sdpa_with_kv_cache: true\n", "  enable_dynamic_shape: true\n"}) {
    EXPECT_NE(block.find(line), std::string::npos) << line << " in " << block;
  }
  EXPECT_EQ(r.out.find("llm:", at + 2), std::string::npos) << "one block";
  r = run_runner("--model_path " + quote(model("cnn.pte")) + " --info");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out.find("\nllm:\n"), std::string::npos) << r.out;
}

// The same file with its relu operator renamed (same length, so the
// flatbuffer stays valid): --info names the missing operator and fails.
TEST(RunnerInfoTest, NamesAMissingOperatorAndFails) {
  auto bytes = testing::read_file(model("cnn.pte"));
  ASSERT_TRUE(bytes.ok());
  std::string data = *bytes;
  const size_t at = data.find("relu");
  ASSERT_NE(at, std::string::npos);
  data.replace(at, 4, "relx");
  TempDir dir;
  const std::string path = dir.path() + "/renamed.pte";
  FILE* f = std::fopen(path.c_str(), "wb");
  ASSERT_NE(f, nullptr);
  ASSERT_EQ(std::fwrite(data.data(), 1, data.size(), f), data.size());
  std::fclose(f);
  const RunResult r = run_runner("--model_path " + quote(path) + " --info");
  expect_single_error(r, 3);  // method load
  EXPECT_NE(r.out.find("aten::relx.out"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("MISSING: no kernel in this build"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("load: FAILED"), std::string::npos) << r.out;
}

}  // namespace
}  // namespace etr
