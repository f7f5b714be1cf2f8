#include "extension/llm/sampler.h"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "runtime/core/error.h"

namespace etr {
namespace llm {

void Rng::reseed(uint64_t seed) {
  // splitmix64 spreads any seed (0 included) over the state; xorshift needs it nonzero.
  uint64_t z = seed + 0x9E3779B97F4A7C15ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  z ^= z >> 31;
  state_ = z != 0 ? z : 0x2545F4914F6CDD1Dull;
}

uint64_t Rng::next_u64() {
  state_ ^= state_ >> 12;
  state_ ^= state_ << 25;
  state_ ^= state_ >> 27;
  return state_ * 0x2545F4914F6CDD1Dull;
}

double Rng::next_double() {
  return static_cast<double>(next_u64() >> 11) * (1.0 / 9007199254740992.0);  // 2^-53
}

Sampler::Sampler(float temperature, float top_p, uint64_t seed)
    : temperature_(temperature), top_p_(top_p), rng_(seed) {}

size_t Sampler::argmax(const float* logits, size_t n) {
  size_t best = 0;
  for (size_t i = 1; i < n; ++i) {
    if (logits[i] > logits[best]) best = i;
  }
  return best;
}

Result<int64_t> Sampler::sample(const float* logits, size_t n) {
  ETR_CHECK_OR_FAIL(logits != nullptr && n > 0, Error::InvalidArgument,
                    "sampler: empty logits row");
  ETR_CHECK_OR_FAIL(n <= UINT32_MAX, Error::InvalidArgument, "sampler: %zu logits is too many", n);
  for (size_t i = 0; i < n; ++i) {
    ETR_CHECK_OR_FAIL(!std::isnan(logits[i]), Error::InvalidArgument, "sampler: logit %zu is NaN",
                      i);
  }
  ETR_CHECK_OR_FAIL(std::isfinite(temperature_) && temperature_ >= 0.0f, Error::InvalidArgument,
                    "sampler: temperature %g must be finite and >= 0",
                    static_cast<double>(temperature_));
  if (temperature_ == 0.0f) return static_cast<int64_t>(argmax(logits, n));
  ETR_CHECK_OR_FAIL(top_p_ > 0.0f && top_p_ <= 1.0f, Error::InvalidArgument,
                    "sampler: top_p %g must be in (0, 1]", static_cast<double>(top_p_));

  // Softmax of logits / temperature in double, shifted by the maximum.
  const double max_logit = logits[argmax(logits, n)];
  ETR_CHECK_OR_FAIL(std::isfinite(max_logit) || max_logit > 0, Error::InvalidArgument,
                    "sampler: every logit is -inf");
  probs_.resize(n);
  if (std::isinf(max_logit)) {
    // +inf logits share all the probability.
    for (size_t i = 0; i < n; ++i) probs_[i] = std::isinf(logits[i]) && logits[i] > 0 ? 1.0 : 0.0;
  } else {
    const double inv_t = 1.0 / static_cast<double>(temperature_);
    for (size_t i = 0; i < n; ++i) {
      probs_[i] = std::exp((static_cast<double>(logits[i]) - max_logit) * inv_t);
    }
  }
  double total = 0.0;
  for (size_t i = 0; i < n; ++i) total += probs_[i];

  if (top_p_ >= 1.0f) {
    // Draw over the whole row in index order.
    const double r = rng_.next_double() * total;
    double acc = 0.0;
    size_t last_nonzero = 0;
    for (size_t i = 0; i < n; ++i) {
      if (probs_[i] <= 0.0) continue;
      acc += probs_[i];
      last_nonzero = i;
      if (r < acc) return static_cast<int64_t>(i);
    }
    return static_cast<int64_t>(last_nonzero);  // rounding left r at the very top
  }

  // Nucleus: indices by descending probability (lower index first on ties),
  // cut after the cumulative probability reaches top_p.
  order_.resize(n);
  std::iota(order_.begin(), order_.end(), 0u);
  std::sort(order_.begin(), order_.end(), [&](uint32_t a, uint32_t b) {
    return probs_[a] > probs_[b] || (probs_[a] == probs_[b] && a < b);
  });
  const double cutoff = static_cast<double>(top_p_) * total;
  double kept = 0.0;
  size_t count = 0;
  while (count < n) {
    kept += probs_[order_[count]];
    ++count;
    if (kept >= cutoff) break;
  }
  const double r = rng_.next_double() * kept;
  double acc = 0.0;
  for (size_t k = 0; k < count; ++k) {
    acc += probs_[order_[k]];
    if (r < acc) return static_cast<int64_t>(order_[k]);
  }
  return static_cast<int64_t>(order_[count - 1]);
}

}  // namespace llm
}  // namespace etr
