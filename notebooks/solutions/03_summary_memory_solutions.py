"""Worked solutions for notebooks/03_summary_memory.ipynb."""

# Exercise 3.1 (predict, then run). Under a fixed word limit each fold gives up reasons and elaborations
# before whole facts, so the first to go is the reason, "mainly for its JSONB support", while the decision
# it explains stays. Short sentences that each hold a fact of their own survive; after the ten folds the
# login sentence (long, and worth less per word) has gone too: 6 of the 8 facts are left.
drift_prediction = ("db_reason_jsonb", 6)   # (first_to_go, kept_at_the_end)

# Exercise 3.3 (modify and observe). The view after the last fold shows two ✗: the JSONB reason and the
# JWT login. Pin exactly those, briefly: pins are sent with every request.
my_pins = ["Database: PostgreSQL, chosen for its JSONB support", "Login: JWT access tokens"]


from teachmem.core.text import fenced, quote
from teachmem.llm import summarize


class TinySummaryMemory:
    """Exercise 3.2: a summary memory of your own; the three decision lines are filled in."""

    def __init__(self, llm, summarize_every=6, keep_recent=0, max_words=120):
        self.llm = llm
        self.summarize_every = summarize_every
        self.keep_recent = keep_recent
        self.max_words = max_words
        self.buffer = []    # messages not yet summarised
        self.summary = ""   # the running summary
        self.pinned = []    # facts kept word for word, never summarised

    def add(self, role, content):
        self.buffer.append({"role": role, "content": content})
        if len(self.buffer) >= self.summarize_every:
            self._summarize()

    def _summarize(self):
        # Not self.buffer[:-self.keep_recent]: with keep_recent=0 that slice is empty, not everything.
        cut = len(self.buffer) - self.keep_recent
        oldest, recent = self.buffer[:cut], self.buffer[cut:]
        text = "\n".join(f"{m['role']}: {m['content']}" for m in oldest)
        self.summary = summarize(self.llm, text, previous_summary=self.summary,
                                 max_words=self.max_words)
        self.buffer = recent

    def context(self, query=None):
        parts = []
        if self.pinned:   # stored text enters a prompt as quoted data, under a header saying so
            parts.append(fenced("PINNED FACTS", [quote(fact) for fact in self.pinned]))
        if self.summary:
            parts.append(f"CONVERSATION SUMMARY:\n{self.summary}")
        head = [{"role": "system", "content": "\n\n".join(parts)}] if parts else []
        return head + self.buffer

    def pin(self, fact):
        self.pinned.append(fact)


summary_class = TinySummaryMemory
