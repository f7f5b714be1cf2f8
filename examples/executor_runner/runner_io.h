// Helpers of executor_runner: command line, log capture, inputs, outputs.
#pragma once

#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "extension/tensor/host_tensor.h"
#include "runtime/core/error.h"
#include "runtime/executor/method.h"

namespace etr {
namespace runner {

// Exit codes (all below 124, which shells reserve for timeouts and signals).
enum ExitCode : int {
  kExitOk = 0,
  kExitUsage = 1,
  kExitProgramLoad = 2,
  kExitMethodLoad = 3,
  kExitInput = 4,
  kExitExecute = 5,
  kExitOutput = 6,
  kExitSetup = 7,
  kExitMismatch = 8,  // --bundled_program: an output differs from the expected one
};

struct Options {
  std::string model_path;
  std::string method;  // empty: "forward" if present, else the first method
  std::vector<std::string> inputs;
  std::vector<std::string> data_paths;  // .ptd external data files, in search order
  std::string output_dir;
  int64_t num_executions = 1;
  int64_t threads = 0;  // 0: one per physical core
  bool list_operators = false;
  bool info = false;  // --info: describe the file and whether this build can run it
  bool help = false;
  bool verbose = false;
  // --bundled_program: run every test case of this .bpte instead of --model_path.
  std::string bundled_program;
  // --profile: write a Chrome/Perfetto trace of every kernel and delegate call.
  std::string profile;
  // --etdump_path: write an ETDump (the official profiling record) there;
  // --debug_buffer_path: its debug buffer (logged tensors), of
  // --debug_buffer_size bytes; --etdump_debug_level: what is logged (0 none,
  // 1 program outputs, 2 intermediate outputs too).
  std::string etdump_path;
  std::string debug_buffer_path;
  int64_t debug_buffer_size = int64_t{64} << 20;
  int etdump_debug_level = -1;  // -1: 2 with a debug buffer path, else 0
  double rtol = 1e-5;           // tolerances for comparing bundled expected outputs
  double atol = 1e-6;
  // --backend_option=BACKEND:KEY=VALUE (repeatable), checked for shape only;
  // --weight_cache_dir=DIR adds XnnpackBackend:weight_cache_dir=DIR.
  std::vector<std::string> backend_options;
  // --loader=mmap (default): the program and its .ptd files are mapped, so
  // weights are read in place and a delegate's payload is unmapped after
  // init; --loader=file: each segment is read into memory of ours.
  bool mmap_loader = true;
};

// Parses argv. On failure returns false and sets *error to a one-line
// description of the problem.
bool parse_options(int argc, char** argv, Options* options, std::string* error);
void print_usage(std::FILE* out);

// Installs the platform log hook: Error-level messages are remembered (the
// first since the last reset); everything is echoed to stderr if `verbose`.
void install_log_hook(bool verbose);
void reset_first_error();
// The first Error-level message since the last reset ("" if none).
std::string first_error();

// Prints the single failure line and returns `code`:
//   executor_runner: error: <what>: <ErrorName> (<detail>)
// `detail` defaults to the first logged error, then to `fallback`.
int fail(int code, const std::string& what, Error error, const std::string& fallback = "");

// mkdir -p: creates `dir` and its missing parents; 0, or -1 with errno set.
int make_directories(const std::string& dir);

// Host-side inputs: the value to set for each method input, and the heap
// tensors those values point to (kept alive for as long as the method runs).
struct InputSet {
  std::vector<std::unique_ptr<HostTensor>> tensors;
  std::vector<EValue> values;
};

// Builds every input, from .npy files (one per method input, in order) or,
// when `files` is empty, ones for tensors and the program's own value for
// everything else. Returns kExitOk or the exit code after printing the error.
int prepare_inputs(const Method& method, const std::vector<std::string>& files, InputSet* inputs);
// Sets every prepared input on the method.
int apply_inputs(Method& method, const InputSet& inputs);

// Binds heap memory to every tensor output the program did not plan.
int bind_unplanned_outputs(Method& method, std::vector<std::unique_ptr<uint8_t[]>>* storage);

// One summary line per output on stdout.
void print_outputs(const Method& method);
// Writes output_<i>.npy / .txt into `dir` (created with its parents if missing).
int write_outputs(const Method& method, const std::string& dir);

}  // namespace runner
}  // namespace etr
