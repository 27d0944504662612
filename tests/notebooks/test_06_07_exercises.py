"""Every exercise of notebooks 06 and 07 is honest: the worked solution passes its checker, a plausible
wrong answer fails it, and an answer that only calls teachmem's own implementation fails it too."""
import functools

import pytest

from conftest import load_solutions, verdicts
from teachmem import HybridMemoryManager, SlidingWindowMemory, load_scenario
from teachmem.lab.lesson_examples import TIGHT_BUDGET
from teachmem.lab.replay import comparison_strategies, feed, lesson_strategies, replay
from teachmem.lessons import compare, hybrid
from teachmem.llm import importance_rules

S06, S07 = load_solutions("06_hybrid_manager"), load_solutions("07_compare_strategies")


@pytest.fixture(scope="module")
def project():
    return load_scenario("project_30")



# ---------------------------------------------------------------- 6.1 · predict, then run: the skip rule
def test_6_1_the_predicted_turns_of_a_skipping_window(project, capsys):
    kept_by_teachmem = {c.turn for c in feed(HybridMemoryManager(TIGHT_BUDGET), project, 28)
                        .explain_prompt(project.turns[28].content).kept("message")}
    (solution, sol_line), (wrong, wrong_line), (own, own_line) = verdicts(
        hybrid.check_predicted_turns,
        [S06.predicted_turns,
         {19, 23, 25, 26, 27, 28},          # forgot that turn 23 used up what was left
         kept_by_teachmem],                  # the manager's own window: it stops, it does not skip
        capsys)
    assert solution and sol_line == "✓ predicted_turns: passed"
    assert not wrong and "the skip rule keeps turns [23, 25, 26, 27, 28]" in wrong_line
    assert not own and "it stops at the first message that does not fit" in own_line


def test_6_1_asks_for_turn_numbers_and_waits_for_a_prediction(capsys):
    assert not hybrid.check_predicted_turns(...)
    assert "not answered yet" in capsys.readouterr().out
    assert not hybrid.check_predicted_turns("23, 25")
    assert "predicted_turns must be a set of turn numbers" in capsys.readouterr().out


# ---------------------------------------------------------------- 6.2 · modify and observe: fact_share
def test_6_2_a_fact_share_that_saves_the_mysql_fact(capsys):
    results = verdicts(hybrid.check_fact_share,
                       [S06.fact_share,
                        0.17,                              # small facts squeeze in, MySQL still misses
                        0.5,                               # MySQL in, but the window loses turns
                        HybridMemoryManager().fact_share,  # teachmem's own default
                        0.9],                              # with memory_share 0.15, more than the room
                       capsys)
    assert results[0] == (True, "✓ fact_share: passed")
    assert not results[1][0] and "still lacks MySQL" in results[1][1]
    assert not results[2][0] and "the window lost turn(s)" in results[2][1]
    assert not results[3][0] and "still lacks MySQL" in results[3][1]
    assert not results[4][0] and "fact_share + memory_share must be at most 1" in results[4][1]
    assert not hybrid.check_fact_share("0.2")
    assert "fact_share must be a number" in capsys.readouterr().out


# ---------------------------------------------------------------- 7.1 · predict, then run: sixty turns
def test_7_1_the_cost_of_twice_the_turns(project, capsys):
    buffer = replay(project, {"buffer": comparison_strategies()["buffer"]}).tokens("buffer")
    read_off_teachmem = buffer[29] / buffer[14]   # twice the turns, read off teachmem's replay: about 2
    (solution, _), (wrong, wrong_line), (own, _), (stub, stub_line) = verdicts(
        compare.check_predicted_ratio, [S07.predicted_ratio, 2, read_off_teachmem, ...], capsys)
    assert solution and not wrong and not own and not stub
    assert "each of the later turns also sends a context twice as long" in wrong_line
    assert "not answered yet" in stub_line


# ---------------------------------------------------------------- 7.2 · modify and observe: the window
def test_7_2_window_settings_that_answer_without_leaking(capsys):
    window = comparison_strategies()["window"]()     # teachmem's own settings for the comparison
    results = verdicts(compare.check_window_settings,
                       [S07.window_settings,
                        dict(recent_k=6, important_k=3),         # leaks nothing, but pytest is gone
                        dict(recent_k=14, important_k=4),        # answers, at twice the tokens allowed
                        dict(recent_k=window.recent_k, important_k=window.important_k),
                        dict(recent_k=0, important_k=2),
                        (6, 2),
                        dict(recent_k=6, important_k=4)],        # pins pytest too, but keeps six recent
                       capsys)
    assert results[0] == (True, "✓ window_settings: passed")
    assert not results[1][0] and "it lacks pytest" in results[1][1]
    assert not results[2][0] and "at most 300 is the goal" in results[2][1]
    # teachmem's own settings pin turns 3 and 17: nothing stale, but pytest (turn 7) is lost
    assert not results[3][0] and "with recent_k=6 and important_k=2 the window leaks nothing, but on turn 29 it " \
        "lacks pytest" in results[3][1]
    assert not results[4][0] and "recent_k must be an int >= 1" in results[4][1]
    assert not results[5][0] and "window_settings must be a dict with recent_k and important_k" in results[5][1]
    assert not results[6][0] and "sends 312 tokens there; at most 300 is the goal" in results[6][1]


def test_7_2_a_pinned_choice_that_outlives_its_correction_fails_the_check(capsys, monkeypatch):
    """The leak branch of the check: a scorer that judges the switch to MySQL low pins turn 3 alone."""
    def switch_judged_low(text):
        return 0.3 if text.startswith("Change of plan") else importance_rules(text)

    monkeypatch.setattr(compare, "SlidingWindowMemory", functools.partial(SlidingWindowMemory, scorer=switch_judged_low))
    (passed, line), = verdicts(compare.check_window_settings, [dict(recent_k=6, important_k=2)], capsys)
    assert not passed
    assert "presents JSONB support, PostgreSQL as current from turn 26 on (4 turns in all)" in line


# ---------------------------------------------------------------- 7.3 · write it: from which turn it answers
def test_7_3_the_turn_from_which_each_strategy_answers(project, capsys):
    question = project.questions[0]

    def first_that_answers(r):                      # the first turn it answers at all: the semantic store at 19
        q = r.scenario.questions[0]
        return {n: next((t for t in range(1, len(r.scenario) + 1) if r.answers(n, t, q)), None)
                for n in r.strategies}

    def the_tables_answer(r):                       # teachmem's own turn-29 column: the question's turn, or None
        q = r.scenario.questions[0]
        return {n: q.turn if r.answers(n, q.turn, q) else None for n in r.strategies}

    results = verdicts(compare.check_answers_from,
                       [S07.answers_from, first_that_answers, the_tables_answer, lambda r: list(r.strategies)],
                       capsys)
    assert [passed for passed, _ in results] == [True, False, False, False]
    assert results[0][1] == "✓ answers_from: passed"
    assert ("for 'semantic' in the project_30 conversation you said 19, but it does not answer on turn 20: "
            "not on every later turn") in results[1][1]
    assert ("for 'buffer' in the project_30 conversation you said 29, but it already answers on turn 28 and "
            "every turn after it") in results[2][1]
    assert "expected a dict with one entry per strategy" in results[3][1]
    (_, too_early), = verdicts(compare.check_answers_from, [lambda r: dict.fromkeys(r.strategies, 1)], capsys)
    assert too_early.endswith("you said 1, but it does not answer on turn 1")   # no "every later turn"
    # the known answers on notebook 07's replay: the window only on the last turn, the semantic store from 29
    lesson_replay = replay(project, lesson_strategies())
    assert S07.answers_from(lesson_replay) == {"buffer": 17, "window": 30, "summary": 17, "entity": 17,
                                               "semantic": 29, "hybrid": 17}
    assert lesson_replay.answers("semantic", 19, question) and not lesson_replay.answers("semantic", 24, question)


def test_7_3_a_strategy_that_stops_answering_is_none(capsys):
    offsite = replay(load_scenario("offsite_changes"), comparison_strategies())
    got = S07.answers_from(offsite)
    assert got["entity"] is None and got["summary"] is None and got["buffer"] == 9
    (passed, line), = verdicts(compare.check_answers_from,
                               [lambda r: {**S07.answers_from(r), **({"entity": 1} if "entity" in r.strategies
                                                                    and r.scenario.name == "offsite_changes"
                                                                    else {})}], capsys)
    assert not passed and "'entity' in the offsite_changes conversation (it does not answer on the last turn" in line
