"""Conversation buffer: remember everything, resend everything.

The simplest memory is none at all: keep every message and send the whole
history with each request. It never forgets (until the context window
overflows) and it costs the most, because every turn pays again for all the
turns before it.

Taught in notebooks/01_conversation_buffer.ipynb.
"""
from __future__ import annotations

from datetime import datetime

from teachmem.memory.message import Message, next_message
from teachmem.core.tokens import TOKENS_PER_WORD, TokenCounter, words_estimator
from teachmem.core.validate import require_positive_int


class ConversationBuffer:
    """Store every message and send them all.

    ``max_tokens`` is the model's context size; the buffer does not enforce
    it, it only warns (``is_near_limit``) so the application can react.

    Taught in notebooks/01_conversation_buffer.ipynb.
    """

    def __init__(self, max_tokens: int = 4096, tokens_per_word: float = TOKENS_PER_WORD,
                 *, token_counter: TokenCounter | None = None):
        self.max_tokens = require_positive_int("max_tokens", max_tokens)
        self.tokens_per_word = tokens_per_word
        self.count_tokens = token_counter or words_estimator(tokens_per_word)
        self.messages: list[Message] = []
        self._tokens: list[int] = []   # counted once, when the message arrives

    def add(self, role: str, content: str, *, turn: int | None = None,
            timestamp: datetime | None = None) -> None:
        """Append a message. Validates first, so a bad call stores nothing."""
        after = self.messages[-1].turn if self.messages else None
        message = next_message(role, content, turn, timestamp, after=after)
        self.messages.append(message)
        self._tokens.append(self.count_tokens(content))

    def get_messages(self) -> list[dict]:
        """Every message, oldest first, as the chat API wants them."""
        return [m.as_dict() for m in self.messages]

    def context(self, query: str | None = None) -> list[dict]:
        """The buffer ignores the query: it always sends everything."""
        return self.get_messages()

    def token_count(self) -> int:
        """Tokens the next request will spend on history alone."""
        return sum(self._tokens)

    def is_near_limit(self, threshold: float = 0.85) -> bool:
        """True once the history fills more than ``threshold`` of the window."""
        if isinstance(threshold, bool) or not isinstance(threshold, (int, float)) or not 0 < threshold <= 1:
            raise ValueError(f"threshold must be a number in (0, 1], got {threshold!r}")
        return self.token_count() > self.max_tokens * threshold

    def to_state(self) -> dict:
        return {"max_tokens": self.max_tokens, "tokens_per_word": self.tokens_per_word,
                "messages": [m.to_state() for m in self.messages]}

    @classmethod
    def from_state(cls, state: dict, *, token_counter: TokenCounter | None = None) -> "ConversationBuffer":
        buffer = cls(state["max_tokens"], state["tokens_per_word"], token_counter=token_counter)
        for m in map(Message.from_state, state["messages"]):
            buffer.add(m.role, m.content, turn=m.turn, timestamp=m.timestamp)
        return buffer
