#!/usr/bin/env python3
"""Export Vulkan-delegated test fixtures with the OFFICIAL ExecuTorch toolchain.

Every program is lowered with the official flow::

    ep  = torch.export.export(model, example_inputs)
    pte = to_edge_transform_and_lower(ep, partitioner=[VulkanPartitioner()])
              .to_executorch().buffer

The pip wheel registers no Vulkan backend, so there is no official run to
compare with: the expected outputs are PyTorch eager (fp32). Cases named
*_fp16 are lowered with VulkanPartitioner(compile_options={"force_fp16": True})
and compared within 2e-2 of the output's scale (2e-3 otherwise).

Run (from the repository root; writes next to this file)::

    /opt/tv213/bin/python test/models/vulkan/export_vulkan_models.py          # all cases
    /opt/tv213/bin/python test/models/vulkan/export_vulkan_models.py mlp      # a subset
    # the torchvision models (torchvision is in the torch 2.11 venv only):
    /opt/tv/bin/python test/models/vulkan/export_vulkan_models.py mobilenet_v2 mobilenet_v3_small

Outputs (relative to test/models/vulkan/):

* `<case>.pte`
* `<case>/a_in<i>.npy`, `<case>/a_out<i>.npy` (inputs, eager outputs)
* `manifest.txt`  same line format as test/models/manifest.txt; tolerance
  atol = 2e-3 * max|eager output| (rounded up to two digits), rtol = 0
* `OPS.md`        per case, the operator names each Vulkan payload calls, in
  chain order (read back from the payload with the official schema)

Every case seeds torch's RNG itself, so re-running gives the same files.
"""
import math
import os
import sys
from typing import Callable, Dict, List, Tuple

import numpy as np
import torch
from executorch.backends.vulkan.partitioner.vulkan_partitioner import VulkanPartitioner
from executorch.exir import to_edge_transform_and_lower

HERE = os.path.dirname(os.path.abspath(__file__))


class Mlp(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.l1 = torch.nn.Linear(16, 32)
        self.l2 = torch.nn.Linear(32, 24)
        self.l3 = torch.nn.Linear(24, 10)

    def forward(self, x):
        return self.l3(torch.relu(self.l2(torch.relu(self.l1(x)))))


class Elementwise(torch.nn.Module):
    """Binary ops with broadcasting and alpha, and the unary activations."""

    def forward(self, x, y, z):
        a = torch.add(x, y, alpha=2.5)  # [2,3,4] + [4]
        b = torch.sub(a, z, alpha=0.5)  # [2,3,4] - [2,1,4]
        c = b * torch.sigmoid(x)
        d = c / (torch.abs(y) + 1.5)
        e = torch.relu(d) + torch.tanh(c)
        f = torch.nn.functional.hardtanh(e, -0.75, 0.8) + torch.clamp(d, -1.0, 0.5)
        g = torch.nn.functional.silu(f) + torch.nn.functional.gelu(e)
        h = torch.nn.functional.hardswish(g)
        return h, e


class Softmax(torch.nn.Module):
    def forward(self, x):
        return torch.softmax(x * 3.0, dim=-1)


class Matmul(torch.nn.Module):
    """bmm, mm and a reshape around them."""

    def forward(self, a, b, w):
        c = torch.bmm(a, b)  # [2,5,6] @ [2,6,7]
        d = c.reshape(10, 7)
        return torch.mm(d, w)  # [10,7] @ [7,3]


class Partial(torch.nn.Module):
    """A linear layer (Vulkan), cumsum (not taken: CPU kernel), another linear (Vulkan)."""

    def __init__(self):
        super().__init__()
        self.l1 = torch.nn.Linear(8, 12)
        self.l2 = torch.nn.Linear(12, 5)

    def forward(self, x):
        h = torch.relu(self.l1(x))
        h = torch.cumsum(h, dim=-1)
        return torch.sigmoid(self.l2(h))


class Cnn(torch.nn.Module):
    """Regular, depthwise and pointwise convolutions, pooling, a linear head."""

    def __init__(self):
        super().__init__()
        self.conv1 = torch.nn.Conv2d(3, 8, 3, padding=1)
        self.dw = torch.nn.Conv2d(8, 8, 3, stride=2, padding=1, groups=8)
        self.pw = torch.nn.Conv2d(8, 12, 1)
        self.conv2 = torch.nn.Conv2d(12, 6, 3, padding=2, dilation=2, bias=False)
        self.fc = torch.nn.Linear(6, 5)

    def forward(self, x):
        h = torch.relu(self.conv1(x))
        h = torch.nn.functional.max_pool2d(h, 2)
        h = torch.nn.functional.hardtanh(self.dw(h), 0.0, 6.0)
        h = self.pw(h)
        h = torch.nn.functional.avg_pool2d(h, 2, stride=1)
        h = self.conv2(h)
        h = h.mean(dim=(2, 3))
        return self.fc(h)


class Permute(torch.nn.Module):
    """transpose/permute and log_softmax."""

    def forward(self, x):
        y = x.permute(2, 0, 1) * 2.0
        return torch.log_softmax(y.transpose(0, 2), dim=1)


class Encoder(torch.nn.Module):
    """A pre-norm transformer encoder layer: layer norm, attention (linear,
    view, transpose, bmm via matmul, softmax), GELU MLP, residual adds."""

    def __init__(self, d=16, heads=2):
        super().__init__()
        self.heads = heads
        self.ln1 = torch.nn.LayerNorm(d)
        self.qkv = torch.nn.Linear(d, 3 * d)
        self.proj = torch.nn.Linear(d, d)
        self.ln2 = torch.nn.LayerNorm(d)
        self.fc1 = torch.nn.Linear(d, 4 * d)
        self.fc2 = torch.nn.Linear(4 * d, d)

    def forward(self, x):
        b, t, d = x.shape
        h = self.ln1(x)
        q, k, v = self.qkv(h).split(d, dim=-1)
        q = q.reshape(b, t, self.heads, d // self.heads).transpose(1, 2)
        k = k.reshape(b, t, self.heads, d // self.heads).transpose(1, 2)
        v = v.reshape(b, t, self.heads, d // self.heads).transpose(1, 2)
        att = torch.softmax(q @ k.transpose(-1, -2) * (d // self.heads) ** -0.5, dim=-1)
        y = (att @ v).transpose(1, 2).reshape(b, t, d)
        x = x + self.proj(y)
        return x + self.fc2(torch.nn.functional.gelu(self.fc1(self.ln2(x))))


class Slicing(torch.nn.Module):
    """slice, select, cat and expand."""

    def forward(self, x, y):
        a = x[:, 1:4] * 2.0  # slice along dim 1
        b = x[:, ::2]  # slice with a step
        c = torch.cat([a, b, y], dim=1)
        d = x.select(2, 1).unsqueeze(-1).expand(2, 6, 3)
        return c + 1.0, d * 3.0


class NormUpsample(torch.nn.Module):
    """Batch norm (eval, calibrated statistics; one after a convolution, one
    that cannot fold), nearest and bilinear upsampling, hardsigmoid."""

    def __init__(self):
        super().__init__()
        self.conv = torch.nn.Conv2d(4, 6, 3, padding=1)
        self.bn1 = torch.nn.BatchNorm2d(6)
        self.bn2 = torch.nn.BatchNorm2d(4)
        with torch.no_grad():
            for bn in (self.bn1, self.bn2):
                bn.running_mean.uniform_(-0.5, 0.5)
                bn.running_var.uniform_(0.5, 2.0)
                bn.weight.uniform_(0.5, 1.5)
                bn.bias.uniform_(-0.2, 0.2)

    def forward(self, x):
        h = torch.nn.functional.hardswish(self.bn1(self.conv(x)))
        g = self.bn2(x * 2.0 + 1.0)
        up = torch.nn.functional.interpolate(h, scale_factor=2, mode="nearest")
        bl = torch.nn.functional.interpolate(g, size=(10, 12), mode="bilinear", align_corners=False)
        return torch.nn.functional.hardsigmoid(up), bl


class Embed(torch.nn.Module):
    """An embedding lookup (int64 indices) feeding a linear layer."""

    def __init__(self):
        super().__init__()
        self.emb = torch.nn.Embedding(20, 8)
        self.fc = torch.nn.Linear(8, 4)

    def forward(self, idx):
        return self.fc(torch.tanh(self.emb(idx)))


class Deconv(torch.nn.Module):
    """Transposed convolutions: stride 2 with output padding, and grouped
    with dilation and padding."""

    def __init__(self):
        super().__init__()
        self.up = torch.nn.ConvTranspose2d(4, 6, 3, stride=2, padding=1, output_padding=1)
        self.grouped = torch.nn.ConvTranspose2d(6, 4, 3, padding=1, dilation=2, groups=2,
                                                bias=False)

    def forward(self, x):
        return self.grouped(torch.relu(self.up(x)))


class MoreMath(torch.nn.Module):
    """The remaining elementwise and reduction operators."""

    def forward(self, x, y):
        a = torch.exp(x * 0.5) + torch.sqrt(torch.abs(y)) - torch.rsqrt(torch.abs(x) + 1.0)
        b = torch.maximum(-a, y) * torch.minimum(x, y)
        c = torch.pow(torch.abs(x) + 0.5, y)
        s = b.sum(dim=-1, keepdim=True)
        m = torch.amax(c, dim=1)
        n = torch.amin(a, dim=(0, 1))
        return b + s, m, n


class GroupNorm(torch.nn.Module):
    """Group norm: affine after a convolution (3 groups of 4 channels), and
    without weight and bias on the input (2 groups of 2 channels)."""

    def __init__(self):
        super().__init__()
        self.conv = torch.nn.Conv2d(4, 12, 3, padding=1)
        self.gn1 = torch.nn.GroupNorm(3, 12)
        self.gn2 = torch.nn.GroupNorm(2, 4, affine=False)
        with torch.no_grad():
            self.gn1.weight.uniform_(0.5, 1.5)
            self.gn1.bias.uniform_(-0.3, 0.3)

    def forward(self, x):
        return torch.nn.functional.silu(self.gn1(self.conv(x))), self.gn2(x * 3.0 + 0.5)


class Decoder(torch.nn.Module):
    """A pre-norm decoder layer with causal self-attention: the mask is a
    constant (-inf above the diagonal) added to the scores before softmax."""

    def __init__(self, d=16, heads=2, t=8):
        super().__init__()
        self.heads = heads
        self.ln1 = torch.nn.LayerNorm(d)
        self.qkv = torch.nn.Linear(d, 3 * d)
        self.proj = torch.nn.Linear(d, d)
        self.ln2 = torch.nn.LayerNorm(d)
        self.fc1 = torch.nn.Linear(d, 4 * d)
        self.fc2 = torch.nn.Linear(4 * d, d)
        self.register_buffer("mask", torch.triu(torch.full((t, t), float("-inf")), 1))

    def forward(self, x):
        b, t, d = x.shape
        hd = d // self.heads
        q, k, v = self.qkv(self.ln1(x)).split(d, dim=-1)
        q = q.reshape(b, t, self.heads, hd).transpose(1, 2)
        k = k.reshape(b, t, self.heads, hd).transpose(1, 2)
        v = v.reshape(b, t, self.heads, hd).transpose(1, 2)
        scores = q @ k.transpose(-1, -2) * hd**-0.5 + self.mask[:t, :t]
        y = (torch.softmax(scores, dim=-1) @ v).transpose(1, 2).reshape(b, t, d)
        x = x + self.proj(y)
        return x + self.fc2(torch.relu(self.fc1(self.ln2(x))))


class DynamicSeq(torch.nn.Module):
    """Exported with a dynamic batch Dim(1..4) and sequence length Dim(2..6):
    the payload's tensors have the upper bounds, sym_size/mul compute the
    flattened row count for the views around each linear layer."""

    def __init__(self):
        super().__init__()
        self.l1 = torch.nn.Linear(16, 32)
        self.ln = torch.nn.LayerNorm(32)
        self.l2 = torch.nn.Linear(32, 8)

    def forward(self, x):
        h = torch.relu(self.l1(x))
        h = self.ln(h) * torch.sigmoid(h)
        return torch.softmax(self.l2(h), dim=-1)


class BasicBlock(torch.nn.Module):
    """torchvision's ResNet BasicBlock (two 3x3 convolutions, batch norm,
    identity or 1x1-convolution shortcut)."""

    def __init__(self, cin, cout, stride):
        super().__init__()
        self.conv1 = torch.nn.Conv2d(cin, cout, 3, stride=stride, padding=1, bias=False)
        self.bn1 = torch.nn.BatchNorm2d(cout)
        self.conv2 = torch.nn.Conv2d(cout, cout, 3, padding=1, bias=False)
        self.bn2 = torch.nn.BatchNorm2d(cout)
        self.down = None
        if stride != 1 or cin != cout:
            self.down = torch.nn.Sequential(
                torch.nn.Conv2d(cin, cout, 1, stride=stride, bias=False), torch.nn.BatchNorm2d(cout)
            )

    def forward(self, x):
        h = torch.relu(self.bn1(self.conv1(x)))
        h = self.bn2(self.conv2(h))
        return torch.relu(h + (x if self.down is None else self.down(x)))


class ResNet18(torch.nn.Module):
    """ResNet18's topology (torchvision.models.resnet18: 7x7 stem, max pool,
    four stages of two BasicBlocks, global average pool, linear head) at a
    quarter of its width (16..128 channels instead of 64..512): torchvision's
    ResNet fixes BasicBlock widths, so the layers are written out here."""

    def __init__(self, width=16, num_classes=10):
        super().__init__()
        self.conv1 = torch.nn.Conv2d(3, width, 7, stride=2, padding=3, bias=False)
        self.bn1 = torch.nn.BatchNorm2d(width)
        blocks, cin = [], width
        for stage in range(4):
            cout = width * 2**stage
            for i in range(2):
                blocks.append(BasicBlock(cin, cout, 2 if stage > 0 and i == 0 else 1))
                cin = cout
        self.blocks = torch.nn.Sequential(*blocks)
        self.fc = torch.nn.Linear(cin, num_classes)

    def forward(self, x):
        h = torch.relu(self.bn1(self.conv1(x)))
        h = torch.nn.functional.max_pool2d(h, 3, stride=2, padding=1)
        h = self.blocks(h)
        h = torch.nn.functional.adaptive_avg_pool2d(h, 1).flatten(1)
        return self.fc(h)


class DynamicCnn(torch.nn.Module):
    """Exported with dynamic H = 2*h and W = 2*w (h, w in 2..8): a regular
    convolution with batch norm, max and average pooling, a depthwise strided
    and a pointwise convolution, a transposed convolution, nearest and
    bilinear upsampling, cat along channels, expand, and a global mean; the
    payload's tensors have the upper bounds (16 x 16)."""

    def __init__(self):
        super().__init__()
        self.conv1 = torch.nn.Conv2d(3, 8, 3, padding=1)
        self.bn = torch.nn.BatchNorm2d(8)
        self.dw = torch.nn.Conv2d(8, 8, 3, stride=2, padding=1, groups=8)
        self.pw = torch.nn.Conv2d(8, 12, 1)
        self.up = torch.nn.ConvTranspose2d(12, 4, 2, stride=2)

    def forward(self, x):
        y = torch.relu(self.bn(self.conv1(x)))                        # [N, 8, H, W]
        p = torch.nn.functional.max_pool2d(y, 2)                        # [N, 8, H/2, W/2]
        a = torch.nn.functional.avg_pool2d(y, 3, stride=2, padding=1)   # [N, 8, H/2, W/2]
        z = self.pw(self.dw(y)) + a.mean(dim=1, keepdim=True)           # [N, 12, H/2, W/2]
        u = torch.nn.functional.interpolate(z, scale_factor=2.0, mode="nearest")
        b = torch.nn.functional.interpolate(p, scale_factor=2.0, mode="bilinear",
                                            align_corners=False)
        g = y.mean(dim=1, keepdim=True).expand(-1, 4, -1, -1)           # [N, 4, H, W]
        t = self.up(z) + g
        m = torch.cat([y, u, b, t], dim=1)                              # [N, 32, H, W]
        return m, m.mean(dim=(2, 3))


def calibrated(model: torch.nn.Module, shape) -> torch.nn.Module:
    """Random weights with batch-norm statistics measured on random inputs
    (cumulative averages over a few batches), then eval mode."""
    for m in model.modules():
        if isinstance(m, torch.nn.BatchNorm2d):
            m.reset_running_stats()
            m.momentum = None
    model.train()
    with torch.no_grad():
        for _ in range(4):
            model(torch.randn(*shape))
    return model.eval()


def mobilenet_v2():
    import torchvision  # only in the torch 2.11 venv (/opt/tv)

    m = torchvision.models.mobilenet_v2(width_mult=0.35, num_classes=10)
    return calibrated(m, (4, 3, 64, 64))


def mobilenet_v3_small():
    import torchvision

    m = torchvision.models.mobilenet_v3_small(width_mult=0.5, num_classes=10)
    return calibrated(m, (4, 3, 64, 64))


def resnet18():
    return calibrated(ResNet18(), (4, 3, 64, 64))


def cases() -> Dict[str, Tuple[Callable[[], torch.nn.Module], Callable[[], Tuple[torch.Tensor, ...]]]]:
    return {
        "mlp": (Mlp, lambda: (torch.randn(4, 16),)),
        "elementwise": (
            Elementwise,
            lambda: (torch.randn(2, 3, 4), torch.randn(4), torch.randn(2, 1, 4)),
        ),
        "softmax": (Softmax, lambda: (torch.randn(3, 4, 9),)),
        "matmul": (
            Matmul,
            lambda: (torch.randn(2, 5, 6), torch.randn(2, 6, 7), torch.randn(7, 3)),
        ),
        "partial": (Partial, lambda: (torch.randn(3, 8),)),
        "cnn": (Cnn, lambda: (torch.randn(1, 3, 16, 16),)),
        "permute": (Permute, lambda: (torch.randn(3, 4, 5),)),
        "encoder": (Encoder, lambda: (torch.randn(2, 5, 16),)),
        "slicing": (Slicing, lambda: (torch.randn(2, 6, 3), torch.randn(2, 2, 3))),
        "norm_upsample": (NormUpsample, lambda: (torch.randn(1, 4, 5, 6),)),
        "embed": (Embed, lambda: (torch.randint(0, 20, (2, 7)),)),
        "mlp_fp16": (Mlp, lambda: (torch.randn(4, 16),)),
        "cnn_fp16": (Cnn, lambda: (torch.randn(1, 3, 16, 16),)),
        "more_math": (MoreMath, lambda: (torch.randn(2, 3, 4), torch.randn(2, 3, 4))),
        "deconv": (Deconv, lambda: (torch.randn(1, 4, 5, 6),)),
        "mobilenet_v2": (mobilenet_v2, lambda: (torch.randn(1, 3, 64, 64),)),
        "mobilenet_v3_small": (mobilenet_v3_small, lambda: (torch.randn(1, 3, 64, 64),)),
        "resnet18": (resnet18, lambda: (torch.randn(1, 3, 64, 64),)),
        "resnet18_fp16": (resnet18, lambda: (torch.randn(1, 3, 64, 64),)),
        "decoder": (Decoder, lambda: (torch.randn(2, 8, 16),)),
        "group_norm": (GroupNorm, lambda: (torch.randn(2, 4, 5, 6),)),
        # Dynamic shapes: exported with DYNAMIC[name]'s dims; input set a is the
        # export example, the later sets (other shapes within the bounds) are
        # checked against eager too, on the same lowered program.
        "dynamic_seq": (DynamicSeq, lambda: (torch.randn(2, 3, 16),)),
        "dynamic_decoder": (Decoder, lambda: (torch.randn(2, 5, 16),)),
        "dynamic_cnn": (lambda: calibrated(DynamicCnn(), (4, 3, 12, 12)),
                        lambda: (torch.randn(1, 3, 12, 16),)),
    }


# Cases exported with dynamic dims: the dynamic_shapes argument of
# torch.export.export, and the further input sets (b, c, ...).
DYNAMIC = {
    "dynamic_seq": (
        lambda: ({0: torch.export.Dim("batch", min=1, max=4), 1: torch.export.Dim("seq", min=2, max=6)},),
        [lambda: (torch.randn(4, 6, 16),), lambda: (torch.randn(1, 2, 16),)],
    ),
    # The causal decoder with sequence Dim(2..7) (the mask constant is 8x8 and
    # sliced to the sequence length; with a dynamic batch too, the official
    # serializer fails on a sym_size it specialized to an int).
    "dynamic_decoder": (
        lambda: ({1: torch.export.Dim("seq", min=2, max=7)},),
        [lambda: (torch.randn(2, 7, 16),), lambda: (torch.randn(2, 2, 16),)],
    ),
    # Height and width: even, 4..16 (the pooling halves them, the upsampling
    # and the transposed convolution double them again before the cat).
    "dynamic_cnn": (
        lambda: ({2: 2 * torch.export.Dim("h", min=2, max=8),
                  3: 2 * torch.export.Dim("w", min=2, max=8)},),
        [lambda: (torch.randn(1, 3, 16, 16),), lambda: (torch.randn(1, 3, 4, 10),)],
    ),
}


def round_up2(x: float) -> float:
    """x rounded UP to two significant digits (stable manifest numbers)."""
    if x <= 0:
        return 1e-6
    e = math.floor(math.log10(x)) - 1
    return math.ceil(x / 10**e) * 10**e


def save_npy(path: str, t: torch.Tensor) -> None:
    np.save(path, np.ascontiguousarray(t.detach().contiguous().numpy()), allow_pickle=False)


def vulkan_ops(pte: bytes) -> List[List[str]]:
    """Operator names of every Vulkan payload in the program, in chain order."""
    import json
    import re
    import types

    from executorch.backends.vulkan.serialization import vulkan_graph_serialize
    from executorch.backends.vulkan.serialization.vulkan_graph_serialize import (
        extract_vk_flatbuffer,
        flatbuffer_to_vk_graph,
    )
    from executorch.exir._serialize._program import deserialize_pte_binary

    # flatc writes infinite doubles (a -inf mask fill) as bare inf/nan, which
    # Python's json refuses: read them as Infinity/NaN.
    def load_lenient(f):
        text = f.read().decode("ascii")
        text = re.sub(r"(?<=[\s:\[,])(-?)inf\b", r"\1Infinity", text)
        return json.loads(re.sub(r"(?<=[\s:\[,])-?nan\b", "NaN", text))

    saved = vulkan_graph_serialize.json  # restored: the exporter serializes with it
    vulkan_graph_serialize.json = types.SimpleNamespace(load=load_lenient)
    try:
        prog = deserialize_pte_binary(pte)
        prog = getattr(prog, "program", prog)
        out = []
        for plan in prog.execution_plan:
            for d in plan.delegates:
                if d.id != "VulkanBackend":
                    continue
                loc = d.processed
                data = prog.backend_delegate_data[loc.index].data
                g = flatbuffer_to_vk_graph(extract_vk_flatbuffer(data))
                out.append([c.name for c in g.chain])
    finally:
        vulkan_graph_serialize.json = saved
    return out


def export_case(name: str, make_model, make_inputs) -> Tuple[str, List[str]]:
    torch.manual_seed(0)
    model = make_model().eval()
    inputs = make_inputs()
    dynamic = DYNAMIC.get(name)
    input_sets = [inputs] + ([f() for f in dynamic[1]] if dynamic else [])
    ep = torch.export.export(model, inputs, dynamic_shapes=dynamic[0]() if dynamic else None)
    # *_fp16 cases: the partitioner's force_fp16 (fp16 tensors and weights on
    # the device, fp32 inputs and outputs); tolerance 2e-2 of the output scale.
    fp16 = name.endswith("_fp16")
    partitioner = VulkanPartitioner(compile_options={"force_fp16": True}) if fp16 else VulkanPartitioner()
    et = to_edge_transform_and_lower(ep, partitioner=[partitioner]).to_executorch()
    pte = et.buffer
    with open(os.path.join(HERE, f"{name}.pte"), "wb") as f:
        f.write(pte)
    d = os.path.join(HERE, name)
    os.makedirs(d, exist_ok=True)
    lines = []
    for k, inputs in enumerate(input_sets):
        tag = "abcdefgh"[k]
        with torch.no_grad():
            expected = model(*inputs)
        if isinstance(expected, torch.Tensor):
            expected = (expected,)
        ins, outs = [], []
        for i, t in enumerate(inputs):
            save_npy(os.path.join(d, f"{tag}_in{i}.npy"), t)
            ins.append(f"{name}/{tag}_in{i}.npy")
        scale = 0.0
        for i, t in enumerate(expected):
            save_npy(os.path.join(d, f"{tag}_out{i}.npy"), t)
            outs.append(f"{name}/{tag}_out{i}.npy")
            scale = max(scale, float(t.abs().max()))
        tol = 2e-2 if fp16 else 2e-3
        atol = round_up2(tol * scale)
        shapes = " x ".join(str(list(t.shape)) for t in inputs)
        lines.append(
            f"# {name}/forward/{tag}: inputs {shapes}; output scale max|eager| = {scale:.3g}; "
            f"atol = {tol:g}*scale = {atol:.2g}\n"
            f"pte={name}.pte method=forward inputs={','.join(ins)} expected={','.join(outs)} "
            f"executions=2 rtol=0 atol={atol:.2g}"
        )
    ops = vulkan_ops(pte)
    md = [f"## {name}", ""]
    for k, chain in enumerate(ops):
        md.append(f"delegate {k}: " + ", ".join(chain))
    md.append("")
    return "\n".join(lines), md


HEADER = """# Test manifest for the Vulkan-delegated fixtures in this directory (generated by export_vulkan_models.py).
# One check per line: whitespace-separated key=value tokens
#   pte=<file> method=<name> inputs=<paths|-> expected=<paths|-> executions=<N> rtol=<r> atol=<a>
# Load the method fresh, set the inputs, execute it N times with the same inputs,
# then compare the outputs of the LAST execution with the expected files (PyTorch eager).
# Tolerance: fp32 within 2e-3 of the output's scale (atol = 2e-3 * max|expected|, rtol = 0);
# *_fp16 cases (force_fp16) within 2e-2.
# A case with several lines (a, b, ...) was exported with dynamic dims: each line is one
# input shape within the bounds, on the same program.
"""


def main(argv: List[str]) -> None:
    all_cases = cases()
    names = argv or list(all_cases)
    lines: Dict[str, str] = {}
    mds: Dict[str, List[str]] = {}
    for n in names:
        line, md = export_case(n, *all_cases[n])
        lines[n] = line
        mds[n] = md
        print(line)
        print("\n".join(md))
    # Keep other cases' lines when only a subset was exported.
    manifest = os.path.join(HERE, "manifest.txt")
    old: Dict[str, str] = {}
    if os.path.exists(manifest):
        cur = None
        for l in open(manifest).read().split("\n## case ")[1:]:
            cur = l.split("\n", 1)
            old[cur[0].strip()] = cur[1].strip()
    with open(manifest, "w") as f:
        f.write(HEADER)
        for n in all_cases:
            body = lines.get(n) or old.get(n)
            if body:
                f.write(f"\n## case {n}\n{body}\n")
    ops_md = os.path.join(HERE, "OPS.md")
    old_md: Dict[str, str] = {}
    if os.path.exists(ops_md):
        for part in open(ops_md).read().split("\n## ")[1:]:
            old_md[part.split("\n", 1)[0].strip()] = "## " + part.strip() + "\n"
    with open(ops_md, "w") as f:
        f.write("# Operators in each Vulkan payload (generated by export_vulkan_models.py)\n\n")
        for n in all_cases:
            if n in mds:
                f.write("\n".join(mds[n]) + "\n")
            elif n in old_md:
                f.write(old_md[n] + "\n")


if __name__ == "__main__":
    main(sys.argv[1:])
