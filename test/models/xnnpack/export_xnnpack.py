#!/usr/bin/env python3
"""Export XNNPACK-delegated test fixtures: `.pte` files (plus a `.ptd` for the
external-weights case), `.npy` inputs and expected outputs, produced with the
OFFICIAL ExecuTorch toolchain (the pip package `executorch`).

Every program is lowered with the official flow::

    ep  = torch.export.export(model, example_inputs)
    pte = to_edge_transform_and_lower(ep, partitioner=[XnnpackPartitioner()])
              .to_executorch().buffer

Quantized programs first go through PT2E (`XNNPACKQuantizer` +
`get_symmetric_quantization_config`, `prepare_pt2e` / calibrate /
`convert_pt2e` from torchao) and are then exported and lowered the same way.

Expected outputs:

* float cases: PyTorch eager.  Before anything is written, each `.pte` is run
  on the official runtime (`executorch.runtime.Runtime`, whose wheel contains
  the XnnpackBackend) and must match eager within 1e-4 of the output scale
  (max |eager|); the measured max |official - eager| goes into the manifest
  as a comment.
* quantized cases: PyTorch eager of the converted (quantize/dequantize
  reference) model in `<tag>_out<i>.npy`, and the official runtime's output in
  `<tag>_official<i>.npy`.  The manifest compares against eager with an atol
  of whole output quantization steps and against the official output with
  one step.

Environment (recreate the venv)::

    python3 -m venv /opt/tv
    /opt/tv/bin/pip install executorch==1.5.1 torch==2.15.0 torchao==0.18.0
    # torchvision (mobilenet_v2 only; pure-Python model code is all we use).
    # No torchvision release for torch 2.15 existed on PyPI when these were
    # made; 0.29.2 (requires torch>=2.14) works.  --no-deps keeps torch as is.
    /opt/tv/bin/pip install --no-deps torchvision==0.29.2 pillow

Run (from the repository root; writes into the directory holding this file)::

    /opt/tv/bin/python test/models/xnnpack/export_xnnpack.py             # all cases
    /opt/tv/bin/python test/models/xnnpack/export_xnnpack.py mlp cnn     # a subset
    /opt/tv/bin/python test/models/xnnpack/export_xnnpack.py --describe  # NODES.md only

A subset run rewrites only those cases' files; `manifest.txt` keeps the old
lines of the other cases, and `NODES.md` is always regenerated from every
`.pte` present (by `--describe`, which a normal run also performs at the end).

Outputs (relative to test/models/xnnpack/):

* `<case>.pte`, and `<case>.ptd` for external_weights
* `<case>/<tag>_in<i>.npy`, `<case>/<tag>_out<i>.npy`
* `<case>/<tag>_official<i>.npy` (quantized cases)
* `manifest.txt`  (same line format as test/models/manifest.txt, plus a
  `data=<file>.ptd` token for programs with external data)
* `NODES.md`      what each delegate payload contains (XNNPACK node kinds,
  value datatypes, quant params, where the constants live, header layout)

Every case seeds torch's RNG itself and the quantizer's observers are
deterministic, so re-running gives byte-identical files.
"""

import argparse
import json
import math
import os
import re
import shutil
import subprocess
import sys
import tempfile
import warnings
from collections import Counter, OrderedDict
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, List, Optional, Tuple

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

from executorch.exir import ExecutorchBackendConfig, to_edge_transform_and_lower
from executorch.exir import schema
from executorch.exir._serialize._flatbuffer_program import _flatbuffer_to_program

HERE = os.path.dirname(os.path.abspath(__file__))

FLOAT_RTOL = 1e-4
FLOAT_REL_ATOL = 1e-4  # atol = FLOAT_REL_ATOL * max(|expected|) (at least 1e-6)


# --------------------------------------------------------------------------
# Case description
# --------------------------------------------------------------------------


@dataclass
class Check:
    tag: str
    inputs: List[torch.Tensor]
    expected: List[torch.Tensor]


@dataclass
class Case:
    name: str
    pte: bytes
    checks: List[Check]
    ptd: Optional[bytes] = None
    # None for float cases; for quantized cases the output quantization step
    # (scale of the last dequantize feeding the output), or an estimate for
    # dynamically quantized outputs (see the case).
    quant_step: Optional[float] = None
    notes: List[str] = field(default_factory=list)


CASE_BUILDERS: "OrderedDict[str, Callable[[], Case]]" = OrderedDict()


def case(name: str):
    def deco(fn):
        CASE_BUILDERS[name] = fn
        return fn

    return deco


# --------------------------------------------------------------------------
# Export helpers
# --------------------------------------------------------------------------


def xnnpack_partitioners():
    from executorch.backends.xnnpack.partition.xnnpack_partitioner import XnnpackPartitioner

    return [XnnpackPartitioner()]


def lower_et(ep, partitioner=None, backend_config=None):
    edge = to_edge_transform_and_lower(
        ep, partitioner=partitioner if partitioner is not None else xnnpack_partitioners()
    )
    return edge.to_executorch(backend_config or ExecutorchBackendConfig())


def lower(ep, partitioner=None) -> bytes:
    return bytes(lower_et(ep, partitioner).buffer)


def export(model: nn.Module, args, dynamic_shapes=None):
    return torch.export.export(model, tuple(args), dynamic_shapes=dynamic_shapes)


def eager(model, args) -> List[torch.Tensor]:
    with torch.no_grad():
        out = model(*args)
    if isinstance(out, (tuple, list)):
        return [o.detach().clone() for o in out]
    return [out.detach().clone()]


def calibrate_bn(model: nn.Module, shape, batches: int = 8, batch_size: int = 4):
    """Gives BatchNorm layers realistic running statistics: exact (cumulative)
    averages over a few random batches in train mode, then eval()."""
    bns = [m for m in model.modules() if isinstance(m, nn.modules.batchnorm._BatchNorm)]
    for bn in bns:
        bn.reset_running_stats()
        bn.momentum = None  # cumulative moving average
    model.train()
    with torch.no_grad():
        for _ in range(batches):
            model(torch.randn(batch_size, *shape[1:]))
    for bn in bns:
        bn.momentum = 0.1
    model.eval()
    return model


def quantize_pt2e(model: nn.Module, args, calib: List[Tuple], *, per_channel: bool, dynamic: bool = False):
    """PT2E: annotate with XNNPACKQuantizer, calibrate, convert."""
    from executorch.backends.xnnpack.quantizer.xnnpack_quantizer import (
        XNNPACKQuantizer,
        get_symmetric_quantization_config,
    )
    from torchao.quantization.pt2e.quantize_pt2e import convert_pt2e, prepare_pt2e

    qconfig = get_symmetric_quantization_config(is_per_channel=per_channel, is_dynamic=dynamic)
    quantizer = XNNPACKQuantizer().set_global(qconfig)
    gm = torch.export.export(model.eval(), tuple(args)).module()
    gm = prepare_pt2e(gm, quantizer)
    with torch.no_grad():
        for c in calib:
            gm(*c)
    return convert_pt2e(gm)


def output_quant_step(gm: torch.fx.GraphModule) -> float:
    """Scale of the dequantize_per_tensor that produces the (first) output."""
    out_node = next(n for n in gm.graph.nodes if n.op == "output")
    node = out_node.args[0]
    while isinstance(node, (tuple, list)):
        node = node[0]
    seen = 0
    while node is not None and seen < 16:
        tname = str(node.target)
        if "dequantize_per_tensor" in tname:
            scale = node.args[1]
            if isinstance(scale, torch.fx.Node):
                scale = getattr(gm, scale.target)
            return float(scale)
        ins = [a for a in node.args if isinstance(a, torch.fx.Node)]
        node = ins[0] if ins else None
        seen += 1
    raise RuntimeError("no dequantize_per_tensor feeds the output")


# --------------------------------------------------------------------------
# Models
# --------------------------------------------------------------------------


def make_mlp() -> nn.Module:
    return nn.Sequential(nn.Linear(16, 32), nn.ReLU(), nn.Linear(32, 8))


class Cnn(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 8, 3, padding=1)
        self.bn = nn.BatchNorm2d(8)
        self.pool = nn.MaxPool2d(2)
        self.conv2 = nn.Conv2d(8, 16, 3)
        self.gap = nn.AdaptiveAvgPool2d(1)
        self.fc = nn.Linear(16, 10)

    def forward(self, x):  # [1,3,16,16]
        x = self.pool(F.relu(self.bn(self.conv1(x))))  # [1,8,8,8]
        x = F.relu(self.conv2(x))  # [1,16,6,6]
        x = torch.flatten(self.gap(x), 1)  # [1,16]
        return self.fc(x)


class BasicBlock(nn.Module):
    def __init__(self, cin: int, cout: int, stride: int):
        super().__init__()
        self.conv1 = nn.Conv2d(cin, cout, 3, stride=stride, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(cout)
        self.conv2 = nn.Conv2d(cout, cout, 3, padding=1, bias=False)
        self.bn2 = nn.BatchNorm2d(cout)
        self.down = None
        if stride != 1 or cin != cout:
            self.down = nn.Sequential(
                nn.Conv2d(cin, cout, 1, stride=stride, bias=False), nn.BatchNorm2d(cout)
            )

    def forward(self, x):
        idt = x if self.down is None else self.down(x)
        y = F.relu(self.bn1(self.conv1(x)))
        y = self.bn2(self.conv2(y))
        return F.relu(y + idt)


class SmallResNet(nn.Module):
    """ResNet-18 topology (2 BasicBlocks per stage) with widths 16/32/64/128."""

    def __init__(self, widths=(16, 32, 64, 128), num_classes=10):
        super().__init__()
        self.stem = nn.Sequential(
            nn.Conv2d(3, widths[0], 7, stride=2, padding=3, bias=False),
            nn.BatchNorm2d(widths[0]),
            nn.ReLU(),
            nn.MaxPool2d(3, stride=2, padding=1),
        )
        blocks = []
        cin = widths[0]
        for i, w in enumerate(widths):
            stride = 1 if i == 0 else 2
            blocks += [BasicBlock(cin, w, stride), BasicBlock(w, w, 1)]
            cin = w
        self.blocks = nn.Sequential(*blocks)
        self.gap = nn.AdaptiveAvgPool2d(1)
        self.fc = nn.Linear(cin, num_classes)

    def forward(self, x):
        x = self.blocks(self.stem(x))
        return self.fc(torch.flatten(self.gap(x), 1))


def make_mobilenet_v2() -> nn.Module:
    import torchvision

    return torchvision.models.mobilenet_v2(width_mult=0.5, num_classes=10)


# --------------------------------------------------------------------------
# Float cases
# --------------------------------------------------------------------------


@case("mlp")
def build_mlp() -> Case:
    torch.manual_seed(101)
    m = make_mlp().eval()
    args = [torch.randn(2, 16)]
    return Case("mlp", lower(export(m, args)), [Check("a", args, eager(m, args))])


@case("cnn")
def build_cnn() -> Case:
    torch.manual_seed(102)
    m = calibrate_bn(Cnn(), (1, 3, 16, 16))
    args = [torch.randn(1, 3, 16, 16)]
    return Case("cnn", lower(export(m, args)), [Check("a", args, eager(m, args))])


@case("mobilenet_v2")
def build_mobilenet_v2() -> Case:
    torch.manual_seed(103)
    m = calibrate_bn(make_mobilenet_v2(), (1, 3, 64, 64))
    args = [torch.randn(1, 3, 64, 64)]
    return Case("mobilenet_v2", lower(export(m, args)), [Check("a", args, eager(m, args))])


@case("resnet18_small")
def build_resnet18_small() -> Case:
    torch.manual_seed(104)
    m = calibrate_bn(SmallResNet(), (1, 3, 64, 64))
    args = [torch.randn(1, 3, 64, 64)]
    return Case(
        "resnet18_small",
        lower(export(m, args)),
        [Check("a", args, eager(m, args))],
        notes=["torchvision resnet18 cannot be narrowed (BasicBlock needs width 64); "
               "own ResNet-18 topology with widths 16/32/64/128"],
    )


@case("transformer_encoder")
def build_transformer_encoder() -> Case:
    torch.manual_seed(105)
    layer = nn.TransformerEncoderLayer(d_model=32, nhead=4, dim_feedforward=64, batch_first=True)
    m = nn.TransformerEncoder(layer, num_layers=2, enable_nested_tensor=False).eval()
    args = [torch.randn(1, 8, 32)]
    return Case("transformer_encoder", lower(export(m, args)), [Check("a", args, eager(m, args))])


class Partial(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(16, 16)
        self.fc2 = nn.Linear(16, 8)

    def forward(self, x):  # [2,16]
        y = torch.cumsum(self.fc1(x), dim=1)  # cumsum: not handled by the XNNPACK partitioner
        return self.fc2(y)


@case("partial")
def build_partial() -> Case:
    torch.manual_seed(106)
    m = Partial().eval()
    args = [torch.randn(2, 16)]
    return Case(
        "partial",
        lower(export(m, args)),
        [Check("a", args, eager(m, args))],
        notes=["Linear -> cumsum (portable kernel, outside the delegates) -> Linear"],
    )


@case("dynamic_batch")
def build_dynamic_batch() -> Case:
    torch.manual_seed(107)
    m = make_mlp().eval()
    batch = torch.export.Dim("batch", min=1, max=8)
    ep = export(m, [torch.randn(2, 16)], dynamic_shapes=({0: batch},))
    a = [torch.randn(2, 16)]
    b = [torch.randn(5, 16)]
    return Case(
        "dynamic_batch",
        lower(ep),
        [Check("a", a, eager(m, a)), Check("b", b, eager(m, b))],
        notes=["batch dim is Dim(1..8): input set a has batch 2, input set b batch 5"],
    )


@case("external_weights")
def build_external_weights() -> Case:
    from executorch.exir.passes.external_constants_pass import (
        delegate_external_constants_pass_unlifted,
    )

    torch.manual_seed(108)
    m = make_mlp().eval()
    args = [torch.randn(2, 16)]
    # strict=True: non-strict re-export does not carry node.meta["custom"]
    # from the get_attr nodes to the lifted parameter placeholders (the tag
    # is then silently lost and everything stays in the PTE).
    gm = torch.export.export(m, tuple(args), strict=True).module()
    # Tag every constant (get_attr) of the unlifted module: the XNNPACK
    # backend then stores it in the named data of the tag "external_weights",
    # which to_executorch places in external_weights.ptd instead of the PTE.
    delegate_external_constants_pass_unlifted(module=gm, gen_tag_fn=lambda node: "external_weights")
    ep = torch.export.export(gm, tuple(args), strict=True)
    et = lower_et(ep)
    with tempfile.TemporaryDirectory() as d:
        et.write_tensor_data_to_file(d)
        files = sorted(os.listdir(d))
        if files != ["external_weights.ptd"]:
            raise RuntimeError(f"unexpected external data files {files}")
        with open(os.path.join(d, files[0]), "rb") as f:
            ptd = f.read()
    return Case(
        "external_weights",
        bytes(et.buffer),
        [Check("a", args, eager(m, args))],
        ptd=ptd,
        notes=["weights tagged with delegate_external_constants_pass_unlifted(tag 'external_weights'); "
               "the XNNPACK payload refers to them by named key, the bytes are in external_weights.ptd",
               "without the .ptd the official runtime (executorch 1.5.1) loads the program but crashes "
               "(SIGSEGV) in load_method; a runtime should report an error instead"],
    )


# --------------------------------------------------------------------------
# Quantized cases
# --------------------------------------------------------------------------


@case("q_cnn_per_tensor")
def build_q_cnn_per_tensor() -> Case:
    torch.manual_seed(109)
    m = calibrate_bn(Cnn(), (1, 3, 16, 16))
    args = [torch.randn(1, 3, 16, 16)]
    calib = [(torch.randn(1, 3, 16, 16),) for _ in range(8)] + [tuple(args)]
    qm = quantize_pt2e(m, args, calib, per_channel=False)
    pte = lower(export(qm, args))
    return Case(
        "q_cnn_per_tensor",
        pte,
        [Check("a", args, eager(qm, args))],
        quant_step=output_quant_step(qm),
        notes=["static int8, per-tensor weights (XNNPACKQuantizer, is_per_channel=False)"],
    )


@case("q_mobilenet_v2")
def build_q_mobilenet_v2() -> Case:
    torch.manual_seed(110)
    m = calibrate_bn(make_mobilenet_v2(), (1, 3, 64, 64))
    args = [torch.randn(1, 3, 64, 64)]
    calib = [(torch.randn(1, 3, 64, 64),) for _ in range(8)] + [tuple(args)]
    qm = quantize_pt2e(m, args, calib, per_channel=True)
    pte = lower(export(qm, args))
    return Case(
        "q_mobilenet_v2",
        pte,
        [Check("a", args, eager(qm, args))],
        quant_step=output_quant_step(qm),
        notes=["static int8, per-channel weights (XNNPACKQuantizer, is_per_channel=True)"],
    )


@case("dq_mlp")
def build_dq_mlp() -> Case:
    from executorch.backends.xnnpack.partition.xnnpack_partitioner import (
        XnnpackDynamicallyQuantizedPartitioner,
        XnnpackPartitioner,
    )

    torch.manual_seed(111)
    m = make_mlp().eval()
    args = [torch.randn(2, 16)]
    qm = quantize_pt2e(m, args, [tuple(args)], per_channel=True, dynamic=True)
    pte = lower(
        export(qm, args),
        partitioner=[XnnpackDynamicallyQuantizedPartitioner(), XnnpackPartitioner()],
    )
    # The output is float (no output quantization).  The reference model
    # quantizes the activations per TENSOR (choose_qparams.tensor over the
    # whole [2,32] input of the last Linear), XNNPACK per ROW (qdint8 with
    # PerTokenDynamicQuant), so the two differ by rounding.  "One step" here:
    # the reference's input scale of the last Linear times the largest L1
    # norm of a weight row, i.e. the most one input-quantization step can
    # move an output (twice the worst-case rounding error).
    with torch.no_grad():
        h = torch.relu(m[0](args[0]))  # input of the last Linear [2,32]
        lo = min(float(h.min()), 0.0)
        hi = max(float(h.max()), 0.0)
        s_in = (hi - lo) / 255.0  # int8 range [-128, 127]
        step = s_in * float(m[2].weight.abs().sum(dim=1).max())
    return Case(
        "dq_mlp",
        pte,
        [Check("a", args, eager(qm, args))],
        quant_step=step,
        notes=["dynamic int8 activations (per token), per-channel int8 weights; "
               "partitioners [XnnpackDynamicallyQuantizedPartitioner(), XnnpackPartitioner()]",
               "eager reference quantizes activations per tensor, XNNPACK per row (PerTokenDynamicQuant)",
               "output is float: 'step' = per-tensor input scale of the last Linear * max row L1 norm of "
               "its weight (largest change one input-quantization step can cause)"],
    )


# --------------------------------------------------------------------------
# Larger models (issue 7)
# --------------------------------------------------------------------------


def make_mobilenet_v3_small() -> nn.Module:
    import torchvision

    m = torchvision.models.mobilenet_v3_small(width_mult=0.5, num_classes=10)
    # torchvision initializes the classifier with N(0, 0.01): logits ~5e-3.
    # PyTorch's default Linear init gives outputs of order 1.
    for mod in m.classifier.modules():
        if isinstance(mod, nn.Linear):
            mod.reset_parameters()
    return m


@case("mobilenet_v3_small")
def build_mobilenet_v3_small() -> Case:
    torch.manual_seed(112)
    m = calibrate_bn(make_mobilenet_v3_small(), (1, 3, 96, 96))
    args = [torch.randn(1, 3, 96, 96)]
    return Case(
        "mobilenet_v3_small",
        lower(export(m, args)),
        [Check("a", args, eager(m, args))],
        notes=["torchvision mobilenet_v3_small(width_mult=0.5, num_classes=10), 1x3x96x96; "
               "hardswish, hardsigmoid, squeeze-excitation (adaptive avg pool + broadcast mul)"],
    )


class LstmHead(nn.Module):
    """2-layer batch_first LSTM over [2, 8, 16] and a Linear head on every step."""

    def __init__(self):
        super().__init__()
        self.lstm = nn.LSTM(16, 32, num_layers=2, batch_first=True)
        self.head = nn.Linear(32, 10)

    def forward(self, x):  # [2,8,16] -> [2,8,10]
        y, _ = self.lstm(x)
        return self.head(y)


@case("lstm")
def build_lstm() -> Case:
    torch.manual_seed(113)
    m = LstmHead().eval()
    args = [torch.randn(2, 8, 16)]
    return Case(
        "lstm",
        lower(export(m, args)),
        [Check("a", args, eager(m, args))],
        notes=["nn.LSTM(16, 32, num_layers=2, batch_first=True) + Linear(32, 10); input [2,8,16]"],
    )


class DecoderBlock(nn.Module):
    def __init__(self, d: int, heads: int, ff: int):
        super().__init__()
        self.heads = heads
        self.ln1 = nn.LayerNorm(d)
        self.qkv = nn.Linear(d, 3 * d)
        self.proj = nn.Linear(d, d)
        self.ln2 = nn.LayerNorm(d)
        self.fc1 = nn.Linear(d, ff)
        self.fc2 = nn.Linear(ff, d)

    def forward(self, x, mask):  # x [B,S,D], mask [S,S] (0 / -inf)
        b, s, d = x.shape
        hd = d // self.heads
        q, k, v = self.qkv(self.ln1(x)).split(d, dim=-1)
        q = q.reshape(b, s, self.heads, hd).transpose(1, 2)
        k = k.reshape(b, s, self.heads, hd).transpose(1, 2)
        v = v.reshape(b, s, self.heads, hd).transpose(1, 2)
        att = torch.softmax(q @ k.transpose(-2, -1) * (1.0 / math.sqrt(hd)) + mask, dim=-1)
        y = (att @ v).transpose(1, 2).reshape(b, s, d)
        x = x + self.proj(y)
        return x + self.fc2(F.gelu(self.fc1(self.ln2(x))))


class DecoderLM(nn.Module):
    """Decoder-only LM: token + learned position embedding, 2 pre-LN blocks of
    causal self-attention (4 heads) and a GELU MLP, final LayerNorm, untied head."""

    def __init__(self, vocab: int = 64, d: int = 32, seq: int = 8, layers: int = 2):
        super().__init__()
        self.tok = nn.Embedding(vocab, d)
        self.pos = nn.Parameter(torch.randn(seq, d) * 0.1)
        self.blocks = nn.ModuleList([DecoderBlock(d, 4, 4 * d) for _ in range(layers)])
        self.ln_f = nn.LayerNorm(d)
        self.head = nn.Linear(d, vocab)
        self.register_buffer("mask", torch.full((seq, seq), float("-inf")).triu(1))

    def forward(self, tokens):  # [B,S] int64 -> logits [B,S,vocab]
        x = self.tok(tokens) + self.pos
        for blk in self.blocks:
            x = blk(x, self.mask)
        return self.head(self.ln_f(x))


def decoder_inputs() -> List[torch.Tensor]:
    return [torch.randint(0, 64, (2, 8), dtype=torch.long)]


@case("decoder_lm")
def build_decoder_lm() -> Case:
    torch.manual_seed(114)
    m = DecoderLM().eval()
    args = decoder_inputs()
    return Case(
        "decoder_lm",
        lower(export(m, args)),
        [Check("a", args, eager(m, args))],
        notes=["decoder-only LM: vocab 64, d_model 32, 4 heads, seq 8, batch 2, 2 pre-LN blocks "
               "(causal attention with a -inf mask, GELU MLP), untied head; tokens int64 [2,8]"],
    )


@case("q_resnet18")
def build_q_resnet18() -> Case:
    torch.manual_seed(115)
    m = calibrate_bn(SmallResNet(), (1, 3, 64, 64))
    args = [torch.randn(1, 3, 64, 64)]
    calib = [(torch.randn(1, 3, 64, 64),) for _ in range(8)] + [tuple(args)]
    qm = quantize_pt2e(m, args, calib, per_channel=True)
    pte = lower(export(qm, args))
    return Case(
        "q_resnet18",
        pte,
        [Check("a", args, eager(qm, args))],
        quant_step=output_quant_step(qm),
        notes=["static int8, per-channel weights (XNNPACKQuantizer, is_per_channel=True) of the "
               "resnet18_small topology (torchvision resnet18 cannot be narrowed); widths 16/32/64/128"],
    )


@case("dq_decoder")
def build_dq_decoder() -> Case:
    from executorch.backends.xnnpack.partition.xnnpack_partitioner import (
        XnnpackDynamicallyQuantizedPartitioner,
        XnnpackPartitioner,
    )

    torch.manual_seed(114)  # the decoder_lm weights
    m = DecoderLM().eval()
    args = decoder_inputs()
    qm = quantize_pt2e(m, args, [tuple(args)], per_channel=True, dynamic=True)
    pte = lower(
        export(qm, args),
        partitioner=[XnnpackDynamicallyQuantizedPartitioner(), XnnpackPartitioner()],
    )
    # Output is float; 'step' as for dq_mlp, for the LM head: per-tensor
    # input scale of the head times the largest L1 norm of a head weight row.
    with torch.no_grad():
        seen = {}
        hook = m.ln_f.register_forward_hook(lambda mod, i, o: seen.setdefault("h", o))
        m(*args)
        hook.remove()
        h = seen["h"]
        lo = min(float(h.min()), 0.0)
        hi = max(float(h.max()), 0.0)
        step = (hi - lo) / 255.0 * float(m.head.weight.abs().sum(dim=1).max())
    return Case(
        "dq_decoder",
        pte,
        [Check("a", args, eager(qm, args))],
        quant_step=step,
        notes=["decoder_lm (same weights) with dynamic int8 activations (per token) and "
               "per-channel int8 weights on every Linear; partitioners "
               "[XnnpackDynamicallyQuantizedPartitioner(), XnnpackPartitioner()]",
               "output is float: 'step' = per-tensor input scale of the LM head * max row L1 norm "
               "of its weight"],
    )


# --------------------------------------------------------------------------
# 4-bit weights (issue 7)
# --------------------------------------------------------------------------


def quantize_int4_torchao(model: nn.Module, granularity_of: Callable[[str, nn.Linear], Any]) -> nn.Module:
    """torchao's dynamic int8 activation / int4 weight config, the one the
    ExecuTorch XNNPACK docs use for 4-bit linear layers, applied to every
    Linear with the weight granularity granularity_of(fqn, module) gives."""
    from torchao.quantization.quant_api import Int8DynamicActivationIntxWeightConfig, quantize_

    for fqn, mod in list(model.named_modules()):
        if isinstance(mod, nn.Linear):
            cfg = Int8DynamicActivationIntxWeightConfig(
                weight_dtype=torch.int4, weight_granularity=granularity_of(fqn, mod))
            quantize_(mod, cfg, filter_fn=lambda m, name: isinstance(m, nn.Linear))
    return model


def dq4_step(model: nn.Module, last: nn.Module, args) -> float:
    """'One step' for a float output of dynamically quantized linears: the
    largest per-row input scale of `last` (int8, asymmetric) times the
    largest L1 norm of a row of its dequantized weight."""
    seen = {}
    hook = last.register_forward_pre_hook(lambda mod, i: seen.setdefault("h", i[0].detach()))
    with torch.no_grad():
        model(*args)
    hook.remove()
    h = seen["h"].reshape(-1, seen["h"].shape[-1])
    lo = torch.clamp(h.min(dim=1).values, max=0.0)
    hi = torch.clamp(h.max(dim=1).values, min=0.0)
    s_in = float(((hi - lo) / 255.0).max())
    w = last.weight
    w = w.dequantize() if hasattr(w, "dequantize") else w
    return s_in * float(w.detach().float().abs().sum(dim=1).max())


class Mlp4(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(64, 96)
        self.fc2 = nn.Linear(96, 64)
        self.fc3 = nn.Linear(64, 10)

    def forward(self, x):  # [3,64] -> [3,10]
        return self.fc3(torch.relu(self.fc2(torch.relu(self.fc1(x)))))


@case("dq4_mlp")
def build_dq4_mlp() -> Case:
    from torchao.quantization.granularity import PerAxis, PerGroup

    torch.manual_seed(116)
    m = Mlp4().eval()
    args = [torch.randn(3, 64)]
    qm = quantize_int4_torchao(m, lambda fqn, mod: PerAxis(0) if fqn == "fc3" else PerGroup(32))
    pte = lower(export(qm, args))
    return Case(
        "dq4_mlp",
        pte,
        [Check("a", args, eager(qm, args))],
        quant_step=dq4_step(qm, qm.fc3, args),
        notes=["torchao Int8DynamicActivationIntxWeightConfig(weight_dtype=torch.int4): fc1 (64->96) and "
               "fc2 (96->64) PerGroup(32), fc3 (64->10) PerAxis(0); partitioner [XnnpackPartitioner()]",
               "payload: Convert fp32->qdint8 (PerTokenDynamicQuant) + FullyConnected with qbint4 weights "
               "(PerChannelGroupQuant, bf16 block scales in named data; PerAxis -> group_size = inputs)",
               "eager reference: torchao's per-row int8 activations and fp32 block scales (the exporter "
               "rounds the scales to bf16)",
               "output is float: 'step' = largest per-row input scale of fc3 * max row L1 norm of its "
               "dequantized weight"],
    )


@case("dq4_decoder")
def build_dq4_decoder() -> Case:
    from torchao.quantization.granularity import PerGroup

    torch.manual_seed(114)  # the decoder_lm weights
    m = DecoderLM().eval()
    args = decoder_inputs()
    qm = quantize_int4_torchao(m, lambda fqn, mod: PerGroup(32))
    pte = lower(export(qm, args))
    return Case(
        "dq4_decoder",
        pte,
        [Check("a", args, eager(qm, args))],
        quant_step=dq4_step(qm, qm.head, args),
        notes=["decoder_lm (same weights) with torchao Int8DynamicActivationIntxWeightConfig("
               "weight_dtype=torch.int4, weight_granularity=PerGroup(32)) on every Linear; "
               "partitioner [XnnpackPartitioner()]",
               "output is float: 'step' = largest per-row input scale of the LM head * max row L1 norm "
               "of its dequantized weight"],
    )


@case("dq4pc_mlp")
def build_dq4pc_mlp() -> Case:
    from executorch.backends.xnnpack.partition.xnnpack_partitioner import (
        XnnpackDynamicallyQuantizedPartitioner,
        XnnpackPartitioner,
    )
    from executorch.backends.xnnpack.quantizer.xnnpack_quantizer import (
        XNNPACKQuantizer,
        get_symmetric_quantization_config,
    )
    from torchao.quantization.pt2e.quantize_pt2e import convert_pt2e, prepare_pt2e

    torch.manual_seed(117)
    m = Mlp4().eval()
    args = [torch.randn(3, 64)]
    qconfig = get_symmetric_quantization_config(is_per_channel=True, is_dynamic=True,
                                                weight_qmin=-8, weight_qmax=7)
    gm = torch.export.export(m, tuple(args)).module()
    gm = prepare_pt2e(gm, XNNPACKQuantizer().set_global(qconfig))
    with torch.no_grad():
        gm(*args)
    qm = convert_pt2e(gm)
    pte = lower(
        export(qm, args),
        partitioner=[XnnpackDynamicallyQuantizedPartitioner(), XnnpackPartitioner()],
    )
    with torch.no_grad():
        h = torch.relu(m.fc2(torch.relu(m.fc1(args[0]))))  # input of fc3 [3,64]
        lo = min(float(h.min()), 0.0)
        hi = max(float(h.max()), 0.0)
        step = (hi - lo) / 255.0 * float(m.fc3.weight.abs().sum(dim=1).max())
    return Case(
        "dq4pc_mlp",
        pte,
        [Check("a", args, eager(qm, args))],
        quant_step=step,
        notes=["per-channel 4-bit weights: PT2E XNNPACKQuantizer get_symmetric_quantization_config("
               "is_per_channel=True, is_dynamic=True, weight_qmin=-8, weight_qmax=7) on Mlp4; "
               "partitioners [XnnpackDynamicallyQuantizedPartitioner(), XnnpackPartitioner()]",
               "payload: FullyConnected with qcint4 weights (PerChannelQuant, fp32 scales in named data)",
               "eager reference quantizes activations per tensor, XNNPACK per row; 'step' as for dq_mlp "
               "(per-tensor input scale of fc3 * max row L1 norm of its float weight)"],
    )


class DqCnn(nn.Module):
    """Convolutions the dynamic-int8 quantizer rewrites (a 3x3 stride-2 stem, a 1x1, a
    dilated 3x3 with padding) around a float depthwise convolution, a residual add and
    a linear head: the node kinds of a dynamically quantized MobileNetV2."""

    def __init__(self):
        super().__init__()
        self.stem = nn.Conv2d(3, 8, 3, stride=2, padding=1)
        self.bn1 = nn.BatchNorm2d(8)
        self.dw = nn.Conv2d(8, 8, 3, padding=1, groups=8)
        self.bn2 = nn.BatchNorm2d(8)
        self.pw = nn.Conv2d(8, 16, 1)
        self.bn3 = nn.BatchNorm2d(16)
        self.dil = nn.Conv2d(16, 16, 3, padding=2, dilation=2)
        self.fc = nn.Linear(16, 10)

    def forward(self, x):
        y = F.relu6(self.bn1(self.stem(x)))
        y = F.relu6(self.bn2(self.dw(y)))
        y = self.bn3(self.pw(y))
        y = y + self.dil(y)
        return self.fc(y.mean((2, 3)))


@case("dq_cnn")
def build_dq_cnn() -> Case:
    torch.manual_seed(121)
    m = DqCnn().eval()
    with torch.no_grad():  # batch-norm statistics that keep the activations of order 1
        for bn in (m.bn1, m.bn2, m.bn3):
            bn.running_mean.uniform_(-0.2, 0.2)
            bn.running_var.uniform_(0.05, 0.3)
    args = [torch.randn(1, 3, 20, 20)]
    qm = quantize_pt2e(m, args, [tuple(args)], per_channel=True, dynamic=True)
    pte = lower(export(qm, args))
    # 'step' as for dq_mlp, for the linear head: its input's per-tensor scale
    # times the largest L1 norm of a row of its weight.
    with torch.no_grad():
        y = F.relu6(m.bn1(m.stem(args[0])))
        y = F.relu6(m.bn2(m.dw(y)))
        y = m.bn3(m.pw(y))
        h = (y + m.dil(y)).mean((2, 3))
        lo = min(float(h.min()), 0.0)
        hi = max(float(h.max()), 0.0)
        step = (hi - lo) / 255.0 * float(m.fc.weight.abs().sum(dim=1).max())
    return Case(
        "dq_cnn",
        pte,
        [Check("a", args, eager(qm, args))],
        quant_step=step,
        notes=["dynamic int8 convolutions: PT2E XNNPACKQuantizer get_symmetric_quantization_config("
               "is_per_channel=True, is_dynamic=True) on DqCnn; XnnpackPartitioner()",
               "payload: Convert fp32 -> qdint8 with PerTokenDynamicQuant num_nonbatch_dims=3 (one "
               "scale and zero point per image) feeding Conv2d qdint8 x qcint8 -> fp32 (3x3 stride 2, "
               "1x1, 3x3 dilation 2); the depthwise convolution stays fp32",
               "'step' as for dq_mlp, for the linear head (per-tensor input scale * max row L1 norm "
               "of its float weight)"],
    )


ALL_CASES = list(CASE_BUILDERS.keys())


# --------------------------------------------------------------------------
# Running and writing
# --------------------------------------------------------------------------


def run_official(pte_path: str, ptd_path: Optional[str], inputs: List[torch.Tensor]) -> List[torch.Tensor]:
    from executorch.runtime import Runtime

    prog = Runtime.get().load_program(pte_path, data_path=ptd_path)
    meth = prog.load_method("forward")
    out = meth.execute([t.clone() for t in inputs])
    return [o.clone() for o in out]


def save_npy(path: str, t: torch.Tensor) -> str:
    np.save(path, np.ascontiguousarray(t.detach().contiguous().numpy()), allow_pickle=False)
    return os.path.relpath(path, HERE)


def fmt(x: float) -> str:
    return f"{x:.3g}"


def round_up_2sig(x: float) -> float:
    """x rounded UP to two significant digits (stable manifest numbers)."""
    if x <= 0:
        return 0.0
    e = math.floor(math.log10(x)) - 1
    return math.ceil(x / 10**e - 1e-9) * 10**e


def emit_case(c: Case) -> List[str]:
    pte_path = os.path.join(HERE, c.name + ".pte")
    with open(pte_path, "wb") as f:
        f.write(c.pte)
    ptd_path = None
    if c.ptd is not None:
        ptd_path = os.path.join(HERE, c.name + ".ptd")
        with open(ptd_path, "wb") as f:
            f.write(c.ptd)
    case_dir = os.path.join(HERE, c.name)
    if os.path.isdir(case_dir):
        shutil.rmtree(case_dir)
    os.makedirs(case_dir)

    lines = [f"# {c.name}: {n}" for n in c.notes]
    for chk in c.checks:
        got = run_official(pte_path, ptd_path, chk.inputs)
        if len(got) != len(chk.expected):
            raise RuntimeError(f"{c.name}/{chk.tag}: {len(got)} outputs, expected {len(chk.expected)}")
        scale = max(float(e.abs().max()) for e in chk.expected)
        diff = max(float((g - e).abs().max()) for g, e in zip(got, chk.expected))
        for g, e in zip(got, chk.expected):
            if g.dtype != e.dtype or tuple(g.shape) != tuple(e.shape):
                raise RuntimeError(f"{c.name}/{chk.tag}: got {g.dtype}{tuple(g.shape)}, expected {e.dtype}{tuple(e.shape)}")

        in_paths = [save_npy(os.path.join(case_dir, f"{chk.tag}_in{i}.npy"), t) for i, t in enumerate(chk.inputs)]
        out_paths = [save_npy(os.path.join(case_dir, f"{chk.tag}_out{i}.npy"), t) for i, t in enumerate(chk.expected)]
        data_tok = [f"data={c.name}.ptd"] if c.ptd is not None else []

        def line(expected_paths, rtol, atol):
            return " ".join(
                [f"pte={c.name}.pte", "method=forward", "inputs=" + ",".join(in_paths),
                 "expected=" + ",".join(expected_paths), "executions=1",
                 f"rtol={rtol:g}", f"atol={atol:g}"] + data_tok
            )

        if c.quant_step is None:
            limit = FLOAT_REL_ATOL * scale
            if not diff <= limit:
                raise RuntimeError(
                    f"{c.name}/{chk.tag}: official runtime differs from eager by {diff:g} "
                    f"> {limit:g} (1e-4 * output scale {scale:g})"
                )
            atol = max(1e-6, round_up_2sig(FLOAT_REL_ATOL * scale))
            msg = (f"max|official-eager| = {fmt(diff)} (output scale max|eager| = {fmt(scale)}; "
                   f"rtol={FLOAT_RTOL:g}, atol=1e-4*scale={atol:g})")
            print(f"  {c.name:20s} {chk.tag}: {msg}")
            lines.append(f"# {c.name}/forward/{chk.tag}: {msg}")
            lines.append(line(out_paths, FLOAT_RTOL, atol))
        else:
            step = c.quant_step
            off_paths = [save_npy(os.path.join(case_dir, f"{chk.tag}_official{i}.npy"), t) for i, t in enumerate(got)]
            steps = diff / step
            n_steps = max(1, math.ceil(steps - 1e-6))
            atol_eager = round_up_2sig(n_steps * step * 1.0001)
            atol_off = round_up_2sig(step * 1.0001)
            msg = (f"output quantization step {step:.6g}; max|official-eager| = {fmt(diff)} "
                   f"({steps:.2f} steps; output scale {fmt(scale)})")
            print(f"  {c.name:20s} {chk.tag}: {msg}")
            lines.append(f"# {c.name}/forward/{chk.tag}: {msg}")
            lines.append(f"# {c.name}/forward/{chk.tag}: vs eager of the quantized model, atol = {n_steps} step(s)")
            lines.append(line(out_paths, 0.0, atol_eager))
            lines.append(f"# {c.name}/forward/{chk.tag}: vs the official runtime's output, atol = 1 step")
            lines.append(line(off_paths, 0.0, atol_off))
    return lines


MANIFEST_HEADER = """\
# Test manifest for the XNNPACK-delegated fixtures in this directory (generated by export_xnnpack.py).
# One check per line: whitespace-separated key=value tokens
#   pte=<file> method=<name> inputs=<paths|-> expected=<paths|-> executions=<N> rtol=<r> atol=<a> [expect_error=<word>] [data=<file.ptd>]
# Load the method fresh, set the inputs, execute it N times with the same inputs,
# then compare the outputs of the LAST execution with the expected files
# (paths relative to this directory).  Float tensors: |got-exp| <= atol + rtol*|exp|;
# integer/bool tensors and Int/Bool/String values: exact; Double values: same rule as float.
# data=<file.ptd>: load this external-data file (named data / weights) together with the program.
# Tolerances: float cases rtol=1e-4, atol=1e-4*max|expected| (rounded up to 2 digits);
# quantized cases compare twice: against eager of the quantized reference model with
# atol = whole output quantization steps (the number measured for the official runtime,
# at least 1), and against the official runtime's output with atol = 1 step.
"""


def read_old_manifest(path: str) -> Dict[str, List[str]]:
    old: Dict[str, List[str]] = {}
    if not os.path.exists(path):
        return old
    cur = None
    with open(path) as f:
        for ln in f:
            ln = ln.rstrip("\n")
            if ln.startswith("## case "):
                cur = ln.split()[2]
                old[cur] = []
            elif cur is not None and ln:
                old[cur].append(ln)
    return old


# --------------------------------------------------------------------------
# --describe: what the delegate payloads contain
# --------------------------------------------------------------------------

_XNN_DT = {
    0: "invalid", 1: "fp32", 2: "fp16", 3: "qint8", 4: "quint8", 5: "qint32", 6: "qcint8",
    7: "qcint32", 8: "qcint4", 9: "qdint8", 10: "qbint4", 11: "qpint8", 12: "int32",
    13: "pfp32", 14: "bf16",
}


def _u32(b: bytes, off: int) -> int:
    return int.from_bytes(b[off:off + 4], "little")


def _u64(b: bytes, off: int) -> int:
    return int.from_bytes(b[off:off + 8], "little")


def read_program(data: bytes):
    """(Program with segments not restored, segment_base_offset, eh00 fields)."""
    if data[8:12] == b"eh00":
        hl = _u32(data, 12)
        prog_size = _u64(data, 16)
        sbo = _u64(data, 24)
        sds = _u64(data, 32) if hl >= 32 else None
        prog = _flatbuffer_to_program(data[:prog_size])
        return prog, sbo, dict(header_length=hl, program_size=prog_size, segment_base_offset=sbo, segment_data_size=sds)
    return _flatbuffer_to_program(data), 0, None


def decode_xnngraph(fb: bytes) -> dict:
    """XNNGraph flatbuffer -> dict via the flatc shipped with the wheel and the
    schema shipped in executorch/backends/xnnpack/serialization/."""
    import executorch.backends.xnnpack.serialization as ser
    from executorch.exir._serialize._flatbuffer import _flatc_decompile

    ident = fb[4:8]
    schema_name = {b"XN01": "schema.fbs", b"XN00": "runtime_schema.fbs"}.get(ident)
    if schema_name is None:
        raise RuntimeError(f"unknown XNNGraph identifier {ident!r}")
    import importlib.resources

    schema_bytes = importlib.resources.files(ser).joinpath(schema_name).read_bytes()
    with tempfile.TemporaryDirectory() as d:
        sp = os.path.join(d, "xnn.fbs")
        with open(sp, "wb") as f:
            f.write(schema_bytes)
        bp = os.path.join(d, "graph.bin")
        with open(bp, "wb") as f:
            f.write(fb)
        _flatc_decompile(d, sp, bp)
        with open(os.path.join(d, "graph.json"), "rb") as f:
            text = f.read().decode("utf-8")
    # flatc writes non-finite floats (output_min_max bounds) as bare inf/nan.
    text = re.sub(r'(:\s*)(-?(?:inf|nan))\b', r'\1"\2"', text)
    return json.loads(text)


def read_ptd_keys(ptd: bytes) -> List[str]:
    from executorch.extension.flat_tensor.serialize.serialize import FlatTensorSerializer
    from executorch.exir._serialize._cord import Cord

    payload = FlatTensorSerializer().deserialize(Cord(ptd))
    return sorted(payload.named_data.keys())


SUMMARY: "OrderedDict[str, dict]" = OrderedDict()


def describe_file(name: str) -> List[str]:
    summ = SUMMARY.setdefault(name, dict(delegates=0, nodes=set(), dtypes=set(), quant=set(),
                                         consts=Counter(), idents=set(), xh=set(), other_ops=set()))
    with open(os.path.join(HERE, name + ".pte"), "rb") as f:
        data = f.read()
    ptd_keys: List[str] = []
    ptd_path = os.path.join(HERE, name + ".ptd")
    if os.path.exists(ptd_path):
        with open(ptd_path, "rb") as f:
            ptd = f.read()
        ptd_keys = read_ptd_keys(ptd)
    prog, sbo, eh = read_program(data)
    named = {nd.key: nd.segment_index for nd in (prog.named_data or [])}

    out = [f"## {name}", ""]
    sz = f"`{name}.pte` {len(data)} bytes"
    if ptd_keys:
        sz += f", `{name}.ptd` {os.path.getsize(ptd_path)} bytes ({len(ptd_keys)} named tensors)"
    out.append(f"- files: {sz}")
    if eh:
        out.append("- PTE extended header eh00: " + ", ".join(f"{k}={v}" for k, v in eh.items()))
    out.append(f"- PTE named_data entries: {len(named)}; segments: {len(prog.segments)}")

    for plan in prog.execution_plan:
        ops = sorted({op.name + ("." + op.overload if op.overload else "") for op in plan.operators})
        kcalls = Counter()
        for ch in plan.chains:
            for ins in ch.instructions:
                kcalls[type(ins.instr_args).__name__] += 1
        summ["delegates"] += len(plan.delegates)
        summ["other_ops"].update(o.split("::")[-1] for o in ops)
        out.append(f"- method `{plan.name}`: {len(plan.delegates)} delegate(s); "
                   f"instructions {dict(sorted(kcalls.items()))}; non-delegated operators: "
                   + (", ".join(f"`{o}`" for o in ops) if ops else "none"))
        for di, d in enumerate(plan.delegates):
            loc = schema.DataLocation(d.processed.location)
            if loc == schema.DataLocation.SEGMENT:
                seg = prog.segments[d.processed.index]
                blob = data[sbo + seg.offset: sbo + seg.offset + seg.size]
                where = f"segment {d.processed.index} (offset {seg.offset}, size {seg.size})"
            else:
                blob = bytes(prog.backend_delegate_data[d.processed.index].data)
                where = f"inline backend_delegate_data[{d.processed.index}]"
            specs = ", ".join(f"{cs.key}={bytes(cs.value).hex()}" for cs in d.compile_specs) or "none"
            out.append(f"  - delegate {di}: id `{d.id}`, payload {len(blob)} bytes in {where}; compile_specs: {specs}")
            if blob[4:8] == b"XH00":
                hlen = int.from_bytes(blob[8:10], "little")
                fbo, fbs = _u32(blob, 10), _u32(blob, 14)
                cdo, cds = _u32(blob, 18), _u64(blob, 22)
                out.append(f"    - XH00 header: header_length={hlen} flatbuffer_offset={fbo} flatbuffer_size={fbs} "
                           f"constant_data_offset={cdo} constant_data_size={cds}")
                fb = blob[fbo:fbo + fbs]
            else:
                out.append("    - no XH00 header (bare flatbuffer)")
                fb = blob
                cds = 0
            ident = fb[4:8].decode("latin-1")
            g = decode_xnngraph(fb)
            nodes = Counter(n["xnode_union_type"] for n in g.get("xnodes", []))
            dts: Counter = Counter()
            qps: Counter = Counter()
            const_vals = 0
            for v in g.get("xvalues", []):
                vt = v["xvalue_union_type"]
                u = v["xvalue_union"]
                if vt == "XNNQuantizedTensorValue":
                    tv = u["tensor_value"]
                    qk = u.get("quant_params_type", "NONE")
                    qp = u.get("quant_params", {})
                    extra = ""
                    if qk in ("PerChannelQuant", "PerChannelGroupQuant"):
                        extra = f"(channel_dim={qp.get('channel_dim')}"
                        if qp.get("scale_buffer_idx", 0):
                            extra += ", scales in constant_data"
                        extra += ")"
                    qps[f"{qk}{extra}"] += 1
                else:
                    tv = u
                dt = tv["datatype"]
                dt = _XNN_DT.get(dt, str(dt)) if isinstance(dt, int) else dt.replace("xnn_datatype_", "")
                role = []
                if tv.get("constant_buffer_idx", 0):
                    role.append("const")
                    const_vals += 1
                fl = tv.get("flags", 0)
                if fl & 1:
                    role.append("in")
                if fl & 2:
                    role.append("out")
                dts[dt + ("[" + ",".join(role) + "]" if role else "")] += 1
            cdata = g.get("constant_data", [])
            keyed = [c for c in cdata if c.get("named_key")]
            offs = [c for c in cdata if not c.get("named_key") and c.get("size", 0)]
            in_pte = sum(1 for c in keyed if c["named_key"] in named)
            in_ptd = sum(1 for c in keyed if c["named_key"] in ptd_keys)
            mm = Counter(
                "[%s, %s]" % (n["output_min_max"].get("output_min"), n["output_min_max"].get("output_max"))
                for n in g.get("xnodes", []) if n.get("output_min_max")
            )
            summ["nodes"].update(nodes)
            summ["dtypes"].update(k.split("[")[0] for k in dts)
            summ["quant"].update(k.split("(")[0] for k in qps)
            summ["idents"].add(ident)
            summ["xh"].add("XH00 hl=%d fb@%d cd_size=%d" % (hlen, fbo, cds) if blob[4:8] == b"XH00" else "none")
            summ["consts"]["PTE named_data"] += in_pte
            summ["consts"][".ptd"] += in_ptd
            summ["consts"]["payload"] += len(offs)
            out.append(f"    - XNNGraph identifier `{ident}`, version `{g.get('version')}`, "
                       f"{len(g.get('xnodes', []))} nodes, {len(g.get('xvalues', []))} values, "
                       f"num_externs={g.get('num_externs')}, inputs={g.get('input_ids')}, outputs={g.get('output_ids')}")
            out.append("    - nodes: " + ", ".join(f"{k}×{v}" for k, v in sorted(nodes.items()))
                       + (" (output_min_max: " + ", ".join(f"{k}×{v}" for k, v in sorted(mm.items())) + ")" if mm else ""))
            out.append("    - value datatypes [const/in/out]: " + ", ".join(f"{k}×{v}" for k, v in sorted(dts.items())))
            out.append("    - quant params: " + (", ".join(f"{k}×{v}" for k, v in sorted(qps.items())) if qps else "none"))
            out.append(f"    - constant_data: {len(cdata)} entries (entry 0 reserved) → {len(keyed)} by named_key "
                       f"({in_pte} in PTE named_data, {in_ptd} in .ptd), {len(offs)} by offset into the payload's "
                       f"constant data ({cds} bytes after the flatbuffer)")
    out.append("")
    return out


def describe(names: List[str]) -> None:
    lines = [
        "# XNNPACK delegate payloads of the fixtures",
        "",
        "Generated by `export_xnnpack.py --describe` (official toolchain: executorch "
        "1.5.1, torch 2.15.0, torchao 0.18.0).  Per fixture: the PTE's extended header,",
        "each `XnnpackBackend` delegate's payload: `XH00` header fields (bytes 4..7 magic, 8..9",
        "header length, 10..13 flatbuffer offset, 14..17 flatbuffer size, 18..21 constant data",
        "offset, 22..29 constant data size; all little-endian), the XNNGraph flatbuffer",
        "file identifier, the XNode union members used, the XValue datatypes",
        "(`const` = has constant_buffer_idx, `in`/`out` = external input/output flags 1/2) and",
        "quantization parameter kinds, and where the constants live.",
        "",
        "## How our delegate runs what these payloads need",
        "",
        "- Dynamically quantized linear (dq_mlp): Debian's XNNPACK (2022) cannot define qdint8",
        "  values, so `XNNConvert` fp32 -> qdint8 (PerTokenDynamicQuant, one scale and zero point",
        "  per row) and `XNNFullyConnected` qdint8 x qcint8 -> fp32 run as native nodes",
        "  (backends/xnnpack/dq_linear.h) with XNNPACK's qd8 numerics: row parameters from",
        "  min/max as in `xnn_qd8_asymmetric_quantization_params`, int32 accumulation, then",
        "  `fma(float(acc) * row_scale, channel_scale, bias)`; dq_mlp matches the official",
        "  runtime's output to within 1e-6 (test/xnnpack).",
        "- 4-bit weights (dq4_mlp, dq4_decoder: torchao's Int8DynamicActivationIntxWeightConfig",
        "  with int4 weights emits qbint4 + PerChannelGroupQuant, bf16 block scales, also for",
        "  PerAxis (one block per row); dq4pc_mlp: PT2E with weight range [-8, 7] emits qcint4 +",
        "  PerChannelQuant, fp32 scales). Both pack [outputs, inputs] row-major, two per byte, even",
        "  input in the low nibble, stored as q + 8. The delegate unpacks them to int8 at init;",
        "  qcint4 then runs the qcint8 path, qbint4 a block-wise kernel with the official x86",
        "  kernel's float order (per-block int32 dot products in 4 lanes, each scaled by the",
        "  block scale with fma, a packed float row sum times the row zero point, then",
        "  `fma(sum, row_scale, bias)`); all three equal the official output bit for bit.",
        "- Bounded dynamic shapes (dynamic_batch): the payload stores every value with its",
        "  upper-bound dims (batch 8). XNNPACK 2022 runtimes are static, so the first execute with",
        "  a new input shape re-derives every value's dims and builds new runtimes (XNNPACK packs",
        "  the weights and plans its memory again: this allocates). The runtimes of the last 4",
        "  input shapes are kept, so alternating among them allocates nothing; inputs larger than",
        "  the bound are refused naming the input, dim, size and bound; outputs are resized.",
        "- Int8 global average pooling (q_mobilenet_v2, q_resnet18, q_cnn_per_tensor): XNNPACK",
        "  2022 adds the output zero point after rounding the mean, the official runtime's",
        "  XNNPACK (a reduce-mean) before it, so exact ties (common: PT2E gives the pool equal",
        "  input and output quantization, and 2x2 windows make a quarter of the means end in .5)",
        "  go to another code. The delegate runs qint8/quint8 `XNNGlobalAvgPooling2d` as a native",
        "  node: int32 sum of (x - zp_in), times s_in / (s_out * pixels), plus zp_out, rounded to",
        "  nearest even, clamped; q_mobilenet_v2 (291 ties of 1280) then equals the official",
        "  output bit for bit, as do q_resnet18 and q_cnn_per_tensor (test/xnnpack).",
        "- LSTM, decoder LM (lstm, decoder_lm, dq_decoder): the partitioner leaves `full`,",
        "  `split_with_sizes_copy`, `squeeze_copy`/`unsqueeze_copy` (LSTM) and `embedding`,",
        "  `native_layer_norm`, `expand_copy`, `split_with_sizes_copy` (decoder) to portable",
        "  kernels between the delegates; mobilenet_v3_small's 18 non-delegated",
        "  `_to_dim_order_copy` calls convert the 0-d int64 constants 3 and 6 of the hardsigmoid",
        "  decomposition to float for the one delegate's inputs.",
        "",
    ]
    body: List[str] = []
    SUMMARY.clear()
    for n in names:
        if os.path.exists(os.path.join(HERE, n + ".pte")):
            body.extend(describe_file(n))
    lines += [
        "## Summary",
        "",
        "| fixture | delegates | XNode kinds | value datatypes | quant params | constants (count by location) | XNNGraph id | XH00 layout | non-delegated ops |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for n, d in SUMMARY.items():
        consts = ", ".join(f"{k}: {v}" for k, v in d["consts"].items() if v) or "none"
        lines.append(
            f"| {n} | {d['delegates']} | {', '.join(sorted(d['nodes']))} | {', '.join(sorted(d['dtypes']))} | "
            f"{', '.join(sorted(d['quant'])) or '-'} | {consts} | {', '.join(sorted(d['idents']))} | "
            f"{'; '.join(sorted(d['xh']))} | {', '.join(sorted(d['other_ops'])) or '-'} |"
        )
    lines.append("")
    lines.extend(body)
    with open(os.path.join(HERE, "NODES.md"), "w") as f:
        f.write("\n".join(lines))


# --------------------------------------------------------------------------
# main
# --------------------------------------------------------------------------


def main(argv: List[str]) -> int:
    warnings.filterwarnings("ignore")
    ap = argparse.ArgumentParser()
    ap.add_argument("cases", nargs="*")
    ap.add_argument("--describe", action="store_true", help="only (re)write NODES.md from the existing files")
    a = ap.parse_args(argv[1:])
    if a.describe:
        describe(ALL_CASES)
        return 0
    selected = a.cases or ALL_CASES
    unknown = [n for n in selected if n not in CASE_BUILDERS]
    if unknown:
        print(f"unknown cases: {unknown}; known: {ALL_CASES}")
        return 2

    manifest_path = os.path.join(HERE, "manifest.txt")
    old = read_old_manifest(manifest_path)
    new: Dict[str, List[str]] = {}
    failures: Dict[str, str] = {}
    for name in selected:
        print(f"[{name}]", flush=True)
        try:
            new[name] = emit_case(CASE_BUILDERS[name]())
        except Exception as e:  # noqa: BLE001 - report and go on
            failures[name] = f"{type(e).__name__}: {e}"
            print(f"  FAILED: {failures[name]}")

    lines = [MANIFEST_HEADER]
    for name in ALL_CASES:
        body = new.get(name, old.get(name))
        if body is None:
            continue
        lines.append(f"## case {name}")
        lines.extend(body)
        lines.append("")
    with open(manifest_path, "w") as f:
        f.write("\n".join(lines))
    describe(ALL_CASES)

    if failures:
        print("FAILED cases:")
        for n, msg in failures.items():
            print(f"  {n}: {msg}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
