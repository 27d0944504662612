import pytest

from teachmem.core.tokens import (chars_estimate, count_message_tokens, estimate_tokens, from_tokenizer,
                                  words_estimator)
from teachmem.memory.token_window import truncate_to_tokens


def test_default_is_words_times_1_3():
    assert estimate_tokens("") == 0
    assert estimate_tokens("one two three") == 3          # int(3.9)
    assert estimate_tokens("I'm building a web app with React and PostgreSQL") == 11
    assert estimate_tokens(" ".join(["w"] * 100)) == 130


def test_chars_estimate_rounds_up():
    assert chars_estimate("") == 0
    assert chars_estimate("abcd") == 1
    assert chars_estimate("abcde") == 2


def test_words_estimator_validates():
    assert words_estimator(2)("a b c") == 6
    for bad in (0, -1, float("nan"), "1.3", True):
        with pytest.raises(ValueError, match="tokens_per_word"):
            words_estimator(bad)


def test_from_tokenizer_counts_pieces():
    count = from_tokenizer(lambda text: text.split("-"))
    assert count("a-b-c") == 3
    with pytest.raises(TypeError, match="encode"):
        from_tokenizer("not a function")


def test_count_message_tokens():
    assert count_message_tokens([{"role": "user", "content": "a b c"}, {"role": "user", "content": "d"}]) == 4


@pytest.mark.parametrize("limit", [6, 17, 40, 99])
def test_truncate_fits_and_marks(limit):
    text = " ".join(f"word{i}" for i in range(200))
    cut = truncate_to_tokens(text, limit)
    assert estimate_tokens(cut) <= limit
    assert cut.startswith("word0")
    assert "[… truncated" in cut


def test_truncate_leaves_short_text_alone():
    assert truncate_to_tokens("short text", 10) == "short text"
    with pytest.raises(ValueError, match="max_tokens"):
        truncate_to_tokens("x", 0)
    with pytest.raises(ValueError, match="room for the truncation marker"):
        truncate_to_tokens("word " * 100, 3)
