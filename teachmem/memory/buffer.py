"""Conversation buffer: remember everything, resend everything.

The simplest memory is none at all: keep every message and send the whole
history with each request. It never forgets (until the context window
overflows) and it costs the most, because every turn pays again for all the
turns before it.

Taught in notebooks/01_conversation_buffer.ipynb.
"""
from __future__ import annotations

import re
from datetime import datetime

from teachmem.core.change import Change
from teachmem.core.tokens import TOKENS_PER_WORD, TokenCounter, words_estimator
from teachmem.core.validate import require_callable, require_positive_int
from teachmem.memory.message import (Message, erase_messages, message_records, next_message,
                                     position, restore_messages)


class ConversationBuffer:
    """Store every message and send them all.

    ``max_tokens`` is the model's context size; the buffer does not enforce
    it, it only warns (``is_near_limit``) so the application can react.

    Taught in notebooks/01_conversation_buffer.ipynb.
    """

    kind = "buffer"

    def __init__(self, max_tokens: int = 4096, tokens_per_word: float = TOKENS_PER_WORD,
                 *, token_counter: TokenCounter | None = None):
        self.max_tokens = require_positive_int("max_tokens", max_tokens)
        require_callable("token_counter", token_counter)
        self.tokens_per_word = tokens_per_word
        self.count_tokens = token_counter or words_estimator(tokens_per_word)
        self.messages: list[Message] = []
        self._tokens: list[int] = []   # counted once, when the message arrives
        self.arrived = 0               # messages ever added: the next id is m{arrived + 1}

    def add(self, role: str, content: str, *, turn: int | None = None,
            timestamp: datetime | None = None) -> list[Change]:
        """Append a message. Validates first, so a bad call stores nothing.

        Returns what changed: one ADD, the new message under its id.
        """
        after = self.messages[-1].turn if self.messages else None
        number = self.arrived + 1
        message = next_message(role, content, turn, timestamp, after=after, number=number)
        tokens = self.count_tokens(content)
        self.messages.append(message)
        self._tokens.append(tokens)
        self.arrived += 1
        return [Change("ADD", str(message.id), message.text, reason="new message")]

    def context(self, query: str | None = None) -> list[dict]:
        """Every message, oldest first, as the chat API wants them: the query is ignored."""
        return [m.as_dict() for m in self.messages]

    def get_messages(self) -> list[dict]:
        """The same as ``context()``: every message, oldest first."""
        return self.context()

    def token_count(self) -> int:
        """Tokens the next request will spend on history alone."""
        return sum(self._tokens)

    def is_near_limit(self, threshold: float = 0.85) -> bool:
        """True once the history fills more than ``threshold`` of the window."""
        is_number = isinstance(threshold, (int, float)) and not isinstance(threshold, bool)
        if not is_number or not 0 < threshold <= 1:
            raise ValueError(f"threshold must be a number in (0, 1], got {threshold!r}")
        return self.token_count() > self.max_tokens * threshold

    # ---- Going further (09: forgetting, retention, provenance and saving) ----
    def erase(self, pattern: re.Pattern) -> list[Change]:
        """Redact what ``pattern`` matches in every message (``teachmem.forget`` calls this)."""
        self.messages, changes = erase_messages(self.messages, pattern)
        self._tokens = [self.count_tokens(m.content) for m in self.messages]
        return changes

    def delete(self, id: str) -> list[Change]:
        """Remove the message ``id`` (retention calls this)."""
        i = position(self.messages, id)
        gone = self.messages.pop(i)
        self._tokens.pop(i)
        return [Change("DELETE", id, gone.text, reason="deleted")]

    def provenance(self) -> list[dict]:
        """Every stored item with where it came from (read by ``teachmem.lab.governance``)."""
        return message_records(self.messages)

    def to_state(self) -> dict:
        """Settings and messages, as JSON-ready data (not the token counter)."""
        return {"max_tokens": self.max_tokens, "tokens_per_word": self.tokens_per_word,
                "messages": [m.to_state() for m in self.messages], "arrived": self.arrived}

    @classmethod
    def from_state(cls, state: dict, *,
                   token_counter: TokenCounter | None = None) -> "ConversationBuffer":
        """A buffer as ``to_state`` saved it; its tokens are counted again."""
        buffer = cls(state["max_tokens"], state["tokens_per_word"], token_counter=token_counter)
        buffer.messages = restore_messages(state["messages"])
        buffer._tokens = [buffer.count_tokens(m.content) for m in buffer.messages]
        buffer.arrived = state.get("arrived", len(buffer.messages))
        return buffer
