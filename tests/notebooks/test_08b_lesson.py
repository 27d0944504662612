"""Notebook 08b's sections 6-7 and exercise 8.5: the tables name LoCoMo's categories, a budget is read in
turns, every figure the prose states is one the notebook printed, and the predict-then-run question about a
500-token budget keeps its answer until the learner has predicted."""
import json
import re
from pathlib import Path

import pytest

from conftest import fails, load_solutions, passes
from teachmem import estimate_tokens, evidence_recall, load_locomo
from teachmem.lab.evaluation.locomo import LOCOMO_SAMPLE, LONG_CONVERSATIONS
from teachmem.lab.evaluation.recall_over_time import fed_recall
from teachmem.lessons import locomo as lesson

NOTEBOOK = Path(__file__).resolve().parents[2] / "notebooks" / "08b_evaluate_on_locomo.ipynb"
HIDDEN = "The output is hidden until you write your prediction above"
WHY = "<details><summary>Why? (open after you have run the cell)</summary>\n\n"
solutions = load_solutions("08b_evaluate_on_locomo")


def cells() -> list[dict]:
    return json.loads(NOTEBOOK.read_text())["cells"]


def source(cell: dict) -> str:
    return "".join(cell["source"])


def shown(cell: dict) -> str:
    return "\n".join("".join(o.get("text", "")) + "".join(o.get("data", {}).get("text/plain", ""))
                     for o in cell.get("outputs", []))


def index_of(text: str) -> int:
    found = [i for i, c in enumerate(cells()) if text in source(c)]
    assert len(found) == 1, f"expected one cell with {text!r}, found {len(found)}"
    return found[0]


@pytest.fixture(scope="module")
def sample():
    return load_locomo(LOCOMO_SAMPLE)


@pytest.fixture(scope="module")
def sample_fed(sample):
    return fed_recall(sample), fed_recall(sample, dated=False)


# ------------------------------------------------------------------ LoCoMo's categories, named
def test_the_categories_have_locomos_names():
    assert lesson.CATEGORY_NAMES == {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop",
                                     5: "adversarial"}
    assert lesson.category_label(2) == "2 temporal"
    assert lesson.category_label(True) == "category True"      # not category 1
    assert lesson.category_label(9) == "category 9" and lesson.category_label("x") == "category x"


def three_places(cells: list[str]) -> list[str]:
    """A table's figures read back to three decimals (the table shows at most three significant digits)."""
    return [f"{float(c):.3f}" for c in cells]


def test_the_category_table_names_each_row_and_keeps_the_figures(sample):
    report = evidence_recall(sample)
    table = lesson.category_table(report)
    for c in report.categories:
        row = next(line for line in table.splitlines() if line.startswith(lesson.category_label(c) + " "))
        assert three_places(row.split()[-4:]) == [f"{v:.3f}" for v in report.recall(c).values()]
    last = table.splitlines()[-1].split()
    assert last[1] == str(report.scored)
    assert three_places(last[2:]) == [f"{v:.3f}" for v in report.recall().values()]
    assert "category 1" not in table


def test_the_tables_of_a_fed_report_take_the_measures_asked_for(sample_fed):
    dated, one_day = sample_fed
    table = lesson.category_table(dated, ["tolerant@10"])
    assert table.splitlines()[0].split() == ["questions", "n", "tolerant@10"]
    assert table.splitlines()[-1].split()[:2] == ["all", "28"]
    assert three_places(table.splitlines()[-1].split()[2:]) == [f"{dated.recall('tolerant@10'):.3f}"]
    both = lesson.overall_table({"dated": dated, "one day": one_day}, ["strict@10"])
    assert three_places([line.split()[-1] for line in both.splitlines()[2:]]) == [f"{dated.recall('strict@10'):.3f}",
                                                                    f"{one_day.recall('strict@10'):.3f}"]


def test_the_tables_refuse_what_they_cannot_show(sample_fed):
    dated, _ = sample_fed
    with pytest.raises(ValueError, match="measures"):
        lesson.category_table(dated, ["budget 2000 "])
    with pytest.raises(ValueError, match="measures"):
        lesson.overall_table({"x": dated}, "strict@10")      # a string, not a list of names
    with pytest.raises(TypeError, match="report must be"):
        lesson.category_table({"strict@10": 1.0})
    with pytest.raises(TypeError, match="reports must be"):
        lesson.overall_table([dated], ["strict@10"])
    with pytest.raises(ValueError, match="at least one scored question"):
        lesson.category_table(fed_recall([]))


def test_the_changed_questions_are_the_ones_whose_figure_moved(sample, sample_fed):
    dated, one_day = sample_fed
    said = lesson.changed_questions(sample, {"one day": one_day, "dated": dated})
    pairs = [(a["strict@10"], b["strict@10"])
             for (_, _, a), (_, _, b) in zip(dated.per_question, one_day.per_question, strict=True)]
    ups, downs = sum(a > b for a, b in pairs), sum(a < b for a, b in pairs)
    assert downs == 0                                 # dates cost the sample nothing (0.911 against 0.875)
    assert said.splitlines()[0] == f"strict@10: dated finds more of the evidence for {ups} questions, one day for {downs}"
    assert sum(line.startswith(("+ ", "- ")) for line in said.splitlines()) == ups + downs
    with pytest.raises(ValueError, match="of these conversations"):
        lesson.changed_questions(sample[:1], {"one day": one_day, "dated": dated})
    with pytest.raises(ValueError, match="two named"):
        lesson.changed_questions(sample, {"dated": dated})


# ------------------------------------------------------------------ 8.5 · predict the turns a 500-token budget holds
def test_8_5_turns_in_500(sample_fed, capsys):
    turns = [t for c in load_locomo(LONG_CONVERSATIONS) for t in c.turns]
    held = 500 / (sum(estimate_tokens(t.memory) for t in turns) / len(turns))
    assert round(held) == 35
    passes(lesson.check_turns_in_500(solutions.turns_in_500), capsys)
    passes(lesson.check_turns_in_500(30), capsys)                        # within a fifth
    fails(lesson.check_turns_in_500(10), capsys)                         # "a budget is about the top 10"
    fails(lesson.check_turns_in_500(50), capsys)                         # ten tokens a turn
    fails(lesson.check_turns_in_500(500), capsys)                        # a token a turn
    assert "by hand" in fails(lesson.check_turns_in_500(35.0), capsys)   # computed, not written
    assert "by hand" in fails(lesson.check_turns_in_500(estimate_tokens), capsys)
    fails(lesson.check_turns_in_500(sample_fed[0].recall("budget 500")), capsys)    # teachmem's recall, not turns
    fails(lesson.check_turns_in_500(True), capsys)
    assert not lesson.check_turns_in_500(...)
    assert "not answered yet" in capsys.readouterr().out


def test_8_5_reveals_only_after_the_prediction_and_explains_folded():
    everything = cells()
    reveal = index_of("with lesson.after_prediction(turns_in_500):")
    question = index_of("**8.5 · Predict, then run.**")
    text = source(everything[reveal])
    assert re.search(r"^lesson\.check_turns_in_500\(turns_in_500\)$", text, re.MULTILINE)
    assert text.index("after_prediction") < text.index("check_turns_in_500")
    assert any(re.search(r"^turns_in_500 = \.\.\.", source(c), re.MULTILINE) for c in everything[question:reveal])
    lines = shown(everything[reveal]).strip().splitlines()
    assert lines[0].startswith(HIDDEN) and "not answered yet" in lines[1] and len(lines) == 3, lines
    for i, cell in enumerate(everything[:reveal + 1]):
        for answer in ("35 turns", "≈ 35", "About 35", "longer list"):
            assert answer not in source(cell) + shown(cell), f"cell {i} gives 8.5's answer away: {answer!r}"
    why = source(everything[reveal + 1])
    assert why.startswith(WHY) and "</details>" in why and "longer list" in why and "About 35" in why


def test_think_asks_what_a_budget_measures_and_whether_tuned_words_carry_over():
    think = source(cells()[index_of("## Think!")])
    questions = think[:think.index("<details>")]
    assert "2,000-token budget" in questions and "What does recall within" in questions
    assert "questions you did not look at" in questions and "halves" in think


# ------------------------------------------------------------------ 8.6 · the hint names what matters, not what does not
def test_8_6_hint_and_refusal_say_when_leaving_a_word_out_helps(capsys):
    said = fails(lesson.check_stopwords({"what", "did", "the", "a"}), capsys)   # the words the old hint named
    assert "ties a wrong turn with the evidence at rank 1" in said
    hint = source(cells()[index_of("**8.6 · Modify, then observe")])
    assert "ties a wrong turn with the evidence at rank 1" in hint
    why_8_4 = source(cells()[index_of("Lower, at every")])
    for text in (said, hint, why_8_4, fails(lesson.check_prediction("higher"), capsys)):
        assert not re.search(r"\*(what|did)\*|\b(what|did), ", text), text     # named as words to leave out


# ------------------------------------------------------------------ sections 6-7 print what their prose says
def test_every_figure_of_sections_6_and_7_is_printed_above_it():
    everything = cells()
    start, end = index_of("## 6. Fed like an application"), index_of("## Exercises")
    for i in range(start, end):
        if everything[i]["cell_type"] != "markdown":
            continue
        prose = re.sub(r"<details>.*?</details>", "", source(everything[i]), flags=re.DOTALL)
        printed = "\n".join(shown(c) for c in everything[:i])
        for figure in re.findall(r"\b\d\.\d{3}\b", prose):
            assert figure in printed, f"cell {i} states {figure}, which no cell above prints"


def test_sections_6_and_7_print_dates_minilm_on_the_long_conversations_and_no_empty_budget():
    everything = cells()
    out = "\n".join(shown(c) for c in everything[index_of("## 6. Fed like an application"):index_of("## Exercises")])
    assert "long, all on one day" in out and "sample, all on one day" in out     # what time did, beside it
    assert re.search(r"^long, MiniLM\s+130 ", out, re.MULTILINE)                 # MiniLM on 130 questions
    assert "4 single-hop" in out and "category 4" not in out
    assert "budget 2000" not in out                                             # 1.000 in every row: dropped
    assert "strict@10: MiniLM finds more of the evidence for" in out


def test_sections_6_and_7_show_longmemevals_measures_dated_against_undated_and_the_baseline():
    """Time no longer costs recall: the notebook prints dated at least as high as undated, the BM25
    baseline beside the store, and nDCG@10 and all@10 in the fed report's table."""
    everything = cells()
    out = "\n".join(shown(c) for c in everything[index_of("## 6. Fed like an application"):index_of("## Exercises")])
    header = next(line for line in out.splitlines() if line.startswith("questions "))
    assert header.split()[-2:] == ["ndcg@10", "all@10"]
    rows = {m.group(1): [float(x) for x in m.group(2).split()]
            for m in re.finditer(r"^((?:long|sample), [\w ,]+?)\s+\d+\s+([\d. ]+)$", out, re.MULTILINE)}
    for name in ("long", "sample"):
        assert rows[f"{name}, real dates"][0] >= rows[f"{name}, all on one day"][0]      # strict@10
    assert rows["long, BM25 baseline"][0] < rows["long, real dates"][0]
    assert "all@10" in source(everything[index_of("## 6. Fed like an application")])


def test_the_bm25_baseline_weighs_rare_words_and_ignores_dates(sample):
    store = lesson.BM25Turns(clock=None)
    for text in ("the mat", "the hat", "a cat"):
        store.add("user", text, turn=1, timestamp=None)
    assert store.explain("the cat", 1) == [{"text": "user: a cat"}]    # the rare word wins; overlap would tie all three
    assert [h["text"] for h in store.explain("zebra", 3)] == ["user: the mat", "user: the hat", "user: a cat"]
    dated, one_day = fed_recall(sample, lesson.BM25Turns), fed_recall(sample, lesson.BM25Turns, dated=False)
    assert dated.per_question == one_day.per_question
    assert dated.recall("strict@10") < fed_recall(sample).recall("strict@10")          # the store beats it strictly
