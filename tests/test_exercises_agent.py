"""Every exercise of notebook 11 is honest: the worked solution passes its checker, a plausible wrong
answer fails it, and an answer read off teachmem's own defaults or trace fails it too."""
from conftest import load_solutions
from teachmem import MemoryAgent
from teachmem.lessons import agent as lesson

S11 = load_solutions("11_memory_as_tools")


def verdicts(check, answers, capsys):
    out = []
    for answer in answers:
        passed = bool(check(answer))
        out.append((passed, capsys.readouterr().out.strip()))
    return out


def test_11_1_the_turn_of_the_first_eviction(capsys):
    warned_by_teachmem = next(t.turn for t in lesson.run() if t.warned)   # the warning, not the eviction
    (solution, sol_line), (wrong, wrong_line), (own, own_line), (stub, stub_line), (bad, bad_line) = verdicts(
        lesson.check_predicted_turn, [S11.predicted_turn, 30, warned_by_teachmem, ..., "25"], capsys)
    assert solution and sol_line.endswith("✅ predicted_turn: passed")
    assert not wrong and "first passes the budget on turn 25" in wrong_line
    assert not own and "is the warning (70 %)" in own_line
    assert not stub and "not answered yet" in stub_line
    assert not bad and "predicted_turn must be a turn number" in bad_line


def test_11_2_a_block_limit_that_sends_the_deadline_to_archival_storage(capsys):
    results = verdicts(lesson.check_block_limit,
                       [S11.block_limit,
                        MemoryAgent().block_limit,    # teachmem's default: everything still fits
                        150,                          # too small: the test framework is lost too
                        50,                           # smaller than the persona
                        "250"], capsys)
    assert results[0] == (True, "✅ block_limit: passed")
    assert not results[1][0] and "the deadline still fits" in results[1][1]
    assert not results[2][0] and "lost test framework: pytest" in results[2][1]
    assert not results[3][0] and "persona must fit block_limit" in results[3][1]
    assert not results[4][0] and "block_limit must be a whole number" in results[4][1]
