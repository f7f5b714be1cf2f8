"""Writes very small Llamas exported by ExecuTorch 1.5.1's own LLM exporter
(use_kv_cache, use_sdpa_with_kv_cache, fp32) and the last-token logits of the
same models run eagerly for three calls in a row (prefill of 5 tokens at
input_pos 0, then one token at 5, one at 6), into
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
replace_kv_cache_with_quantized_kv_cache, replace_sdpa_with_quantized_sdpa; without
use_sdpa_with_kv_cache only replace_kv_cache_with_quantized_kv_cache), run in PyTorch with the llama:: operators
defined in Python: export_tiny_llama.py's update_cache and custom_sdpa, and
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
# name: (file, exporter options, C++ array); "-option" drops one of
# export_tiny_llama.exporter_args'.
FLAVOURS = {
    "quant_kv": ("llm_quant_kv_llama.pte", ["model.quantize_kv_cache=True"], "kQuantKvSteps"),
    "quant_kv_no_sdpa": ("llm_quant_kv_no_sdpa_llama.pte",
                         ["model.quantize_kv_cache=True", "-model.use_sdpa_with_kv_cache"],
                         "kQuantKvNoSdpaSteps"),
}

_LIBS = []


def define_ops():
    """The llama:: operators (export_tiny_llama.py's definitions), the .out
    variants and Python bodies of custom_quantized_sdpa and
    fast_hadamard_transform, and the per-token quantized_decomposed out
    variants."""
    source = tiny.define_llama_ops()
    llama_specs._define_per_token_out()
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
    from executorch.examples.models.llama.source_transformation.custom_kv_cache import (
        replace_kv_cache_with_custom_kv_cache,
        replace_kv_cache_with_quantized_kv_cache,
    )
    from executorch.examples.models.llama.source_transformation.sdpa import (
        replace_sdpa_with_custom_op,
        replace_sdpa_with_quantized_sdpa,
    )

    m = construct_transformer(tiny.model_args(use_kv_cache=True, enable_dynamic_shape=True))
    m.load_state_dict(state, strict=False)
    m.eval()
    if flavour == "quant_kv":
        transforms = [replace_sdpa_with_custom_op, replace_kv_cache_with_custom_kv_cache,
                      replace_kv_cache_with_quantized_kv_cache, replace_sdpa_with_quantized_sdpa]
    else:
        transforms = [replace_kv_cache_with_quantized_kv_cache]
    for transform in transforms:
        m = transform(m)
    steps = []
    with torch.no_grad():
        for tokens, pos in tiny.STEPS:
            logits = m(torch.tensor([tokens]), {"input_pos": torch.tensor([pos])})
            if isinstance(logits, tuple):
                logits = logits[0]
            steps.append((tokens, pos, logits.reshape(-1, tiny.PARAMS["vocab_size"])[-1]))
    return steps


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
        for flavour, (name, options, array) in FLAVOURS.items():
            pte = os.path.join(HERE, name)
            drop = [o[1:] for o in options if o.startswith("-")]
            args = [a for a in tiny.exporter_args(ckpt, params, pte, False)
                    if not any(a.startswith(d + "=") for d in drop)]
            args += [o for o in options if not o.startswith("-")]
            subprocess.run([sys.executable, os.path.abspath(__file__), "--run-exporter"] + args,
                           check=True, cwd=tmp)
            print("wrote", pte, os.path.getsize(pte), "bytes")
            lines += ["", "// %s: export_llm ... %s" % (name, " ".join(options)),
                      "inline const std::vector<Step> %s = {" % array]
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
