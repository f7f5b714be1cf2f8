#!/usr/bin/env python3
"""Trains tiny SentencePiece-style BPE tokenizers with the Hugging Face
`tokenizers` package, laid out like the tokenizer.json files that Llama 2
(HF), TinyLlama, Mistral, Phi-3 and Gemma ship, and writes them with the
package's own ids and decoded text for the test strings to
test/tokenizers/data/ (read by test/tokenizers/hf_tokenizer_test.cpp).

Every model is a BPE over characters with byte_fallback (<0x00>..<0xFF> in
the vocab, after the special tokens, as the real files have them) or an unk
token; the merges are trained here on make_tokenizer_fixtures.py's corpus.

  llama2_style: normalizer Sequence[Prepend("▁"), Replace(" " -> "▁")], no
    pre-tokenizer, decoder Sequence[Replace("▁" -> " "), ByteFallback, Fuse,
    Strip(" ", 1, 0)], unk <unk>, fuse_unk, BOS <s> by TemplateProcessing.
    Phi-3's chat tokens are added like Phi-3's file has them (<|endoftext|>,
    and <|assistant|>, <|user|>, <|end|> with rstrip).
  gemma_style: normalizer Replace(" " -> "▁") (no prepend), no
    pre-tokenizer, decoder Sequence[Replace, ByteFallback, Fuse]; Gemma's
    special tokens <pad> <eos> <bos> <unk> first and <start_of_turn>,
    <end_of_turn> added.
  metaspace_style: no normalizer, Metaspace pre-tokenizer (prepend_scheme
    "first", split false) and llama2_style's decoder, as Mistral v0.3 and the
    newer (legacy false) Llama conversions have.
  metaspace_nfc_style: not a real model's layout; it covers what the others
    do not: an NFC normalizer (applied), Metaspace pre-tokenizer and decoder
    with prepend_scheme "always" and split true, no byte_fallback (unknown characters become
    <unk>, fused).
  qwen_style/nfc_reference.json: the package's ids with make_tokenizer_fixtures.py's
    qwen_style tokenizer (NFC normalizer, byte-level: every normalization
    difference shows in the ids) for NFC-sensitive strings, including every
    primary composite of Python's Unicode data in decomposed form.
  qwen_style/nfkc_reference.json: the same with that file's normalizer made
    NFKC, and NFKD (the "form" field), for compatibility-sensitive strings
    and every fifth code point with a compatibility decomposition.
  metaspace_nfc_style/unfused_reference.json: ids for a few strings with that
    file's fuse_unk set to false (each unknown character its own <unk>).
  llama2_style/normalized_reference.json: ids with that file's <|user|> and
    <|end|> added tokens made normalized (matched in the normalized text, as
    their normalized content "▁<|user|>", ...).
  llama2_style/regex_reference.json: ids and decoded text with that file's
    Replace normalizer and decoder given Regex patterns (REGEX_EDIT).
  <name>/reference.json: [{"text", "ids", "decoded", "decoded_after_bos"}]:
    Tokenizer.encode(text, add_special_tokens=False).ids,
    Tokenizer.decode(ids, skip_special_tokens=False) and
    Tokenizer.decode([bos] + ids, skip_special_tokens=True).

Training is not deterministic (the package's trainer breaks ties in hash
order), so a rerun writes different, equally valid files; --references-only
keeps the committed tokenizer.json files and rewrites only the extra
reference files derived from them.

Run: /opt/tv/bin/python test/tokenizers/make_sp_style_fixtures.py [--references-only]
"""
import json
import os
import sys
import unicodedata

from tokenizers import AddedToken, Tokenizer, decoders, models, normalizers, pre_tokenizers, processors, trainers

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "data")
sys.path.insert(0, HERE)
from make_tokenizer_fixtures import CORPUS, TEST_STRINGS  # noqa: E402

SPM = "\u2581"

EXTRA_STRINGS = [
    "<s>Hello",
    "Hello</s>",
    "<s> spaced </s> out",
    "<bos>Hi<eos>",
    "<|user|>\nWhat is 2+2?<|end|>\n<|assistant|>  It is 4.<|end|>",
    "<start_of_turn>user\nHi there<end_of_turn>\n",
    "a <unk> b",
    "literal <0x41> byte token text",
    "a\u2581b \u2581 c",
    "  two leading spaces",
    "trailing spaces  ",
    " ",
    "\n",
    # NFC-sensitive: decomposed accents, Hangul jamo, singletons, mark order.
    "Cafe\u0301 cre\u0300me bru\u0302le\u0301e",
    unicodedata.normalize("NFD", "na\u00efve fa\u00e7ade \u00fcber"),
    "\u1100\u1161\u11a8 \u1112\u1161\u11ab\u1100\u116e\u11a8\u110b\u1165",
    unicodedata.normalize("NFD", "\ud55c\uad6d\uc5b4 Ti\u1ebfng Vi\u1ec7t"),
    "\u212b \u2126 A\u030a",
    "x\u0592\u0316 q\u0323\u0307 s\u0307\u0323",
    "\u0e40\u0e1b\u0e47\u0e19 \u0627\u0644\u0639\u0631\u0628\u064a\u0629",
]


def corpus_iter():
    for _ in range(20):
        for line in CORPUS:
            yield line


def train_vocab(normalizer, vocab_size, limit_alphabet):
    """Merges trained on the corpus split at spaces into "▁word" pieces."""
    tok = Tokenizer(models.BPE())
    seq = [normalizer] if normalizer is not None else []
    tok.normalizer = normalizers.Sequence(seq + [normalizers.Replace(" ", SPM)]) if seq else None
    tok.pre_tokenizer = pre_tokenizers.Metaspace(replacement=SPM, prepend_scheme="always", split=True)
    trainer = trainers.BpeTrainer(vocab_size=vocab_size, limit_alphabet=limit_alphabet, show_progress=False)
    tok.train_from_iterator(corpus_iter(), trainer=trainer)
    model = json.loads(tok.to_str())["model"]
    ordered = sorted(model["vocab"].items(), key=lambda kv: kv[1])
    return [t for t, _ in ordered], [tuple(m) for m in model["merges"]]


def build(name, specials, normalizer, pre_tokenizer, decoder, bos, byte_fallback=True, added=(),
          train_normalizer=None):
    trained, merges = train_vocab(train_normalizer, 330, 70)
    vocab = {}
    for t in specials:
        vocab[t] = len(vocab)
    if byte_fallback:
        for b in range(256):
            vocab["<0x%02X>" % b] = len(vocab)
    for t in trained:
        if t not in vocab:
            vocab[t] = len(vocab)
    unk = "<unk>"
    model = models.BPE(vocab, merges, unk_token=unk, fuse_unk=True, byte_fallback=byte_fallback)
    tok = Tokenizer(model)
    tok.normalizer = normalizer
    tok.pre_tokenizer = pre_tokenizer
    tok.decoder = decoder
    tok.post_processor = processors.TemplateProcessing(
        single=bos + " $A", pair=bos + " $A " + bos + " $B", special_tokens=[(bos, vocab[bos])])
    tok.add_special_tokens([AddedToken(t, normalized=False, special=True) for t in specials])
    if added:
        tok.add_special_tokens(list(added))
    d = os.path.join(OUT, name)
    os.makedirs(d, exist_ok=True)
    tok.save(os.path.join(d, "tokenizer.json"), pretty=True)
    bos_id = vocab[bos]
    ref = []
    for s in TEST_STRINGS + EXTRA_STRINGS:
        ids = tok.encode(s, add_special_tokens=False).ids
        ref.append({
            "text": s,
            "ids": ids,
            "decoded": tok.decode(ids, skip_special_tokens=False),
            "decoded_after_bos": tok.decode([bos_id] + ids, skip_special_tokens=True),
        })
    with open(os.path.join(d, "reference.json"), "w", encoding="utf-8") as f:
        json.dump(ref, f, ensure_ascii=False, indent=1)
        f.write("\n")
    print(name, "vocab", tok.get_vocab_size(), "bytes", os.path.getsize(os.path.join(d, "tokenizer.json")))


def nfc_reference():
    tok = Tokenizer.from_file(os.path.join(OUT, "qwen_style", "tokenizer.json"))
    strings = list(EXTRA_STRINGS[-7:])
    composites = []
    for c in range(0x110000):
        if 0xD800 <= c <= 0xDFFF:
            continue
        d = unicodedata.decomposition(chr(c))
        if d and not d.startswith("<") and len(d.split()) == 2:
            nfd = unicodedata.normalize("NFD", chr(c))
            if unicodedata.normalize("NFC", nfd) == chr(c):
                composites.append(nfd)
    for i in range(0, len(composites), 64):
        strings.append(" ".join(composites[i:i + 64]))
    # Hangul: L V, L V T, LV + T, and jamo that do not compose.
    strings.append("\u1100\u1161 \u1112\u1175\u11c2 \uac00\u11a8 \u1100\u1100\u1161\u1161 \u11a8\u1161")
    # Blocking: a mark of class 0 or of the same class stops composition.
    strings.append("a\u0328\u0301 a\u0301\u0328 a\u0301\u0301 a\u0305\u0301 e\u0334\u0301")
    strings.append("\u0344 \u0958 \u2adc \u0f73 \u1e9b\u0323 \u0fb3\u0f80\u0f71")
    ref = [{"text": s, "ids": tok.encode(s, add_special_tokens=False).ids} for s in strings]
    with open(os.path.join(OUT, "qwen_style", "nfc_reference.json"), "w", encoding="utf-8") as f:
        json.dump(ref, f, ensure_ascii=False, indent=None)
        f.write("\n")
    print("qwen_style nfc_reference", len(strings), "strings")


NFKC_STRINGS = [
    "\ufb01 \ufb00 \u2460 \u337f \u00bd \uff48\uff45\uff4c\uff4c\uff4f \uff37\uff4f\uff52\uff4c\uff44",
    "\u2122 \u210c \u3300 \uff8a\uff9f \uff76\uff9e \u02da \u2025 \u2026 x\u00b2 H\u2082O",
    "\u00a0non-breaking\u2003em space \u3000ideographic",
    "\u1e9b\u0323 \u00a8\u0301 \u2126 \u212b \u017f\u0307",
    "Caf\u00e9 Cafe\u0301 \ud55c\uad6d\uc5b4 \u1100\u1161\u11a8 \u3131\u314f",
]


def nfkc_reference():
    with open(os.path.join(OUT, "qwen_style", "tokenizer.json"), encoding="utf-8") as f:
        j = json.load(f)
    compat = [chr(c) for c in range(0x110000)
              if not 0xD800 <= c <= 0xDFFF and unicodedata.decomposition(chr(c)).startswith("<")]
    sample = compat[::5]
    strings = NFKC_STRINGS + [" ".join(sample[i:i + 64]) for i in range(0, len(sample), 64)]
    ref = []
    for form in ("NFKC", "NFKD"):
        j["normalizer"] = {"type": form}
        tok = Tokenizer.from_str(json.dumps(j))
        for s in (strings if form == "NFKC" else NFKC_STRINGS):
            ref.append({"form": form, "text": s, "ids": tok.encode(s, add_special_tokens=False).ids})
    with open(os.path.join(OUT, "qwen_style", "nfkc_reference.json"), "w", encoding="utf-8") as f:
        json.dump(ref, f, ensure_ascii=False)
        f.write("\n")


def main():
    nfc_reference()
    nfkc_reference()
    if "--references-only" in sys.argv:  # keep the trained files, redo the extra references
        unfused_reference()
        regex_reference()
        normalized_reference()
        return
    sp_decoder = [decoders.Replace(SPM, " "), decoders.ByteFallback(), decoders.Fuse()]
    build(
        "llama2_style",
        ["<unk>", "<s>", "</s>"],
        normalizers.Sequence([normalizers.Prepend(SPM), normalizers.Replace(" ", SPM)]),
        None,
        decoders.Sequence(sp_decoder + [decoders.Strip(" ", 1, 0)]),
        "<s>",
        added=(
            AddedToken("<|endoftext|>", normalized=False, special=True),
            AddedToken("<|assistant|>", rstrip=True, normalized=False, special=True),
            AddedToken("<|user|>", rstrip=True, normalized=False, special=True),
            AddedToken("<|end|>", rstrip=True, normalized=False, special=True),
        ),
    )
    build(
        "gemma_style",
        ["<pad>", "<eos>", "<bos>", "<unk>"],
        normalizers.Replace(" ", SPM),
        None,
        decoders.Sequence(sp_decoder),
        "<bos>",
        added=(
            AddedToken("<start_of_turn>", normalized=False, special=True),
            AddedToken("<end_of_turn>", normalized=False, special=True),
        ),
    )
    build(
        "metaspace_style",
        ["<unk>", "<s>", "</s>"],
        None,
        pre_tokenizers.Metaspace(replacement=SPM, prepend_scheme="first", split=False),
        decoders.Sequence(sp_decoder + [decoders.Strip(" ", 1, 0)]),
        "<s>",
    )
    build(
        "metaspace_nfc_style",
        ["<unk>", "<s>", "</s>"],
        normalizers.NFC(),
        pre_tokenizers.Metaspace(replacement=SPM, prepend_scheme="always", split=True),
        decoders.Metaspace(replacement=SPM, prepend_scheme="always", split=True),
        "<s>",
        byte_fallback=False,
        train_normalizer=normalizers.NFC(),
    )
    unfused_reference()
    regex_reference()
    normalized_reference()


# Applied to llama2_style's file for regex_reference.json (and by the C++ test):
# runs of spaces become one "▁", and runs of "▁" decode to one space.
REGEX_EDIT = {
    "normalizer": {"type": "Sequence", "normalizers": [
        {"type": "Prepend", "prepend": SPM},
        {"type": "Replace", "pattern": {"Regex": " +"}, "content": SPM}]},
    "decoder_replace": {"type": "Replace", "pattern": {"Regex": SPM + "+"}, "content": " "},
}


def regex_reference():
    d = os.path.join(OUT, "llama2_style")
    with open(os.path.join(d, "tokenizer.json"), encoding="utf-8") as f:
        j = json.load(f)
    j["normalizer"] = REGEX_EDIT["normalizer"]
    j["decoder"]["decoders"][0] = REGEX_EDIT["decoder_replace"]
    tok = Tokenizer.from_str(json.dumps(j))
    ref = []
    for s in TEST_STRINGS[:22]:
        ids = tok.encode(s, add_special_tokens=False).ids
        ref.append({"text": s, "ids": ids, "decoded": tok.decode(ids, skip_special_tokens=False)})
    with open(os.path.join(d, "regex_reference.json"), "w", encoding="utf-8") as f:
        json.dump(ref, f, ensure_ascii=False)
        f.write("\n")


NORMALIZED_STRINGS = ["<|user|>\nHi<|end|>", "a <|user|> b", "<|user|>", "x<|end|>  y", " <|end|>",
                      "a<|user|>b", "<|end|><|end|>"]


def normalized_reference():
    d = os.path.join(OUT, "llama2_style")
    with open(os.path.join(d, "tokenizer.json"), encoding="utf-8") as f:
        j = json.load(f)
    for t in j["added_tokens"]:
        if t["content"] in ("<|user|>", "<|end|>"):
            t["normalized"] = True
    tok = Tokenizer.from_str(json.dumps(j))
    ref = [{"text": s, "ids": tok.encode(s, add_special_tokens=False).ids} for s in NORMALIZED_STRINGS]
    with open(os.path.join(d, "normalized_reference.json"), "w", encoding="utf-8") as f:
        json.dump(ref, f, ensure_ascii=False)
        f.write("\n")


def unfused_reference():
    d = os.path.join(OUT, "metaspace_nfc_style")
    with open(os.path.join(d, "tokenizer.json"), encoding="utf-8") as f:
        j = json.load(f)
    j["model"]["fuse_unk"] = False
    tok = Tokenizer.from_str(json.dumps(j))
    strings = ["\u4f60\u597d\uff0c\u4e16\u754c", "x\U0001F600\U0001F680y z", "Caf\u00e9 \u3053\u3093"]
    ref = [{"text": s, "ids": tok.encode(s, add_special_tokens=False).ids} for s in strings]
    with open(os.path.join(d, "unfused_reference.json"), "w", encoding="utf-8") as f:
        json.dump(ref, f, ensure_ascii=False)
        f.write("\n")


if __name__ == "__main__":
    main()
