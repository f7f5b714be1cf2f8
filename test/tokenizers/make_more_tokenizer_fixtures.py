#!/usr/bin/env python3
"""Makes small tokenizers in the three other formats the official LLM runner reads, with
reference ids and text for a multilingual set of test strings, in test/tokenizers/data/
(read by test/tokenizers/{tiktoken,sp,llama2c}_tokenizer_test.cpp).

  sp_bpe/tokenizer.model, sp_unigram/tokenizer.model: SentencePiece BPE and unigram models
    (vocab about 520, byte_fallback) trained by the `sentencepiece` package.
  tiktoken/tokenizer.model: a Llama 3 style ranks file ("<base64 bytes> <rank>" lines): the
    256 single bytes and 200 merges of a byte-level BPE trained here over the pieces of the
    Llama 3 pre-tokenizer regex.
  llama2c/tokenizer.bin: sp_bpe's model exported by pytorch_tokenizers' Llama2cTokenizer.export
    (the official converter: vocab size, BOS, EOS, max token length, then score/length/bytes).
  <name>/reference.json: [{"text", "ids", "py_ids", "decoded", "pieces"}, ...]
    ids: the official C++ tokenizers' encode (pytorch_tokenizers' bindings: CppTiktoken,
      CppSPTokenizer, CppLlama2cTokenizer), without BOS/EOS;
    py_ids: the Python packages' ids (tiktoken with allowed_special="all"; sentencepiece's
      encode; for llama2c the sentencepiece ids of the source model), to show divergences;
    decoded: the Python package's decode of py_ids (tiktoken / sentencepiece bytes as text);
    pieces: the official C++ decode of each id alone (the binding's decode(token), which
      does not treat the previous token as BOS), where the binding can return it (valid
      UTF-8), else null. The official SentencePiece reader prints byte tokens other than
      <0x0A> as their "<0xNN>" text; the tests skip those.

Run: /opt/tv/bin/python test/tokenizers/make_more_tokenizer_fixtures.py
"""
import base64
import collections
import io
import json
import os
import sys

import regex
import sentencepiece as spm
import tiktoken

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "data")
sys.path.insert(0, HERE)
from make_tokenizer_fixtures import CORPUS, TEST_STRINGS  # noqa: E402

# The official runner's tiktoken pattern (pytorch_tokenizers' Tiktoken default): Meta's Llama 3
# pattern without its "\s+(?!\S)" alternative (RE2 has no lookahead).
OFFICIAL_PATTERN = (
    r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*"
    r"|\s*[\r\n]+|\s+"
)
# Meta's Llama 3 tokenizer.py pattern (what the `tiktoken` reference uses).
LLAMA3_PATTERN = (
    r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*"
    r"|\s*[\r\n]+|\s+(?!\S)|\s+"
)


def llama3_special_tokens():
    names = [
        "<|begin_of_text|>",
        "<|end_of_text|>",
        "<|reserved_special_token_0|>",
        "<|reserved_special_token_1|>",
        "<|finetune_right_pad_id|>",
        "<|step_id|>",
        "<|start_header_id|>",
        "<|end_header_id|>",
        "<|eom_id|>",
        "<|eot_id|>",
        "<|python_tag|>",
    ]
    k = 2
    while len(names) < 256:
        names.append("<|reserved_special_token_%d|>" % k)
        k += 1
    return names


EXTRA_CORPUS = [
    "Ceci est une phrase en fran\u00e7ais avec des accents: \u00e0 \u00e2 \u00e9 \u00e8 \u00ea \u00eb \u00ee \u00f4 \u00f9.",
    "Das ist ein deutscher Satz \u00fcber gro\u00dfe B\u00e4ume und kleine V\u00f6gel.",
    "\u041f\u0440\u0438\u0432\u0435\u0442, \u043c\u0438\u0440! \u042d\u0442\u043e \u0442\u0435\u0441\u0442.",
    "\uc548\ub155\ud558\uc138\uc694 \uc138\uacc4",
    "Emoji: \U0001F600 \U0001F680 \U0001F44D \u2764\ufe0f",
    "once upon a time there was a little girl who lived in a village near the forest",
]

MORE_TEST_STRINGS = [
    "a    b",
    "   x",
    "aaaaaaa lllll eeeeee ttttt",  # equal pairs side by side: the leftmost merges first
    "x\n\n\ny",
    "<s>Hello</s>",
    "<0x41> literal",
    "<|eot_id|>",
    "<|start_header_id|>user<|end_header_id|>\n\nHi!<|eot_id|>",
    "<|reserved_special_token_250|>x",
    "\u041f\u0440\u0438\u0432\u0435\u0442, \u043c\u0438\u0440!",
    "\ud83e\udd99".encode("utf-16", "surrogatepass").decode("utf-16") + " llama",
]


def texts():
    return [s for s in TEST_STRINGS + MORE_TEST_STRINGS]


def train_corpus():
    for _ in range(20):
        for line in CORPUS + EXTRA_CORPUS:
            yield line


def train_sp(kind):
    # BPE like Llama 2's model (no normalization, whitespace kept), unigram with the
    # default NFKC normalizer that collapses whitespace.
    extra = (dict(normalization_rule_name="identity", remove_extra_whitespaces=False)
             if kind == "bpe" else {})
    buf = io.BytesIO()
    spm.SentencePieceTrainer.train(
        sentence_iterator=iter(list(train_corpus())),
        model_writer=buf,
        model_type=kind,
        vocab_size=520,
        hard_vocab_limit=False,
        byte_fallback=True,
        character_coverage=0.98,
        bos_id=1,
        eos_id=2,
        unk_id=0,
        pad_id=-1,
        split_digits=True,
        minloglevel=2,
        **extra,
    )
    return buf.getvalue()


def train_byte_bpe(n_merges):
    """A byte-level BPE over the Llama 3 regex pieces: ranks 0..255 are the single bytes,
    then one rank per merge (the most frequent pair first, ties by the smaller pair)."""
    counts = collections.Counter()
    for line in train_corpus():
        for piece in regex.findall(LLAMA3_PATTERN, line):
            counts[piece.encode("utf-8")] += 1
    words = {w: [bytes([b]) for b in w] for w in counts}
    ranks = {bytes([b]): b for b in range(256)}
    for _ in range(n_merges):
        pairs = collections.Counter()
        for w, syms in words.items():
            for a, b in zip(syms, syms[1:]):
                pairs[(a, b)] += counts[w]
        if not pairs:
            break
        best = min(pairs, key=lambda p: (-pairs[p], p))
        merged = best[0] + best[1]
        ranks[merged] = len(ranks)
        for w, syms in words.items():
            out, i = [], 0
            while i < len(syms):
                if i + 1 < len(syms) and (syms[i], syms[i + 1]) == best:
                    out.append(merged)
                    i += 2
                else:
                    out.append(syms[i])
                    i += 1
            words[w] = out
    return ranks


def official_pieces(tok, ids):
    pieces = []
    for i in ids:
        try:
            pieces.append(tok.decode(i))
        except Exception:  # not valid UTF-8 on its own: the binding cannot return it
            pieces.append(None)
    return pieces


def write_ref(name, entries):
    with open(os.path.join(OUT, name, "reference.json"), "w", encoding="utf-8") as f:
        json.dump(entries, f, ensure_ascii=False, indent=0)
        f.write("\n")
    diverge = [e["text"] for e in entries if e["ids"] != e["py_ids"]]
    print(name, "entries", len(entries), "official != python on", len(diverge), ":", diverge)


def main():
    from pytorch_tokenizers import CppLlama2cTokenizer, CppSPTokenizer, CppTiktoken
    from pytorch_tokenizers.llama2c import Llama2cTokenizer

    # SentencePiece BPE and unigram.
    for kind in ("bpe", "unigram"):
        name = "sp_" + kind
        os.makedirs(os.path.join(OUT, name), exist_ok=True)
        path = os.path.join(OUT, name, "tokenizer.model")
        with open(path, "wb") as f:
            f.write(train_sp(kind))
        sp = spm.SentencePieceProcessor(model_file=path)
        cpp = CppSPTokenizer()
        cpp.load(path)
        assert cpp.bos_tok() == sp.bos_id() and cpp.eos_tok() == sp.eos_id()
        entries = []
        for s in texts():
            if s == "":
                continue  # the official reader gives no ids for it either way
            ids = list(cpp.encode(s, 0, 0))
            py = sp.encode(s)
            entries.append({"text": s, "ids": ids, "py_ids": py, "decoded": sp.decode(py),
                            "pieces": official_pieces(cpp, ids)})
        write_ref(name, entries)
        print(name, "vocab", sp.vocab_size(), "bos", sp.bos_id(), "eos", sp.eos_id())

    # llama2.c tokenizer.bin from the SentencePiece BPE model, by the official converter.
    os.makedirs(os.path.join(OUT, "llama2c"), exist_ok=True)
    sp_path = os.path.join(OUT, "sp_bpe", "tokenizer.model")
    bin_path = os.path.join(OUT, "llama2c", "tokenizer.bin")
    Llama2cTokenizer(sp_path).export(bin_path)
    sp = spm.SentencePieceProcessor(model_file=sp_path)
    cpp = CppLlama2cTokenizer()
    cpp.load(bin_path)
    entries = []
    for s in texts():
        if s == "" or "\0" in s:
            continue  # the official reader refuses empty text
        with_bos = list(cpp.encode(s, 1, 0))
        assert with_bos[0] == cpp.bos_tok()
        py = sp.encode(s)
        entries.append({"text": s, "ids": with_bos[1:], "py_ids": py, "decoded": sp.decode(py),
                        "pieces": official_pieces(cpp, with_bos[1:])})
    write_ref("llama2c", entries)

    # tiktoken ranks file.
    os.makedirs(os.path.join(OUT, "tiktoken"), exist_ok=True)
    ranks = train_byte_bpe(200)
    path = os.path.join(OUT, "tiktoken", "tokenizer.model")
    with open(path, "w") as f:
        for tok, rank in sorted(ranks.items(), key=lambda kv: kv[1]):
            f.write(base64.b64encode(tok).decode() + " " + str(rank) + "\n")
    specials = llama3_special_tokens()
    special_ids = {t: len(ranks) + i for i, t in enumerate(specials)}
    enc = tiktoken.Encoding("etr_test", pat_str=LLAMA3_PATTERN, mergeable_ranks=ranks,
                            special_tokens=special_ids)
    enc_official_pattern = tiktoken.Encoding("etr_test_official", pat_str=OFFICIAL_PATTERN,
                                             mergeable_ranks=ranks, special_tokens=special_ids)
    cpp = CppTiktoken()
    cpp.load(path)
    assert cpp.vocab_size() == len(ranks) + 256, cpp.vocab_size()
    assert cpp.bos_tok() == len(ranks) and cpp.eos_tok() == len(ranks) + 1
    entries = []
    for s in texts():
        ids = list(cpp.encode(s, 0, 0))
        py = enc.encode(s, allowed_special="all")
        # The official pattern through the tiktoken package gives the official ids.
        assert enc_official_pattern.encode(s, allowed_special="all") == ids, s
        entries.append({"text": s, "ids": ids, "py_ids": py,
                        "decoded": enc.decode_bytes(py).decode("utf-8"),
                        "pieces": official_pieces(cpp, ids)})
    write_ref("tiktoken", entries)


if __name__ == "__main__":
    main()
