"""Hybrid memory: entity facts, long-term memories and a conversation window in one token budget.

This manager feeds every message to a sliding window, an entity memory and a
semantic long-term store, then packs one prompt, in order of value per token:

1. entity facts first: a whole decision in a few tokens (at most ``fact_share``
   of the room);
2. long-term memories next: older moments that match the question (at most
   ``memory_share``);
3. the conversation window fills what is left, newest message first.

The room is the budget minus the system prompt, the user's message and a
reserve for the reply. Unlike seed 000's, the prompt never exceeds the budget,
and remembered text enters the system message only as quoted data
(``teachmem.core.packing``), so a stored "ignore previous instructions" is never
an instruction.

Taught in notebooks/06_hybrid_manager.ipynb.
"""
from __future__ import annotations

from datetime import datetime

from teachmem.core.clock import ManualClock
from teachmem.llm import LLM, OfflineLLM, score_importance
from teachmem.memory.entity import EntityMemory
from teachmem.memory.message import next_message
from teachmem.memory.semantic import SemanticMemoryStore
from teachmem.memory.window import SlidingWindowMemory
from teachmem.core.packing import PromptTrace, add_fenced, add_window, room_for_memory, shared_words
from teachmem.core.text import quote
from teachmem.core.state import hybrid_from_state, hybrid_state
from teachmem.core.tokens import TokenCounter, estimate_tokens
from teachmem.core.validate import require_fraction, require_int_at_least, require_positive_int, require_text

DEFAULT_SYSTEM_PROMPT = "You are a helpful assistant."
SETTINGS = ("token_budget", "reserve_tokens", "fact_share", "memory_share", "memory_top_k",
            "min_importance", "system_prompt")


class HybridMemoryManager:
    """Entity facts + long-term memories + a conversation window, within ``token_budget``.

    Taught in notebooks/06_hybrid_manager.ipynb.
    """

    def __init__(self, token_budget: int = 3500, *, reserve_tokens: int = 500, fact_share: float = 0.15,
                 memory_share: float = 0.15, recent_k: int = 10, important_k: int = 3, memory_top_k: int = 3,
                 min_importance: float = 0.5, system_prompt: str = DEFAULT_SYSTEM_PROMPT,
                 llm: LLM | None = None, clock=None, token_counter: TokenCounter = estimate_tokens):
        self.token_budget = require_positive_int("token_budget", token_budget)
        self.reserve_tokens = require_int_at_least("reserve_tokens", reserve_tokens, 0)
        self.fact_share = require_fraction("fact_share", fact_share)
        self.memory_share = require_fraction("memory_share", memory_share)
        if fact_share + memory_share > 1:
            raise ValueError(f"fact_share + memory_share must be at most 1, got {fact_share} + {memory_share}")
        self.memory_top_k = require_positive_int("memory_top_k", memory_top_k)
        self.min_importance = require_fraction("min_importance", min_importance)
        self.count_tokens = token_counter
        self._room(require_text("system_prompt", system_prompt), None)   # too big a prompt fails here, early
        self.system_prompt = system_prompt
        self.clock = clock or ManualClock()   # one clock for every tier
        self.window = SlidingWindowMemory(recent_k, important_k)
        self.entities = EntityMemory(clock=self.clock)
        self.longterm = SemanticMemoryStore(clock=self.clock)
        self.llm = OfflineLLM() if llm is None else llm   # judges which moments are worth keeping
        self.last_turn: int | None = None
        self.now: datetime | None = None                  # when the latest message was said

    def add_message(self, role: str, content: str, turn: int | None = None, *,
                    timestamp: datetime | None = None) -> None:
        """Give one message to every memory. Checks and the model call come before any change."""
        message = next_message(role, content, turn, timestamp, after=self.last_turn)
        # Seed 000 kept every user message over 15 words; asking the model how much
        # a message matters keeps "I prefer pytest" and skips a long "haha, not now".
        importance = score_importance(self.llm, content) if role == "user" else 0.0
        self.window.add(role, content, turn=message.turn, timestamp=timestamp)
        self.entities.add(role, content, turn=message.turn, timestamp=timestamp)
        if content.strip() and importance >= self.min_importance:   # an empty message is no memory
            self.longterm.store(content, "message", importance, timestamp, turn=message.turn)
        self.last_turn, self.now = message.turn, timestamp or self.now

    def add(self, role: str, content: str, *, turn: int | None = None, timestamp: datetime | None = None) -> None:
        self.add_message(role, content, turn, timestamp=timestamp)

    def assemble_prompt(self, user_message: str, system_prompt: str | None = None) -> list[dict]:
        """The messages to send: system (with facts and memories), the window, then ``user_message``."""
        return self.explain_prompt(user_message, system_prompt).messages

    def explain_prompt(self, user_message: str, system_prompt: str | None = None) -> PromptTrace:
        """The same packing, with every candidate, its scores, its cost and why it was kept or dropped."""
        require_text("user_message", user_message)
        return self._pack(user_message, self.system_prompt if system_prompt is None else system_prompt, user_message)

    def context(self, query: str | None = None) -> list[dict]:
        """What would be sent now (the latest message is already in the window); ``query`` ranks."""
        return self._pack(query, self.system_prompt, None).messages if self.last_turn is not None else []

    def _room(self, system_prompt: str, user_message: str | None) -> int:
        """Tokens left for memory: the budget minus the reply's reserve, the system prompt and the question."""
        return room_for_memory(self.token_budget, self.reserve_tokens, self.count_tokens(system_prompt),
                               self.count_tokens(user_message or ""))

    def _pack(self, query: str | None, system_prompt: str, user_message: str | None) -> PromptTrace:
        room = self._room(require_text("system_prompt", system_prompt), user_message)
        trace = PromptTrace(self.token_budget, self.reserve_tokens, self.token_budget - self.reserve_tokens - room,
                            {"fact": int(room * self.fact_share), "memory": int(room * self.memory_share)})
        system = add_fenced(system_prompt, "Known facts", self._facts(query), trace, "fact", self.count_tokens)
        system = add_fenced(system, "Relevant memories", self._memories(query), trace, "memory", self.count_tokens)
        # The window gets the rest, newest first, and stops at the first message that does not
        # fit: a gap in the middle of a conversation would make the next reply hard to follow.
        left = trace.limit - self.count_tokens(system) - self.count_tokens(user_message or "")
        kept = add_window(self.window, left, trace, self.count_tokens)
        trace.messages = ([{"role": "system", "content": system}] + [m.as_dict() for m in kept]
                          + ([{"role": "user", "content": user_message}] if user_message is not None else []))
        trace.prompt_tokens = sum(self.count_tokens(m["content"]) for m in trace.messages)
        return trace

    def _facts(self, query: str | None) -> list[tuple]:
        """Current facts, those sharing most words with the query first; each says what it replaced."""
        changes = {(c["entity"], c["attribute"]): c for c in self.entities.get_changelog()}
        out = []
        for f in self.entities.facts():
            change = changes.get((f.entity, f.attribute))
            text = f"{f.entity}.{f.attribute} = {f.value}" + (
                f" (since turn {change['turn']}, was {change['old']})" if change else "")
            out.append((f.valid_from, quote(text), {"overlap": shared_words(query, text), "confidence": f.confidence}))
        return sorted(out, key=lambda c: (-c[2]["overlap"], -c[2]["confidence"], c[0]))

    def _memories(self, query: str | None) -> list[tuple]:
        """The store's best matches for the query, skipping those the window still holds."""
        if not query or not query.strip() or not len(self.longterm):
            return []
        in_window = set(self.window.window_turns())
        hits = [(self.longterm.metadata[h["row"]].get("turn"), h)   # stored directly: no turn
                for h in self.longterm.explain(query, len(self.longterm), now=self.now)]
        return [(turn, quote(h["text"]), {k: round(h[k], 3) for k in ("relevance", "importance", "decay", "score")})
                for turn, h in hits if turn not in in_window][:self.memory_top_k]

    def forget(self, text_or_pattern, db=None, *, user_id: str | None = None):
        """Remove a text (or ``re`` pattern) from every tier, and from ``user_id``'s saved copies in ``db``.

        Returns an audit, tier by tier, of the copies still reachable (all 0).
        Taught in notebooks/09_persistence_and_governance.ipynb.
        """
        from teachmem.lab.governance import forget   # lab equipment: the same for every strategy
        return forget(self, text_or_pattern, db, user_id=user_id)

    def to_state(self) -> dict:
        return hybrid_state(self, SETTINGS)

    @classmethod
    def from_state(cls, state: dict, *, llm: LLM | None = None, clock=None,
                   token_counter: TokenCounter = estimate_tokens) -> "HybridMemoryManager":
        """Rebuild from ``to_state()``; model and token counter are not state, so pass them again.
        Without a ``clock`` the tiers share one that resumes at the saved time."""
        return hybrid_from_state(cls, state, SETTINGS, llm=llm, clock=clock, token_counter=token_counter)
