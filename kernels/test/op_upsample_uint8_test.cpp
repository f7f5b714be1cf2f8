// uint8 aten::upsample_bilinear2d.vec_out and aten::_upsample_bilinear2d_aa.out:
// PyTorch's separable fixed-point path, compared byte for byte. Expected
// values: torch 2.15.0 eager on CPU, the torch.ops.aten call written above
// each case; inputs are torch.randint(0, 256, shape, dtype=torch.uint8) after
// the torch.manual_seed(...) named with them.
#include <optional>

#include "kernels/test/kernel_test_util.h"
#include "kernels/test/layout_test_util.h"

namespace etr {
namespace testing {
namespace {

// torch.manual_seed(0); x: [1, 2, 3, 4]
const std::vector<uint8_t> kX = {172, 47, 117, 192, 67, 251, 195, 103, 9,   211, 21, 242,
                                 36,  87, 70,  216, 88, 140, 58,  193, 230, 39,  87, 174};
// torch.manual_seed(1); x5: [1, 2, 5, 7]
const std::vector<uint8_t> kX5 = {
    37,  235, 140, 72,  255, 137, 203, 133, 79,  192, 144, 129, 204, 71,  237, 252, 134, 25,
    178, 20,  254, 101, 146, 212, 139, 252, 234, 156, 157, 142, 50,  68,  215, 215, 233, 241,
    247, 222, 96,  86,  141, 233, 137, 7,   63,  61,  22,  57,  1,   128, 60,  209, 8,   216,
    141, 115, 175, 234, 121, 200, 30,  71,  131, 198, 149, 49,  57,  3,   196, 24};
// torch.manual_seed(2); xc: [2, 3, 4, 5]
const std::vector<uint8_t> kXc = {
    168, 15,  237, 72,  22,  43,  210, 75,  104, 7,   162, 177, 95,  75,  213, 47,  63,  31,
    218, 148, 124, 116, 37,  167, 195, 102, 4,   170, 107, 51,  103, 38,  234, 33,  58,  124,
    255, 67,  69,  88,  196, 46,  198, 95,  211, 121, 31,  194, 80,  52,  238, 204, 50,  132,
    218, 63,  207, 49,  39,  255, 174, 136, 178, 237, 250, 15,  233, 237, 136, 247, 145, 150,
    248, 250, 117, 73,  185, 105, 110, 252, 218, 190, 83,  96,  43,  32,  26,  242, 136, 76,
    254, 138, 40,  34,  60,  137, 246, 229, 70,  86,  198, 19,  56,  210, 129, 68,  168, 81,
    61,  198, 249, 125, 229, 97,  146, 212, 218, 87,  150, 43};

struct U8Case {
  const char* name;
  bool aa;
  const std::vector<uint8_t>* x;
  std::vector<int32_t> in_shape;
  std::vector<int64_t> size;   // output_size (bilinear: empty means None)
  std::vector<double> scales;  // bilinear scale_factors / aa (scale_h, scale_w); empty: None
  bool align_corners;
  std::vector<uint8_t> dim_order;  // of input and out (empty: contiguous)
  std::vector<int32_t> out_shape;
  std::vector<uint8_t> expected;  // logical (row-major) order
};

const U8Case kCases[] = {
    // torch.ops.aten.upsample_bilinear2d.vec(x, [5, 7], False, None)
    {"up",
     false,
     &kX,
     {1, 2, 3, 4},
     {5, 7},
     {},
     false,
     {},
     {1, 2, 5, 7},
     {172, 127, 56,  82,  122, 165, 192, 130, 129, 129, 138, 148, 153, 156, 67,  133, 238, 223,
      188, 136, 103, 32,  102, 213, 159, 97,  152, 186, 9,   81,  197, 116, 37,  163, 242, 36,
      54,  83,  79,  80,  164, 216, 57,  75,  104, 87,  75,  156, 207, 88,  107, 136, 99,  68,
      145, 193, 173, 140, 86,  77,  83,  144, 182, 230, 162, 53,  63,  93,  143, 174}},
    // torch.ops.aten.upsample_bilinear2d.vec(x, [5, 7], True, None)
    {"up_align",
     false,
     &kX,
     {1, 2, 3, 4},
     {5, 7},
     {},
     true,
     {},
     {1, 2, 5, 7},
     {172, 110, 47,  82,  117, 155, 192, 120, 135, 149, 153, 156, 152, 148, 67,  159, 251, 223,
      195, 149, 103, 38,  135, 231, 170, 108, 141, 173, 9,   110, 211, 116, 21,  132, 242, 36,
      62,  87,  79,  70,  143, 216, 62,  88,  114, 89,  64,  135, 205, 88,  114, 140, 99,  58,
      126, 193, 159, 125, 90,  81,  73,  129, 184, 230, 135, 39,  63,  87,  131, 174}},
    // torch.ops.aten.upsample_bilinear2d.vec(x, [3, 6], False, None): width only
    {"width_only",
     false,
     &kX,
     {1, 2, 3, 4},
     {3, 6},
     {},
     false,
     {},
     {1, 2, 3, 6},
     {172, 110, 59, 105, 155, 192, 67, 159, 242, 204, 149, 103, 9,   110, 179, 53, 132, 242,
      36,  62,  84, 73,  143, 216, 88, 114, 126, 72,  126, 193, 230, 135, 47,  79, 131, 174}},
    // torch.ops.aten.upsample_bilinear2d.vec(x, [5, 4], True, None): height only
    {"height_only_align",
     false,
     &kX,
     {1, 2, 3, 4},
     {5, 4},
     {},
     true,
     {},
     {1, 2, 5, 4},
     {172, 47,  117, 192, 120, 149, 156, 148, 67,  251, 195, 103, 38, 231,
      108, 173, 9,   211, 21,  242, 36,  87,  70,  216, 62,  114, 64, 205,
      88,  140, 58,  193, 159, 90,  73,  184, 230, 39,  87,  174}},
    // torch.ops.aten.upsample_bilinear2d.vec(x5, None, False, [0.6, 0.45]): down, scale factors
    {"down_scales",
     false,
     &kX5,
     {1, 2, 5, 7},
     {},
     {0.6, 0.45},
     false,
     {},
     {1, 2, 3, 3},
     {139, 106, 160, 246, 43, 33, 142, 94, 221, 183, 98, 115, 86, 41, 140, 182, 100, 149}},
    // torch.ops.aten.upsample_bilinear2d.vec(x5, [2, 3], True, None)
    {"down_align",
     false,
     &kX5,
     {1, 2, 5, 7},
     {2, 3},
     {},
     true,
     {},
     {1, 2, 2, 3},
     {37, 72, 203, 157, 68, 233, 241, 96, 233, 198, 57, 24}},
    // torch.ops.aten._upsample_bilinear2d_aa(x5, [2, 3], False)
    {"aa_down",
     true,
     &kX5,
     {1, 2, 5, 7},
     {2, 3},
     {},
     false,
     {},
     {1, 2, 2, 3},
     {153, 139, 157, 155, 142, 194, 138, 95, 101, 153, 102, 99}},
    // torch.ops.aten._upsample_bilinear2d_aa(x5, [2, 3], True)
    {"aa_down_align",
     true,
     &kX5,
     {1, 2, 5, 7},
     {2, 3},
     {},
     true,
     {},
     {1, 2, 2, 3},
     {149, 156, 168, 134, 174, 206, 133, 97, 104, 144, 84, 96}},
    // torch.ops.aten._upsample_bilinear2d_aa(x5, [3, 2], False, 0.6, 0.3)
    {"aa_scales",
     true,
     &kX5,
     {1, 2, 5, 7},
     {3, 2},
     {0.6, 0.3},
     false,
     {},
     {1, 2, 3, 2},
     {138, 160, 164, 143, 132, 190, 144, 97, 115, 107, 140, 84}},
    // torch.ops.aten._upsample_bilinear2d_aa(x5, [6, 9], False): up (the plain triangle)
    {"aa_up",
     true,
     &kX5,
     {1, 2, 5, 7},
     {6, 9},
     {},
     false,
     {},
     {1, 2, 6, 9},
     {37,  169, 193, 125, 72,  214, 189, 159, 203, 109, 115, 145, 167, 126, 153, 176, 160, 104,
      194, 184, 170, 140, 75,  139, 124, 124, 178, 180, 199, 190, 146, 73,  179, 153, 144, 213,
      115, 135, 157, 161, 121, 216, 235, 211, 175, 157, 147, 101, 54,  68,  182, 215, 221, 233,
      241, 245, 236, 194, 96,  88,  117, 172, 233, 163, 99,  83,  96,  70,  45,  60,  72,  59,
      132, 69,  87,  122, 30,  112, 119, 93,  67,  148, 138, 150, 154, 88,  127, 124, 115, 122,
      181, 202, 164, 117, 164, 55,  67,  103, 104, 198, 165, 105, 51,  57,  15,  110, 139, 24}},
    // torch.ops.aten.upsample_bilinear2d.vec(xc.contiguous(memory_format=torch.channels_last),
    //   [6, 3], False, None): channels-last in and out, batch 2, 3 channels
    {"channels_last",
     false,
     &kXc,
     {2, 3, 4, 5},
     {6, 3},
     {},
     false,
     kChannelsLast,
     {2, 3, 6, 3},
     {117, 237, 39,  108, 156, 39,  110, 78,  60,  156, 92,  146, 110, 63,  169, 52,  31,  171,
      121, 37,  186, 95,  104, 128, 71,  181, 67,  79,  223, 53,  125, 151, 66,  168, 67,  82,
      146, 198, 172, 119, 196, 117, 114, 170, 82,  204, 74,  168, 169, 50,  186, 111, 49,  183,
      161, 178, 246, 125, 208, 228, 98,  239, 202, 137, 246, 169, 129, 177, 183, 110, 105, 205,
      209, 83,  61,  120, 163, 79,  61,  208, 88,  184, 74,  59,  194, 135, 66,  173, 229, 81,
      138, 56,  156, 120, 69,  154, 119, 106, 148, 190, 204, 134, 211, 158, 105, 214, 87,  79}},
    // torch.ops.aten._upsample_bilinear2d_aa(xc.contiguous(memory_format=torch.channels_last),
    //   [3, 2], True)
    {"aa_channels_last",
     true,
     &kXc,
     {2, 3, 4, 5},
     {3, 2},
     {},
     true,
     kChannelsLast,
     {2, 3, 3, 2},
     {108, 57,  121, 119, 98,  157, 105, 136, 101, 75, 125, 77, 126, 136, 135, 138, 121, 162,
      182, 227, 179, 188, 146, 186, 125, 83,  114, 76, 160, 89, 109, 145, 149, 133, 154, 93}},
};

Error run_u8(const U8Case& c, HostTensor& input, HostTensor& out) {
  KernelRunner r;
  if (c.aa) {
    EValue* sh = c.scales.empty() ? r.none() : r.d(c.scales[0]);
    EValue* sw = c.scales.empty() ? r.none() : r.d(c.scales[1]);
    return r.run(
        "aten::_upsample_bilinear2d_aa.out",
        {r.tensor(input), r.int_list(c.size), r.b(c.align_corners), sh, sw, r.tensor(out)});
  }
  EValue* size = c.size.empty() ? r.none() : r.int_list(c.size);
  EValue* scales = c.scales.empty() ? r.none() : r.double_list(c.scales);
  return r.run("aten::upsample_bilinear2d.vec_out",
               {r.tensor(input), size, r.b(c.align_corners), scales, r.tensor(out)});
}

TEST(OpUpsampleUint8Test, MatchesTorchBytes) {
  for (const U8Case& c : kCases) {
    SCOPED_TRACE(c.name);
    HostTensor x = make_in_order<uint8_t>(c.in_shape, *c.x, c.dim_order);
    HostTensor out = zeros_in_order(ScalarType::Byte, c.out_shape, c.dim_order);
    ASSERT_EQ(run_u8(c, x, out), Error::Ok);
    EXPECT_EQ(std::vector<int32_t>(out.tensor().sizes().begin(), out.tensor().sizes().end()),
              c.out_shape);
    EXPECT_TRUE(c.dim_order.empty() || has_dim_order(out, c.dim_order));
    EXPECT_EQ(logical_values<uint8_t>(out), c.expected);
  }
}

// The result does not depend on the layouts: a contiguous input into a
// channels-last out, and a channels-last input into a contiguous out.
TEST(OpUpsampleUint8Test, MixedLayouts) {
  const U8Case& c = kCases[0];  // up: [1, 2, 3, 4] -> [5, 7]
  for (int k = 0; k < 2; ++k) {
    HostTensor x =
        make_in_order<uint8_t>(c.in_shape, *c.x, k == 0 ? std::vector<uint8_t>{} : kChannelsLast);
    HostTensor out = zeros_in_order(ScalarType::Byte, c.out_shape,
                                    k == 0 ? kChannelsLast : std::vector<uint8_t>{});
    ASSERT_EQ(run_u8(c, x, out), Error::Ok);
    EXPECT_EQ(logical_values<uint8_t>(out), c.expected);
  }
}

// Equal sizes copy the input, whatever the scale factors say (PyTorch skips
// a dim whose size does not change).
TEST(OpUpsampleUint8Test, SameSizeCopies) {
  HostTensor x = make_tensor<uint8_t>({1, 2, 3, 4}, kX);
  HostTensor out = zeros_tensor(ScalarType::Byte, {1, 2, 3, 4});
  KernelRunner r;
  // torch.ops.aten.upsample_bilinear2d.vec(x, None, False, [1.2, 1.1]) == x
  ASSERT_EQ(r.run("aten::upsample_bilinear2d.vec_out",
                  {r.tensor(x), r.none(), r.b(false), r.double_list({1.2, 1.1}), r.tensor(out)}),
            Error::Ok);
  EXPECT_EQ(out.values<uint8_t>(), kX);
}

TEST(OpUpsampleUint8Test, RefusesBadArguments) {
  HostTensor x = make_tensor<uint8_t>({1, 2, 3, 4}, kX);
  {  // a Byte input into a Float out
    HostTensor of = zeros_tensor(ScalarType::Float, {1, 2, 5, 7});
    KernelRunner r;
    EXPECT_NE(r.prepare("aten::upsample_bilinear2d.vec_out",
                        {r.tensor(x), r.int_list({5, 7}), r.b(false), r.none(), r.tensor(of)}),
              Error::Ok);
  }
  {  // int8 is not resampled by PyTorch either
    HostTensor xi = make_tensor<int8_t>({1, 1, 2, 2}, {1, 2, 3, 4});
    HostTensor oi = zeros_tensor(ScalarType::Char, {1, 1, 4, 4});
    KernelRunner r;
    EXPECT_EQ(
        r.prepare("aten::_upsample_bilinear2d_aa.out",
                  {r.tensor(xi), r.int_list({4, 4}), r.b(false), r.none(), r.none(), r.tensor(oi)}),
        Error::InvalidType);
  }
  HostTensor out = zeros_tensor(ScalarType::Byte, {1, 2, 8, 8});
  {  // a denormal scale: an infinite step
    KernelRunner r;
    EXPECT_EQ(
        r.run("aten::_upsample_bilinear2d_aa.out",
              {r.tensor(x), r.int_list({1, 1}), r.b(false), r.d(1e-310), r.none(), r.tensor(out)}),
        Error::InvalidArgument);
  }
  {  // a tiny scale asks for more filter taps than temp memory holds
    KernelRunner r;
    EXPECT_EQ(
        r.run("aten::_upsample_bilinear2d_aa.out",
              {r.tensor(x), r.int_list({2, 2}), r.b(false), r.d(1e-7), r.none(), r.tensor(out)}),
        Error::MemoryAllocationFailed);
  }
  {  // an empty output size
    KernelRunner r;
    EXPECT_EQ(r.run("aten::upsample_bilinear2d.vec_out",
                    {r.tensor(x), r.int_list({0, 3}), r.b(false), r.none(), r.tensor(out)}),
              Error::InvalidArgument);
  }
}

}  // namespace
}  // namespace testing
}  // namespace etr
