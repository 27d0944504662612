"""Each checker passes the worked solution and fails wrong answers and stubs."""
import importlib

import pytest

from teachmem.lessons import buffer, start_here, window
from teachmem.lessons.common import OUTPUT_WIDTH, checker

from conftest import load_solutions, proves_checker

s00, s01, s02 = (load_solutions(n) for n in ("00_start_here", "01_conversation_buffer", "02_sliding_window"))


CASES = [
    (start_here.check_current_facts, s00.current_facts,
     [lambda sc, turn: [f.id for f in sc.facts if f.stated_turn <= turn],            # forgets replacement
      lambda sc, turn: [f.id for f in sc.facts if f.is_current(turn + 1)]]),           # off by one
    (buffer.check_exchanges_that_fit, s01.exchanges_that_fit,
     [lambda e, m, s: m // e, lambda e, m, s: (m - s) // e]),                         # ignores system / negatives
    (window.check_kept_after_trim, s02.kept_after_trim,
     [lambda c, b: list(range(len(c))), lambda c, b: [i for i, t in enumerate(c) if t <= b]]),
]


@pytest.mark.parametrize("checker, solution, wrongs", CASES, ids=[c[0].__name__ for c in CASES])
def test_checker_passes_solution_fails_wrong(checker, solution, wrongs, capsys):
    proves_checker(checker, solution, wrongs, capsys)


def test_checker_reports_a_crash_and_a_non_function(capsys):
    assert not buffer.check_exchanges_that_fit(lambda e, m, s: 1 / 0)
    assert "ZeroDivisionError" in capsys.readouterr().out
    assert not buffer.check_exchanges_that_fit("exchanges_that_fit")
    assert "expected a function" in capsys.readouterr().out


def test_long_feedback_is_wrapped_to_the_output_width_and_keeps_its_first_line(capsys):
    """A 200-character sentence printed whole used to be broken mid-word by JupyterLab."""
    problem = "for the 30-turn project conversation " * 6

    @checker("long feedback")
    def check_long(candidate):
        return problem.strip() if candidate() else None

    result = check_long(lambda: True)
    lines = capsys.readouterr().out.rstrip("\n").split("\n")
    assert not result and result.message == "✗ long feedback: " + problem.strip()
    assert len(lines) > 1 and lines[0].startswith("✗ long feedback: for the 30-turn")
    assert all(len(line) <= OUTPUT_WIDTH for line in lines)
    assert all(line.startswith("  ") and line[2] != " " for line in lines[1:])           # indented once
    assert " ".join(line.strip() for line in lines) == result.message                    # no word cut
    assert check_long(lambda: False) and capsys.readouterr().out == "✓ long feedback: passed\n"


LESSONS = {"00_start_here": "start_here", "01_conversation_buffer": "buffer", "02_sliding_window": "window",
           "03_summary_memory": "summary", "04_entity_memory": "entity", "05_semantic_memory": "semantic",
           "05b_semantic_upkeep": "semantic_upkeep",
           "06_hybrid_manager": "hybrid", "07_compare_strategies": "compare", "08_evaluate_memory": "evaluate_memory",
           "08b_evaluate_on_locomo": "locomo", "09_persistence_and_governance": "persistence",
           "09b_sqlite_internals_and_audits": "internals", "11_memory_as_tools": "agent"}


@pytest.mark.parametrize("notebook", sorted(LESSONS))
def test_every_checker_of_a_lesson_passes_its_worked_solution(notebook, capsys):
    """One module per notebook; each of its checkers accepts the solution of the same name."""
    lesson, solutions = importlib.import_module(f"teachmem.lessons.{LESSONS[notebook]}"), load_solutions(notebook)
    checkers = [name for name in vars(lesson) if name.startswith("check_")]
    assert checkers, f"teachmem.lessons.{LESSONS[notebook]} has no checker"
    for name in checkers:
        assert getattr(lesson, name)(getattr(solutions, name.removeprefix("check_"))), name
        assert "✓" in capsys.readouterr().out


def test_a_predict_then_run_cell_hides_its_output_until_the_prediction_is_written(capsys):
    import doctest

    import matplotlib.pyplot as plt

    from teachmem.lessons import common
    assert doctest.testmod(common, optionflags=doctest.ELLIPSIS).failed == 0
    plt.close("all")
    drawn = common.figure(3, 2)[0]    # what a plot helper returns: a figure pyplot has let go of
    for placeholder in (..., None, ("a", ...)):
        with common.after_prediction(placeholder) as show:
            print("the answer is 42")
            plt.figure()
            show(drawn)
        out = capsys.readouterr().out
        assert "42" not in out and "Figure" not in out and "hidden until you write your prediction" in out
        assert plt.get_fignums() == [], "a figure drawn before the prediction would give the answer away"
    with common.after_prediction({"x"}) as show:
        print("the answer is 42")
        plt.figure()
        show(drawn)    # outside a notebook, display prints the figure's text form
    assert capsys.readouterr().out == "the answer is 42\nFigure(300x200)\n" and len(plt.get_fignums()) == 1
    plt.close("all")
    with pytest.raises(ZeroDivisionError):   # a broken cell still fails under nbval
        with common.after_prediction(...):
            print(1 / 0)
