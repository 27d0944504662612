"""teachmem.evaluate: every metric on tiny hand-made cases, the scoreboard, the CLI, the notebook 08 helpers."""
import json
import re
import subprocess
import sys
import threading

import matplotlib.figure
import pytest

from teachmem import ConversationBuffer, SlidingWindowMemory, load_scenario, list_scenarios
from teachmem.lessons import evaluate_memory as check
from teachmem.core.clock import ManualClock
from teachmem.lab.evaluation.scenario_scores import (METRICS, Scoreboard, duplicate_fraction, evaluate, load_scenarios,
                               recall_coverage, recall_precision, text_table)
from teachmem.lab.evaluation.scoreboard import LEAKS_AND_COSTS, REMEMBERS, three_digits
from teachmem.lessons.evaluate_memory import plot_cost_vs_quality, probe_view
from teachmem.lab.replay import replay
from teachmem.lab.scenarios import Scenario
from teachmem.core.tokens import estimate_tokens
from teachmem.lessons.common import explore, shown_text

from conftest import ROOT, load_solutions, proves_checker

# ------------------------------------------------------------------ a tiny scenario, every number known
TINY = {
    "name": "tiny", "title": "Ada moves and asks to forget her phone", "description": "for tests",
    "start": "2026-02-01T10:00:00",
    "turns": [
        {"turn": 1, "role": "user", "content": "I'm Ada and I live in Oslo."},
        {"turn": 2, "role": "assistant", "content": "Nice to meet you."},
        {"turn": 3, "role": "user", "content": "My phone number is 555 0101."},
        {"turn": 4, "role": "assistant", "content": "Saved."},
        {"turn": 5, "role": "user", "content": "I moved to Bergen last week.", "day": 3},
        {"turn": 6, "role": "user", "content": "Please forget my phone number.", "day": 3},
        {"turn": 7, "role": "user", "content": "What city am I in, and what is my name?", "day": 3},
        {"turn": 8, "role": "assistant", "content": "Bergen, Ada.", "day": 3},
    ],
    "facts": [
        {"id": "name", "entity": "User", "attribute": "name", "value": "Ada", "stated_turn": 1,
         "superseded_turn": None, "keywords": ["ada"], "question": "What is my name?"},
        {"id": "oslo", "entity": "User", "attribute": "city", "value": "Oslo", "stated_turn": 1,
         "superseded_turn": 5, "keywords": ["oslo"], "question": "Where do I live?"},
        {"id": "phone", "entity": "User", "attribute": "phone", "value": "555 0101", "stated_turn": 3,
         "superseded_turn": 6, "keywords": ["555 0101"], "question": "What is my phone number?", "deleted": True},
        {"id": "bergen", "entity": "User", "attribute": "city", "value": "Bergen", "stated_turn": 5,
         "superseded_turn": None, "keywords": ["bergen"], "question": "Where do I live?"},
    ],
    "questions": [{"turn": 7, "text": "What city am I in, and what is my name?", "needs": ["bergen", "name"],
                   "avoid": ["phone"]}],
}


@pytest.fixture
def tiny(tmp_path) -> Scenario:
    path = tmp_path / "tiny.json"
    path.write_text(json.dumps(TINY))
    return load_scenario(path)


class Oracle:
    """Knows the ground truth: its context is the value of every fact current at the last turn."""

    def __init__(self, scenario):
        self.scenario, self.turn = scenario, 0

    def add(self, role, content, *, turn=None, timestamp=None):
        self.turn = turn

    def context(self, query=None):
        return [{"role": "system", "content": f.value} for f in self.scenario.facts if f.is_current(self.turn)]


class Nothing:
    def add(self, role, content, *, turn=None, timestamp=None):
        pass

    def context(self, query=None):
        return []


class Batched:
    """Writes in batches of four messages: remembers everything, but late."""

    def __init__(self):
        self.pending, self.kept = [], []

    def add(self, role, content, *, turn=None, timestamp=None):
        self.pending.append(content)
        if len(self.pending) == 4:
            self.kept, self.pending = self.kept + self.pending, []

    def context(self, query=None):
        return [{"role": "user", "content": c} for c in self.kept]


def test_small_metric_functions():
    assert recall_coverage({"a", "b"}, {"a", "c"}) == 0.5
    assert recall_precision({"a", "b"}, {"a", "c", "d", "e"}) == 0.25
    assert recall_precision({"a"}, set()) == 0.0
    with pytest.raises(ValueError, match="needs must name at least one fact"):
        recall_coverage(set(), {"a"})
    assert duplicate_fraction([{"a"}, {"a", "b"}, {"a"}]) == 0.5
    assert duplicate_fraction([{"a"}, {"b"}, set()]) == 0.0
    assert duplicate_fraction([]) == 0.0


def test_buffer_on_the_tiny_scenario(tiny):
    board = evaluate({"buffer": ConversationBuffer}, [tiny], progress=False)
    r = board.get("buffer", "tiny")
    (probe,) = r.probes
    # Turn 7's context is turns 1-7: it names Ada, Oslo, the phone and Bergen.
    assert probe.mentioned == {"name", "oslo", "phone", "bergen"}
    assert not probe.answered                                 # the forgotten phone is still there
    assert (r.recall_coverage, r.recall_precision) == (1.0, 0.5)
    assert r.probe_accuracy == 0.0 and r.end_accuracy == 1.0 and r.freshness == 1.0
    # Oslo was replaced on turn 5: turns 5-8 are 4 pairs, none a leak (Bergen is there too).
    assert r.stale == (0, 4) and r.stale_leakage == 0.0
    # The phone was deleted on turn 6: turns 6-8, all still mention it.
    assert r.deleted == (3, 3) and r.deletion_leakage == 1.0
    # Mentions per turn: 2, 2, 3, 3, 4, 4, 4, then "Bergen, Ada." repeats two facts: 6 with 2 duplicates.
    assert r.mentions == (28, 2) and r.bloat == pytest.approx(2 / 28)
    want_tokens = [sum(estimate_tokens(t["content"]) for t in TINY["turns"][:n]) for n in range(1, 9)]
    assert list(r.tokens) == want_tokens and r.tokens_per_turn == pytest.approx(sum(want_tokens) / 8)
    assert r.model_calls == 0


def test_an_oracle_scores_perfectly_and_nothing_scores_zero(tiny):
    board = evaluate({"oracle": lambda: Oracle(tiny), "nothing": Nothing}, [tiny], progress=False)
    oracle, nothing = board.metrics("oracle", "tiny"), board.metrics("nothing", "tiny")
    assert oracle == {"probe_accuracy": 1.0, "end_accuracy": 1.0, "recall_coverage": 1.0, "recall_precision": 1.0,
                      "freshness": 1.0, "stale_leakage": 0.0, "deletion_leakage": 0.0, "bloat": 0.0,
                      "tokens_per_turn": oracle["tokens_per_turn"], "model_calls": 0}
    assert nothing == {"probe_accuracy": 0.0, "end_accuracy": 0.0, "recall_coverage": 0.0, "recall_precision": 0.0,
                       "freshness": 0.0, "stale_leakage": 0.0, "deletion_leakage": 0.0, "bloat": 0.0,
                       "tokens_per_turn": 0.0, "model_calls": 0}
    assert board.ranking() == ["oracle", "nothing"]


def test_a_window_leaks_the_old_city_once_the_move_is_out_of_sight(tiny):
    # Two messages: at turn 5 it holds turns 4-5 (Bergen); at turn 6, turns 5-6 ... never Oslo alone after 5.
    board = evaluate({"w2": lambda: SlidingWindowMemory(2, 0), "pinned": lambda: SlidingWindowMemory(1, 1)},
                     [tiny], progress=False)
    assert board.get("w2", "tiny").stale == (0, 4)
    # One recent + one pinned: the pin is turn 1 ("Ada ... Oslo": all messages score alike, the oldest wins)
    # until the question on turn 7 outranks it. Kept: turn 5 -> [1, 5], 6 -> [1, 6], 7 -> [1, 7], 8 -> [7, 8].
    # So turns 6 and 7 show Oslo without Bergen: two leaks in four.
    pinned = board.get("pinned", "tiny")
    assert pinned.stale == (2, 4) and pinned.stale_leakage == 0.5


def test_freshness_catches_a_memory_that_writes_late(tiny):
    r = evaluate({"batched": Batched}, [tiny], progress=False).get("batched", "tiny")
    assert r.fresh == {"name": False, "oslo": False, "phone": False, "bergen": False}
    assert r.freshness == 0.0
    assert r.end == {"name": True, "bergen": True} and r.end_accuracy == 1.0


def test_model_calls_are_read_from_llm_usage(tiny):
    class Usage:
        calls = 0

    class Calls(Nothing):
        def __init__(self):
            self.llm = type("LLM", (), {"usage": Usage()})()

        def add(self, role, content, *, turn=None, timestamp=None):
            self.llm.usage.calls += 1

    assert evaluate({"calls": Calls}, [tiny], progress=False).get("calls", "tiny").model_calls == 8


def test_measuring_asks_a_copy_and_moves_the_clock(tiny):
    seen = []

    class Watch(Nothing):
        def __init__(self):
            self.clock, self.asked = ManualClock(), 0
            seen.append(self)

        def add(self, role, content, *, turn=None, timestamp=None):
            assert self.clock() == tiny.timestamp(turn)     # moved before the turn is added

        def context(self, query=None):
            self.asked += 1
            return []

    evaluate({"watch": Watch}, [tiny], progress=False)
    assert seen[0].asked == len(tiny)                       # only the replay's own questions, one per turn


def test_a_memory_that_cannot_be_copied_is_named(tiny):
    class Locked(Nothing):
        def __init__(self):
            self.lock = threading.Lock()

    with pytest.raises(TypeError, match="Locked cannot be copied"):
        evaluate({"locked": Locked}, [tiny], progress=False)


def test_bad_strategies_and_scenarios():
    with pytest.raises(ValueError, match="strategies must name at least one"):
        evaluate({}, "project_30")
    with pytest.raises(TypeError, match=r"strategies\['x'\] must be a factory"):
        evaluate({"x": 3}, "project_30")
    with pytest.raises(TypeError, match="has no add"):
        evaluate({"x": dict}, "project_30")
    with pytest.raises(ValueError, match="scenarios must name at least one"):
        load_scenarios([])
    with pytest.raises(FileNotFoundError, match="built-in scenarios"):
        load_scenarios("nope")
    with pytest.raises(ValueError, match="scenarios must have distinct names"):
        evaluate({"b": ConversationBuffer}, ["project_30", "project_30"])
    assert [s.name for s in load_scenarios()] == list_scenarios()
    s = load_scenario("project_30")
    assert load_scenarios(s) == [s]


def test_probes_agree_with_the_replay_where_nothing_is_to_be_avoided():
    strategies = {"buffer": ConversationBuffer, "window": lambda: SlidingWindowMemory(6, 3)}
    board = evaluate(strategies, progress=False)
    for scenario in board.scenarios:
        record = replay(board.bank[scenario], strategies)
        for name in strategies:
            for q, p in zip(board.bank[scenario].questions, board.get(name, scenario).probes, strict=True):
                if not q.avoid:
                    assert p.answered == record.answers(name, q.turn, q)
            assert list(board.get(name, scenario).tokens) == record.tokens(name)


@pytest.fixture(scope="module")
def board() -> Scoreboard:
    return evaluate(progress=False)


def test_scoreboard_covers_every_strategy_and_scenario(board):
    assert board.scenarios == list_scenarios() and len(board.scenarios) >= 5
    assert len(board.results) == len(board.scenarios) * len(board.strategies)
    for name in board.strategies:
        for s in board.scenarios:
            for metric, value in board.metrics(name, s).items():
                if value is not None and metric not in ("tokens_per_turn", "model_calls"):
                    assert 0.0 <= value <= 1.0, (name, s, metric)
    # The mean skips scenarios where a metric does not apply (deletions happen in one scenario only).
    only = [board.metrics("buffer", s)["deletion_leakage"] for s in board.scenarios]
    assert board.metrics("buffer")["deletion_leakage"] == [v for v in only if v is not None][0]
    json.dumps(board.as_dict())


def test_scoreboard_tables_are_sorted_and_rounded(board):
    text = board.table()
    rows = text.splitlines()[3:]
    assert [r.split()[0] for r in rows] == board.ranking()
    accuracy = [board.metrics(n)["probe_accuracy"] for n in board.ranking()]
    assert accuracy == sorted(accuracy, reverse=True)
    for _, label, _ in METRICS:
        assert label in text.splitlines()[1]
    assert all(len(cell.split(".")[-1]) <= 2 for r in rows for cell in r.split()[1:] if "." in cell)
    full = str(board)
    assert all(f"scenario {s} " in full for s in board.scenarios)
    with pytest.raises(KeyError, match="no result for strategy 'ghost'"):
        board.get("ghost", "project_30")


def test_scoreboard_tables_fit_the_page_and_say_where_each_metric_applies(board):
    """One table of eleven columns ran past the page, showed 357.3 tokens, and said "mean over 6 scenarios"
    above a deletion column measured on one."""
    text = board.tables()
    tables = [block.splitlines() for block in text.split("\n\n")[1:3]]
    for lines, metrics in zip(tables, (REMEMBERS, LEAKS_AND_COSTS), strict=True):
        header = lines[1].split()
        assert len(header) <= 7 and len(header) == 1 + len(metrics)
        assert [r.split()[0] for r in lines[3:]] == board.ranking()
    assert set(REMEMBERS) | set(LEAKS_AND_COSTS) == {name for name, _, _ in METRICS}
    assert max(map(len, text.splitlines())) <= 100
    assert "deleted↓ is measured where the user asks to forget: on forget_address alone." in text
    assert "stale↓ is measured where a fact is replaced: on 5 of the 6 scenarios, all but forget_address." in text
    figures = re.findall(r"\d+\.?\d*", "\n".join(line for lines in tables for line in lines[3:]))
    assert all(len(f.replace(".", "").lstrip("0")) <= 3 for f in figures), figures
    buffer = next(r for r in tables[1] if r.startswith("buffer")).split()
    assert buffer[4] == f"{board.metrics('buffer')['tokens_per_turn']:.0f}"
    one = board.tables("forget_address")
    assert one.startswith("scenario forget_address") and "is measured" not in one


def test_boards_add_up(tiny):
    ours = evaluate({"nothing": Nothing}, [tiny], progress=False)
    theirs = evaluate({"buffer": ConversationBuffer}, [tiny], progress=False)
    both = ours + theirs
    assert both.strategies == ["nothing", "buffer"] and both.ranking() == ["buffer", "nothing"]
    with pytest.raises(ValueError, match=r"both scoreboards have results for \('nothing', 'tiny'\)"):
        both + ours


def test_text_table():
    assert text_table(["a", "b"], [["x", 0.5], ["long", None]]).splitlines() == \
        ["a       b", "---------", "x    0.50", "long    –"]
    # never more than three significant digits, whatever ``digits`` asks for
    assert text_table(["a", "b"], [["x", 1.0], ["y", 12.345], ["z", 0.8392]], digits=3).splitlines()[2:] == \
        ["x  1.00", "y  12.3", "z 0.839"]


def test_three_digits_lines_scores_up_and_shortens_counts():
    assert [three_digits(v) for v in (0.75, 1.0, 0.0, 9.996, 20.84, 502.04, 99.96)] == \
        ["0.75", "1.00", "0.00", "10.0", "20.8", "502", "100"]


def test_a_table_of_chosen_metrics_is_at_most_seven_columns_to_three_digits(board):
    chosen = ("probe_accuracy", "stale_leakage", "tokens_per_turn", "model_calls")
    lines = board.table(metrics=chosen).splitlines()
    assert lines[1].split() == ["strategy", "probes↑", "stale↓", "tokens/turn↓", "calls↓"]
    assert [r.split()[0] for r in lines[3:]] == board.ranking()
    buffer = next(r for r in lines[3:] if r.startswith("buffer "))
    assert buffer.split()[3] == three_digits(board.metrics("buffer")["tokens_per_turn"])
    assert "." not in buffer.split()[3]                          # over 100 tokens a turn: a whole number
    with pytest.raises(ValueError, match="one to six"):
        board.table(metrics=[name for name, _, _ in METRICS][:7])
    with pytest.raises(ValueError, match="'ghost'"):
        board.table(metrics=["ghost"])


def test_probe_view_every_choice(board):
    for scenario in board.scenarios:
        for name in board.strategies:
            text = probe_view(board, scenario, name)
            result = board.get(name, scenario)
            assert text.startswith(f"{name} on {scenario}: {sum(p.answered for p in result.probes)} of "
                                   f"{len(result.probes)} probes answered")
            verdicts = [line.split(":")[0].split(", ")[1] for line in text.splitlines() if line.startswith("turn ")]
            assert verdicts == ["answered" if p.answered else "not answered" for p in result.probes]
            assert f"{sum(result.end.values())} of {len(result.end)} brought up" in text
            # ✓ and ✗ mean one thing: mentioned or not, for each needed fact and each fact asked at the end
            assert text.count("✓") == sum(len(set(p.needs) & p.mentioned) for p in result.probes) + \
                sum(result.end.values())
            assert text.count("✗") == sum(len(set(p.needs) - p.mentioned) for p in result.probes) + \
                sum(not ok for ok in result.end.values())
            # a fact to avoid is followed by words: (sent) when the context mentions it
            assert text.count("(sent)") == sum(len(set(p.avoid) & p.mentioned) for p in result.probes)
            assert text.count("(left out)") == sum(len(set(p.avoid) - p.mentioned) for p in result.probes)
            assert all(len(line) <= 100 for line in text.splitlines()) and "…" not in text


def test_probe_view_in_a_widget(board):
    import ipywidgets as w
    box = explore(probe_view, board=w.fixed(board),
                  scenario=w.Dropdown(options=board.scenarios, value="forget_address"),
                  strategy=w.Dropdown(options=board.strategies, value="buffer"))
    assert shown_text(box).startswith("buffer on forget_address")
    box.children[1].value = "window"
    assert shown_text(box).startswith("window on forget_address")


def test_plots_return_figures(board):
    fig = plot_cost_vs_quality(board)
    assert isinstance(fig, matplotlib.figure.Figure)
    assert sorted(t.get_text() for t in fig.axes[0].texts) == sorted(board.strategies)


# ------------------------------------------------------------------ notebook 08's exercises
s08 = load_solutions("08_evaluate_memory")


def _forget_from_first_absence(holds_by_turn, deleted_on):     # a fact that comes back is not counted again
    turns = sorted(holds_by_turn)
    return {f: next((t - asked for t in turns if t >= asked and f not in holds_by_turn[t]), None)
            for f, asked in deleted_on.items()}


CASES = [
    (check.check_turns_to_forget, s08.turns_to_forget,
     [_forget_from_first_absence,
      lambda holds, deleted: {f: 0 for f in deleted}]),                     # "forgotten at once", always
    (check.check_forgetful_notes, s08.ForgetfulNotes,
     [ConversationBuffer,                                                     # keeps everything
      lambda: SlidingWindowMemory(6, 3)]),                                   # forgets, but the probes fail
]


@pytest.mark.parametrize("checker, solution, wrongs", CASES, ids=[c[0].__name__ for c in CASES])
def test_checker_passes_solution_fails_wrong(checker, solution, wrongs, capsys):
    if checker is check.check_forgetful_notes:       # its candidate is a memory class: a stub raises when built
        assert checker(solution) and "✓" in capsys.readouterr().out
        for wrong in wrongs:
            assert not checker(wrong) and "✗" in capsys.readouterr().out
        return
    proves_checker(checker, solution, wrongs, capsys)       # passes the solution, fails each wrong answer and a stub


# ------------------------------------------------------------------ the command line
def run_cli(*args):
    return subprocess.run([sys.executable, "-m", "teachmem.evaluate", *args], capture_output=True, text=True,
                          cwd=ROOT, timeout=300)


def test_cli_scenario_scoreboard(board):
    done = run_cli("--scenario", "all", "--no-progress")
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == str(board).strip()
    assert done.stderr == ""


def test_cli_json_and_choices(board):
    done = run_cli("--scenario", "project_30,forget_address", "--strategies", "window,buffer", "--json")
    assert done.returncode == 0, done.stderr
    figures = json.loads(done.stdout)["scenarios"]
    assert sorted(figures) == ["forget_address", "project_30"]
    assert figures["project_30"]["buffer"]["probe_accuracy"] == board.metrics("buffer", "project_30")["probe_accuracy"]
    assert sorted(figures["project_30"]) == ["buffer", "window"]


@pytest.mark.parametrize("args, words", [
    (["--strategies", "ghost"], "unknown ['ghost']"),
    (["--scenario", "nope"], "no scenario file"),
    (["--locomo", "missing.json"], "no LoCoMo file missing.json"),
    (["--locomo", "sample", "--k", "0"], "--k takes positive integers"),
])
def test_cli_bad_input(args, words):
    done = run_cli(*args)
    assert done.returncode == 2 and words in done.stderr and done.stdout == ""


def test_cli_help_defines_recall_at_k():
    done = run_cli("--help")
    assert done.returncode == 0
    assert "macro" in done.stdout and "valid evidence" in done.stdout and "speaker: text" in done.stdout
