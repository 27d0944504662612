"""Token-budget window: keep as many recent messages as fit in a token budget.

Counting messages is a poor proxy for cost: one pasted stack trace can weigh
more than twenty short replies. This window counts tokens instead. It keeps
room for the model's reply, keeps system messages (the instructions) always,
drops the oldest other messages until the rest fit, and cuts a single
message that is too large on its own, with a visible marker, rather than
dropping it whole.

Taught in notebooks/02_sliding_window.ipynb.
"""
from __future__ import annotations

from dataclasses import replace
from datetime import datetime

from teachmem.memory.message import Message, next_message
from teachmem.core.tokens import TokenCounter, estimate_tokens, truncate_to_tokens
from teachmem.core.validate import require_int_at_least, require_positive_int

# A truncated message keeps at least a few words and its marker.
MIN_ROOM = 16


class TokenBudgetWindow:
    """Recent messages within ``max_tokens - reserve_tokens`` tokens.

    Taught in notebooks/02_sliding_window.ipynb.
    """

    def __init__(self, max_tokens: int = 4096, reserve_tokens: int = 512,
                 *, token_counter: TokenCounter = estimate_tokens):
        require_positive_int("max_tokens", max_tokens)
        require_int_at_least("reserve_tokens", reserve_tokens, 0)
        if max_tokens - reserve_tokens < MIN_ROOM:
            raise ValueError(f"max_tokens - reserve_tokens must leave at least {MIN_ROOM} tokens "
                             f"for messages, got {max_tokens} - {reserve_tokens}")
        self.max_tokens = max_tokens
        self.reserve_tokens = reserve_tokens
        self.count_tokens = token_counter
        self.messages: list[Message] = []   # what is in the window now
        self.tokens: list[int] = []
        self.last_turn: int | None = None   # turns keep counting after messages drop out
        self.dropped_turns: list[int] = []  # oldest first: what fell out, for teaching

    @property
    def capacity(self) -> int:
        """Tokens available for messages: the budget minus the reply's reserve."""
        return self.max_tokens - self.reserve_tokens

    def estimated_tokens(self) -> int:
        return sum(self.tokens)

    def remaining_capacity(self) -> int:
        return self.capacity - self.estimated_tokens()

    def add(self, role: str, content: str, *, turn: int | None = None,
            timestamp: datetime | None = None) -> None:
        message = next_message(role, content, turn, timestamp, after=self.last_turn)
        pinned = sum(t for m, t in zip(self.messages, self.tokens) if m.role == "system")
        room = self.capacity - pinned   # the most any one new message may use
        needed = self.count_tokens(content)
        if role == "system" and needed > room:
            raise ValueError(f"system messages would need {pinned + needed} tokens "
                             f"but the window holds {self.capacity}")
        if role != "system" and room < MIN_ROOM:
            raise ValueError(f"system messages leave only {room} tokens for the conversation")
        if needed > room:
            message = replace(message, content=truncate_to_tokens(content, room, self.count_tokens))
        self.messages.append(message)
        self.tokens.append(self.count_tokens(message.content))
        self.last_turn = message.turn
        self._trim()

    def _trim(self) -> None:
        """Drop the oldest non-system messages until the window fits."""
        while self.estimated_tokens() > self.capacity:
            oldest = next(i for i, m in enumerate(self.messages) if m.role != "system")
            self.dropped_turns.append(self.messages.pop(oldest).turn)
            self.tokens.pop(oldest)

    def window_turns(self) -> list[int]:
        return [m.turn for m in self.messages]

    def context(self, query: str | None = None) -> list[dict]:
        return [m.as_dict() for m in self.messages]

    def to_state(self) -> dict:
        return {"max_tokens": self.max_tokens, "reserve_tokens": self.reserve_tokens,
                "messages": [m.to_state() for m in self.messages], "tokens": list(self.tokens),
                "last_turn": self.last_turn, "dropped_turns": list(self.dropped_turns)}

    @classmethod
    def from_state(cls, state: dict, *, token_counter: TokenCounter = estimate_tokens) -> "TokenBudgetWindow":
        window = cls(state["max_tokens"], state["reserve_tokens"], token_counter=token_counter)
        window.messages = [Message.from_state(m) for m in state["messages"]]
        window.tokens = list(state["tokens"])
        window.last_turn = state["last_turn"]
        window.dropped_turns = list(state["dropped_turns"])
        return window
