"""Every exercise of notebooks 03 and 04, proven both ways.

For each: the worked solution (notebooks/solutions/) passes; a plausible wrong answer fails; an answer
that just hands the job to teachmem's own implementation fails; an untouched stub says so without
raising.
"""
from __future__ import annotations


import pytest

from conftest import load_solutions
from teachmem import EntityMemory, OfflineLLM, load_scenario, summarize
from teachmem.lab.lesson_examples import FIRST_DAY, FOLLOW_UP, PREDICT_MESSAGES, first_day_facts, follow_up_rounds
from teachmem.lab.replay import feed
from teachmem.lessons import entity as lesson04
from teachmem.lessons import summary as lesson03

s03 = load_solutions("03_summary_memory")
s04 = load_solutions("04_entity_memory")


def passes(result, capsys) -> bool:
    out = capsys.readouterr().out
    assert ("✓" in out) == bool(result), out
    return bool(result)


# ------------------------------------------------ 3.1 predict, then run: what drifts first
def test_3_1_the_worked_prediction_holds(capsys):
    assert passes(lesson03.check_drift_prediction(s03.drift_prediction), capsys)


@pytest.mark.parametrize("first_to_go, kept", [
    ("auth_jwt", 6),              # the long login sentence goes, but not first
    ("user_name", 6),             # the oldest is not the first to go
    ("db_reason_jsonb", 2),       # right fact, far too much drift
    ("db_reason_jsonb", 8),       # "nothing is lost"
])
def test_3_1_wrong_predictions_fail(first_to_go, kept, capsys):
    assert not passes(lesson03.check_drift_prediction((first_to_go, kept)), capsys)


def test_3_1_handing_over_teachmem_output_instead_of_a_prediction_fails(capsys):
    rounds = follow_up_rounds()
    # the summary itself, and its length, are not the fact id and the count asked for
    assert not passes(lesson03.check_drift_prediction((rounds[-1], len(rounds[-1].split()))), capsys)


def test_3_1_an_empty_prediction_waits(capsys):
    assert not lesson03.check_drift_prediction((None, None))
    assert "not answered yet" in capsys.readouterr().out
    assert not lesson03.check_drift_prediction("db_reason_jsonb")
    assert "expected (first_to_go, kept_at_the_end)" in capsys.readouterr().out


def test_3_1_the_answer_is_what_the_notebook_shows():
    rounds, facts = follow_up_rounds(), first_day_facts()
    assert len(rounds) == len(FOLLOW_UP) + 1 and len(facts) == 8
    assert all(len(r.split()) <= 120 for r in rounds)          # the default limit, no shrinking forced


# ------------------------------------------------ 3.2 the learner's class: tests/test_learner_class_03_04.py


# ------------------------------------------------ 3.3 modify and observe: pins that stop the drift
def test_3_3_the_worked_pins_pass(capsys):
    assert passes(lesson03.check_my_pins(s03.my_pins), capsys)


@pytest.mark.parametrize("pins", [
    ["Database: PostgreSQL, chosen for its JSONB support"],                    # the notebook's start
    ["Name: Maya", "Tests: pytest with a coverage report"],                    # pins what never drifts
    ["Database: PostgreSQL for JSONB", "Login: JWT", "Front-end: React"],       # too many pins
    ["Database: PostgreSQL, chosen for its JSONB support, and the login uses short JWT access tokens"],  # too long
    "Database: PostgreSQL for JSONB; login: JWT",                              # a string, not a list
])
def test_3_3_wrong_pins_fail(pins, capsys):
    assert not passes(lesson03.check_my_pins(pins), capsys)


def test_3_3_a_failure_says_what_differs_not_what_to_pin(capsys):
    """The check counts the facts missing; it never names the one to pin (the view of the last fold does)."""
    result = lesson03.check_my_pins(["Database: PostgreSQL, chosen for its JSONB support"])
    out = capsys.readouterr().out
    assert not result
    assert "1 of the 8 first-day facts is in neither the summary nor your pins" in out
    assert "JWT" not in out and "auth" not in out


def test_3_3_pinning_teachmem_summaries_fails(capsys):
    turns = load_scenario("project_30").turns[:FIRST_DAY]
    first_day = "\n".join(f"{t.role}: {t.content}" for t in turns)
    assert not passes(lesson03.check_my_pins([follow_up_rounds()[-1]]), capsys)       # far too long
    short = summarize(OfflineLLM(), first_day, max_words=lesson03.MAX_PIN_WORDS)
    assert not passes(lesson03.check_my_pins([short]), capsys)                                 # keeps the wrong facts


# ------------------------------------------------ 4.1 predict, then run: which messages yield a fact
def test_4_1_the_worked_prediction_holds(capsys):
    assert passes(lesson04.check_yields_a_fact(s04.yields_a_fact), capsys)


@pytest.mark.parametrize("prediction", [
    {1, 2, 4, 6},        # every message that names something
    {2, 3, 4},           # Rust at the day job counted as the project's
    {2},                 # "I love its grid" taken for the reason there is no fact
    set(),
    {2, 4, 7},           # a message that does not exist
])
def test_4_1_wrong_predictions_fail(prediction, capsys):
    assert not passes(lesson04.check_yields_a_fact(prediction), capsys)


def test_4_1_handing_over_teachmem_output_instead_of_a_prediction_fails(capsys):
    found = [lesson04.rule_triples(m) for m in PREDICT_MESSAGES]
    assert not passes(lesson04.check_yields_a_fact(found), capsys)
    capsys.readouterr()
    assert not lesson04.check_yields_a_fact(None)
    assert "not answered yet" in capsys.readouterr().out


# ------------------------------------------------ 4.2 the learner's class: tests/test_learner_class_03_04.py


# ------------------------------------------------ 4.3 modify and observe: words added to a query
def test_4_3_the_worked_words_pass(capsys):
    assert passes(lesson04.check_extra_words(s04.extra_words), capsys)


@pytest.mark.parametrize("extra_words", [
    {"log": ["session"]},                            # the notebook's start: matches nothing
    {"log": ["auth"]},                               # half done: the launch still misses
    {"log": ["auth"], "launch": ["project"]},        # finds the deadline, and every project fact with it
    {"log": ["login"], "launch": ["deadline"]},      # "login" is not a word of the stored fact
    {"log": "auth", "launch": "deadline"},           # strings, not lists
])
def test_4_3_wrong_words_fail(extra_words, capsys):
    assert not passes(lesson04.check_extra_words(extra_words), capsys)


def test_4_3_the_check_judges_behaviour_not_the_exact_words(capsys):
    assert passes(lesson04.check_extra_words({"in": ["jwt"], "launch": ["march"]}), capsys)


def test_4_3_teachmem_matching_alone_fails(capsys):
    # no extra words is exactly what EntityMemory.get_relevant does; handing over its method fails too
    assert not passes(lesson04.check_extra_words({}), capsys)
    memory = feed(EntityMemory(), load_scenario("project_30"))
    assert not passes(lesson04.check_extra_words(memory.get_relevant), capsys)
