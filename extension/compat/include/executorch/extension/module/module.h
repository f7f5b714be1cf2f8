// Compatibility layer (extension/compat): the official
// executorch::extension::Module, mapped onto etr::Module (one etr::Module per
// instance; nothing else is loaded or kept). Errors are the official codes;
// the message naming the method, input index or file is logged by etr
// (receive it with etr::ErrorCapture).
//
// Not covered: event tracers, caller-provided allocators and planned memory,
// shared memory arenas, backend load options, unload_method, set_input(s),
// set_output(s), get_output(s). Not polymorphic (no virtual members).
#pragma once

#include <executorch/runtime/core/error.h>
#include <executorch/runtime/core/evalue.h>
#include <executorch/runtime/core/result.h>
#include <executorch/runtime/executor/method_meta.h>
#include <executorch/runtime/executor/program.h>

#include <cstddef>
#include <memory>
#include <string>
#include <unordered_set>
#include <vector>

namespace etr {
class Module;
}  // namespace etr

namespace executorch {
namespace extension {

using ::executorch::runtime::MethodMeta;
using ::executorch::runtime::Program;

namespace module {

class Module {
 public:
  enum class LoadMode {
    File,                      // FileDataLoader
    Mmap,                      // MmapDataLoader
    MmapUseMlock,              // MmapDataLoader, mlock (etr falls back to unlocked, logged)
    MmapUseMlockIgnoreErrors,  // same
  };

  explicit Module(const std::string& file_path, const LoadMode load_mode = LoadMode::File);
  explicit Module(const std::string& file_path, const std::string& data_map_path,
                  const LoadMode load_mode = LoadMode::File);
  explicit Module(const std::string& file_path, std::vector<std::string> data_files,
                  const LoadMode load_mode = LoadMode::File);
  Module(const Module&) = delete;
  Module& operator=(const Module&) = delete;
  Module(Module&&) = delete;
  Module& operator=(Module&&) = delete;
  ~Module();

  [[nodiscard]] runtime::Error load(
      const Program::Verification verification = Program::Verification::Minimal);
  bool is_loaded() const;

  runtime::Result<size_t> num_methods();
  runtime::Result<std::unordered_set<std::string>> method_names();

  [[nodiscard]] runtime::Error load_method(const std::string& method_name);
  [[nodiscard]] runtime::Error load_forward() { return load_method("forward"); }
  bool is_method_loaded(const std::string& method_name) const;

  runtime::Result<MethodMeta> method_meta(const std::string& method_name);

  [[nodiscard]] runtime::Result<std::vector<runtime::EValue>> execute(
      const std::string& method_name, const std::vector<runtime::EValue>& input_values);
  [[nodiscard]] runtime::Result<std::vector<runtime::EValue>> execute(
      const std::string& method_name, const runtime::EValue& input_value) {
    return execute(method_name, std::vector<runtime::EValue>{input_value});
  }
  [[nodiscard]] runtime::Result<std::vector<runtime::EValue>> execute(
      const std::string& method_name) {
    return execute(method_name, std::vector<runtime::EValue>{});
  }

  // The first output (InvalidArgument when the method has none).
  [[nodiscard]] runtime::Result<runtime::EValue> get(
      const std::string& method_name, const std::vector<runtime::EValue>& input_values);
  [[nodiscard]] runtime::Result<runtime::EValue> get(const std::string& method_name,
                                                     const runtime::EValue& input_value) {
    return get(method_name, std::vector<runtime::EValue>{input_value});
  }
  [[nodiscard]] runtime::Result<runtime::EValue> get(const std::string& method_name) {
    return get(method_name, std::vector<runtime::EValue>{});
  }

  [[nodiscard]] runtime::Result<std::vector<runtime::EValue>> forward(
      const std::vector<runtime::EValue>& input_values) {
    return execute("forward", input_values);
  }
  [[nodiscard]] runtime::Result<std::vector<runtime::EValue>> forward(
      const runtime::EValue& input_value) {
    return execute("forward", input_value);
  }
  [[nodiscard]] runtime::Result<std::vector<runtime::EValue>> forward() {
    return execute("forward");
  }

 private:
  std::unique_ptr<::etr::Module> module_;
};

}  // namespace module

using ::executorch::extension::module::Module;

}  // namespace extension
}  // namespace executorch

namespace torch {
namespace executor {
using ::executorch::extension::module::Module;
}  // namespace executor
}  // namespace torch
