// The llm_runner CLI end to end (examples/llm_runner): greedy text from a
// text prompt is the eager reference's (test/models/llm/text_bos0.txt), the
// PyTorchObserver line and --stats_json parse, and every bad argument or file
// ends with one error line naming it and a nonzero exit code.
#include <gtest/gtest.h>

#include <sys/wait.h>

#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

// Built without the examples, there is no binary to run.
#ifdef ETR_LLM_RUNNER_BIN

namespace {

const std::string kDir = std::string(ETR_SOURCE_DIR) + "/test/models/llm/";

// A scratch file name no other test process uses (ctest runs them in parallel).
std::string scratch(const std::string& name) {
  static int counter = 0;
  return ::testing::TempDir() + "/etr_llm_cli_" + std::to_string(getpid()) + "_" +
         std::to_string(counter++) + "_" + name;
}

std::string read_text(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

struct Cli {
  int code = -1;
  std::string out;  // stdout
  std::string err;  // stderr
};

// Runs llm_runner with `args` (already shell-quoted).
Cli run_cli(const std::string& args) {
  const std::string err_path = scratch("stderr");
  const std::string cmd =
      std::string(ETR_TEST_EMULATOR) + " " + ETR_LLM_RUNNER_BIN + " " + args + " 2>" + err_path;
  Cli r;
  std::FILE* p = popen(cmd.c_str(), "r");
  if (p == nullptr) return r;
  char buf[4096];
  size_t n = 0;
  while ((n = std::fread(buf, 1, sizeof(buf), p)) > 0) r.out.append(buf, n);
  const int status = pclose(p);
  r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  r.err = read_text(err_path);
  std::remove(err_path.c_str());
  return r;
}

std::string model_args(const std::string& pte = "tiny_llama_portable.pte") {
  return "--model_path=" + kDir + pte + " --tokenizer_path=" + kDir + "tokenizer.json";
}

std::string line_starting(const std::string& text, const std::string& prefix) {
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    if (line.compare(0, prefix.size(), prefix) == 0) return line;
  }
  return "";
}

// Every exporter flavour (test/models/llm/export_llm_flavours.py): llm_runner
// prints exactly the text the OFFICIAL TextLLMRunner streamed for the same
// file, prompt and settings (refs/<flavour>_greedy_text.txt: one BOS, greedy,
// 16 new tokens at most).
TEST(LlmRunnerCliTest, EveryFlavourPrintsTheOfficialRunnersText) {
  struct Case {
    const char* flavour;
    bool xnnpack;
    bool ptd;
  };
  const Case cases[] = {
      {"portable", false, false},       {"kv_index_put", false, false},
      {"no_kv", false, false},          {"quantized_kv", false, false},
      {"xnnpack", true, false},         {"xnnpack_extended", true, false},
      {"external", true, true},         {"8da4w_g32_emb4", true, false},
      {"8da4w_g128_emb8", true, false}, {"attention_sink", false, false},
      {"bf16", false, false},           {"bf16_xnnpack", true, false},
      {"spinquant", true, false},       {"spinquant_h224", true, false},
  };
  for (const Case& c : cases) {
#if !ETR_LLM_TEST_HAS_XNNPACK
    if (c.xnnpack) continue;
#endif
    SCOPED_TRACE(c.flavour);
    const std::string name = std::string("tiny_llama_") + c.flavour;
    const std::string want = read_text(kDir + "refs/" + c.flavour + "_greedy_text.txt");
    ASSERT_FALSE(want.empty());
    std::string args = model_args(name + ".pte") +
                       " --prompt='Once upon a time' --num_bos=1 --max_new_tokens=16"
                       " --temperature=0 --threads=2";
    if (c.ptd) args += " --data_path=" + kDir + name + ".ptd";
    Cli r = run_cli(args);
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_EQ(r.out.substr(0, want.size() + 1), want + "\n");
  }
}

TEST(LlmRunnerCliTest, GreedyTextMatchesEager) {
  const std::string want = read_text(kDir + "text_bos0.txt");
  ASSERT_FALSE(want.empty());
  const std::string stats_path = scratch("stats.json");
  for (const char* pte : {
         "tiny_llama_portable.pte"
#if ETR_LLM_TEST_HAS_XNNPACK
             ,
             "tiny_llama_xnnpack.pte"
#endif
       }) {
    SCOPED_TRACE(pte);
    Cli r = run_cli(model_args(pte) +
                    " --prompt='Once upon a time' --temperature=0 --threads=1 --warmup"
                    " --stats_json=" +
                    stats_path);
    ASSERT_EQ(r.code, 0) << r.err;
    // The streamed text is the first line, then the stats lines.
    EXPECT_EQ(r.out.substr(0, r.out.find('\n')), want);
    const std::string observer = line_starting(r.out, "PyTorchObserver ");
    ASSERT_FALSE(observer.empty()) << r.out;
    nlohmann::json j = nlohmann::json::parse(observer.substr(16));
    EXPECT_EQ(j["prompt_tokens"], 12);
    EXPECT_EQ(j["generated_tokens"], 19);  // 20 tokens, counted after the first as the official
    EXPECT_EQ(j["SCALING_FACTOR_UNITS_PER_SECOND"], 1000);
    EXPECT_LE(j["inference_start_ms"].get<int64_t>(), j["inference_end_ms"].get<int64_t>());
    EXPECT_NE(line_starting(r.out, "stats: ").find("peak RSS"), std::string::npos) << r.out;
    nlohmann::json file = nlohmann::json::parse(read_text(stats_path));
    EXPECT_EQ(file["generated_tokens"], 19);
    EXPECT_EQ(file["prompt_tokens"], 12);
  }
  std::remove(stats_path.c_str());
}

TEST(LlmRunnerCliTest, EchoAndTokenIds) {
  Cli r = run_cli(model_args() +
                  " --prompt='Once upon a time' --temperature=0 --max_new_tokens=3 --echo");
  ASSERT_EQ(r.code, 0) << r.err;
  const std::string want = read_text(kDir + "text_bos0.txt");
  const std::string line = r.out.substr(0, r.out.find('\n'));
  ASSERT_GT(line.size(), 16u);
  EXPECT_EQ(line.substr(0, 16), "Once upon a time");
  // Then the first 3 generated tokens' text: a start of the reference text.
  EXPECT_EQ(want.compare(0, line.size() - 16, line.substr(16)), 0) << line;
  // --prompt_tokens: ids in and out, without a tokenizer.
  r = run_cli("--model_path=" + kDir +
              "tiny_llama_portable.pte --prompt_tokens=1,5,9,17,33 --temperature=0 "
              "--max_new_tokens=3");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out.substr(0, r.out.find('\n')), "44,46,114") << "greedy_tokens.npy starts so";
}

TEST(LlmRunnerCliTest, BadInputGivesOneLineNamingIt) {
  struct Case {
    std::string args;
    int code;
    const char* names;
  } cases[] = {
      {model_args() + " --prompt=x --bogus=1", 2, "--bogus"},
      {model_args() + " --prompt=x --temperature=abc", 2, "--temperature=abc"},
      {model_args() + " --prompt=x --top_p=1.5", 2, "--top_p=1.5"},
      {model_args() + " --prompt=x --max_new_tokens=-5", 2, "--max_new_tokens=-5"},
      {model_args() + " --prompt=x --threads=-7", 2, "--threads=-7"},
      {model_args(), 2, "--prompt"},
      {"--prompt=x", 2, "--model_path"},
      {"--model_path=" + kDir + "tiny_llama_portable.pte --prompt=x", 2, "--tokenizer_path"},
      {"--model_path=" + kDir + "nope.pte --tokenizer_path=" + kDir + "tokenizer.json --prompt=x",
       1, "nope.pte"},
      {"--model_path=" + kDir + "tiny_llama_portable.pte --tokenizer_path=" + kDir +
           "nope.json --prompt=x",
       1, "nope.json"},
      {model_args() + " --prompt=x --data_path=" + kDir + "nope.ptd", 1, "nope.ptd"},
      {"--model_path=" + kDir + "no_metadata_llm.pte --tokenizer_path=" + kDir +
           "tokenizer.json --prompt=x",
       1, "get_max_seq_len"},
      {model_args() + " --prompt='Once upon a time Once upon a time Once upon a time'", 1,
       "max_context_len"},
      {model_args() + " --prompt=x --stats_json=/nonexistent/dir/s.json", 1, "/nonexistent/dir"},
      {"--model_path=" + kDir + "tiny_llama_portable.pte --prompt_tokens=1,500", 1, "500"},
      {"--model_path=" + kDir + "tiny_llama_portable.pte --prompt_tokens=1 --stats_json=x", 2,
       "--stats_json"},
      {model_args() + " --prompt=x --prompt_tokens=1", 2, "--prompt_tokens"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.args);
    Cli r = run_cli(c.args);
    EXPECT_EQ(r.code, c.code) << r.err;
    const std::string line = line_starting(r.err, "llm_runner: error: ");
    ASSERT_FALSE(line.empty()) << r.err;
    EXPECT_NE(line.find(c.names), std::string::npos) << line;
  }
}

}  // namespace

#endif  // ETR_LLM_RUNNER_BIN
