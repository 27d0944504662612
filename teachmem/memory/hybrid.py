"""Hybrid memory: entity facts, long-term memories and a conversation window in one token budget.

Every message goes to three parts (MemGPT's tiers, in miniature): a sliding window, an entity
memory and, when it matters enough, a semantic long-term store. A prompt is packed by value per
token: entity facts (at most ``fact_share`` of the room), then long-term memories matching the
question (at most ``memory_share``), then the window, newest first, in what is left. The room is
the budget minus the reply's reserve, the system prompt and the user's message. Remembered text
enters only as quoted data. A :class:`PromptTrace` says what went in, what was cut, and why.
Going further: saving (09: its parts only through ``parts``); a layout for a prompt cache (13).

Taught in notebooks/06_hybrid_manager.ipynb.
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace
from datetime import datetime

from teachmem.core.change import Change
from teachmem.core.text import fenced, quote
from teachmem.core.tokens import (TokenCounter, count_message_tokens, estimate_tokens,
                                  prefix_tokens, prompt_pieces, shared_pieces)
from teachmem.core.validate import (require_callable, require_choice, require_datetime,
                                    require_fraction, require_int_at_least, require_positive_int,
                                    require_role, require_text, require_turn)
from teachmem.llm import LLM, OfflineLLM, score_importance
from teachmem.memory.entity import EntityMemory
from teachmem.memory.semantic import SemanticMemoryStore
from teachmem.memory.window import SlidingWindowMemory

DEFAULT_SYSTEM_PROMPT = "You are a helpful assistant."
#: What the model sees of a message when asked how important it is: the head says what the
#: message is about, and a pasted megabyte would cost as much to judge as to keep.
IMPORTANCE_CHARS = 4000
SCORE_PARTS = ("relevance", "importance", "decay", "recency", "score")
SETTINGS = ("token_budget", "reserve_tokens", "fact_share", "memory_share", "memory_top_k",
            "min_importance", "system_prompt", "layout")


@dataclass(frozen=True)
class Candidate:
    """One thing that could go into the prompt, and what became of it."""

    source: str         # "fact", "memory" or "message"
    text: str           # what would be sent: the quoted line, or the message's content
    turn: int | None    # where it came from
    tokens: int         # its cost (a fact or memory: what it adds to the system message)
    scores: dict        # the parts of its score, by name
    kept: bool
    reason: str         # why it was kept or dropped


@dataclass
class PromptTrace:
    """The packing of one prompt: the budget, its caps, and every candidate considered."""

    token_budget: int
    reserve_tokens: int
    fixed_tokens: int   # the system prompt, plus the user message when there is one
    caps: dict          # the most facts and memories may use, in tokens
    messages: list[dict] = field(default_factory=list)
    candidates: list[Candidate] = field(default_factory=list)
    prompt_tokens: int = 0   # what the assembled prompt costs, counted as a whole
    cache_hit_rate: float = 0.0   # the share of it the previous prompt opened with (13)

    @property
    def limit(self) -> int:
        """The most the prompt may cost: the budget minus the room kept for the reply."""
        return self.token_budget - self.reserve_tokens

    def kept(self, source: str | None = None) -> list[Candidate]:
        return [c for c in self.candidates if c.kept and source in (None, c.source)]

    def dropped(self, source: str | None = None) -> list[Candidate]:
        return [c for c in self.candidates if not c.kept and source in (None, c.source)]

    def used(self, source: str) -> int:
        """Tokens spent on the kept candidates of one source."""
        return sum(c.tokens for c in self.kept(source))

    def split(self) -> dict[str, int]:
        """Where the budget went: fixed, each source, what is left unused, the reply's reserve."""
        return {"fixed": self.fixed_tokens, "fact": self.used("fact"),
                "memory": self.used("memory"), "message": self.used("message"),
                "unused": max(self.limit - self.prompt_tokens, 0), "reply": self.reserve_tokens}


def tier_changes(tier: str, changes: list[Change]) -> list[Change]:
    """A part's Changes, each id prefixed with its name ("entity:e2")."""
    return [replace(change, id=f"{tier}:{change.id}") for change in changes]


def _snapshot(part) -> dict:
    """A part's attributes, lists and dicts copied: enough to undo a write that appends."""
    return {k: v.copy() if isinstance(v, (list, dict)) else v for k, v in vars(part).items()}


class HybridMemoryManager:
    """Entity facts + long-term memories + a conversation window, within ``token_budget``.

    Taught in notebooks/06_hybrid_manager.ipynb.
    """

    kind = "hybrid"
    # The strategies it is built from. Saving, loading and forgetting reach them through the
    # protocol; longterm comes first because its clock resumes at the saved time.
    parts = ("longterm", "entity", "window")

    def __init__(self, token_budget: int = 3500, *, reserve_tokens: int = 500,
                 fact_share: float = 0.15, memory_share: float = 0.15, recent_k: int = 10,
                 important_k: int = 3, memory_top_k: int = 3, min_importance: float = 0.5,
                 system_prompt: str = DEFAULT_SYSTEM_PROMPT, llm: LLM | None = None,
                 clock=None, token_counter: TokenCounter = estimate_tokens, layout: str = "ranked"):
        self.token_budget = require_positive_int("token_budget", token_budget)
        self.reserve_tokens = require_int_at_least("reserve_tokens", reserve_tokens, 0)
        self.fact_share = require_fraction("fact_share", fact_share)
        self.memory_share = require_fraction("memory_share", memory_share)
        if fact_share + memory_share > 1:
            raise ValueError("fact_share + memory_share must be at most 1, "
                             f"got {fact_share} + {memory_share}")
        self.memory_top_k = require_positive_int("memory_top_k", memory_top_k)
        self.min_importance = require_fraction("min_importance", min_importance)
        self.count_tokens = require_callable("token_counter", token_counter)
        self.llm = require_callable("llm", llm, "complete") or OfflineLLM()   # judges importance
        self.system_prompt = require_text("system_prompt", system_prompt)
        self._room(system_prompt, None)             # a prompt too big for the budget fails here
        self.layout = require_choice("layout", layout, ("ranked", "stable"))   # (13)
        self.sent: tuple[int, ...] = ()             # the latest prompt, as hashes of its pieces
        self.window = SlidingWindowMemory(recent_k, important_k)
        self.entity = EntityMemory(clock=require_callable("clock", clock))
        self.clock = self.entity.clock              # one clock for every part
        self.longterm = SemanticMemoryStore(clock=self.clock)
        self.last_turn: int | None = None
        self.now: datetime | None = None            # when the latest message was said

    def add(self, role: str, content: str, *, turn: int | None = None,
            timestamp: datetime | None = None) -> list[Change]:
        """Give one message to every part, all or nothing; return their Changes ("entity:e2").

        Checks and the model call come first; if a part still fails, the parts already
        written are put back, so the same turn can be tried again.
        """
        require_role("role", role)
        require_text("content", content, allow_empty=True)
        turn = require_turn("turn", turn, self.last_turn)
        when = require_datetime("timestamp", timestamp)
        # The model keeps "I prefer pytest" and skips a long "haha, not now", where a length rule
        # would do the opposite. It reads the head, which says what a message is about.
        head = content[:IMPORTANCE_CHARS]
        importance = score_importance(self.llm, head) if role == "user" else 0.0
        undo = [(part, _snapshot(part)) for part in (self.window, self.entity)]
        try:
            added = self.window.add(role, content, turn=turn, timestamp=when)
            changes = tier_changes("window", added)
            added = self.entity.add(role, content, turn=turn, timestamp=when)
            changes += tier_changes("entity", added)
            if content.strip() and importance >= self.min_importance:   # "" is no memory
                added = self.longterm.store(content, "message", importance, when, turn=turn)
                changes += tier_changes("longterm", added)
        except Exception:
            for part, attributes in undo:
                vars(part).update(attributes)
            raise
        self.last_turn = turn
        self.now = when or self.now
        return changes

    def context(self, query: str | None = None) -> list[dict]:
        """What would be sent now (the latest message is already in the window); ``query`` ranks."""
        if query is not None:
            require_text("query", query, allow_empty=True)
        if self.last_turn is None:
            return []
        return self._laid_out(query, self.system_prompt, None).messages

    def explain_prompt(self, user_message: str, system_prompt: str | None = None) -> PromptTrace:
        """The packing for ``user_message``: every candidate, its cost, kept or dropped, and why."""
        require_text("user_message", user_message)
        system = self.system_prompt if system_prompt is None else system_prompt
        return self._laid_out(user_message, system, user_message)

    def assemble_prompt(self, user_message: str, system_prompt: str | None = None) -> list[dict]:
        """The messages to send: system (facts and memories in it), the window, ``user_message``."""
        return self.explain_prompt(user_message, system_prompt).messages

    def _pack(self, query: str | None, system_prompt: str, user_message: str | None) -> PromptTrace:
        """Facts, then memories, each within its share of the room, then the window in the rest."""
        room = self._room(require_text("system_prompt", system_prompt), user_message)
        caps = {"fact": int(room * self.fact_share), "memory": int(room * self.memory_share)}
        limit = self.token_budget - self.reserve_tokens
        trace = PromptTrace(self.token_budget, self.reserve_tokens, limit - room, caps)
        facts = self._ranked_facts(query)
        memories = self._ranked_memories(query)
        system = self._add_fenced(system_prompt, "Known facts", facts, trace, "fact")
        system = self._add_fenced(system, "Relevant memories", memories, trace, "memory")
        left = limit - self.count_tokens(system) - self.count_tokens(user_message or "")
        trace.messages = [{"role": "system", "content": system}, *self._add_window(left, trace)]
        if user_message is not None:
            trace.messages.append({"role": "user", "content": user_message})
        trace.prompt_tokens = sum(self.count_tokens(m["content"]) for m in trace.messages)
        return trace

    def _room(self, system_prompt: str, user_message: str | None) -> int:
        """Tokens left for memory: the budget minus the reply's reserve, the system prompt and the
        question; a ``ValueError`` naming the sizes when they do not fit at all."""
        limit = self.token_budget - self.reserve_tokens
        system = self.count_tokens(system_prompt)
        user = self.count_tokens(user_message or "")
        if system + user > limit:
            plus = f" plus the user message ({user} tokens)" if user else ""
            raise ValueError(f"token_budget {self.token_budget} leaves {limit} tokens for the "
                             f"prompt after reserving {self.reserve_tokens} for the reply: less "
                             f"than the system prompt ({system} tokens){plus}")
        return limit - system - user

    def _ranked_facts(self, query: str | None) -> list[tuple]:
        """``(turn, quoted line, scores)`` of each current fact: those sharing most words with the
        query first, then the surest, then the oldest. A changed fact says what it replaced."""
        ranked = []
        for fact in self.entity.facts():
            before = [f.value for f in self.entity.values if f.id == fact.id and f is not fact]
            was = f" (since turn {fact.valid_from}, was {before[-1]})" if before else ""
            scores = {"overlap": fact.shares(query), "confidence": fact.confidence}
            ranked.append((fact.valid_from, quote(fact.line + was), scores))
        return sorted(ranked, key=lambda c: (-c[2]["overlap"], -c[2]["confidence"], c[0]))

    def _ranked_memories(self, query: str | None) -> list[tuple]:
        """``(turn, quoted text, scores)`` of the store's best matches for the query, skipping the
        messages the window still holds (a memory stored directly has no turn)."""
        if not query or not query.strip() or not len(self.longterm):
            return []
        in_window = set(self.window.window_turns())
        ranked = []
        for hit in self.longterm.explain(query, len(self.longterm), now=self.now):
            turn = self.longterm.metadata[hit["row"]].get("turn")
            scores = {name: round(hit[name], 3) for name in SCORE_PARTS if name in hit}
            if turn not in in_window:
                ranked.append((turn, quote(hit["text"]), scores))
        return ranked[:self.memory_top_k]

    def _add_fenced(self, system: str, header: str, candidates: list[tuple], trace: PromptTrace,
                    source: str) -> str:
        """``system`` with a fenced block of the candidates that fit its cap, best first; a line
        that would pass the cap is left out and the next one tried. Costs are counted on the
        whole text, never summed line by line: a counter that rounds could not be trusted."""
        def with_block(lines: list[str]) -> str:
            return f"{system}\n\n{fenced(header, lines)}" if lines else system

        cap = trace.caps[source]
        kept: list[str] = []
        base = self.count_tokens(system)
        before = base
        for turn, line, scores in candidates:
            after = self.count_tokens(with_block(kept + [line]))
            fits = after - base <= cap
            reason = "within the cap" if fits else f"would pass the {source} cap of {cap} tokens"
            trace.candidates.append(Candidate(source, line, turn, after - before, scores, fits,
                                              reason))
            if fits:
                kept.append(line)
                before = after
        return with_block(kept)

    def _add_window(self, left: int, trace: PromptTrace) -> list[dict]:
        """The window's messages that fit in ``left`` tokens, oldest first. Walks newest first and
        stops at the first that does not fit: a gap mid-conversation is hard to follow."""
        messages = self.window.all_messages
        in_window = set(self.window.window_indices())
        kept = []
        full = False
        for i in reversed(range(len(messages))):
            cost = self.count_tokens(messages[i].content)
            full = full or (i in in_window and cost > left)
            fits = i in in_window and not full
            if i not in in_window:
                reason = "outside the window: not recent, not important enough"
            elif fits:
                reason = "in the window, fits"
            else:
                reason = f"in the window, but the budget is full: {left} left"
            scores = {"importance": self.window.importance[i]}
            trace.candidates.append(Candidate("message", messages[i].content, messages[i].turn,
                                              cost, scores, fits, reason))
            if fits:
                kept.append(messages[i].as_dict())
                left -= cost
        return kept[::-1]

    # ---- Going further (09: saving and loading) ----
    def to_state(self) -> dict:
        """The settings, the latest turn and time: what it holds beside its parts."""
        state = {name: getattr(self, name) for name in (*SETTINGS, "last_turn")}
        state["now"] = self.now.isoformat() if self.now else None
        return state

    @classmethod
    def from_state(cls, state: dict, *, llm: LLM | None = None, clock=None,
                   token_counter: TokenCounter = estimate_tokens) -> "HybridMemoryManager":
        """A manager with the saved settings; model and token counter are not state, so pass them
        again. Its parts are fresh: whoever loads it puts the saved ones in (see ``parts``)."""
        settings = {name: state[name] for name in SETTINGS if name in state}
        manager = cls(**settings, llm=llm, clock=clock, token_counter=token_counter)
        manager.last_turn = state["last_turn"]
        manager.now = datetime.fromisoformat(state["now"]) if state["now"] else None
        return manager

    # ---- Going further (13: a layout a prompt cache can keep) ----
    def _laid_out(self, query: str | None, system: str, user_message: str | None) -> PromptTrace:
        """``_pack``'s prompt and the share of it the last prompt opened with. ``layout="stable"``
        puts what changes least first: the system prompt, the facts in the order they became true,
        the window; then the memories retrieved for this query and the user's message."""
        trace = self._pack(query, system, user_message)
        if self.layout == "stable":
            facts = [c.text for c in sorted(trace.kept("fact"), key=lambda c: c.turn or 0)]
            head = [system, fenced("Known facts", facts)] if facts else [system]
            memories = [c.text for c in trace.kept("memory")]
            block = [{"role": "system", "content": fenced("Relevant memories", memories)}]
            end = len(trace.messages) - (user_message is not None)
            trace.messages = [{"role": "system", "content": "\n\n".join(head)},
                              *trace.messages[1:end], *(block if memories else []),
                              *trace.messages[end:]]
            trace.prompt_tokens = count_message_tokens(trace.messages, self.count_tokens)
        pieces = tuple(hash(piece) for piece in prompt_pieces(trace.messages))   # not the words
        shared = prefix_tokens(trace.messages, shared_pieces(self.sent, pieces), self.count_tokens)
        trace.cache_hit_rate = shared / max(trace.prompt_tokens, 1)
        self.sent = pieces
        return trace
