// Channels-last (dim order 0,2,3,1; 0,2,1 for 3-D) operands of the 2-D
// convolution, pooling and batch-norm kernels, computed in the stored
// layout. Expected values: PyTorch eager (torch.ops.aten, CPU) on
// channels_last inputs, printed by
//   /opt/tv/bin/python kernels/test/gen_convpool_expected.py
// (block "op_channels_last_test.cpp") and compared in logical order.
#include "kernels/test/layout_test_util.h"

namespace etr {
namespace testing {
namespace {

// BEGIN GENERATED op_channels_last_test.cpp
const std::vector<float> kConvGrouped = {
    -3.625f,  -0.875f,  -0.125f,  3.8125f,  0.3125f,  -2.1875f, -2.125f,  1.625f,   0.875f,
    8.625f,   -0.625f,  -4.75f,   -2.0f,    1.375f,   4.875f,   3.0625f,  -9.375f,  -7.9375f,
    -1.875f,  1.125f,   3.5625f,  3.875f,   -5.375f,  -4.75f,   -1.5f,    0.1875f,  4.0625f,
    0.5f,     -3.0625f, -2.5625f, 2.6875f,  1.375f,   0.625f,   -3.3125f, -3.0f,    1.8125f,
    2.6875f,  0.5625f,  -0.375f,  -2.375f,  -1.1875f, -1.4375f, 2.3125f,  0.25f,    0.375f,
    0.5f,     7.0f,     3.375f,   1.9375f,  -0.0625f, -4.1875f, -1.9375f, 4.5625f,  2.875f,
    2.4375f,  0.9375f,  -1.0f,    1.3125f,  -2.75f,   2.3125f,  -0.3125f, 0.5f,     0.3125f,
    2.25f,    -3.25f,   -1.4375f, -3.1875f, -0.875f,  0.0625f,  2.0625f,  4.0625f,  -1.9375f,
    -2.6875f, -0.5625f, -1.75f,   2.375f,   6.5f,     0.5625f,  -2.1875f, -0.25f,   2.8125f,
    -2.625f,  -1.6875f, -2.25f,   -1.5625f, 0.625f,   4.5625f,  1.0625f,  -3.5f,    -2.125f,
    -2.1875f, -0.5625f, 5.125f,   -0.875f,  0.5625f,  -1.4375f, -7.6875f, -9.125f,  3.3125f,
    5.125f,   1.625f,   -1.75f,   -4.5f,    -0.375f,  8.875f,   1.125f,   1.875f,   -1.875f,
    -4.5f,    4.125f,   3.8125f,  1.375f,   -3.1875f, -5.1875f, -5.25f,   -0.75f,   4.875f,
    -0.125f,  0.1875f,  -0.625f,  -2.375f,  1.375f,   4.5f,     2.3125f,  -0.9375f, -0.6875f,
    6.1875f,  1.0625f,  -4.6875f, -3.0f,    -0.25f,   1.9375f,  5.6875f,  2.6875f,  -3.0625f,
    0.75f,    -0.75f,   2.0f,     -1.1875f, 0.0625f,  -0.375f,  0.25f,    1.9375f,  7.375f,
    2.5625f,  -2.75f,   -2.9375f, 1.125f,   -1.1875f, 4.1875f,  -0.875f,  -6.0f,    -1.3125f,
    4.4375f,  0.625f,   -1.0f,    1.8125f,  1.9375f,  5.5f,     -0.5f,    0.9375f,  -2.3125f,
    -1.0f,    -2.1875f, 4.5625f,  0.6875f,  1.0625f,  -2.75f,   -1.6875f, 1.125f,   4.6875f,
    0.8125f,  1.1875f,  -1.0625f, 1.0625f,  5.875f,   -0.125f,  1.3125f,  -3.625f,  -4.4375f,
    -2.3125f, -0.125f,  3.8125f,  0.3125f,  -4.25f,   -2.875f,  -1.75f,   0.875f,   8.625f,
    -0.625f,  -5.625f,  -0.5f,    -1.625f,  4.875f,   3.0625f,  -9.375f,  -9.0625f, -1.5625f,
    -1.5f,    3.5625f,  3.875f,   -5.375f,  -6.125f,  3.75f,    -0.9375f, 4.0625f,  0.5f,
    -3.0625f, -3.4375f, 1.3125f,  2.3125f,  0.625f,   -3.3125f, -3.0f,    1.5625f,  4.75f,
    1.5625f,  -0.375f,  -2.375f,  -1.1875f, -2.125f,  3.4375f,  1.1875f,  0.375f,   0.5f,
    7.0f,     2.875f,   -1.3125f, 0.8125f,  -4.1875f, -1.9375f, 4.5625f,  2.5625f,  0.3125f,
    1.3125f,  -1.0f,    1.3125f,  -2.75f,   2.75f,    0.1875f,  -0.3125f, 0.3125f,  2.25f,
    -3.25f,   0.8125f,  -2.4375f, -1.6875f, 0.0625f,  2.0625f,  4.0625f,  -2.4375f, -4.0f,
    -1.1875f, -1.75f,   2.375f,   6.5f,     0.0f,     0.625f,   -0.6875f, 2.8125f,  -2.625f,
    -1.6875f, -2.875f,  -0.0625f, -0.25f,   4.5625f,  1.0625f,  -3.5f,    -3.8125f, 1.4375f,
    0.3125f,  5.125f,   -0.875f,  0.5625f,  -4.375f,  -5.1875f, -7.6875f, 3.3125f,  5.125f,
    1.625f,   -1.875f,  -2.125f,  -4.5f,    8.875f,   1.125f,   1.875f,   -5.875f,  -4.375f,
    -0.25f,   3.8125f,  1.375f,   -3.1875f, -8.8125f, -5.5625f, -3.5f,    4.875f,   -0.125f,
    0.1875f,  -1.625f,  1.25f,    0.5625f,  4.5f,     2.3125f,  -0.9375f, 1.125f,   4.4375f,
    3.625f,   -4.6875f, -3.0f,    -0.25f,   -0.6875f, 7.4375f,  3.125f,   -3.0625f, 0.75f,
    -0.75f,   3.0625f,  2.1875f,  3.6875f,  -0.375f,  0.25f,    1.9375f,  7.875f,   -2.0f,
    -1.6875f, -2.9375f, 1.125f,   -1.1875f, 2.875f,   2.125f,   -5.0625f, -1.3125f, 4.4375f,
    0.625f,   2.125f,   1.3125f,  0.8125f,  5.5f,     -0.5f,    0.9375f,  -4.0f,    -4.6875f,
    -2.0f,    4.5625f,  0.6875f,  1.0625f,  -2.8125f, -1.9375f, -3.75f,   4.6875f,  0.8125f,
    1.1875f,  -0.5625f, 1.875f,   2.5f,     -0.125f,  1.3125f,  -3.625f,  -5.375f,  -2.875f};
const std::vector<float> kConvDepthwise = {-1.875f, -5.4375f, -7.3125f, -7.3125f, 1.5625f, 2.3125f,
                                           4.5625f, 2.9375f,  -6.5f,    4.9375f,  4.1875f, 8.1875f};
const std::vector<float> kConvTransposed = {
    -1.0f,    -0.8125f, -2.625f,  -1.5f,    -0.875f,  0.0625f,  -2.375f,  -1.9375f, -0.4375f,
    -2.3125f, -0.0625f, -0.25f,   -0.25f,   -2.1875f, 0.8125f,  -2.3125f, -2.4375f, -1.5f,
    -1.6875f, 1.9375f,  -2.625f,  0.8125f,  -2.9375f, -3.125f,  -0.5625f, -0.375f,  0.0f,
    -1.0f,    1.3125f,  -2.0f,    -1.25f,   -1.625f,  -2.5f,    2.8125f,  -0.5f,    3.0625f,
    -0.625f,  -0.0625f, -2.375f,  -0.5f,    0.25f,    1.5625f,  -1.375f,  -1.25f,   5.1875f,
    1.6875f,  1.6875f,  0.1875f,  1.625f,   -1.0f,    1.9375f,  -1.5f,    -1.9375f, -0.625f,
    0.1875f,  3.5f,     -3.5f,    -2.75f,   3.125f,   0.5625f,  0.6875f,  1.25f,    2.0f,
    0.6875f,  3.3125f,  -0.6875f, 0.0f,     0.0f,     0.1875f,  3.125f,   -1.9375f, -1.125f,
    -2.0f,    -1.0625f, 0.25f,    0.8125f,  -0.375f,  -0.75f,   -2.125f,  -2.3125f, 3.5625f,
    0.5f,     0.3125f,  -0.4375f, 1.75f,    -1.5625f, -2.8125f, 3.0625f,  0.25f,    -0.125f,
    0.3125f,  3.3125f,  -3.375f,  -3.25f,   2.625f,   -0.25f,   0.1875f,  1.125f,   1.5625f,
    -2.125f,  -1.25f,   3.6875f,  -0.5f,    -0.125f,  0.4375f,  3.0625f,  -1.6875f, -1.5625f,
    -1.375f,  -1.0f,    0.5f,     -0.0625f, -1.25f,   -2.1875f, -1.375f,  -1.6875f, 2.375f,
    0.125f,   0.0f,     0.1875f,  3.3125f,  -1.625f,  -2.8125f, 0.875f,   0.3125f,  -0.625f,
    -0.5f,    2.375f,   -4.5f,    -3.5625f, -0.3125f, -0.125f,  -0.5f,    -0.125f,  -2.9375f,
    -3.5f,    1.875f,   0.9375f,  -0.5625f, -0.75f,   1.0625f,  1.4375f,  -1.625f,  -1.0625f,
    2.25f,    0.9375f,  0.375f,   -1.5f,    0.375f,   -0.1875f, -0.4375f, -1.0625f, 3.4375f,
    1.625f,   1.375f,   2.3125f,  -0.875f,  3.125f,   0.3125f,  1.625f,   1.3125f,  0.75f,
    1.3125f,  3.875f,   -3.8125f, -2.4375f, -0.1875f, 0.75f,    -0.8125f, -2.125f,  3.4375f,
    1.5625f,  2.25f,    1.6875f,  1.1875f,  1.375f,   1.9375f,  3.0625f,  -1.25f,   -0.3125f,
    1.375f,   0.4375f,  -0.125f,  -1.25f,   0.25f,    0.0625f,  3.5625f,  0.5625f,  3.4375f,
    0.0f,     1.0f,     2.6875f,  -1.3125f, 2.0f,     -0.375f,  0.625f,   0.5625f,  0.375f,
    -2.0625f, -1.875f,  -0.75f,   -1.0f,    -1.8125f, -0.125f,  -0.8125f, -1.75f,   2.5625f,
    1.4375f,  0.875f,   0.6875f,  1.1875f,  1.75f,    1.0625f,  2.9375f,  -2.625f,  -1.3125f};
const std::vector<float> kConvPointwise = {
    4.875f,   1.125f,  -2.625f,  -0.625f, 4.25f,    0.5f,     -3.25f,   -5.5625f, 3.625f,
    -0.125f,  -3.875f, -6.1875f, 3.0f,    -0.75f,   1.25f,    -6.8125f, -4.3125f, -3.1875f,
    -2.0625f, 7.6875f, -4.125f,  -3.0f,   -1.875f,  6.4375f,  -3.9375f, -2.8125f, -1.6875f,
    6.625f,   -3.75f,  -2.625f,  7.125f,  6.8125f,  -2.1875f, -3.3125f, -4.4375f, 5.9375f,
    -2.375f,  -3.5f,   -4.625f,  7.1875f, -2.5625f, -3.6875f, -4.8125f, 7.0f,     -2.75f,
    -3.875f,  6.5f,    6.8125f,  -3.625f, 0.125f,   3.875f,   -5.3125f, -3.0f,    0.75f,
    4.5f,     -0.375f, -2.375f,  1.375f,  5.125f,   0.25f,    -1.75f,   2.0f,     -7.1875f,
    0.875f,   0.25f,   1.75f,    3.25f,   -5.3125f, 0.5f,     2.0f,     3.5f,     2.125f,
    0.75f,    2.25f,   3.75f,    2.375f,  1.0f,     2.5f,     -6.0625f, 2.625f};
const std::vector<float> kConv1d = {3.5f,     1.75f,    -1.4375f, 0.3125f, 4.875f,   -1.25f,
                                    -0.8125f, 1.75f,    1.75f,    0.0625f, -0.6875f, 4.875f,
                                    -1.9375f, -1.4375f, 1.75f,    1.9375f, -0.9375f, -0.6875f,
                                    0.125f,   1.75f,    -1.4375f, -1.5f,   5.1875f,  -0.9375f};
const std::vector<float> kMaxPool2dVals = {
    -3.0f,  6.25f,  15.5f,  14.5f,  15.5f,  14.5f,  17.5f,  16.5f,  17.5f,  16.5f,  15.5f,  0.0f,
    17.5f,  18.5f,  17.5f,  10.25f, 19.5f,  10.25f, 3.0f,   12.25f, 21.5f,  20.5f,  21.5f,  20.5f,
    13.25f, 22.5f,  21.5f,  22.5f,  21.5f,  6.0f,   -11.5f, 14.25f, 7.0f,   16.25f, 15.25f, 16.25f,
    9.0f,   18.25f, 17.25f, 18.25f, 17.25f, -8.5f,  19.25f, 20.25f, 19.25f, 18.25f, 21.25f, 12.0f,
    -5.5f,  20.25f, 13.0f,  22.25f, 21.25f, 22.25f, 15.0f,  14.0f,  15.0f,  14.0f,  6.75f,  -2.5f,
    15.0f,  16.0f,  15.0f,  18.0f,  17.0f,  18.0f,  0.5f,   9.75f,  19.0f,  18.0f,  19.0f,  18.0f,
    21.0f,  20.0f,  21.0f,  20.0f,  12.75f, 3.5f,   21.0f,  22.0f,  21.0f,  13.75f, 14.75f, 13.75f,
    6.5f,   15.75f, 14.75f, 15.75f, 14.75f, -11.0f, 16.75f, 17.75f, 16.75f, 9.5f,   18.75f, 9.5f,
    2.25f,  17.75f, 20.75f, 19.75f, 20.75f, 19.75f, 12.5f,  21.75f, 20.75f, 21.75f, 20.75f, -5.0f};
const std::vector<int64_t> kMaxPool2dIdx = {
    7,  8,  9,  4,  9,  4,  19, 14, 19, 14, 9,  22, 19, 24, 19, 28, 29, 28, 7,  8,  9,  4,
    9,  4,  13, 14, 9,  14, 9,  22, 25, 18, 27, 28, 23, 28, 7,  8,  3,  8,  3,  10, 13, 18,
    13, 8,  23, 22, 25, 18, 27, 28, 23, 28, 7,  2,  7,  2,  11, 10, 7,  12, 7,  22, 17, 22,
    25, 26, 27, 22, 27, 22, 7,  2,  7,  2,  11, 10, 7,  12, 7,  16, 21, 16, 25, 26, 21, 26,
    21, 28, 1,  6,  1,  10, 11, 10, 19, 6,  21, 16, 21, 16, 25, 26, 21, 26, 21, 28};
const std::vector<float> kMaxPool2dBackward = {
    0.0f,   0.0f,   0.0f,  0.0f,   0.75f, 0.0f,   0.0f,  -2.75f, -1.25f, -1.5f,  0.0f,   0.0f,
    0.0f,   0.0f,   1.25f, 0.0f,   0.0f,  0.0f,   0.0f,  -2.75f, 0.0f,   0.0f,   2.25f,  0.0f,
    -0.5f,  0.0f,   0.0f,  0.0f,   2.25f, -1.75f, 0.0f,  0.0f,   0.0f,   0.0f,   -2.75f, 0.0f,
    0.0f,   1.25f,  2.75f, 0.75f,  0.0f,  0.0f,   0.0f,  -1.25f, -2.25f, 0.0f,   0.0f,   0.0f,
    -2.25f, 0.0f,   0.0f,  0.0f,   0.5f,  2.25f,  0.0f,  2.0f,   0.0f,   -0.75f, -1.25f, 0.0f,
    0.0f,   0.0f,   0.0f,  2.25f,  0.0f,  0.0f,   0.0f,  -0.5f,  0.75f,  0.0f,   1.25f,  0.0f,
    0.0f,   2.75f,  0.0f,  0.0f,   0.0f,  0.0f,   0.25f, 0.0f,   0.0f,   0.0f,   -1.25f, -2.25f,
    0.0f,   0.25f,  0.0f,  -2.5f,  1.0f,  0.0f,   0.0f,  0.0f,   1.5f,   0.0f,   0.0f,   0.0f,
    0.0f,   -2.25f, 0.0f,  0.0f,   -0.5f, -2.0f,  2.5f,  0.0f,   0.0f,   0.0f,   0.0f,   1.25f,
    0.0f,   0.0f,   0.0f,  0.0f,   0.0f,  0.0f,   0.0f,  -1.5f,  0.0f,   0.25f,  0.0f,   0.0f,
    0.0f,   0.0f,   -2.0f, 0.0f,   0.0f,  0.0f,   0.0f,  2.25f,  0.0f,   0.0f,   -2.25f, 2.0f,
    0.75f,  0.0f,   0.0f,  0.0f,   -1.0f, 0.0f,   0.0f,  0.0f,   0.0f,   2.0f,   0.0f,   0.0f,
    0.0f,   2.5f,   -0.5f, 0.0f,   -1.5f, 0.0f,   0.0f,  -2.75f, 0.0f,   0.0f,   0.0f,   0.0f,
    0.5f,   0.0f,   0.0f,  0.0f,   0.5f,  0.25f,  0.0f,  0.0f,   0.0f,   0.0f,   1.25f,  0.0f,
    0.0f,   -2.5f,  0.0f,  -2.75f, 0.0f,  0.0f,   0.0f,  0.75f,  1.75f,  0.0f,   2.5f,   0.0f};
const std::vector<float> kAvgPool2d = {
    -0.375f,       -0.0416666679f, 0.0833333358f,  0.625f,         0.666666687f,  0.361111104f,
    0.166666672f,  -0.25f,         0.75f,          0.125f,         -0.708333313f, -1.125f,
    0.0625f,       -0.0833333358f, 0.0416666679f,  -0.375f,        0.625f,        0.0f,
    -0.194444448f, 0.666666687f,   -0.25f,         0.0833333358f,  0.208333328f,  0.75f,
    0.5f,          -0.125f,        0.0f,           1.5f,           -0.375f,       -0.361111104f,
    -0.555555582f, -0.333333343f,  0.1875f,        0.0416666679f,  0.166666672f,  -0.25f,
    -0.5f,         -0.166666672f,  -0.0416666679f, 0.5f,           -0.416666657f, 0.555555582f,
    0.361111104f,  0.583333313f,   -0.8125f,       0.0f,           0.125f,        -1.25f,
    -0.0625f,      -0.208333328f,  -0.0833333358f, -0.5f,          -0.458333343f, 0.194444448f,
    0.0f,          -0.416666657f,  -0.375f,        -0.0416666679f, 0.0833333358f, 0.625f,
    0.375f,        0.708333313f,   -0.125f,        -1.5f,          0.458333343f,  -0.166666672f,
    -0.361111104f, -1.41666663f,   0.0625f,        -0.0833333358f, 0.0416666679f, -0.375f};
const std::vector<float> kAdaptiveAvgPool2d = {
    -1.125f,       0.0f,          0.791666687f,  -0.5625f,      0.375f,        0.0833333358f,
    -0.305555552f, -0.125f,       0.8125f,       -0.541666687f, 0.25f,         0.3125f,
    -0.375f,       0.75f,         0.125f,        -0.875f,       0.416666657f,  -0.111111112f,
    -0.027777778f, 0.625f,        -0.5625f,      -0.5f,         0.291666657f,  0.0f,
    0.375f,        0.791666687f,  -0.541666687f, -0.125f,       -0.25f,        -0.305555552f,
    0.25f,         0.666666687f,  -0.875f,       0.25f,         0.333333343f,  -0.3125f,
    1.125f,        0.125f,        -0.5f,         0.625f,        -0.208333328f, -0.027777778f,
    0.527777791f,  0.0f,          -0.125f,       0.291666657f,  -0.333333343f, -0.625f,
    0.8125f,       -0.541666687f, 0.25f,         0.3125f,       -0.166666672f, 0.25f,
    0.333333343f,  -0.666666687f, 0.625f,        0.333333343f,  -0.291666657f, 0.125f,
    -0.5625f,      -0.5f,         0.291666657f,  0.0f,          -0.125f,       0.527777791f,
    -0.333333343f, -0.625f,       0.3125f,       -0.333333343f, -0.25f,        0.875f};
const std::vector<float> kBnEval = {
    -0.632582188f,  -0.5f,          -0.367417812f,  -0.23483564f,  -0.102253452f,  0.030328732f,
    -0.588388145f,  -0.455805957f,  -0.32322377f,   -0.190641582f, -0.0580593906f, 0.0745227933f,
    -0.544194043f,  -0.411611885f,  -0.279029697f,  -0.14644751f,  -0.0138653293f, -0.632582188f,
    -0.5f,          -0.367417812f,  -0.183009833f,  1.11601973f,   2.41504908f,    -3.64708853f,
    -2.34805894f,   -1.04902947f,   0.25f,          1.54902947f,   2.84805894f,    -3.21407866f,
    -1.9150492f,    -0.616019666f,  0.683009863f,   1.98203933f,   -4.08009815f,   -2.7810688f,
    -1.48203933f,   -0.183009833f,  1.11601973f,    2.41504908f,   -1.27061737f,   -0.658246934f,
    -0.0458765328f, 0.566493869f,   1.17886424f,    1.79123473f,   -1.06649387f,   -0.454123467f,
    0.158246934f,   0.770617366f,   1.38298774f,    -1.47474074f,  -0.862370372f,  -0.25f,
    0.362370402f,   0.974740803f,   1.58711123f,    -1.27061737f,  -0.658246934f,  -0.0458765328f,
    -0.190641582f,  -0.0580593906f, 0.0745227933f,  -0.544194043f, -0.411611885f,  -0.279029697f,
    -0.14644751f,   -0.0138653293f, -0.632582188f,  -0.5f,         -0.367417812f,  -0.23483564f,
    -0.102253452f,  0.030328732f,   -0.588388145f,  -0.455805957f, -0.32322377f,   -0.190641582f,
    -0.0580593906f, 0.0745227933f,  -3.21407866f,   -1.9150492f,   -0.616019666f,  0.683009863f,
    1.98203933f,    -4.08009815f,   -2.7810688f,    -1.48203933f,  -0.183009833f,  1.11601973f,
    2.41504908f,    -3.64708853f,   -2.34805894f,   -1.04902947f,  0.25f,          1.54902947f,
    2.84805894f,    -3.21407866f,   -1.9150492f,    -0.616019666f, 0.770617366f,   1.38298774f,
    -1.47474074f,   -0.862370372f,  -0.25f,         0.362370402f,  0.974740803f,   1.58711123f,
    -1.27061737f,   -0.658246934f,  -0.0458765328f, 0.566493869f,  1.17886424f,    1.79123473f,
    -1.06649387f,   -0.454123467f,  0.158246934f,   0.770617366f,  1.38298774f,    -1.47474074f};
const std::vector<float> kBnTrainOut = {
    -0.899599314f,  -0.749749601f,  -0.599899828f, -0.450050086f,  -0.300200343f, -0.150350571f,
    -0.849649429f,  -0.699799657f,  -0.549949944f, -0.400100172f,  -0.250250399f, -0.100400656f,
    -0.799699485f,  -0.649849772f,  -0.5f,         -0.350150257f,  -0.200300485f, -0.899599314f,
    -0.749749601f,  -0.599899828f,  0.538253307f,  1.47312891f,    2.40800452f,   -1.95474839f,
    -1.01987278f,   -0.0849971026f, 0.84987855f,   1.78475416f,    2.71962976f,   -1.64312315f,
    -0.708247542f,  0.22662811f,    1.16150379f,   2.09637928f,    -2.26637363f,  -1.33149791f,
    -0.3966223f,    0.538253307f,   1.47312891f,   2.40800452f,    -1.60315609f,  -0.999517679f,
    -0.395879269f,  0.207759142f,   0.811397552f,  1.41503596f,    -1.40194333f,  -0.798304915f,
    -0.194666475f,  0.408971965f,   1.01261044f,   -1.80436897f,   -1.20073056f,  -0.597092092f,
    0.00654633343f, 0.610184789f,   1.2138232f,    -1.60315609f,   -0.999517679f, -0.395879269f,
    -0.400100172f,  -0.250250399f,  -0.100400656f, -0.799699485f,  -0.649849772f, -0.5f,
    -0.350150257f,  -0.200300485f,  -0.899599314f, -0.749749601f,  -0.599899828f, -0.450050086f,
    -0.300200343f,  -0.150350571f,  -0.849649429f, -0.699799657f,  -0.549949944f, -0.400100172f,
    -0.250250399f,  -0.100400656f,  -1.64312315f,  -0.708247542f,  0.22662811f,   1.16150379f,
    2.09637928f,    -2.26637363f,   -1.33149791f,  -0.3966223f,    0.538253307f,  1.47312891f,
    2.40800452f,    -1.95474839f,   -1.01987278f,  -0.0849971026f, 0.84987855f,   1.78475416f,
    2.71962976f,    -1.64312315f,   -0.708247542f, 0.22662811f,    0.408971965f,  1.01261044f,
    -1.80436897f,   -1.20073056f,   -0.597092092f, 0.00654633343f, 0.610184789f,  1.2138232f,
    -1.60315609f,   -0.999517679f,  -0.395879269f, 0.207759142f,   0.811397552f,  1.41503596f,
    -1.40194333f,   -0.798304915f,  -0.194666475f, 0.408971965f,   1.01261044f,   -1.80436897f};
const std::vector<float> kBnTrainMean = {0.0f, 0.0187500007f, -0.0687500015f};
const std::vector<float> kBnTrainInvstd = {0.799198687f, 0.831000566f, 0.804851234f};
const std::vector<float> kBnTrainRunningMean = {-1.125f, 0.451875001f, -0.456874996f};
const std::vector<float> kBnTrainRunningVar = {1.96057689f, 0.823521614f, 1.50832927f};
const std::vector<float> kBnNoStatsOut = {
    -0.403705448f,  -0.18182154f,   0.0400623716f, 0.261946291f,   -0.366724789f,  -0.144840881f,
    0.0770430267f,  0.29892692f,    -0.32974413f,  -0.10786023f,   0.114023678f,   0.335907578f,
    -0.292763501f,  -0.0708795786f, 0.151004329f,  0.372888237f,   -0.255782843f,  -0.033898931f,
    0.187984973f,   0.409868896f,   -0.218802184f, 0.00308172102f, 0.224965632f,   -0.403705448f,
    -1.05198205f,   0.294554979f,   1.64109206f,   -2.17409635f,   -0.827559233f,  0.518977821f,
    1.86551487f,    -1.94967341f,   -0.60313642f,  0.743400693f,   2.08993769f,    -1.7252506f,
    -0.378713548f,  0.967823505f,   2.31436062f,   -1.50082779f,   -0.154290706f,  1.19224632f,
    2.53878331f,    -1.27640486f,   0.0701321363f, 1.41666913f,    -2.39851904f,   -1.05198205f,
    0.162947312f,   1.08312035f,    -1.52403653f,  -0.603863537f,  0.316309482f,   1.2364825f,
    -1.37067437f,   -0.450501382f,  0.469671637f,  1.38984466f,    -1.21731222f,   -0.297139198f,
    0.623033822f,   1.54320681f,    -1.06395006f,  -0.143777028f,  0.776395977f,   1.69656897f,
    -0.910587907f,  0.00958513562f, 0.929758132f,  -1.67739868f,   -0.757225692f,  0.162947312f,
    0.261946291f,   -0.366724789f,  -0.144840881f, 0.0770430267f,  0.29892692f,    -0.32974413f,
    -0.10786023f,   0.114023678f,   0.335907578f,  -0.292763501f,  -0.0708795786f, 0.151004329f,
    0.372888237f,   -0.255782843f,  -0.033898931f, 0.187984973f,   0.409868896f,   -0.218802184f,
    0.00308172102f, 0.224965632f,   -0.403705448f, -0.18182154f,   0.0400623716f,  0.261946291f,
    -2.17409635f,   -0.827559233f,  0.518977821f,  1.86551487f,    -1.94967341f,   -0.60313642f,
    0.743400693f,   2.08993769f,    -1.7252506f,   -0.378713548f,  0.967823505f,   2.31436062f,
    -1.50082779f,   -0.154290706f,  1.19224632f,   2.53878331f,    -1.27640486f,   0.0701321363f,
    1.41666913f,    -2.39851904f,   -1.05198205f,  0.294554979f,   1.64109206f,    -2.17409635f,
    -0.603863537f,  0.316309482f,   1.2364825f,    -1.37067437f,   -0.450501382f,  0.469671637f,
    1.38984466f,    -1.21731222f,   -0.297139198f, 0.623033822f,   1.54320681f,    -1.06395006f,
    -0.143777028f,  0.776395977f,   1.69656897f,   -0.910587907f,  0.00958513562f, 0.929758132f,
    -1.67739868f,   -0.757225692f,  0.162947312f,  1.08312035f,    -1.52403653f,   -0.603863537f};
const std::vector<float> kBnNoStatsMean = {-0.020833334f, -0.078125f, -0.015625f};
const std::vector<float> kBnNoStatsInvstd = {0.591690421f, 0.598460913f, 0.613448679f};
// END GENERATED

const std::vector<uint8_t> kChannelsLast1d = {0, 2, 1};

Error run_conv(HostTensor& x, HostTensor& w, HostTensor* bias, std::vector<int64_t> stride,
               std::vector<int64_t> padding, std::vector<int64_t> dilation, bool transposed,
               std::vector<int64_t> output_padding, int64_t groups, HostTensor& out) {
  KernelRunner r;
  return r.run("aten::convolution.out",
               {r.tensor(x), r.tensor(w), bias == nullptr ? r.none() : r.tensor(*bias),
                r.int_list(stride), r.int_list(padding), r.int_list(dilation), r.b(transposed),
                r.int_list(output_padding), r.i(groups), r.tensor(out)});
}

TEST(OpChannelsLastTest, ConvGroupedChannelsLastInputAndOut) {
  auto x = make_in_order<float>({2, 4, 5, 6}, pattern(240), kChannelsLast);
  auto w = make_tensor<float>({6, 2, 3, 3}, pattern(108, 13, 11));
  auto b = make_tensor<float>({6}, pattern(6, 5, 7));
  auto out = zeros_in_order(ScalarType::Float, {2, 6, 5, 6}, kChannelsLast);
  ASSERT_EQ(run_conv(x, w, &b, {1, 1}, {1, 1}, {1, 1}, false, {0, 0}, 2, out), Error::Ok);
  EXPECT_TRUE(has_dim_order(out, kChannelsLast));
  expect_close(logical_values<float>(out), kConvGrouped);
}

TEST(OpChannelsLastTest, ConvGroupedMatchesDefaultLayout) {
  auto x = make_tensor<float>({2, 4, 5, 6}, pattern(240));
  auto w = make_tensor<float>({6, 2, 3, 3}, pattern(108, 13, 11));
  auto b = make_tensor<float>({6}, pattern(6, 5, 7));
  auto out = zeros_tensor(ScalarType::Float, {2, 6, 5, 6});
  ASSERT_EQ(run_conv(x, w, &b, {1, 1}, {1, 1}, {1, 1}, false, {0, 0}, 2, out), Error::Ok);
  expect_close(out.values<float>(), kConvGrouped);
}

TEST(OpChannelsLastTest, ConvDepthwiseStridedDilatedChannelsLastWeightDefaultOut) {
  auto x = make_in_order<float>({1, 3, 7, 6}, pattern(126, 29, 23), kChannelsLast);
  auto w = make_in_order<float>({3, 1, 3, 3}, pattern(27, 31, 19), kChannelsLast);
  auto out = zeros_tensor(ScalarType::Float, {1, 3, 4, 1});
  ASSERT_EQ(run_conv(x, w, nullptr, {2, 2}, {1, 0}, {1, 2}, false, {0, 0}, 3, out), Error::Ok);
  EXPECT_EQ(out.shape(), (std::vector<int32_t>{1, 3, 4, 1}));
  expect_close(out.values<float>(), kConvDepthwise);
}

TEST(OpChannelsLastTest, ConvTransposedGroupedChannelsLast) {
  auto x = make_in_order<float>({1, 4, 3, 4}, pattern(48), kChannelsLast);
  auto w = make_in_order<float>({4, 3, 3, 2}, pattern(72, 13, 11), kChannelsLast);
  auto b = make_tensor<float>({6}, pattern(6, 5, 7));
  auto out = zeros_in_order(ScalarType::Float, {1, 6, 6, 6}, kChannelsLast);
  ASSERT_EQ(run_conv(x, w, &b, {2, 1}, {1, 0}, {1, 2}, true, {1, 0}, 2, out), Error::Ok);
  EXPECT_EQ(out.shape(), (std::vector<int32_t>{1, 6, 6, 6}));
  expect_close(logical_values<float>(out), kConvTransposed);
}

TEST(OpChannelsLastTest, ConvTransposedDefaultLayoutSameValues) {
  auto x = make_tensor<float>({1, 4, 3, 4}, pattern(48));
  auto w = make_tensor<float>({4, 3, 3, 2}, pattern(72, 13, 11));
  auto b = make_tensor<float>({6}, pattern(6, 5, 7));
  auto out = zeros_tensor(ScalarType::Float, {1, 6, 6, 6});
  ASSERT_EQ(run_conv(x, w, &b, {2, 1}, {1, 0}, {1, 2}, true, {1, 0}, 2, out), Error::Ok);
  expect_close(out.values<float>(), kConvTransposed);
}

TEST(OpChannelsLastTest, ConvPointwiseDefaultInputChannelsLastWeightAndOut) {
  auto x = make_tensor<float>({1, 3, 4, 4}, pattern(48, 29, 23));
  auto w = make_in_order<float>({5, 3, 1, 1}, pattern(15, 31, 19), kChannelsLast);
  auto b = make_tensor<float>({5}, pattern(5, 5, 7));
  auto out = zeros_in_order(ScalarType::Float, {1, 5, 4, 4}, kChannelsLast);
  ASSERT_EQ(run_conv(x, w, &b, {1, 1}, {0, 0}, {1, 1}, false, {0, 0}, 1, out), Error::Ok);
  expect_close(logical_values<float>(out), kConvPointwise);
}

TEST(OpChannelsLastTest, Conv1dChannelsLastInput) {
  auto x = make_in_order<float>({4, 3, 5}, pattern(60), kChannelsLast1d);
  auto w = make_tensor<float>({2, 3, 2}, pattern(12, 13, 11));
  auto out = zeros_in_order(ScalarType::Float, {4, 2, 3}, kChannelsLast1d);
  ASSERT_EQ(run_conv(x, w, nullptr, {2}, {1}, {1}, false, {0}, 1, out), Error::Ok);
  expect_close(logical_values<float>(out), kConv1d);
}

TEST(OpChannelsLastTest, ConvOutRankMismatchFails) {
  auto x = make_in_order<float>({1, 2, 3, 3}, pattern(18), kChannelsLast);
  auto w = zeros_tensor(ScalarType::Float, {2, 2, 1, 1});
  auto out = zeros_tensor(ScalarType::Float, {1, 2, 9});
  EXPECT_EQ(run_conv(x, w, nullptr, {1}, {0}, {1}, false, {0}, 1, out), Error::InvalidArgument);
}

Error run_max_pool(HostTensor& x, HostTensor& out, HostTensor& idx) {
  KernelRunner r;
  return r.run("aten::max_pool2d_with_indices.out",
               {r.tensor(x), r.int_list({3, 2}), r.int_list({2, 1}), r.int_list({1, 1}),
                r.int_list({1, 2}), r.b(true), r.tensor(out), r.tensor(idx)});
}

TEST(OpChannelsLastTest, MaxPool2dIndicesArePerPlane) {
  auto x = make_in_order<float>({2, 3, 5, 6}, pattern(180, 37, 181), kChannelsLast);
  auto out = zeros_in_order(ScalarType::Float, {2, 3, 3, 6}, kChannelsLast);
  auto idx = zeros_in_order(ScalarType::Long, {2, 3, 3, 6}, kChannelsLast);
  ASSERT_EQ(run_max_pool(x, out, idx), Error::Ok);
  EXPECT_EQ(out.shape(), (std::vector<int32_t>{2, 3, 3, 6}));
  EXPECT_EQ(logical_values<float>(out), kMaxPool2dVals);
  EXPECT_EQ(logical_values<int64_t>(idx), kMaxPool2dIdx);
}

TEST(OpChannelsLastTest, MaxPool2dDefaultLayoutSameValues) {
  auto x = make_tensor<float>({2, 3, 5, 6}, pattern(180, 37, 181));
  auto out = zeros_tensor(ScalarType::Float, {2, 3, 3, 6});
  auto idx = zeros_tensor(ScalarType::Long, {2, 3, 3, 6});
  ASSERT_EQ(run_max_pool(x, out, idx), Error::Ok);
  EXPECT_EQ(out.values<float>(), kMaxPool2dVals);
  EXPECT_EQ(idx.values<int64_t>(), kMaxPool2dIdx);
}

TEST(OpChannelsLastTest, MaxPool2dIndicesRankMismatchFails) {
  auto x = make_in_order<float>({2, 3, 5, 6}, pattern(180, 37, 181), kChannelsLast);
  auto out = zeros_in_order(ScalarType::Float, {2, 3, 3, 6}, kChannelsLast);
  auto idx = zeros_tensor(ScalarType::Long, {6, 3, 6});
  EXPECT_EQ(run_max_pool(x, out, idx), Error::InvalidArgument);
}

TEST(OpChannelsLastTest, MaxPool2dBackward) {
  auto x = make_in_order<float>({2, 3, 5, 6}, pattern(180, 37, 181), kChannelsLast);
  auto go = make_in_order<float>({2, 3, 3, 6}, pattern(108, 29, 23), kChannelsLast);
  auto idx = make_in_order<int64_t>({2, 3, 3, 6}, kMaxPool2dIdx, kChannelsLast);
  auto gi = zeros_in_order(ScalarType::Float, {2, 3, 5, 6}, kChannelsLast);
  KernelRunner r;
  ASSERT_EQ(r.run("aten::max_pool2d_with_indices_backward.grad_input",
                  {r.tensor(go), r.tensor(x), r.int_list({3, 2}), r.int_list({2, 1}),
                   r.int_list({1, 1}), r.int_list({1, 2}), r.b(true), r.tensor(idx), r.tensor(gi)}),
            Error::Ok);
  expect_close(logical_values<float>(gi), kMaxPool2dBackward);
}

TEST(OpChannelsLastTest, AvgPool2dCeilExcludePad) {
  auto x = make_in_order<float>({2, 3, 5, 6}, pattern(180, 29, 23), kChannelsLast);
  auto out = zeros_in_order(ScalarType::Float, {2, 3, 3, 4}, kChannelsLast);
  KernelRunner r;
  ASSERT_EQ(r.run("aten::avg_pool2d.out",
                  {r.tensor(x), r.int_list({3, 3}), r.int_list({2, 2}), r.int_list({1, 1}),
                   r.b(true), r.b(false), r.none(), r.tensor(out)}),
            Error::Ok);
  EXPECT_EQ(out.shape(), (std::vector<int32_t>{2, 3, 3, 4}));
  expect_close(logical_values<float>(out), kAvgPool2d);
}

TEST(OpChannelsLastTest, AdaptiveAvgPool2d) {
  auto x = make_in_order<float>({2, 3, 5, 7}, pattern(210), kChannelsLast);
  auto out = zeros_in_order(ScalarType::Float, {2, 3, 3, 4}, kChannelsLast);
  KernelRunner r;
  ASSERT_EQ(
      r.run("aten::_adaptive_avg_pool2d.out", {r.tensor(x), r.int_list({3, 4}), r.tensor(out)}),
      Error::Ok);
  expect_close(logical_values<float>(out), kAdaptiveAvgPool2d);
}

// Per-channel tensors of the batch-norm tests (as in the generator).
struct BnParams {
  HostTensor w, b, rm, rv;
};
BnParams bn_params() {
  std::vector<float> w = pattern(3, 5, 7), rv = pattern(3, 5, 13);
  for (float& v : w) v += 1.0f;
  for (float& v : rv) v = std::abs(v) + 0.5f;
  return {make_tensor<float>({3}, w), make_tensor<float>({3}, pattern(3, 3, 5)),
          make_tensor<float>({3}, pattern(3, 7, 11)), make_tensor<float>({3}, rv)};
}

class OpChannelsLastBnTest : public ::testing::TestWithParam<bool> {};

// Param: out channels-last (true) or default (false); the input is channels-last.
TEST_P(OpChannelsLastBnTest, NoTraining) {
  BnParams p = bn_params();
  auto x = make_in_order<float>({2, 3, 4, 5}, pattern(120), kChannelsLast);
  auto out = zeros_in_order(ScalarType::Float, {2, 3, 4, 5},
                            GetParam() ? kChannelsLast : std::vector<uint8_t>{});
  auto o1 = zeros_tensor(ScalarType::Float, {0});
  auto o2 = zeros_tensor(ScalarType::Float, {0});
  KernelRunner r;
  ASSERT_EQ(r.run("aten::_native_batch_norm_legit_no_training.out",
                  {r.tensor(x), r.tensor(p.w), r.tensor(p.b), r.tensor(p.rm), r.tensor(p.rv),
                   r.d(0.1), r.d(1e-5), r.tensor(out), r.tensor(o1), r.tensor(o2)}),
            Error::Ok);
  expect_close(logical_values<float>(out), kBnEval, 1e-5, 1e-5);
}

INSTANTIATE_TEST_SUITE_P(OutLayouts, OpChannelsLastBnTest, ::testing::Bool());

TEST(OpChannelsLastTest, BatchNormTrainingUpdatesRunningStats) {
  BnParams p = bn_params();
  auto x = make_in_order<float>({2, 3, 4, 5}, pattern(120), kChannelsLast);
  auto out = zeros_in_order(ScalarType::Float, {2, 3, 4, 5}, kChannelsLast);
  auto mean = zeros_tensor(ScalarType::Float, {3});
  auto invstd = zeros_tensor(ScalarType::Float, {3});
  KernelRunner r;
  ASSERT_EQ(
      r.run("aten::_native_batch_norm_legit.out",
            {r.tensor(x), r.tensor(p.w), r.tensor(p.b), r.tensor(p.rm), r.tensor(p.rv), r.b(true),
             r.d(0.1), r.d(1e-5), r.tensor(out), r.tensor(mean), r.tensor(invstd)}),
      Error::Ok);
  expect_close(logical_values<float>(out), kBnTrainOut, 1e-5, 1e-5);
  expect_close(mean.values<float>(), kBnTrainMean, 1e-5, 1e-6);
  expect_close(invstd.values<float>(), kBnTrainInvstd, 1e-5, 1e-6);
  expect_close(p.rm.values<float>(), kBnTrainRunningMean, 1e-5, 1e-6);
  expect_close(p.rv.values<float>(), kBnTrainRunningVar, 1e-5, 1e-6);
}

TEST(OpChannelsLastTest, BatchNormNoStats5dChannelsLast3d) {
  BnParams p = bn_params();
  auto x = make_in_order<float>({2, 3, 2, 3, 4}, pattern(144, 29, 23), kChannelsLast3d);
  auto out = zeros_in_order(ScalarType::Float, {2, 3, 2, 3, 4}, kChannelsLast3d);
  auto mean = zeros_tensor(ScalarType::Float, {3});
  auto invstd = zeros_tensor(ScalarType::Float, {3});
  KernelRunner r;
  ASSERT_EQ(r.run("aten::_native_batch_norm_legit.no_stats_out",
                  {r.tensor(x), r.tensor(p.w), r.none(), r.b(true), r.d(0.1), r.d(1e-5),
                   r.tensor(out), r.tensor(mean), r.tensor(invstd)}),
            Error::Ok);
  expect_close(logical_values<float>(out), kBnNoStatsOut, 1e-5, 1e-5);
  expect_close(mean.values<float>(), kBnNoStatsMean, 1e-5, 1e-6);
  expect_close(invstd.values<float>(), kBnNoStatsInvstd, 1e-5, 1e-6);
}

TEST(OpChannelsLastTest, BatchNormOutRankMismatchFails) {
  BnParams p = bn_params();
  auto x = make_in_order<float>({2, 3, 4, 5}, pattern(120), kChannelsLast);
  auto out = zeros_tensor(ScalarType::Float, {2, 3, 20});
  auto o1 = zeros_tensor(ScalarType::Float, {0});
  auto o2 = zeros_tensor(ScalarType::Float, {0});
  KernelRunner r;
  EXPECT_EQ(r.run("aten::_native_batch_norm_legit_no_training.out",
                  {r.tensor(x), r.tensor(p.w), r.tensor(p.b), r.tensor(p.rm), r.tensor(p.rv),
                   r.d(0.1), r.d(1e-5), r.tensor(out), r.tensor(o1), r.tensor(o2)}),
            Error::InvalidArgument);
}

}  // namespace
}  // namespace testing
}  // namespace etr
