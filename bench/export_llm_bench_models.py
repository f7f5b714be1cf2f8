#!/usr/bin/env python3
"""Exports the LLM benchmark models of issue 19 with ExecuTorch's own LLM
exporter (export_llm) and writes a tokenizer for them:

* `stories110m_fp32.pte`   fp32, KV cache, use_sdpa_with_kv_cache, XNNPACK
* `stories110m_8da4w.pte`  the same with quantization.qmode=8da4w (group 128)
* `stories110m_tokenizer.json`  a byte-level BPE tokenizer.json of vocab 32000
* `stories110m.txt`         the export commands and the model's shape

    /opt/tv/bin/python bench/export_llm_bench_models.py            # both models
    /opt/tv/bin/python bench/export_llm_bench_models.py fp32       # one of them
    /opt/tv/bin/python bench/export_llm_bench_models.py tokenizer  # the tokenizer only

Files go to bench/models/ (git-ignored, like bench/export_bench_models.py's).

The model is stories110M-shaped (the smallest official test model): dim 768,
12 layers, 12 heads (no GQA), FFN hidden 2048 (multiple_of 32), vocab 32000,
max_seq_len = max_context_len = 256. Weights are random, drawn from a seeded
generator as test/models/llm/export_tiny_llama.py does (matrices
N(0, 1/fan_in), norm weights 1 + N(0, 0.1^2)) and passed as a checkpoint:
without base.checkpoint the exporter leaves the weights uninitialized.
The exporter runs through export_tiny_llama.py's `--run-exporter` entry,
which defines the llama:: operators first when ExecuTorch's AOT library does
not load with this torch.

The tokenizer exists because the official TextLLMRunner needs one (our
llm_runner also takes token ids): ids 0, 1, 2 are <unk>, <s> (BOS, the
models' get_bos_id) and </s> (EOS, get_eos_ids); ids 3..258 are the 256
byte-level symbols, so every byte of a prompt is one token (no merges);
ids 259..31999 are filler tokens named <tok_N> that only the model produces.
"""
import json
import math
import os
import subprocess
import sys
import tempfile

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
OUT = os.path.join(HERE, "models")
TINY_EXPORT = os.path.join(ROOT, "test", "models", "llm", "export_tiny_llama.py")

PARAMS = {
    "dim": 768,
    "n_layers": 12,
    "n_heads": 12,
    "vocab_size": 32000,
    "multiple_of": 32,
    "norm_eps": 1e-5,
}
MAX_SEQ = 256
BOS_ID = 1
EOS_IDS = [2]
SEED = 110
FLAVOURS = {
    "fp32": [],
    "8da4w": ["quantization.qmode=8da4w", "quantization.group_size=128"],
}


def write_checkpoint(folder):
    from executorch.examples.models.llama.llama_transformer import construct_transformer
    from executorch.examples.models.llama.model_args import ModelArgs

    model = construct_transformer(ModelArgs(max_seq_len=MAX_SEQ, max_context_len=MAX_SEQ,
                                            **PARAMS))
    gen = torch.Generator().manual_seed(SEED)
    state = {}
    for name, t in model.state_dict().items():
        if t.dim() == 1:  # RMSNorm weights
            state[name] = 1.0 + 0.1 * torch.randn(t.shape, generator=gen)
        elif name == "tok_embeddings.weight":
            state[name] = torch.randn(t.shape, generator=gen)
        else:  # [out, in] linear weights
            state[name] = torch.randn(t.shape, generator=gen) / math.sqrt(t.shape[1])
    del model
    ckpt = os.path.join(folder, "stories110m.pth")
    params = os.path.join(folder, "params.json")
    torch.save(state, ckpt)
    with open(params, "w") as f:
        json.dump(PARAMS, f)
    return ckpt, params


def exporter_args(ckpt, params, output, extra):
    meta = json.dumps({"get_bos_id": BOS_ID, "get_eos_ids": EOS_IDS}).replace(" ", "")
    return [
        f"base.params={params}", f"base.checkpoint={ckpt}", "base.model_class=llama3",
        "model.use_kv_cache=True", "model.use_sdpa_with_kv_cache=True",
        "model.dtype_override=fp32", f"export.max_seq_length={MAX_SEQ}",
        f"export.max_context_length={MAX_SEQ}", f"export.output_name={output}",
        f"base.metadata='{meta}'", "backend.xnnpack.enabled=True"
    ] + extra


def write_tokenizer(path):
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, processors

    vocab = {"<unk>": 0, "<s>": 1, "</s>": 2}
    for sym in sorted(pre_tokenizers.ByteLevel.alphabet()):
        vocab[sym] = len(vocab)
    assert len(vocab) == 259, len(vocab)
    while len(vocab) < PARAMS["vocab_size"]:
        vocab["<tok_%d>" % len(vocab)] = len(vocab)
    tok = Tokenizer(models.BPE(vocab=vocab, merges=[], unk_token="<unk>"))
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False)
    tok.decoder = decoders.ByteLevel()
    tok.add_special_tokens(["<unk>", "<s>", "</s>"])
    # Names <s> as the BOS token the official runner adds (as the tiny fixtures' tokenizer does).
    tok.post_processor = processors.TemplateProcessing(single="<s> $A",
                                                       special_tokens=[("<s>", BOS_ID)])
    assert tok.token_to_id("<s>") == BOS_ID and tok.token_to_id("</s>") == EOS_IDS[0]
    assert tok.get_vocab_size() == PARAMS["vocab_size"], tok.get_vocab_size()
    tok.save(path)


def main(names):
    os.makedirs(OUT, exist_ok=True)
    torch.manual_seed(0)
    lines = [
        "LLM benchmark models (bench/export_llm_bench_models.py), ExecuTorch 1.5.1 export_llm.",
        f"Model: ModelArgs {PARAMS}, max_seq_len {MAX_SEQ}, max_context_len {MAX_SEQ}, "
        f"seed {SEED}; metadata get_bos_id {BOS_ID}, get_eos_ids {EOS_IDS}.",
    ]
    tok_path = os.path.join(OUT, "stories110m_tokenizer.json")
    write_tokenizer(tok_path)
    lines.append("stories110m_tokenizer.json: byte-level, one token per prompt byte, vocab "
                 f"{PARAMS['vocab_size']}")
    if not names:
        print("\n".join(lines))
        return
    with tempfile.TemporaryDirectory() as tmp:
        ckpt, params = write_checkpoint(tmp)
        for name in names:
            out = os.path.join(OUT, f"stories110m_{name}.pte")
            args = exporter_args(ckpt, params, out, FLAVOURS[name])
            cmd = [sys.executable, TINY_EXPORT, "--run-exporter"] + args
            subprocess.run(cmd, check=True, cwd=tmp)
            shown = "python -m executorch.extension.llm.export.export_llm " + " ".join(
                a if "'" not in a else '"' + a.replace('"', '\\"') + '"' for a in args)
            lines.append(f"stories110m_{name}.pte ({os.path.getsize(out)} bytes): " +
                         shown.replace(tmp, "$TMP").replace(OUT + "/", ""))
    if names:
        with open(os.path.join(OUT, "stories110m.txt"), "w") as f:
            f.write("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    chosen = sys.argv[1:] or list(FLAVOURS)
    chosen = [n for n in chosen if n != "tokenizer"]
    for n in chosen:
        if n not in FLAVOURS:
            raise SystemExit("unknown flavour %s (one of %s)" % (n, ", ".join(FLAVOURS)))
    main(chosen)
