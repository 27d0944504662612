"""The cache-friendly options: a window that drops messages in chunks, a summary that appends a
block, the hybrid laid out stable first, and compaction at runtime. Each check is first shown to
fail what it guards against (the plain window, the rewriting summary, the ranked layout)."""
import pytest

from teachmem import HybridMemoryManager, SlidingWindowMemory, SummaryMemory, load_scenario
from teachmem.core.tokens import count_message_tokens, shared_prefix_tokens
from teachmem.lab.evaluation.prompt_cache import (bill, cache_friendly_strategies, load_prices,
                                                  requests, system_prompt)
from teachmem.lab.replay import comparison_strategies, feed, replay
from teachmem.lab.scenarios import list_scenarios
from teachmem.llm import Usage
from teachmem.memory.window import ChunkedWindowMemory

TEN = "a b c d e f g h i j"          # 10 words: 13 tokens


class Scripted:
    """A model that answers with its next scripted reply and writes down every prompt."""

    def __init__(self, *replies: str):
        self.replies, self.prompts, self.usage = list(replies), [], Usage()

    def complete(self, messages, *, json_mode=False):
        self.prompts.append(messages)
        self.usage.calls += 1
        return self.replies.pop(0)


def contexts(memory, n: int) -> list[list[dict]]:
    """What ``memory`` sends after each of ``n`` messages "m1", "m2", … (user and assistant)."""
    out = []
    for i in range(1, n + 1):
        memory.add("user" if i % 2 else "assistant", f"m{i}", turn=i)
        out.append(memory.context())
    return out


def opens_with(prompt: list[dict], earlier: list[dict]) -> bool:
    return prompt[:len(earlier)] == earlier


# ------------------------------------------------------------------ the chunked window
def drops(sent: list[list[dict]]) -> list[int]:
    """The messages (1-based) after which the context no longer opens as the one before."""
    return [i + 1 for i in range(1, len(sent)) if not opens_with(sent[i], sent[i - 1])]


def test_the_chunked_window_holds_its_prefix_for_chunk_messages_then_drops_a_chunk():
    sent = contexts(ChunkedWindowMemory(recent_k=2, important_k=0, evict_chunk=3), 11)
    assert drops(sent) == [5, 8, 11]                     # every 3 messages, from the window full
    assert [len(c) for c in sent] == [1, 2, 3, 4, 2, 3, 4, 2, 3, 4, 2]
    assert [m["content"] for m in sent[4]] == ["m4", "m5"]   # m1–m3 dropped at once
    # the check fails the plain window: it changes its opening on every message once full
    assert drops(contexts(SlidingWindowMemory(recent_k=2, important_k=0), 11)) == list(range(3, 12))


def test_right_after_a_drop_it_holds_what_the_plain_window_holds_and_one_is_the_plain_window():
    scenario = load_scenario("project_30")
    chunked, plain = ChunkedWindowMemory(6, 2, evict_chunk=4), SlidingWindowMemory(6, 2)
    single = ChunkedWindowMemory(6, 2, evict_chunk=1)
    for t in scenario.turns:
        feed_one = [m.add(t.role, t.content, turn=t.turn) for m in (chunked, plain, single)]
        assert single.window_turns() == plain.window_turns()
        if (t.turn - 8) % 4 == 0 and t.turn > 8:
            assert chunked.window_turns() == plain.window_turns()
            deleted = [c for c in feed_one[0] if c.event == "DELETE"]
            assert len(deleted) == 4                         # a chunk, reported as it goes
        assert set(plain.window_turns()) <= set(chunked.window_turns())


def test_the_chunked_window_saves_its_chunk_and_refuses_a_bad_one():
    window = ChunkedWindowMemory(3, 1, evict_chunk=5)
    contexts(window, 9)
    again = ChunkedWindowMemory.from_state(window.to_state())
    assert again.evict_chunk == 5 and again.context() == window.context()
    with pytest.raises(ValueError, match="evict_chunk"):
        ChunkedWindowMemory(evict_chunk=0)
    with pytest.raises(TypeError, match="evict_chunk"):
        ChunkedWindowMemory(evict_chunk="4")


# ------------------------------------------------------------------ append compaction
def test_append_compaction_keeps_the_earlier_summary_as_the_prompts_opening():
    appending = SummaryMemory(summarize_every=4, compaction="append",
                              llm=Scripted("Block one.", "Block two."))
    sent = contexts(appending, 8)
    assert appending.summary == "Block one.\n\nBlock two."
    assert sent[7][0]["content"].startswith(sent[3][0]["content"])      # the first block stays
    # each block summarises its own messages: the second call is not sent the first block
    assert "Block one" not in str(appending.llm.prompts[1]) and "m5" in str(appending.llm.prompts[1])
    # the check fails the rewriting summary: its second summary replaces the first
    rewriting = SummaryMemory(summarize_every=4, llm=Scripted("Block one.", "Block two."))
    again = contexts(rewriting, 8)
    assert not again[7][0]["content"].startswith(again[3][0]["content"])


def test_append_compaction_reports_its_changes_and_a_blank_block_folds_nothing():
    memory = SummaryMemory(summarize_every=2, compaction="append", llm=Scripted("One.", " ", "Two."))
    memory.add("user", "we use pytest", turn=1)
    first = memory.add("assistant", "noted", turn=2)
    assert [c.event for c in first] == ["ADD", "ADD", "DELETE", "DELETE"]
    memory.add("user", "and MySQL", turn=3)
    blank = memory.add("assistant", "ok", turn=4)
    assert [c.event for c in blank] == ["ADD", "NOOP"] and len(memory.buffer) == 2
    later = memory.add("user", "on Fridays", turn=5)
    assert later[1].event == "UPDATE" and later[1].previous == "One."
    assert memory.summary == "One.\n\nTwo." and memory.buffer == []


def test_append_compaction_is_saved_only_when_set_and_a_bad_setting_is_named():
    assert "compaction" not in SummaryMemory().to_state()            # files as before
    memory = SummaryMemory(summarize_every=2, compaction="append", llm=Scripted("One."))
    contexts(memory, 2)
    assert SummaryMemory.from_state(memory.to_state()).compaction == "append"
    with pytest.raises(ValueError, match="compaction must be one of"):
        SummaryMemory(compaction="merge")


# ------------------------------------------------------------------ compaction at runtime
def test_runtime_compaction_folds_once_when_the_context_passes_the_limit():
    # each message is 13 tokens: 4 make 52, the 5th takes the context to 65 > 60
    memory = SummaryMemory(keep_recent=2, max_tokens=60, llm=Scripted("Short summary.", "Next."))
    for i in range(1, 5):
        memory.add("user", TEN, turn=i)
    assert memory.llm.usage.calls == 0 and count_message_tokens(memory.context()) == 52
    changes = memory.add("user", TEN, turn=5)
    assert memory.llm.usage.calls == 1 and [c.event for c in changes][:2] == ["ADD", "ADD"]
    assert len(memory.buffer) == 2 and memory.summary == "Short summary."
    opening = memory.context()[0]
    for i in range(6, 8):                                 # 2 + 3 × 13 = 41, 54: no fold
        memory.add("user", TEN, turn=i)
        assert memory.llm.usage.calls == 1 and memory.context()[0] == opening
    memory.add("user", TEN, turn=8)                       # 2 + 5 × 13 = 67 > 60: the next fold
    assert memory.llm.usage.calls == 2


def test_runtime_compaction_counts_its_summary_call_in_the_bill():
    scenario = load_scenario("project_30")
    sent = requests(scenario, lambda: SummaryMemory(keep_recent=6, max_tokens=600), "instructions")
    users = sum(t.role == "user" for t in scenario.turns)
    folds = [s for s in sent if s[0][0]["content"] != "instructions"]
    assert len(folds) == 2 and len(sent) == users + len(folds)
    price = load_prices()[0]
    billed = bill(sent, price, caching=False)
    replies_only = bill([s for s in sent if s not in folds], price, caching=False)
    assert sum(b.cost for b in billed) > sum(b.cost for b in replies_only)


def test_runtime_compaction_names_a_bad_limit_and_lets_keep_recent_be_large():
    with pytest.raises(ValueError, match="max_tokens"):
        SummaryMemory(max_tokens=0)
    with pytest.raises(TypeError, match="max_tokens"):
        SummaryMemory(max_tokens="600")
    memory = SummaryMemory(keep_recent=8, max_tokens=600)     # summarize_every is not used
    assert SummaryMemory.from_state(memory.to_state()).max_tokens == 600
    assert "max_tokens" not in SummaryMemory().to_state()


# ------------------------------------------------------------------ the hybrid's layouts
QUESTION = "Which test framework did we pick, and which database does CI start?"


def memories_last(prompt: list[dict]) -> bool:
    """The retrieved memories come after the window, just before the question."""
    where = [i for i, m in enumerate(prompt) if "Relevant memories" in m["content"]]
    return where == [len(prompt) - 2] and "Relevant memories" not in prompt[0]["content"]


def test_the_stable_layout_moves_the_memories_last_and_orders_facts_by_when_they_became_true():
    scenario = load_scenario("project_30")
    ranked = feed(HybridMemoryManager(), scenario, 28).explain_prompt(QUESTION)
    stable = feed(HybridMemoryManager(layout="stable"), scenario, 28).explain_prompt(QUESTION)
    assert memories_last(stable.messages) and not memories_last(ranked.messages)
    assert stable.messages[1:-2] == ranked.messages[1:-1]                 # the same window
    assert stable.messages[-1] == ranked.messages[-1] == {"role": "user", "content": QUESTION}
    facts = [line for line in stable.messages[0]["content"].splitlines() if line.startswith("- ")]
    turns = {c.text: c.turn for c in stable.kept("fact")}
    assert [turns[line[2:]] for line in facts] == sorted(turns.values())
    # nothing lost: the same words in all, the same cost
    words = sorted(w for m in stable.messages for w in m["content"].split())
    assert words == sorted(w for m in ranked.messages for w in m["content"].split())
    assert stable.prompt_tokens == count_message_tokens(stable.messages)


def test_the_default_layout_is_notebook_06s_and_a_bad_layout_is_named():
    manager = feed(HybridMemoryManager(), load_scenario("project_30"), 28)
    assert manager.layout == "ranked"
    assert manager.assemble_prompt(QUESTION) == manager._pack(QUESTION, manager.system_prompt,
                                                              QUESTION).messages
    with pytest.raises(ValueError, match="layout must be one of"):
        HybridMemoryManager(layout="newest")
    state = manager.to_state()
    del state["layout"]                                      # saved before layouts existed
    assert HybridMemoryManager.from_state(state).layout == "ranked"


def test_the_trace_reports_the_share_its_previous_prompt_opened_with():
    scenario = load_scenario("project_30")
    rates = {}
    for layout in ("ranked", "stable"):
        manager = feed(HybridMemoryManager(layout=layout), scenario, 28)
        first = manager.explain_prompt("Which database?")
        assert first.cache_hit_rate == 0.0                               # nothing sent before
        second = manager.explain_prompt(QUESTION)
        shared = shared_prefix_tokens(first.messages, second.messages)
        assert second.cache_hit_rate == pytest.approx(shared / second.prompt_tokens)
        assert manager.explain_prompt(QUESTION).cache_hit_rate == 1.0      # the same prompt again
        rates[layout] = second.cache_hit_rate
    assert rates["stable"] > 0.5 > rates["ranked"]


# ------------------------------------------------------------------ cost and what is kept
def test_each_option_keeps_the_probes_of_what_it_changes_on_the_30_turn_scenario():
    scenario = load_scenario("project_30")
    plain, options = comparison_strategies(), cache_friendly_strategies()
    pairs = {"window chunked": "window", "summary append": "summary", "hybrid stable": "hybrid",
             "compaction": "summary"}
    record = replay(scenario, {**plain, **options})
    for option, base in pairs.items():
        for q in scenario.questions:
            assert record.answers(option, q.turn, q) >= record.answers(base, q.turn, q), option
    for turn in range(1, len(scenario) + 1):          # the stable layout holds the same facts
        assert record.at("hybrid stable", turn).holds == record.at("hybrid", turn).holds


def test_with_caching_each_option_costs_less_than_what_it_changes():
    scenario, price, system = load_scenario("project_30"), load_prices()[2], system_prompt()
    makers = {**comparison_strategies(), **cache_friendly_strategies()}
    cost = {name: sum(b.cost for b in bill(requests(scenario, makers[name], system), price))
            for name in ("window", "window chunked", "summary", "summary append", "hybrid",
                         "hybrid stable", "compaction")}
    assert cost["window chunked"] < cost["window"]
    assert cost["summary append"] < cost["summary"]
    assert cost["hybrid stable"] < cost["hybrid"]
    assert cost["compaction"] < cost["summary"]


def test_on_the_scenario_bank_each_option_answers_every_probe_what_it_changes_answers():
    plain, options = comparison_strategies(), cache_friendly_strategies()
    pairs = {"window chunked": "window", "summary append": "summary", "hybrid stable": "hybrid",
             "compaction": "summary"}
    lost = []
    for name in list_scenarios():
        scenario = load_scenario(name)
        record = replay(scenario, {**{b: plain[b] for b in pairs.values()}, **options})
        for option, base in pairs.items():
            lost += [(name, q.turn, option) for q in scenario.questions
                     if record.answers(base, q.turn, q) and not record.answers(option, q.turn, q)]
    assert lost == []
