// Runs a .pte on one .npy input with etr::Module and compares output 0 with
// an expected .npy: embedding_example MODEL.pte INPUT.npy EXPECTED.npy
#include <cmath>
#include <cstdio>

#include "extension/module/module.h"
#include "extension/tensor/npy.h"

int main(int argc, char** argv) {
  if (argc != 4)
    return std::fprintf(stderr, "usage: %s MODEL.pte IN.npy EXPECTED.npy\n", argv[0]), 2;
  etr::Module module(argv[1]);
  auto outputs = module.forward({etr::read_npy(argv[2])});
  auto expected = etr::read_npy(argv[3]);
  if (!outputs.ok() || !expected.ok()) return std::fprintf(stderr, "run failed\n"), 1;
  const std::vector<float> got = (*outputs)[0].values<float>(), want = expected->values<float>();
  double worst = got.size() == want.size() ? 0.0 : INFINITY;
  for (size_t i = 0; i < got.size() && i < want.size(); ++i)
    worst = std::fmax(worst, std::fabs(got[i] - want[i]) - 1e-5 * std::fabs(want[i]));
  std::printf("%zu outputs, max excess error %g\n", outputs->size(), worst);
  return worst <= 1e-6 ? 0 : 1;
}
