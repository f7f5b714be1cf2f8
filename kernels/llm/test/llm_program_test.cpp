// An exported program that keeps a KV cache the way ExecuTorch 1.5 LLM
// exports do (llm_kv_attention.pte, written by make_llm_program.py):
// llama::update_cache on two mutable buffers, then llama::custom_sdpa over
// them, start_pos from a Long input, dynamic sequence length. Run through
// etr::Module (which registers the LLM library), three calls in a row
// against PyTorch's eager outputs, each depending on the cache the earlier
// calls filled; and a start_pos past the cache refused at execute.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "extension/module/module.h"
#include "kernels/llm/test/llm_program_refs.h"

namespace etr {
namespace {

using testing::llm_program_refs::kSteps;
using testing::llm_program_refs::Step;

const std::string kProgram = std::string(ETR_SOURCE_DIR) + "/kernels/llm/test/llm_kv_attention.pte";

Result<std::vector<Value>> run_step(Module& m, const Step& s, int64_t input_pos) {
  return m.forward({make_tensor(s.q_sizes, s.q), make_tensor(s.kv_sizes, s.k),
                    make_tensor(s.kv_sizes, s.v),
                    make_tensor({1}, std::vector<int64_t>{input_pos})});
}

void expect_step(Module& m, const Step& s) {
  SCOPED_TRACE("input_pos " + std::to_string(s.input_pos));
  Result<std::vector<Value>> outs = run_step(m, s, s.input_pos);
  ASSERT_TRUE(outs.ok()) << to_string(outs.error());
  ASSERT_EQ(outs->size(), 1u);
  const Tensor& out = (*outs)[0].tensor();
  ASSERT_EQ(out.dim(), 4u);
  for (size_t d = 0; d < 4; ++d) EXPECT_EQ(out.size(d), s.q_sizes[d]) << "dim " << d;
  const std::vector<float> got = (*outs)[0].values<float>();
  ASSERT_EQ(got.size(), s.out.size());
  for (size_t i = 0; i < got.size(); ++i) {
    EXPECT_LE(std::abs(got[i] - s.out[i]), 2e-6 + 1e-5 * std::abs(s.out[i])) << "element " << i;
  }
}

TEST(LlmProgramTest, PrefillThenDecodeCarriesTheCache) {
  for (size_t threads : {size_t{1}, size_t{2}}) {
    SCOPED_TRACE("threads " + std::to_string(threads));
    ModuleOptions options;
    options.num_threads = threads;
    Module m(kProgram, {}, options);
    ASSERT_EQ(kSteps.size(), 3u);
    for (const Step& s : kSteps) expect_step(m, s);
  }
}

TEST(LlmProgramTest, DecodeWithoutTheCachedPrefillDiffers) {
  // The decode step alone (cache positions 0..4 never written by this
  // Module) does not give the eager value: the expected outputs depend on the
  // cache, so the test above checks that state is carried.
  Module m(kProgram);
  Result<std::vector<Value>> outs = run_step(m, kSteps[1], kSteps[1].input_pos);
  ASSERT_TRUE(outs.ok());
  EXPECT_NE((*outs)[0].values<float>(), kSteps[1].out);
}

TEST(LlmProgramTest, StartPosPastTheCacheFailsExecute) {
  Module m(kProgram);
  // 5 tokens at position 12 of a 16-position cache.
  Result<std::vector<Value>> outs = run_step(m, kSteps[0], 12);
  EXPECT_FALSE(outs.ok());
}

}  // namespace
}  // namespace etr
