// Operator conformance suite: runs every bundled program (.bpte) under
// test/conformance/ (written by export_conformance.py with the official
// exporter and PyTorch-eager expected outputs) on two kernel stacks:
//
//   portable   portable + portable_half + prim ops + quantized kernels
//   optimized  the same with the optimized library stacked above, on a
//              two-thread pool (only when the build has it)
//
// Every test case of every method is loaded, executed and compared with the
// tolerance of tolerances.txt (per dtype, with per-file overrides). One line
// is printed per failing case (a method that does not load prints one line
// for all its cases), then exactly one summary line
//
//   N passed, M failed[, K known]
//
// where K counts the failures listed in known_failures.txt (they are not in
// M). Exit status 1 when M > 0 or N == 0, when the directory cannot be read
// or holds no .bpte file, and when the default directory holds fewer files
// than kMinConformanceFiles (a lost file fails the suite, --filter or not).
//
// Options: --stack portable|optimized (only that stack), --filter TEXT (only
// files whose name contains TEXT), --dir DIR (another directory), -v (print
// every case).
#include <dirent.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "extension/bundled_program/bundled_program.h"
#include "extension/data_loader/buffer_data_loader.h"
#include "extension/memory/method_memory.h"
#include "kernels/llm/llm_kernels.h"
#include "kernels/portable/portable_kernels.h"
#include "kernels/prim_ops/prim_ops.h"
#include "kernels/quantized/quantized_kernels.h"
#include "runtime/core/memory_allocator.h"
#include "runtime/executor/method.h"
#include "runtime/executor/method_load_options.h"
#include "runtime/executor/program.h"
#include "runtime/kernel/registry.h"
#include "runtime/platform/error_capture.h"
#include "runtime/platform/platform.h"

#if ETR_CONFORMANCE_HAS_OPTIMIZED
#include "extension/threadpool/pthread_pool.h"
#include "kernels/optimized/optimized_kernels.h"
#endif

#ifndef ETR_CONFORMANCE_DIR
#define ETR_CONFORMANCE_DIR ETR_SOURCE_DIR "/test/conformance"
#endif

namespace {

using etr::Error;

// .bpte files in test/conformance today; raise it when files are added.
constexpr size_t kMinConformanceFiles = 260;

struct Tolerance {
  double rtol = 1e-5;
  double atol = 1e-6;
};

struct Override {
  std::string file;
  std::string method;  // "*" for all
  Tolerance tol;
};

struct Known {
  std::string file;
  std::string method;     // "*" for all
  std::string test_case;  // "*" for all
  std::string reason;
};

struct Config {
  std::vector<std::pair<std::string, Tolerance>> dtypes;  // ScalarType name -> tolerance
  std::vector<Override> overrides;
  std::vector<Known> known;
};

bool matches(const std::string& pattern, const std::string& value) {
  return pattern == "*" || pattern == value;
}

std::vector<std::string> read_lines(const std::string& path) {
  std::vector<std::string> lines;
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line)) {
    const size_t hash = line.find('#');
    if (hash != std::string::npos) line.resize(hash);
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    lines.push_back(line);
  }
  return lines;
}

bool load_config(const std::string& dir, Config* config) {
  const std::vector<std::string> tol_lines = read_lines(dir + "/tolerances.txt");
  if (tol_lines.empty()) {
    std::printf("cannot read %s/tolerances.txt\n", dir.c_str());
    return false;
  }
  for (const std::string& line : tol_lines) {
    std::istringstream s(line);
    std::string kind;
    s >> kind;
    if (kind == "dtype") {
      std::string name;
      Tolerance t;
      s >> name >> t.rtol >> t.atol;
      config->dtypes.emplace_back(name, t);
    } else if (kind == "op") {
      Override o;
      s >> o.file >> o.method >> o.tol.rtol >> o.tol.atol;
      config->overrides.push_back(o);
    } else {
      std::printf("tolerances.txt: unknown line '%s'\n", line.c_str());
      return false;
    }
  }
  // known_failures.txt: <file> <method|*> <case|*> <reason...>
  for (const std::string& line : read_lines(dir + "/known_failures.txt")) {
    std::istringstream s(line);
    Known k;
    s >> k.file >> k.method >> k.test_case;
    std::getline(s, k.reason);
    const size_t start = k.reason.find_first_not_of(' ');
    k.reason = start == std::string::npos ? "" : k.reason.substr(start);
    config->known.push_back(k);
  }
  return true;
}

bool is_float_dtype(etr::ScalarType t) {
  return t == etr::ScalarType::Float || t == etr::ScalarType::Double ||
         t == etr::ScalarType::Half || t == etr::ScalarType::BFloat16;
}

// The tolerance of one method: a file/method override, else the default of
// the dtype of its first floating-point output (integer and bool outputs are
// compared exactly whatever the tolerance).
Tolerance tolerance_for(const Config& config, const std::string& file, const std::string& method,
                        const etr::Method& m) {
  for (const Override& o : config.overrides) {
    if (o.file == file && matches(o.method, method)) return o.tol;
  }
  std::string dtype = "Float";
  for (size_t i = 0; i < m.outputs_size(); ++i) {
    const etr::EValue& v = m.get_output(i);
    if (v.is_tensor() && is_float_dtype(v.to_tensor().scalar_type())) {
      dtype = etr::to_string(v.to_tensor().scalar_type());
      break;
    }
  }
  for (const auto& d : config.dtypes) {
    if (d.first == dtype) return d.second;
  }
  return Tolerance();
}

const Known* find_known(const Config& config, const std::string& file, const std::string& method,
                        size_t test_case) {
  for (const Known& k : config.known) {
    if (k.file == file && matches(k.method, method) &&
        matches(k.test_case, std::to_string(test_case))) {
      return &k;
    }
  }
  return nullptr;
}

// Quiet log hook: errors are collected with ErrorCapture and printed with the
// failing case instead.
void quiet_log(etr::LogLevel, const char*, int, const char*) {}

struct AlignedFree {
  void operator()(uint8_t* p) const { std::free(p); }
};
using Bytes = std::unique_ptr<uint8_t, AlignedFree>;

Bytes read_file(const std::string& path, size_t* size) {
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  if (!in) return nullptr;
  const std::streamoff n = in.tellg();
  if (n <= 0) return nullptr;
  *size = static_cast<size_t>(n);
  const size_t rounded = (*size + 63) / 64 * 64;
  Bytes bytes(static_cast<uint8_t*>(std::aligned_alloc(64, rounded)));
  in.seekg(0);
  in.read(reinterpret_cast<char*>(bytes.get()), n);
  return in ? std::move(bytes) : nullptr;
}

struct Counts {
  size_t passed = 0;
  size_t failed = 0;
  size_t known = 0;
  size_t known_passed = 0;
};

struct Stack {
  const char* name;
  const etr::KernelRegistry* registry;
  etr::ThreadPool* pool;
};

std::string trim_message(const char* text) {
  std::string s(text);
  if (s.size() > 400) s = s.substr(0, 400) + "...";
  return s;
}

void record_failure(const Config& config, const Stack& stack, const std::string& file,
                    const std::string& method, size_t test_case, const std::string& what,
                    Counts* counts) {
  const Known* k = find_known(config, file, method, test_case);
  if (k != nullptr) {
    ++counts->known;
    return;
  }
  ++counts->failed;
  std::printf("FAIL [%s] %s %s case %zu: %s\n", stack.name, file.c_str(), method.c_str(), test_case,
              what.c_str());
}

void record_pass(const Config& config, const Stack& stack, const std::string& file,
                 const std::string& method, size_t test_case, bool verbose, Counts* counts) {
  ++counts->passed;
  if (find_known(config, file, method, test_case) != nullptr) {
    ++counts->known_passed;
    std::printf("NOTE [%s] %s %s case %zu: listed in known_failures.txt but passed\n", stack.name,
                file.c_str(), method.c_str(), test_case);
  } else if (verbose) {
    std::printf("ok   [%s] %s %s case %zu\n", stack.name, file.c_str(), method.c_str(), test_case);
  }
}

// Runs every case of one method of one bundled program on one stack.
void run_method(const Config& config, const Stack& stack, const std::string& file,
                const etr::BundledProgram& bp, const etr::Program& program,
                const std::string& method, bool verbose, Counts* counts) {
  etr::Result<size_t> num_cases = bp.num_test_cases(method.c_str());
  const size_t n = num_cases.ok() ? *num_cases : 0;
  auto fail_all = [&](const std::string& what) {
    size_t unknown = 0;
    for (size_t c = 0; c < n; ++c) {
      if (find_known(config, file, method, c) != nullptr) {
        ++counts->known;
      } else {
        ++counts->failed;
        ++unknown;
      }
    }
    if (unknown > 0) {
      std::printf("FAIL [%s] %s %s (all %zu cases): %s\n", stack.name, file.c_str(), method.c_str(),
                  n, what.c_str());
    }
  };

  char message[1024];
  etr::ErrorCapture capture(message, sizeof(message));
  etr::Result<etr::MethodMeta> meta = program.method_meta(method.c_str());
  if (!meta.ok()) {
    fail_all(std::string("method_meta: ") + etr::to_string(meta.error()));
    return;
  }
  // Planned buffers, a method allocator that grows as the load asks, 16 MiB of temp.
  etr::Result<std::unique_ptr<etr::MethodMemory>> memory = etr::MethodMemory::create(*meta);
  if (!memory.ok()) {
    fail_all(std::string("method memory: ") + etr::to_string(memory.error()) + " (" +
             trim_message(capture.message()) + ")");
    return;
  }
  etr::MethodLoadOptions options;
  options.kernels = stack.registry;
  options.thread_pool = stack.pool;
  etr::Result<etr::Method> m = program.load_method(method.c_str(), (*memory)->manager(), options);
  if (!m.ok()) {
    fail_all(std::string("load_method: ") + etr::to_string(m.error()) + " (" +
             trim_message(capture.message()) + ")");
    return;
  }
  if (n == 0) {
    std::printf("FAIL [%s] %s %s: no test cases (%s)\n", stack.name, file.c_str(), method.c_str(),
                num_cases.ok() ? "empty suite" : etr::to_string(num_cases.error()));
    ++counts->failed;
    return;
  }
  for (size_t c = 0; c < n; ++c) {
    capture.clear();
    Error err = bp.load_inputs(*m, c);
    if (err != Error::Ok) {
      record_failure(config, stack, file, method, c,
                     std::string("load_inputs: ") + etr::to_string(err) + " (" +
                         trim_message(capture.message()) + ")",
                     counts);
      continue;
    }
    err = m->execute();
    if (err != Error::Ok) {
      record_failure(config, stack, file, method, c,
                     std::string("execute: ") + etr::to_string(err) + " (" +
                         trim_message(capture.message()) + ")",
                     counts);
      continue;
    }
    const Tolerance tol = tolerance_for(config, file, method, *m);
    etr::Result<etr::BundledComparison> cmp = bp.compare_outputs(*m, c, tol.rtol, tol.atol);
    if (!cmp.ok()) {
      record_failure(config, stack, file, method, c,
                     std::string("compare_outputs: ") + etr::to_string(cmp.error()) + " (" +
                         trim_message(capture.message()) + ")",
                     counts);
      continue;
    }
    if (!cmp->passed) {
      char what[512];
      std::snprintf(what, sizeof(what),
                    "%zu mismatches, max abs error %.6g, max rel error %.6g (output %zu element "
                    "%zu: actual %.9g expected %.9g; rtol %g atol %g)",
                    cmp->mismatches, cmp->max_abs_error, cmp->max_rel_error, cmp->worst_output,
                    cmp->worst_index, cmp->worst_actual, cmp->worst_expected, tol.rtol, tol.atol);
      record_failure(config, stack, file, method, c, what, counts);
      continue;
    }
    record_pass(config, stack, file, method, c, verbose, counts);
  }
}

void run_file(const Config& config, const Stack& stack, const std::string& dir,
              const std::string& file, bool verbose, Counts* counts) {
  size_t size = 0;
  Bytes bytes = read_file(dir + "/" + file, &size);
  if (!bytes) {
    std::printf("FAIL [%s] %s: cannot read the file\n", stack.name, file.c_str());
    ++counts->failed;
    return;
  }
  char message[1024];
  etr::ErrorCapture capture(message, sizeof(message));
  etr::Result<etr::BundledProgram> bp = etr::BundledProgram::load(bytes.get(), size);
  if (!bp.ok()) {
    std::printf("FAIL [%s] %s: BundledProgram::load: %s (%s)\n", stack.name, file.c_str(),
                etr::to_string(bp.error()), trim_message(capture.message()).c_str());
    ++counts->failed;
    return;
  }
  const etr::Span<const uint8_t> pte = bp->program_data();
  etr::BufferDataLoader loader(pte.data(), pte.size());
  etr::Result<etr::Program> program = etr::Program::load(&loader);
  if (!program.ok()) {
    std::printf("FAIL [%s] %s: Program::load: %s (%s)\n", stack.name, file.c_str(),
                etr::to_string(program.error()), trim_message(capture.message()).c_str());
    ++counts->failed;
    return;
  }
  for (size_t s = 0; s < bp->num_suites(); ++s) {
    etr::Result<const char*> name = bp->suite_method_name(s);
    if (!name.ok()) continue;
    run_method(config, stack, file, *bp, *program, *name, verbose, counts);
  }
}

// The .bpte files of `dir`, sorted; false when it cannot be opened.
bool list_bpte(const std::string& dir, std::vector<std::string>* files) {
  DIR* d = opendir(dir.c_str());
  if (d == nullptr) return false;
  while (const dirent* e = readdir(d)) {
    const std::string name = e->d_name;
    if (name.size() > 5 && name.compare(name.size() - 5, 5, ".bpte") == 0) files->push_back(name);
  }
  closedir(d);
  std::sort(files->begin(), files->end());
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  std::string dir = ETR_CONFORMANCE_DIR;
  std::string only_stack;
  std::string filter;
  bool verbose = false;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--stack" && i + 1 < argc) {
      only_stack = argv[++i];
    } else if (a == "--filter" && i + 1 < argc) {
      filter = argv[++i];
    } else if (a == "--dir" && i + 1 < argc) {
      dir = argv[++i];
    } else if (a == "-v") {
      verbose = true;
    } else {
      std::printf("usage: %s [--stack portable|optimized] [--filter TEXT] [--dir DIR] [-v]\n",
                  argv[0]);
      return 2;
    }
  }
  etr::PlatformHooks hooks{};
  hooks.log = quiet_log;
  etr::set_platform_hooks(hooks);

  Config config;
  if (!load_config(dir, &config)) {
    std::printf("0 passed, 1 failed\n");
    return 1;
  }
  std::vector<std::string> files;
  if (!list_bpte(dir, &files)) {
    std::printf("cannot open directory %s\n0 passed, 1 failed\n", dir.c_str());
    return 1;
  }
  if (files.empty()) {
    std::printf("no .bpte files in %s\n0 passed, 1 failed\n", dir.c_str());
    return 1;
  }
  if (dir == ETR_CONFORMANCE_DIR && files.size() < kMinConformanceFiles) {
    std::printf("%s holds %zu .bpte files, expected at least %zu\n0 passed, 1 failed\n",
                dir.c_str(), files.size(), kMinConformanceFiles);
    return 1;
  }
  if (!filter.empty()) {
    files.erase(
        std::remove_if(files.begin(), files.end(),
                       [&](const std::string& f) { return f.find(filter) == std::string::npos; }),
        files.end());
  }

  etr::KernelRegistry portable;
  bool ok = portable.add(etr::portable_kernel_library()) == Error::Ok;
  ok = ok && portable.add(etr::portable_half_kernel_library()) == Error::Ok;
  ok = ok && portable.add(etr::prim_ops_library()) == Error::Ok;
  ok = ok && portable.add(etr::quantized_kernel_library()) == Error::Ok;
  ok = ok && portable.add(etr::llm_kernel_library()) == Error::Ok;
  std::vector<Stack> stacks;
  stacks.push_back({"portable", &portable, nullptr});
#if ETR_CONFORMANCE_HAS_OPTIMIZED
  etr::KernelRegistry optimized;
  ok = ok && optimized.add(etr::portable_kernel_library()) == Error::Ok;
  ok = ok && optimized.add(etr::portable_half_kernel_library()) == Error::Ok;
  ok = ok && optimized.add(etr::prim_ops_library()) == Error::Ok;
  ok = ok && optimized.add(etr::quantized_kernel_library()) == Error::Ok;
  ok = ok && optimized.add(etr::llm_kernel_library()) == Error::Ok;
  ok = ok && optimized.add(etr::optimized_kernel_library()) == Error::Ok;
  const std::unique_ptr<etr::PthreadPool> pool = etr::PthreadPool::create(2);
  stacks.push_back({"optimized", &optimized, pool.get()});
#endif
  if (!ok) {
    std::printf("cannot build the kernel registries\n0 passed, 1 failed\n");
    return 1;
  }

  Counts total;
  for (const Stack& stack : stacks) {
    if (!only_stack.empty() && only_stack != stack.name) continue;
    Counts counts;
    for (const std::string& file : files) run_file(config, stack, dir, file, verbose, &counts);
    std::printf("[%s] %zu files: passed %zu, failed %zu, known %zu\n", stack.name, files.size(),
                counts.passed, counts.failed, counts.known);
    total.passed += counts.passed;
    total.failed += counts.failed;
    total.known += counts.known;
    total.known_passed += counts.known_passed;
  }
  if (total.known > 0) {
    std::printf("%zu passed, %zu failed, %zu known\n", total.passed, total.failed, total.known);
  } else {
    std::printf("%zu passed, %zu failed\n", total.passed, total.failed);
  }
  return total.failed > 0 || total.passed == 0 ? 1 : 0;
}
