"""Writes the eager model's greedy continuation of the tiny Llama's prompt
(the reference for extension/llm's generation loop, issue 19).

    /opt/tv/bin/python test/models/llm/greedy_reference.py

Rebuilds the checkpoint export_tiny_llama.py exported (same seeded weights,
checked against its committed step0_logits.npy), runs the eager
Transformer with use_kv_cache=True: prefill of [1, 5, 9, 17, 33] at
input_pos 0, then each argmax token fed back at the next position until the
context (32) is full. No .pte is touched.

Writes next to this file:
  greedy_prompt.npy  Long[5], the prompt
  greedy_tokens.npy  Long[28], the argmax token after each step (the last
                     one is produced at input_pos 31 and never fed back)
and adds their line to manifest.txt (run it again after export_tiny_llama.py).
"""
import os
import sys
import tempfile

import numpy as np
import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import export_tiny_llama as tl  # noqa: E402

PROMPT = [1, 5, 9, 17, 33]


def main():
    torch.manual_seed(0)
    with tempfile.TemporaryDirectory() as tmp:
        _, _, state = tl.write_checkpoint(tmp)
    from executorch.examples.models.llama.llama_transformer import construct_transformer

    model = construct_transformer(tl.model_args(use_kv_cache=True, enable_dynamic_shape=True))
    model.load_state_dict(state, strict=False)
    model.eval()
    vocab = tl.PARAMS["vocab_size"]

    def step(tokens, pos):
        out = model(torch.tensor([tokens], dtype=torch.long),
                    {"input_pos": torch.tensor([pos], dtype=torch.long)})
        if isinstance(out, tuple):
            out = out[0]
        return out.reshape(-1, vocab)[-1]

    generated = []
    with torch.no_grad():
        logits = step(PROMPT, 0)
        want = np.load(os.path.join(HERE, "step0_logits.npy")).reshape(-1)
        diff = np.abs(logits.numpy() - want).max()
        assert diff < 1e-6, f"weights differ from the export's: step0 max |diff| {diff}"
        pos = len(PROMPT)
        while True:
            tok = int(torch.argmax(logits).item())
            generated.append(tok)
            if pos >= tl.MAX_SEQ:
                break
            logits = step([tok], pos)
            pos += 1
    np.save(os.path.join(HERE, "greedy_prompt.npy"), np.array(PROMPT, dtype=np.int64))
    np.save(os.path.join(HERE, "greedy_tokens.npy"), np.array(generated, dtype=np.int64))
    # Its lines in manifest.txt (replaced on a rerun; export_tiny_llama.py rewrites the file).
    manifest = os.path.join(HERE, "manifest.txt")
    with open(manifest) as f:
        lines = [ln for ln in f.read().splitlines() if not ln.startswith("greedy_")]
    lines.append(f"greedy_prompt.npy Long[{len(PROMPT)}] {PROMPT}; greedy_tokens.npy "
                 f"Long[{len(generated)}]: the eager KV-cache model's argmax after the prompt, "
                 "each fed back at the next position until the context (32) is full "
                 "(greedy_reference.py)")
    with open(manifest, "w") as f:
        f.write("\n".join(lines) + "\n")
    print("greedy tokens:", generated)


if __name__ == "__main__":
    main()
