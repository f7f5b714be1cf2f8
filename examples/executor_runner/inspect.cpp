#include "examples/executor_runner/inspect.h"

#include <cinttypes>
#include <cstdio>
#include <string>

#include "runtime/backend/backend.h"
#include "runtime/kernel/registry.h"

namespace etr {
namespace runner {
namespace {

std::string dims(Span<const int32_t> sizes) {
  std::string s = "[";
  for (size_t i = 0; i < sizes.size(); ++i) s += (i ? ", " : "") + std::to_string(sizes[i]);
  return s + "]";
}

std::string dtype_names(uint64_t bits) {
  std::string s;
  for (int t = 0; t < 64; ++t) {
    if (((bits >> t) & 1) == 0) continue;
    if (!s.empty()) s += ", ";
    s += to_string(static_cast<ScalarType>(t));
  }
  return s.empty() ? "-" : s;
}

void print_value(const char* what, size_t i, Result<Tag> tag, Result<TensorInfo> info) {
  if (!tag.ok()) {
    std::printf("  %s %zu: invalid (%s)\n", what, i, to_string(tag.error()));
    return;
  }
  if (*tag != Tag::Tensor || !info.ok()) {
    std::printf("  %s %zu: %s\n", what, i, to_string(*tag));
    return;
  }
  std::printf("  %s %zu: Tensor %s %s%s%s, %zu bytes\n", what, i, to_string(info->dtype),
              dims(info->sizes).c_str(), info->is_dynamic ? " (dynamic, upper bound)" : "",
              info->is_memory_planned ? ", planned" : ", caller-provided", info->nbytes);
}

}  // namespace

void print_program_info(const Program& program, const std::string& path, size_t file_size) {
  std::printf("program '%s': %zu bytes, %zu methods\n", path.c_str(), file_size,
              program.num_methods());
  if (program.has_extended_header()) {
    const ExtendedHeader& h = program.extended_header();
    std::printf("  flatbuffer %" PRIu64 " bytes; segments %" PRIu64 " bytes at offset %" PRIu64
                "\n",
                h.program_size, h.segment_data_size, h.segment_base_offset);
  } else {
    std::printf("  flatbuffer %zu bytes; no extended header (no segments)\n",
                program.program_size());
  }
  std::printf("  named data in the program: %zu keys\n", program.named_data().num_keys());
}

bool print_method_info(const Program& program, const char* method, size_t method_allocator_bytes) {
  Result<MethodMeta> meta = program.method_meta(method);
  if (!meta.ok()) {
    std::printf("method '%s': cannot read its metadata (%s)\n", method, to_string(meta.error()));
    return false;
  }
  std::printf("method '%s': %zu instructions, %zu operators, %zu delegates\n", method,
              meta->num_instructions(), meta->num_operators(), meta->num_backends());
  for (size_t i = 0; i < meta->num_inputs(); ++i)
    print_value("input", i, meta->input_tag(i), meta->input_tensor_meta(i));
  for (size_t i = 0; i < meta->num_outputs(); ++i)
    print_value("output", i, meta->output_tag(i), meta->output_tensor_meta(i));
  int64_t planned = 0;
  for (size_t i = 0; i < meta->num_memory_planned_buffers(); ++i) {
    Result<int64_t> n = meta->memory_planned_buffer_size(i);
    if (!n.ok()) continue;
    std::printf("  planned buffer %zu: %" PRId64 " bytes\n", i + 1, *n);
    planned += *n;
  }
  if (method_allocator_bytes != 0) {
    std::printf("  planned memory: %" PRId64 " bytes; method allocator: %zu bytes\n", planned,
                method_allocator_bytes);
  } else {
    std::printf("  planned memory: %" PRId64 " bytes; method allocator: unknown (no load)\n",
                planned);
  }

  bool runnable = true;
  const KernelRegistry& kernels = default_kernel_registry();
  for (size_t i = 0; i < meta->num_operators(); ++i) {
    Result<OperatorUse> use = meta->operator_use(i);
    if (!use.ok()) {
      runnable = false;
      continue;
    }
    std::string full = use->name;
    if (use->overload[0] != '\0') full += std::string(".") + use->overload;
    // The first library (in priority order) whose declared dtypes cover the
    // call's; a prepare step may still refuse it at load.
    std::string library;
    uint64_t declared = 0;
    kernels.for_each_candidate(StringView(full.c_str()), op_name_hash(full.c_str()),
                               [&](const KernelEntry& e, const KernelLibrary& lib) {
                                 bool all = true;
                                 for (int t = 0; t < 64; ++t) {
                                   if (((use->dtype_bits >> t) & 1) == 0) continue;
                                   if (e.dtypes.contains(static_cast<ScalarType>(t))) {
                                     declared |= uint64_t{1} << t;
                                   } else {
                                     all = false;
                                   }
                                 }
                                 if (all) library = lib.name;
                                 return all;
                               });
    std::string verdict;
    if (!library.empty()) {
      verdict = "kernel: " + library;
    } else if (!kernels.has(StringView(full.c_str()))) {
      verdict = "MISSING: no kernel in this build";
      runnable = false;
    } else {
      verdict = "MISSING dtypes: " + dtype_names(use->dtype_bits & ~declared);
      runnable = false;
    }
    std::printf("  operator %-40s x%-3zu %-24s %s\n", full.c_str(), use->calls,
                dtype_names(use->dtype_bits).c_str(), verdict.c_str());
  }
  for (size_t i = 0; i < meta->num_backends(); ++i) {
    Result<const char*> id = meta->get_backend_name(i);
    if (!id.ok()) {
      runnable = false;
      continue;
    }
    const BackendInterface* b = default_backend_registry().find(StringView(*id));
    const bool ok = b != nullptr && b->is_available();
    std::printf("  delegate %zu: %s: %s\n", i, *id,
                b == nullptr ? "MISSING: backend not built in"
                             : (ok ? "backend available" : "backend unavailable on this machine"));
    runnable = runnable && ok;
  }
  return runnable;
}

}  // namespace runner
}  // namespace etr
