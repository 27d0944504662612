"""The replay engine, its leak rule, the notebook 07 views at every slider position, and the 06/07 exercises."""
import json

import ipywidgets
import numpy as np
import pytest

from conftest import load_solutions
from teachmem import (ConversationBuffer, EntityMemory, HybridMemoryManager, SemanticMemoryStore, SlidingWindowMemory,
                      SummaryMemory, list_scenarios, load_scenario)
from teachmem.lessons import compare, hybrid
from teachmem.core.change import Change
from teachmem.lab.replay import (comparison_strategies, extraction_strategies, extractions, feed, held_facts,
                                 latest_user_message, leaked_facts,
                             model_calls, replacements, replay)
from teachmem.lab.scenarios import DATA, ScenarioError
from teachmem.core.tokens import count_message_tokens
from teachmem.lessons.common import explore, shown_text
from teachmem.app.comparison import EXTRACTORS, comparison_view, extraction_view
from teachmem.lessons.hybrid import budget_view


@pytest.fixture(scope="module")
def project():
    return load_scenario("project_30")


@pytest.fixture(scope="module")
def results(project):
    return replay(project, comparison_strategies())


@pytest.fixture(scope="module")
def extracted(project):
    return extractions(project)


# ---------------------------------------------------------------- the leak rule
def test_a_superseded_fact_leaks_only_without_its_replacement(project):
    old, jsonb = "db_postgresql", "db_reason_jsonb"
    assert [f.id for f in replacements(project, project.fact(old))] == ["db_mysql"]
    assert [f.id for f in replacements(project, project.fact(jsonb))] == ["db_mysql"]
    assert replacements(project, project.fact("db_mysql")) == ()
    pinned = "For the database I want PostgreSQL, mainly for its JSONB support."
    assert leaked_facts(project, pinned, 16) == frozenset()            # still true on turn 16
    assert leaked_facts(project, pinned, 17) == {old, jsonb}           # replaced on turn 17, nothing says so
    assert leaked_facts(project, pinned + " Let's switch to MySQL 8 instead.", 29) == frozenset()
    assert leaked_facts(project, "Project.database = MySQL (since turn 17, was PostgreSQL)", 29) == frozenset()
    assert leaked_facts(project, "changelog: Project.database PostgreSQL → MySQL", 29) == frozenset()
    assert leaked_facts(project, "We use MySQL.", 29) == frozenset()
    assert leaked_facts(project, "postgres is fine", 20) == {old}       # any keyword, any case


def test_a_deleted_fact_leaks_whenever_it_is_mentioned():
    scenario = load_scenario("forget_address")
    deleted = [f for f in scenario.facts if f.deleted]
    assert deleted and all(replacements(scenario, f) == () for f in deleted)
    for fact in deleted:
        text = f"By the way: {fact.keywords[0]}"
        assert fact.id not in leaked_facts(scenario, text, fact.superseded_turn - 1)
        assert fact.id in leaked_facts(scenario, text, fact.superseded_turn)


def test_held_facts_count_only_what_was_said_by_then(project):
    text = "Launch at the end of March, MySQL, pytest."
    assert held_facts(project, text, 7) == {"tests_pytest"}
    assert held_facts(project, text, 27) == {"tests_pytest", "db_mysql", "launch_march"}


def test_latest_user_message(project):
    assert latest_user_message(project, 1) == project.turns[0].content
    assert latest_user_message(project, 30) == latest_user_message(project, 29) == project.questions[0].text


# ---------------------------------------------------------------- replay records
def test_replay_records_what_a_fresh_memory_would_send(project, results):
    assert results.strategies == ["buffer", "window", "summary", "entity", "semantic", "hybrid"]
    factories = comparison_strategies()
    for name in results.strategies:
        assert [s.turn for s in results.steps[name]] == list(range(1, 31))
        for turn in (1, 6, 16, 17, 23, 29, 30):
            memory = factories[name]()
            # Replay asks for the context after every turn; so do we, in case asking changes a memory.
            for t in range(1, turn + 1):
                feed_one = project.turns[t - 1]
                memory.add(feed_one.role, feed_one.content, turn=t, timestamp=project.timestamp(t))
                context = memory.context(latest_user_message(project, t))
            step = results.at(name, turn)
            assert list(step.context) == context, (name, turn)
            assert step.tokens == count_message_tokens(context)
            text = "\n".join(m["content"] for m in context)
            assert step.holds == held_facts(project, text, turn) and step.leaks == leaked_facts(project, text, turn)


def test_replay_results_are_copies(project, results):
    step = results.at("buffer", 3)
    step.context[0]["content"] = "changed"
    assert replay(project, {"buffer": ConversationBuffer}).at("buffer", 3).context[0]["content"] != "changed"
    step.context[0]["content"] = project.turns[0].content


def test_the_story_of_the_30_turns(project, results):
    question, change = project.questions[0], project.fact("db_postgresql")
    for name in results.strategies:
        assert all(results.answers(name, t, question) is None for t in range(1, 17))
        assert all(results.reflects(name, t, change) is None for t in range(1, 17))
    assert results.answers("buffer", 29, question) and results.answers("hybrid", 29, question)
    assert results.answers("entity", 29, question) and results.answers("summary", 29, question)
    # The window's two pins go to the switch to MySQL (turn 17, the highest score among the older
    # messages) and the PostgreSQL decision (turn 3): the old value stays, but with its correction, so
    # nothing leaks. It still misses pytest (turn 7), so it cannot answer.
    assert not results.answers("window", 29, question)
    assert results.at("window", 29).leaks == frozenset()
    assert results.reflects("window", 29, change) is True and results.reflects("window", 17, change) is True
    assert all(not results.at(n, t).leaks for n in ("buffer", "entity", "hybrid") for t in range(1, 31))
    # The buffer grows every turn; the entity memory stays small.
    assert results.tokens("buffer") == sorted(results.tokens("buffer"))
    assert max(results.tokens("entity")) < min(results.tokens("buffer")[16:])


def test_model_calls_come_from_the_strategy_model(project, results):
    assert results.calls("buffer") == [0] * 30 and results.calls("entity") == [0] * 30
    assert results.calls("summary") == sorted(results.calls("summary")) and results.calls("summary")[-1] == 5
    users = np.cumsum([t.role == "user" for t in project.turns]).tolist()
    assert results.calls("hybrid") == users
    summary = feed(SummaryMemory(summarize_every=6), project)
    assert model_calls(summary) == summary.llm.usage.calls == 5
    assert model_calls(object()) == 0


def test_recall_matrix(project, results):
    recall = results.recall()
    assert recall.shape == (6, len(project.facts)) and ((0 <= recall) & (recall <= 1)).all()
    assert (recall[0] == 1).all()                      # the buffer holds everything while it is true
    window, pytest_ = results.strategies.index("window"), [f.id for f in project.facts].index("tests_pytest")
    current = [t for t in range(1, 31) if project.fact("tests_pytest").is_current(t)]
    want = sum("tests_pytest" in results.at("window", t).holds for t in current) / len(current)
    assert recall[window, pytest_] == pytest.approx(want) and 0 < want < 1


def test_bad_input(project, results, tmp_path):
    with pytest.raises(ValueError, match="strategies must name at least one"):
        replay(project, {})
    with pytest.raises(TypeError, match=r"strategies\['x'\] must be a factory"):
        replay(project, {"x": ConversationBuffer()})
    with pytest.raises(TypeError, match=r"strategies\['x'\] built a int"):
        replay(project, {"x": int})
    with pytest.raises(ValueError, match="turn must be an int between 1 and 30, got 31"):
        results.at("buffer", 31)
    with pytest.raises(KeyError, match="no strategy 'tape'"):
        results.at("tape", 3)
    broken = json.loads((DATA / "project_30.json").read_text(encoding="utf-8"))
    del broken["facts"][1]["keywords"]
    path = tmp_path / "broken.json"
    path.write_text(json.dumps(broken))
    with pytest.raises(ScenarioError, match=rf"{path}: facts\[1\] is missing the field 'keywords'"):
        load_scenario(path)


def test_an_empty_conversation_gives_empty_contexts():
    for name, make in comparison_strategies().items():
        memory = make()
        assert memory.context() == [] and memory.context("which database?") == [], name


def test_every_builtin_scenario_replays(project):
    for name in list_scenarios():
        scenario = load_scenario(name)
        result = replay(scenario, {"buffer": ConversationBuffer, "entity": EntityMemory})
        assert len(result.steps["buffer"]) == len(scenario)
        last = result.at("buffer", len(scenario))
        assert last.holds == {f.id for f in scenario.facts}   # the buffer heard everything


# ---------------------------------------------------------------- extractions
def test_extractions_say_what_each_system_took(project, extracted):
    assert sorted(extracted) == list(range(1, 31))
    for turn, row in extracted.items():
        said = project.turns[turn - 1]
        assert set(row) == set(EXTRACTORS)
        assert row["buffer"] == [Change("ADD", f"m{turn}", f"{said.role}: {said.content}", reason="new message")]
        assert row["summary"][0] == row["buffer"][0]          # the message waits, word for word
        assert all(isinstance(c, Change) for changes in row.values() for c in changes)
    folds = [turn for turn, row in extracted.items() if any(c.id == "summary" for c in row["summary"])]
    assert folds == [6, 12, 18, 24, 30]                       # one fold every 6 messages
    first, rewrite = extracted[6]["summary"][1], extracted[12]["summary"][1]
    assert first.event == "ADD" and rewrite.event == "UPDATE" and rewrite.previous == first.text
    assert "pytest" in rewrite.text                           # said on turn 7, folded on turn 12
    assert [(c.event, c.id, c.reason) for c in extracted[12]["summary"][2:]] == [
        ("DELETE", f"m{t}", "folded into the summary") for t in range(7, 13)]
    assert extracted[13]["summary"] == extracted[13]["buffer"]


def test_summary_changes_really_entered_the_summary(project, extracted):
    memory, summaries = SummaryMemory(summarize_every=6), set()
    for t in project.turns:
        memory.add(t.role, t.content, turn=t.turn)
        summaries.add(memory.summary)
    rewrites = [c.text for row in extracted.values() for c in row["summary"] if c.id == "summary"]
    assert rewrites and set(rewrites) <= summaries


class Highlighter:
    """A tiny strategy whose write reports what it took from the message, with its span."""

    def __init__(self):
        self.kept, self.context = [], lambda query=None: []

    def add(self, role, content, *, turn=None, timestamp=None):
        start = content.find("PostgreSQL")
        if role != "user" or start < 0:
            return [Change("NOOP", f"m{turn}", content, reason="nothing worth keeping")]
        self.kept.append(content[start:start + 10])
        return [Change("ADD", f"f{len(self.kept)}", "PostgreSQL", reason="a database", span=(start, start + 10))]


def test_extractions_pass_on_what_any_strategy_reports(project):
    extracted = extractions(project, {"highlighter": Highlighter, "buffer": ConversationBuffer})
    assert all(set(row) == {"highlighter", "buffer"} for row in extracted.values())
    added = {turn: row["highlighter"][0] for turn, row in extracted.items() if row["highlighter"][0].event == "ADD"}
    assert 3 in added and [c.id for c in added.values()] == [f"f{i}" for i in range(1, len(added) + 1)]
    for turn, change in added.items():
        start, end = change.span
        assert project.turns[turn - 1].content[start:end] == "PostgreSQL"
    result = replay(project, {"highlighter": Highlighter})
    assert [s.changes for s in result.steps["highlighter"]] == [tuple(row["highlighter"]) for row in extracted.values()]


def test_a_strategy_that_reports_nothing_still_replays(project):
    class Quiet(ConversationBuffer):                          # written before writes returned Changes
        def add(self, *args, **kwargs):
            super().add(*args, **kwargs)

    result = replay(project, {"quiet": Quiet, "buffer": ConversationBuffer})
    assert all(s.changes == () for s in result.steps["quiet"])
    assert result.tokens("quiet") == result.tokens("buffer")
    assert [len(s.changes) for s in result.steps["buffer"]] == [1] * 30


REPORTS = {name: make().add("user", "For the database I want PostgreSQL.", turn=1) is not None
           for name, make in extraction_strategies().items()}


@pytest.mark.skipif(not (REPORTS["entity"] and REPORTS["semantic"]),
                    reason="EntityMemory and SemanticMemoryStore do not return their Changes yet")
def test_entity_and_semantic_extractions_are_changes_with_spans(project, extracted):
    for turn, row in extracted.items():
        said = project.turns[turn - 1]
        assert any(said.content in c.text for c in row["semantic"])
        if said.role != "user":
            assert row["entity"] == []                        # only the user's messages are mined
        for c in row["entity"] + row["semantic"]:
            if c.span is not None:
                start, end = c.span
                assert 0 <= start < end <= len(said.content)
    changed = extracted[17]["entity"]
    assert any("MySQL" in c.text for c in changed if c.event in ("ADD", "UPDATE"))
    assert any("PostgreSQL" in (c.previous or c.text) for c in changed if c.event in ("UPDATE", "DELETE"))


# ---------------------------------------------------------------- the views, at every slider position
def test_comparison_view_every_turn(project, results):
    question, change = project.questions[0], project.fact("db_postgresql")
    for turn in range(1, 31):
        text = comparison_view(results, turn)
        table = text.split("\n\n")[1].splitlines()
        assert table[0].startswith("strategy") and len(table) == 7
        for row, name in zip(table[1:], results.strategies, strict=True):
            step = results.at(name, turn)
            cells = row.split()
            assert cells[0] == name and cells[1] == f"{step.tokens:,}" and cells[2] == str(step.model_calls)
            marks = {None: "–", True: "✓", False: "✗"}
            assert cells[3] == marks[results.reflects(name, turn, change)]
            assert cells[4] == marks[results.answers(name, turn, question)]
            if not step.leaks:
                assert cells[5] == "–"
            else:
                assert all(project.fact(i).value in row for i in step.leaks)
        for name in results.strategies:
            assert f"── {name} would send {results.at(name, turn).tokens:,} tokens:" in text
    assert comparison_view(results, 16) != comparison_view(results, 29)
    with pytest.raises(ValueError, match="turn must be an int between 1 and 30, got 0"):
        comparison_view(results, 0)


def test_comparison_widget_only_looks_up(results, monkeypatch):
    slider = ipywidgets.IntSlider(value=16, min=1, max=30)
    box = explore(comparison_view, replay=ipywidgets.fixed(results), turn=slider)
    assert shown_text(box) == comparison_view(results, 16) + "\n"
    monkeypatch.setattr("teachmem.lab.replay.replay", lambda *a, **k: pytest.fail("a slider must not replay"))
    slider.value = 29
    assert shown_text(box) == comparison_view(results, 29) + "\n"


def test_extraction_view_every_turn(project, extracted):
    for turn in range(1, 31):
        text = extraction_view(extracted, turn, project)
        assert text.startswith(f"the message of turn {turn}:")
        assert [line for line in text.splitlines() if line.startswith("── ")] == [f"── {s}" for s in EXTRACTORS]
        assert " ".join(text.split()).count(" ".join(project.turns[turn - 1].content.split())[:60]) >= 1
    with pytest.raises(ValueError, match="turn must be between 1 and 30, got 31"):
        extraction_view(extracted, 31)


@pytest.mark.parametrize("budget", range(600, 3501, 100))
def test_budget_view_every_slider_position(project, budget):
    text = budget_view(project, budget)
    manager = feed(HybridMemoryManager(budget), project, 28)
    trace = manager.explain_prompt(project.turns[28].content)
    assert text.splitlines()[0].startswith(f"budget {budget:,}: prompt {trace.prompt_tokens:,} tokens")
    assert trace.prompt_tokens <= budget - 500
    shown = [line for line in text.splitlines()[1:] if line[:1] in "✓✗"]
    listed = [c for c in trace.candidates if not c.reason.startswith("outside")]
    assert [line[0] for line in shown] == ["✓" if c.kept else "✗" for c in listed]


@pytest.mark.parametrize("budget", range(600, 3501, 100))
def test_budget_view_fits_a_projected_notebook(project, budget):
    """Every line fits the ~930 px a 1280×720 JupyterLab leaves for a cell (no wrapping), and a dropped window
    message says what the window had left, as the manager's own reason does."""
    text = budget_view(project, budget)
    assert max(len(line) for line in text.splitlines()) <= 92
    trace = feed(HybridMemoryManager(budget), project, 28).explain_prompt(project.turns[28].content)
    full = [c for c in trace.candidates if c.source == "message" and not c.kept and not c.reason.startswith("outside")]
    assert full or budget > 1000, "a tight budget leaves window messages out"
    for c in full:
        left = c.reason.rsplit(": ", 1)[-1]            # "in the window, but the budget is full: 29 left"
        line = next(line for line in text.splitlines() if line.startswith(f"✗ message turn {c.turn:>2} "))
        assert line.endswith(f"full: {left}")


def test_the_budget_explorer_keeps_its_slider_in_sight(project):
    box = hybrid.budget_explorer(project)
    slider, out = box.children
    assert (slider.min, slider.max, slider.step, slider.value) == (600, 3500, 100, 1000)
    assert out.layout.max_height == "430px" and out.layout.overflow == "auto"
    slider.value = 700
    assert shown_text(box) == budget_view(project, 700) + "\n"


def test_budget_view_refuses_an_assistant_turn(project):
    with pytest.raises(ValueError, match="turn must be a turn where the user speaks, got turn 30"):
        budget_view(project, 1000, turn=30)
    with pytest.raises(ValueError, match="turn must be an int between 1 and 30, got 31"):
        budget_view(project, 1000, turn=31)


# ---------------------------------------------------------------- exercises of notebooks 06 and 07
# Each exercise is proven three ways in tests/notebooks/test_06_07_exercises.py; here, the function exercise and the stubs.
def test_checkers_pass_the_solutions_and_fail_wrong_answers():
    s07 = load_solutions("07_compare_strategies")
    assert compare.check_answers_from(s07.answers_from)
    assert not compare.check_answers_from(lambda r: {n: len(r.scenario) for n in r.strategies})   # the last turn


def test_untouched_stubs_say_not_implemented(capsys):
    def stub(*args):
        raise NotImplementedError

    assert not compare.check_answers_from(stub)
    assert "not implemented yet" in capsys.readouterr().out
    for check in (hybrid.check_predicted_turns, compare.check_predicted_ratio):
        assert not check(...)
        assert "not answered yet" in capsys.readouterr().out


def test_comparison_strategies_have_the_settings_notebook_07_names():
    strategies = comparison_strategies()
    window, summary = strategies["window"](), strategies["summary"]()
    assert isinstance(window, SlidingWindowMemory) and (window.recent_k, window.important_k) == (6, 2)
    assert isinstance(summary, SummaryMemory) and summary.summarize_every == 6
    assert isinstance(strategies["semantic"](), SemanticMemoryStore)
    hybrid = strategies["hybrid"]()
    assert isinstance(hybrid, HybridMemoryManager) and hybrid.token_budget == 3500
    assert strategies["buffer"] is ConversationBuffer and strategies["entity"] is EntityMemory


def test_replay_moves_a_simulated_clock_to_each_turn():
    scenario = load_scenario("traveller_sessions")
    store = feed(SemanticMemoryStore(), scenario, upto=10)
    assert store.clock() == scenario.timestamp(10)
    hybrid = feed(HybridMemoryManager(), scenario)
    assert hybrid.clock() == scenario.timestamp(len(scenario)) > scenario.timestamp(1)
    assert feed(ConversationBuffer(), scenario).token_count() > 0   # no clock: nothing to move
