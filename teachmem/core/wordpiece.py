"""Text to token ids as BERT reads it: WordPiece, the tokenizer of all-MiniLM-L6-v2.

Clean the text (``normalise``: whitespace, control characters, accents, case), split it on spaces
and punctuation (``split_words``), then cut each word into the longest pieces found in the
vocabulary, "##" marking a piece that continues a word (``WordPiece.pieces``); [CLS] in front,
[SEP] at the end. ``teachmem.core.minilm`` turns the ids into a sentence vector.
"""
from __future__ import annotations

import re
import string
import unicodedata
from typing import Sequence

__all__ = ["CJK", "normalise", "split_words", "WordPiece"]

CJK = ((0x4E00, 0x9FFF), (0x3400, 0x4DBF), (0x20000, 0x2A6DF), (0x2A700, 0x2B73F),
       (0x2B740, 0x2B81F), (0x2B820, 0x2CEAF), (0xF900, 0xFAFF), (0x2F800, 0x2FA1F))


def normalise(text: str) -> str:
    """BERT's clean-up: whitespace becomes a space, control characters go, CJK characters stand
    apart, accents go (split into letter + mark, drop the mark), then lower case.

    >>> normalise("Crème\\tBRÛLÉE\\x07 東京")
    'creme brulee  東  京 '
    """
    kept = []
    for char in text:
        if char in "\t\n\r":
            kept.append(" ")
        elif unicodedata.category(char).startswith("C") or char == "\ufffd":
            continue
        elif char.isspace():
            kept.append(" ")
        else:
            is_cjk = any(low <= ord(char) <= high for low, high in CJK)
            kept.append(f" {char} " if is_cjk else char)
    split = unicodedata.normalize("NFD", "".join(kept))
    return "".join(char.lower() for char in split if unicodedata.category(char) != "Mn")


def split_words(text: str) -> list[str]:
    """Split normalised text on spaces; every punctuation mark is a word of its own.

    >>> split_words("don't stop, ok?")
    ['don', "'", 't', 'stop', ',', 'ok', '?']
    """
    words: list[str] = []
    current = ""
    for char in text:
        if char == " " or char in string.punctuation or unicodedata.category(char).startswith("P"):
            words.extend([current] if current else [])
            current = ""
            words.extend([] if char == " " else [char])
        else:
            current += char
    return words + ([current] if current else [])


class WordPiece:
    """Token ids from text, as the model was trained to read them.

    >>> vocab = {"[PAD]": 0, "[UNK]": 1, "[CLS]": 2, "[SEP]": 3, "play": 4, "##ing": 5, "##s": 6,
    ...          "!": 7}
    >>> WordPiece(vocab).encode("Playing plays PLAYZ!")
    [2, 4, 5, 4, 6, 1, 7, 3]
    """

    def __init__(self, vocab: dict[str, int], *, max_length: int = 256, max_word_chars: int = 100,
                 specials: Sequence[str] = ("[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]")):
        is_int = isinstance(max_length, int) and not isinstance(max_length, bool)
        if not is_int or not 2 < max_length <= 512:
            raise ValueError("max_length must be an int from 3 to 512 (the model's positions), "
                             f"got {max_length!r}")
        self.vocab = vocab
        self.max_length = max_length
        self.max_word_chars = max_word_chars
        self.specials = {s: vocab[s] for s in specials if s in vocab}
        # A special token written in the text ("[MASK]") is that token, never split.
        self.special_split = re.compile("(" + "|".join(map(re.escape, self.specials)) + ")")

    @classmethod
    def from_spec(cls, spec: dict, **options) -> "WordPiece":
        """The tokenizer a ``tokenizer.json`` file describes (its vocabulary and special tokens)."""
        return cls(spec["model"]["vocab"], max_word_chars=spec["model"]["max_input_chars_per_word"],
                   specials=[t["content"] for t in spec["added_tokens"]], **options)

    def pieces(self, word: str) -> list[int]:
        """Greedy longest match from the left; a word with any part not in the vocabulary is
        [UNK]."""
        if len(word) > self.max_word_chars:
            return [self.vocab["[UNK]"]]
        ids = []
        start = 0
        while start < len(word):
            for end in range(len(word), start, -1):
                piece = word[start:end] if start == 0 else "##" + word[start:end]
                if piece in self.vocab:
                    ids.append(self.vocab[piece])
                    start = end
                    break
            else:
                return [self.vocab["[UNK]"]]
        return ids

    def encode(self, text: str) -> list[int]:
        """[CLS], the pieces of every word, [SEP]; cut to ``max_length`` ids in all."""
        if not isinstance(text, str):
            raise TypeError(f"text must be a str, got {type(text).__name__}")
        ids: list[int] = []
        for part in self.special_split.split(text) if self.specials else [text]:
            if part in self.specials:
                ids.append(self.specials[part])
            else:
                ids.extend(i for word in split_words(normalise(part)) for i in self.pieces(word))
        return [self.vocab["[CLS]"], *ids[:self.max_length - 2], self.vocab["[SEP]"]]
