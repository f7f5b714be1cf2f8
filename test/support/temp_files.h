// A gtest fixture with a fresh temporary directory: path(name) names a file
// in it (removed, with the directory, after the test); slurp(p) reads a
// whole file ("" when it cannot be opened).
#pragma once

#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace etr {
namespace testing {

class TempFilesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/etr_test_XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
  }
  void TearDown() override {
    for (const std::string& f : files_) std::remove(f.c_str());
    rmdir(dir_.c_str());
  }
  std::string path(const std::string& name) {
    files_.push_back(dir_ + "/" + name);
    return files_.back();
  }
  static std::string slurp(const std::string& p) {
    std::string s;
    std::FILE* f = std::fopen(p.c_str(), "rb");
    if (f == nullptr) return s;
    char buf[256];
    size_t n;
    while ((n = std::fread(buf, 1, sizeof(buf), f)) > 0) s.append(buf, n);
    std::fclose(f);
    return s;
  }
  std::string dir_;
  std::vector<std::string> files_;
};

}  // namespace testing
}  // namespace etr
