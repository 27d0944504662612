import json

import pytest

from teachmem import fact_in_text, list_scenarios, load_scenario
from teachmem.lab.scenarios import ScenarioError


def test_project_30_shape(scenario):
    assert len(scenario) == 30
    assert [t.role for t in scenario.turns] == ["user", "assistant"] * 15
    postgres, mysql = scenario.fact("db_postgresql"), scenario.fact("db_mysql")
    assert (postgres.stated_turn, postgres.superseded_turn) == (3, 17)
    assert mysql.stated_turn == 17 and mysql.superseded_turn is None
    assert scenario.questions[0].turn == 29
    # Each fact is really stated on its turn, in that turn's words.
    for fact in scenario.facts:
        assert fact_in_text(fact, scenario.turns[fact.stated_turn - 1].content), fact.id
    # Early decisions come in the first turns.
    assert all(scenario.fact(f).stated_turn <= 11 for f in ("tests_pytest", "frontend_react", "auth_jwt"))


def test_facts_are_current_between_stated_and_superseded(scenario):
    postgres = scenario.fact("db_postgresql")
    assert not postgres.is_current(2) and postgres.is_current(3) and postgres.is_current(16)
    assert not postgres.is_current(17)
    with pytest.raises(KeyError, match="no fact 'nope'"):
        scenario.fact("nope")


def test_fact_in_text_whole_words():
    fact = load_scenario("project_30").fact("tests_pytest")
    assert fact_in_text(fact, "We use PYTEST.")
    assert not fact_in_text(fact, "pytests are great")


def test_timestamps_move_forward(scenario):
    stamps = [scenario.timestamp(t.turn) for t in scenario.turns]
    assert stamps == sorted(stamps) and len(set(stamps)) == 30


def test_list_and_unknown():
    assert "project_30" in list_scenarios()
    with pytest.raises(FileNotFoundError, match="built-in scenarios"):
        load_scenario("no_such_scenario")


@pytest.mark.parametrize("mutate, words", [
    (lambda d: d.pop("turns"), "is missing the field 'turns'"),
    (lambda d: d["turns"][4].pop("content"), r"turns\[4\] is missing the field 'content'"),
    (lambda d: d["facts"][0].pop("stated_turn"), r"facts\[0\] is missing the field 'stated_turn'"),
    (lambda d: d["turns"][2].update(role="robot"), r"turns\[2\].role must be one of"),
    (lambda d: d["turns"][2].update(turn=9), r"turns\[2\].turn must be 3"),
    (lambda d: d["questions"][0].update(needs=["ghost"]), r"unknown facts \['ghost'\]"),
    (lambda d: d.update(start="someday"), "start must be an ISO date-time"),
    (lambda d: d["facts"][0].update(deleted=True), r"facts\[0\].deleted needs superseded_turn"),
    (lambda d: d["facts"][1].update(deleted="yes"), r"facts\[1\].deleted must be bool"),
    (lambda d: d["questions"][0].update(avoid=["ghost"]), r"questions\[0\].avoid names unknown facts \['ghost'\]"),
    (lambda d: d["questions"][0].update(avoid="db_postgresql"), r"questions\[0\].avoid must be list"),
])
def test_malformed_file_names_file_and_field(tmp_path, scenario, mutate, words):
    from teachmem.lab.scenarios import DATA
    doc = json.loads((DATA / "project_30.json").read_text())
    mutate(doc)
    path = tmp_path / "broken.json"
    path.write_text(json.dumps(doc))
    with pytest.raises(ScenarioError, match=words) as err:
        load_scenario(path)
    assert "broken.json" in str(err.value)


def test_not_json(tmp_path):
    path = tmp_path / "bad.json"
    path.write_text("{nope")
    with pytest.raises(ScenarioError, match="bad.json: not valid JSON"):
        load_scenario(path)


# ---------------------------------------------------------------- the whole scenario bank (notebook 08)
ALL = list_scenarios()


def test_the_bank_has_the_five_kinds_of_conversation():
    assert {"project_30", "traveller_sessions", "rag_builder", "offsite_changes", "forget_address"} <= set(ALL)


@pytest.mark.parametrize("name", ALL)
def test_every_fact_is_stated_in_the_words_of_its_turn(name):
    scenario = load_scenario(name)
    assert scenario.name == name
    assert len({f.id for f in scenario.facts}) == len(scenario.facts)
    for fact in scenario.facts:
        assert fact_in_text(fact, scenario.turns[fact.stated_turn - 1].content), fact.id
        assert fact_in_text(fact, fact.value), fact.id          # so the value alone answers the fact's question
        if fact.superseded_turn is not None:
            assert fact.stated_turn < fact.superseded_turn <= len(scenario), fact.id
            # A replaced (not deleted) fact has a replacement: same entity, stated on that turn.
            assert fact.deleted or any(f.entity == fact.entity and f.stated_turn == fact.superseded_turn
                                       for f in scenario.facts), fact.id
    days = [t.day for t in scenario.turns]
    assert days == sorted(days)


@pytest.mark.parametrize("name", ALL)
def test_every_question_is_fair(name):
    scenario = load_scenario(name)
    assert scenario.questions
    for q in scenario.questions:
        assert scenario.turns[q.turn - 1].role == "user" and scenario.turns[q.turn - 1].content == q.text
        assert q.needs
        for fact in map(scenario.fact, q.needs):
            assert fact.stated_turn < q.turn and fact.is_current(q.turn), (q.turn, fact.id)
            assert not fact_in_text(fact, q.text), (q.turn, fact.id)     # the question does not give it away
        for fact in map(scenario.fact, q.avoid):
            assert not fact.is_current(q.turn), (q.turn, fact.id)


@pytest.mark.parametrize("name", ALL)
def test_a_deleted_fact_is_never_said_again(name):
    scenario = load_scenario(name)
    for fact in (f for f in scenario.facts if f.deleted):
        later = [t.turn for t in scenario.turns[fact.superseded_turn - 1:] if fact_in_text(fact, t.content)]
        assert later == [], (fact.id, later)


def test_what_each_new_scenario_is_for():
    traveller = load_scenario("traveller_sessions")
    q = traveller.questions[1]
    assert traveller.turns[q.turn - 1].day - traveller.turns[traveller.fact("seat_aisle").stated_turn - 1].day >= 60
    assert traveller.timestamp(q.turn) - traveller.timestamp(1) > __import__("datetime").timedelta(days=60)
    offsite = load_scenario("offsite_changes")
    dates = [f for f in offsite.facts if f.attribute == "date"]
    assert len(dates) == 3 and [f.superseded_turn for f in dates] == [dates[1].stated_turn, dates[2].stated_turn, None]
    assert sum(f.superseded_turn is not None for f in offsite.facts) >= 6
    sofa = load_scenario("forget_address")
    assert [f.id for f in sofa.facts if f.deleted] == ["home_address", "phone_number"]
    assert sofa.questions[-1].avoid == ("home_address", "phone_number")
    rag = load_scenario("rag_builder")
    assert "vector store" in rag.questions[0].text and rag.questions[0].needs == ("store_chromadb",)


def test_the_renovation_year_spans_months_and_asks_at_the_end_about_the_first_sessions():
    year = load_scenario("renovation_year")
    days = sorted({t.day for t in year.turns})
    assert len(days) == 6 and days[-1] - days[0] >= 240
    assert year.timestamp(len(year)) - year.timestamp(1) > __import__("datetime").timedelta(days=240)
    for q in year.questions:
        assert year.turns[q.turn - 1].day == days[-1]
        assert any(year.turns[year.fact(f).stated_turn - 1].day == days[0] for f in q.needs)
    assert year.questions[-1].avoid == ("budget_60000",)         # replaced in the fourth session


def test_optional_fields_default_for_older_files(scenario):
    assert not any(f.deleted for f in scenario.facts)
    assert all(q.avoid == () for q in scenario.questions)
