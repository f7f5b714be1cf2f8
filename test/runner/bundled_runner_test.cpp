// executor_runner --bundled_program, run as a child process on the official
// .bpte fixtures (test/models/bundled, see export_bundled.py there).
#include <gtest/gtest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "test/support/fixtures.h"

namespace etr {
namespace {

const std::string kBundledDir = std::string(ETR_SOURCE_DIR) + "/test/models/bundled/";

struct RunOutput {
  int exit_code = -1;
  std::string out;
  std::string err;
};

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) lines.push_back(line);
  return lines;
}

size_t count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

// Runs the runner with `args` (no quoting needed: fixture paths have no spaces).
RunOutput run_runner(const std::string& args) {
  char dir[] = "/tmp/etr_bundled_runnerXXXXXX";
  RunOutput r;
  if (mkdtemp(dir) == nullptr) return r;
  const std::string out = std::string(dir) + "/out";
  const std::string err = std::string(dir) + "/err";
#ifdef ETR_TEST_EMULATOR
  const std::string emulator = ETR_TEST_EMULATOR;
#else
  const std::string emulator;
#endif
  const std::string cmd = (emulator.empty() ? "" : emulator + " ") + ETR_RUNNER_PATH + " " + args +
                          " >" + out + " 2>" + err;
  const int status = std::system(cmd.c_str());
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  Result<std::string> o = testing::read_file(out);
  Result<std::string> e = testing::read_file(err);
  r.out = o.ok() ? *o : "";
  r.err = e.ok() ? *e : "";
  std::remove(out.c_str());
  std::remove(err.c_str());
  ::rmdir(dir);
  return r;
}

void expect_one_error_line(const RunOutput& r, int code, const std::string& contains) {
  EXPECT_EQ(r.exit_code, code) << r.out << r.err;
  const std::vector<std::string> lines = lines_of(r.err);
  ASSERT_EQ(lines.size(), 1u) << r.err;
  EXPECT_EQ(lines[0].rfind("executor_runner: error: ", 0), 0u) << lines[0];
  EXPECT_NE(lines[0].find(contains), std::string::npos) << lines[0];
}

TEST(BundledRunnerTest, EveryFixtureCasePasses) {
  const struct {
    const char* file;
    size_t cases;
  } fixtures[] = {
      {"mlp.bpte", 3}, {"two_methods.bpte", 4}, {"int_bool.bpte", 2}, {"dynamic.bpte", 3}};
  for (const auto& f : fixtures) {
    const RunOutput r = run_runner("--bundled_program=" + kBundledDir + f.file);
    EXPECT_EQ(r.exit_code, 0) << f.file << "\n" << r.out << r.err;
    EXPECT_EQ(count(r.out, ": PASS (max abs error "), f.cases) << r.out;
    EXPECT_NE(r.out.find(std::to_string(f.cases) + " cases, " + std::to_string(f.cases) +
                         " passed, 0 failed, 0 errors"),
              std::string::npos)
        << r.out;
    EXPECT_TRUE(r.err.empty()) << r.err;
  }
}

// mlp_wrong.bpte case 1 has expected output element 5 = eager + 0.5; the
// numbers (0.5 abs, 0.81073 rel, eager 0.11672844, bundled 0.616728425) were
// printed by export_bundled.py with torch.
TEST(BundledRunnerTest, WrongExpectedOutputFailsWithItsNumbers) {
  const RunOutput r = run_runner("--bundled_program=" + kBundledDir + "mlp_wrong.bpte");
  expect_one_error_line(r, 8, "1 of 3 bundled cases differ from the expected outputs: NotFound");
  EXPECT_NE(r.out.find("method 'forward' case 1: FAIL (max abs error 0.5, max rel error 0.81073; "
                       "1 elements differ, worst: output 0 element 5 = 0.1167284"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("expected 0.61672842"), std::string::npos) << r.out;
  EXPECT_EQ(count(r.out, ": PASS ("), 2u) << r.out;
  EXPECT_NE(r.out.find("3 cases, 2 passed, 1 failed, 0 errors"), std::string::npos) << r.out;
}

TEST(BundledRunnerTest, ToleranceFlagsAndMethodFilter) {
  RunOutput r =
      run_runner("--bundled_program=" + kBundledDir + "mlp_wrong.bpte --atol=0.6 --rtol 0");
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  r = run_runner("--bundled_program=" + kBundledDir + "two_methods.bpte --method=decode");
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_EQ(count(r.out, "method 'decode' case"), 2u) << r.out;
  EXPECT_EQ(count(r.out, "method 'forward'"), 0u) << r.out;
  r = run_runner("--bundled_program=" + kBundledDir + "two_methods.bpte --method=nope");
  expect_one_error_line(r, 4, "has no test case for method 'nope'");
  r = run_runner("--bundled_program=" + kBundledDir + "mlp.bpte --rtol=-1");
  expect_one_error_line(r, 1, "--rtol needs a number >= 0, got '-1'");
}

TEST(BundledRunnerTest, BrokenFilesAreRefused) {
  RunOutput r = run_runner("--bundled_program=" + kBundledDir + "does_not_exist.bpte");
  expect_one_error_line(r, 2, "cannot open");
  // A .pte is not a bundled program.
  r = run_runner("--bundled_program=" + std::string(ETR_SOURCE_DIR) + "/test/models/mlp.pte");
  expect_one_error_line(r, 2, "no 'BP08' identifier at offset 4");
  // A truncated copy fails verification.
  Result<std::string> full = testing::read_file(kBundledDir + "mlp.bpte");
  ASSERT_TRUE(full.ok());
  char path[] = "/tmp/etr_bundled_cutXXXXXX";
  const int fd = mkstemp(path);
  ASSERT_GE(fd, 0);
  ::close(fd);
  std::ofstream(path, std::ios::binary).write(full->data(), 1000);
  r = run_runner(std::string("--bundled_program=") + path);
  std::remove(path);
  expect_one_error_line(r, 2, "bundled program flatbuffer failed structural verification");
}

}  // namespace
}  // namespace etr
