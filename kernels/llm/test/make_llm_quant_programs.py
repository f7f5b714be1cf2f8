"""Writes very small Llamas exported by ExecuTorch 1.5.1's own LLM exporter
(use_kv_cache, use_sdpa_with_kv_cache, fp32) and the last-token logits of the
same models run eagerly for calls in a row (a prefill of 5 tokens at input_pos
0, then decode steps), into
kernels/llm/test/llm_quant_program_refs.h:

  llm_quant_kv_llama.pte    model.quantize_kv_cache=True: the exporter's
      QuantizedKVCache and QuantizedSDPA, i.e. quantized_decomposed::
      choose_qparams_per_token_asymmetric and quantize_per_token on the new
      keys, values and the query, llama::update_cache of the int8
      keys/values, their float32 scales and int8 zero points into six mutable
      buffers per layer, and llama::custom_quantized_sdpa over the int8 caches.
  llm_quant_kv_no_sdpa_llama.pte   the same without use_sdpa_with_kv_cache: the
      caches are updated the same way, then dequantized whole
      (quantized_decomposed::dequantize_per_token, scale 0 at the positions not
      written yet) for the exporter's plain attention.
  llm_quant_kv_ring_llama.pte   model.quantize_kv_cache=True with
      model.local_global_attention=[8] (a sliding window of 8 over a 32-token
      context): the caches are ring buffers of 16 slots filled by
      llama::update_cache_with_indices, and custom_quantized_sdpa runs with a
      [S, 16] mask over the whole cache; 22 calls, wrapping around.

SpinQuant (quantization.use_spin_quant=native, whose feed-forward calls
llama::fast_hadamard_transform) is not among them: the exporter accepts it
only with a pre-quantized checkpoint (base.preq_mode 8da4w and its
quantization arguments), which this script does not make; that operator is
covered by the kernel tests and the conformance files.

    /opt/tv/bin/python kernels/llm/test/make_llm_quant_programs.py

The models: test/models/llm/export_tiny_llama.py's ModelArgs and seeded
checkpoint with dim 32, 1 layer, 4 heads, 2 KV heads, vocab 128, max_seq_len
16; the exporter gets base.checkpoint, so
the weights are the checkpoint's. The eager references are that ModelArgs'
Transformer with the exporter's own source transforms, in its order
(replace_sdpa_with_custom_op, replace_kv_cache_with_custom_kv_cache,
replace_kv_cache_with_quantized_kv_cache, replace_sdpa_with_quantized_sdpa, then
replace_kv_cache_with_ring_kv_cache for the sliding window; without
use_sdpa_with_kv_cache only replace_kv_cache_with_quantized_kv_cache), run in PyTorch with the llama:: operators
defined in Python: export_tiny_llama.py's update_cache and custom_sdpa,
update_cache_with_indices as an index assignment, and
test/conformance/llama_specs.py's custom_quantized_sdpa (ExecuTorch's test
reference: dequantize per token, float64 attention). ExecuTorch's AOT libraries
(custom ops, quantized ops) do not load with torch 2.11, hence the Python
definitions (as export_tiny_llama.py does).
"""
import os
import subprocess
import sys
import tempfile

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(HERE)))
sys.path.insert(0, os.path.join(ROOT, "test", "models", "llm"))
sys.path.insert(0, os.path.join(ROOT, "test", "conformance"))
import export_tiny_llama as tiny  # noqa: E402
import llama_specs  # noqa: E402

tiny.PARAMS = {"dim": 32, "n_layers": 1, "n_heads": 4, "n_kv_heads": 2, "vocab_size": 128}
tiny.MAX_SEQ = 16
REFS = os.path.join(HERE, "llm_quant_program_refs.h")
# Three calls: prefill of 5 tokens, then one token at 5 and one at 6.
SHORT = tiny.STEPS
# 22 calls up to position 27 of a 32-position context: a ring buffer of 16
# slots (twice the window of 8) wraps around.
LONG = [([1, 5, 9, 17, 33], 0)] + [([40 + i], 5 + i) for i in range(20)] + [([3, 4, 6], 25)]
# Each flavour: the exporter options on top of export_tiny_llama.exporter_args'
# ("key=value" replaces that key's value there, "-key" drops it), the
# context length, the calls and the C++ array.
FLAVOURS = [
    dict(name="quant_kv", file="llm_quant_kv_llama.pte", options=["model.quantize_kv_cache=True"],
         context=16, steps=SHORT, array="kQuantKvSteps"),
    dict(name="quant_kv_no_sdpa", file="llm_quant_kv_no_sdpa_llama.pte",
         options=["model.quantize_kv_cache=True", "-model.use_sdpa_with_kv_cache"],
         context=16, steps=SHORT, array="kQuantKvNoSdpaSteps"),
    dict(name="quant_kv_ring", file="llm_quant_kv_ring_llama.pte",
         options=["model.quantize_kv_cache=True", "model.local_global_attention=[8]",
                  "export.max_context_length=32"],
         context=32, steps=LONG, array="kQuantKvRingSteps"),
]

_LIBS = []


def define_ops():
    """The llama:: operators (export_tiny_llama.py's definitions), the .out
    variants and Python bodies of custom_quantized_sdpa and
    fast_hadamard_transform, and the per-token quantized_decomposed out
    variants."""
    source = tiny.define_llama_ops()
    llama_specs._define_per_token_out()
    if not torch._C._dispatch_has_kernel_for_dispatch_key(
            "llama::update_cache_with_indices", "CompositeExplicitAutograd"):
        lib = torch.library.Library("llama", "FRAGMENT")
        _LIBS.append(lib)

        def update_with_indices(value, cache, start_pos, indices):
            for b in range(value.shape[0]):
                cache[b, indices[b]] = value[b]
            return torch.empty((1,), dtype=value.dtype)

        lib.impl("update_cache_with_indices", update_with_indices, "CompositeExplicitAutograd")
    refs = {"custom_quantized_sdpa": llama_specs.quantized_sdpa_ref,
            "fast_hadamard_transform": llama_specs.hadamard_ref}
    for name, ref in refs.items():
        if "out" in getattr(torch.ops.llama, name).overloads():
            continue  # the official library is there
        lib = torch.library.Library("llama", "FRAGMENT")
        _LIBS.append(lib)
        lib.define(llama_specs.SCHEMAS[name][1])
        lib.impl(name, ref, "CompositeExplicitAutograd")
    return source


def run_exporter(args):
    define_ops()  # before the exporter imports anything
    import runpy

    sys.argv = ["export_llm"] + args
    runpy.run_module("executorch.extension.llm.export.export_llm", run_name="__main__")


def eager_logits(state, flavour):
    from executorch.examples.models.llama.llama_transformer import construct_transformer
    from executorch.examples.models.llama.model_args import ModelArgs
    from executorch.examples.models.llama.source_transformation.custom_kv_cache import (
        replace_kv_cache_with_custom_kv_cache,
        replace_kv_cache_with_quantized_kv_cache,
        replace_kv_cache_with_ring_kv_cache,
    )
    from executorch.examples.models.llama.source_transformation.sdpa import (
        replace_sdpa_with_custom_op,
        replace_sdpa_with_quantized_sdpa,
    )

    m = construct_transformer(
        ModelArgs(max_seq_len=tiny.MAX_SEQ, max_context_len=flavour["context"], use_kv_cache=True,
                  enable_dynamic_shape=True, **tiny.PARAMS))
    m.load_state_dict(state, strict=False)
    m.eval()
    if flavour["name"] == "quant_kv_no_sdpa":
        transforms = [replace_kv_cache_with_quantized_kv_cache]
    else:
        transforms = [replace_sdpa_with_custom_op, replace_kv_cache_with_custom_kv_cache,
                      replace_kv_cache_with_quantized_kv_cache, replace_sdpa_with_quantized_sdpa]
    if flavour["name"] == "quant_kv_ring":
        transforms.append(lambda model: replace_kv_cache_with_ring_kv_cache(model, [8]))
    for transform in transforms:
        m = transform(m)
    steps = []
    with torch.no_grad():
        for tokens, pos in flavour["steps"]:
            logits = m(torch.tensor([tokens]), {"input_pos": torch.tensor([pos])})
            if isinstance(logits, tuple):
                logits = logits[0]
            steps.append((tokens, pos, logits.reshape(-1, tiny.PARAMS["vocab_size"])[-1]))
    return steps


def exporter_args(ckpt, params, pte, options):
    """export_tiny_llama.exporter_args' with `options` applied (see FLAVOURS)."""
    args = tiny.exporter_args(ckpt, params, pte, False)
    for o in options:
        key = o[1:] if o.startswith("-") else o.split("=", 1)[0]
        args = [a for a in args if a.split("=", 1)[0] != key]
        if not o.startswith("-"):
            args.append(o)
    return args


def c_float(x):
    s = "%.9g" % x
    return s + ("f" if ("." in s or "e" in s) else ".0f")


def main():
    if len(sys.argv) > 1 and sys.argv[1] == "--run-exporter":
        run_exporter(sys.argv[2:])
        return
    source = define_ops()
    lines = [
        "// Generated by kernels/llm/test/make_llm_quant_programs.py (torch %s, llama ops "
        "from" % torch.__version__,
        "// %s); do not edit." % source.split(" (")[0],
        "// Last-token logits of the eager models of the exported programs below for three",
        "// forward calls in a row (the KV cache carries over).",
        "#pragma once", "", "#include <cstdint>", "#include <vector>", "",
        "namespace etr {", "namespace testing {", "namespace llm_quant_program_refs {", "",
        "struct Step {", "  std::vector<int64_t> tokens;", "  int64_t input_pos;",
        "  std::vector<float> logits;", "};",
    ]
    with tempfile.TemporaryDirectory() as tmp:
        ckpt, params, state = tiny.write_checkpoint(tmp)
        for flavour in FLAVOURS:
            pte = os.path.join(HERE, flavour["file"])
            args = exporter_args(ckpt, params, pte, flavour["options"])
            subprocess.run([sys.executable, os.path.abspath(__file__), "--run-exporter"] + args,
                           check=True, cwd=tmp)
            print("wrote", pte, os.path.getsize(pte), "bytes")
            lines += ["", "// %s: export_llm ... %s" % (flavour["file"],
                                                        " ".join(flavour["options"])),
                      "inline const std::vector<Step> %s = {" % flavour["array"]]
            for tokens, pos, logits in eager_logits(state, flavour):
                lines.append("    {{%s}, %d, {%s}}," % (
                    ", ".join(map(str, tokens)), pos,
                    ", ".join(c_float(x) for x in logits.tolist())))
            lines.append("};")
    lines += ["", "}  // namespace llm_quant_program_refs", "}  // namespace testing",
              "}  // namespace etr", ""]
    with open(REFS, "w") as f:
        f.write("\n".join(lines))
    try:
        subprocess.run(["clang-format", "--style=file", "-i", REFS], check=True, cwd=HERE)
    except (OSError, subprocess.CalledProcessError) as e:
        print("clang-format not applied:", e)
    print("wrote", REFS)


if __name__ == "__main__":
    main()
