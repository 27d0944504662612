"""teachmem.lab.evaluation.locomo: the loader, its errors, the blemishes, and evidence recall@k checked independently."""
import json
import subprocess
import sys

import matplotlib.figure
import pytest

from teachmem import LOCOMO_SAMPLE, SemanticMemoryStore, evidence_recall, load_locomo
from teachmem.lab.evaluation.locomo import LocomoError, category_label, recall_at_k, store_retriever
from teachmem.lessons.locomo import plot_recall_at_k

from conftest import ROOT


def write(tmp_path, doc, name="loco.json"):
    path = tmp_path / name
    path.write_text(json.dumps(doc))
    return path


def small(**qa_changes):
    qa = {"question": "Where does Bo live?", "answer": "Oslo", "evidence": ["D1:2"], "category": 1}
    qa.update(qa_changes)
    return [{"sample_id": "s", "conversation": {
        "speaker_a": "Al", "speaker_b": "Bo", "session_1_date_time": "9:00 am on 1 May, 2023",
        "session_1": [{"speaker": "Al", "dia_id": "D1:1", "text": "Hi Bo"},
                      {"speaker": "Bo", "dia_id": "D1:2", "text": "I live in Oslo"}]}, "qa": [qa]}]


def test_sample_loads():
    conversations = load_locomo()
    assert [c.sample_id for c in conversations] == ["sample-1", "sample-2", "sample-3"]
    first = conversations[0]
    assert first.turns[0].dia_id == "D1:1" and first.turns[0].session == 1
    assert first.turns[0].date_time == "2:10 pm on 3 March, 2024"
    assert first.turns[0].memory == "Ines: Hey Marco! Long time. How have you been?"
    adversarial = [q for c in conversations for q in c.questions if q.category == 5]
    assert adversarial and all(q.answer for q in adversarial)       # read from adversarial_answer
    assert sum(len(c.turns) for c in conversations) == 75


def test_sessions_follow_their_numbers_not_the_alphabet(tmp_path):
    doc = small()
    conv = doc[0]["conversation"]
    conv["session_10"] = [{"speaker": "Al", "dia_id": "D10:1", "text": "ten"}]
    conv["session_2"] = [{"speaker": "Al", "dia_id": "D2:1", "text": "two"}]
    turns = load_locomo(write(tmp_path, doc))[0].turns
    assert [t.dia_id for t in turns] == ["D1:1", "D1:2", "D2:1", "D10:1"]
    assert turns[-1].date_time is None


@pytest.mark.parametrize("mutate, words", [
    (lambda d: d[0].pop("conversation"), r"\[0\] is missing the field 'conversation'"),
    (lambda d: d[0].pop("qa"), r"\[0\] is missing the field 'qa'"),
    (lambda d: d[0]["conversation"].pop("session_1"), r"\[0\].conversation has no session_N field"),
    (lambda d: d[0]["conversation"]["session_1"][1].pop("text"),
     r"\[0\].conversation.session_1\[1\] is missing the field 'text'"),
    (lambda d: d[0]["conversation"]["session_1"][0].update(dia_id=3),
     r"\[0\].conversation.session_1\[0\].dia_id must be str, got int"),
    (lambda d: d[0]["conversation"].update(session_1="oops"), r"\[0\].conversation.session_1 must be list"),
    (lambda d: d[0]["qa"][0].pop("question"), r"\[0\].qa\[0\] is missing the field 'question'"),
    (lambda d: d[0]["qa"][0].update(question="  "), r"\[0\].qa\[0\].question is empty"),
    (lambda d: d[0]["qa"][0].update(evidence="D1:2"), r"\[0\].qa\[0\].evidence must be a list, got str"),
    (lambda d: d[0]["qa"][0].pop("category"), r"\[0\].qa\[0\] is missing the field 'category'"),
])
def test_malformed_file_names_file_and_field(tmp_path, mutate, words):
    doc = small()
    mutate(doc)
    with pytest.raises(LocomoError, match=words) as err:
        load_locomo(write(tmp_path, doc, "broken.json"))
    assert "broken.json" in str(err.value)


def test_not_a_list_not_json_no_file(tmp_path):
    with pytest.raises(LocomoError, match="top.json: the top level must be a list"):
        load_locomo(write(tmp_path, {"conversation": {}}, "top.json"))
    bad = tmp_path / "bad.json"
    bad.write_text("[{")
    with pytest.raises(LocomoError, match="bad.json: not valid JSON"):
        load_locomo(bad)
    with pytest.raises(FileNotFoundError, match="no LoCoMo file"):
        load_locomo(tmp_path / "nope.json")


def test_recall_at_k_by_hand():
    assert recall_at_k(["D1:2", "D1:1"], ["D1:1"], 1) == 0.0
    assert recall_at_k(["D1:2", "D1:1"], ["D1:1"], 2) == 1.0
    assert recall_at_k(["D1:1"], ["D1:1", "D1:1", "D1:3"], 5) == 0.5     # duplicates count once
    with pytest.raises(ValueError, match="evidence must name at least one turn"):
        recall_at_k(["D1:1"], [], 1)
    with pytest.raises(ValueError, match="k must be a positive int, got 0"):
        recall_at_k(["D1:1"], ["D1:1"], 0)


def fixed_order(order):
    """A retriever that ranks turns in a fixed order, whatever the question."""
    return lambda texts: (lambda query, k: order[:k])


def test_blemishes_are_counted_not_fatal(tmp_path):
    conv = small()[0]
    conv["qa"] = [
        {"question": "q1", "answer": "a", "evidence": ["D1:2"], "category": 1},           # found at rank 2
        {"question": "q2", "answer": "a", "evidence": ["D1:1", "D1:2", "D1:2"], "category": 2},
        {"question": "q3", "answer": "a", "evidence": ["D1:2 ", "D1:9"], "category": 1},  # malformed + unknown
        {"question": "q4", "answer": "a", "evidence": [], "category": 1},                 # no evidence
        {"question": "q5", "answer": "a", "category": 3},                                  # no evidence key
        {"question": "q6", "adversarial_answer": "a", "evidence": ["D1:1", "D:1:1", 7], "category": 5},
    ]
    report = evidence_recall(load_locomo(write(tmp_path, [conv])), ks=(1, 2), retriever=fixed_order([0, 1]))
    assert (report.questions, report.scored, report.no_evidence, report.no_valid_evidence) == (6, 3, 2, 1)
    assert (report.malformed_ids, report.unknown_ids) == (3, 1)
    # recall@1: q1 0, q2 1/2, q6 1 -> mean 0.5; recall@2: 1, 1, 1.
    assert report.recall() == {1: pytest.approx(0.5), 2: 1.0}
    assert report.recall(1) == {1: 0.0, 2: 1.0} and report.recall(5) == {1: 1.0, 2: 1.0}
    assert report.recall(4) == {1: None, 2: None}
    assert report.categories == [1, 2, 5]
    assert "6 questions: 3 scored, 3 skipped\n  skipped: 2 without evidence, 1 with no valid evidence id" in str(report)
    assert "3 malformed, 1 naming no turn" in str(report)


def test_sample_counts_and_table():
    report = evidence_recall(load_locomo(), progress=False)
    assert (report.conversations, report.turns, report.questions) == (3, 75, 32)
    assert (report.scored, report.no_evidence, report.no_valid_evidence) == (28, 2, 2)
    assert (report.malformed_ids, report.unknown_ids) == (3, 2)
    lines = report.table().splitlines()
    assert lines[0].split() == ["questions", "n", "recall@1", "recall@5", "recall@10", "recall@20"]
    assert lines[-1].split()[:2] == ["all", "28"]
    assert [float(x) for x in lines[-1].split()[2:]] == [round(v, 3) for v in report.recall().values()]
    figures = report.as_dict()
    assert figures["overall"] == {str(k): v for k, v in report.recall().items()}
    assert sum(figures["n_per_category"].values()) == 28
    json.dumps(figures)


def independent_recall(path, ks):
    """Recall@k computed from the definition, directly on SemanticMemoryStore, one retrieval per k."""
    doc = json.loads(path.read_text())
    per_question = []
    for item in doc:
        conv = item["conversation"]
        numbers = sorted(int(key.split("_")[1]) for key in conv if key.count("_") == 1 and key.startswith("session_"))
        turns = [t for n in numbers for t in conv[f"session_{n}"]]
        store = SemanticMemoryStore()
        for t in turns:
            store.store(f"{t['speaker']}: {t['text']}")
        row_id = [t["dia_id"] for t in turns]
        for qa in item["qa"]:
            valid = {e for e in qa.get("evidence", []) if e in row_id}
            if not valid:
                continue
            scores = {}
            for k in ks:
                rows = [h["row"] for h in store.explain(qa["question"], top_k=k)]
                scores[k] = len(valid & {row_id[r] for r in rows}) / len(valid)
            per_question.append(scores)
    return {k: sum(s[k] for s in per_question) / len(per_question) for k in ks}


def test_recall_matches_an_independent_computation():
    ks = (1, 3, 5, 10, 20, 100)
    report = evidence_recall(load_locomo(), ks)
    want = independent_recall(LOCOMO_SAMPLE, ks)
    assert report.recall() == pytest.approx(want, abs=1e-12)
    assert 0 < report.recall()[1] < report.recall()[10] <= report.recall()[100] == 1.0


def test_store_retriever_maps_repeated_texts_to_distinct_turns():
    search = store_retriever()(["Al: ok", "Bo: pizza tonight?", "Al: ok", "Bo: ok"])
    ranked = search("ok", 4)
    assert sorted(ranked) == [0, 1, 2, 3] and ranked.index(0) < ranked.index(2)


def test_bad_ks():
    with pytest.raises(ValueError, match="ks must be positive ints"):
        evidence_recall(load_locomo(), ks=(0, 5))
    with pytest.raises(ValueError, match="ks must be positive ints"):
        evidence_recall(load_locomo(), ks=())


def test_plot_recall_at_k():
    report = evidence_recall(load_locomo())
    fig = plot_recall_at_k(report)
    assert isinstance(fig, matplotlib.figure.Figure)
    assert len(fig.axes[0].lines) == len(report.categories) + 1


def run_cli(*args):
    return subprocess.run([sys.executable, "-m", "teachmem.evaluate", *args], capture_output=True, text=True,
                          cwd=ROOT, timeout=300)


def test_cli_prints_recall_at_10_overall_and_per_category():
    done = run_cli("--locomo", str(LOCOMO_SAMPLE), "--k", "10")
    assert done.returncode == 0, done.stderr
    report = evidence_recall(load_locomo(), (10,))
    lines = done.stdout.splitlines()
    assert "questions      n recall@10" in lines
    assert lines[-1].split()[:2] == ["all", "28"]
    assert f"{float(lines[-1].split()[-1]):.3f}" == f"{report.recall()[10]:.3f}"      # shown to 3 significant digits
    for c in report.categories:
        assert any(line.startswith(category_label(c) + " ")
                   and f"{float(line.split()[-1]):.3f}" == f"{report.recall(c)[10]:.3f}" for line in lines)
    assert "2 without evidence" in done.stdout and "3 malformed" in done.stdout


def test_cli_json_several_ks():
    done = run_cli("--locomo", "sample", "--k", "1,5", "20", "--json")
    assert done.returncode == 0, done.stderr
    figures = json.loads(done.stdout)["locomo"]
    assert figures["ks"] == [1, 5, 20]
    assert figures["overall"] == {str(k): v for k, v in evidence_recall(load_locomo(), (1, 5, 20)).recall().items()}


def test_cli_names_the_broken_file(tmp_path):
    doc = small()
    doc[0]["qa"][0].pop("question")
    done = run_cli("--locomo", str(write(tmp_path, doc, "broken.json")))
    assert done.returncode == 2
    assert "broken.json" in done.stderr and "'question'" in done.stderr
