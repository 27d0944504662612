"""Memory as tools: the model decides what to remember (MemGPT, with Letta's tool names).

A model has one fixed context window. MemGPT (Packer et al. 2023) manages it the way an operating
system manages RAM. Always in the context: *core memory*, a few blocks with a label and a character
limit (``persona``: who the assistant is; ``human``: what it knows about the user), then the recent
messages. Outside it, two stores the model pages in with tools: *recall storage* (every message
that left the context) and *archival storage* (notes the model chose to keep). The model itself
calls the tools, named here as Letta names them:

    core_memory_append(label, content)       core_memory_replace(label, old, new)
    archival_memory_insert(content)           archival_memory_search(query, page=0)
    conversation_search(query, page=0)

A tool answers with a string, the one thing a model reads: a mistake (over the block's limit, old
text not found, unknown label) comes back as an error string and changes nothing.

Memory pressure: once the context passes 70 % of ``context_tokens`` the model is warned; before it
would pass 100 %, the oldest messages are evicted into recall storage and folded into a recursive
summary, until the context fills at most half the budget (or no message is left). It never
exceeds the budget.

Taught in notebooks/11_memory_as_tools.ipynb.
"""
from __future__ import annotations

import json
import re
from datetime import datetime

from teachmem.core.change import Change
from teachmem.core.tokens import estimate_tokens
from teachmem.core.validate import (require_callable, require_datetime, require_int_at_least,
                                    require_positive_int, require_role, require_text, require_turn)
from teachmem.llm import OfflineLLM, ToolLLM, summarize
from teachmem.memory.agent_tools import INSTRUCTIONS, PERSONA, TOOLS, WARNING, tool_schemas
from teachmem.memory.semantic import SemanticMemoryStore
from teachmem.memory.token_window import truncate_to_tokens

WARN_AT = 0.7          # warn the model when the context passes this share of the budget
EVICT_TO = 0.5         # evict down to this share of the budget
MAX_ROUNDS = 3         # model calls per step: tools, then what their results call for, then stop
PAGE_SIZE = 5          # search results per page
SUMMARY_WORDS = 60     # the recursive summary of evicted messages stays this short
MIN_ROOM = 32          # tokens a message can always have, whatever the blocks hold

def oldest_to_evict(sizes: list[int], room: int) -> int:
    """How many of the oldest messages must go (``sizes``: their tokens, oldest first) for the rest
    to add up to at most ``room`` tokens: none if they fit already, all if not even the newest alone
    fits."""
    cut = 0
    while cut < len(sizes) and sum(sizes[cut:]) > room:
        cut += 1
    return cut


class MemoryAgent:
    """Core memory blocks + a message queue in context; recall and archival storage outside it.

    ``add("user", …)`` runs one step of the tool loop (see ``step``); ``add("assistant", …)``
    records the reply. ``llm`` decides the tool calls (the offline stand-in by default: any
    model with ``complete_with_tools(messages, tools)`` works) and writes the recursive summary.

    Taught in notebooks/11_memory_as_tools.ipynb.
    """

    kind = "agent"
    # The stores it is built from: saving, loading and forgetting reach them through the protocol.
    parts = ("archival", "recall")

    def __init__(self, llm: ToolLLM | None = None, *, context_tokens: int = 1000,
                 block_limit: int = 400, clock=None, persona: str = PERSONA):
        self.context_tokens = require_positive_int("context_tokens", context_tokens)
        self.block_limit = require_positive_int("block_limit", block_limit)
        require_callable("llm", llm, "complete_with_tools")
        self.llm = OfflineLLM() if llm is None else llm
        if len(require_text("persona", persona)) > block_limit:
            raise ValueError(f"persona must fit block_limit ({block_limit} characters), "
                             f"got {len(persona)}")
        self.core = {"persona": persona, "human": ""}
        self.messages: list[dict] = []      # the queue in context: id, role, content, turn, time
        self.summary = ""                   # the recursive summary of what was evicted
        self.archival = SemanticMemoryStore(clock=clock)
        self.clock = self.archival.clock    # one clock for both stores
        self.recall = SemanticMemoryStore(clock=self.clock)
        self.changes: list[Change] = []     # what the current (or last) step changed
        self.last_step: dict | None = None
        self.last_turn: int | None = None
        self.arrived = 0                    # messages ever queued: the next id is m{arrived + 1}
        self.warned = False                 # warned since the last eviction?
        worst = self._frame_tokens(full=True)
        if worst + MIN_ROOM > context_tokens:
            raise ValueError(f"context_tokens must hold the core blocks at their limit "
                             f"(block_limit={block_limit} characters), the instructions and the "
                             f"summary: {worst} tokens, plus {MIN_ROOM} for a message; "
                             f"got {context_tokens}")

    # ------------------------------------------------------------------ the context
    def _system(self, core: dict[str, str], summary: str) -> str:
        blocks = [f'<{label} characters="{len(text)}/{self.block_limit}">\n{text}\n</{label}>'
                  for label, text in core.items()]
        stats = (f"{len(self.recall)} messages in recall storage, {len(self.archival)} passages in "
                 "archival storage.")
        sections = [INSTRUCTIONS, "### Core memory", *blocks,
                    "### Summary of evicted messages", summary or "(nothing evicted yet)",
                    "### Memory statistics", stats]
        return "\n\n".join(sections)

    def _frame_tokens(self, full: bool = False) -> int:
        """Tokens of the system message; ``full``: with every block at its limit and the longest
        summary."""
        if not full:
            return estimate_tokens(self._system(self.core, self.summary))
        densest = "x " * (self.block_limit // 2)      # the most words that fit in the limit
        full_blocks = {label: densest for label in self.core}
        return estimate_tokens(self._system(full_blocks, "x " * SUMMARY_WORDS))

    def context(self, query: str | None = None) -> list[dict]:
        """Instructions, core memory and the summary as one system message, then the queue.
        The query is ignored: what to look up is the model's decision, made in ``step``."""
        system = {"role": "system", "content": self._system(self.core, self.summary)}
        return [system] + [{"role": m["role"], "content": m["content"]} for m in self.messages]

    def tokens(self) -> int:
        """Tokens the context holds now."""
        return sum(estimate_tokens(m["content"]) for m in self.context())

    # ------------------------------------------------------------------ memory pressure
    def _fit(self, extra: int = 0) -> None:
        """Before the context (plus ``extra`` tokens to come) would pass the budget, evict the
        oldest messages into recall storage and the summary, until at most ``EVICT_TO`` of it is
        used."""
        if self.tokens() + extra <= self.context_tokens:
            return
        # The summary may grow to SUMMARY_WORDS: count it at that size, so the result surely fits.
        longest_summary = estimate_tokens("x " * SUMMARY_WORDS)
        frame = self._frame_tokens() - estimate_tokens(self.summary) + longest_summary
        room = int(EVICT_TO * self.context_tokens) - extra - frame
        cut = oldest_to_evict([estimate_tokens(m["content"]) for m in self.messages], room)
        gone = self.messages[:cut]
        said = [m for m in gone if m["role"] in ("user", "assistant")]   # search results are copies
        transcript = "\n".join(f"{m['role']}: {m['content']}" for m in said)
        # Ask first, change after: if the model call fails, nothing has moved.
        new = self.summary
        if said:
            new = summarize(self.llm, transcript, previous_summary=self.summary,
                            max_words=SUMMARY_WORDS)
        self.messages = self.messages[cut:]
        for m in said:
            when = datetime.fromisoformat(m["timestamp"]) if m["timestamp"] else None
            self.recall.store(f"{m['role']}: {m['content']}", "message", turn=m["turn"],
                              role=m["role"], timestamp=when)
        self.changes += [Change("DELETE", m["id"], f"{m['role']}: {m['content']}",
                                reason="evicted to recall storage") for m in gone]
        if new and new != self.summary:
            event = "UPDATE" if self.summary else "ADD"
            self.changes.append(Change(event, "summary", new, previous=self.summary or None,
                                       reason=f"{len(said)} evicted messages folded in"))
            self.summary = new
        self.warned = False

    def _queue(self, role: str, content: str, turn: int | None = None,
               timestamp: datetime | None = None) -> None:
        """Put a message in the context, making room first; one too long for any room is cut."""
        room = self.context_tokens - self._frame_tokens(full=True)
        if estimate_tokens(content) > room:
            content = truncate_to_tokens(content, room)
        self._fit(estimate_tokens(content))
        turn = (self.last_turn or 0) if turn is None else turn
        self.arrived += 1
        stamp = timestamp.isoformat() if timestamp else None
        self.messages.append({"id": f"m{self.arrived}", "role": role, "content": content,
                              "turn": turn, "timestamp": stamp})
        self.changes.append(Change("ADD", f"m{self.arrived}", f"{role}: {content}",
                                   reason="new message"))

    # ------------------------------------------------------------------ the protocol and the loop
    def add(self, role: str, content: str, *, turn: int | None = None,
            timestamp: datetime | None = None) -> list[Change]:
        """A user message runs one step of the tool loop; any other message is queued as said.

        Returns what changed: the message's ADD, the blocks' UPDATEs, archival ADDs, the DELETE of
        every evicted message, the summary's rewrite, and a NOOP for every refused tool call.
        """
        require_role("role", role)
        require_text("content", content, allow_empty=role != "user")
        if role == "user":
            return self.step(content, turn=turn, timestamp=timestamp)["changes"]
        turn = require_turn("turn", turn, self.last_turn)
        self.changes = []
        self._queue(role, content, turn, require_datetime("timestamp", timestamp))
        self.last_turn = turn
        return self.changes

    def step(self, user_message: str, *, turn: int | None = None,
             timestamp: datetime | None = None) -> dict:
        """Queue the user's message, then let the model call tools until it stops (``MAX_ROUNDS``
        calls).

        Returns the step's trace: ``tool_calls`` (each ``name``, ``args``, ``result``), ``warned``,
        ``evictions`` (the ids of the messages evicted), ``tokens`` (in context afterwards),
        ``reply`` (the model's text, if any) and ``changes``.
        """
        require_text("user_message", user_message)
        turn = require_turn("turn", turn, self.last_turn)
        self.changes, calls = [], []
        self._queue("user", user_message, turn, require_datetime("timestamp", timestamp))
        self.last_turn = turn
        share = self.tokens() / self.context_tokens
        warned = share >= WARN_AT and not self.warned
        self.warned = self.warned or warned
        prompt = self.context()
        if warned:
            prompt.append({"role": "system", "content": WARNING.format(share=share)})
        reply = ""
        for _ in range(MAX_ROUNDS):
            answer = self.llm.complete_with_tools(prompt, tool_schemas())
            if not answer.get("tool_calls"):
                reply = answer.get("content") or ""
                break
            prompt.append({"role": "assistant", "content": answer.get("content") or "",
                           "tool_calls": answer["tool_calls"]})
            for tool_call in answer["tool_calls"]:
                calls.append(self._run(tool_call))
                prompt.append({"role": "tool", "tool_call_id": tool_call.get("id", ""),
                               "content": calls[-1]["result"]})
        evicted = [c.id for c in self.changes if c.reason == "evicted to recall storage"]
        self.last_step = {"turn": turn, "tool_calls": calls, "warned": warned,
                          "tokens": self.tokens(), "evictions": evicted, "reply": reply,
                          "changes": list(self.changes)}
        return self.last_step

    def _run(self, tool_call: dict) -> dict:
        """Call one tool the model asked for; whatever goes wrong becomes the result it reads."""
        function = tool_call.get("function") or {}
        name, args = function.get("name"), {}
        try:
            args = json.loads(function.get("arguments") or "{}")
            if not isinstance(args, dict):
                args = {}
                raise TypeError("the arguments must be a JSON object, "
                                f"got {function.get('arguments')!r:.60}")
            if name not in TOOLS:
                raise ValueError(f"there is no tool {name!r}; the tools are {', '.join(TOOLS)}")
            result = getattr(self, name)(**args)
        except (TypeError, ValueError) as err:    # bad JSON, a missing or wrong argument
            result = self._refuse(str(name), str(err))
        if name in ("conversation_search", "archival_memory_search"):
            found = f"{name}({args.get('query', '')!r}) returned:\n{result}"
            self._queue("system", found, self.last_turn)
        return {"name": name, "args": args, "result": result}

    # ------------------------------------------------------------------ the tools
    def _refuse(self, tool: str, why: str) -> str:
        self.changes.append(Change("NOOP", tool, why, reason=f"{tool} refused: nothing changed"))
        return f"Error: {why}. Nothing changed."

    def _write_block(self, tool: str, label: str, text: str) -> str:
        if label not in self.core:
            return self._refuse(tool, f"there is no block {label!r}; "
                                      f"the blocks are {', '.join(self.core)}")
        if len(text) > self.block_limit:
            return self._refuse(tool, f"the {label} block would hold {len(text)} characters, over "
                                      f"its limit of {self.block_limit}; replace or shorten lines, "
                                      "or use archival_memory_insert")
        self.changes.append(Change("UPDATE", label, text, previous=self.core[label], reason=tool))
        self.core[label] = text
        self._fit()
        return f"OK: the {label} block now holds {len(text)}/{self.block_limit} characters."

    def core_memory_append(self, label: str, content: str) -> str:
        """Append ``content`` as a new line of the block ``label``."""
        require_text("label", label)
        require_text("content", content)
        old = self.core.get(label, "")
        text = f"{old}\n{content}" if old else content
        return self._write_block("core_memory_append", label, text)

    def core_memory_replace(self, label: str, old: str, new: str) -> str:
        """Replace every ``old`` in the block ``label`` with ``new`` ("" deletes it)."""
        require_text("label", label)
        require_text("old", old)
        require_text("new", new, allow_empty=True)
        if label in self.core and old not in self.core[label]:
            return self._refuse("core_memory_replace",
                                f"the {label} block does not contain {old!r}")
        replaced = self.core.get(label, "").replace(old, new).split("\n")
        text = "\n".join(line for line in replaced if line.strip())
        return self._write_block("core_memory_replace", label, text)

    def archival_memory_insert(self, content: str) -> str:
        """Save ``content`` to archival storage."""
        changes = self.archival.store(require_text("content", content), "archival")
        self.changes += changes
        return f"OK: saved to archival storage as {changes[0].id}."

    def archival_memory_search(self, query: str, page: int = 0) -> str:
        """Archival passages that share a word with ``query``, best first, ``PAGE_SIZE`` a page."""
        return self._search(self.archival, "archival storage", query, page)

    def conversation_search(self, query: str, page: int = 0) -> str:
        """Evicted messages that share a word with ``query``, best first, ``PAGE_SIZE`` a page."""
        return self._search(self.recall, "recall storage", query, page)

    def _search(self, store: SemanticMemoryStore, where: str, query: str, page: int) -> str:
        require_text("query", query)
        require_int_at_least("page", page, 0)
        hits = [h for h in store.explain(query, max(len(store), 1)) if h["lexical"] > 0]
        first = page * PAGE_SIZE
        shown = hits[first:first + PAGE_SIZE]
        if not shown:
            return f"No results for {query!r} in {where} (page {page}, {len(hits)} results in all)."
        lines = []
        for hit in shown:
            turn = store.metadata[hit["row"]].get("turn", "s" + str(hit["row"]))
            lines.append(f"- [{turn}] {hit['text']}")
        heading = (f"Results {first + 1}-{first + len(shown)} of {len(hits)} for {query!r} "
                   f"in {where}:")
        return heading + "\n" + "\n".join(lines)

    # ------------------------------------------------------------------ governance and persistence
    def erase(self, pattern: re.Pattern) -> list[Change]:
        """Redact what ``pattern`` matches in the blocks, the messages and the summary: what the
        agent holds beside its stores (``teachmem.forget`` erases those first, as its parts)."""
        if not isinstance(pattern, re.Pattern):
            raise TypeError(f"pattern must be a compiled re.Pattern, got {type(pattern).__name__}")
        changes = []

        def redact(id: str, text: str) -> str:
            if not pattern.search(text):
                return text
            changes.append(Change("UPDATE", id, pattern.sub("[forgotten]", text), previous=text,
                                  reason="forgotten"))
            return changes[-1].text

        self.core = {label: redact(label, text) for label, text in self.core.items()}
        for m in self.messages:
            m["content"] = redact(m["id"], m["content"])
        self.summary = redact("summary", self.summary)
        self.changes, self.last_step = [], None
        return changes

    def to_state(self) -> dict:
        """What the agent holds beside its stores, as JSON-ready data."""
        return {"context_tokens": self.context_tokens, "block_limit": self.block_limit,
                "core": dict(self.core), "messages": [dict(m) for m in self.messages],
                "summary": self.summary,
                "last_turn": self.last_turn, "arrived": self.arrived, "warned": self.warned}

    @classmethod
    def from_state(cls, state: dict, *, llm: ToolLLM | None = None,
                   clock=None) -> "MemoryAgent":
        """Rebuild from ``to_state()``; the model is not state, so pass it again. Its stores are
        fresh: whoever loads it puts the saved ones in (see ``parts``)."""
        agent = cls(llm, context_tokens=state["context_tokens"], block_limit=state["block_limit"],
                    persona=state["core"]["persona"], clock=clock)
        # In the constructor's order (persona first), whatever order the saved keys came back in.
        agent.core = {label: require_text(label, state["core"][label], allow_empty=True)
                      for label in agent.core}
        agent.messages = [dict(m) for m in state["messages"]]
        agent.summary, agent.last_turn = state["summary"], state["last_turn"]
        agent.arrived, agent.warned = state["arrived"], state["warned"]
        return agent
