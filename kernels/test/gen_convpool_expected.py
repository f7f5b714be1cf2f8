#!/usr/bin/env python3
"""Expected values of op_conv3d_test.cpp, op_pool3d_test.cpp and
op_channels_last_test.cpp, computed by PyTorch eager (CPU, float32).

    /opt/tv/bin/python kernels/test/gen_convpool_expected.py > /tmp/expected.txt

prints one `const std::vector<...> kName = {...};` block per file (between
`// ---- <file>` markers); each block is pasted into the anonymous namespace
of its test file. Inputs follow pat(n, mul, mod) = ((i * mul) % mod - mod / 2)
* 0.25, the same pattern the tests build. Layout-test inputs are converted to
channels_last / channels_last_3d before the call, so PyTorch's own
channels-last kernels produce the values (compared in logical order).
"""

import torch

torch.set_grad_enabled(False)
aten = torch.ops.aten


def pat(n, mul=37, mod=17, dtype=torch.float32):
    return torch.tensor([((i * mul) % mod - mod // 2) * 0.25 for i in range(n)], dtype=dtype)


def t(shape, mul=37, mod=17, dtype=torch.float32):
    n = 1
    for s in shape:
        n *= s
    return pat(n, mul, mod, dtype).reshape(shape)


def cl(x):
    if x.dim() == 4:
        return x.contiguous(memory_format=torch.channels_last)
    if x.dim() == 5:
        return x.contiguous(memory_format=torch.channels_last_3d)
    return x


def fmt(name, v, ctype="float"):
    v = v.detach().contiguous().reshape(-1).tolist()
    if ctype == "int64_t":
        body = ", ".join(str(int(x)) for x in v)
    else:
        suffix = "f" if ctype == "float" else ""

        def lit(x):
            r = f"{x:.17g}" if ctype == "double" else f"{x:.9g}"
            return (r if any(c in r for c in ".e") else r + ".0") + suffix

        body = ", ".join(lit(x) for x in v)
    return f"const std::vector<{ctype}> {name} = {{{body}}};"


def conv(x, w, b, stride, padding, dilation, transposed, output_padding, groups):
    return aten.convolution(x, w, b, stride, padding, dilation, transposed, output_padding, groups)


out = []

# ---------------------------------------------------------------- conv3d
out.append("// ---- op_conv3d_test.cpp")
x = t([1, 2, 4, 5, 5])
w = t([3, 2, 3, 3, 3], 13, 11)
b = t([3], 5, 7)
out.append(fmt("kConv3dPadBias", conv(x, w, b, [1, 1, 1], [1, 1, 1], [1, 1, 1], False, [0, 0, 0], 1)))
# The same call with channels_last_3d input and weight.
y = conv(cl(x), cl(w), b, [1, 1, 1], [1, 1, 1], [1, 1, 1], False, [0, 0, 0], 1)
out.append(fmt("kConv3dPadBiasCl", y))

x = t([2, 4, 5, 6, 7], 29, 23)
w = t([4, 2, 2, 3, 2], 31, 19)
out.append(fmt("kConv3dGroupStrideDil",
               conv(x, w, None, [1, 2, 1], [1, 1, 0], [2, 1, 2], False, [0, 0, 0], 2)))
out.append(fmt("kConv3dGroupStrideDilCl",
               conv(cl(x), w, None, [1, 2, 1], [1, 1, 0], [2, 1, 2], False, [0, 0, 0], 2)))

x = t([1, 4, 2, 3, 3])
w = t([4, 1, 2, 3, 3], 13, 11)
b = t([2], 5, 7)
out.append(fmt("kConv3dTransposed",
               conv(x, w, b, [2, 2, 1], [0, 1, 1], [1, 1, 1], True, [1, 1, 0], 2)))
out.append(fmt("kConv3dTransposedCl",
               conv(cl(x), cl(w), b, [2, 2, 1], [0, 1, 1], [1, 1, 1], True, [1, 1, 0], 2)))

xd = t([1, 3, 3, 4, 4], 37, 17, torch.float64)
wd = t([3, 1, 2, 2, 2], 13, 11, torch.float64)
out.append(fmt("kConv3dDepthwiseDouble",
               conv(cl(xd), wd, None, [1, 2, 2], [1, 0, 1], [1, 1, 1], False, [0, 0, 0], 3),
               "double"))

# ---------------------------------------------------------------- pool3d
out.append("// ---- op_pool3d_test.cpp")
x = t([1, 2, 5, 6, 7], 37, 421)
v, i = aten.max_pool3d_with_indices(x, [3, 2, 3], [2, 2, 2], [1, 1, 1], [1, 2, 1], True)
out.append(fmt("kMaxPool3dVals", v))
out.append(fmt("kMaxPool3dIdx", i, "int64_t"))
vc, ic = aten.max_pool3d_with_indices(cl(x), [3, 2, 3], [2, 2, 2], [1, 1, 1], [1, 2, 1], True)
assert torch.equal(vc, v) and torch.equal(ic, i)

x = t([2, 4, 5, 6], 37, 241)
v, i = aten.max_pool3d_with_indices(x, [2, 2, 2], [], [0, 0, 0], [1, 1, 1], False)
out.append(fmt("kMaxPool3dUnbatchedVals", v))
out.append(fmt("kMaxPool3dUnbatchedIdx", i, "int64_t"))

x = t([1, 2, 5, 6, 7], 29, 23)
out.append(fmt("kAvgPool3dInclCeil", aten.avg_pool3d(x, [3, 3, 3], [2, 2, 2], [1, 1, 1], True, True, None)))
out.append(fmt("kAvgPool3dExcl", aten.avg_pool3d(x, [3, 2, 3], [2, 1, 2], [1, 1, 0], False, False, None)))
out.append(fmt("kAvgPool3dDivisor", aten.avg_pool3d(x, [2, 2, 2], [1, 1, 1], [0, 0, 0], False, True, 3)))
y = aten.avg_pool3d(cl(x), [3, 2, 3], [2, 1, 2], [1, 1, 0], False, False, None)
assert torch.allclose(y, aten.avg_pool3d(x, [3, 2, 3], [2, 1, 2], [1, 1, 0], False, False, None))

x = t([2, 3, 5, 6, 7], 37, 17)
out.append(fmt("kAdaptiveAvgPool3d", aten._adaptive_avg_pool3d(x, [2, 3, 4])))
y = aten._adaptive_avg_pool3d(cl(x), [2, 3, 4])
assert torch.allclose(y, aten._adaptive_avg_pool3d(x, [2, 3, 4]))

# ---------------------------------------------------------------- channels-last (2-D) and BN
out.append("// ---- op_channels_last_test.cpp")
x = t([2, 4, 5, 6])
w = t([6, 2, 3, 3], 13, 11)
b = t([6], 5, 7)
y = conv(cl(x), w, b, [1, 1], [1, 1], [1, 1], False, [0, 0], 2)
assert y.is_contiguous(memory_format=torch.channels_last)
out.append(fmt("kConvGrouped", y))

x = t([1, 3, 7, 6], 29, 23)
w = t([3, 1, 3, 3], 31, 19)
out.append(fmt("kConvDepthwise", conv(cl(x), cl(w), None, [2, 2], [1, 0], [1, 2], False, [0, 0], 3)))

x = t([1, 4, 3, 4])
w = t([4, 3, 3, 2], 13, 11)
b = t([6], 5, 7)
out.append(fmt("kConvTransposed",
               conv(cl(x), cl(w), b, [2, 1], [1, 0], [1, 2], True, [1, 0], 2)))

x = t([1, 3, 4, 4], 29, 23)
w = t([5, 3, 1, 1], 31, 19)
b = t([5], 5, 7)
out.append(fmt("kConvPointwise", conv(x, cl(w), b, [1, 1], [0, 0], [1, 1], False, [0, 0], 1)))

x = t([4, 3, 5], 37, 17)
w = t([2, 3, 2], 13, 11)
out.append(fmt("kConv1d", conv(x, w, None, [2], [1], [1], False, [0], 1)))

x = t([2, 3, 5, 6], 37, 181)
v, i = aten.max_pool2d_with_indices(cl(x), [3, 2], [2, 1], [1, 1], [1, 2], True)
assert v.is_contiguous(memory_format=torch.channels_last)
out.append(fmt("kMaxPool2dVals", v))
out.append(fmt("kMaxPool2dIdx", i, "int64_t"))
go = t(list(v.shape), 29, 23)
gi = aten.max_pool2d_with_indices_backward(cl(go), cl(x), [3, 2], [2, 1], [1, 1], [1, 2], True, i)
out.append(fmt("kMaxPool2dBackward", gi))

x = t([2, 3, 5, 6], 29, 23)
out.append(fmt("kAvgPool2d", aten.avg_pool2d(cl(x), [3, 3], [2, 2], [1, 1], True, False, None)))
x = t([2, 3, 5, 7], 37, 17)
out.append(fmt("kAdaptiveAvgPool2d", aten._adaptive_avg_pool2d(cl(x), [3, 4])))

x = t([2, 3, 4, 5], 37, 17)
w = t([3], 5, 7) + 1.0
bb = t([3], 3, 5)
rm = t([3], 7, 11)
rv = t([3], 5, 13).abs() + 0.5
y, _, _ = aten._native_batch_norm_legit_no_training(cl(x), w, bb, rm, rv, 0.1, 1e-5)
out.append(fmt("kBnEval", y))
rm2, rv2 = rm.clone(), rv.clone()
y, sm, si = aten._native_batch_norm_legit(cl(x), w, bb, rm2, rv2, True, 0.1, 1e-5)
out.append(fmt("kBnTrainOut", y))
out.append(fmt("kBnTrainMean", sm))
out.append(fmt("kBnTrainInvstd", si))
out.append(fmt("kBnTrainRunningMean", rm2))
out.append(fmt("kBnTrainRunningVar", rv2))
x5 = t([2, 3, 2, 3, 4], 29, 23)
y, sm, si = aten._native_batch_norm_legit(cl(x5), w, None, True, 0.1, 1e-5)
out.append(fmt("kBnNoStatsOut", y))
out.append(fmt("kBnNoStatsMean", sm))
out.append(fmt("kBnNoStatsInvstd", si))

print("\n".join(out))
