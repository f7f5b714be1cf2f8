"""Exports one tiny Llama per flavour of ExecuTorch's LLM exporter and writes
the official runtime's references for each (issue 19: every flavour runs).

    /opt/tv213/bin/python test/models/llm/export_llm_flavours.py [--only a,b] [--refs-only]

Needs the environment where ExecuTorch 1.5.1's own runtime and AOT custom-op
library work: torch 2.13.0 (the wheel's libcustom_ops_aot_lib.so needs
torch::Library::_def over torch::headeronly::Tag, torch 2.12 or later, and its
pybindings were built against torch 2.13's TensorImpl: with 2.10 to 2.12
`Method.execute` fails with "tensor does not have a device"). The exporter
then runs as the plain `python -m executorch.extension.llm.export.export_llm`
command, with no Python definitions of the llama:: operators.

The model and the checkpoint are export_tiny_llama.py's (dim 64, 2 layers, 4
heads, 2 KV heads, vocab 128, context 32, seed 19); the group-128 flavour uses
the same recipe at dim 128 (the 4-bit groups must divide every linear input);
the SpinQuant flavours convert it to the exporter's pre-quantized 8da4w form
(write_prequantized), one of them with an FFN of 224 = 28 * 8.
tiny_llama_portable.pte and tiny_llama_xnnpack.pte are export_tiny_llama.py's
files: only their references are written here.

Writes next to this file:
  tiny_llama_<flavour>.pte (and tiny_llama_<flavour>.ptd for the external-weights one)
  refs/prompt_ids.npy       Long[n]: PROMPT as the official runner encodes it (BOS first)
  refs/<flavour>_logits.npy Float[3, 128]: the official runtime's last-token logits of
                            STEPS (prefill, then two decode steps on one Method)
  refs/<flavour>_greedy_text.txt: the text that runner streamed for it (token_callback pieces).
  refs/<flavour>_greedy.npy Long[k]: the official TextLLMRunner's greedy continuation of
                            PROMPT (temperature 0, NEW_TOKENS at most)
  manifest_flavours.txt     every flavour's command, operators and reference facts
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

import numpy as np
import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import export_tiny_llama as base  # noqa: E402

REFS = os.path.join(HERE, "refs")
PROMPT = "Once upon a time"
NEW_TOKENS = 16
DIM128 = dict(base.PARAMS, dim=128)
# An FFN of 224 = 28 * 8: SpinQuant's rotation takes ExecuTorch's 28 * 2^k path.
H224 = dict(base.PARAMS, hidden_dim=224)

KV_SDPA = ["model.use_kv_cache=True", "model.use_sdpa_with_kv_cache=True"]
FP32 = ["model.dtype_override=fp32"]
XNN = ["backend.xnnpack.enabled=True"]
PREQ_GROUP = 32
SPINQUANT = ["base.preq_mode=preq_8da4w", f"base.preq_group_size={PREQ_GROUP}",
             "quantization.use_spin_quant=native"]

# name -> (checkpoint, exporter arguments after the common ones, written here?)
FLAVOURS = {
    "portable": ("dim64", KV_SDPA + FP32, False),
    "xnnpack": ("dim64", KV_SDPA + FP32 + XNN, False),
    # The KV cache without the custom operators: index_put + copy_ on the buffers.
    "kv_index_put": ("dim64", ["model.use_kv_cache=True"] + FP32, True),
    "no_kv": ("dim64", FP32, True),
    "8da4w_g32_emb4": ("dim64", KV_SDPA + FP32 + XNN + [
        "quantization.qmode=8da4w", "quantization.group_size=32",
        "quantization.embedding_quantize='4,32'"], True),
    "8da4w_g128_emb8": ("dim128", KV_SDPA + FP32 + XNN + [
        "quantization.qmode=8da4w", "quantization.group_size=128",
        "quantization.embedding_quantize='8,0'"], True),
    "bf16": ("dim64", KV_SDPA + ["model.dtype_override=bf16"], True),
    # bf16 with XNNPACK: delegated only with extended_ops and enable_bf16 (with
    # backend.xnnpack.enabled alone the exporter delegates nothing).
    "bf16_xnnpack": ("dim64", KV_SDPA + ["model.dtype_override=bf16"] + XNN + [
        "backend.xnnpack.extended_ops=True", "backend.xnnpack.enable_bf16=True"], True),
    "xnnpack_extended": ("dim64", KV_SDPA + FP32 + XNN + ["backend.xnnpack.extended_ops=True"],
                         True),
    "quantized_kv": ("dim64", KV_SDPA + FP32 + ["model.quantize_kv_cache=True"], True),
    # Attention sink: the exporter adds InitializedMutableBufferPass(["cache_positions"]),
    # so the program carries the buffer's initial contents (mutable_data_segments).
    "attention_sink": ("dim64", KV_SDPA + FP32 + ["model.use_attention_sink='4,28'"], True),
    # SpinQuant (native) on a pre-quantized 8da4w checkpoint (the exporter's
    # preq_mode; write_prequantized): llama::fast_hadamard_transform before each
    # FFN's w2, on the FFN width: 256 (a power of two) and 224 (28 * 8).
    "spinquant": ("preq64", KV_SDPA + FP32 + XNN + SPINQUANT, True),
    "spinquant_h224": ("preq_h224", KV_SDPA + FP32 + XNN + SPINQUANT, True),
    # The weights in tiny_llama_external.ptd (XNNPACK's named data and the constants).
    "external": ("dim64", KV_SDPA + FP32 + XNN + [
        "export.foundation_weights_file=tiny_llama_external.ptd"], True),
}


def pte(name):
    return os.path.join(HERE, f"tiny_llama_{name}.pte")


def ptd(name):
    path = os.path.join(HERE, f"tiny_llama_{name}.ptd")
    return path if os.path.exists(path) else None


def common_args(ckpt, params):
    meta = json.dumps({"get_bos_id": base.BOS_ID, "get_eos_ids": base.EOS_IDS}).replace(" ", "")
    return [
        f"base.params={params}", f"base.checkpoint={ckpt}", "base.model_class=llama3",
        f"export.max_seq_length={base.MAX_SEQ}", f"export.max_context_length={base.MAX_SEQ}",
        f"base.metadata='{meta}'"
    ]


def flavour_args(name, ckpts):
    """The exporter's arguments for `name` (output_dir is this folder, so a
    .ptd lands next to the .pte)."""
    ckpt, extra, _ = FLAVOURS[name]
    return common_args(*ckpts[ckpt]) + extra + [
        f"export.output_dir={HERE}", f"export.output_name={pte(name)}"
    ]


def command(name):
    """The export command as the manifest shows it, run from the repository
    root ($TMP: the checkpoints' temporary folder)."""
    if not FLAVOURS[name][2]:
        return "export_tiny_llama.py (see manifest.txt)"
    ckpts = {"dim64": ("$TMP/tiny_llama.pth", "$TMP/params.json"),
             "dim128": ("$TMP/tiny_llama_dim128.pth", "$TMP/params_tiny_llama_dim128.json"),
             "preq64": ("$TMP/tiny_llama_preq64.pth", "$TMP/params_tiny_llama_preq64.json"),
             "preq_h224": ("$TMP/tiny_llama_preq_h224.pth",
                           "$TMP/params_tiny_llama_preq_h224.json")}
    args = flavour_args(name, ckpts)
    text = "python -m executorch.extension.llm.export.export_llm " + " ".join(
        a if "'" not in a else '"' + a.replace('"', '\\"') + '"' for a in args)
    return text.replace(HERE, "test/models/llm")


def write_prequantized(folder, params, stem):
    """The seeded checkpoint in the exporter's pre-quantized 8da4w form (what
    SpinQuant checkpoints are): every layer's linear weight as int4 values in
    int8 with a float32 scale per PREQ_GROUP inputs (symmetric: zeros 0), the
    embedding, norms and output layer in float. Returns (checkpoint, params)."""
    params = dict(params, quantization_args={"group_size": PREQ_GROUP})
    plain = {k: v for k, v in params.items() if k != "quantization_args"}
    ckpt, path, state = base.write_checkpoint(folder, plain, stem)
    out = {}
    for name, t in state.items():
        if name.startswith("layers.") and name.endswith(".weight") and t.dim() == 2:
            groups = t.reshape(t.shape[0], -1, PREQ_GROUP)
            scales = (groups.abs().amax(-1) / 7).clamp(min=1e-6)
            q = torch.clamp(torch.round(groups / scales[..., None]), -8, 7).to(torch.int8)
            out[name] = q.reshape(t.shape)
            stem_name = name[:-len(".weight")]
            out[stem_name + ".scales"] = scales.float()
            out[stem_name + ".zeros"] = torch.zeros_like(scales)
        else:
            out[name] = t
    torch.save(out, ckpt)
    with open(path, "w") as f:
        json.dump(params, f)
    return ckpt, path


def export(names, failed):
    """Runs the exporter for each flavour it writes; fills `failed` with the
    last line of each failed export."""
    with tempfile.TemporaryDirectory() as tmp:
        ckpts = {
            "dim64": base.write_checkpoint(tmp)[:2],
            "dim128": base.write_checkpoint(tmp, DIM128, "tiny_llama_dim128")[:2],
            "preq64": write_prequantized(tmp, base.PARAMS, "tiny_llama_preq64"),
            "preq_h224": write_prequantized(tmp, H224, "tiny_llama_preq_h224"),
        }
        for name in names:
            if not FLAVOURS[name][2]:
                continue
            cmd = [sys.executable, "-m", "executorch.extension.llm.export.export_llm"
                   ] + flavour_args(name, ckpts)
            print("exporting", name, flush=True)
            run = subprocess.run(cmd, cwd=tmp, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                 text=True)
            if run.returncode != 0:
                print(run.stdout[-3000:])
                failed[name] = run.stdout.strip().splitlines()[-1]


def operators(path):
    """forward's operators, delegates and whether the program carries
    mutable-buffer initial data."""
    from executorch.exir._serialize._program import deserialize_pte_binary

    with open(path, "rb") as f:
        pte_file = deserialize_pte_binary(f.read())
    program = pte_file.program
    plan = next(p for p in program.execution_plan if p.name == "forward")
    ops = sorted({o.name + ("." + o.overload if o.overload else "") for o in plan.operators})
    delegates = sorted({d.id for d in plan.delegates})
    mutable = len(pte_file.mutable_data or [])  # the buffers' initial data
    return ops, delegates, mutable


def load_forward(name):
    from executorch.runtime import Runtime

    program = Runtime.get().load_program(pte(name), data_path=ptd(name))
    return program.load_method("forward")


def uses_kv(method):
    return method.metadata.num_inputs() == 2


def step_logits(name):
    """STEPS on one Method: [3, vocab] float32 last-token logits. Without a
    KV cache each step runs the whole prefix."""
    method = load_forward(name)
    kv = uses_kv(method)
    rows = []
    prefix = []
    for tokens, pos in base.STEPS:
        prefix += tokens
        if kv:
            out = method.execute([torch.tensor([tokens]), torch.tensor([pos])])
        else:
            out = method.execute([torch.tensor([prefix])])
        rows.append(out[0].float().reshape(-1, out[0].shape[-1])[-1])
    return torch.stack(rows).numpy().astype(np.float32)


def runtime_greedy(name, prompt_ids, limit):
    """Greedy ids from executorch.runtime directly (prefill in one call, then
    one token per call; without a KV cache, the whole sequence each call),
    stopping after an EOS id: checks what the runner reports."""
    method = load_forward(name)
    kv = uses_kv(method)
    seq = list(prompt_ids)
    out = []
    feed, pos = list(prompt_ids), 0
    while len(out) < limit:
        if kv:
            logits = method.execute([torch.tensor([feed]), torch.tensor([pos])])[0]
            pos += len(feed)
        else:
            logits = method.execute([torch.tensor([seq])])[0]
        tok = int(logits.float().reshape(-1, logits.shape[-1])[-1].argmax())
        out.append(tok)
        seq.append(tok)
        feed = [tok]
        if tok in base.EOS_IDS:
            break
    return out


def runner_greedy(name, tokenizer):
    """The official TextLLMRunner's greedy continuation of PROMPT: the text
    pieces from token_callback and the stats."""
    from executorch.extension.llm.runner import GenerationConfig, TextLLMRunner

    runner = TextLLMRunner(pte(name), os.path.join(HERE, "tokenizer.json"), ptd(name))
    pieces, stats = [], []
    config = GenerationConfig(echo=False, max_new_tokens=NEW_TOKENS, temperature=0.0, num_bos=1)
    runner.generate(PROMPT, config, token_callback=pieces.append, stats_callback=stats.append)
    return pieces, stats[-1]


def references(name, tokenizer, prompt_ids):
    logits = step_logits(name)
    pieces, stats = runner_greedy(name, tokenizer)
    ids = runtime_greedy(name, prompt_ids, NEW_TOKENS)
    # The runner's pieces are the tokenizer's decoding of these ids, one per
    # generated token, and it counted the same prompt.
    assert stats.num_prompt_tokens == len(prompt_ids), (stats.num_prompt_tokens, len(prompt_ids))
    # (Its stats count the tokens after the first: 15 of 16.)
    assert stats.num_generated_tokens == len(ids) - 1, (stats.num_generated_tokens, ids)
    want = [tokenizer.decode(prompt_ids + ids[:i + 1])[len(tokenizer.decode(prompt_ids + ids[:i])):]
            for i in range(len(ids))]
    assert "".join(pieces) == "".join(want), (pieces, want)
    assert len(pieces) == len(ids), (pieces, ids)
    np.save(os.path.join(REFS, f"{name}_logits.npy"), logits)
    np.save(os.path.join(REFS, f"{name}_greedy.npy"), np.array(ids, dtype=np.int64))
    # The runner's streamed text, byte for byte (what llm_runner and etr.llm must print).
    with open(os.path.join(REFS, f"{name}_greedy_text.txt"), "w", encoding="utf-8",
              newline="") as f:
        f.write("".join(pieces))
    return logits, ids, "".join(pieces)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--only", default="", help="comma-separated flavours (default: all)")
    ap.add_argument("--refs-only", action="store_true", help="keep the .pte files, redo refs")
    opts = ap.parse_args()
    names = [n for n in opts.only.split(",") if n] or list(FLAVOURS)
    failed = {}
    if not opts.refs_only:
        export(names, failed)
    names = [n for n in names if n not in failed]

    import executorch.extension.llm.custom_ops.custom_ops  # noqa: F401
    import executorch.kernels.quantized  # noqa: F401
    from tokenizers import Tokenizer

    os.makedirs(REFS, exist_ok=True)
    tokenizer = Tokenizer.from_file(os.path.join(HERE, "tokenizer.json"))
    prompt_ids = [base.BOS_ID] + tokenizer.encode(PROMPT, add_special_tokens=False).ids
    np.save(os.path.join(REFS, "prompt_ids.npy"), np.array(prompt_ids, dtype=np.int64))

    manifest = os.path.join(HERE, "manifest_flavours.txt")
    entries = {}
    if os.path.exists(manifest):  # keep the entries of flavours not redone
        with open(manifest) as f:
            for line in f:
                if line.startswith("tiny_llama_"):
                    entries[line.split(".pte")[0][len("tiny_llama_"):]] = line.rstrip("\n")
    for name in names:
        logits, ids, text = references(name, tokenizer, prompt_ids)
        ops, delegates, mutable = operators(pte(name))
        data = ptd(name)
        entries[name] = (
            f"tiny_llama_{name}.pte ({os.path.getsize(pte(name))} bytes"
            + (f", {os.path.basename(data)} {os.path.getsize(data)} bytes" if data else "")
            + f") | delegates {delegates or 'none'} | initialized mutable buffers {mutable}"
            + f" | logits |max| {np.abs(logits).max():.3g}"
            + f" | greedy {ids} ({text!r}) | ops {' '.join(ops)} | command: {command(name)}")
        print(entries[name], flush=True)
    lines = [
        "Flavours of ExecuTorch 1.5.1's export_llm (test/models/llm/export_llm_flavours.py, run",
        "with /opt/tv213/bin/python: torch 2.13.0, whose ABI the wheel's runtime and AOT library",
        "need). Checkpoint: export_tiny_llama.py's (seed 19; $TMP is a temporary folder); the",
        f"group-128 flavour is the same recipe at {DIM128}.",
        f"refs/prompt_ids.npy: {PROMPT!r} encoded by tokenizer.json with BOS first: {prompt_ids}.",
        "refs/<flavour>_logits.npy Float[3, 128]: the official runtime (executorch.runtime) on",
        f"one Method: {base.STEPS} as (tokens, input_pos); without a KV cache each row runs",
        "the whole prefix. refs/<flavour>_greedy.npy: the official TextLLMRunner's",
        f"generate({PROMPT!r}, GenerationConfig(echo=False, max_new_tokens={NEW_TOKENS},",
        "temperature=0.0, num_bos=1)) as token ids (the same ids as an argmax loop on executorch.runtime,",
        "whose decoding equals the runner's token_callback text; it stops after an EOS id).",
    ] + [entries[n] for n in FLAVOURS if n in entries] + [
        f"{n}: the exporter failed: {why}" for n, why in failed.items()]
    with open(manifest, "w") as f:
        f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
