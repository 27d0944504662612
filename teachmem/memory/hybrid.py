"""Hybrid memory: entity facts, long-term memories and a conversation window in one token budget.

Every message goes to a sliding window, an entity memory and a semantic long-term store (MemGPT's
tiers, in miniature); one prompt is packed in order of value per token: entity facts (at most
``fact_share`` of the room), then long-term memories matching the question (at most ``memory_share``),
then the window, newest first, in what is left. The room is the budget minus the system prompt, the
user's message and the reply's reserve. Remembered text enters only as quoted data. :class:`PromptTrace`
records every candidate: scores, cost, kept or dropped, and why. Writes return the tiers' Changes,
each id prefixed with its tier ("window:m4", "entity:e2", "longterm:s5").

Taught in notebooks/06_hybrid_manager.ipynb.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from datetime import datetime

from teachmem.core.change import Change
from teachmem.core.text import fenced, forget_pattern, quote, scrubbed
from teachmem.core.tokens import TokenCounter, estimate_tokens
from teachmem.core.validate import (require_callable, require_datetime, require_fraction, require_int_at_least,
                                    require_positive_int, require_role, require_text, require_turn)
from teachmem.llm import LLM, OfflineLLM, score_importance
from teachmem.memory.entity import EntityMemory
from teachmem.memory.semantic import SemanticMemoryStore
from teachmem.memory.window import SlidingWindowMemory

DEFAULT_SYSTEM_PROMPT = "You are a helpful assistant."
SETTINGS = ("token_budget", "reserve_tokens", "fact_share", "memory_share", "memory_top_k",
            "min_importance", "system_prompt")
SOURCES = ("fact", "memory", "message")
TIERS = ("window", "entity", "longterm")
#: What the model sees of a message when asked how important it is: the head says what it is about,
#: and a pasted megabyte would cost as much to judge as to keep.
IMPORTANCE_CHARS = 4000


@dataclass(frozen=True)
class Candidate:
    """One thing that could go into the prompt, and what became of it."""

    source: str                 # "fact", "memory" or "message"
    text: str                   # what would be sent: the fenced line, or the message content
    turn: int | None            # where it came from
    tokens: int                 # what it costs (a fact or memory: what it adds to the system message)
    scores: dict                # the parts of its score, by name
    kept: bool
    reason: str                 # why it was kept or dropped


@dataclass
class PromptTrace:
    """The packing of one prompt: the budget, its split, and every candidate considered."""

    token_budget: int
    reserve_tokens: int
    fixed_tokens: int           # the system prompt, plus the user message when there is one
    caps: dict                  # the most facts and memories may use, in tokens
    messages: list[dict] = field(default_factory=list)
    candidates: list[Candidate] = field(default_factory=list)
    prompt_tokens: int = 0      # what the assembled prompt costs, counted as a whole

    @property
    def limit(self) -> int:
        """The most the prompt may cost: the budget minus the room kept for the reply."""
        return self.token_budget - self.reserve_tokens

    def used(self, source: str) -> int:
        """Tokens spent on kept candidates of one source."""
        return sum(c.tokens for c in self.candidates if c.source == source and c.kept)

    def kept(self, source: str | None = None) -> list[Candidate]:
        return [c for c in self.candidates if c.kept and source in (None, c.source)]

    def dropped(self, source: str | None = None) -> list[Candidate]:
        return [c for c in self.candidates if not c.kept and source in (None, c.source)]

    def split(self) -> dict[str, int]:
        """Where the budget went: fixed, facts, memories, window, reply reserve and what is left unused."""
        parts = {"fixed": self.fixed_tokens, **{s: self.used(s) for s in SOURCES}}
        parts["unused"] = max(self.limit - self.prompt_tokens, 0)
        parts["reply"] = self.reserve_tokens
        return parts

    def table(self, width: int = 58) -> str:
        """Every candidate on one line: kept ✓ or dropped ✗, source, turn, tokens, scores, why."""
        lines = [f"prompt {self.prompt_tokens:,} of {self.limit:,} tokens (budget {self.token_budget:,} "
                 f"− {self.reserve_tokens:,} for the reply); caps: facts {self.caps['fact']:,}, "
                 f"memories {self.caps['memory']:,}"]
        for c in self.candidates:
            text = c.text if len(c.text) <= width else c.text[:width - 1] + "…"
            scores = " ".join(f"{k}={v:g}" for k, v in c.scores.items())
            turn = "" if c.turn is None else c.turn
            lines.append(f"{'✓' if c.kept else '✗'} {c.source:<7} {turn:>3} {c.tokens:>4}  {text:<{width}}  "
                         f"{scores}  · {c.reason}")
        return "\n".join(lines)


def _snapshot(tier) -> dict:
    """A tier's attributes, lists and dicts copied: enough to undo a write that appends or replaces."""
    return {k: v.copy() if isinstance(v, (list, dict)) else v for k, v in vars(tier).items()}


def _tier_changes(tier: str, changes) -> list[Change]:
    """A tier's Changes, each id prefixed with the tier ("entity:e2")."""
    return [replace(c, id=f"{tier}:{c.id}") for c in changes or []]


class HybridMemoryManager:
    """Entity facts + long-term memories + a conversation window, within ``token_budget``.

    Taught in notebooks/06_hybrid_manager.ipynb.
    """

    kind = "hybrid"

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
        self.count_tokens = require_callable("token_counter", token_counter)
        self.llm = require_callable("llm", llm, "complete") or OfflineLLM()   # judges which moments to keep
        self._room(require_text("system_prompt", system_prompt), None)   # too big a prompt fails here, early
        self.system_prompt = system_prompt
        self.window = SlidingWindowMemory(recent_k, important_k)
        self.entity = EntityMemory(clock=require_callable("clock", clock))
        self.clock = self.entity.clock                    # one clock for every tier
        self.longterm = SemanticMemoryStore(clock=self.clock)
        self.last_turn: int | None = None
        self.now: datetime | None = None                  # when the latest message was said

    # -- writing -----------------------------------------------------------------
    def add_message(self, role: str, content: str, turn: int | None = None, *,
                    timestamp: datetime | None = None) -> list[Change]:
        """Give one message to every tier, all or nothing; return every tier's Changes.

        Checks and the model call come first; if a tier still fails, the tiers
        already written are put back, so the same turn can be tried again.
        """
        require_role("role", role)
        require_text("content", content, allow_empty=True)
        turn = require_turn("turn", turn, self.last_turn)
        when = require_datetime("timestamp", timestamp)
        # Asking the model how much a message matters keeps "I prefer pytest" and skips a
        # long "haha, not now", where a length rule would do the opposite. The model sees
        # the head of a long message: that says what it is about, and costs no more to judge.
        importance = score_importance(self.llm, content[:IMPORTANCE_CHARS]) if role == "user" else 0.0
        undo = [(tier, _snapshot(tier)) for tier in (self.window, self.entity)]
        try:
            changes = _tier_changes("window", self.window.add(role, content, turn=turn, timestamp=when))
            changes += _tier_changes("entity", self.entity.add(role, content, turn=turn, timestamp=when))
            if content.strip() and importance >= self.min_importance:   # an empty message is no memory
                changes += _tier_changes("longterm", self.longterm.store(content, "message", importance, when,
                                                                         turn=turn))
        except Exception:
            for tier, attributes in undo:
                vars(tier).update(attributes)
            raise
        self.last_turn, self.now = turn, when or self.now
        return changes

    def add(self, role: str, content: str, *, turn: int | None = None,
            timestamp: datetime | None = None) -> list[Change]:
        return self.add_message(role, content, turn, timestamp=timestamp)

    def erase(self, pattern: re.Pattern) -> list[Change]:
        """Remove every copy of what ``pattern`` matches from every tier; their Changes, ids prefixed."""
        return [c for name in TIERS for c in _tier_changes(name, getattr(self, name).erase(pattern))]

    def forget(self, text_or_pattern: str | re.Pattern) -> list[Change]:
        """Forget a text (any spacing, any case) or a ``re`` pattern in every tier; what was removed,
        itself without the forgotten text (the report must not be one more copy).

        For an audit that also cleans a database, see ``teachmem.forget``.
        Taught in notebooks/09_persistence_and_governance.ipynb.
        """
        pattern = forget_pattern(text_or_pattern)
        return scrubbed(self.erase(pattern), pattern)

    # -- reading: the packing ----------------------------------------------------
    def assemble_prompt(self, user_message: str, system_prompt: str | None = None) -> list[dict]:
        """The messages to send: system (with facts and memories), the window, then ``user_message``."""
        return self.explain_prompt(user_message, system_prompt).messages

    def explain_prompt(self, user_message: str, system_prompt: str | None = None) -> PromptTrace:
        """The same packing, with every candidate, its scores, its cost and why it was kept or dropped."""
        require_text("user_message", user_message)
        return self._pack(user_message, self.system_prompt if system_prompt is None else system_prompt, user_message)

    def context(self, query: str | None = None) -> list[dict]:
        """What would be sent now (the latest message is already in the window); ``query`` ranks."""
        if query is not None:
            require_text("query", query, allow_empty=True)
        return self._pack(query, self.system_prompt, None).messages if self.last_turn is not None else []

    def _room(self, system_prompt: str, user_message: str | None) -> int:
        """Tokens left for memory: the budget minus the reply's reserve, the system prompt and the
        question; a ``ValueError`` naming the sizes when they do not fit at all."""
        limit, system, user = self.token_budget - self.reserve_tokens, self.count_tokens(system_prompt), \
            self.count_tokens(user_message or "")
        if system + user > limit:
            plus = f" plus the user message ({user} tokens)" if user else ""
            raise ValueError(f"token_budget {self.token_budget} leaves {limit} tokens for the prompt after "
                             f"reserving {self.reserve_tokens} for the reply: less than the system prompt "
                             f"({system} tokens){plus}")
        return limit - system - user

    def _pack(self, query: str | None, system_prompt: str, user_message: str | None) -> PromptTrace:
        """Facts, then memories, each within its share of the room, then the window in what is left."""
        room = self._room(require_text("system_prompt", system_prompt), user_message)
        trace = PromptTrace(self.token_budget, self.reserve_tokens, self.token_budget - self.reserve_tokens - room,
                            {"fact": int(room * self.fact_share), "memory": int(room * self.memory_share)})
        system = self._add_fenced(system_prompt, "Known facts", self._ranked_facts(query), trace, "fact")
        system = self._add_fenced(system, "Relevant memories", self._ranked_memories(query), trace, "memory")
        left = trace.limit - self.count_tokens(system) - self.count_tokens(user_message or "")
        kept = self._add_window(left, trace)
        trace.messages = ([{"role": "system", "content": system}] + kept
                          + ([{"role": "user", "content": user_message}] if user_message is not None else []))
        trace.prompt_tokens = sum(self.count_tokens(m["content"]) for m in trace.messages)
        return trace

    def _ranked_facts(self, query: str | None) -> list[tuple]:
        """Current facts, those sharing most words with the query first (then the surest, then the oldest);
        each says what it replaced."""
        changes = {(c["entity"], c["attribute"]): c for c in self.entity.get_changelog()}
        out = []
        for f in self.entity.facts():
            change = changes.get((f.entity, f.attribute))
            text = f.line + (f" (since turn {change['turn']}, was {change['old']})" if change else "")
            out.append((f.valid_from, quote(text), {"overlap": f.shares(query), "confidence": f.confidence}))
        return sorted(out, key=lambda c: (-c[2]["overlap"], -c[2]["confidence"], c[0]))

    def _ranked_memories(self, query: str | None) -> list[tuple]:
        """The store's best matches for the query, skipping those the window still holds."""
        if not query or not query.strip() or not len(self.longterm):
            return []
        in_window = set(self.window.window_turns())
        hits = [(self.longterm.metadata[h["row"]].get("turn"), h)   # stored directly: no turn
                for h in self.longterm.explain(query, len(self.longterm), now=self.now)]
        parts = [k for k in ("relevance", "importance", "decay", "recency", "score") if hits and k in hits[0][1]]
        return [(turn, quote(h["text"]), {k: round(h[k], 3) for k in parts})   # the store's scoring's parts
                for turn, h in hits if turn not in in_window][:self.memory_top_k]

    def _add_fenced(self, system: str, header: str, candidates, trace: PromptTrace, source: str) -> str:
        """Append a fenced block to ``system``, one candidate line at a time, while the block fits its cap.

        Costs are counted on the whole text, never summed line by line, so a
        counter that rounds cannot push the total past what was checked.
        """
        def with_block(lines):
            return f"{system}\n\n{fenced(header, lines)}" if lines else system

        cap, lines = trace.caps[source], list[str]()
        base = before = self.count_tokens(system)
        for turn, line, scores in candidates:
            after = self.count_tokens(with_block(lines + [line]))
            fits = after - base <= cap
            reason = "within the cap" if fits else f"would pass the {source} cap of {cap} tokens"
            trace.candidates.append(Candidate(source, line, turn, after - before, scores, fits, reason))
            if fits:
                lines.append(line)
                before = after
        return with_block(lines)

    def _add_window(self, left: int, trace: PromptTrace) -> list[dict]:
        """The window's messages that fit in ``left`` tokens, oldest first. Walks newest first and stops
        at the first one that does not fit: a gap mid-conversation makes the next reply hard to follow."""
        window, kept, full = self.window, [], False
        in_window = set(window.window_indices())
        for i in reversed(range(len(window.all_messages))):
            m = window.all_messages[i]
            cost = self.count_tokens(m.content)
            full = full or (i in in_window and cost > left)
            fits = i in in_window and not full
            reason = ("outside the window: not recent, not important enough" if i not in in_window
                      else "in the window, fits" if fits else f"in the window, but the budget is full: {left} left")
            trace.candidates.append(Candidate("message", m.content, m.turn, cost,
                                              {"importance": window.importance[i]}, fits, reason))
            if fits:
                kept.append(m.as_dict())
                left -= cost
        return kept[::-1]

    # -- save and load -------------------------------------------------------------
    def to_state(self) -> dict:
        """Settings and the state of each tier, as JSON-ready data."""
        return {**{name: getattr(self, name) for name in SETTINGS}, "last_turn": self.last_turn,
                "now": self.now.isoformat() if self.now else None,
                **{name: getattr(self, name).to_state() for name in TIERS}}

    @classmethod
    def from_state(cls, state: dict, *, llm: LLM | None = None, clock=None,
                   token_counter: TokenCounter = estimate_tokens) -> "HybridMemoryManager":
        """Rebuild from ``to_state()``; model and token counter are not state, so pass them again.
        Without a ``clock`` the tiers share one that resumes at the saved time."""
        manager = cls(**{name: state[name] for name in SETTINGS}, llm=llm, clock=clock, token_counter=token_counter)
        manager.last_turn = state["last_turn"]
        manager.window = SlidingWindowMemory.from_state(state["window"])
        manager.longterm = SemanticMemoryStore.from_state(state["longterm"], clock=clock)
        manager.clock = manager.longterm.clock
        manager.entity = EntityMemory.from_state(state["entity"], clock=manager.clock)
        manager.now = datetime.fromisoformat(state["now"]) if state["now"] else None
        return manager
