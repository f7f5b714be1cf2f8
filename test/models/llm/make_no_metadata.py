"""Exports a program shaped like an LLM's forward but without the metadata
methods the LLM exporter adds (get_max_seq_len, get_eos_ids, ...): the
runners must refuse it with a clear error (issue 19, bad input).

    /opt/tv/bin/python test/models/llm/make_no_metadata.py

Writes no_metadata_llm.pte next to this file: forward(tokens Long[1, S]
(S dynamic up to 8), input_pos Long[1]) -> Float[1, 128] (an embedding of
128 rows, then a linear layer, last token's row), seeded weights, no KV cache.
"""
import os

import torch
from executorch.exir import to_edge
from torch.export import Dim, export

HERE = os.path.dirname(os.path.abspath(__file__))


class Tiny(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = torch.nn.Embedding(128, 8)
        self.out = torch.nn.Linear(8, 128)

    def forward(self, tokens, input_pos):
        h = self.emb(tokens)[:, -1, :] + input_pos.to(torch.float32).reshape(1, 1)
        return self.out(h)


def main():
    torch.manual_seed(19)
    model = Tiny().eval()
    args = (torch.tensor([[1, 2, 3]], dtype=torch.long), torch.tensor([0], dtype=torch.long))
    ep = export(model, args, dynamic_shapes=({1: Dim("s", min=1, max=8)}, None))
    program = to_edge(ep).to_executorch()
    with open(os.path.join(HERE, "no_metadata_llm.pte"), "wb") as f:
        f.write(program.buffer)
    print("wrote no_metadata_llm.pte", len(program.buffer), "bytes")


if __name__ == "__main__":
    main()
