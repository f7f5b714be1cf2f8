"""Greedy decoding of an LLM .pte on the official runtime or ours, writing
every step's last-token logits, to find where two runtimes part.

    IDS=1,2,3   # prompt ids
    /opt/tv213/bin/python bench/llm_logits_compare.py official M.pte $IDS 16 off.npz
    PYTHONPATH=build-python/python /usr/bin/python3 \\
        bench/llm_logits_compare.py ours M.pte $IDS 16 ours.npz off.npz
    /opt/tv/bin/python bench/llm_logits_compare.py diff off.npz ours.npz

The second form feeds the tokens the first run chose (the last argument), so
both runs see the same sequence and their logits compare step by step; `diff`
prints, per step, the largest difference, the logits' scale and the top two
tokens on each side. Official: pip executorch 1.5.1 needs torch 2.13.0.
"""
import sys

import numpy as np


def run(which, pte, ids_csv, steps, out, force_path=None):
    force = np.load(force_path)["tokens"] if force_path else None
    prompt = [int(x) for x in ids_csv.split(",")]
    if which == "official":
        import torch
        import executorch.extension.llm.custom_ops.custom_ops  # noqa: F401
        import executorch.kernels.quantized  # noqa: F401
        from executorch.runtime import Runtime

        method = Runtime.get().load_program(pte).load_method("forward")

        def forward(tokens, pos):
            outs = method.execute([torch.tensor([tokens], dtype=torch.long),
                                   torch.tensor([pos], dtype=torch.long)])
            return outs[0].float().numpy()
    else:
        from etr.runtime import Runtime

        method = Runtime.get().load_program(pte).load_method("forward")

        def forward(tokens, pos):
            outs = method.execute([np.array([tokens], dtype=np.int64),
                                   np.array([pos], dtype=np.int64)])
            return np.asarray(outs[0], dtype=np.float32)

    logits, tokens = [], []
    feed, pos = prompt, 0
    for step in range(int(steps)):
        row = forward(feed, pos)
        row = row.reshape(-1, row.shape[-1])[-1]
        pos += len(feed)
        logits.append(row)
        tokens.append(int(np.argmax(row)))
        feed = [int(force[step])] if force is not None else [tokens[-1]]
    np.savez(out, logits=np.array(logits), tokens=np.array(tokens))
    print(which, tokens)


def diff(a_path, b_path):
    a, b = np.load(a_path), np.load(b_path)
    for step, (la, lb) in enumerate(zip(a["logits"], b["logits"])):
        top = np.argsort(-la)[:2]
        print("step %d: max |a - b| %.3g, max |a| %.3g, top2 %s: a %s b %s" %
              (step, np.abs(la - lb).max(), np.abs(la).max(), top.tolist(),
               np.round(la[top], 4).tolist(), np.round(lb[top], 4).tolist()))


if __name__ == "__main__":
    if sys.argv[1] == "diff":
        diff(sys.argv[2], sys.argv[3])
    else:
        run(*sys.argv[1:])
