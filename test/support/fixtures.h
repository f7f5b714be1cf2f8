// Test fixtures: the model manifest (test/models/manifest.txt) and the
// comparison of method outputs with expected .npy / .txt files. Used both by
// the runner tests (outputs written by executor_runner) and by in-process
// runtime tests (outputs read from a Method).
//
// Manifest format: one check per line, whitespace-separated key=value tokens
//   pte=<file> method=<name> inputs=<a,b|-> expected=<x,y|-> executions=<N>
//   rtol=<r> atol=<a> [expect_error=<word>]
// Blank lines and lines starting with '#' are ignored. Paths are relative to
// the manifest's directory; the parser makes them absolute.
//
// Every fallible call returns an etr::Error or etr::Result<T> and logs what
// failed and where; receive the message with etr::ErrorCapture
// (runtime/platform/error_capture.h).
#pragma once

#include <cstddef>
#include <map>
#include <string>
#include <vector>

#include "extension/tensor/host_tensor.h"
#include "runtime/core/error.h"
#include "runtime/core/evalue.h"
#include "runtime/core/result.h"

namespace etr {
namespace testing {

struct ManifestEntry {
  std::string pte;  // absolute path
  std::string method;
  std::vector<std::string> inputs;    // absolute paths, in method-input order
  std::vector<std::string> expected;  // absolute paths, in output order
  int executions = 1;
  double rtol = 1e-5;
  double atol = 1e-6;
  std::string expect_error;                  // empty: the run must succeed
  int line = 0;                              // 1-based line in the manifest
  std::map<std::string, std::string> extra;  // keys this parser does not know

  // "add_mul.pte:forward (manifest line 12)"
  std::string describe() const;
};

// Parses a manifest file; paths are resolved against its directory. Fails
// with AccessFailed when the file cannot be read, InvalidArgument (naming
// the line) for a malformed line.
Result<std::vector<ManifestEntry>> parse_manifest(const std::string& path);
// Parses manifest text; relative paths are resolved against `base_dir`.
Result<std::vector<ManifestEntry>> parse_manifest_text(const std::string& text,
                                                       const std::string& base_dir);

// How many checks test/models/manifest.txt has today: suites generated from it
// assert at least this many, so a lost or unreadable manifest cannot pass with
// zero cases. Raise it when checks are added.
constexpr size_t kMinManifestCases = 35;

// Path of the repository's manifest (ETR_SOURCE_DIR/test/models/manifest.txt).
std::string default_manifest_path(const std::string& source_dir);

// Compares two tensors: same dtype and shape, floating values within
// |got - expected| <= atol + rtol * |expected| (NaN matches NaN, infinities
// must be equal), every other dtype bit-exact. Fails with InvalidType when
// the dtypes differ, InvalidArgument for a different shape or different
// values; the logged message names the first mismatching element and how
// many mismatched.
Error compare_tensors(const Tensor& got, const Tensor& expected, double rtol, double atol);

// Compares an output file written by the runner (.npy or .txt) with the
// expected file of the same kind.
Error compare_output_files(const std::string& got_path, const std::string& expected_path,
                           double rtol, double atol);

// Compares an in-process output value with an expected file: tensors with
// .npy arrays, Int/Double/Bool values with 0-d int64/float64/bool arrays
// (Double within tolerance), String values with .txt files (exact bytes).
Error compare_value(const EValue& got, const std::string& expected_path, double rtol, double atol);

// Whole file as bytes; AccessFailed when it cannot be read.
Result<std::string> read_file(const std::string& path);

}  // namespace testing
}  // namespace etr
