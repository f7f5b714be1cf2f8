// llm_runner: runs an LLM exported by ExecuTorch's LLM exporter on a prompt
// of token ids (no tokenizer yet) and prints the generated ids and the stats.
//
//   llm_runner --model_path=llama.pte --prompt_tokens=1,5,9 --max_new_tokens=16
//              [--temperature=0.8 --top_p=0.9 --seed=42 --threads=0 --echo]
#include <cerrno>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "extension/llm/text_generator.h"
#include "runtime/core/error.h"

namespace {

void usage() {
  std::fprintf(stderr,
               "usage: llm_runner --model_path=F --prompt_tokens=ID,ID,... [--max_new_tokens=N]\n"
               "                  [--temperature=T] [--top_p=P] [--seed=S] [--threads=N] [--echo]\n"
               "  --max_new_tokens  tokens to generate; -1 (default): until EOS or a full context\n"
               "  --temperature     0: greedy; default 0.8\n"
               "  --top_p           nucleus sampling mass in (0, 1]; default 0.9\n"
               "  --seed            sampler seed; default 42\n"
               "  --threads         kernel threads; 0 (default): one per physical core\n"
               "  --echo            print the prompt ids before the generated ones\n");
}

// The value of "--name=value" in `arg`, or nullptr when `arg` is another flag.
const char* flag(const char* arg, const char* name) {
  const size_t n = std::strlen(name);
  if (std::strncmp(arg, name, n) != 0 || arg[n] != '=') return nullptr;
  return arg + n + 1;
}

bool parse_i64(const char* s, int64_t* out) {
  errno = 0;
  char* end = nullptr;
  const long long v = std::strtoll(s, &end, 10);
  if (errno != 0 || end == s || *end != '\0') return false;
  *out = v;
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

}  // namespace

int main(int argc, char** argv) {
  std::string model_path;
  std::vector<int64_t> prompt;
  etr::llm::GenerationConfig config;
  int64_t threads = 0;
  for (int i = 1; i < argc; ++i) {
    const char* a = argv[i];
    const char* v = nullptr;
    int64_t n = 0;
    bool ok = true;
    if (std::strcmp(a, "--help") == 0 || std::strcmp(a, "-h") == 0) {
      usage();
      return 0;
    } else if (std::strcmp(a, "--echo") == 0) {
      config.echo = true;
    } else if ((v = flag(a, "--model_path")) != nullptr) {
      model_path = v;
    } else if ((v = flag(a, "--prompt_tokens")) != nullptr) {
      ok = parse_tokens(v, &prompt);
    } else if ((v = flag(a, "--max_new_tokens")) != nullptr) {
      ok = parse_i64(v, &n) && n >= -1 && n <= INT32_MAX;
      config.max_new_tokens = static_cast<int32_t>(n);
    } else if ((v = flag(a, "--temperature")) != nullptr) {
      ok = parse_f(v, &config.temperature);
    } else if ((v = flag(a, "--top_p")) != nullptr) {
      ok = parse_f(v, &config.top_p);
    } else if ((v = flag(a, "--seed")) != nullptr) {
      ok = parse_i64(v, &n);
      config.seed = static_cast<uint64_t>(n);
    } else if ((v = flag(a, "--threads")) != nullptr) {
      ok = parse_i64(v, &threads) && threads >= 0;
    } else {
      std::fprintf(stderr, "llm_runner: unknown argument '%s'\n", a);
      usage();
      return 2;
    }
    if (!ok) {
      std::fprintf(stderr, "llm_runner: bad value in '%s'\n", a);
      return 2;
    }
  }
  if (model_path.empty() || prompt.empty()) {
    std::fprintf(stderr, "llm_runner: --model_path and --prompt_tokens are required\n");
    usage();
    return 2;
  }
  etr::ModuleOptions options;
  options.num_threads = static_cast<size_t>(threads);
  etr::llm::TextGenerator gen(model_path, options);
  etr::Error e = gen.load();
  if (e != etr::Error::Ok) {
    std::fprintf(stderr, "llm_runner: cannot load %s: %s\n", model_path.c_str(), etr::to_string(e));
    return 1;
  }
  bool first = true;
  e = gen.generate(prompt, config, [&](int64_t id) {
    std::printf(first ? "%" PRId64 : ",%" PRId64, id);
    std::fflush(stdout);
    first = false;
  });
  std::printf("\n");
  if (e != etr::Error::Ok) {
    std::fprintf(stderr, "llm_runner: generation failed: %s\n", etr::to_string(e));
    return 1;
  }
  std::printf("stats: %s\n", gen.stats().to_string().c_str());
  return 0;
}
