import json

import pytest

from teachmem import fact_in_text, list_scenarios, load_scenario
from teachmem.scenarios import ScenarioError


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
])
def test_malformed_file_names_file_and_field(tmp_path, scenario, mutate, words):
    from teachmem.scenarios import DATA
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
