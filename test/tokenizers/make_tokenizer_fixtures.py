#!/usr/bin/env python3
"""Trains two tiny byte-level BPE tokenizers with the Hugging Face `tokenizers`
package and writes them, with the package's own ids for a set of test strings,
to test/tokenizers/data/ (read by test/tokenizers/hf_tokenizer_test.cpp).

  gpt2_style/tokenizer.json:  ByteLevel pre-tokenizer (GPT-2 regex), ByteLevel decoder.
  llama3_style/tokenizer.json: Sequence[Split(Llama 3 regex, isolated), ByteLevel(no regex)],
                               ignore_merges like Llama 3's file.
  gpt2_prefix_space/tokenizer.json: ByteLevel with add_prefix_space (RoBERTa style), and
    added tokens <mask> (lstrip) and <rtok> (rstrip, not special).
  qwen_style/tokenizer.json: NFC normalizer, Split(Qwen2 regex) + ByteLevel(no regex).
  <name>/reference.json: [{"text": ..., "ids": [...], "decoded": ...}, ...] from
    Tokenizer.encode(text).ids and Tokenizer.decode(ids, skip_special_tokens=False).

Run: /opt/tv/bin/python test/tokenizers/make_tokenizer_fixtures.py
"""
import json
import os

from tokenizers import AddedToken, Regex, Tokenizer, decoders, models, normalizers, pre_tokenizers, trainers

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "data")

LLAMA3_PATTERN = (
    r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*"
    r"|\s*[\r\n]+|\s+(?!\S)|\s+"
)

QWEN2_PATTERN = (
    r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*"
    r"|\s*[\r\n]+|\s+(?!\S)|\s+"
)

SPECIAL = ["<|begin_of_text|>", "<|end_of_text|>", "<|eot_id|>"]

CORPUS = [
    "The quick brown fox jumps over the lazy dog.",
    "Hello world! This is a small tokenizer test, it's tiny and we'll see.",
    "I've been there; they're here and you'd like it.",
    "Numbers: 0 1 2 3 12 123 1234 2024-11-27 3.14159",
    "Caf\u00e9 cr\u00e8me br\u00fbl\u00e9e, na\u00efve fa\u00e7ade, \u00fcber Stra\u00dfe, se\u00f1or ni\u00f1o.",
    "\u039a\u03b1\u03bb\u03b7\u03bc\u03ad\u03c1\u03b1 \u03ba\u03cc\u03c3\u03bc\u03b5, \u03b7 \u03b3\u03bb\u03ce\u03c3\u03c3\u03b1 \u03b5\u03af\u03bd\u03b1\u03b9 \u03c9\u03c1\u03b1\u03af\u03b1.",
    "\u4f60\u597d\uff0c\u4e16\u754c\u3002\u4eca\u5929\u5929\u6c14\u5f88\u597d\u3002",
    "\u3053\u3093\u306b\u3061\u306f\u4e16\u754c",
    "def main():\n    return 42\n\n",
    "tabs\tand  double  spaces   here\n",
]


def corpus_iter():
    for _ in range(20):
        for line in CORPUS:
            yield line


TEST_STRINGS = [
    "",
    "a",
    "Hello world",
    "Hello world!",
    " leading space",
    "trailing space ",
    "The quick brown fox jumps over the lazy dog.",
    "it's we'll they're I've you'd I'm IT'S",
    "Caf\u00e9 cr\u00e8me br\u00fbl\u00e9e",
    "na\u00efve fa\u00e7ade \u00fcber Stra\u00dfe",
    "\u039a\u03b1\u03bb\u03b7\u03bc\u03ad\u03c1\u03b1 \u03ba\u03cc\u03c3\u03bc\u03b5",
    "\u4f60\u597d\uff0c\u4e16\u754c\u3002",
    "\u3053\u3093\u306b\u3061\u306f",
    "emoji \U0001F600\U0001F680 and \u2764\ufe0f",
    "\U0001F468\u200d\U0001F469\u200d\U0001F467",
    "many     spaces",
    "\t\ttabs\t",
    "line one\nline two\n\nline four",
    "\r\n\r\nwindows\r\n",
    "   \n  \n",
    "digits 0 12 123 1234 12345 3.14159",
    "2024-11-27T12:00:00Z",
    "<|begin_of_text|>Hello",
    "Hello<|end_of_text|>",
    "a<|eot_id|>b<|end_of_text|><|begin_of_text|>c",
    "<|begin_of_text|> spaced <|eot_id|>",
    "<|not_special|>",
    "def main():\n    return 42\n",
    "mixed \u00e9\u03b1\u4e2d\U0001F600 text",
    "unseen words: xylophone quizzical zephyr",
    "punctuation!!! ??? ... ,,, ;;; \"quoted\" (parens) [brackets] {braces}",
    "\u00a0non-breaking\u2003em space",
    "\u0928\u092e\u0938\u094d\u0924\u0947 \u0926\u0941\u0928\u093f\u092f\u093e",
    "Ti\u1ebfng Vi\u1ec7t \ud55c\uad6d\uc5b4",
    "Hello <mask> world",
    "a \u00a0 <mask>b",
    "x<rtok>  y",
    "<mask>",
    " \n<rtok>\t\n",
    "a<rtok>\u3000\u00e9<mask>",
]


def build(name, pre_tokenizer, ignore_merges, round_trips=True, normalizer=None, extra=()):
    model = models.BPE(ignore_merges=ignore_merges)
    tok = Tokenizer(model)
    if normalizer is not None:
        tok.normalizer = normalizer
    tok.pre_tokenizer = pre_tokenizer
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=300,
        special_tokens=SPECIAL,
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        show_progress=False,
    )
    tok.train_from_iterator(corpus_iter(), trainer=trainer)
    if extra:
        tok.add_special_tokens(list(extra))
    d = os.path.join(OUT, name)
    os.makedirs(d, exist_ok=True)
    tok.save(os.path.join(d, "tokenizer.json"), pretty=True)
    ref = []
    for s in TEST_STRINGS:
        ids = tok.encode(s).ids
        decoded = tok.decode(ids, skip_special_tokens=False)
        assert decoded == s or not round_trips, (name, s)
        ref.append({"text": s, "ids": ids, "decoded": decoded})
    with open(os.path.join(d, "reference.json"), "w", encoding="utf-8") as f:
        json.dump(ref, f, ensure_ascii=False, indent=1)
        f.write("\n")
    print(name, "vocab", tok.get_vocab_size())


def main():
    build("gpt2_style", pre_tokenizers.ByteLevel(add_prefix_space=False), False)
    # A space is put before every piece that lacks one, so decode(encode(s)) != s.
    build(
        "gpt2_prefix_space",
        pre_tokenizers.ByteLevel(add_prefix_space=True),
        False,
        False,
        extra=(AddedToken("<mask>", lstrip=True), AddedToken("<rtok>", rstrip=True, special=False)),
    )
    build(
        "llama3_style",
        pre_tokenizers.Sequence(
            [
                pre_tokenizers.Split(Regex(LLAMA3_PATTERN), behavior="isolated", invert=False),
                pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False),
            ]
        ),
        True,
    )
    build(
        "qwen_style",
        pre_tokenizers.Sequence(
            [
                pre_tokenizers.Split(Regex(QWEN2_PATTERN), behavior="isolated", invert=False),
                pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False),
            ]
        ),
        False,
        normalizer=normalizers.NFC(),
    )


if __name__ == "__main__":
    main()
