// Sampler: picks the next token id from a row of logits.
//
//   etr::llm::Sampler s(/*temperature=*/0.8f, /*top_p=*/0.9f, /*seed=*/42);
//   Result<int64_t> id = s.sample(logits.data(), logits.size());
//
// Temperature 0 takes the argmax (the lowest index among equal maxima).
// Otherwise the logits are divided by the temperature and softmaxed; top-p
// keeps the smallest set of most likely tokens whose probabilities add up to
// at least top_p (top_p 1 keeps all), and one token is drawn from that set
// with the sampler's own random generator, so a seed gives the same tokens
// on every platform and standard library.
//
// Desktop extension: heap and standard library, no exceptions.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "runtime/core/result.h"

namespace etr {
namespace llm {

// A small seeded generator (xorshift64*, its state seeded through
// splitmix64) whose sequence depends on the seed alone.
class Rng final {
 public:
  explicit Rng(uint64_t seed = 0) { reseed(seed); }
  void reseed(uint64_t seed);
  uint64_t next_u64();
  // Uniform in [0, 1), 53 random bits.
  double next_double();

 private:
  uint64_t state_ = 1;
};

class Sampler final {
 public:
  Sampler(float temperature, float top_p, uint64_t seed);

  // The chosen token id. Fails with InvalidArgument for an empty row, a NaN
  // logit, a negative or non-finite temperature, a top_p outside (0, 1], or
  // (when sampling) a row whose logits are all minus infinity.
  [[nodiscard]] Result<int64_t> sample(const float* logits, size_t n);

  // Index of the largest value; the lowest index among equal maxima.
  static size_t argmax(const float* logits, size_t n);

  float temperature() const { return temperature_; }
  float top_p() const { return top_p_; }

 private:
  float temperature_;
  float top_p_;
  Rng rng_;
  std::vector<double> probs_;    // softmax of one row
  std::vector<uint32_t> order_;  // indices by probability, for top-p
};

}  // namespace llm
}  // namespace etr
