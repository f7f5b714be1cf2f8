#include "examples/executor_runner/profile_trace.h"

#include <cinttypes>
#include <cstdio>
#include <ctime>
#include <memory>

namespace etr {
namespace runner {
namespace {

// "[2, 3] f32, [3] f32" for the tensor arguments (the return slot excluded
// for kernels: it repeats the out argument).
std::string describe_args(const InstructionEvent& e) {
  std::string s;
  size_t n = e.args.size();
  if (e.kind == InstructionEvent::Kind::Kernel && n != 0) --n;
  for (size_t i = 0; i < n; ++i) {
    const EValue* v = e.args[i];
    if (!v->is_tensor()) continue;
    const Tensor& t = v->to_tensor();
    if (!s.empty()) s += ", ";
    s += '[';
    for (size_t d = 0; d < t.dim(); ++d) {
      if (d != 0) s += ", ";
      s += std::to_string(t.size(d));
    }
    s += "] ";
    s += to_string(t.dtype());
  }
  return s;
}

// JSON string body: quotes, backslashes and control characters escaped.
std::string json_escape(const std::string& in) {
  std::string out;
  for (char c : in) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (static_cast<unsigned char>(c) < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof(buf), "\\u%04x", static_cast<unsigned>(c));
      out += buf;
    } else {
      out += c;
    }
  }
  return out;
}

// The process's CPU time (all threads) in nanoseconds, at std::clock's resolution.
int64_t cpu_now_ns() {
  return static_cast<int64_t>(static_cast<double>(std::clock()) * 1e9 / CLOCKS_PER_SEC);
}

struct FileCloser {
  void operator()(std::FILE* f) const { std::fclose(f); }
};

}  // namespace

TraceRecorder::TraceRecorder() : origin_(std::chrono::steady_clock::now()) {}

int64_t TraceRecorder::now_ns() const {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() -
                                                              origin_)
      .count();
}

void TraceRecorder::on_begin(const InstructionEvent&) {
  begin_cpu_ns_ = cpu_now_ns();
  begin_ns_ = now_ns();
}

void TraceRecorder::on_end(const InstructionEvent& e, Error status) {
  const int64_t end = now_ns();
  const int64_t cpu = cpu_now_ns() - begin_cpu_ns_;
  events_.push_back(Event{e.name, e.kind == InstructionEvent::Kind::Kernel ? "kernel" : "delegate",
                          begin_ns_, end - begin_ns_, cpu, e.instruction, describe_args(e),
                          status});
}

void TraceRecorder::begin_execute() {
  execute_begin_cpu_ns_ = cpu_now_ns();
  execute_begin_ns_ = now_ns();
}

void TraceRecorder::end_execute() {
  const int64_t end = now_ns();
  const int64_t cpu = cpu_now_ns() - execute_begin_cpu_ns_;
  events_.push_back(Event{"execute", "method", execute_begin_ns_, end - execute_begin_ns_, cpu, 0,
                          "", Error::Ok});
}

bool TraceRecorder::write(const std::string& path, const std::string& method) const {
  std::unique_ptr<std::FILE, FileCloser> f(std::fopen(path.c_str(), "w"));
  if (!f) return false;
  std::fprintf(f.get(), "{\"displayTimeUnit\": \"ns\", \"traceEvents\": [\n");
  for (size_t i = 0; i < events_.size(); ++i) {
    const Event& e = events_[i];
    // Chrome trace times are microseconds; fractions keep nanosecond detail. "cpu_us"
    // is the process's CPU time during the event.
    std::fprintf(f.get(),
                 "  {\"name\": \"%s\", \"cat\": \"%s\", \"ph\": \"X\", \"pid\": 1, \"tid\": 1, "
                 "\"ts\": %.3f, \"dur\": %.3f, \"args\": {\"method\": \"%s\", \"cpu_us\": %.3f",
                 json_escape(e.name).c_str(), e.category, static_cast<double>(e.start_ns) / 1e3,
                 static_cast<double>(e.duration_ns) / 1e3, json_escape(method).c_str(),
                 static_cast<double>(e.cpu_ns) / 1e3);
    if (std::string(e.category) != "method") {
      std::fprintf(f.get(), ", \"instruction\": %zu, \"tensors\": \"%s\"", e.instruction,
                   json_escape(e.shapes).c_str());
    }
    if (e.status != Error::Ok) std::fprintf(f.get(), ", \"error\": \"%s\"", to_string(e.status));
    std::fprintf(f.get(), "}}%s\n", i + 1 == events_.size() ? "" : ",");
  }
  std::fprintf(f.get(), "]}\n");
  return std::ferror(f.get()) == 0;
}

}  // namespace runner
}  // namespace etr
