// The LLM half of _etr (the submodule _etr.llm; see python/etr/llm.py for
// the public API, shaped like the official executorch.extension.llm.runner):
// GenerationConfig, Stats and TextLLMRunner over etr::llm::TextLLMRunner.
//
// generate() releases the GIL while the model runs and takes it back for each
// callback; an exception raised by a callback stops the generation and is
// raised again from generate(). stop() may be called from a callback or from
// another thread. Failures raise _etr.Error with `.code` and `.message` (the
// messages the runner logged: they name the file or argument).
#include <pybind11/functional.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>

#include "extension/llm/stats.h"
#include "extension/llm/text_llm_runner.h"
#include "runtime/core/error.h"
#include "runtime/platform/error_capture.h"

namespace py = pybind11;

namespace {

using etr::llm::GenerationConfig;
using etr::llm::RunnerStats;

// A failure on its way to Python (translated to _etr.Error).
struct LlmFailure {
  std::string code;
  std::string message;
};

constexpr size_t kCaptureBytes = 4096;

// _etr.Error (set once by etr_bind_llm; the module keeps it alive).
PyObject* g_error_type = nullptr;

[[noreturn]] void fail(etr::Error err, const char* captured) {
  std::string message = captured != nullptr ? captured : "";
  throw LlmFailure{etr::to_string(err), message.empty() ? etr::to_string(err) : message};
}

class PyTextLLMRunner {
 public:
  PyTextLLMRunner(const std::string& model_path, const std::string& tokenizer_path,
                  const std::optional<std::string>& data_path, size_t num_threads) {
    etr::ModuleOptions options;
    options.num_threads = num_threads;
    runner_ = std::make_unique<etr::llm::TextLLMRunner>(model_path, tokenizer_path,
                                                        data_path.value_or(""), options);
    char why[kCaptureBytes] = {};
    etr::Error e;
    {
      py::gil_scoped_release release;
      etr::ErrorCapture capture(why, sizeof(why));
      e = runner_->load();
    }
    if (e != etr::Error::Ok) fail(e, why);
  }

  void generate(const std::string& prompt, const GenerationConfig& config,
                const std::optional<py::function>& token_callback,
                const std::optional<py::function>& stats_callback) {
    std::optional<py::error_already_set> raised;
    // Callbacks run with the GIL; the first exception stops the generation.
    auto on_token = [&](const std::string& piece) {
      if (!token_callback || raised) return;
      py::gil_scoped_acquire gil;
      try {
        // A piece is whole UTF-8 characters unless the model emitted bytes
        // that are not UTF-8: those are replaced, not raised.
        py::object text = py::reinterpret_steal<py::object>(
            PyUnicode_DecodeUTF8(piece.data(), static_cast<Py_ssize_t>(piece.size()), "replace"));
        if (!text) throw py::error_already_set();
        (*token_callback)(text);
      } catch (py::error_already_set& e) {
        raised.emplace(std::move(e));
        runner_->stop();
      }
    };
    auto on_stats = [&](const RunnerStats& s) {
      if (!stats_callback || raised) return;
      py::gil_scoped_acquire gil;
      try {
        (*stats_callback)(s);
      } catch (py::error_already_set& e) {
        raised.emplace(std::move(e));
      }
    };
    char why[kCaptureBytes] = {};
    etr::Error e;
    {
      py::gil_scoped_release release;
      etr::ErrorCapture capture(why, sizeof(why));
      e = runner_->generate(prompt, config, on_token, on_stats);
    }
    if (raised) throw std::move(*raised);
    if (e != etr::Error::Ok) fail(e, why);
  }

  void prefill(const std::string& prompt, const GenerationConfig& config) {
    char why[kCaptureBytes] = {};
    etr::Error e;
    {
      py::gil_scoped_release release;
      etr::ErrorCapture capture(why, sizeof(why));
      e = runner_->prefill(prompt, config);
    }
    if (e != etr::Error::Ok) fail(e, why);
  }

  void warmup(const std::string& prompt, int32_t max_new_tokens) {
    char why[kCaptureBytes] = {};
    etr::Error e;
    {
      py::gil_scoped_release release;
      etr::ErrorCapture capture(why, sizeof(why));
      e = runner_->warmup(prompt, max_new_tokens);
    }
    if (e != etr::Error::Ok) fail(e, why);
  }

  void stop() { runner_->stop(); }
  void reset() { runner_->reset(); }
  int64_t vocab_size() const { return runner_->vocab_size(); }
  int64_t position() const { return runner_->position(); }
  std::vector<int64_t> generated_ids() const { return runner_->generated_ids(); }
  std::vector<int64_t> prompt_ids() const { return runner_->prompt_ids(); }
  RunnerStats stats() const { return runner_->stats(); }

  py::dict metadata() const {
    const etr::llm::LlmMetadata& m = runner_->metadata();
    py::dict d;
    d["get_bos_id"] = m.bos_id;
    d["get_eos_ids"] = runner_->eos_ids();
    d["get_max_seq_len"] = m.max_seq_len;
    d["get_max_context_len"] = m.max_context_len;
    d["get_vocab_size"] = m.vocab_size;
    d["use_kv_cache"] = m.use_kv_cache;
    d["use_sdpa_with_kv_cache"] = m.use_sdpa_with_kv_cache;
    d["enable_dynamic_shape"] = m.enable_dynamic_shape;
    return d;
  }

 private:
  std::unique_ptr<etr::llm::TextLLMRunner> runner_;
};

std::string config_repr(const GenerationConfig& c) {
  char buf[256];
  std::snprintf(buf, sizeof(buf),
                "<GenerationConfig max_new_tokens=%d seq_len=%d temperature=%f echo=%s warming=%s>",
                static_cast<int>(c.max_new_tokens), static_cast<int>(c.seq_len),
                static_cast<double>(c.temperature), c.echo ? "True" : "False",
                c.warming ? "True" : "False");
  return buf;
}

}  // namespace

// Adds the submodule `llm` to _etr; `error_type` is _etr.Error.
void etr_bind_llm(py::module_& m, py::handle error_type) {
  g_error_type = error_type.ptr();
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const LlmFailure& e) {
      py::object inst = py::handle(g_error_type)(e.message);
      inst.attr("code") = e.code;
      inst.attr("message") = e.message;
      PyErr_SetObject(g_error_type, inst.ptr());
    }
  });
  py::module_ llm = m.def_submodule("llm", "Native LLM runner (use etr.llm)");

  py::class_<GenerationConfig>(llm, "GenerationConfig")
      .def(py::init([](bool echo, int32_t max_new_tokens, bool warming, int32_t seq_len,
                       float temperature, int32_t num_bos, int32_t num_eos, float top_p,
                       uint64_t seed) {
             GenerationConfig c;
             c.echo = echo;
             c.max_new_tokens = max_new_tokens;
             c.warming = warming;
             c.seq_len = seq_len;
             c.temperature = temperature;
             c.num_bos = num_bos;
             c.num_eos = num_eos;
             c.top_p = top_p;
             c.seed = seed;
             return c;
           }),
           py::kw_only(), py::arg("echo") = true, py::arg("max_new_tokens") = -1,
           py::arg("warming") = false, py::arg("seq_len") = -1, py::arg("temperature") = 0.8f,
           py::arg("num_bos") = 0, py::arg("num_eos") = 0, py::arg("top_p") = 0.9f,
           py::arg("seed") = 42)
      .def_readwrite("echo", &GenerationConfig::echo)
      .def_readwrite("max_new_tokens", &GenerationConfig::max_new_tokens)
      .def_readwrite("warming", &GenerationConfig::warming)
      .def_readwrite("seq_len", &GenerationConfig::seq_len)
      .def_readwrite("temperature", &GenerationConfig::temperature)
      .def_readwrite("num_bos", &GenerationConfig::num_bos)
      .def_readwrite("num_eos", &GenerationConfig::num_eos)
      .def_readwrite("top_p", &GenerationConfig::top_p)
      .def_readwrite("seed", &GenerationConfig::seed)
      .def("resolve_max_new_tokens", &GenerationConfig::resolve_max_new_tokens,
           py::arg("max_context_len"), py::arg("num_tokens_occupied"))
      .def("__repr__", &config_repr);

  py::class_<RunnerStats>(llm, "Stats")
      .def(py::init<>())
      .def_property_readonly_static(
          "SCALING_FACTOR_UNITS_PER_SECOND",
          [](const py::object&) { return RunnerStats::SCALING_FACTOR_UNITS_PER_SECOND; })
      .def_readwrite("model_load_start_ms", &RunnerStats::model_load_start_ms)
      .def_readwrite("model_load_end_ms", &RunnerStats::model_load_end_ms)
      .def_readwrite("inference_start_ms", &RunnerStats::inference_start_ms)
      .def_readwrite("token_encode_end_ms", &RunnerStats::token_encode_end_ms)
      .def_readwrite("model_execution_start_ms", &RunnerStats::model_execution_start_ms)
      .def_readwrite("model_execution_end_ms", &RunnerStats::model_execution_end_ms)
      .def_readwrite("prompt_eval_end_ms", &RunnerStats::prompt_eval_end_ms)
      .def_readwrite("first_token_ms", &RunnerStats::first_token_ms)
      .def_readwrite("inference_end_ms", &RunnerStats::inference_end_ms)
      .def_readwrite("aggregate_sampling_time_ms", &RunnerStats::aggregate_sampling_time_ms)
      .def_readwrite("aggregate_model_execution_time_ms",
                     &RunnerStats::aggregate_model_execution_time_ms)
      .def_readwrite("num_prompt_tokens", &RunnerStats::num_prompt_tokens)
      .def_readwrite("num_generated_tokens", &RunnerStats::num_generated_tokens)
      .def_readwrite("peak_rss_bytes", &RunnerStats::peak_rss_bytes)
      .def_readwrite("prefill_time_ms", &RunnerStats::prefill_time_ms)
      .def_readwrite("decode_time_ms", &RunnerStats::decode_time_ms)
      .def("reset", &RunnerStats::reset, py::arg("all_stats") = false)
      .def("to_json_string", &RunnerStats::to_json)
      .def("summary", &RunnerStats::summary)
      .def("__repr__", [](const RunnerStats& s) {
        return "<Stats num_prompt_tokens=" + std::to_string(s.num_prompt_tokens) +
               " num_generated_tokens=" + std::to_string(s.num_generated_tokens) + ">";
      });

  py::class_<PyTextLLMRunner>(llm, "TextLLMRunner")
      .def(py::init<const std::string&, const std::string&, const std::optional<std::string>&,
                    size_t>(),
           py::arg("model_path"), py::arg("tokenizer_path"), py::arg("data_path") = py::none(),
           py::arg("num_threads") = 0)
      .def("generate", &PyTextLLMRunner::generate, py::arg("prompt"), py::arg("config"),
           py::arg("token_callback") = py::none(), py::arg("stats_callback") = py::none())
      .def("prefill", &PyTextLLMRunner::prefill, py::arg("prompt"),
           py::arg("config") = GenerationConfig{})
      .def("warmup", &PyTextLLMRunner::warmup, py::arg("prompt"), py::arg("max_new_tokens"))
      .def("stop", &PyTextLLMRunner::stop)
      .def("reset", &PyTextLLMRunner::reset)
      .def("get_vocab_size", &PyTextLLMRunner::vocab_size)
      .def_property_readonly("position", &PyTextLLMRunner::position)
      .def_property_readonly("generated_ids", &PyTextLLMRunner::generated_ids)
      .def_property_readonly("prompt_ids", &PyTextLLMRunner::prompt_ids)
      .def_property_readonly("stats", &PyTextLLMRunner::stats)
      .def_property_readonly("metadata", &PyTextLLMRunner::metadata)
      .def("__repr__", [](const PyTextLLMRunner& r) {
        return "<TextLLMRunner position=" + std::to_string(r.position()) + ">";
      });
}
