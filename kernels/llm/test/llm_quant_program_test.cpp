// A Llama exported by ExecuTorch's own LLM exporter with the quantized KV
// cache (llm_quant_kv_llama.pte, written by make_llm_quant_programs.py:
// per-token int8 quantization of keys, values and query, llama::update_cache
// into int8 / scale / zero-point buffers, llama::custom_quantized_sdpa), run
// through etr::Module: three forward calls in a row against the eager
// model's logits (the exporter's own source transforms in PyTorch), each
// depending on the cache the earlier calls filled; a start_pos past the cache
// refused at execute without disturbing the cache.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "extension/module/module.h"
#include "kernels/llm/test/llm_quant_program_refs.h"

namespace etr {
namespace {

using testing::llm_quant_program_refs::kQuantKvNoSdpaSteps;
using testing::llm_quant_program_refs::kQuantKvRingSteps;
using testing::llm_quant_program_refs::kQuantKvSteps;
using testing::llm_quant_program_refs::Step;

struct Flavour {
  const char* file;
  const std::vector<Step>* steps;
  // A position where the first step's 5 tokens run past the context.
  int64_t past_context;
};

const Flavour kFlavours[] = {
    {"llm_quant_kv_llama.pte", &kQuantKvSteps, 12},
    {"llm_quant_kv_no_sdpa_llama.pte", &kQuantKvNoSdpaSteps, 12},
    {"llm_quant_kv_ring_llama.pte", &kQuantKvRingSteps, 28},
};

std::string program(const Flavour& f) {
  return std::string(ETR_SOURCE_DIR) + "/kernels/llm/test/" + f.file;
}

Result<std::vector<Value>> run_step(Module& m, const std::vector<int64_t>& tokens,
                                    int64_t input_pos) {
  return m.forward({make_tensor({1, static_cast<int32_t>(tokens.size())}, tokens),
                    make_tensor({1}, std::vector<int64_t>{input_pos})});
}

void expect_step(Module& m, const Step& s) {
  SCOPED_TRACE("input_pos " + std::to_string(s.input_pos));
  Result<std::vector<Value>> outs = run_step(m, s.tokens, s.input_pos);
  ASSERT_TRUE(outs.ok()) << to_string(outs.error());
  ASSERT_EQ(outs->size(), 1u);
  const std::vector<float> got = (*outs)[0].values<float>();
  ASSERT_EQ(got.size(), s.logits.size());
  for (size_t i = 0; i < got.size(); ++i) {
    EXPECT_LE(std::abs(got[i] - s.logits[i]), 1e-5 + 1e-5 * std::abs(s.logits[i])) << "logit " << i;
  }
}

TEST(LlmQuantizedKvProgramTest, PrefillThenDecodeMatchesEager) {
  for (const Flavour& f : kFlavours) {
    SCOPED_TRACE(f.file);
    ASSERT_GE(f.steps->size(), 3u);
    for (size_t threads : {size_t{1}, size_t{2}}) {
      SCOPED_TRACE("threads " + std::to_string(threads));
      ModuleOptions options;
      options.num_threads = threads;
      Module m(program(f), {}, options);
      for (const Step& s : *f.steps) expect_step(m, s);
    }
  }
}

TEST(LlmQuantizedKvProgramTest, DecodeWithoutTheCachedPrefillDiffers) {
  // The expected decode logits depend on the cache the prefill filled.
  for (const Flavour& f : kFlavours) {
    SCOPED_TRACE(f.file);
    Module m(program(f));
    const Step& s = (*f.steps)[1];
    Result<std::vector<Value>> outs = run_step(m, s.tokens, s.input_pos);
    ASSERT_TRUE(outs.ok()) << to_string(outs.error());
    const std::vector<float> got = (*outs)[0].values<float>();
    float diff = 0;
    for (size_t i = 0; i < got.size(); ++i) diff = std::max(diff, std::abs(got[i] - s.logits[i]));
    EXPECT_GT(diff, 1e-3f);
  }
}

TEST(LlmQuantizedKvProgramTest, StartPosPastTheContextFailsAndLeavesTheCache) {
  for (const Flavour& f : kFlavours) {
    SCOPED_TRACE(f.file);
    const std::vector<Step>& steps = *f.steps;
    Module m(program(f));
    expect_step(m, steps[0]);
    // 5 tokens running past the context, then a position far out.
    EXPECT_FALSE(run_step(m, steps[0].tokens, f.past_context).ok());
    EXPECT_FALSE(run_step(m, steps[1].tokens, int64_t{1} << 40).ok());
    // The refused calls wrote nothing the next steps read.
    for (size_t i = 1; i < steps.size(); ++i) expect_step(m, steps[i]);
  }
}

}  // namespace
}  // namespace etr
