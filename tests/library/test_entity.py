"""EntityMemory: triples, recency, changelog, temporal validity, relevance, LLM extraction, bad input."""
import json
from datetime import datetime

import pytest

from teachmem import EntityMemory, ManualClock, Memory, OfflineLLM, fact_in_text
from teachmem.llm import ExtractionError, ExtractionWarning, Usage
from teachmem.lab.replay import feed


def first_example(**kwargs) -> EntityMemory:
    """The first example of notebooks/04_entity_memory.ipynb: three statements, one change of database."""
    mem = EntityMemory(**kwargs)
    mem.extract_and_store("We're building with React and PostgreSQL", turn_number=1)
    mem.extract_and_store("Authentication will use JWT tokens", turn_number=5)
    mem.extract_and_store("Actually, let's switch to MySQL instead", turn_number=12)
    return mem


FIRST_FACTS = "[Project] database: MySQL, framework: React\n[API] auth_method: JWT"
FIRST_CHANGELOG = [{"turn": 12, "entity": "Project", "attribute": "database", "old": "PostgreSQL", "new": "MySQL"}]


def test_the_first_example_prints_its_facts_and_changelog(capsys):
    mem = first_example()
    print(mem.get_relevant())
    print(mem.get_changelog())
    assert capsys.readouterr().out == FIRST_FACTS + "\n" + repr(FIRST_CHANGELOG) + "\n"
    assert mem.entities == {"Project": {"database": "MySQL", "framework": "React"}, "API": {"auth_method": "JWT"}}


def test_as_of_answers_what_was_true_then():
    mem = first_example()
    assert mem.as_of(0) == {}
    for turn in (1, 4):
        assert mem.as_of(turn) == {"Project": {"database": "PostgreSQL", "framework": "React"}}
    assert mem.as_of(11) == {"Project": {"database": "PostgreSQL", "framework": "React"},
                             "API": {"auth_method": "JWT"}}
    assert mem.as_of(12) == mem.as_of(99) == mem.entities
    assert mem.get_changelog(as_of=11) == [] and mem.get_changelog(as_of=12) == FIRST_CHANGELOG
    assert mem.get_relevant(as_of=4) == "[Project] database: PostgreSQL, framework: React"


def test_old_values_are_closed_not_erased_with_provenance(scenario):
    mem = feed(EntityMemory(), scenario)
    db = [f for f in mem.values if f.attribute == "database"]
    assert [(f.value, f.valid_from, f.valid_to) for f in db] == [("PostgreSQL", 3, 17), ("MySQL", 17, None)]
    assert (db[0].since, db[0].until) == (scenario.timestamp(3), scenario.timestamp(17))
    assert db[1].since == scenario.timestamp(17) and db[1].until is None
    assert all(0.7 <= f.confidence <= 1 for f in mem.values)


def test_the_full_history_replays_every_turn_exactly(scenario):
    """as_of(t) on the memory that saw everything == the memory that only saw turns 1..t."""
    full = feed(EntityMemory(), scenario)
    for turn in range(1, len(scenario) + 1):
        partial = feed(EntityMemory(), scenario, turn)
        assert full.as_of(turn) == partial.entities
        assert full.get_changelog(as_of=turn) == partial.get_changelog()
        assert full.get_relevant(as_of=turn) == partial.get_relevant()


def test_scenario_facts_and_the_one_change(scenario):
    mem = feed(EntityMemory(), scenario)
    known = mem.get_relevant()
    current = [f for f in scenario.facts if f.is_current(len(scenario))]
    # Entity memory keeps values, not reasons: the JSONB reason is gone with PostgreSQL anyway.
    assert [f.id for f in current if not fact_in_text(f, known)] == []
    assert not fact_in_text(scenario.fact("db_postgresql"), known)
    assert mem.get_changelog() == [{"turn": 17, "entity": "Project", "attribute": "database",
                                    "old": "PostgreSQL", "new": "MySQL"}]


def test_restating_a_value_is_not_a_change_and_going_back_is():
    mem = EntityMemory()
    mem.extract_and_store("We use PostgreSQL.", 1)
    mem.extract_and_store("we use postgresql", 2)
    assert mem.get_changelog() == [] and mem.values[0].valid_from == 1 and len(mem.values) == 1
    mem.extract_and_store("Let's switch to MySQL instead.", 3)
    mem.extract_and_store("Let's switch back to PostgreSQL instead.", 9)
    assert [(c["old"], c["new"], c["turn"]) for c in mem.get_changelog()] == [("PostgreSQL", "MySQL", 3),
                                                                           ("MySQL", "PostgreSQL", 9)]
    assert [mem.as_of(t)["Project"]["database"] for t in (1, 2, 3, 8, 9)] == \
        ["PostgreSQL", "PostgreSQL", "MySQL", "MySQL", "PostgreSQL"]


def test_add_follows_the_protocol_and_only_mines_the_user():
    mem = EntityMemory()
    assert isinstance(mem, Memory) and mem.context() == [] and mem.context("database") == []
    mem.add("assistant", "Let's use MongoDB instead.")
    assert mem.values == [] and mem.last_turn == 1
    mem.add("user", "For the database I want PostgreSQL.")
    assert mem.context() == [{"role": "system", "content": "Known facts:\n[Project] database: PostgreSQL"}]
    assert mem.values[0].valid_from == 2
    assert mem.values[0].since == ManualClock()()   # the default clock, never the wall clock


def test_relevance_filter_when_the_store_is_large(scenario):
    small = feed(EntityMemory(), scenario)
    assert small.get_relevant("which database?") == small.get_relevant()   # small store: everything
    large = feed(EntityMemory(small_store=3), scenario)
    assert large.get_relevant("Which database should CI start?") == "[Project] database: MySQL"
    assert large.get_relevant("") == small.get_relevant()               # no query: everything
    assert large.get_relevant("the weather in Lisbon") == ""
    assert large.context("the weather in Lisbon") == []
    assert "test_framework: pytest" in large.get_relevant("which tests do we run?")
    # Single letters do not count: the "s" of "what's" must not match the "s" of "sister's".
    assert large.get_relevant("What's the hosting budget?") == "[Project] hosting_budget: about 20 dollars a month"
    strict = feed(EntityMemory(small_store=3, min_overlap=2), scenario)
    assert strict.get_relevant("Which database should CI start?") == ""
    assert strict.get_relevant("the project database") == "[Project] database: MySQL"


@pytest.mark.parametrize("content", ["", "   \n\t", "😅🎉🔥🙏", "x" * 100_000,
                                     "blah " * 20_000 + "We use PostgreSQL."])
def test_junk_messages_give_no_facts_and_no_crash(content):
    mem = first_example()
    before = mem.to_state()
    mem.extract_and_store(content, 13)
    mem.add("user", content, turn=14)
    state = mem.to_state()
    if "PostgreSQL" in content:   # a real fact at the end of a huge message is still found
        assert mem.entities["Project"]["database"] == "PostgreSQL"
    else:
        assert state["history"] == before["history"]
    assert state["last_turn"] == 14


class FakeLLM:
    """A model that answers whatever it was told to, and counts its calls."""

    def __init__(self, reply: str):
        self.reply, self.usage = reply, Usage()

    def complete(self, messages, *, json_mode=False):
        self.usage.record(10, 10)
        return self.reply


@pytest.mark.parametrize("reply", ["not json at all {", '{"triples": "MySQL"}', "[1, 2]",
                                   '{"triples": [{"entity": "Project", "value": "MySQL"}]}'])
def test_malformed_json_raises_or_warns_and_the_store_is_untouched(reply):
    mem = first_example()
    mem.llm = FakeLLM(reply)
    before = mem.to_state()
    with pytest.raises(ExtractionError):
        mem.extract_and_store("Let's switch to SQLite instead.", 20)
    assert mem.to_state() == before
    with pytest.raises(ExtractionError):
        mem.add("user", "Let's switch to SQLite instead.", turn=20)
    assert mem.to_state() == before   # not even the turn counter moved
    mem.on_error = "warn"
    with pytest.warns(ExtractionWarning, match="extraction skipped"):
        assert mem.extract_and_store("Let's switch to SQLite instead.", 20) == []
    assert mem.to_state()["history"] == before["history"]


def test_llm_extraction_and_the_confidence_filter():
    llm = OfflineLLM()
    mem = first_example(llm=llm)
    assert mem.get_relevant() == FIRST_FACTS and mem.get_changelog() == FIRST_CHANGELOG
    assert llm.usage.calls == 3 and llm.usage.prompt_tokens > 0
    unsure = FakeLLM(json.dumps({"triples": [
        {"entity": "Project", "attribute": "database", "value": "MongoDB", "confidence": 0.4},
        {"entity": "User", "attribute": "name", "value": "Dana", "confidence": 0.95}]}))
    mem = EntityMemory(llm=unsure)
    mem.extract_and_store("Maybe MongoDB? I'm Dana.", 1)
    assert mem.entities == {"User": {"name": "Dana"}} and mem.values[0].confidence == 0.95
    trusting = EntityMemory(llm=unsure, min_confidence=0.3)
    trusting.extract_and_store("Maybe MongoDB? I'm Dana.", 1)
    assert trusting.entities["Project"] == {"database": "MongoDB"}


@pytest.mark.parametrize("kwargs, error, name", [
    ({"min_confidence": 1.5}, ValueError, "min_confidence"), ({"min_confidence": "high"}, TypeError, "min_confidence"),
    ({"small_store": -1}, ValueError, "small_store"), ({"min_overlap": 0}, ValueError, "min_overlap"),
    ({"on_error": "ignore"}, ValueError, "on_error")])
def test_bad_constructor_arguments_name_the_argument(kwargs, error, name):
    with pytest.raises(error, match=name):
        EntityMemory(**kwargs)


def test_bad_calls_name_the_argument_and_change_nothing():
    mem = first_example()
    before = mem.to_state()
    with pytest.raises(ValueError, match="turn_number"):
        mem.extract_and_store("We use SQLite.", 11)        # turn 12 was already stored
    with pytest.raises(TypeError, match="message"):
        mem.extract_and_store(None, 13)
    with pytest.raises(TypeError, match="timestamp"):
        mem.extract_and_store("We use SQLite.", 13, timestamp="yesterday")
    with pytest.raises(TypeError, match="query"):
        mem.get_relevant(["database"])
    with pytest.raises(ValueError, match="as_of"):
        mem.as_of(-1)
    assert mem.to_state() == before


def test_state_round_trip_is_exact_and_json(scenario):
    for upto in (0, 3, 17, 30):
        mem = feed(EntityMemory(small_store=2), scenario, upto)
        state = json.loads(json.dumps(mem.to_state()))
        again = EntityMemory.from_state(state)
        assert again.to_state() == mem.to_state()
        for query in (None, "", "which database?", "tests"):
            assert again.context(query) == mem.context(query)
        for turn in range(0, upto + 1):
            assert again.as_of(turn) == mem.as_of(turn)
        assert again.get_changelog() == mem.get_changelog()
    stamp = datetime(2026, 5, 1, 12, 0)
    mem.extract_and_store("Let's switch to SQLite instead.", 31, timestamp=stamp)
    again = EntityMemory.from_state(json.loads(json.dumps(mem.to_state())))
    mysql = next(f for f in again.values if f.value == "MySQL")
    assert again.values[-1].since == stamp and (mysql.valid_to, mysql.until) == (31, stamp)


# ------------------------------------------------ notebook 04: the view and the plot (the checkers: test_03_04_exercises.py)
from teachmem.lessons.entity import entity_view, plot_validity, wrapped              # noqa: E402


def test_entity_view_at_every_turn(scenario):
    memory = feed(EntityMemory(), scenario)
    for turn in range(1, len(scenario) + 1):
        text = entity_view(memory, turn, scenario)
        said = scenario.turns[turn - 1]
        assert text.startswith(f"turn {turn} · {said.role}: {said.content[:40]}")
        known = memory.get_relevant(as_of=turn)
        assert f"facts true after turn {turn}:\n{wrapped(known or '(none yet)')}\n" in text   # wrapped to the page
        assert ("turn 17: Project.database PostgreSQL → MySQL" in text) == (turn >= 17)
        assert ("(no changes yet)" in text) == (turn < 17)
        truth = [f for f in scenario.facts if f.is_current(turn)]
        found = sum(fact_in_text(f, known) for f in truth)
        assert f"the scenario's facts true at turn {turn}: {found} of {len(truth)} known" in text
        database = "MySQL" if turn >= 17 else "PostgreSQL" if turn >= 3 else None
        assert (f"database: {database}" in text) if database else ("database:" not in text)
    assert "✗ Project.database_reason: JSONB support" in entity_view(memory, 10, scenario)
    with pytest.raises(ValueError, match="turn must be between 1 and 30"):
        entity_view(memory, 31, scenario)
    assert entity_view(EntityMemory(), 3).startswith("facts true after turn 3:\n(none yet)")


def test_plot_validity_draws_one_bar_per_value(scenario):
    memory = feed(EntityMemory(), scenario)
    fig = plot_validity(memory, last_turn=30)
    ax = fig.axes[0]
    assert len(ax.patches) == len(memory.values)
    widths = sorted((p.get_x(), p.get_width()) for p in ax.patches if p.get_x() in (3, 17))
    assert (3, 14) in widths and (17, 14) in widths   # PostgreSQL 3-17, MySQL 17-end


# ------------------------------------------------ writes say what they changed; facts by id
def test_writes_return_their_changes_with_spans():
    mem = EntityMemory()
    said = "We're building with React and PostgreSQL"
    changes = mem.extract_and_store(said, turn_number=1)
    assert [(c.event, c.id, c.text) for c in changes] == [("ADD", "e1", "Project.framework = React"),
                                                          ("ADD", "e2", "Project.database = PostgreSQL")]
    assert [said[slice(*c.span)] for c in changes] == ["React", "PostgreSQL"]
    switch = "Actually, let's switch to MySQL instead"
    [update] = mem.add("user", switch, turn=12)
    assert (update.event, update.id, update.text, update.previous) == (
        "UPDATE", "e2", "Project.database = MySQL", "Project.database = PostgreSQL")
    assert "turn 12" in update.reason and switch[slice(*update.span)] == "MySQL"
    [again] = mem.add("user", "we use mysql", turn=13)
    assert (again.event, again.id, again.previous) == ("NOOP", "e2", None) and "since turn 12" in again.reason
    assert mem.add("assistant", "Let's switch to SQLite instead.", turn=14) == []


def test_facts_have_stable_ids_with_get_update_delete_history():
    mem = first_example()
    assert mem.get("e2").value == "MySQL" and mem.get("e2").line == "Project.database = MySQL"
    assert [(f.value, f.valid_from, f.valid_to) for f in mem.history("e2")] == [("PostgreSQL", 1, 12),
                                                                              ("MySQL", 12, None)]
    [change] = mem.update("e3", "OAuth")
    assert (change.event, change.id, change.previous) == ("UPDATE", "e3", "API.auth_method = JWT")
    assert mem.entities["API"] == {"auth_method": "OAuth"} and len(mem.history("e3")) == 2
    [gone] = mem.delete("e1")
    assert (gone.event, gone.id, gone.text) == ("DELETE", "e1", "Project.framework = React")
    assert "framework" not in mem.entities["Project"] and mem.history("e1")[-1].valid_to == 12
    with pytest.raises(KeyError, match="e1.*deleted"):
        mem.get("e1")
    with pytest.raises(KeyError, match="no fact with id 'e9'"):
        mem.history("e9")
    for call in (lambda: mem.get("e9"), lambda: mem.update("e9", "x"), lambda: mem.delete("e9")):
        with pytest.raises(KeyError, match="e9"):
            call()
    # A new fact after a reload gets a new id, never one already given.
    again = EntityMemory.from_state(json.loads(json.dumps(mem.to_state())))
    assert again.history("e2") == mem.history("e2")
    [new] = again.extract_and_store("The launch date is March 3.", 13)
    assert new.id == "e4"


def test_a_state_saved_without_ids_gets_one_id_per_fact():
    state = first_example().to_state()
    for record in state["history"]:
        del record["id"]
    del state["next_id"]
    again = EntityMemory.from_state(state)
    assert [f.id for f in again.values] == ["e1", "e2", "e3", "e2"]
    assert [f.value for f in again.history("e2")] == ["PostgreSQL", "MySQL"]


def test_erase_removes_every_value_the_pattern_matches():
    import re
    mem = first_example()
    changes = mem.erase(re.compile(r"postgre\s*sql", re.IGNORECASE))
    assert [(c.event, c.id, c.text) for c in changes] == [("DELETE", "e2", "Project.database = PostgreSQL")]
    assert "PostgreSQL" not in json.dumps(mem.to_state()) and "PostgreSQL" not in str(mem.get_changelog())
    assert mem.entities["Project"]["database"] == "MySQL"
    assert mem.erase(re.compile("nothing like this")) == []


def test_bad_arguments_name_themselves_and_change_nothing():
    mem = first_example()
    before = json.dumps(mem.to_state())
    with pytest.raises(TypeError, match="turn"):
        mem.as_of("x")
    with pytest.raises(TypeError, match="pattern"):
        mem.erase("x")
    with pytest.raises(TypeError, match="t must be a Triple"):
        mem.store("x", 1, None)
    assert json.dumps(mem.to_state()) == before


def test_old_values_said_in_one_turn_get_ids_of_their_own_that_never_change():
    """Issue 27, row 13: three values of one fact in one turn gave two old values the id "e1@3", and
    delete("e1@3") removed whichever came first."""
    mem = EntityMemory()
    mem.add("user", "My name is Maya.", turn=3)
    for name in ("Ola", "Ana", "Eve"):
        mem.update("e1", name)
    ids = {r["id"]: r["text"] for r in mem.provenance()}
    assert ids == {"e1@3": "User.name = Maya", "e1@3.2": "User.name = Ola",
                   "e1@3.3": "User.name = Ana", "e1": "User.name = Eve"}
    [gone] = mem.delete("e1@3.2")
    assert (gone.id, gone.text) == ("e1@3.2", "User.name = Ola")
    mem.update("e1", "Kim")                              # Eve is replaced: a number never given before
    assert [r["id"] for r in mem.provenance()] == ["e1@3", "e1@3.3", "e1@3.4", "e1"]
    again = EntityMemory.from_state(json.loads(json.dumps(mem.to_state())))
    assert again.provenance() == mem.provenance()
    with pytest.raises(KeyError, match="no old value with id 'e1@3.2'"):
        mem.delete("e1@3.2")


def test_a_state_saved_before_old_values_had_a_number_keeps_its_ids():
    mem = first_example()
    mem.update("e2", "SQLite")
    state = mem.to_state()
    for record in state["history"]:
        del record["nth"]
    assert EntityMemory.from_state(state).provenance() == mem.provenance()


def test_a_value_replaced_at_turn_0_can_be_deleted_by_its_id():
    mem = EntityMemory()
    mem.add("user", "My name is Maya.", turn=0)
    mem.update("e1", "Ola")
    assert [c.id for c in mem.delete("e1@0")] == ["e1@0"]


@pytest.mark.parametrize("call", ["get", "history", "update", "delete"])
def test_an_id_that_is_not_a_str_is_a_type_error_as_in_the_semantic_store(call):
    """Issue 27, row 14: get / history / update with id 1 raised KeyError."""
    mem = first_example()
    before = json.dumps(mem.to_state())
    args = (1, "x") if call == "update" else (1,)
    with pytest.raises(TypeError, match="id must be a str, got int"):
        getattr(mem, call)(*args)
    assert json.dumps(mem.to_state()) == before
