"""MemoryAgent: memory as tools (core blocks, recall and archival storage, memory pressure) and the
offline policy that drives it."""
import json
import re
from datetime import datetime

import pytest

import teachmem
from teachmem import MemoryAgent, MemoryDB, forget, load_scenario
from teachmem.lab.replay import add_turn, replay
from teachmem.lab.storage.state_codec import restore, state_of
from teachmem.llm import OfflineLLM
from teachmem.llm.memory_policy import decide, fact_line
from teachmem.memory.agent import EVICT_TO, TOOLS, WARN_AT, tool_schemas

SCENARIO = load_scenario("project_30")


def run_scenario(**kwargs):
    """The agent after the 30 turns, its tokens after each turn, and the trace of each user turn."""
    agent = MemoryAgent(**kwargs)
    tokens, steps = [], []
    for t in SCENARIO.turns:
        add_turn(agent, SCENARIO, t.turn)
        tokens.append(agent.tokens())
        if t.role == "user":
            steps.append(agent.last_step)
    return agent, tokens, steps


def evicted(agent):
    """Every message id that left the context: queued so far, and no longer queued."""
    return {f"m{i}" for i in range(1, agent.arrived + 1)} - {m["id"] for m in agent.messages}


@pytest.fixture(scope="module")
def finished():
    return run_scenario()


def talk(agent, *user_messages):
    """Each user message, then a short assistant reply; returns the steps."""
    steps = []
    for text in user_messages:
        steps.append(agent.step(text))
        agent.add("assistant", "Noted.")
    return steps


# ------------------------------------------------------------------ the done-when of issue 15
def test_after_the_30_turns_the_human_block_holds_the_name_and_mysql_not_postgresql(finished):
    agent, _, _ = finished
    human = agent.core["human"]
    assert "name: Maya" in human.splitlines()
    assert "database: MySQL" in human.splitlines()
    assert "PostgreSQL" not in human


def test_the_context_stays_within_context_tokens_at_every_turn(finished):
    agent, tokens, steps = finished
    assert max(tokens) <= agent.context_tokens
    assert all(s["tokens"] <= agent.context_tokens for s in steps)
    assert any(s["evictions"] for s in steps), "the scenario should fill the context at least once"


@pytest.mark.parametrize("context_tokens, block_limit", [(400, 100), (560, 200), (760, 400)])
def test_the_budget_holds_for_tighter_budgets_too(context_tokens, block_limit):
    agent, tokens, steps = run_scenario(context_tokens=context_tokens, block_limit=block_limit)
    assert max(tokens) <= context_tokens
    assert evicted(agent)


def test_warned_once_past_70_percent_and_evicted_down_to_half(finished):
    agent, tokens, steps = finished
    warned = [s for s in steps if s["warned"]]
    assert warned and all(tokens[s["turn"] - 1] >= WARN_AT * agent.context_tokens for s in warned)
    # an assistant's message runs no tools: right after an eviction the context fills at most half the
    # budget, or, when the blocks alone take more, holds only that message
    small = MemoryAgent(context_tokens=500, block_limit=100)
    seen = 0
    for t in SCENARIO.turns:
        changes = add_turn(small, SCENARIO, t.turn)
        if t.role == "assistant" and any(c.reason == "evicted to recall storage" for c in changes):
            seen += 1
            assert small.tokens() <= EVICT_TO * small.context_tokens or len(small.messages) == 1
    assert seen


def test_an_over_limit_append_returns_an_error_and_leaves_the_block_unchanged():
    agent = MemoryAgent(block_limit=60, context_tokens=400, persona="I help.")
    assert agent.core_memory_append("human", "name: Ines").startswith("OK")
    before = agent.core["human"]
    result = agent.core_memory_append("human", "x" * 80)
    assert result.startswith("Error") and "limit of 60" in result
    assert agent.core["human"] == before
    assert agent.changes[-1].event == "NOOP"


def test_replace_with_missing_old_text_or_an_unknown_label_changes_nothing():
    agent = MemoryAgent()
    agent.core_memory_append("human", "database: SQLite")
    before = dict(agent.core)
    missing = agent.core_memory_replace("human", "database: Oracle", "database: DuckDB")
    assert missing.startswith("Error") and "does not contain 'database: Oracle'" in missing
    unknown = agent.core_memory_replace("boss", "a", "b")
    assert unknown.startswith("Error") and "no block 'boss'" in unknown
    assert agent.core_memory_append("friend", "hello").startswith("Error")
    assert agent.core == before


def test_replace_corrects_and_deletes_lines():
    agent = MemoryAgent()
    agent.core_memory_append("human", "database: SQLite")
    agent.core_memory_append("human", "cloud: AWS")
    assert agent.core_memory_replace("human", "database: SQLite", "database: DuckDB").startswith("OK")
    assert agent.core_memory_replace("human", "cloud: AWS", "").startswith("OK")
    assert agent.core["human"] == "database: DuckDB"


def test_evicted_turns_are_found_by_conversation_search(finished):
    agent, _, steps = finished
    assert "m3" in evicted(agent) and "m3" in {i for s in steps for i in s["evictions"]}
    found = agent.conversation_search("JSONB")
    assert '[3] "user: For the database I want PostgreSQL' in found
    assert "JSONB" not in "".join(m["content"] for m in agent.messages if m["role"] != "system")


def test_search_pages_through_results():
    agent = MemoryAgent(context_tokens=450, block_limit=100)
    talk(agent, *[f"Coffee note {i}: the beans from shop {i} were roasted on day {i} of the month." for i in range(30)])
    hits = sum(int(i[1:]) % 2 for i in evicted(agent))     # the user's notes: m1, m3, …
    assert hits > 5
    assert agent.conversation_search("coffee beans", page=0).startswith(f"Results 1-5 of {hits} ")
    assert agent.conversation_search("coffee beans", page=1).startswith(f"Results 6-{min(10, hits)} of {hits} ")
    assert agent.conversation_search("coffee", page=99).startswith("No results")
    assert agent.archival_memory_search("zebra").startswith("No results")


def test_archival_insert_then_search():
    agent = MemoryAgent()
    assert agent.archival_memory_insert("The finance team reads the nightly CSV export every Monday.").startswith("OK")
    assert "nightly CSV export" in agent.archival_memory_search("when does finance read the export?")


def test_blocks_that_alone_exceed_the_budget_are_refused_at_construction():
    with pytest.raises(ValueError, match="context_tokens must hold the core blocks"):
        MemoryAgent(context_tokens=500, block_limit=2000)
    with pytest.raises(ValueError, match="persona must fit block_limit"):
        MemoryAgent(block_limit=20)


def test_a_message_too_long_for_any_room_is_cut_to_fit():
    agent = MemoryAgent(context_tokens=450, block_limit=100)
    agent.step("word " * 2000)
    assert agent.tokens() <= 450
    assert "truncated" in agent.messages[-1]["content"]


# ------------------------------------------------------------------ the loop, with any model
class Scripted:
    """A model that answers with the tool calls it is given, one list per round."""

    def __init__(self, *rounds):
        self.rounds, self.prompts, self.usage = list(rounds), [], OfflineLLM().usage

    def complete(self, messages, *, json_mode=False):
        return "summary"

    def complete_with_tools(self, messages, tools):
        self.prompts.append(messages)
        calls = self.rounds.pop(0) if self.rounds else []
        return {"role": "assistant", "content": "" if calls else "done",
                "tool_calls": [{"id": f"c{i}", "type": "function", "function": {"name": n, "arguments": a}}
                               for i, (n, a) in enumerate(calls)]}


def test_a_models_mistakes_come_back_as_results_never_as_exceptions():
    model = Scripted([("core_memory_append", '{"label": "human"}'),          # a missing argument
                      ("delete_everything", "{}"),                            # no such tool
                      ("core_memory_append", "not json"),
                      ("conversation_search", '{"query": "x", "page": -1}'),
                      ("conversation_search", '["x"]'),                        # not an object
                      ("core_memory_append", '{"label": "human", "content": "name: Ada"}')])
    agent = MemoryAgent(model)
    step = agent.step("Hello, my name is Ada.")
    results = [c["result"] for c in step["tool_calls"]]
    assert [r.startswith("Error") for r in results] == [True, True, True, True, True, False]
    assert "content" in results[0] and "no tool 'delete_everything'" in results[1] and "page" in results[3]
    assert agent.core["human"] == "name: Ada" and step["reply"] == "done"
    # the second round saw every result, each answering its call
    tool_messages = [m for m in model.prompts[1] if m["role"] == "tool"]
    assert [m["content"] for m in tool_messages] == results
    assert [m["tool_call_id"] for m in tool_messages] == ["c0", "c1", "c2", "c3", "c4", "c5"]


class Failing(Scripted):
    def complete(self, messages, *, json_mode=False):
        raise teachmem.LLMError("the endpoint is down")


def test_a_failed_summary_call_evicts_nothing():
    agent = MemoryAgent(Failing(), context_tokens=450, block_limit=100)
    with pytest.raises(teachmem.LLMError):
        for i in range(40):
            agent.step(f"Statement {i} about the garden, the roses and the new fence.")
    assert agent.messages[0]["content"].startswith("Statement 0 ") and len(agent.recall) == 0
    assert agent.tokens() <= 450            # the message that did not fit was not queued either


def test_the_warning_reaches_the_model_once():
    model = Scripted()
    agent = MemoryAgent(model, context_tokens=450, block_limit=100)
    for i in range(12):
        agent.step(f"Message number {i} is a plain statement with a handful of ordinary words in it.")
    warnings = [p for p in model.prompts if any(m["role"] == "system" and "Memory pressure" in m["content"]
                                                for m in p)]
    assert warnings, "the context passed 70 % without a warning"
    assert agent.tokens() <= 450


def test_the_tool_schemas_name_letta_tools():
    schemas = tool_schemas()
    assert [s["function"]["name"] for s in schemas] == ["core_memory_append", "core_memory_replace",
                                                        "archival_memory_insert", "archival_memory_search",
                                                        "conversation_search"]
    search = schemas[3]["function"]["parameters"]
    assert search["required"] == ["query"] and search["properties"]["page"]["type"] == "integer"
    assert set(TOOLS) == {s["function"]["name"] for s in schemas}


# ------------------------------------------------------------------ the offline policy on new conversations
def test_policy_new_conversation_a_frontend_changes():
    agent = MemoryAgent()
    talk(agent, "Hello, my name is Priya and I run a small bakery.", "The frontend is Vue.",
         "We store the orders in SQLite for now.", "We decided to use Svelte rather than Vue.")
    lines = agent.core["human"].splitlines()
    assert "name: Priya" in lines and "database: SQLite" in lines and "framework: Svelte" in lines
    assert "Vue" not in agent.core["human"]


def test_policy_new_conversation_b_the_user_moves():
    agent = MemoryAgent()
    steps = talk(agent, "Call me Tom. I am writing a Rust command-line tool.", "I live in Lisbon.",
                 "Our cloud is AWS.", "I moved to Porto last month.")
    lines = agent.core["human"].splitlines()
    assert "name: Tom" in lines and "location: Porto" in lines and "cloud: AWS" in lines
    assert "Lisbon" not in agent.core["human"]
    assert [c["name"] for c in steps[-1]["tool_calls"]] == ["core_memory_replace"]


def test_policy_new_conversation_c_searches_what_left_the_context():
    agent = MemoryAgent(context_tokens=450, block_limit=100)
    talk(agent, "The nightly export job writes CSV files to a bucket that the finance team reads every Monday.")
    talk(agent, *[f"Filler statement {i}: the weather was grey and the coffee was fine today." for i in range(20)])
    assert not any("nightly" in m["content"] for m in agent.messages)
    step = agent.step("Remind me, where does the nightly export go?")
    assert [c["name"] for c in step["tool_calls"]] == ["conversation_search", "archival_memory_search"]
    assert "finance team reads every Monday" in step["tool_calls"][0]["result"]
    assert any("finance team" in m["content"] for m in agent.context())   # the result is now in context


def test_policy_new_conversation_d_does_not_search_what_core_memory_holds():
    agent = MemoryAgent(context_tokens=450, block_limit=100)
    talk(agent, "We use Postgres.", *[f"Filler {i}: nothing much happened in the standup today at all." for i in range(20)])
    step = agent.step("Which database do we use?")
    assert step["tool_calls"] == []
    assert "database: PostgreSQL" in agent.context()[0]["content"]


def test_policy_stops_after_tools_and_moves_a_refused_append_to_archival():
    agent = MemoryAgent(block_limit=70, context_tokens=400, persona="I help.")
    talk(agent, "Hello, my name is Priya and I run a small bakery.", "We store the orders in SQLite for now.",
         "Our cloud is AWS.", "Our deadline is June 1.")
    step = agent.step("My budget is 50 dollars a month.")
    names = [c["name"] for c in step["tool_calls"]]
    assert names == ["core_memory_append", "archival_memory_insert"], names
    assert step["tool_calls"][0]["result"].startswith("Error")
    assert "budget: 50 dollars a month" in agent.archival_memory_search("budget")


def test_policy_reads_only_the_tools_it_is_offered():
    prompt = [{"role": "system", "content": "<human characters=\"0/400\">\n\n</human>"},
              {"role": "user", "content": "My name is Ines."}]
    assert decide(prompt, {"core_memory_append"}) == [("core_memory_append", {"label": "human",
                                                                             "content": "name: Ines"})]
    assert decide(prompt, {"conversation_search"}) == []
    assert fact_line("Project", "requirement:coverage_report", "coverage report") == (None, "requirement: coverage report")


def test_offline_answers_in_the_wire_format():
    prompt = [{"role": "system", "content": "<human characters=\"0/400\">\n\n</human>"},
              {"role": "user", "content": "My name is Ines."}]
    answer = OfflineLLM().complete_with_tools(prompt, tool_schemas())
    call = answer["tool_calls"][0]
    assert call["type"] == "function" and json.loads(call["function"]["arguments"]) == {"label": "human",
                                                                                        "content": "name: Ines"}
    with pytest.raises(TypeError, match="tools must be a non-empty list"):
        OfflineLLM().complete_with_tools(prompt, [])


# ------------------------------------------------------------------ the series' protocol
def test_replay_takes_the_agent_like_any_strategy():
    record = replay(SCENARIO, {"agent": MemoryAgent})
    question = SCENARIO.questions[0]
    assert record.answers("agent", question.turn, question) is True
    assert all(not s.leaks for s in record.steps["agent"])
    assert max(record.tokens("agent")) <= 1000


def test_add_returns_changes():
    agent = MemoryAgent()
    changes = agent.add("user", "Hello, my name is Priya.", turn=1)
    assert [(c.event, c.id) for c in changes] == [("ADD", "m1"), ("UPDATE", "human")]
    assert agent.add("assistant", "Hi Priya!", turn=2)[0].event == "ADD"


@pytest.mark.parametrize("call, error, match", [
    (lambda: MemoryAgent(context_tokens="big"), TypeError, "context_tokens"),
    (lambda: MemoryAgent(block_limit=0), ValueError, "block_limit"),
    (lambda: MemoryAgent(llm=object()), TypeError, "llm must be an object with complete_with_tools"),
    (lambda: MemoryAgent().add("robot", "hi"), ValueError, "role"),
    (lambda: MemoryAgent().add("user", 5), TypeError, "content"),
    (lambda: MemoryAgent().add("user", " "), ValueError, "content"),
    (lambda: MemoryAgent().step(""), ValueError, "user_message"),
    (lambda: MemoryAgent().step("hi", turn=-1), ValueError, "turn"),
    (lambda: MemoryAgent().step("hi", timestamp="2026-03-01"), TypeError, "timestamp"),
    (lambda: MemoryAgent().add("assistant", "hi", timestamp=1), TypeError, "timestamp"),
    (lambda: MemoryAgent().core_memory_append(5, "x"), TypeError, "label"),
    (lambda: MemoryAgent().core_memory_replace("human", "", "x"), ValueError, "old"),
    (lambda: MemoryAgent().archival_memory_insert(None), TypeError, "content"),
    (lambda: MemoryAgent().conversation_search("x", page=-1), ValueError, "page"),
    (lambda: MemoryAgent().archival_memory_search("x", page="1"), TypeError, "page"),
    (lambda: MemoryAgent().erase("Maya"), TypeError, "pattern"),
])
def test_bad_input_is_a_clear_error_naming_the_argument(call, error, match):
    with pytest.raises(error, match=match):
        call()


def test_a_refused_turn_changes_nothing():
    agent = MemoryAgent()
    agent.step("Hello, my name is Priya.", turn=3)
    before = state_of(agent)
    with pytest.raises(ValueError, match="turn"):
        agent.step("I live in Lisbon.", turn=2)
    assert state_of(agent) == before


def test_to_state_round_trip_and_the_database(tmp_path, finished):
    agent, _, _ = finished
    again = restore(MemoryAgent, json.loads(json.dumps(state_of(agent))))
    assert again.context() == agent.context() and again.core == agent.core
    assert again.conversation_search("JSONB") == agent.conversation_search("JSONB")
    with MemoryDB(tmp_path / "m.db") as db:
        db.save(agent, user_id="maya")
        loaded = db.load(user_id="maya")
    assert isinstance(loaded, MemoryAgent) and state_of(loaded) == state_of(agent)
    assert loaded.context() == agent.context()     # the blocks in their order, though the file sorts keys
    # both go on the same way
    assert again.step("I moved to Porto last month.")["tool_calls"] == \
        loaded.step("I moved to Porto last month.")["tool_calls"]


def test_forget_reaches_every_tier():
    agent, _, _ = run_scenario()
    agent.archival_memory_insert("Maya's sister runs the yoga studio.")
    audit = forget(agent, "Maya")
    assert audit.clean, str(audit)
    assert "Maya" not in json.dumps(state_of(agent))
    assert re.search("forgotten", agent.core["human"])


def test_timestamps_reach_recall_storage():
    agent = MemoryAgent(context_tokens=450, block_limit=100)
    for i in range(30):
        agent.step(f"Statement {i} about the garden, the roses and the new fence.", timestamp=datetime(2026, 3, 1 + i))
    row = next(r for r, text in enumerate(agent.recall.texts) if "Statement 0 " in text)
    assert agent.recall.metadata[row]["timestamp"] == "2026-03-01T00:00:00"


def test_the_agent_is_exported():
    assert teachmem.MemoryAgent is MemoryAgent
