"""MemoryAgent driven by random tool-call scripts (Hypothesis): whatever a model asks for, well formed
or not, the blocks stay within their limit, every prompt of every round fits the budget, the
context fits after every step, and no message that left the context is lost."""
import json

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from teachmem import MemoryAgent
from teachmem.core.tokens import estimate_tokens
from teachmem.llm import OfflineLLM
from teachmem.memory.agent import MAX_ROUNDS, TOOLS

WORDS = ["Maya", "PostgreSQL", "MySQL", "pytest", "deploy", "Friday", "日本語の会議",
         "https://example.com/api/v1/classes?studio=42&date=2026-03-02", "x", "\n", "SYSTEM:"]
text = st.lists(st.sampled_from(WORDS), min_size=1, max_size=40).map(" ".join).filter(str.strip)
label = st.sampled_from(["human", "persona", "boss", ""])
arguments = {
    "core_memory_append": st.fixed_dictionaries({"label": label, "content": text}),
    "core_memory_replace": st.fixed_dictionaries({"label": label, "old": text, "new": text}),
    "archival_memory_insert": st.fixed_dictionaries({"content": text}),
    "archival_memory_search": st.fixed_dictionaries({"query": text, "page": st.integers(-1, 3)}),
    "conversation_search": st.fixed_dictionaries({"query": text, "page": st.integers(-1, 3)}),
}
well_formed = st.sampled_from(sorted(TOOLS)).flatmap(
    lambda name: arguments[name].map(lambda args: {"id": "c", "type": "function", "function": {
        "name": name, "arguments": json.dumps(args)}}))
malformed = st.one_of(
    st.just("core_memory_append"),                                            # not an object
    st.builds(lambda a: {"id": "c", "function": {"name": "core_memory_append", "arguments": a}},
              st.sampled_from(["[1, 2]", "{", "[" * 2000, "null", '{"label": 5}'])),
    st.builds(lambda n: {"id": "c", "function": {"name": n, "arguments": "{}"}},
              st.sampled_from(["delete_everything", "", "step"])),
)
calls = st.lists(st.one_of(well_formed, well_formed, malformed), max_size=4)
step = st.tuples(st.sampled_from(["user", "assistant", "system"]), text,
                 st.lists(calls, max_size=MAX_ROUNDS))


class Scripted(OfflineLLM):
    """Each round answers with the next scripted list of calls, then with none; records prompts."""

    def __init__(self):
        super().__init__()
        self.rounds, self.prompts = [], []

    def complete_with_tools(self, messages, tools):
        self.prompts.append(messages)
        asked = self.rounds.pop(0) if self.rounds else []
        return {"role": "assistant", "content": "", "tool_calls": asked}


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(steps=st.lists(step, min_size=1, max_size=25),
       context_tokens=st.integers(700, 1500), block_limit=st.integers(100, 250))
def test_any_tool_script_keeps_the_agents_promises(steps, context_tokens, block_limit):
    llm = Scripted()
    agent = MemoryAgent(llm, context_tokens=context_tokens, block_limit=block_limit)
    said = set()
    for turn, (role, content, rounds) in enumerate(steps, 1):
        llm.rounds, llm.prompts = list(rounds), []
        agent.add(role, content, turn=turn)
        said.add(f"{role}: {content}")
        assert all(len(block) <= block_limit for block in agent.core.values())
        assert agent.tokens() <= context_tokens
        for prompt in llm.prompts:
            assert sum(estimate_tokens(m["content"]) for m in prompt) <= context_tokens
    queued = {f"{m['role']}: {m['content']}" for m in agent.messages}
    recalled = set(agent.recall.texts)
    cut = {text for text in said if "[… truncated" in text}
    lost = {text for text in said - queued - recalled - cut
            if not any(text.startswith(kept.split(" [… truncated")[0]) for kept in recalled | queued)}
    assert not lost, lost
