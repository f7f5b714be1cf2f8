// Runs MODEL.pte on IN.npy through the official ExecuTorch Module API and
// compares output 0 with EXPECTED.npy (float32 .npy files): exit 0 on a match.
#include <executorch/extension/module/module.h>
#include <executorch/extension/tensor/tensor.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
#include <vector>

using namespace ::executorch::extension;
using ::executorch::aten::ScalarType;
using ::executorch::runtime::Error;

static std::vector<float> read_npy(const char* path) {  // little-endian float32, npy v1
  std::ifstream f(path, std::ios::binary);
  std::vector<char> b((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  const size_t data = b.size() < 10 ? b.size() : 10 + (uint8_t)b[8] + 256 * (uint8_t)b[9];
  std::vector<float> v((b.size() - std::min(data, b.size())) / sizeof(float));
  for (size_t i = 0; i < v.size(); ++i) std::memcpy(&v[i], &b[data + 4 * i], sizeof(float));
  return v;
}

int main(int argc, char** argv) {
  if (argc != 4)
    return std::fprintf(stderr, "usage: %s MODEL.pte IN.npy EXPECTED.npy\n", argv[0]), 2;
  Module module(argv[1]);
  if (module.load() != Error::Ok || !module.method_names()->count("forward")) return 1;
  const auto meta = module.method_meta("forward");
  if (!meta.ok() || meta->num_inputs() != 1) return 1;
  const auto in_meta = meta->input_tensor_meta(0);
  if (!in_meta.ok() || in_meta->scalar_type() != ScalarType::Float) return 1;
  std::vector<float> input = read_npy(argv[2]), expected = read_npy(argv[3]);
  const std::vector<executorch::aten::SizesType> sizes(in_meta->sizes().begin(),
                                                       in_meta->sizes().end());
  auto owned = make_tensor_ptr(sizes, input);      // copies input
  auto borrowed = from_blob(input.data(), sizes);  // wraps input
  const auto a = module.forward(owned), b = module.execute("forward", borrowed);
  if (!a.ok() || !b.ok())
    return std::fprintf(stderr, "error 0x%x\n", (unsigned)(a.ok() ? b.error() : a.error())), 1;
  double worst = 0;
  for (const auto* r : {&a, &b}) {
    const auto& out = r->get().at(0).toTensor();
    if (!r->get().at(0).isTensor() || (size_t)out.numel() != expected.size()) return 1;
    for (size_t i = 0; i < expected.size(); ++i)
      worst = std::fmax(worst, std::fabs(out.const_data_ptr<float>()[i] - expected[i]));
  }
  std::printf("max abs error %g over %zu outputs\n", worst, expected.size());
  return worst <= 1e-5 ? 0 : 1;
}
