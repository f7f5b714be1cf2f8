// llm_runner: generates text with an LLM exported by ExecuTorch's LLM
// exporter, streaming it as it is generated, then prints the official
// runner's `PyTorchObserver {...}` stats line and our own summary.
//
//   llm_runner --model_path=llama.pte --tokenizer_path=tokenizer.json --prompt="Once upon"
//              [--max_new_tokens=N --seq_len=N --temperature=T --top_p=P --seed=S
//               --threads=N (or --cpu_threads=N) --data_path=F.ptd --warmup --echo
//               --num_bos=N --num_eos=N --stats_json=FILE --verbose]
//   llm_runner --model_path=llama.pte --prompt_tokens=1,5,9 ...   (token ids in and out)
//
// Every bad argument or file ends the run with one line on stderr naming it
// ("llm_runner: error: ...") and exit code 2 (arguments) or 1 (files,
// generation).
#include <cerrno>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#if defined(ETR_HAVE_VULKAN)
#include "backends/vulkan/vulkan_backend.h"
#include "runtime/backend/backend.h"
#endif
#include "extension/llm/stats.h"
#include "extension/llm/text_generator.h"
#if ETR_LLM_RUNNER_HAS_TEXT
#include "extension/llm/text_llm_runner.h"
#endif
#include "runtime/core/error.h"
#include "runtime/platform/platform.h"

namespace {

constexpr int kExitUsage = 2;
constexpr int kExitFailed = 1;

void usage() {
  std::fprintf(
      stderr,
      "usage: llm_runner --model_path=F --tokenizer_path=F --prompt=TEXT [options]\n"
      "       llm_runner --model_path=F --prompt_tokens=ID,ID,... [options]\n"
      "  --data_path=F        .ptd file with the model's external weights\n"
      "  --max_new_tokens=N   tokens to generate; -1 (default): as many as the context allows\n"
      "  --seq_len=N          most tokens in the context, prompt included; -1 (default): all\n"
      "  --temperature=T      0: greedy; default 0.8\n"
      "  --top_p=P            nucleus sampling mass in (0, 1]; default 0.9\n"
      "  --seed=S             sampler seed; default 42\n"
      "  --threads=N          kernel threads (also --cpu_threads); 0 or -1 (default): one per\n"
      "                       physical core\n"
      "  --num_bos=N          BOS tokens before the prompt (default 0, as the official runner)\n"
      "  --num_eos=N          EOS tokens after the prompt (default 0)\n"
      "  --warmup             one generation first, not printed, then reset\n"
      "  --echo               print the prompt before the generated text\n"
      "  --stats_json=FILE    write the stats JSON (the PyTorchObserver object) to FILE\n"
      "  --verbose            print the runtime's log\n");
}

bool g_verbose = false;
std::string g_errors;  // the Error messages logged since the last reset, joined by "; "

void log_hook(etr::LogLevel level, const char* file, int line, const char* message) {
  const char* text = message != nullptr ? message : "";
  if (level == etr::LogLevel::Error) {
    if (!g_errors.empty()) g_errors += "; ";
    g_errors += text;
  }
  // Our own notices (e.g. max_new_tokens lowered) always; the rest with --verbose.
  if (g_verbose) {
    std::fprintf(stderr, "%c %s:%d] %s\n", "DIE"[static_cast<int>(level) % 3],
                 file != nullptr ? file : "?", line, text);
  } else if (level == etr::LogLevel::Info && std::strncmp(text, "llm: ", 5) == 0) {
    std::fprintf(stderr, "llm_runner: %s\n", text + 5);
  }
}

int fail(int code, const std::string& what, const char* error = nullptr) {
  std::string line = "llm_runner: error: " + what;
  if (error != nullptr) line += std::string(" (") + error + ")";
  if (!g_errors.empty() && !g_verbose) line += ": " + g_errors;
  for (char& c : line) {
    if (c == '\n') c = ' ';
  }
  std::fprintf(stderr, "%s\n", line.c_str());
  return code;
}

// The value of "--name=value" in `arg`, or nullptr when `arg` is another flag.
const char* flag(const char* arg, const char* name) {
  const size_t n = std::strlen(name);
  if (std::strncmp(arg, name, n) != 0 || arg[n] != '=') return nullptr;
  return arg + n + 1;
}

// "--name" alone or "--name=true/false/1/0".
bool bool_flag(const char* arg, const char* name, bool* out, bool* ok) {
  if (std::strcmp(arg, name) == 0) {
    *out = true;
    return true;
  }
  const char* v = flag(arg, name);
  if (v == nullptr) return false;
  if (std::strcmp(v, "true") == 0 || std::strcmp(v, "1") == 0) {
    *out = true;
  } else if (std::strcmp(v, "false") == 0 || std::strcmp(v, "0") == 0) {
    *out = false;
  } else {
    *ok = false;
  }
  return true;
}

bool parse_i64(const char* s, int64_t* out) {
  errno = 0;
  char* end = nullptr;
  const long long v = std::strtoll(s, &end, 10);
  if (errno != 0 || end == s || *end != '\0') return false;
  *out = v;
  return true;
}

bool parse_i32(const char* s, int64_t lo, int32_t* out) {
  int64_t v = 0;
  if (!parse_i64(s, &v) || v < lo || v > INT32_MAX) return false;
  *out = static_cast<int32_t>(v);
  return true;
}

bool parse_f(const char* s, float* out) {
  errno = 0;
  char* end = nullptr;
  const float v = std::strtof(s, &end);
  if (errno != 0 || end == s || *end != '\0') return false;
  *out = v;
  return true;
}

bool parse_tokens(const char* s, std::vector<int64_t>* out) {
  std::string item;
  for (const char* p = s;; ++p) {
    if (*p == ',' || *p == '\0') {
      int64_t v = 0;
      if (!parse_i64(item.c_str(), &v)) return false;
      out->push_back(v);
      item.clear();
      if (*p == '\0') return true;
    } else {
      item.push_back(*p);
    }
  }
}

struct Args {
  std::string model_path;
  std::string tokenizer_path;
  std::string data_path;
  std::string prompt;
  bool has_prompt = false;
  std::vector<int64_t> prompt_tokens;
  std::string stats_json;
  etr::llm::GenerationConfig config;
  int64_t threads = 0;
  bool warmup = false;
};

// Parses argv into `a`; returns -1 to go on, else the exit code.
int parse_args(int argc, char** argv, Args* a) {
  a->config.echo = false;
  for (int i = 1; i < argc; ++i) {
    const char* arg = argv[i];
    const char* v = nullptr;
    bool ok = true;
    if (std::strcmp(arg, "--help") == 0 || std::strcmp(arg, "-h") == 0) {
      usage();
      return 0;
    } else if (bool_flag(arg, "--echo", &a->config.echo, &ok) ||
               bool_flag(arg, "--warmup", &a->warmup, &ok) ||
               bool_flag(arg, "--verbose", &g_verbose, &ok)) {
    } else if ((v = flag(arg, "--model_path")) != nullptr) {
      a->model_path = v;
    } else if ((v = flag(arg, "--tokenizer_path")) != nullptr) {
      a->tokenizer_path = v;
    } else if ((v = flag(arg, "--data_path")) != nullptr) {
      a->data_path = v;
    } else if ((v = flag(arg, "--prompt")) != nullptr) {
      a->prompt = v;
      a->has_prompt = true;
    } else if ((v = flag(arg, "--prompt_tokens")) != nullptr) {
      ok = parse_tokens(v, &a->prompt_tokens);
    } else if ((v = flag(arg, "--stats_json")) != nullptr) {
      a->stats_json = v;
      ok = !a->stats_json.empty();
    } else if ((v = flag(arg, "--max_new_tokens")) != nullptr) {
      ok = parse_i32(v, -1, &a->config.max_new_tokens);
    } else if ((v = flag(arg, "--seq_len")) != nullptr) {
      ok = parse_i32(v, -1, &a->config.seq_len);
    } else if ((v = flag(arg, "--num_bos")) != nullptr) {
      ok = parse_i32(v, 0, &a->config.num_bos);
    } else if ((v = flag(arg, "--num_eos")) != nullptr) {
      ok = parse_i32(v, 0, &a->config.num_eos);
    } else if ((v = flag(arg, "--temperature")) != nullptr) {
      ok = parse_f(v, &a->config.temperature) && a->config.temperature >= 0 &&
           a->config.temperature < 1e30f;
    } else if ((v = flag(arg, "--top_p")) != nullptr) {
      ok = parse_f(v, &a->config.top_p) && a->config.top_p > 0 && a->config.top_p <= 1;
    } else if ((v = flag(arg, "--seed")) != nullptr) {
      int64_t n = 0;
      ok = parse_i64(v, &n);
      a->config.seed = static_cast<uint64_t>(n);
    } else if ((v = flag(arg, "--threads")) != nullptr ||
               (v = flag(arg, "--cpu_threads")) != nullptr) {
      ok = parse_i64(v, &a->threads) && a->threads >= -1 && a->threads <= 4096;
      if (a->threads < 0) a->threads = 0;
    } else {
      usage();
      return fail(kExitUsage, std::string("unknown argument '") + arg + "'");
    }
    if (!ok) return fail(kExitUsage, std::string("bad value in '") + arg + "'");
  }
  if (a->model_path.empty()) return fail(kExitUsage, "--model_path is required");
  if (!a->prompt_tokens.empty() && a->has_prompt) {
    return fail(kExitUsage, "give --prompt or --prompt_tokens, not both");
  }
  if (!a->prompt_tokens.empty() && (!a->stats_json.empty() || a->warmup)) {
    return fail(kExitUsage, "--stats_json and --warmup need a text --prompt, not --prompt_tokens");
  }
  if (a->prompt_tokens.empty()) {
    if (!a->has_prompt) return fail(kExitUsage, "--prompt (or --prompt_tokens) is required");
    if (a->tokenizer_path.empty()) return fail(kExitUsage, "--prompt needs --tokenizer_path");
  }
  return -1;
}

int write_stats_json(const std::string& path, const etr::llm::RunnerStats& stats) {
  std::FILE* f = std::fopen(path.c_str(), "w");
  if (f == nullptr) {
    return fail(kExitFailed, "cannot write --stats_json file '" + path + "'", std::strerror(errno));
  }
  const std::string json = stats.to_json();
  const bool ok = std::fprintf(f, "%s\n", json.c_str()) > 0;
  if (std::fclose(f) != 0 || !ok) {
    return fail(kExitFailed, "cannot write --stats_json file '" + path + "'");
  }
  return 0;
}

// Token ids in, token ids out (no tokenizer).
int run_ids(const Args& a, const etr::ModuleOptions& options) {
  std::vector<std::string> data;
  if (!a.data_path.empty()) data.push_back(a.data_path);
  etr::llm::TextGenerator gen(a.model_path, options, data);
  etr::Error e = gen.load();
  if (e != etr::Error::Ok) {
    return fail(kExitFailed, "cannot load '" + a.model_path + "'", etr::to_string(e));
  }
  bool first = true;
  e = gen.generate(a.prompt_tokens, a.config, [&](int64_t id) {
    std::printf(first ? "%" PRId64 : ",%" PRId64, id);
    std::fflush(stdout);
    first = false;
  });
  std::printf("\n");
  if (e != etr::Error::Ok) return fail(kExitFailed, "generation failed", etr::to_string(e));
  std::printf("stats: %s\n", gen.stats().to_string().c_str());
  return 0;
}

int run_text(const Args& a, const etr::ModuleOptions& options) {
#if !ETR_LLM_RUNNER_HAS_TEXT
  (void)a;
  (void)options;
  (void)write_stats_json;
  return fail(kExitFailed,
              "--prompt needs the tokenizers, which this build lacks (nlohmann-json, "
              "PCRE2); use --prompt_tokens");
#else
  etr::llm::TextLLMRunner runner(a.model_path, a.tokenizer_path, a.data_path, options);
  etr::Error e = runner.load();
  if (e != etr::Error::Ok) return fail(kExitFailed, "cannot load the model", etr::to_string(e));
  if (a.warmup) {
    e = runner.warmup(a.prompt, a.config.max_new_tokens);
    if (e != etr::Error::Ok) return fail(kExitFailed, "warmup failed", etr::to_string(e));
  }
  g_errors.clear();
  e = runner.generate(a.prompt, a.config, [](const std::string& piece) {
    std::fwrite(piece.data(), 1, piece.size(), stdout);
    std::fflush(stdout);
  });
  std::printf("\n");
  if (e != etr::Error::Ok) return fail(kExitFailed, "generation failed", etr::to_string(e));
  const etr::llm::RunnerStats& stats = runner.stats();
  std::printf("PyTorchObserver %s\n", stats.to_json().c_str());
  std::printf("stats: %s\n", stats.summary().c_str());
  std::fflush(stdout);
  if (!a.stats_json.empty()) return write_stats_json(a.stats_json, stats);
  return 0;
#endif
}

}  // namespace

int main(int argc, char** argv) {
  etr::PlatformHooks hooks = etr::platform_hooks();
  hooks.log = &log_hook;
  etr::set_platform_hooks(hooks);
  Args a;
  const int rc = parse_args(argc, argv, &a);
  if (rc >= 0) return rc;
#if defined(ETR_HAVE_VULKAN)
  // Module's built-in backends are XNNPACK's; the Vulkan delegate joins the
  // default registry here (its device is made only when a program has one).
  if (etr::find_backend("VulkanBackend") == nullptr) {
    const etr::Error err = etr::register_vulkan_backend();
    if (err != etr::Error::Ok) {
      std::fprintf(stderr, "llm_runner: error: cannot register the Vulkan backend: %s\n",
                   etr::to_string(err));
      return 1;
    }
  }
#endif
  etr::ModuleOptions options;
  options.num_threads = static_cast<size_t>(a.threads);
  return a.prompt_tokens.empty() ? run_text(a, options) : run_ids(a, options);
}
