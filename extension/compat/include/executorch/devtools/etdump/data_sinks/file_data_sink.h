// Compatibility layer (extension/compat): the official FileDataSink, which
// appends blobs back to back (no padding) to a file.
#pragma once

#include <executorch/devtools/etdump/data_sinks/data_sink_base.h>
#include <executorch/runtime/core/exec_aten/exec_aten.h>

#include <cstdio>

namespace executorch {
namespace etdump {

class FileDataSink : public DataSinkBase {
 public:
  // Opens (truncates) `file_path`; AccessFailed when it cannot.
  static ::executorch::runtime::Result<FileDataSink> create(const char* file_path);

  ~FileDataSink() override;
  FileDataSink(const FileDataSink&) = delete;
  FileDataSink& operator=(const FileDataSink&) = delete;
  FileDataSink(FileDataSink&& other) noexcept;
  FileDataSink& operator=(FileDataSink&& other) = default;

  ::executorch::runtime::Result<size_t> write(const void* ptr, size_t size) override;
  size_t get_used_bytes() const override;
  // Flushes and closes the file (also done by the destructor).
  void close();

 private:
  explicit FileDataSink(FILE* file) : file_(file), total_written_bytes_(0) {}

  FILE* file_ = nullptr;
  size_t total_written_bytes_ = 0;
};

}  // namespace etdump
}  // namespace executorch
