#!/usr/bin/env python3
"""Operator conformance suite generator (issue 8).

Exports one small program per operator (or operator variant) through the
OFFICIAL ExecuTorch exporter (`torch.export` + `to_edge_transform_and_lower`
+ `to_executorch`) and wraps it as a BundledProgram (.bpte) whose test cases
carry PyTorch-eager expected outputs. Each .bpte holds several methods (one
per dtype / variant) and several test cases per method.

Run from the repository root (writes next to this script):

    /opt/tv/bin/python test/conformance/export_conformance.py [--only NAME ...] [--no-official]

Variants per operator (where the operator and dtype allow it):
* `<dtype>`   one method per dtype PyTorch eager accepts on CPU (float32,
              float64, float16, bfloat16, int8, int16, int32, int64, uint8,
              bool; a dtype whose eager call raises is skipped). For float32
              the method takes one input per rank 0..5 plus an empty tensor
              (elementwise ops) and returns one output each; case 0 puts the
              edge values (0, -0, inf, -inf, NaN, ... / int min, max) in.
* `bcast_*`   binary ops: broadcasting shape pairs of ranks 0..5.
* `dyn_float32` dynamic shapes (torch.export.Dim, bounded): cases of several
              shapes within the bound.
* `cl_float32` the input is turned channels-last inside the program
              (memory_format=torch.channels_last -> _to_dim_order_copy), the
              operator runs on that layout and the result is made contiguous.

Outputs:
* `<family>.bpte` files.
* `tolerances.txt`: per-dtype tolerances (TOLERANCES below) and per-file
  overrides (spec `tol=`), read by conformance_test.cpp.
* `coverage.md`: per file/method: dtype, cases, operators the program really
  contains, official-runtime result; then the 209 + prim + quantized operator
  lists with what is covered and what is not.

Deterministic: every spec seeds torch's RNG from its name.
"""

import argparse
import concurrent.futures
import hashlib
import math
import os
import sys
import time
import traceback
import warnings

import torch

warnings.filterwarnings("ignore")

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.abspath(os.path.join(HERE, "..", ".."))

# ----------------------------------------------------------------------------
# Tolerances (written to tolerances.txt). A float element a (actual) matches e
# (expected) when |a - e| <= atol + rtol * |a| (or both NaN / same infinity);
# integer and bool outputs must match exactly.
TOLERANCES = {
    "Float": (1e-5, 1e-6),
    "Double": (1e-10, 1e-12),
    "Half": (1e-3, 1e-3),
    "BFloat16": (1e-2, 1e-2),
}
# Official-runtime check tolerances (informative), same table by torch dtype.
TORCH_TOL = {
    torch.float32: TOLERANCES["Float"],
    torch.float64: TOLERANCES["Double"],
    torch.float16: TOLERANCES["Half"],
    torch.bfloat16: TOLERANCES["BFloat16"],
}

DTYPES = [
    torch.float32,
    torch.float64,
    torch.float16,
    torch.bfloat16,
    torch.int8,
    torch.int16,
    torch.int32,
    torch.int64,
    torch.uint8,
    torch.bool,
]
FLOATS = [torch.float32, torch.float64, torch.float16, torch.bfloat16]
INTS = [torch.int8, torch.int16, torch.int32, torch.int64, torch.uint8]
DNAME = {
    torch.float32: "float32",
    torch.float64: "float64",
    torch.float16: "float16",
    torch.bfloat16: "bfloat16",
    torch.int8: "int8",
    torch.int16: "int16",
    torch.int32: "int32",
    torch.int64: "int64",
    torch.uint8: "uint8",
    torch.bool: "bool",
    torch.complex64: "complex64",
    torch.complex128: "complex128",
}

# Shapes of the float32 "ranks" method of elementwise ops: ranks 0..5 + empty.
RANK_SHAPES = [(), (12,), (3, 4), (2, 3, 4), (2, 3, 2, 2), (2, 1, 2, 3, 2), (0, 3)]
# Shapes for the other dtypes (fewer, to keep files small).
SMALL_SHAPES = [(), (12,), (2, 3, 4)]
# Broadcasting pairs (ranks 0..5), for binary ops.
BCAST_PAIRS = [
    ((), ()),
    ((3, 4), ()),
    ((4,), (3, 4)),
    ((2, 1, 4), (3, 1)),
    ((2, 3, 1, 2), (1, 3, 4, 1)),
    ((1, 2, 1, 3, 2), (2, 1, 2, 1, 1)),
    ((0, 3), (3,)),
]


def edge_values(dtype):
    if dtype.is_floating_point:
        v = [0.0, -0.0, float("inf"), float("-inf"), float("nan"), 1.0, -1.0, 0.5, -2.5,
             1e-3, 3.0, 7.25]
        return torch.tensor(v, dtype=dtype)
    if dtype == torch.bool:
        return torch.tensor([True, False] * 6)
    info = torch.iinfo(dtype)
    v = [0, 1, info.max, info.min, 2, 3, 5, 7, info.max - 1, info.min + 1, 10, 1]
    if dtype != torch.uint8:
        v[4] = -1
        v[10] = -7
    return torch.tensor(v, dtype=dtype)


def rand(shape, dtype, lo=-4.0, hi=4.0):
    if dtype.is_floating_point:
        return (torch.rand(shape, dtype=torch.float64) * (hi - lo) + lo).to(dtype)
    if dtype == torch.bool:
        return torch.rand(shape) > 0.5
    ilo, ihi = int(lo * 5), int(hi * 5)
    if dtype == torch.uint8:
        ilo = 0
    return torch.randint(ilo, ihi + 1, shape, dtype=torch.int64).to(dtype)


def with_edges(t, dtype):
    """Copies edge values into the leading elements of t (flattened)."""
    if t.numel() == 0:
        return t
    e = edge_values(dtype)
    flat = t.reshape(-1).clone()
    n = min(flat.numel(), e.numel())
    flat[:n] = e[:n]
    return flat.reshape(t.shape)


# ----------------------------------------------------------------------------
# Specs


class Method:
    """One method: `fn(*args)` exported with example case 0; `cases` is a
    list of argument tuples; `dyn` optional dynamic_shapes; `dtype` for the
    coverage table; `eager` (default fn) gives the expected outputs, for
    files whose program is rewritten after export (Spec.rewrite)."""

    def __init__(self, name, fn, cases, dtype=torch.float32, dyn=None, layout="contiguous",
                 ranks="", eager=None):
        self.name, self.fn, self.cases, self.dtype = name, fn, cases, dtype
        self.dyn, self.layout, self.ranks = dyn, layout, ranks
        self.eager = eager


class Spec:
    def __init__(self, name, targets, build, tol=None, family="misc", keep=None,
                 skip_dim_order=False, backend=None, rewrite=None):
        self.name = name          # file stem
        self.targets = targets    # operator names this file is meant to contain
        self.build = build        # () -> list[Method]
        self.tol = tol            # (rtol, atol) override for the whole file
        self.family = family
        # keep: ATen OpOverloads the exporter must not decompose (not core ATen,
        # so to_edge would otherwise replace them): EdgeCompileConfig.preserve_ops.
        self.keep = keep or []
        # skip_dim_order: EdgeCompileConfig._skip_dim_order (keeps aten::_to_copy /
        # clone / empty instead of the dim_order_ops variants).
        self.skip_dim_order = skip_dim_order
        # backend: ExecutorchBackendConfig keyword arguments for to_executorch
        # (e.g. run_reinplace_pass=True, which turns index_put on a buffer
        # into aten::index_put_).
        self.backend = backend or {}
        # rewrite: edits each emitted ExecutionPlan in place (REWRITE below), for
        # operators the exporter never emits; the program is serialized again.
        self.rewrite = rewrite


SPECS = []


def spec(name, targets, family, tol=None, keep=None, skip_dim_order=False, backend=None):
    def deco(build):
        SPECS.append(Spec(name, targets if isinstance(targets, list) else [targets], build, tol,
                          family, keep, skip_dim_order, backend))
        return build
    return deco


class Wrap(torch.nn.Module):
    def __init__(self, fn):
        super().__init__()
        self.fn = fn

    def forward(self, *args):
        return self.fn(*args)


def to_cl(x):
    return x.to(memory_format=torch.channels_last)


# ---- elementwise helpers ---------------------------------------------------


def elementwise_methods(op, dtypes, n_args=1, lo=-4.0, hi=4.0, cl=True, dyn=True,
                        bcast=True, edges=True, arg_dtypes=None):
    """Methods for an elementwise op of n_args tensor arguments."""
    def fn_many(*xs):
        k = n_args
        return tuple(op(*xs[i:i + k]) for i in range(0, len(xs), k))

    methods = []
    for dt in dtypes:
        shapes = RANK_SHAPES if dt == torch.float32 else SMALL_SHAPES
        cases = []
        for c in range(2):
            args = []
            for s in shapes:
                for a in range(n_args):
                    adt = dt if arg_dtypes is None else arg_dtypes(dt, a)
                    t = rand(s, adt, lo, hi)
                    if c == 0 and edges and len(s) == 1:
                        t = with_edges(t, adt) if a == 0 else t
                    if c == 0 and edges and a == 1 and len(s) == 1 and n_args == 2:
                        # second operand: edge values shifted, so pairs vary
                        t = with_edges(t, adt).roll(3)
                    args.append(t)
            cases.append(tuple(args))
        methods.append(Method(DNAME[dt], fn_many, cases, dt,
                              ranks=",".join(str(len(s)) for s in shapes)))
    if n_args == 2 and bcast and torch.float32 in dtypes:
        cases = []
        for c in range(2):
            args = []
            for sa, sb in BCAST_PAIRS:
                args += [rand(sa, torch.float32, lo, hi), rand(sb, torch.float32, lo, hi)]
            cases.append(tuple(args))
        methods.append(Method("bcast_float32", fn_many, cases, ranks="0-5 broadcast"))
    f32 = torch.float32
    if dyn and f32 in dtypes:
        d0 = torch.export.Dim("d0", min=1, max=8)
        d1 = torch.export.Dim("d1", min=1, max=8)
        shapes = [(4, 5), (1, 7), (8, 8), (3, 1), (6, 2)]
        cases = [tuple(rand(s, f32, lo, hi) for _ in range(n_args)) for s in shapes]
        dyns = tuple({0: d0, 1: d1} for _ in range(n_args))
        methods.append(Method("dyn_float32", lambda *xs: op(*xs), cases, f32, dyn=dyns,
                              ranks="2 (dynamic 1..8)"))
    if cl and f32 in dtypes:
        cases = [tuple(rand((2, 3, 4, 5), f32, lo, hi) for _ in range(n_args)) for _ in range(2)]
        methods.append(Method("cl_float32",
                              lambda *xs: op(*[to_cl(x) for x in xs]).contiguous(), cases, f32,
                              layout="channels_last", ranks="4"))
    return methods


A = torch.ops.aten

# ---- unary -----------------------------------------------------------------

UNARY = [
    # name, callable, dtypes, lo, hi, extra tol
    ("abs", A.abs.default, DTYPES, -4, 4),
    ("acos", A.acos.default, DTYPES, -1.2, 1.2),
    ("acosh", A.acosh.default, DTYPES, 0.5, 6),
    ("asin", A.asin.default, DTYPES, -1.2, 1.2),
    ("asinh", A.asinh.default, DTYPES, -4, 4),
    ("atan", A.atan.default, DTYPES, -4, 4),
    ("atanh", A.atanh.default, DTYPES, -1.2, 1.2),
    ("ceil", A.ceil.default, DTYPES, -4, 4),
    ("cos", A.cos.default, DTYPES, -4, 4),
    ("cosh", A.cosh.default, DTYPES, -4, 4),
    ("erf", A.erf.default, DTYPES, -3, 3),
    ("exp", A.exp.default, DTYPES, -4, 4),
    ("expm1", A.expm1.default, DTYPES, -4, 4),
    ("floor", A.floor.default, DTYPES, -4, 4),
    ("log", A.log.default, DTYPES, -1, 8),
    ("log10", A.log10.default, DTYPES, -1, 8),
    ("log1p", A.log1p.default, DTYPES, -1.5, 8),
    ("log2", A.log2.default, DTYPES, -1, 8),
    ("neg", A.neg.default, DTYPES, -4, 4),
    ("reciprocal", A.reciprocal.default, DTYPES, -4, 4),
    ("round", A.round.default, DTYPES, -4, 4),
    ("rsqrt", A.rsqrt.default, DTYPES, -1, 8),
    ("sigmoid", A.sigmoid.default, DTYPES, -6, 6),
    ("sign", A.sign.default, DTYPES, -4, 4),
    ("sin", A.sin.default, DTYPES, -4, 4),
    ("sinh", A.sinh.default, DTYPES, -4, 4),
    ("sqrt", A.sqrt.default, DTYPES, -1, 8),
    ("tan", A.tan.default, DTYPES, -1.5, 1.5),
    ("tanh", A.tanh.default, DTYPES, -4, 4),
    ("trunc", A.trunc.default, DTYPES, -4, 4),
    ("relu", A.relu.default, DTYPES, -4, 4),
    ("bitwise_not", A.bitwise_not.default, DTYPES, -4, 4),
    ("logical_not", A.logical_not.default, DTYPES, -4, 4),
    ("isinf", A.isinf.default, DTYPES, -4, 4),
    ("isnan", A.isnan.default, DTYPES, -4, 4),
    ("gelu", lambda x: A.gelu.default(x), FLOATS, -4, 4),
    ("gelu_tanh", lambda x: A.gelu.default(x, approximate="tanh"), FLOATS, -4, 4),
    ("elu", lambda x: A.elu.default(x, 1.0, 1.0, 1.0), FLOATS, -4, 4),
    ("hardtanh", lambda x: A.hardtanh.default(x, -1.5, 2.0), DTYPES, -4, 4),
    ("leaky_relu", lambda x: A.leaky_relu.default(x, 0.1), DTYPES, -4, 4),
    ("logit", lambda x: A.logit.default(x, 1e-3), FLOATS, -0.2, 1.2),
    ("_conj_physical", A._conj_physical.default, DTYPES, -4, 4),
    ("clone", A.clone.default, DTYPES, -4, 4),
    ("alias_copy", A.alias_copy.default, DTYPES, -4, 4),
    ("detach_copy", A.detach_copy.default, DTYPES, -4, 4),
    ("lift_fresh_copy", A.lift_fresh_copy.default, DTYPES, -4, 4),
    ("clamp", lambda x: A.clamp.default(x, -1.5, 2.0), DTYPES, -4, 4),
    ("fill_scalar", lambda x: A.fill.Scalar(x, 3), DTYPES, -4, 4),
    ("full_like", lambda x: A.full_like.default(x, 2), DTYPES, -4, 4),
    ("to_copy_f64", lambda x: A._to_copy.default(x, dtype=torch.float64), DTYPES, -4, 4),
    ("to_copy_i32", lambda x: A._to_copy.default(x, dtype=torch.int32), DTYPES, -4, 4),
    ("to_copy_f16", lambda x: A._to_copy.default(x, dtype=torch.float16), DTYPES, -4, 4),
    ("to_copy_bool", lambda x: A._to_copy.default(x, dtype=torch.bool), DTYPES, -4, 4),
]
UNARY_TARGET = {
    "gelu_tanh": "gelu", "fill_scalar": "fill.Scalar_out", "to_copy_f64": "_to_copy",
    "to_copy_i32": "_to_copy", "to_copy_f16": "_to_copy", "to_copy_bool": "_to_copy",
    "full_like": "full_like", "clamp": "clamp",
}
# Transcendental ops with float32 libm/SLEEF differences above 1e-5 relative.
UNARY_TOL = {}

for _name, _op, _dts, _lo, _hi in UNARY:
    _t = UNARY_TARGET.get(_name, _name)
    _target = f"aten::{_t}" + ("" if "." in _t else ".out")
    if _name.startswith("to_copy"):
        _target = ["aten::_to_copy.out", "dim_order_ops::_to_dim_order_copy.out"]

    def _b(op=_op, dts=_dts, lo=_lo, hi=_hi):
        return elementwise_methods(op, dts, 1, lo, hi)

    spec(_name, _target, "unary", UNARY_TOL.get(_name))(_b)

# ---- binary ----------------------------------------------------------------

BINARY = [
    ("add", lambda a, b: A.add.Tensor(a, b, alpha=2) if not a.dtype == torch.bool else
     A.add.Tensor(a, b), "aten::add.out", DTYPES),
    ("sub", lambda a, b: A.sub.Tensor(a, b, alpha=2), "aten::sub.out", DTYPES),
    ("mul", A.mul.Tensor, "aten::mul.out", DTYPES),
    ("div", A.div.Tensor, "aten::div.out", DTYPES),
    ("div_trunc", lambda a, b: A.div.Tensor_mode(a, b, rounding_mode="trunc"),
     "aten::div.out_mode", DTYPES),
    ("div_floor", lambda a, b: A.div.Tensor_mode(a, b, rounding_mode="floor"),
     "aten::div.out_mode", DTYPES),
    ("atan2", A.atan2.default, "aten::atan2.out", DTYPES),
    ("bitwise_and", A.bitwise_and.Tensor, "aten::bitwise_and.Tensor_out", DTYPES),
    ("bitwise_or", A.bitwise_or.Tensor, "aten::bitwise_or.Tensor_out", DTYPES),
    ("bitwise_xor", A.bitwise_xor.Tensor, "aten::bitwise_xor.Tensor_out", DTYPES),
    ("bitwise_left_shift", A.bitwise_left_shift.Tensor, "aten::bitwise_left_shift.Tensor_out",
     INTS),
    ("bitwise_right_shift", A.bitwise_right_shift.Tensor,
     "aten::bitwise_right_shift.Tensor_out", INTS),
    ("eq", A.eq.Tensor, "aten::eq.Tensor_out", DTYPES),
    ("ne", A.ne.Tensor, "aten::ne.Tensor_out", DTYPES),
    ("lt", A.lt.Tensor, "aten::lt.Tensor_out", DTYPES),
    ("le", A.le.Tensor, "aten::le.Tensor_out", DTYPES),
    ("gt", A.gt.Tensor, "aten::gt.Tensor_out", DTYPES),
    ("ge", A.ge.Tensor, "aten::ge.Tensor_out", DTYPES),
    ("floor_divide", A.floor_divide.default, "aten::floor_divide.out", DTYPES),
    ("fmod", A.fmod.Tensor, "aten::fmod.Tensor_out", DTYPES),
    ("remainder", A.remainder.Tensor, "aten::remainder.Tensor_out", DTYPES),
    ("maximum", A.maximum.default, "aten::maximum.out", DTYPES),
    ("minimum", A.minimum.default, "aten::minimum.out", DTYPES),
    ("pow", A.pow.Tensor_Tensor, "aten::pow.Tensor_Tensor_out", DTYPES),
    ("logical_and", A.logical_and.default, "aten::logical_and.out", DTYPES),
    ("logical_or", A.logical_or.default, "aten::logical_or.out", DTYPES),
    ("logical_xor", A.logical_xor.default, "aten::logical_xor.out", DTYPES),
    ("clamp_tensor", lambda a, b: A.clamp.Tensor(a, b, b + 2), "aten::clamp.Tensor_out",
     DTYPES),
    ("where", lambda a, b: A.where.self(a > b, a, b), "aten::where.self_out", DTYPES),
    ("masked_fill", lambda a, b: A.masked_fill.Scalar(a, b > a, 5), "aten::masked_fill.Scalar_out",
     DTYPES),
]
for _name, _op, _target, _dts in BINARY:
    _lo, _hi = (-3.0, 3.0) if _name in ("pow",) else (-4.0, 4.0)

    def _b(op=_op, dts=_dts, lo=_lo, hi=_hi, name=_name):
        if name.startswith("bitwise_") and "shift" in name:
            # shift amounts 0..7 (larger is undefined in C++)
            def adt(dt, a):
                return dt
            ms = elementwise_methods(op, dts, 2, 0, 1.4, bcast=False, dyn=False, cl=False,
                                     edges=False, arg_dtypes=adt)
            return ms
        if name == "clamp_tensor":
            # min and max as two tensor inputs (min > max happens too). Not
            # `b + 2`: the exporter promotes a rank-0 int tensor plus a Python
            # int to int64, so those methods came out int64.
            return elementwise_methods(lambda a, lo_, hi_: A.clamp.Tensor(a, lo_, hi_), dts, 3,
                                       lo, hi)
        return elementwise_methods(op, dts, 2, lo, hi)

    spec(_name, _target, "binary")(_b)


def _mixed(op):
    """Mixed-dtype (type promotion) methods for a binary op."""
    pairs = [(torch.int32, torch.float32), (torch.float32, torch.float64),
             (torch.int64, torch.int8), (torch.bool, torch.int32), (torch.float16, torch.float32)]
    ms = []
    for da, db in pairs:
        cases = [(rand((3, 4), da), rand((3, 4), db)) for _ in range(2)]
        ms.append(Method(f"mixed_{DNAME[da]}_{DNAME[db]}", op, cases, da, ranks="2"))
    return ms


for _name, _op, _target in [("add_mixed", A.add.Tensor, "aten::add.out"),
                            ("mul_mixed", A.mul.Tensor, "aten::mul.out"),
                            ("sub_mixed", A.sub.Tensor, "aten::sub.out"),
                            ("div_mixed", A.div.Tensor, "aten::div.out"),
                            ("where_mixed", lambda a, b: A.where.self(a > 0, a, b),
                             "aten::where.self_out")]:
    spec(_name, _target, "binary")(lambda op=_op: _mixed(op))

# ---- tensor-scalar ---------------------------------------------------------

# Tensor-scalar variants: fewer dtypes (the scalar path is what they add).
SCALAR_DTYPES = [torch.float32, torch.float64, torch.float16, torch.bfloat16, torch.int8,
                 torch.int32, torch.int64, torch.uint8, torch.bool]
SCALAR = [
    ("add_scalar", lambda x: A.add.Scalar(x, 3, alpha=2), "aten::add.Scalar_out"),
    ("sub_scalar", lambda x: A.sub.Scalar(x, 3, alpha=2), "aten::sub.Scalar_out"),
    ("mul_scalar", lambda x: A.mul.Scalar(x, 3), "aten::mul.Scalar_out"),
    ("div_scalar", lambda x: A.div.Scalar(x, 3), "aten::div.Scalar_out"),
    ("div_scalar_mode", lambda x: A.div.Scalar_mode(x, 3, rounding_mode="floor"),
     "aten::div.Scalar_mode_out"),
    ("eq_scalar", lambda x: A.eq.Scalar(x, 1), "aten::eq.Scalar_out"),
    ("ne_scalar", lambda x: A.ne.Scalar(x, 1), "aten::ne.Scalar_out"),
    ("lt_scalar", lambda x: A.lt.Scalar(x, 1), "aten::lt.Scalar_out"),
    ("le_scalar", lambda x: A.le.Scalar(x, 1), "aten::le.Scalar_out"),
    ("gt_scalar", lambda x: A.gt.Scalar(x, 1), "aten::gt.Scalar_out"),
    ("ge_scalar", lambda x: A.ge.Scalar(x, 1), "aten::ge.Scalar_out"),
    ("bitwise_and_scalar", lambda x: A.bitwise_and.Scalar(x, 6), "aten::bitwise_and.Scalar_out"),
    ("bitwise_or_scalar", lambda x: A.bitwise_or.Scalar(x, 6), "aten::bitwise_or.Scalar_out"),
    ("bitwise_xor_scalar", lambda x: A.bitwise_xor.Scalar(x, 6), "aten::bitwise_xor.Scalar_out"),
    ("bitwise_left_shift_scalar", lambda x: A.bitwise_left_shift.Tensor_Scalar(x, 2),
     "aten::bitwise_left_shift.Tensor_Scalar_out"),
    ("bitwise_right_shift_scalar", lambda x: A.bitwise_right_shift.Tensor_Scalar(x, 2),
     "aten::bitwise_right_shift.Tensor_Scalar_out"),
    ("fmod_scalar", lambda x: A.fmod.Scalar(x, 3), "aten::fmod.Scalar_out"),
    ("remainder_scalar", lambda x: A.remainder.Scalar(x, 3), "aten::remainder.Scalar_out"),
    ("pow_tensor_scalar", lambda x: A.pow.Tensor_Scalar(x, 3), "aten::pow.Tensor_Scalar_out"),
    ("pow_scalar", lambda x: A.pow.Scalar(2, x), "aten::pow.Scalar_out"),
    ("rsub_scalar", lambda x: A.rsub.Scalar(x, 3, alpha=2), "aten::rsub.Scalar_out"),
    ("add_scalar_float", lambda x: A.add.Scalar(x, 1.5), "aten::add.Scalar_out"),
    ("mul_scalar_float", lambda x: A.mul.Scalar(x, 0.5), "aten::mul.Scalar_out"),
]
for _name, _op, _target in SCALAR:
    spec(_name, _target, "scalar")(
        lambda op=_op: elementwise_methods(op, SCALAR_DTYPES, 1, -4, 4, dyn=False, cl=False))


# ---- reductions ------------------------------------------------------------

def reduce_methods(fn_for_shape, dtypes, shapes=((2, 3, 4),), dyn_dims=None, cl=False,
                   lo=-4.0, hi=4.0, edges=True, rank_fn=None):
    """fn_for_shape(rank) -> fn(x). One method per dtype over `shapes`
    (one input per shape), plus ranks 0..5 for float32 when rank_fn given."""
    ms = []
    for dt in dtypes:
        cases = []
        for c in range(2):
            args = []
            for s in shapes:
                t = rand(s, dt, lo, hi)
                if c == 0 and edges and dt.is_floating_point and t.numel() > 4:
                    t = t.clone()
                    t.view(-1)[1] = float("inf") if dt.is_floating_point else 0
                args.append(t)
            cases.append(tuple(args))
        fns = [fn_for_shape(len(s)) for s in shapes]
        ms.append(Method(DNAME[dt], lambda *xs, fns=fns: tuple(f(x) for f, x in zip(fns, xs)),
                         cases, dt, ranks=",".join(str(len(s)) for s in shapes)))
        if dt == torch.float32 and edges:
            # NaN propagation case
            cases2 = []
            for s in shapes:
                t = rand(s, dt, lo, hi)
                if t.numel() > 2:
                    t.view(-1)[2] = float("nan")
                cases2.append(t)
            ms[-1].cases.append(tuple(cases2))
    if rank_fn is not None:
        shapes5 = [(), (5,), (3, 4), (2, 3, 4), (2, 2, 3, 2), (2, 1, 2, 3, 2)]
        fns = [rank_fn(len(s)) for s in shapes5]
        cases = [tuple(rand(s, torch.float32, lo, hi) for s in shapes5) for _ in range(2)]
        ms.append(Method("ranks_float32", lambda *xs, fns=fns: tuple(f(x) for f, x in zip(fns, xs)),
                         cases, ranks="0-5"))
    if dyn_dims is not None:
        d0 = torch.export.Dim("d0", min=2, max=8)
        d1 = torch.export.Dim("d1", min=2, max=8)
        f = fn_for_shape(3)
        cases = [(rand(s, torch.float32, lo, hi),) for s in [(2, 4, 5), (2, 2, 7), (2, 8, 8),
                                                             (2, 3, 2)]]
        ms.append(Method("dyn_float32", f, cases, dyn=({1: d0, 2: d1},),
                         ranks="3 (dynamic 2..8)"))
    if cl:
        f = fn_for_shape(4)
        cases = [(rand((2, 3, 4, 5), torch.float32, lo, hi),) for _ in range(2)]
        ms.append(Method("cl_float32", lambda x: f(to_cl(x)), cases, layout="channels_last",
                         ranks="4"))
    return ms


def _last(r):
    return -1 if r > 0 else 0


def _c(t):
    return t.contiguous()


REDUCE = [
    ("sum", lambda r: (lambda x: A.sum.dim_IntList(x, [_last(r)], True)) if r else
     (lambda x: A.sum.dim_IntList(x, [])), DTYPES, "aten::sum.IntList_out"),
    ("sum_dims", lambda r: (lambda x: A.sum.dim_IntList(x, [0, 2], False)), DTYPES,
     "aten::sum.IntList_out"),
    ("mean", lambda r: (lambda x: A.mean.dim(x, [_last(r)], True)) if r else
     (lambda x: A.mean.dim(x, [])), FLOATS, "aten::mean.out"),
    ("mean_dtype", lambda r: (lambda x: A.mean.default(x, dtype=torch.float64)), FLOATS,
     "aten::mean.dtype_out"),
    ("amax", lambda r: (lambda x: A.amax.default(x, [_last(r)], False)) if r else
     (lambda x: A.amax.default(x, [])), DTYPES, "aten::amax.out"),
    ("amin", lambda r: (lambda x: A.amin.default(x, [_last(r)], True)) if r else
     (lambda x: A.amin.default(x, [])), DTYPES, "aten::amin.out"),
    ("any_all", lambda r: (lambda x: A.any.default(x)), DTYPES, "aten::any.all_out"),
    ("any_dims", lambda r: (lambda x: A.any.dims(x, [0, _last(r)], False)) if r >= 1 else
     (lambda x: A.any.dims(x, None)), DTYPES, "aten::any.dims_out"),
    ("any_dim", lambda r: (lambda x: A.any.dim(x, _last(r), True)), DTYPES, "aten::any.out"),
    ("argmax", lambda r: (lambda x: A.argmax.default(x, _last(r), False)), DTYPES,
     "aten::argmax.out"),
    ("argmin", lambda r: (lambda x: A.argmin.default(x, _last(r), True)), DTYPES,
     "aten::argmin.out"),
    ("argmax_all", lambda r: (lambda x: A.argmax.default(x)), DTYPES, "aten::argmax.out"),
    ("max_dim", lambda r: (lambda x: A.max.dim(x, _last(r), False)), DTYPES, "aten::max.dim_max"),
    ("min_dim", lambda r: (lambda x: A.min.dim(x, _last(r), True)), DTYPES, "aten::min.dim_min"),
    ("max_all", lambda r: (lambda x: A.max.default(x)), DTYPES, "aten::max.unary_out"),
    ("min_all", lambda r: (lambda x: A.min.default(x)), DTYPES, "aten::min.unary_out"),
    ("prod", lambda r: (lambda x: A.prod.default(x)), DTYPES, "aten::prod.out"),
    ("prod_int", lambda r: (lambda x: A.prod.dim_int(x, _last(r), True)), DTYPES,
     "aten::prod.int_out"),
    ("var_correction", lambda r: (lambda x: A.var.correction(x, [_last(r)], correction=1,
                                                             keepdim=True)), FLOATS,
     "aten::var.correction_out"),
    ("var_dim", lambda r: (lambda x: A.var.dim(x, [_last(r)], True, False)), FLOATS,
     ["aten::var.out", "aten::var.correction_out"]),
    ("var_mean", lambda r: (lambda x: A.var_mean.correction(x, [_last(r)], correction=0,
                                                            keepdim=False)), FLOATS,
     "aten::var_mean.correction_out"),
    ("cumsum", lambda r: (lambda x: A.cumsum.default(x, _last(r))), DTYPES, "aten::cumsum.out"),
    ("softmax", lambda r: (lambda x: A._softmax.default(x, _last(r), False)), FLOATS,
     "aten::_softmax.out"),
    ("log_softmax", lambda r: (lambda x: A._log_softmax.default(x, _last(r), False)), FLOATS,
     "aten::_log_softmax.out"),
    ("topk", lambda r: (lambda x: A.topk.default(x, 2, _last(r), True, True)), DTYPES,
     "aten::topk.values"),
    ("topk_smallest", lambda r: (lambda x: A.topk.default(x, 3, 0, False, True)), DTYPES,
     "aten::topk.values"),
]
for _name, _f, _dts, _target in REDUCE:
    _ranked = _name in ("sum", "mean", "amax", "amin", "argmax", "cumsum", "softmax", "max_dim",
                        "any_dim", "prod_int", "log_softmax")

    def _b(f=_f, dts=_dts, ranked=_ranked, name=_name):
        shapes = ((2, 3, 4), (7,)) if name not in ("sum_dims", "any_dims") else ((2, 3, 4),)
        if name == "topk_smallest":
            shapes = ((5, 3),)
        return reduce_methods(f, dts, shapes=shapes, dyn_dims=True if ranked else None,
                              cl=ranked, rank_fn=(f if ranked else None),
                              edges=name not in ("topk", "topk_smallest", "argmax", "argmin",
                                                 "argmax_all", "max_dim", "min_dim"))

    spec(_name, _target, "reduction")(_b)


# ---- shape / data movement -------------------------------------------------

def simple(fn, shapes, dtypes=DTYPES, n=2, cl=False, dyn=None, extra=None, int_args=None,
           lo=-4, hi=4):
    """Methods calling fn(*tensors) for tensors of `shapes`, per dtype."""
    ms = []
    for dt in dtypes:
        cases = []
        for _ in range(n):
            args = [rand(s, dt, lo, hi) for s in shapes]
            if int_args:
                args += [a() for a in int_args]
            cases.append(tuple(args))
        ms.append(Method(DNAME[dt], fn, cases, dt,
                         ranks=",".join(str(len(s)) for s in shapes)))
    if cl:
        cases = [tuple(rand(s, torch.float32, lo, hi) for s in shapes) +
                 (tuple(a() for a in int_args) if int_args else ()) for _ in range(n)]
        ms.append(Method("cl_float32",
                         lambda x, *r: _outc(fn(to_cl(x), *r)), cases, layout="channels_last",
                         ranks="4"))
    if dyn is not None:
        dshapes, dspec = dyn
        cases = [tuple(rand(s, torch.float32, lo, hi) for s in ss) +
                 (tuple(a() for a in int_args) if int_args else ()) for ss in dshapes]
        ms.append(Method("dyn_float32", fn, cases, dyn=dspec, ranks="dynamic"))
    if extra:
        ms += extra()
    return ms


def _outc(o):
    if isinstance(o, (tuple, list)):
        return tuple(_c(t) for t in o)
    return _c(o)


def D(name, lo, hi):
    return torch.export.Dim(name, min=lo, max=hi)


def _idx(n, *shape):
    return lambda: torch.randint(0, n, shape, dtype=torch.int64)


SHAPE_OPS = [
    ("permute_copy", lambda x: A.permute_copy.default(x, [2, 0, 3, 1]), [(2, 3, 4, 5)], True,
     "aten::permute_copy.out"),
    ("transpose_copy", lambda x: A.transpose_copy.int(x, 1, 3), [(2, 3, 4, 5)], True,
     "aten::transpose_copy.int_out"),
    ("t_copy", lambda x: A.t_copy.default(x), [(3, 5)], False, "aten::t_copy.out"),
    ("view_copy", lambda x: A.view_copy.default(x, [6, 2, 10]), [(2, 3, 4, 5)], True,
     "aten::view_copy.out"),
    ("expand_copy", lambda x: A.expand_copy.default(x, [2, 3, 4, 5]), [(3, 1, 5)], False,
     "aten::expand_copy.out"),
    ("flip", lambda x: A.flip.default(x, [0, 2]), [(2, 3, 4, 5)], True, "aten::flip.out"),
    ("roll", lambda x: A.roll.default(x, [1, -2], [1, 3]), [(2, 3, 4, 5)], True,
     "aten::roll.out"),
    ("repeat", lambda x: A.repeat.default(x, [2, 1, 3]), [(3, 2)], False, "aten::repeat.out"),
    ("select_copy", lambda x: A.select_copy.int(x, 1, -1), [(2, 3, 4, 5)], True,
     "aten::select_copy.int_out"),
    ("slice_copy", lambda x: A.slice_copy.Tensor(x, 3, 1, 5, 2), [(2, 3, 4, 5)], True,
     "aten::slice_copy.Tensor_out"),
    ("narrow_copy", lambda x: A.narrow_copy.default(x, 2, 1, 2), [(2, 3, 4, 5)], True,
     "aten::narrow_copy.out"),
    ("squeeze_copy_dim", lambda x: A.squeeze_copy.dim(x, 1), [(2, 1, 4)], False,
     "aten::squeeze_copy.dim_out"),
    ("squeeze_copy_dims", lambda x: A.squeeze_copy.dims(x, [0, 2]), [(1, 3, 1, 2)], False,
     "aten::squeeze_copy.dims_out"),
    ("unsqueeze_copy", lambda x: A.unsqueeze_copy.default(x, 1), [(2, 3, 4)], False,
     "aten::unsqueeze_copy.out"),
    ("diagonal_copy", lambda x: A.diagonal_copy.default(x, 1, 0, 2), [(4, 3, 5)], False,
     "aten::diagonal_copy.out"),
    ("as_strided_copy", lambda x: A.as_strided_copy.default(x, [3, 3], [2, 1], 1), [(4, 5)],
     False, "aten::as_strided_copy.out"),
    ("unfold_copy", lambda x: A.unfold_copy.default(x, 1, 3, 2), [(2, 7, 3)], False,
     "aten::unfold_copy.out"),
    ("tril", lambda x: A.tril.default(x, 1), [(2, 4, 5)], False, "aten::tril.out"),
    ("tril_neg", lambda x: A.tril.default(x, -1), [(5, 4)], False, "aten::tril.out"),
    ("split_copy", lambda x: A.split_copy.Tensor(x, 2, 1), [(2, 5, 3)], False,
     "aten::split_copy.Tensor_out"),
    ("split_with_sizes_copy", lambda x: A.split_with_sizes_copy.default(x, [1, 3, 1], 1),
     [(2, 5, 3)], False, "aten::split_with_sizes_copy.out"),
    ("unbind_copy", lambda x: A.unbind_copy.int(x, 1), [(2, 3, 4)], False,
     "aten::unbind_copy.int_out"),
    ("cat", lambda a, b, c: A.cat.default([a, b, c], 1), [(2, 3, 4), (2, 1, 4), (2, 0, 4)],
     False, "aten::cat.out"),
    ("cat_dim0", lambda a, b: A.cat.default([a, b], 0), [(2, 3), (4, 3)], False, "aten::cat.out"),
    ("stack", lambda a, b: A.stack.default([a, b], 1), [(2, 3, 4), (2, 3, 4)], False,
     "aten::stack.out"),
    ("constant_pad_nd", lambda x: A.constant_pad_nd.default(x, [1, 2, 0, 1], 1.5),
     [(2, 3, 4, 5)], True, "aten::constant_pad_nd.out"),
    ("pixel_shuffle", lambda x: A.pixel_shuffle.default(x, 2), [(1, 8, 2, 3)], True,
     "aten::pixel_shuffle.out"),
    ("pixel_unshuffle", lambda x: A.pixel_unshuffle.default(x, 2), [(1, 2, 4, 6)], True,
     "aten::pixel_unshuffle.out"),
    ("reflection_pad1d", lambda x: A.reflection_pad1d.default(x, [2, 1]), [(2, 3, 5)], False,
     "aten::reflection_pad1d.out"),
    ("reflection_pad2d", lambda x: A.reflection_pad2d.default(x, [2, 1, 1, 2]), [(2, 3, 4, 5)],
     True, "aten::reflection_pad2d.out"),
    ("reflection_pad3d", lambda x: A.reflection_pad3d.default(x, [1, 1, 2, 1, 1, 0]),
     [(1, 2, 3, 4, 5)], False, "aten::reflection_pad3d.out"),
    ("replication_pad1d", lambda x: A.replication_pad1d.default(x, [2, 1]), [(2, 3, 5)], False,
     "aten::replication_pad1d.out"),
    ("replication_pad2d", lambda x: A.replication_pad2d.default(x, [2, 1, 1, 2]),
     [(2, 3, 4, 5)], True, "aten::replication_pad2d.out"),
    ("replication_pad3d", lambda x: A.replication_pad3d.default(x, [1, 1, 2, 1, 1, 0]),
     [(1, 2, 3, 4, 5)], False, "aten::replication_pad3d.out"),
    ("copy", lambda x, y: A.copy.default(x, y), [(2, 3, 4), (3, 1)], False, "aten::copy.out"),
    ("fill_tensor", lambda x, v: A.fill.Tensor(x, v), [(2, 3, 4), ()], False,
     "aten::fill.Tensor_out"),
]
for _name, _fn, _shapes, _cl, _target in SHAPE_OPS:
    def _b(fn=_fn, shapes=_shapes, cl=_cl, name=_name):
        dyn = None
        if name in ("permute_copy", "flip", "select_copy", "constant_pad_nd", "roll"):
            dyn = ([[(2, 3, 4, 5)], [(2, 3, 2, 7)], [(2, 3, 8, 1)]],
                   ({2: D("h", 1, 8), 3: D("w", 1, 8)},))
        return simple(fn, shapes, cl=cl, dyn=dyn)

    spec(_name, _target, "shape")(_b)

INDEX_OPS = [
    ("index_select", lambda x, i: A.index_select.default(x, 1, i), [(2, 5, 3)], [_idx(5, 4)],
     "aten::index_select.out"),
    ("gather", lambda x, i: A.gather.default(x, 1, i), [(3, 5)], [_idx(5, 3, 4)],
     "aten::gather.out"),
    ("index_tensor", lambda x, i: A.index.Tensor(x, [None, i]), [(3, 5, 2)], [_idx(5, 2, 3)],
     "aten::index.Tensor_out"),
    ("index_tensor2", lambda x, i, j: A.index.Tensor(x, [i, j]), [(4, 5)],
     [_idx(4, 3), _idx(5, 3)], "aten::index.Tensor_out"),
    ("embedding", lambda w, i: A.embedding.default(w, i), [(10, 4)], [_idx(10, 2, 3)],
     "aten::embedding.out"),
    ("scatter_src", lambda x, i: A.scatter.src(x, 0, i, x * 2), [(4, 3)],
     [lambda: torch.tensor([[0, 1, 2], [3, 0, 1]])], "aten::scatter.src_out"),
    ("scatter_value", lambda x, i: A.scatter.value(x, 1, i, 7), [(3, 5)],
     [lambda: torch.tensor([[0, 4], [2, 1], [3, 3]])], "aten::scatter.value_out"),
    ("scatter_add", lambda x, i: A.scatter_add.default(x, 1, i, x), [(3, 5)],
     [_idx(5, 3, 5)], "aten::scatter_add.out"),
    ("index_put", lambda x, i, v: A.index_put.default(x, [i], v, False), [(5, 3)],
     [lambda: torch.tensor([4, 0, 2]), lambda: torch.randn(3, 3)], "aten::index_put.out"),
    ("index_put_acc", lambda x, i, v: A.index_put.default(x, [i], v, True), [(5, 3)],
     [lambda: torch.tensor([4, 0, 4]), lambda: torch.randn(3, 3)], "aten::index_put.out"),
    ("repeat_interleave", lambda r: A.repeat_interleave.Tensor(r, output_size=9), [],
     [lambda: torch.tensor([2, 0, 3, 4])], "aten::repeat_interleave.Tensor_out"),
]
for _name, _fn, _shapes, _iargs, _target in INDEX_OPS:
    def _b(fn=_fn, shapes=_shapes, iargs=_iargs, name=_name):
        dts = DTYPES if shapes else [torch.int64]
        ms = []
        for dt in dts:
            cases = []
            for _ in range(2):
                args = [rand(s, dt) for s in shapes] + [a() for a in iargs]
                if name.startswith("index_put"):
                    args[-1] = args[-1].to(dt) if dt != torch.bool else args[-1] > 0
                cases.append(tuple(args))
            ms.append(Method(DNAME[dt] if shapes else "int64", fn, cases, dt,
                             ranks=",".join(str(len(s)) for s in shapes) or "1"))
        return ms

    spec(_name, _target, "index")(_b)


@spec("masked_select", "aten::masked_select.out", "index")
def _b_masked_select():
    return simple(lambda x, m: A.masked_select.default(x, m), [(3, 4)],
                  int_args=[lambda: torch.rand(3, 4) > 0.5])


@spec("masked_scatter", "aten::masked_scatter.out", "index")
def _b_masked_scatter():
    return simple(lambda x, m, s: A.masked_scatter.default(x, m, s), [(3, 4)],
                  int_args=[lambda: torch.rand(3, 4) > 0.5, lambda: torch.randn(12)],
                  dtypes=[torch.float32])


@spec("nonzero", "aten::nonzero.out", "index")
def _b_nonzero():
    return simple(lambda x: A.nonzero.default(x), [(3, 4)], lo=-1, hi=1.2)


@spec("select_scatter", "aten::select_scatter.out", "index")
def _b_select_scatter():
    return simple(lambda x, s: A.select_scatter.default(x, s, 1, 2), [(2, 4, 3), (2, 3)])


@spec("slice_scatter", "aten::slice_scatter.out", "index")
def _b_slice_scatter():
    return simple(lambda x, s: A.slice_scatter.default(x, s, 1, 1, 5, 2), [(2, 6, 3), (2, 2, 3)])


@spec("index_put_", "aten::index_put_", "index", backend={"run_reinplace_pass": True})
def _b_index_put_():
    class M(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.register_buffer("buf", torch.zeros(5, 3))

        def forward(self, i, v):
            self.buf.index_put_([i], v)
            return self.buf + 0

    return [Method("float32", M(), [(torch.tensor([1, 3]), torch.randn(2, 3))], torch.float32,
                   ranks="2")]


@spec("copy_", "aten::copy_", "index")
def _b_copy_():
    class M(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.register_buffer("buf", torch.zeros(2, 3))

        def forward(self, x):
            self.buf.copy_(x)
            return self.buf * 2

    return [Method("float32", M(), [(torch.randn(2, 3),)], torch.float32, ranks="2")]


# ---- creation --------------------------------------------------------------

def creation(fn, name, n_in=1):
    cases = [(torch.randn(2, 3),) for _ in range(n_in)]
    return [Method("float32", fn, cases[:1], ranks="-")]


CREATION = [
    ("arange", lambda x: x + A.arange.default(3, dtype=torch.float32), "aten::arange.out"),
    ("arange_start", lambda x: x + A.arange.start_step(1, 7, 2, dtype=torch.float32),
     ["aten::arange.start_out", "aten::arange.out"]),
    ("full", lambda x: x + A.full.default([2, 3], 1.5), "aten::full.out"),
    ("ones", lambda x: x + A.ones.default([2, 3]), "aten::ones.out"),
    ("zeros", lambda x: x + A.zeros.default([2, 3]), "aten::zeros.out"),
    ("scalar_tensor", lambda x: x + A.scalar_tensor.default(2.5), "aten::scalar_tensor.out"),
    ("empty", lambda x: A.copy.default(A.empty.memory_format([2, 3]), x),
     ["aten::empty.out", "dim_order_ops::_empty_dim_order.out"]),
    ("rand", lambda x: (x * 0 + A.rand.default([2, 3])).ge(0) &
     (A.rand.default([2, 3]) < 1), "aten::rand.out"),
    ("randn", lambda x: A.eq.Tensor(A.randn.default([2, 3]), A.randn.default([2, 3])) | (x > 0)
     | True, "aten::randn.out"),
    ("native_dropout", lambda x: A.native_dropout.default(x, 0.0, True),
     "aten::native_dropout.out"),
]
for _name, _fn, _target in CREATION:
    spec(_name, _target, "creation")(lambda fn=_fn, name=_name: creation(fn, name))


@spec("dynamic_arange", ["aten::arange.start_out", "aten::arange.out", "aten::sym_size.int"],
      "creation")
def _b_dyn_arange():
    d = D("n", 2, 16)
    cases = [(torch.randn(n),) for n in (4, 2, 16, 7)]
    return [Method("dyn_float32", lambda x: x + torch.arange(x.shape[0], dtype=torch.float32),
                   cases, dyn=({0: d},), ranks="1 (dynamic)")]


# ---- prim ops via dynamic shapes -------------------------------------------

@spec("prim_sym", ["aten::sym_size.int", "executorch_prim::mul.Scalar",
                   "executorch_prim::add.Scalar", "executorch_prim::floordiv.Scalar",
                   "executorch_prim::sub.Scalar", "executorch_prim::et_view.default",
                   "aten::sym_numel", "executorch_prim::truediv.Scalar",
                   "executorch_prim::mod.Scalar", "executorch_prim::sym_max.Scalar"], "prim")
def _b_prim():
    d = D("a", 2, 8)
    e = D("b", 2, 8)

    def f_view(x):
        n, m = x.shape
        return (x.reshape(n * m) * 2,
                A.full.default([n * m + 1], 1.0),
                A.full.default([(n * m) // 2 + 1], 1.0),
                A.full.default([n + m - 1], 2.0),
                x.view(-1, m).sum(0),
                A.full.default([x.numel() % 3 + 1], 3.0))

    shapes = [(4, 6), (2, 2), (8, 8), (3, 5)]
    ms = [Method("dyn_float32", f_view, [(torch.randn(*s),) for s in shapes], dyn=({0: d, 1: e},),
                 ranks="2 (dynamic)")]

    def f_max(x, y):
        return A.full.default([max(x.shape[0], y.shape[0])], 1.0), \
            A.full.default([min(x.shape[0], y.shape[0])], 2.0)

    d2 = D("c", 1, 8)
    d3 = D("d", 1, 8)
    ms.append(Method("dyn_minmax", f_max, [(torch.randn(a), torch.randn(b))
                                           for a, b in [(3, 5), (7, 2), (4, 4)]],
                     dyn=({0: d2}, {0: d3}), ranks="1 (dynamic)"))
    return ms


@spec("prim_item", ["aten::_local_scalar_dense", "executorch_prim::sym_float.Scalar"], "prim")
def _b_prim_item():
    def f(x, n):
        k = n.item()
        torch._check(k >= 1)
        torch._check(k <= 6)
        return A.full.default([k], 1.0) * x.sum()

    cases = [(torch.randn(3), torch.tensor(4)), (torch.randn(3), torch.tensor(1))]
    return [Method("float32", f, cases, ranks="1")]


# Python's //, % on ints, int() and numel() of sizes, which the exporter
# lowers to floordiv.Scalar, mod.Scalar, trunc.Scalar and a product of
# sym_size: the program is rewritten to floordiv.int, mod.int, sym_int.Scalar
# and aten::sym_numel (rewrite_prim_int); expected values are Python's
# (floor division, a remainder with the divisor's sign, int() truncating).
@spec("prim_int", ["executorch_prim::floordiv.int", "executorch_prim::mod.int",
                   "executorch_prim::sym_int.Scalar", "aten::sym_numel"], "prim")
def _b_prim_int():
    d = D("n", 2, 16)
    e = D("m", 1, 6)

    def f(x):
        n, m = x.shape
        vals = (n // 3, (-n) // 3, n // -4, (-n) // m, n % 3, (-n) % 3, n % -4, (-n) % m,
                torch.sym_int(n / 3), torch.sym_int(-n / 4), x.numel())
        return tuple(torch.full((1,), v, dtype=torch.int64) for v in vals)

    shapes = [(5, 3), (2, 1), (16, 6), (7, 4), (12, 5), (9, 2)]
    return [Method("dyn_int", f, [(torch.randn(*s),) for s in shapes], dyn=({0: d, 1: e},),
                   ranks="2 (dynamic)")]


# Symbolic-int/float arithmetic on dynamic sizes whose results feed tensor ops
# (ExecuTorch lowers each Python sym op to its executorch_prim op).
@spec("prim_more", ["executorch_prim::truediv.Scalar", "executorch_prim::sym_float.Scalar",
                    "executorch_prim::neg.Scalar",
                    "executorch_prim::ceil.Scalar", "executorch_prim::round.Scalar",
                    "executorch_prim::trunc.Scalar", "executorch_prim::mod.Scalar",
                    "executorch_prim::floordiv.Scalar"], "prim")
def _b_prim_more():
    d = D("n", 2, 16)
    shapes = [5, 2, 16, 7, 12, 9]

    def f_arith(x):
        n = x.shape[0]
        return (torch.full((1,), n / 2) + x[:1],
                torch.full((1,), torch.sym_float(n) * 0.25) + x[:1],
                torch.full((1,), -n, dtype=torch.float32) + x[:1],
                torch.full((1,), n % 3, dtype=torch.int64),
                torch.full((1,), n // 3, dtype=torch.int64))
    ms = [Method("dyn_arith", f_arith, [(torch.randn(s),) for s in shapes], dyn=({0: d},),
                 ranks="1 (dynamic)")]

    def f_round(x):
        # sizes feed full's fill value (a size argument would add 0/1 guards)
        n = x.shape[0]
        i = torch.int64
        return (torch.full((1,), math.ceil(n / 3), dtype=i),
                torch.full((1,), math.ceil(-n / 3), dtype=i),
                torch.full((1,), round(n / 4), dtype=i),
                torch.full((1,), math.trunc(n / 3), dtype=i),
                torch.full((1,), math.trunc(-n / 3), dtype=i),
                torch.full((1,), (-n) % 3, dtype=i),
                torch.full((1,), (-n) // 3, dtype=i))
    ms.append(Method("dyn_round", f_round, [(torch.randn(s),) for s in shapes + [6, 10, 14]],
                     dyn=({0: d},), ranks="1 (dynamic)"))

    e = D("m", 1, 6)

    def f_numel(x):
        return torch.full((1,), torch.ops.aten.sym_numel(x), dtype=torch.int64), \
            torch.full((1,), x.numel() / 4, dtype=torch.float32)
    ms.append(Method("dyn_numel", f_numel,
                     [(torch.randn(a, b),) for a, b in [(3, 4), (2, 1), (16, 6), (5, 5)]],
                     dyn=({0: d, 1: e},), ranks="2 (dynamic)"))
    return ms


# Symbolic comparisons / boolean logic: sym_ite selects a size, torch.cond
# branches on a symbolic predicate (JumpFalseCall).
@spec("prim_cond", ["executorch_prim::eq.Scalar", "executorch_prim::gt.Scalar",
                    "executorch_prim::lt.Scalar", "executorch_prim::ge.Scalar",
                    "executorch_prim::le.Scalar", "executorch_prim::sym_not.Scalar",
                    "executorch_prim::sym_ite.Scalar"], "prim")
def _b_prim_cond():
    d = D("n", 2, 16)
    shapes = [5, 2, 16, 4, 8, 6, 9]

    def f_ite(x):
        n = x.shape[0]
        i = torch.int64
        return (torch.full((1,), torch.sym_ite(n > 6, n, 2 * n), dtype=i),
                torch.full((1,), torch.sym_ite(n < 5, n + 1, n - 1), dtype=i),
                torch.full((1,), torch.sym_ite(n >= 8, n * 3, n), dtype=i),
                torch.full((1,), torch.sym_ite(n <= 4, n + 7, n), dtype=i),
                torch.full((1,), torch.sym_ite(n == 4, n + 2, n), dtype=i),
                torch.full((1,), torch.sym_ite(torch.sym_not(n > 6), n + 5, n), dtype=i),
                torch.full((1,), n > 6), torch.full((1,), n == 5))
    ms = [Method("dyn_ite", f_ite, [(torch.randn(s),) for s in shapes], dyn=({0: d},),
                 ranks="1 (dynamic)")]

    def f_cmp(x):
        # the comparisons' results feed full's fill value directly (bool output)
        n = x.shape[0]
        return (torch.full((1,), n > 6), torch.full((1,), n < 5), torch.full((1,), n >= 8),
                torch.full((1,), n <= 4), torch.full((1,), n == 5))
    ms.append(Method("dyn_cmp", f_cmp, [(torch.randn(s),) for s in shapes], dyn=({0: d},),
                     ranks="1 (dynamic)"))

    def f_cond(x):
        return torch.cond(x.shape[0] > 6, lambda t: t.sin() * 2, lambda t: t.cos() - 1, (x,))
    ms.append(Method("dyn_cond_gt", f_cond, [(torch.randn(s),) for s in shapes],
                     dyn=({0: d},), ranks="1 (dynamic)"))

    def f_cond2(x):
        return torch.cond(x.shape[0] <= 4, lambda t: t + 1, lambda t: t * 3, (x,))
    ms.append(Method("dyn_cond_le", f_cond2, [(torch.randn(s),) for s in shapes],
                     dyn=({0: d},), ranks="1 (dynamic)"))

    def f_cond3(x):
        return torch.cond(x.shape[0] % 3 == 0, lambda t: t.abs(), lambda t: -t, (x,))
    ms.append(Method("dyn_cond_eq", f_cond3, [(torch.randn(s),) for s in shapes],
                     dyn=({0: d},), ranks="1 (dynamic)"))
    return ms


# torch.map lowers to a loop: select_copy, the body, et_copy_index into the
# stacked output, prim add/eq/sub and a JumpFalseCall.
@spec("prim_map", ["executorch_prim::et_copy_index.tensor"], "prim")
def _b_prim_map():
    from torch._higher_order_ops.map import map as hop_map

    def body(xi, y):
        return xi * y + 1

    def f(x, y):
        return hop_map(body, x, y)
    ms = [Method("float32", f, [(torch.randn(4, 3), torch.randn(3)),
                                (torch.randn(4, 3), torch.randn(3))], ranks="2")]
    # The first case (the export example) is at the bound: the exporter plans a
    # map's input from the example shape, not from the Dim's max (with n=4 as
    # example both runtimes refuse n=8 and n=5: capacity 12 elements).
    d = D("n", 1, 8)
    ms.append(Method("dyn_float32", f, [(torch.randn(s, 3), torch.randn(3)) for s in (8, 1, 4, 5)],
                     dyn=({0: d}, None), ranks="2 (dynamic)"))
    return ms


# ---- linear algebra / nn ---------------------------------------------------

NN = [
    ("mm", lambda a, b: A.mm.default(a, b), [(3, 4), (4, 5)], FLOATS + INTS, "aten::mm.out",
     None),
    ("bmm", lambda a, b: A.bmm.default(a, b), [(2, 3, 4), (2, 4, 5)], FLOATS + INTS,
     "aten::bmm.out", None),
    ("addmm", lambda c, a, b: A.addmm.default(c, a, b, beta=0.5, alpha=2.0),
     [(5,), (3, 4), (4, 5)], FLOATS, "aten::addmm.out", None),
    ("cdist", lambda a, b: A._cdist_forward.default(a, b, 2.0, None), [(2, 3, 4), (2, 5, 4)],
     FLOATS[:2], "aten::_cdist_forward.out", None),
    ("cdist_p1", lambda a, b: A._cdist_forward.default(a, b, 1.0, None), [(3, 4), (5, 4)],
     FLOATS[:2], "aten::_cdist_forward.out", None),
    ("pdist", lambda a: A._pdist_forward.default(a, 2.0), [(5, 3)], FLOATS[:2],
     "aten::_pdist_forward.out", None),
    ("layer_norm", lambda x, w, b: A.native_layer_norm.default(x, [4], w, b, 1e-5),
     [(2, 3, 4), (4,), (4,)], FLOATS, "aten::native_layer_norm.out", None),
    ("layer_norm_2d", lambda x, w, b: A.native_layer_norm.default(x, [3, 4], w, b, 1e-5),
     [(2, 3, 4), (3, 4), (3, 4)], FLOATS[:2], "aten::native_layer_norm.out", None),
    ("group_norm", lambda x, w, b: A.native_group_norm.default(x, w, b, 2, 4, 6, 2, 1e-5),
     [(2, 4, 2, 3), (4,), (4,)], FLOATS[:2], "aten::native_group_norm.out", None),
    ("batch_norm_no_training",
     lambda x, w, b, m, v: A._native_batch_norm_legit_no_training.default(x, w, b, m, v.abs() +
                                                                           0.5, 0.1, 1e-5),
     [(2, 3, 4, 5), (3,), (3,), (3,), (3,)], FLOATS[:2],
     "aten::_native_batch_norm_legit_no_training.out", None),
    ("adaptive_avg_pool2d", lambda x: A._adaptive_avg_pool2d.default(x, [2, 3]),
     [(1, 2, 5, 7)], FLOATS[:2], "aten::_adaptive_avg_pool2d.out", None),
    ("avg_pool2d", lambda x: A.avg_pool2d.default(x, [3, 2], [2, 1], [1, 0], False, True, None),
     [(1, 2, 5, 6)], FLOATS[:2], "aten::avg_pool2d.out", None),
    ("max_pool2d", lambda x: A.max_pool2d_with_indices.default(x, [2, 2], [2, 2], [0, 0],
                                                               [1, 1], False),
     [(1, 2, 5, 6)], FLOATS[:2] + [torch.int32], "aten::max_pool2d_with_indices.out", None),
    ("convolution", lambda x, w, b: A.convolution.default(x, w, b, [1, 2], [1, 0], [1, 1], False,
                                                          [0, 0], 1),
     [(1, 4, 5, 6), (6, 4, 3, 3), (6,)], FLOATS[:2], "aten::convolution.out", (1e-5, 1e-5)),
    ("convolution_grouped", lambda x, w, b: A.convolution.default(x, w, b, [1, 1], [1, 1], [2, 2],
                                                                  False, [0, 0], 2),
     [(1, 4, 6, 6), (4, 2, 3, 3), (4,)], FLOATS[:1], "aten::convolution.out", (1e-5, 1e-5)),
    ("convolution_1d", lambda x, w, b: A.convolution.default(x, w, b, [1], [1], [1], False, [0],
                                                             1),
     [(2, 3, 7), (4, 3, 3), (4,)], FLOATS[:2], "aten::convolution.out", (1e-5, 1e-5)),
    ("conv_transpose", lambda x, w, b: A.convolution.default(x, w, b, [2, 2], [1, 1], [1, 1],
                                                             True, [1, 1], 1),
     [(1, 4, 3, 4), (4, 3, 3, 3), (3,)], FLOATS[:2], "aten::convolution.out", (1e-5, 1e-5)),
    ("upsample_nearest2d", lambda x: A.upsample_nearest2d.vec(x, [5, 7], None),
     [(1, 2, 3, 4)], FLOATS[:2], "aten::upsample_nearest2d.vec_out", None),
    ("upsample_bilinear2d", lambda x: A.upsample_bilinear2d.vec(x, [5, 7], False, None),
     [(1, 2, 3, 4)], FLOATS[:2], "aten::upsample_bilinear2d.vec_out", None),
    ("upsample_bilinear2d_ac", lambda x: A.upsample_bilinear2d.vec(x, [5, 7], True, None),
     [(1, 2, 3, 4)], FLOATS[:2], "aten::upsample_bilinear2d.vec_out", None),
    ("upsample_bilinear2d_aa", lambda x: A._upsample_bilinear2d_aa.default(x, [2, 3], False),
     [(1, 2, 5, 7)], FLOATS[:2], "aten::_upsample_bilinear2d_aa.out", None),
    ("grid_sampler_2d", lambda x, g: A.grid_sampler_2d.default(x, g.tanh() * 1.25, 0, 0, False),
     [(1, 2, 4, 5), (1, 3, 3, 2)], FLOATS[:2], "aten::grid_sampler_2d.out", None),
    ("glu", lambda x: A.glu.default(x, 1), [(2, 6, 3)], FLOATS, "aten::glu.out", None),
]
for _name, _fn, _shapes, _dts, _target, _tol in NN:
    def _b(fn=_fn, shapes=_shapes, dts=_dts, name=_name):
        cl = len(shapes[0]) == 4
        dyn = None
        if name in ("mm", "addmm"):
            dyn = ([[(3, 4), (4, 5)], [(1, 2), (2, 7)], [(8, 8), (8, 1)]][:] if name == "mm" else
                   None, None)
            if name == "mm":
                m, k, n = D("m", 1, 8), D("k", 1, 8), D("n", 1, 8)
                dyn = (dyn[0], ({0: m, 1: k}, {0: k, 1: n}))
            else:
                dyn = None
        if name == "layer_norm":
            b = D("b", 1, 6)
            dyn = ([[(2, 3, 4), (4,), (4,)], [(5, 1, 4), (4,), (4,)]],
                   ({0: b}, None, None))
        return simple(fn, shapes, dtypes=dts, cl=cl, dyn=dyn)

    spec(_name, _target, "nn", _tol)(_b)


# uint8 bilinear (PyTorch's separable fixed-point path): the whole byte range,
# 3 channels (eager: packed RGB), channels-last with 5 (eager: the generic loop),
# and scale factors where the op takes them. Compared exactly.
def _u8_resample(fn, shape, scaled):
    n, c, h, w = 2, 3, shape[2], shape[3]

    def cases(ch):
        return [(torch.randint(0, 256, (n, ch, h, w), dtype=torch.uint8),) for _ in range(2)]

    ms = [Method("uint8", fn, cases(c), torch.uint8, ranks="4"),
          Method("cl_uint8", lambda x: _outc(fn(to_cl(x))), cases(5), torch.uint8,
                 layout="channels_last", ranks="4")]
    if scaled:
        ms.append(Method("uint8_scales", scaled, cases(c), torch.uint8, ranks="4"))
    return ms


_U8_RESAMPLE = {
    "upsample_bilinear2d": lambda x: A.upsample_bilinear2d.vec(x, None, False, [1.7, 0.6]),
    "upsample_bilinear2d_ac": lambda x: A.upsample_bilinear2d.vec(x, None, True, [0.5, 2.5]),
    "upsample_bilinear2d_aa": lambda x: A._upsample_bilinear2d_aa.default(x, [3, 2], False, 0.7,
                                                                           0.35),
}
for _name, _fn, _shapes, _dts, _target, _tol in NN:
    if _name in _U8_RESAMPLE:
        _s = [x for x in SPECS if x.name == _name][0]
        _s.build = (lambda b=_s.build, fn=_fn, shape=_shapes[0], sc=_U8_RESAMPLE[_name]:
                    b() + _u8_resample(fn, shape, sc))


@spec("batch_norm_legit", ["aten::_native_batch_norm_legit.out",
                           "aten::_native_batch_norm_legit.no_stats_out"], "nn")
def _b_bn_legit():
    def f(x, w, b):
        return A._native_batch_norm_legit.no_stats(x, w, b, True, 0.1, 1e-5)

    class M(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.register_buffer("rm", torch.zeros(3))
            self.register_buffer("rv", torch.ones(3))

        def forward(self, x, w, b):
            return A._native_batch_norm_legit.default(x, w, b, self.rm, self.rv, True, 0.1,
                                                      1e-5)[0]

    shapes = [(2, 3, 4, 5), (3,), (3,)]
    c = [tuple(torch.randn(s) for s in shapes) for _ in range(2)]
    return [Method("no_stats_float32", f, c, ranks="4"), Method("float32", M(), c[:1],
                                                                ranks="4")]


# The exporter functionalizes _native_batch_norm_legit with running
# statistics (its functional form has no out variant): the program is exported
# with no_stats (training) or _no_training (eval) and rewritten to the overload
# (rewrite_bn_legit); the expected outputs call the overload itself, whose
# running statistics are updated in place (returned after the call).
@spec("batch_norm_legit_stats", "aten::_native_batch_norm_legit.out", "nn")
def _b_bn_legit_stats():
    def method(name, training, momentum, eps, dt):
        def ref(x, w, b, rm, rv):
            out = A._native_batch_norm_legit.default(x, w, b, rm, rv, training, momentum, eps)
            return tuple(out) + (rm.clone(), rv.clone())

        def prog(x, w, b, rm, rv):
            if training:
                out = A._native_batch_norm_legit.no_stats(x, w, b, True, momentum, eps)
            else:
                out = A._native_batch_norm_legit_no_training.default(x, w, b, rm, rv, momentum,
                                                                     eps)
            return tuple(out) + (rm.clone(), rv.clone())

        cases = [(torch.randn(2, 3, 4, 5, dtype=dt), torch.randn(3, dtype=dt),
                  torch.randn(3, dtype=dt), torch.randn(3, dtype=dt),
                  torch.rand(3, dtype=dt) + 0.5) for _ in range(2)]
        return Method(name, prog, cases, dt, ranks="4", eager=ref)

    return [method("train_float32", True, 0.1, 1e-5, torch.float32),
            method("eval_float32", False, 0.1, 1e-5, torch.float32),
            method("train_float64", True, 0.3, 1e-3, torch.float64)]


@spec("max_pool2d_backward", "aten::max_pool2d_with_indices_backward.grad_input", "nn")
def _b_mpb():
    def f(g, x):
        _, idx = A.max_pool2d_with_indices.default(x, [2, 2], [2, 2])
        return A.max_pool2d_with_indices_backward.default(g, x, [2, 2], [2, 2], [0, 0], [1, 1],
                                                          False, idx)

    cases = [(torch.randn(1, 2, 2, 3), torch.randn(1, 2, 4, 6)) for _ in range(2)]
    return [Method("float32", f, cases, ranks="4")]


@spec("convolution_backward", "aten::convolution_backward.out", "nn", (1e-5, 1e-5))
def _b_cb():
    def f(g, x, w):
        return A.convolution_backward.default(g, x, w, [4], [1, 1], [1, 1], [1, 1], False,
                                              [0, 0], 1, [True, True, True])

    cases = [(torch.randn(1, 4, 5, 6), torch.randn(1, 3, 5, 6), torch.randn(4, 3, 3, 3))
             for _ in range(2)]
    return [Method("float32", f, cases, ranks="4")]


@spec("view_as_real_copy", "aten::view_as_real_copy.out", "shape")
def _b_var():
    def f(x):
        return A.view_as_real_copy.default(torch.complex(x, x * 2))

    def g(*cs):
        return tuple(A.view_as_real_copy.default(c) for c in cs)

    def cases(dt, shapes):
        return [tuple(torch.randn(s, dtype=dt) for s in shapes) for _ in range(2)]

    shapes = [(), (5,), (2, 3, 4), (0, 3)]
    ranks = "0,1,3,empty"
    return [Method("float32", f, [(torch.randn(2, 3),)], ranks="2"),
            Method("float64", f, cases(torch.float64, [(2, 3)]), torch.float64, ranks="2"),
            Method("float16", f, [(x.half(),) for (x,) in cases(torch.float32, [(2, 3)])],
                   torch.float16, ranks="2"),
            # complex inputs straight from the bundled program
            Method("complex64", g, cases(torch.complex64, shapes), torch.complex64, ranks=ranks),
            Method("complex128", g, cases(torch.complex128, shapes), torch.complex128,
                   ranks=ranks),
            Method("cl_complex64", lambda c: A.view_as_real_copy.default(to_cl(c)),
                   cases(torch.complex64, [(2, 3, 4, 5)]), torch.complex64,
                   layout="channels_last", ranks="4")]


@spec("complex", "aten::complex.out", "binary")
def _b_complex():
    # real and imaginary parts of one float dtype -> ComplexFloat/ComplexDouble/ComplexHalf
    return elementwise_methods(A.complex.default, [torch.float32, torch.float64, torch.float16], 2)


# ---- program rewrites ---------------------------------------------------------
# Operators the official exporter never emits: their files export a related
# operator and edit each emitted ExecutionPlan (executorch.exir.schema) so that
# the call names the target operator with its schema's argument list; the
# edited program is serialized again (reserialize) before it is bundled.


def _calls(plan, name, overload):
    """The KernelCalls of plan that call name.overload."""
    out = []
    for chain in plan.chains:
        for ins in chain.instructions:
            a = ins.instr_args
            if hasattr(a, "op_index"):
                op = plan.operators[a.op_index]
                if (op.name, op.overload) == (name, overload):
                    out.append(a)
    return out


def _retarget(plan, call, name, overload, args):
    """Makes `call` call name.overload with `args` (value indices)."""
    from executorch.exir.schema import Operator
    key = [(op.name, op.overload) for op in plan.operators]
    if (name, overload) not in key:
        plan.operators.append(Operator(name=name, overload=overload))
        key.append((name, overload))
    call.op_index = key.index((name, overload))
    call.args = list(args)


def _drop_unused_ops(plan):
    calls = [ins.instr_args for ch in plan.chains for ins in ch.instructions
             if hasattr(ins.instr_args, "op_index")]
    used = sorted({c.op_index for c in calls})
    plan.operators = [plan.operators[i] for i in used]
    for c in calls:
        c.op_index = used.index(c.op_index)


def rewrite_prim_int(plan):
    """floordiv.Scalar / mod.Scalar of two Int values -> floordiv.int / mod.int,
    trunc.Scalar -> sym_int.Scalar (both are Python's int(x)), and
    sym_size(t, 0) * sym_size(t, 1) of a 2-D t -> aten::sym_numel(t)."""
    P = "executorch_prim::"
    doubles = {c.args[-1] for c in _calls(plan, P + "truediv", "Scalar") +
               _calls(plan, P + "sym_float", "Scalar")}

    def is_int(v):
        return type(plan.values[v].val).__name__ == "Int" and v not in doubles

    for op in ("floordiv", "mod"):
        for c in _calls(plan, P + op, "Scalar"):
            if is_int(c.args[0]) and is_int(c.args[1]):
                _retarget(plan, c, P + op, "int", c.args)
    for c in _calls(plan, P + "trunc", "Scalar"):
        _retarget(plan, c, P + "sym_int", "Scalar", c.args)
    size_of = {c.args[2]: (c.args[0], plan.values[c.args[1]].val.int_val)
               for c in _calls(plan, "aten::sym_size", "int")}
    for c in _calls(plan, P + "mul", "Scalar"):
        a, b = size_of.get(c.args[0]), size_of.get(c.args[1])
        if a and b and a[0] == b[0] and {a[1], b[1]} == {0, 1} and \
                len(plan.values[a[0]].val.sizes) == 2:
            _retarget(plan, c, "aten::sym_numel", "", [a[0], c.args[2]])
    _drop_unused_ops(plan)


def rewrite_lift_fresh_copy(plan):
    """dim_order_ops::_clone_dim_order.out(self, non_blocking, dim_order, out) that keeps
    self's dim order (what to_edge makes of lift_fresh_copy) -> aten::lift_fresh_copy.out(
    self, out)."""
    for c in _calls(plan, "dim_order_ops::_clone_dim_order", "out"):
        src, dst = plan.values[c.args[0]].val, plan.values[c.args[3]].val
        if list(src.dim_order) == list(dst.dim_order):
            _retarget(plan, c, "aten::lift_fresh_copy", "out", [c.args[0]] + c.args[3:])
    _drop_unused_ops(plan)


def rewrite_bn_legit(plan):
    """_native_batch_norm_legit.no_stats_out(x, w, b, training, momentum, eps, outs) with the
    method's inputs 3 and 4 as running_mean / running_var, and
    _native_batch_norm_legit_no_training.out(x, w, b, rm, rv, momentum, eps, outs) with a
    new Bool training=False, -> _native_batch_norm_legit.out(x, w, b, rm, rv, training,
    momentum, eps, outs)."""
    from executorch.exir.schema import Bool, EValue
    target = "aten::_native_batch_norm_legit"
    for c in _calls(plan, target, "no_stats_out"):
        _retarget(plan, c, target, "out", c.args[:3] + plan.inputs[3:5] + c.args[3:])
    for c in _calls(plan, target + "_no_training", "out"):
        plan.values.append(EValue(val=Bool(bool_val=False)))
        _retarget(plan, c, target, "out", c.args[:5] + [len(plan.values) - 1] + c.args[5:])
    _drop_unused_ops(plan)


REWRITE = {
    "prim_int": rewrite_prim_int,
    "lift_fresh_copy": rewrite_lift_fresh_copy,
    "batch_norm_legit_stats": rewrite_bn_legit,
}


# ---- non-core ATen targets --------------------------------------------------
# These targets are not core ATen: by default to_edge decomposes them and the
# program holds only the decomposition. As ExecuTorch's own op tests do, their
# files ask the exporter to keep them (EdgeCompileConfig.preserve_ops). Files
# not named here are exported exactly as before.
KEEP = {
    "arange": [A.arange.default],
    "ones": [A.ones.default],
    "zeros": [A.zeros.default],
    "clamp_tensor": [A.clamp.Tensor],
    "fill_scalar": [A.fill.Scalar],
    "fill_tensor": [A.fill.Tensor],
    "floor_divide": [A.floor_divide.default],
    "glu": [A.glu.default],
    "lift_fresh_copy": [A.lift_fresh_copy.default],
    "logit": [A.logit.default],
    "masked_fill": [A.masked_fill.Scalar],
    "mean_dtype": [A.mean.default],
    "pixel_shuffle": [A.pixel_shuffle.default],
    "pixel_unshuffle": [A.pixel_unshuffle.default],
    "reflection_pad1d": [A.reflection_pad1d.default],
    "reflection_pad2d": [A.reflection_pad2d.default],
    "reflection_pad3d": [A.reflection_pad3d.default],
    "replication_pad1d": [A.replication_pad1d.default],
    "replication_pad2d": [A.replication_pad2d.default],
    "replication_pad3d": [A.replication_pad3d.default],
    "roll": [A.roll.default],
    "rsub_scalar": [A.rsub.Scalar],
    "select_scatter": [A.select_scatter.default],
    "squeeze_copy_dim": [A.squeeze_copy.dim],
    "stack": [A.stack.default],
    "t_copy": [A.t_copy.default],
    "transpose_copy": [A.transpose_copy.int],
    "tril": [A.tril.default],
    "tril_neg": [A.tril.default],
    "var_dim": [A.var.dim],
    "var_mean": [A.var_mean.correction],
}


# aten::_to_copy / clone / empty are core ATen, but a pass of to_edge turns
# them into dim_order_ops variants (kept in the files to_copy_*, clone,
# empty); these files export them with _skip_dim_order so the aten ones stay.
def _to_copy_all(x):
    return (A._to_copy.default(x, dtype=torch.float64), A._to_copy.default(x, dtype=torch.int32),
            A._to_copy.default(x, dtype=torch.float16), A._to_copy.default(x, dtype=torch.bool))


spec("to_copy_aten", "aten::_to_copy.out", "unary", skip_dim_order=True)(
    lambda: elementwise_methods(_to_copy_all, DTYPES, 1, -4, 4, cl=False))
spec("clone_aten", "aten::clone.out", "unary", keep=[A.clone.default], skip_dim_order=True)(
    lambda: elementwise_methods(A.clone.default, DTYPES, 1, -4, 4, cl=False))
def _et_copy_ops():
    # et_copy::_h2d_copy / _d2h_copy: the host<->device copies the exporter
    # inserts at device boundaries (CompositeImplicitAutograd: a clone unless kept)
    import executorch.exir.passes._device_copy_ops_registry  # noqa: F401
    return torch.ops.et_copy


@spec("et_copy", ["et_copy::_h2d_copy.out", "et_copy::_d2h_copy.out"], "unary",
      keep=[_et_copy_ops()._h2d_copy.default, _et_copy_ops()._d2h_copy.default])
def _b_et_copy():
    E = _et_copy_ops()
    return elementwise_methods(lambda x: E._d2h_copy.default(E._h2d_copy.default(x)),
                               [torch.float32, torch.float16, torch.int32, torch.int64,
                                torch.bool, torch.uint8], 1, -4, 4, cl=False, dyn=False)


spec("empty_aten", "aten::empty.out", "creation", keep=[A.empty.memory_format],
     skip_dim_order=True)(
    lambda: creation(lambda x: A.copy.default(A.empty.memory_format([2, 3]), x), "empty_aten"))


# ---- quantized_decomposed --------------------------------------------------

def _qd():
    try:
        import executorch.kernels.quantized  # noqa: F401  (out variants)
    except Exception:
        pass
    try:
        from torchao.quantization.pt2e import _affine_quantization  # noqa: F401
    except Exception:
        pass
    try:
        import torchao.quantization.quant_primitives  # noqa: F401
    except Exception:
        pass
    # embedding_* / mixed_* / add (and their out variants) are defined here
    import executorch.exir.passes._quant_patterns_and_replacements  # noqa: F401
    _register_quant_references()
    return torch.ops.quantized_decomposed


_QREF_LIB = []


def _register_quant_references():
    """quantized_decomposed::add, mixed_mm and mixed_linear are only declared
    (schema, out variant) by executorch: PyTorch has no kernel to run them in
    eager mode. Expected outputs need one, so give them a reference made of
    eager PyTorch ops (dequantize -> float op -> quantize), registered as
    CompositeExplicitAutograd so torch.export keeps the op itself in the graph."""
    if _QREF_LIB:
        return
    Q = torch.ops.quantized_decomposed
    lib = torch.library.Library("quantized_decomposed", "IMPL")
    _QREF_LIB.append(lib)

    def has(name):
        return torch._C._dispatch_has_kernel_for_dispatch_key(
            f"quantized_decomposed::{name}", "CompositeExplicitAutograd")

    def q_add(a, a_scale, a_zp, a_min, a_max, b, b_scale, b_zp, b_min, b_max, o_scale, o_zp,
              o_min, o_max):
        fa = Q.dequantize_per_tensor.default(a, a_scale, a_zp, a_min, a_max, a.dtype)
        fb = Q.dequantize_per_tensor.default(b, b_scale, b_zp, b_min, b_max, b.dtype)
        return Q.quantize_per_tensor.default(fa + fb, o_scale, o_zp, o_min, o_max, a.dtype)

    def q_mixed_mm(x, w, scales, zps):
        # weight [k, n] int8, one scale per row k (the reduction index)
        assert zps is None
        return torch.mm(x, w.to(torch.float32) * scales.to(torch.float32).unsqueeze(1))

    def q_mixed_linear(x, w, scales, zps, dtype=None):
        # weight [n, k] int8 (linear layout), one scale per output row n
        assert zps is None and scales.dim() == 1
        y = torch.mm(x, (w.to(torch.float32) * scales.to(torch.float32).unsqueeze(1)).t())
        return y if dtype is None else y.to(dtype)

    for name, fn in (("add", q_add), ("mixed_mm", q_mixed_mm),
                     ("mixed_linear", q_mixed_linear)):
        if not has(name):
            lib.impl(name, fn, "CompositeExplicitAutograd")


def _qspecs():
    Q = _qd()
    out = []

    def add(name, target, fn, cases, dtype=torch.float32):
        def b():
            return [Method("forward", fn, cases, dtype, ranks="-")]
        out.append((name, target, b))

    x = [(torch.randn(3, 4) * 3,) for _ in range(2)]
    add("q_quantize_per_tensor", "quantized_decomposed::quantize_per_tensor.out",
        lambda t: Q.quantize_per_tensor.default(t, 0.05, 3, -128, 127, torch.int8), x)
    qi = [(torch.randint(-128, 127, (3, 4), dtype=torch.int8),) for _ in range(2)]
    add("q_dequantize_per_tensor", "quantized_decomposed::dequantize_per_tensor.out",
        lambda t: Q.dequantize_per_tensor.default(t, 0.05, 3, -128, 127, torch.int8), qi,
        torch.int8)
    add("q_quantize_per_tensor_tensor", "quantized_decomposed::quantize_per_tensor.Tensor_out",
        lambda t, s, z: Q.quantize_per_tensor.tensor(t, s, z, 0, 255, torch.uint8),
        [(torch.randn(3, 4), torch.tensor(0.02), torch.tensor(128))])
    add("q_dequantize_per_tensor_tensor",
        "quantized_decomposed::dequantize_per_tensor.Tensor_out",
        lambda t, s, z: Q.dequantize_per_tensor.tensor(t, s, z, 0, 255, torch.uint8),
        [(torch.randint(0, 255, (3, 4), dtype=torch.uint8), torch.tensor(0.02),
          torch.tensor(128))], torch.uint8)
    sc = torch.tensor([0.1, 0.05, 0.02])
    zp = torch.tensor([0, 3, -2])
    add("q_quantize_per_channel", "quantized_decomposed::quantize_per_channel.out",
        lambda t, s, z: Q.quantize_per_channel.default(t, s, z, 0, -128, 127, torch.int8),
        [(torch.randn(3, 4) * 2, sc, zp)])
    add("q_dequantize_per_channel", "quantized_decomposed::dequantize_per_channel.out",
        lambda t, s, z: Q.dequantize_per_channel.default(t, s, z, 0, -128, 127, torch.int8),
        [(torch.randint(-128, 127, (3, 4), dtype=torch.int8), sc, zp)], torch.int8)
    add("q_choose_qparams", "quantized_decomposed::choose_qparams.Tensor_out",
        lambda t: Q.choose_qparams.tensor(t, -128, 127, 1e-7, torch.int8), x)
    add("q_choose_qparams_per_token_asymmetric",
        "quantized_decomposed::choose_qparams_per_token_asymmetric.out",
        lambda t: Q.choose_qparams_per_token_asymmetric.default(t, torch.int8), x)
    add("q_quantize_per_token", "quantized_decomposed::quantize_per_token.out",
        lambda t, s, z: Q.quantize_per_token.default(t, s, z, -128, 127, torch.int8),
        [(torch.randn(3, 4), torch.tensor([[0.02], [0.03], [0.05]]),
          torch.tensor([[0], [2], [-3]]))])
    add("q_dequantize_per_token", "quantized_decomposed::dequantize_per_token.out",
        lambda t, s, z: Q.dequantize_per_token.default(t, s, z, -128, 127, torch.int8,
                                                       torch.float32),
        [(torch.randint(-128, 127, (3, 4), dtype=torch.int8),
          torch.tensor([[0.02], [0.03], [0.05]]), torch.tensor([[0], [2], [-3]]))], torch.int8)
    w8 = torch.randint(-128, 127, (10, 4), dtype=torch.int8)
    ws = torch.rand(10) * 0.1 + 0.01
    # zero points have the scales' dtype (embedding_weight_checks)
    wz = torch.randint(-3, 3, (10,)).to(torch.float32)
    add("q_embedding_byte", "quantized_decomposed::embedding_byte.out",
        lambda i: Q.embedding_byte.default(w8, ws, wz, -128, 127, i),
        [(torch.randint(0, 10, (2, 3)),)], torch.int64)
    add("q_embedding_byte_dtype", "quantized_decomposed::embedding_byte.dtype_out",
        lambda i: Q.embedding_byte.dtype(w8, ws, wz, -128, 127, i, dtype=torch.float32),
        [(torch.randint(0, 10, (2, 3)),)], torch.int64)
    w4 = torch.randint(0, 255, (10, 2), dtype=torch.uint8)
    add("q_embedding_4bit", "quantized_decomposed::embedding_4bit.out",
        lambda i: Q.embedding_4bit.default(w4, ws, wz, -8, 7, i),
        [(torch.randint(0, 10, (5,)),)], torch.int64)
    add("q_embedding_4bit_dtype", "quantized_decomposed::embedding_4bit.dtype_out",
        lambda i: Q.embedding_4bit.dtype(w4, ws, wz, -8, 7, i, dtype=torch.float32),
        [(torch.randint(0, 10, (5,)),)], torch.int64)
    w2 = torch.randint(0, 255, (10, 1), dtype=torch.uint8)
    add("q_embedding_2bit", "quantized_decomposed::embedding_2bit.out",
        lambda i: Q.embedding_2bit.default(w2, ws, wz, -2, 1, i),
        [(torch.randint(0, 10, (5,)),)], torch.int64)
    add("q_embedding_2bit_dtype", "quantized_decomposed::embedding_2bit.dtype_out",
        lambda i: Q.embedding_2bit.dtype(w2, ws, wz, -2, 1, i, dtype=torch.float32),
        [(torch.randint(0, 10, (5,)),)], torch.int64)
    # scales are constants of the program (made here, not inside the traced fn)
    wq = torch.randint(-128, 127, (4, 5), dtype=torch.int8)
    wqs = torch.rand(4) * 0.1
    add("q_mixed_mm", "quantized_decomposed::mixed_mm.out",
        lambda a: Q.mixed_mm.default(a, wq, wqs, None),
        [(torch.randn(3, 4),)])
    wl = torch.randint(-128, 127, (5, 4), dtype=torch.int8)
    wls = torch.rand(5) * 0.1
    add("q_mixed_linear", "quantized_decomposed::mixed_linear.out",
        lambda a: Q.mixed_linear.default(a, wl, wls, None),
        [(torch.randn(3, 4),)])
    add("q_add", "quantized_decomposed::add.out",
        lambda a, b: Q.add.default(a, 0.05, 1, -128, 127, b, 0.04, -2, -128, 127, 0.08, 0,
                                   -128, 127),
        [(torch.randint(-128, 127, (3, 4), dtype=torch.int8),
          torch.randint(-128, 127, (3, 4), dtype=torch.int8))], torch.int8)
    return out


def register_quantized_specs():
    try:
        qs = _qspecs()
    except Exception as e:  # pragma: no cover
        print(f"quantized_decomposed unavailable: {e}")
        return
    for name, target, b in qs:
        spec(name, target, "quantized", (1e-5, 1e-5))(b)


# ----------------------------------------------------------------------------
# Export machinery


def program_ops(et):
    """{method: set of 'ns::name.overload'} of an ExecutorchProgramManager."""
    res = {}
    for plan in et.executorch_program.execution_plan:
        names = set()
        for op in plan.operators:
            names.add(op.name + (("." + op.overload) if op.overload else ""))
        res[plan.name] = names
    return res


def reserialize(et, backend):
    """Serializes the (edited) Program of an ExecutorchProgramManager again, the
    way to_executorch did (the manager keeps the bytes it made then)."""
    from executorch.exir import ExecutorchBackendConfig
    from executorch.exir._serialize._serialize import serialize_for_executorch
    et._pte_data, et._tensor_data = serialize_for_executorch(
        et._emitter_output, ExecutorchBackendConfig(**backend), et._data_serializer,
        et._named_data)
    et._buffer = None


def eager(fn, args):
    with torch.no_grad():
        out = fn(*[a.clone() if isinstance(a, torch.Tensor) else a for a in args])
    # nested tuples (e.g. one (values, indices) pair per input) are flattened
    # the way torch.export flattens the program's outputs
    outs = torch.utils._pytree.tree_leaves(out)
    return tuple(o.detach().clone().contiguous() for o in outs)


def official_worker(data, suites):
    """Runs in a child process (a crash there must not end the generator)."""
    import io
    import contextlib
    from executorch.extension.pybindings.portable_lib import _load_bundled_program_from_buffer
    res = {}
    err = io.StringIO()
    with contextlib.redirect_stderr(err):
        try:
            bp = _load_bundled_program_from_buffer(data)
        except Exception as e:
            return {m: [f"load: {type(e).__name__}"] * n for m, n, _ in suites}
        for m, n, tol in suites:
            r = []
            for i in range(n):
                try:
                    bp.verify_result_with_bundled_expected_output(m, i, rtol=tol[0], atol=tol[1])
                    r.append("PASS")
                except Exception as e:
                    r.append("FAIL" if "verif" in str(e).lower() or "mismatch" in str(e).lower()
                             else f"ERR")
            res[m] = r
    return res


class Official:
    def __init__(self, enabled):
        self.enabled = enabled
        self.pool = None

    def check(self, data, suites):
        if not self.enabled:
            return None
        for _ in range(2):
            if self.pool is None:
                import multiprocessing
                self.pool = concurrent.futures.ProcessPoolExecutor(
                    max_workers=1, mp_context=multiprocessing.get_context("spawn"))
            try:
                return self.pool.submit(official_worker, data, suites).result(timeout=120)
            except concurrent.futures.process.BrokenProcessPool:
                self.pool = None
                return {m: ["CRASH"] * n for m, n, _ in suites}
            except Exception as e:  # timeout and others
                self.pool.shutdown(wait=False, cancel_futures=True)
                self.pool = None
                return {m: [f"ERR {type(e).__name__}"] * n for m, n, _ in suites}
        return None


def seed_for(name):
    return int(hashlib.sha256(name.encode()).hexdigest()[:8], 16)


def build_spec(s, official, log):
    """Returns (data bytes, method records) or raises."""
    from executorch.devtools import BundledProgram
    from executorch.devtools.bundled_program.config import MethodTestCase, MethodTestSuite
    from executorch.devtools.bundled_program.serialize import (
        serialize_from_bundled_program_to_flatbuffer,
    )
    from executorch.exir import EdgeCompileConfig, to_edge

    torch.manual_seed(seed_for(s.name))
    methods = s.build()
    eps, suites, recs = {}, {}, {}
    for m in methods:
        mod = m.fn if isinstance(m.fn, torch.nn.Module) else Wrap(m.fn)
        mod.eval()
        try:
            expected = [eager(Wrap(m.eager) if m.eager else mod, c) for c in m.cases]
        except Exception as e:
            log.append(f"{s.name}:{m.name}: eager refuses ({type(e).__name__}: "
                       f"{str(e).splitlines()[0][:100]}); skipped")
            continue
        if isinstance(m.fn, torch.nn.Module):
            # stateful modules: re-create expected from a fresh copy for each case
            pass
        try:
            ep = torch.export.export(mod, tuple(m.cases[0]),
                                    dynamic_shapes=_dyn_spec(mod, m.dyn), strict=False)
        except Exception as e:
            log.append(f"{s.name}:{m.name}: torch.export fails ({type(e).__name__}: "
                       f"{str(e).splitlines()[0][:120]}); skipped")
            continue
        eps[m.name] = ep
        suites[m.name] = [MethodTestCase(inputs=tuple(c), expected_outputs=e)
                          for c, e in zip(m.cases, expected)]
        recs[m.name] = m
    if not eps:
        raise RuntimeError("no method exported")
    if s.keep or s.skip_dim_order:
        cfg = EdgeCompileConfig(_check_ir_validity=False, preserve_ops=list(s.keep),
                                _skip_dim_order=s.skip_dim_order)
    else:
        cfg = EdgeCompileConfig(_check_ir_validity=False)

    def lower(d):
        # to_edge (the two-step form of to_edge_transform_and_lower, no
        # partitioner here) is about 3x faster per method.
        if s.backend:
            from executorch.exir import ExecutorchBackendConfig
            return to_edge(d, compile_config=cfg).to_executorch(
                ExecutorchBackendConfig(**s.backend))
        return to_edge(d, compile_config=cfg).to_executorch()

    try:
        et = lower(eps)
    except Exception:
        good = {}
        for k, ep in eps.items():
            try:
                lower({k: ep})
                good[k] = ep
            except Exception as e:
                log.append(f"{s.name}:{k}: lowering fails ({type(e).__name__}: "
                           f"{str(e).splitlines()[0][:120] if str(e) else ''}); skipped")
        if not good:
            raise RuntimeError("no method lowered")
        eps = good
        et = lower(eps)
    # A method whose program returns another dtype than eager (an exporter
    # promotion bug, e.g. clamp.Tensor of rank-0 int16 tensors comes out
    # int64) cannot be bundled: log it, drop it and lower the rest again.
    bad = []
    for k in sorted(eps):
        outs = [n for n in et.exported_program(k).graph.nodes if n.op == "output"][0].args[0]
        got = [getattr(o.meta.get("val"), "dtype", None) for o in outs]
        want = [e.dtype for e in suites[k][0].expected_outputs]
        if got != want:
            bad.append(k)
            log.append(f"{s.name}:{k}: program output dtypes {[str(d) for d in got]} differ "
                       f"from eager {[str(d) for d in want]} (exporter); skipped")
    if bad:
        eps = {k: v for k, v in eps.items() if k not in bad}
        if not eps:
            raise RuntimeError("no method with eager output dtypes")
        et = lower(eps)
    if s.rewrite:
        for plan in et.executorch_program.execution_plan:
            s.rewrite(plan)
        reserialize(et, s.backend)
    ops = program_ops(et)
    bp = BundledProgram(et, [MethodTestSuite(method_name=k, test_cases=suites[k])
                             for k in sorted(eps)])
    data = serialize_from_bundled_program_to_flatbuffer(bp)
    tol_of = {}
    for k in eps:
        tol_of[k] = s.tol or TORCH_TOL.get(recs[k].dtype if recs[k].dtype in TORCH_TOL else
                                           _out_dtype(suites[k]), (1e-5, 1e-6))
    off = None
    out = []
    for k in sorted(eps):
        m = recs[k]
        out.append(dict(method=k, dtype=DNAME.get(m.dtype, str(m.dtype)), layout=m.layout,
                        ranks=m.ranks, cases=len(suites[k]), dynamic=m.dyn is not None,
                        ops=sorted(ops.get(k, ())),
                        official=None if off is None else off.get(k),
                        tol=list(tol_of[k])))
    return data, out


def _dyn_spec(mod, dyn):
    if dyn is None:
        return None
    if isinstance(mod, Wrap):
        return {"args": tuple(dyn)}
    return tuple(dyn)


def _out_dtype(cases):
    for o in cases[0].expected_outputs:
        if isinstance(o, torch.Tensor) and o.dtype in TORCH_TOL:
            return o.dtype
    return torch.float32


# ----------------------------------------------------------------------------
# Operator lists of pte-format.md section 10


PORTABLE_209 = """_adaptive_avg_pool2d.out _cdist_forward.out _conj_physical.out _log_softmax.out
_native_batch_norm_legit.out _native_batch_norm_legit.no_stats_out
_native_batch_norm_legit_no_training.out _pdist_forward.out _softmax.out _to_copy.out abs.out
acos.out acosh.out add.out add.Scalar_out addmm.out alias_copy.out amax.out amin.out
any.all_out any.dims_out any.out arange.out arange.start_out argmax.out argmin.out
as_strided_copy.out asin.out asinh.out atan.out atan2.out atanh.out avg_pool2d.out
bitwise_and.Scalar_out bitwise_and.Tensor_out bitwise_not.out bitwise_or.Scalar_out
bitwise_or.Tensor_out bitwise_xor.Scalar_out bitwise_xor.Tensor_out
bitwise_left_shift.Tensor_out bitwise_left_shift.Tensor_Scalar_out
bitwise_right_shift.Tensor_out bitwise_right_shift.Tensor_Scalar_out bmm.out cat.out ceil.out
clamp.out clamp.Tensor_out clone.out constant_pad_nd.out convolution.out
convolution_backward.out copy.out copy_ cos.out cosh.out cumsum.out detach_copy.out
diagonal_copy.out div.out div.Scalar_mode_out div.Scalar_out div.out_mode embedding.out
empty.out eq.Scalar_out eq.Tensor_out elu.out erf.out exp.out expand_copy.out expm1.out
fill.Scalar_out fill.Tensor_out flip.out floor.out floor_divide.out fmod.Tensor_out
fmod.Scalar_out full.out full_like.out gather.out ge.Scalar_out ge.Tensor_out gelu.out glu.out
grid_sampler_2d.out gt.Scalar_out gt.Tensor_out hardtanh.out index.Tensor_out index_put.out
index_put_ index_select.out isinf.out isnan.out le.Scalar_out le.Tensor_out leaky_relu.out
lift_fresh_copy.out log.out log10.out log1p.out log2.out logical_and.out logical_not.out
logical_or.out logical_xor.out logit.out lt.Scalar_out lt.Tensor_out masked_fill.Scalar_out
masked_scatter.out masked_select.out max.dim_max max.unary_out maximum.out
max_pool2d_with_indices.out max_pool2d_with_indices_backward.grad_input mean.out
mean.dtype_out min.dim_min min.unary_out minimum.out mm.out mul.out mul.Scalar_out
narrow_copy.out native_dropout.out native_group_norm.out native_layer_norm.out ne.Scalar_out
ne.Tensor_out neg.out nonzero.out ones.out permute_copy.out pixel_shuffle.out
pixel_unshuffle.out pow.Scalar_out pow.Tensor_Scalar_out pow.Tensor_Tensor_out prod.int_out
prod.out rand.out randn.out reciprocal.out relu.out remainder.Tensor_out remainder.Scalar_out
repeat.out repeat_interleave.Tensor_out reflection_pad1d.out reflection_pad2d.out
reflection_pad3d.out replication_pad1d.out replication_pad2d.out replication_pad3d.out roll.out
round.out rsqrt.out rsub.Scalar_out scalar_tensor.out scatter.src_out scatter.value_out
scatter_add.out select_copy.int_out select_scatter.out sigmoid.out sign.out sin.out sinh.out
slice_copy.Tensor_out slice_scatter.out split_copy.Tensor_out split_with_sizes_copy.out
sqrt.out squeeze_copy.dim_out squeeze_copy.dims_out stack.out sub.out sub.Scalar_out
sum.IntList_out t_copy.out tan.out tanh.out topk.values transpose_copy.int_out tril.out
trunc.out unbind_copy.int_out unfold_copy.out unsqueeze_copy.out upsample_bilinear2d.vec_out
_upsample_bilinear2d_aa.out upsample_nearest2d.vec_out var.correction_out
var_mean.correction_out var.out view_as_real_copy.out view_copy.out where.self_out
zeros.out""".split()
PORTABLE_ALL = (["aten::" + n for n in PORTABLE_209] +
                ["et_copy::_h2d_copy.out", "et_copy::_d2h_copy.out",
                 "dim_order_ops::_empty_dim_order.out", "dim_order_ops::_to_dim_order_copy.out",
                 "dim_order_ops::_clone_dim_order.out"])
PRIM_OPS = ["aten::sym_size.int", "aten::_local_scalar_dense", "aten::sym_numel"] + [
    "executorch_prim::" + n for n in
    "sym_max.Scalar sym_min.Scalar add.Scalar sub.Scalar mul.Scalar floordiv.Scalar "
    "truediv.Scalar sym_float.Scalar sym_int.Scalar eq.Scalar gt.Scalar lt.Scalar ge.Scalar "
    "le.Scalar neg.Scalar sym_not.Scalar sym_ite.Scalar floordiv.int mod.int mod.Scalar "
    "ceil.Scalar round.Scalar trunc.Scalar et_copy_index.tensor et_view.default".split()]
QUANT_OPS = ["quantized_decomposed::" + n for n in
             "add.out choose_qparams.Tensor_out dequantize_per_tensor.out "
             "dequantize_per_tensor.Tensor_out quantize_per_channel.out "
             "dequantize_per_channel.out embedding_byte.out embedding_byte.dtype_out "
             "embedding_2bit.out embedding_2bit.dtype_out embedding_4bit.out "
             "embedding_4bit.dtype_out mixed_mm.out mixed_linear.out quantize_per_tensor.out "
             "quantize_per_tensor.Tensor_out choose_qparams_per_token_asymmetric.out "
             "quantize_per_token.out dequantize_per_token.out".split()]


def write_tolerances(specs):
    lines = ["# Conformance tolerances (written by export_conformance.py; read by",
             "# conformance_test.cpp). A float element a (actual) matches e (expected) when",
             "# |a - e| <= atol + rtol * |a|, or both are NaN / the same infinity.",
             "# Integer and bool outputs are always compared exactly.",
             "#",
             "# dtype <ScalarType> <rtol> <atol>: default by the method's first float output",
             ]
    for k, (r, a) in TOLERANCES.items():
        lines.append(f"dtype {k} {r:g} {a:g}")
    lines.append("# op <file> <method|*> <rtol> <atol>: per-file overrides")
    for s in specs:
        if s.tol:
            lines.append(f"op {s.name}.bpte * {s.tol[0]:g} {s.tol[1]:g}")
    with open(os.path.join(HERE, "tolerances.txt"), "w") as f:
        f.write("\n".join(lines) + "\n")


def write_coverage(results, log):
    seen = {}
    for name, recs in results.items():
        for r in recs:
            for o in r["ops"]:
                seen.setdefault(o, set()).add(name)
    L = ["# Conformance coverage (generated by export_conformance.py; do not edit)", ""]
    total_cases = sum(r["cases"] for recs in results.values() for r in recs)
    L.append(f"{len(results)} files, {sum(len(v) for v in results.values())} methods, "
             f"{total_cases} test cases.")
    L.append("")
    for title, lst in (("Portable operators (pte-format.md 10.1)", PORTABLE_ALL),
                       ("Prim ops (10.4)", PRIM_OPS),
                       ("quantized_decomposed (10.3)", QUANT_OPS)):
        cov = [o for o in lst if o in seen]
        L.append(f"## {title}: {len(cov)} of {len(lst)} in some program")
        L.append("")
        miss = [o for o in lst if o not in seen]
        L.append("Not reached: " + (", ".join(miss) if miss else "none"))
        L.append("")
    L.append("## Per file and method")
    L.append("")
    L.append("| file | method | dtype | layout | ranks | dynamic | cases | operators in the "
             "program | official runtime |")
    L.append("|---|---|---|---|---|---|---|---|---|")
    for name in sorted(results):
        for r in results[name]:
            off = r["official"]
            offs = "-" if off is None else (
                f"{off.count('PASS')}/{len(off)} pass" +
                ("" if off.count("PASS") == len(off) else
                 " (" + ",".join(sorted(set(x for x in off if x != 'PASS'))) + ")"))
            L.append(f"| {name}.bpte | {r['method']} | {r['dtype']} | {r['layout']} | "
                     f"{r['ranks']} | {'yes' if r['dynamic'] else 'no'} | {r['cases']} | "
                     f"{', '.join(r['ops'])} | {offs} |")
    L.append("")
    L.append("## Generator log (skipped dtypes / variants)")
    L.append("")
    for line in log:
        L.append("- " + line.replace("|", "\\|"))
    with open(os.path.join(HERE, "coverage.md"), "w") as f:
        f.write("\n".join(L) + "\n")
    return seen


_WORKER = {}


def _init_worker(official):
    _WORKER["official"] = Official(official)


def _run_one(name):
    s = [x for x in SPECS if x.name == name][0]
    log = []
    try:
        data, recs = build_spec(s, _WORKER["official"], log)
        return data, recs, log, None
    except Exception as e:
        if os.environ.get("CONF_DEBUG"):
            traceback.print_exc()
        return None, None, log, f"{type(e).__name__}: {str(e).splitlines()[0][:160] if str(e) else ''}"


README_HEAD = """# Operator conformance suite

Every operator of the portable kernel library (pte-format.md section 10.1), the
prim ops reachable through dynamic shapes (10.4) and the `quantized_decomposed`
kernels (10.3), exported through the **official** ExecuTorch exporter
(`torch.export` -> `executorch.exir.to_edge` -> `to_executorch`) and wrapped as
BundledPrograms (`.bpte`) whose expected outputs come from **PyTorch eager**.

## Regenerate

    /opt/tv/bin/python test/conformance/export_conformance.py            # all files (~40 min on 2 busy cores)
    /opt/tv/bin/python test/conformance/export_conformance.py --only abs add   # some files
    /opt/tv/bin/python test/conformance/export_conformance.py --skip-existing  # resume a partial run
    /opt/tv/bin/python test/conformance/export_conformance.py --readme-only    # README/coverage.md/tolerances.txt from coverage.json

Deterministic (torch's RNG is seeded from each file's name). Writes the
`.bpte` files, `tolerances.txt`, `coverage.md` (per method: the operators the
program really contains, the official runtime's result) and `coverage.json`,
and this README. Before a file is written the official runtime
(`_load_bundled_program_from_buffer` + `verify_result_with_bundled_expected_output`,
in a child process) runs every case; its result is informative only.

Targets that are not core ATen (glu, roll, stack, the padding ops, ...) would
be decomposed by `to_edge`; their files list the op in `KEEP` (passed as
`EdgeCompileConfig.preserve_ops`), as ExecuTorch's own op tests do.
`to_copy_aten`, `clone_aten` and `empty_aten` export with `_skip_dim_order=True`
so the aten ops stay instead of their `dim_order_ops` variants; `index_put_`
runs the reinplace pass (`ExecutorchBackendConfig(run_reinplace_pass=True)`).
`quantized_decomposed::add`, `mixed_mm` and `mixed_linear` have no eager kernel
in PyTorch: the script registers a reference made of eager PyTorch ops
(dequantize -> float op -> quantize; the int8 weight times its scales, then mm).
The `llama::` custom operators of ExecuTorch's LLM exports (family `llm`,
`llama_specs.py`) have no schema in this torch when ExecuTorch's AOT library
does not load: that file defines them (functional and `.out`, as the library
registers them) with references made of eager PyTorch ops (ExecuTorch's own
test reference for `custom_quantized_sdpa`: dequantize per token, then float64
attention; x @ H_n / sqrt(n) for `fast_hadamard_transform`).

Operators the exporter never emits are reached by editing the emitted program
(`REWRITE` in the script; the program is serialized again before bundling):
`lift_fresh_copy` (to_edge makes it a clone: each layout-keeping
`_clone_dim_order` call becomes `aten::lift_fresh_copy.out`),
`batch_norm_legit_stats` (the exporter functionalizes
`_native_batch_norm_legit` with running statistics: the program is exported with
`no_stats` / `_no_training` and the call becomes `_native_batch_norm_legit.out`
with the running statistics and `training`; the expected outputs call the
overload itself, including the updated statistics) and `prim_int` (Python's
`//`, `%`, `int()` and `numel()` on sizes become `floordiv.int`, `mod.int`,
`sym_int.Scalar` and `aten::sym_numel`; expected values are Python's).

## Run

    cmake --build build --target etr_conformance_test
    ctest --test-dir build -R etr_conformance --output-on-failure
    build/test/etr_conformance_test [--stack portable|optimized] [--filter NAME] [-v]

The test runs every case on two kernel stacks (portable + portable_half + prim +
quantized; and the same with the optimized library stacked above, on a
2-thread pool), prints one `FAIL` line per failing case (file, method, case,
the error or the mismatch with its max abs/rel error) and ends with exactly one
line `N passed, M failed` (`, K known` when cases of `known_failures.txt`
failed). Exit status 1 when M > 0 or N == 0.

## Methods of a file

* `<dtype>`: one method per dtype PyTorch eager accepts on CPU (float32,
  float64, float16, bfloat16, int8, int16, int32, int64, uint8, bool; a dtype
  whose eager call raises is skipped and listed in coverage.md). For
  elementwise ops the float32 method takes one input per rank 0..5 plus an
  empty tensor; case 0 puts the edge values in (0, -0, inf, -inf, NaN, ... for
  floats; min, max, 0, -1 for ints).
* `bcast_float32`: binary ops over broadcasting shape pairs of ranks 0..5.
* `mixed_*`: type promotion of two input dtypes.
* `dyn_float32`: dynamic shapes (bounded `torch.export.Dim`), one case per shape.
* `cl_float32`: the input is made channels-last inside the program
  (`_to_dim_order_copy` with dim order 0,2,3,1), the operator runs on that
  layout and the result is made contiguous again (bundled inputs and outputs
  are always contiguous).
* `ranks_float32`: reductions over inputs of ranks 0..5.
* `cl_uint8`, `uint8_scales` (the bilinear upsample files): uint8 over the
  whole byte range, channels-last as `cl_float32`, and with scale factors.

## Tolerances

A float element a (actual) matches e (expected) when |a - e| <= atol + rtol * |a|
(or both NaN / the same infinity); integer and bool outputs must be equal.
Defaults by the method's first float output dtype (`tolerances.txt`, from
`TOLERANCES` in the script), with per-file overrides written there too:

| dtype | rtol | atol |
|---|---|---|
"""


def write_readme(results):
    L = [README_HEAD.rstrip("\n")]
    for k, (r, a) in TOLERANCES.items():
        L.append(f"| {k} | {r:g} | {a:g} |")
    L.append("| ints, bool | exact | exact |")
    over = [s for s in SPECS if s.tol]
    if over:
        L.append("")
        L.append("Per-file overrides: " + ", ".join(f"{s.name} ({s.tol[0]:g}, {s.tol[1]:g})"
                                                    for s in over) + ".")
    L.append("")
    L.append("## Coverage (generated)")
    L.append("")
    fam = {s.name: s for s in SPECS}
    total = sum(r["cases"] for v in results.values() for r in v)
    L.append(f"{len(results)} files, {sum(len(v) for v in results.values())} methods, "
             f"{total} test cases. Details per method: coverage.md.")
    L.append("")
    L.append("| family | file | target operators | dtypes | ranks | layouts | dynamic | cases |")
    L.append("|---|---|---|---|---|---|---|---|")
    for name in sorted(results, key=lambda n: (fam[n].family if n in fam else "", n)):
        recs = results[name]
        s = fam.get(name)
        dts = sorted(set(r["dtype"] for r in recs))
        ranks = sorted(set(r["ranks"] for r in recs))
        lays = sorted(set(r["layout"] for r in recs))
        dyn = "yes" if any(r["dynamic"] for r in recs) else "no"
        L.append(f"| {s.family if s else '?'} | {name} | "
                 f"{', '.join(s.targets) if s else ''} | {', '.join(dts)} | "
                 f"{'; '.join(ranks)} | {', '.join(lays)} | {dyn} | "
                 f"{sum(r['cases'] for r in recs)} |")
    L.append("")
    with open(os.path.join(HERE, "README.md"), "w") as f:
        f.write("\n".join(L) + "\n")


def _run_one2(name):
    return name, _run_one(name)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--readme-only", action="store_true")
    ap.add_argument("--skip-existing", action="store_true",
                    help="keep the files already listed in coverage.json (resume a run)")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--only", nargs="*", help="spec names to (re)generate")
    ap.add_argument("--no-official", action="store_true")
    args = ap.parse_args()
    import json
    state_path = os.path.join(HERE, "coverage.json")
    results = {}
    old_log = []
    if (args.only or args.readme_only or args.skip_existing) and os.path.exists(state_path):
        with open(state_path) as f:
            st = json.load(f)
        results, old_log = st["results"], st["log"]
    if args.readme_only:
        write_tolerances(SPECS)
        write_coverage(results, old_log)
        write_readme(results)
        return 0
    log = [x for x in old_log
           if not any(x.startswith(n + ":") for n in (args.only or []))]
    t0 = time.time()
    todo = [s.name for s in SPECS if not args.only or s.name in args.only]
    import multiprocessing
    ctx = multiprocessing.get_context("fork")
    official = Official(not args.no_official)
    by_name = {s.name: s for s in SPECS}
    if args.skip_existing:
        todo = [n for n in todo if n not in results]
    # Small families first, so a partial run covers the most operators.
    order = ["quantized", "llm", "prim", "creation", "nn", "index", "shape", "reduction", "binary",
             "unary", "scalar", "misc"]
    todo.sort(key=lambda n: order.index(by_name[n].family))
    with ctx.Pool(args.jobs, initializer=_init_worker, initargs=(False,)) as pool:
        for name, (data, recs, slog, err) in pool.imap_unordered(_run_one2, todo):
            s = by_name[name]
            log += slog
            if data is None:
                log.append(f"{s.name}: FAILED to generate ({err})")
                print(f"  {s.name}: generation failed: {err}", flush=True)
                results.pop(s.name, None)
                continue
            off = official.check(data, [(r["method"], r["cases"], tuple(r["tol"]))
                                        for r in recs])
            for r in recs:
                r["official"] = None if off is None else off.get(r["method"])
            with open(os.path.join(HERE, s.name + ".bpte"), "wb") as f:
                f.write(data)
            results[s.name] = recs
            missing = [t for t in s.targets if not any(t in r["ops"] for r in recs)]
            note = f" (target ops missing: {missing})" if len(missing) == len(s.targets) else ""
            if note:
                log.append(f"{s.name}: none of {s.targets} in the program")
            offs = [x for r in recs for x in (r["official"] or [])]
            print(f"  {s.name}.bpte: {len(data)} bytes, {len(recs)} methods, "
                  f"{sum(r['cases'] for r in recs)} cases, official "
                  f"{offs.count('PASS')}/{len(offs)}{note}", flush=True)
            with open(state_path, "w") as f:
                json.dump({"results": results, "log": log}, f, indent=0, sort_keys=True)
    with open(state_path, "w") as f:
        json.dump({"results": results, "log": log}, f, indent=0, sort_keys=True)
    write_tolerances(SPECS)
    seen = write_coverage(results, log)
    write_readme(results)
    files = [f for f in os.listdir(HERE) if f.endswith(".bpte")]
    size = sum(os.path.getsize(os.path.join(HERE, f)) for f in files)
    print(f"{len(files)} .bpte files, {size} bytes, "
          f"{sum(r['cases'] for v in results.values() for r in v)} cases, "
          f"{time.time() - t0:.0f} s")
    for title, lst in (("portable", PORTABLE_ALL), ("prim", PRIM_OPS), ("quantized", QUANT_OPS)):
        print(f"{title}: {sum(1 for o in lst if o in seen)} of {len(lst)} operators covered")
    return 0


register_quantized_specs()


def register_llama_specs():
    """The llama:: custom operators (llama_specs.py)."""
    sys.path.insert(0, HERE)
    try:
        import llama_specs
    except Exception as e:  # pragma: no cover
        print(f"llama specs unavailable: {e}")
        return
    llama_specs.register(spec, Method)


register_llama_specs()
for _s in SPECS:
    if _s.name in KEEP:
        _s.keep = list(KEEP[_s.name])
    _s.rewrite = REWRITE.get(_s.name)

if __name__ == "__main__":
    sys.exit(main())
