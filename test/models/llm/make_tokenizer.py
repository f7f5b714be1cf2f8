"""Trains the tiny byte-level BPE tokenizer that goes with the tiny Llama
fixtures (vocab 128: ids 0..2 are <pad>, <s> (BOS, the models' get_bos_id)
and </s> (EOS, get_eos_ids); the rest are the corpus' characters and merges).

Deterministic: the corpus is fixed text below, the trainer is the `tokenizers`
package (single-threaded via RAYON_NUM_THREADS=1). Writes tokenizer.json next
to this script:

    RAYON_NUM_THREADS=1 /opt/tv/bin/python test/models/llm/make_tokenizer.py
"""
import os

os.environ.setdefault("RAYON_NUM_THREADS", "1")

from tokenizers import Tokenizer, decoders, models, pre_tokenizers, processors, trainers  # noqa: E402

CORPUS = [
    "Once upon a time there was a little robot who liked to read books.",
    "The robot read about the sea, the stars and the small town by the river.",
    "Every morning the sun rose over the hills and the birds began to sing.",
    "She said: hello world! How are you today? I am fine, thank you.",
    "Numbers like 1, 2, 3 and 42 appear in stories too; so do commas, dots and quotes.",
    "The quick brown fox jumps over the lazy dog. THE END.",
    "A tiny model cannot write well, but it can still write tokens (greedily).",
]


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(vocab_size=128, special_tokens=["<pad>", "<s>", "</s>"],
                                  show_progress=False)
    tok.train_from_iterator(CORPUS * 4, trainer)
    tok.post_processor = processors.TemplateProcessing(single="<s> $A", special_tokens=[("<s>", 1)])
    assert tok.token_to_id("<s>") == 1 and tok.token_to_id("</s>") == 2
    assert tok.get_vocab_size() <= 128, tok.get_vocab_size()
    tok.save(os.path.join(here, "tokenizer.json"))
    print("vocab", tok.get_vocab_size(), "ids of 'Once upon a time':", tok.encode("Once upon a time").ids)


if __name__ == "__main__":
    main()
