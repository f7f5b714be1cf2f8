"""Writes the eager model's greedy continuation of TEXT prompts for the tiny
Llama (the references of extension/llm's TextLLMRunner, issue 19).

    /opt/tv/bin/python test/models/llm/text_reference.py

The same approach as greedy_reference.py: rebuilds the checkpoint
export_tiny_llama.py exported (same seeded weights, checked against its
committed step0_logits.npy) and runs the eager Transformer with
use_kv_cache=True. The prompt ids come from the `tokenizers` package on
tokenizer.json (add_special_tokens=False, then num_bos copies of <s> in
front, as the runners' GenerationConfig.num_bos does). No .pte is touched.

Cases (each writes text_<name>_prompt.npy, text_<name>_tokens.npy and
text_<name>.txt next to this file):
  bos0  "Once upon a time", num_bos 0 (the official runner's default):
        prefill at position 0, then each argmax token fed back until the
        context (32) is full. tokens: every argmax (the last one produced at
        input_pos 31, never fed back). txt: `tokenizers`' decode of the first
        32 - len(prompt) tokens (what a runner generates with max_new_tokens
        -1: the official resolve_max_new_tokens gives context - prompt).
  bos1  the same prompt with num_bos 1.
  chat  two turns: "Once upon a time" with num_bos 1, 5 greedy tokens; then
        the 5th token (not yet fed) and " the robot" are prefilled at the
        next position and generation goes on until the context is full.
        prompt: turn 1's ids; tokens: turn 1's 5 tokens then turn 2's;
        text_chat_turn2_prompt.npy: turn 2's ids (without the carried token).
and adds their lines to manifest.txt.
"""
import os
import sys
import tempfile

import numpy as np
import torch
from tokenizers import Tokenizer

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import export_tiny_llama as tl  # noqa: E402

PROMPT = "Once upon a time"
TURN2 = " the robot"
CHAT_TURN1_TOKENS = 5


def build_model():
    torch.manual_seed(0)
    with tempfile.TemporaryDirectory() as tmp:
        _, _, state = tl.write_checkpoint(tmp)
    from executorch.examples.models.llama.llama_transformer import construct_transformer

    model = construct_transformer(tl.model_args(use_kv_cache=True, enable_dynamic_shape=True))
    model.load_state_dict(state, strict=False)
    model.eval()
    return model


class Session:
    """Eager KV-cache decoding: feed ids at the running position."""

    def __init__(self, model):
        self.model = model
        self.pos = 0
        self.vocab = tl.PARAMS["vocab_size"]

    def feed(self, ids):
        out = self.model(torch.tensor([ids], dtype=torch.long),
                         {"input_pos": torch.tensor([self.pos], dtype=torch.long)})
        if isinstance(out, tuple):
            out = out[0]
        self.pos += len(ids)
        return out.reshape(-1, self.vocab)[-1]

    def greedy(self, logits, limit=None):
        """Argmax tokens from `logits` on, each fed back while the context has room."""
        tokens = []
        while True:
            tok = int(torch.argmax(logits).item())
            tokens.append(tok)
            if (limit is not None and len(tokens) >= limit) or self.pos >= tl.MAX_SEQ:
                return tokens
            logits = self.feed([tok])


def main():
    model = build_model()
    tok = Tokenizer.from_file(os.path.join(HERE, "tokenizer.json"))
    text_ids = tok.encode(PROMPT, add_special_tokens=False).ids
    lines = []
    with torch.no_grad():
        check = Session(model).feed([1, 5, 9, 17, 33])
        want = np.load(os.path.join(HERE, "step0_logits.npy")).reshape(-1)
        diff = np.abs(check.numpy() - want).max()
        assert diff < 1e-6, f"weights differ from the export's: step0 max |diff| {diff}"
        model = build_model()  # a fresh cache

        for name, bos in (("bos0", 0), ("bos1", 1)):
            prompt = [tl.BOS_ID] * bos + text_ids
            s = Session(model)
            tokens = s.greedy(s.feed(prompt))
            n = tl.MAX_SEQ - len(prompt)
            text = tok.decode(tokens[:n], skip_special_tokens=False)
            np.save(os.path.join(HERE, f"text_{name}_prompt.npy"), np.array(prompt, dtype=np.int64))
            np.save(os.path.join(HERE, f"text_{name}_tokens.npy"), np.array(tokens, dtype=np.int64))
            with open(os.path.join(HERE, f"text_{name}.txt"), "w", encoding="utf-8") as f:
                f.write(text)
            lines.append(f"text_{name}: prompt {PROMPT!r} num_bos {bos} -> ids {prompt}; "
                         f"text_{name}_tokens.npy Long[{len(tokens)}] greedy until the context "
                         f"is full; text_{name}.txt = decode of the first {n} (text_reference.py)")
            print(name, prompt, tokens, repr(text))

        prompt = [tl.BOS_ID] + text_ids
        turn2 = tok.encode(TURN2, add_special_tokens=False).ids
        s = Session(model)
        first = s.greedy(s.feed(prompt), limit=CHAT_TURN1_TOKENS)
        second = s.greedy(s.feed([first[-1]] + turn2))
        np.save(os.path.join(HERE, "text_chat_prompt.npy"), np.array(prompt, dtype=np.int64))
        np.save(os.path.join(HERE, "text_chat_turn2_prompt.npy"), np.array(turn2, dtype=np.int64))
        np.save(os.path.join(HERE, "text_chat_tokens.npy"),
                np.array(first + second, dtype=np.int64))
        with open(os.path.join(HERE, "text_chat.txt"), "w", encoding="utf-8") as f:
            f.write(tok.decode(first, skip_special_tokens=False) + "\n" +
                    tok.decode(second, skip_special_tokens=False))
        lines.append(f"text_chat: turn 1 {PROMPT!r} num_bos 1 -> {prompt}, {CHAT_TURN1_TOKENS} "
                     f"greedy tokens; turn 2 {TURN2!r} -> {turn2} after the carried 5th token; "
                     f"text_chat_tokens.npy Long[{len(first) + len(second)}] both turns' tokens; "
                     "text_chat.txt the two turns' decoded text, one per line (text_reference.py)")
        print("chat", first, second)

    manifest = os.path.join(HERE, "manifest.txt")
    with open(manifest) as f:
        kept = [ln for ln in f.read().splitlines() if not ln.startswith("text_")]
    with open(manifest, "w") as f:
        f.write("\n".join(kept + lines) + "\n")


if __name__ == "__main__":
    main()
