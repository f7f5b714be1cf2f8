// --profile=FILE: a Chrome / Perfetto trace of every kernel and delegate call,
// recorded through Method::set_observer. Open the file at https://ui.perfetto.dev
// or chrome://tracing.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include "runtime/executor/execute_observer.h"

namespace etr {
namespace runner {

class TraceRecorder final : public ExecuteObserver {
 public:
  TraceRecorder();
  void on_begin(const InstructionEvent& event) override;
  void on_end(const InstructionEvent& event, Error status) override;
  // Marks the start and end of one Method::execute (a "execute" event that
  // encloses its instructions).
  void begin_execute();
  void end_execute();
  // Writes {"traceEvents": [...]} to `path`; false on an I/O error.
  bool write(const std::string& path, const std::string& method) const;
  size_t num_events() const { return events_.size(); }

 private:
  struct Event {
    std::string name;
    const char* category;
    int64_t start_ns;
    int64_t duration_ns;
    // CPU time of the whole process (every thread) during the call: unlike the wall
    // time, other processes on a shared machine do not add to it.
    int64_t cpu_ns;
    size_t instruction;
    std::string shapes;
    Error status;
  };
  int64_t now_ns() const;
  std::chrono::steady_clock::time_point origin_;
  int64_t begin_ns_ = 0;
  int64_t begin_cpu_ns_ = 0;
  int64_t execute_begin_ns_ = 0;
  int64_t execute_begin_cpu_ns_ = 0;
  std::vector<Event> events_;
};

}  // namespace runner
}  // namespace etr
