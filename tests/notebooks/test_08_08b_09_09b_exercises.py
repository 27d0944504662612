"""Every exercise of notebooks 08, 08b, 09 and 09b: the worked solution passes its checker, a plausible
wrong answer fails it, and an answer that just calls teachmem's own implementation fails it too."""
import re
from datetime import timedelta

import matplotlib.figure
import pytest
from matplotlib.colors import to_rgba

from conftest import fails, load_solutions, passes
from teachmem import ConversationBuffer, HybridMemoryManager, MemoryDB, evidence_recall, load_locomo, load_scenario
from teachmem.core.words import STOPWORDS as TEACHMEM_STOPWORDS
from teachmem.lab.evaluation.scenario_scores import default_strategies, evaluate
from teachmem.lab.governance import RetentionPolicy, find_pii, provenance, redact_pii
from teachmem.lab.evaluation.locomo import LOCOMO_SAMPLE, overlap_retriever
from teachmem.lessons import evaluate_memory as lesson08
from teachmem.lessons import internals as lesson09b
from teachmem.lessons import locomo as lesson08b
from teachmem.lessons import persistence as lesson09
from teachmem.lessons.common import OKABE_ITO

s08 = load_solutions("08_evaluate_memory")
s08b = load_solutions("08b_evaluate_on_locomo")
s09 = load_solutions("09_persistence_and_governance")
s09b = load_solutions("09b_sqlite_internals_and_audits")




@pytest.fixture(scope="module")
def board():
    return evaluate(default_strategies(), progress=False)


# ------------------------------------------------------------------ 8.1 · predict who still sends a forgotten detail
def test_8_1_prediction(capsys):
    passes(lesson08.check_still_sends(s08.still_sends), capsys)
    fails(lesson08.check_still_sends({"buffer"}), capsys)          # forgets the summary's copy
    fails(lesson08.check_still_sends({"buffer", "summary"}), capsys)   # forgets the pinned copies
    fails(lesson08.check_still_sends({"buffer", "summary", "window"}), capsys)   # forgets the hybrid's window
    fails(lesson08.check_still_sends({"buffer", "hybrid", "summary", "window", "semantic"}), capsys)
    # "calling teachmem" instead of predicting: code, or a scoreboard
    assert "by hand" in fails(lesson08.check_still_sends(lambda: evaluate()), capsys)
    fails(lesson08.check_still_sends(evaluate({"buffer": ConversationBuffer}, "forget_address", progress=False)), capsys)
    assert not lesson08.check_still_sends(...)
    assert "not answered yet" in capsys.readouterr().out


@pytest.mark.parametrize("written, rewritten", [
    ("buffer", "{'buffer'}"), ("buffer, summary", "{'buffer', 'summary'}"),
    (["buffer", "summary"], "{'buffer', 'summary'}"), (("window",), "{'window'}"), ({}, "set()")])
def test_8_1_a_prediction_of_the_wrong_kind_is_told_what_kind_is_expected_and_how_to_write_it(written, rewritten,
                                                                                              capsys):
    """"buffer" got "not code that computes it (got a str)": it said neither what was expected nor what differed."""
    said = fails(lesson08.check_still_sends(written), capsys)
    assert "a set of names in braces" in said and f"you wrote a {type(written).__name__}, {written!r}" in said
    assert said.rstrip().endswith(f"Written as a set: {rewritten}") and "computes it" not in said


# ------------------------------------------------------------------ 8.2 · turns to forget
def _forget_from_first_absence(holds_by_turn, deleted_on):     # ignores a fact that comes back
    turns = sorted(holds_by_turn)
    out = {}
    for fact, asked in deleted_on.items():
        absent = [t for t in turns if t >= asked and fact not in holds_by_turn[t]]
        out[fact] = absent[0] - asked if absent else None
    return out


def _forget_zero_when_never_gone(holds_by_turn, deleted_on):    # 0 instead of None when still there
    answer = s08.turns_to_forget(holds_by_turn, deleted_on)
    return {f: 0 if v is None else v for f, v in answer.items()}


def test_8_2_turns_to_forget(board, capsys):
    passes(lesson08.check_turns_to_forget(s08.turns_to_forget), capsys)
    fails(lesson08.check_turns_to_forget(_forget_from_first_absence), capsys)
    fails(lesson08.check_turns_to_forget(_forget_zero_when_never_gone), capsys)
    # teachmem's nearest measurement, the scoreboard's deletion leakage, is a share, not a count of turns
    leakage = board.get("window", "forget_address").deletion_leakage
    fails(lesson08.check_turns_to_forget(lambda holds, deleted: {f: leakage for f in deleted}), capsys)
    assert not lesson08.check_turns_to_forget(lambda holds, deleted: (_ for _ in ()).throw(NotImplementedError))
    assert "not implemented yet" in capsys.readouterr().out


def test_8_2_solution_on_a_real_replay():
    """On Noor's conversation the buffer never forgets, and a six-message window forgets once the message leaves it."""
    from teachmem import SlidingWindowMemory
    from teachmem.lab.replay import replay
    sofa = load_scenario("forget_address")
    deleted_on = {f.id: f.superseded_turn for f in sofa.facts if f.deleted}
    steps = replay(sofa, {"buffer": ConversationBuffer, "window": lambda: SlidingWindowMemory(6, 0)}).steps
    buffer = s08.turns_to_forget({s.turn: set(s.holds) for s in steps["buffer"]}, deleted_on)
    window = s08.turns_to_forget({s.turn: set(s.holds) for s in steps["window"]}, deleted_on)
    assert buffer == {"home_address": None, "phone_number": None}
    assert window == {"home_address": 0, "phone_number": 0}     # turns 5 and 7 left the window before the requests


# ------------------------------------------------------------------ 8.3 · teach the notes to forget
def test_8_3_forgetting_notes(monkeypatch, capsys):
    passes(lesson08.check_forgetful_notes(s08.ForgetfulNotes), capsys)
    # the notebook's starting tables: one request word, one street
    monkeypatch.setattr(s08, "FORGET_WORDS", ["forget"])
    monkeypatch.setattr(s08, "DETAILS", {"address": r"27 Elm Grove"})
    assert "07700 900123" in fails(lesson08.check_forgetful_notes(s08.ForgetfulNotes), capsys)
    # Noor's words only: Ravi's address and "mobile" slip through
    monkeypatch.setattr(s08, "FORGET_WORDS", ["forget", "delete"])
    monkeypatch.setattr(s08, "DETAILS", {"address": r"27 Elm Grove", "phone": r"07700 900123"})
    assert "ravi_desk" in fails(lesson08.check_forgetful_notes(s08.ForgetfulNotes), capsys)
    # a pattern that removes everything forgets too much
    monkeypatch.setattr(s08, "DETAILS", {"address": r".", "phone": r"."})
    assert "no longer finds" in fails(lesson08.check_forgetful_notes(s08.ForgetfulNotes), capsys)
    # teachmem's own strategies: the buffer keeps everything; the hybrid manager misses a probe
    fails(lesson08.check_forgetful_notes(ConversationBuffer), capsys)
    fails(lesson08.check_forgetful_notes(HybridMemoryManager), capsys)


# ------------------------------------------------------------------ 8.4 · predict word overlap against the store
@pytest.fixture(scope="module")
def locomo_reports():
    conversations = load_locomo(LOCOMO_SAMPLE)
    return (evidence_recall(conversations, retriever=overlap_retriever(set())),
            evidence_recall(conversations))


def test_8_4_prediction(locomo_reports, capsys):
    baseline, report = locomo_reports
    passes(lesson08b.check_prediction(s08b.prediction), capsys)
    fails(lesson08b.check_prediction("higher"), capsys)
    fails(lesson08b.check_prediction("worse"), capsys)
    fails(lesson08b.check_prediction(evidence_recall), capsys)             # code, not a prediction
    fails(lesson08b.check_prediction(baseline.recall()[5]), capsys)        # teachmem's number, not a word
    assert not lesson08b.check_prediction(...)
    assert "not answered yet" in capsys.readouterr().out
    assert baseline.recall()[5] < report.recall()[5] - 0.02                 # "lower" is the answer


def _baseline_cell():
    import json
    from pathlib import Path
    nb = json.loads((Path(__file__).resolve().parents[2] / "notebooks" / "08b_evaluate_on_locomo.ipynb").read_text())
    return next(c for c in nb["cells"] if c["cell_type"] == "code" and "def word_overlap" in "".join(c["source"]))


def _run_baseline_cell(prediction, capsys, stopwords=frozenset()):
    """The notebook's baseline cell, run as the notebook runs it, with ``prediction`` written above it."""
    conversations = load_locomo(LOCOMO_SAMPLE)
    scope = {"evidence_recall": evidence_recall, "conversations": conversations, "lesson": lesson08b,
             "report": evidence_recall(conversations), "prediction": prediction, "stopwords": stopwords}
    capsys.readouterr()
    exec("".join(_baseline_cell()["source"]), scope)
    return capsys.readouterr().out


def test_re_running_the_baseline_cell_keeps_the_stopwords_of_8_6(locomo_reports, capsys):
    """8.6 says: change ``stopwords``, re-run the baseline cell. The cell used to set them back to nothing."""
    baseline, _ = locomo_reports
    shown = _run_baseline_cell("lower", capsys, stopwords={"is", "in", "how"})
    assert f"word overlap {baseline.recall()[1]:.3f}" not in shown      # recall@1 moved with the learner's words
    assert "stopwords = set()" not in "".join(_baseline_cell()["source"])


def test_the_checker_measures_the_notebooks_retriever(locomo_reports, capsys):
    """The figures the baseline cell prints once 8.4 is predicted are the ones its checker measures."""
    shown = _run_baseline_cell("lower", capsys)
    baseline, _ = locomo_reports
    for k, value in baseline.recall().items():
        assert f"recall@{k:<2}  word overlap {value:.3f}" in shown
    assert "✓" in shown


def test_the_baseline_cell_keeps_its_figures_until_8_4_is_predicted(locomo_reports, capsys):
    """The stored notebook used to print word overlap's recall@k right under the unanswered prediction."""
    baseline, _ = locomo_reports
    stored = "".join("".join(o.get("text", "")) for o in _baseline_cell()["outputs"])
    for shown in (_run_baseline_cell(..., capsys), stored):
        assert "hidden until you write your prediction" in shown and "not answered yet" in shown
        assert not any(f"{value:.3f}" in shown for value in baseline.recall().values()), shown


# ------------------------------------------------------------------ 8.6 · a stopword list
def test_8_6_stopwords(capsys):
    passes(lesson08b.check_stopwords(s08b.stopwords), capsys)
    fails(lesson08b.check_stopwords(set()), capsys)                     # the notebook's start
    fails(lesson08b.check_stopwords({"the", "a"}), capsys)              # plausible, not enough
    assert "at most" in fails(lesson08b.check_stopwords(TEACHMEM_STOPWORDS), capsys)   # teachmem's own list
    fails(lesson08b.check_stopwords(lambda text: text), capsys)
    assert "got 1 among them" in fails(lesson08b.check_stopwords(["is", 1]), capsys)    # a list is fine, 1 is not


# ------------------------------------------------------------------ 9.1 · predict which tiers keep the phone
def _app_after_retention():
    from types import SimpleNamespace

    from teachmem import SummaryMemory, apply_retention
    from teachmem.lab.replay import add_turn
    noor = load_scenario("forget_address")
    app = SimpleNamespace(hybrid=HybridMemoryManager(), transcript=ConversationBuffer(),
                          summary=SummaryMemory(summarize_every=6, keep_recent=2))
    for t in noor.turns[:14]:
        for memory in vars(app).values():
            add_turn(memory, noor, t.turn)
    apply_retention(app, RetentionPolicy({"message": 30, "fact": None}, pii=timedelta(days=7)),
                    noor.timestamp(14) + timedelta(days=8))
    return app


def test_9_1_prediction(capsys):
    passes(lesson09.check_still_holding(s09.still_holding), capsys)
    fails(lesson09.check_still_holding({"summary", "transcript"}), capsys)
    fails(lesson09.check_still_holding(set()), capsys)
    fails(lesson09.check_still_holding(provenance), capsys)          # code, not a prediction
    assert not lesson09.check_still_holding(...)
    assert "not answered yet" in capsys.readouterr().out
    assert {r.tier for r in provenance(_app_after_retention()) if "phone" in r.pii} == s09.still_holding


def _notebook_cells(stem, *ids):
    import json
    from pathlib import Path
    nb = json.loads((Path(__file__).resolve().parents[2] / "notebooks" / f"{stem}.ipynb").read_text())
    by_id = {c.get("id"): "".join(c["source"]) for c in nb["cells"]}
    return [by_id[i] for i in ids]


def test_9_1_the_reveal_shows_what_the_checker_measures_after_the_rest_has_run(capsys):
    """The reveal used to apply retention to ``app``, which 4.4 later replaces and forgets from: after Run All,
    or on a second run, it showed no phone anywhere while the checker said the summary keeps it."""
    from teachmem import ManualClock, apply_retention, forget
    noor = load_scenario("forget_address")

    def assistant_until(turn):                 # as the notebook's own cell defines it
        return lesson09.assistant_until(noor, turn)

    stale = assistant_until(14)
    forget(stale, re.compile(r"07700\s?900\s?123"))       # as 4.4 leaves ``app``
    scope = {"noor": noor, "assistant_until": assistant_until, "provenance": provenance, "lesson": lesson09,
             "still_holding": s09.still_holding, "app": stale, "ManualClock": ManualClock,
             "apply_retention": apply_retention}
    plot_cell, reveal_cell = _notebook_cells("09_persistence_and_governance", "34df3081", "c1cb56b9")
    shown = []
    for _ in range(2):                     # run twice, as a learner does after writing the prediction
        capsys.readouterr()
        exec(plot_cell, scope)
        exec(reveal_cell, scope)
        shown.append(capsys.readouterr().out)
    assert shown[0] == shown[1]
    assert "removed 2 items" in shown[0] and "✓ still_holding: passed" in shown[0]
    assert "still holding personal data: [('summary', " in shown[0]
    held = {tier for tier, _ in re.findall(r"\('(\w[\w.]*)', '([^']*)'\)", shown[0].split("still holding")[1])}
    assert held == s09.still_holding


# ------------------------------------------------------------------ 9.2 · retention that counts use
def _expired_from_observation(memories, ttl_days, pii_days, now):      # ignores last_used
    return [m["id"] for m in memories if (ttl_days.get(m["type"]) is not None
            and m["observed_at"] + timedelta(days=ttl_days[m["type"]]) <= now)
            or (m["pii"] and m["observed_at"] + timedelta(days=pii_days) <= now)]


def _expired_pii_from_use(memories, ttl_days, pii_days, now):          # lets use reset the personal-data clock
    out = []
    for m in memories:
        begin = max(m["observed_at"], m["last_used"] or m["observed_at"])
        days = ttl_days.get(m["type"])
        if (days is not None and begin + timedelta(days=days) <= now) or (m["pii"] and begin + timedelta(days=pii_days) <= now):
            out.append(m["id"])
    return out


def _expired_by_teachmem(memories, ttl_days, pii_days, now):           # the library's policy, as it stands
    from teachmem.lab.governance import Provenance
    records = [Provenance("x", str(m["id"]), m["type"], "", None, m["observed_at"], None,
                          ("phone",) if m["pii"] else ()) for m in memories]
    gone = {r.where for r in RetentionPolicy(dict(ttl_days), pii=pii_days).expired(records, now)}
    return [m["id"] for m in memories if str(m["id"]) in gone]


def test_9_2_expired_ids(capsys):
    passes(lesson09.check_expired_ids(s09.expired_ids), capsys)
    fails(lesson09.check_expired_ids(_expired_from_observation), capsys)
    fails(lesson09.check_expired_ids(_expired_pii_from_use), capsys)
    fails(lesson09.check_expired_ids(_expired_by_teachmem), capsys)
    assert not lesson09.check_expired_ids(lambda *a: (_ for _ in ()).throw(NotImplementedError))
    assert "not implemented yet" in capsys.readouterr().out
    # the sentence gives every setting the answer depends on, not only the memories
    said = fails(lesson09.check_expired_ids(_expired_from_observation), capsys)
    assert "ttl_days={'message': 30, 'fact': None}" in said and "pii_days=7" in said and "now=day " in said
    assert "observed day 0" in said and "used day 10" in said


# ------------------------------------------------------------------ 9.3 · a detector you can defend
def _rules(rules):
    return lambda text: sorted(kind for kind, pattern in rules.items() if re.search(pattern, text))


def test_9_3_detector(capsys):
    passes(lesson09.check_detect(s09.detect), capsys)
    start = {"email": r"[\w.+-]+@[\w-]+\.[\w.]+", "phone": r"\+?\d[\d ()-]{6,}\d"}     # the notebook's start
    assert "Elm Grove" in fails(lesson09.check_detect(_rules(start)), capsys)
    with_postcode = {**start, "postcode": s09.RULES["postcode"]}
    assert "false alarm" in fails(lesson09.check_detect(_rules(with_postcode)), capsys)
    fails(lesson09.check_detect(_rules({**s09.RULES, "number": r"\d"})), capsys)          # flags every number
    fails(lesson09.check_detect(lambda text: [m.kind for m in find_pii(text)]), capsys)   # teachmem's detector
    fails(lesson09.check_detect(lambda text: [] if redact_pii(text) == text else ["pii"]), capsys)


# ------------------------------------------------------------------ 9.4 · predict the lost update
def test_9_4_prediction(capsys):
    passes(lesson09b.check_prediction(s09b.prediction), capsys)
    fails(lesson09b.check_prediction(2), capsys)
    fails(lesson09b.check_prediction(MemoryDB.load), capsys)         # code, not a prediction
    fails(lesson09b.check_prediction("1"), capsys)
    assert not lesson09b.check_prediction(...)
    assert "not answered yet" in capsys.readouterr().out


# ------------------------------------------------------------------ 9.5 · erase the bytes
def test_9_5_notes_store(monkeypatch, capsys):
    store = s09b.NotesStore
    passes(lesson09b.check_notes_store(store), capsys)
    monkeypatch.setattr(store, "AFTER_DELETE", [])                                 # zeroed, but the log keeps it
    assert "notes.db-wal" in fails(lesson09b.check_notes_store(store), capsys)
    monkeypatch.setattr(store, "AFTER_DELETE", ["PRAGMA wal_checkpoint(TRUNCATE)"])
    monkeypatch.setattr(store, "PRAGMAS", ["PRAGMA journal_mode = WAL", "PRAGMA secure_delete = OFF"])
    assert "'notes.db'" in fails(lesson09b.check_notes_store(store), capsys)      # folded back, not zeroed
    monkeypatch.setattr(store, "PRAGMAS", ["PRAGMA journal_mode = DELETE", "PRAGMA secure_delete = ON"])
    assert "keep WAL" in fails(lesson09b.check_notes_store(store), capsys)
    fails(lesson09b.check_notes_store(MemoryDB), capsys)                          # teachmem's own store
    monkeypatch.setattr(store, "PRAGMAS", ["PRAGMA journal_mode = WAL", "PRAGMA secure_delete = ON"])
    monkeypatch.setattr(store, "delete_user", lambda self, user: self.conn.execute("DELETE FROM notes"))
    fails(lesson09b.check_notes_store(store), capsys)                             # deletes kim too
    assert not lesson09b.check_notes_store(lambda path: (_ for _ in ()).throw(NotImplementedError))
    assert "not implemented yet" in capsys.readouterr().out


ZEROING, NOT_ZEROING = "PRAGMA secure_delete = ON", "PRAGMA secure_delete = OFF"
HALF_ERASED = [
    # secure_delete on, nothing after the delete: the log still holds the old page
    (ZEROING, [], "secure_delete overwrites the freed space, but the old page"),
    # VACUUM: in WAL mode the rebuilt pages go into the log too
    (NOT_ZEROING, ["VACUUM"], "VACUUM rebuilt the database, but in WAL mode"),
    # a plain checkpoint folds the log back but does not empty it
    (ZEROING, ["PRAGMA wal_checkpoint"], "but did not empty it"),
    # a truncating checkpoint without secure_delete: the file keeps the row in freed space
    (NOT_ZEROING, ["PRAGMA wal_checkpoint(TRUNCATE)"], "notes.db itself keeps the deleted row in its freed space"),
]


def test_9_5_each_missing_step_gets_its_own_sentence(monkeypatch, capsys):
    """Four wrong answers used to get one sentence, the same for all of them."""
    store = s09b.NotesStore
    said = {}
    for pragma, after_delete, says in HALF_ERASED:
        monkeypatch.setattr(store, "PRAGMAS", ["PRAGMA journal_mode = WAL", pragma])
        monkeypatch.setattr(store, "AFTER_DELETE", after_delete)
        said[says] = fails(lesson09b.check_notes_store(store), capsys)
        assert says in said[says]
    assert len(set(said.values())) == len(HALF_ERASED)
    for says, sentence in said.items():
        assert [other for other in said if other in sentence] == [says], sentence
        assert "truncate" not in sentence.lower(), sentence       # the hint may not name the answer


def test_9_5_a_statement_sqlite_refuses_is_named_as_such(monkeypatch, capsys):
    store = s09b.NotesStore
    monkeypatch.setattr(store, "AFTER_DELETE", ["VACUM"])
    said = fails(lesson09b.check_notes_store(store), capsys)
    assert "AFTER_DELETE" in said and "VACUM" in said and "your function raised" not in said
    monkeypatch.setattr(store, "AFTER_DELETE", [])
    monkeypatch.setattr(store, "PRAGMAS", ["PRAGMA journal_mode = WAL", "SELEC 1"])
    said = fails(lesson09b.check_notes_store(store), capsys)
    assert "PRAGMAS" in said and "SELEC" in said


# ------------------------------------------------------------------ plots a projector can show
def test_plots_fit_a_projector_and_say_what_colour_means(board, locomo_reports):
    from teachmem.lab.governance import provenance as prov
    app = _app_after_retention()
    noor = load_scenario("forget_address")
    figures = [lesson08.plot_cost_vs_quality(board),
               lesson08b.plot_recall_at_k(locomo_reports[1]),
               lesson09.plot_retention(prov(app.hybrid), RetentionPolicy({"message": 30}, pii=7), noor.start,
                                       noor.start + timedelta(days=8))]
    palette = {to_rgba(c) for c in OKABE_ITO} | {to_rgba("#BBBBBB")}
    for fig in figures:
        assert isinstance(fig, matplotlib.figure.Figure)
        assert fig.get_size_inches()[0] * fig.dpi <= 1100
        bars = [p.get_facecolor() for ax in fig.axes for p in ax.patches]
        lines = [to_rgba(line.get_color()) for ax in fig.axes for line in ax.lines if line.get_label()[0] != "_"]
        assert set(bars) | set(lines) <= palette
    for fig in (figures[1], figures[2]):           # colour carries meaning there: a legend says which
        assert fig.legends or any(ax.get_legend() for ax in fig.axes)
