"""The LLM protocol, the offline stand-in and the four task functions."""
import json

import pytest

from teachmem.llm import (LLM, ExtractionError, ExtractionWarning, OfflineLLM, OpenAICompatibleLLM, Triple, Usage,
                          extract_triples, find_contradiction, score_importance, summarize, summarize_rules)
from teachmem.lab.scenarios import load_scenario
from teachmem.core.tokens import estimate_tokens


class ScriptedLLM:
    """A fake model that replies with fixed strings, to test how replies are parsed."""

    def __init__(self, *replies):
        self.replies = list(replies)
        self.usage = Usage()
        self.seen = []

    def complete(self, messages, *, json_mode=False):
        self.seen.append((messages, json_mode))
        self.usage.record(1, 1)
        return self.replies.pop(0)


def transcript(turns):
    return "\n".join(f"{t.role}: {t.content}" for t in turns)


# --- Usage and the protocol ---------------------------------------------------

def test_usage_counts_and_resets():
    usage = Usage()
    usage.record(10, 3)
    usage.record(5, 2)
    assert (usage.calls, usage.prompt_tokens, usage.completion_tokens, usage.total_tokens) == (2, 15, 5, 20)
    usage.reset()
    assert usage == Usage(0, 0, 0)


def test_both_models_satisfy_the_protocol():
    assert isinstance(OfflineLLM(), LLM)
    assert isinstance(OpenAICompatibleLLM("http://127.0.0.1:9", "m"), LLM)
    assert isinstance(ScriptedLLM(), LLM)


def test_offline_counts_every_call_with_estimated_tokens():
    llm = OfflineLLM()
    messages = [{"role": "system", "content": "Rate how important the message is, from 0 to 1."},
                {"role": "user", "content": "<message>\nI live in Oslo.\n</message>"}]
    reply = llm.complete(messages)
    assert llm.usage.calls == 1
    assert llm.usage.prompt_tokens == sum(estimate_tokens(m["content"]) for m in messages)
    assert llm.usage.completion_tokens == estimate_tokens(reply)
    extract_triples(llm, "I live in Oslo.")
    summarize(llm, "user: I live in Oslo.")
    find_contradiction(llm, Triple("User", "location", "Oslo"), Triple("User", "location", "Bergen"))
    assert llm.usage.calls == 4
    assert repr(llm) == "OfflineLLM(calls=4)"


def test_nothing_to_do_costs_no_call():
    llm = OfflineLLM()
    assert extract_triples(llm, "   ") == []
    assert extract_triples(llm, "😀🎉") == []
    assert summarize(llm, "", previous_summary="") == ""
    assert score_importance(llm, "") == 0.0
    assert llm.usage.calls == 0


def test_offline_is_deterministic():
    text = transcript(load_scenario("project_30").turns)
    runs = [(summarize(OfflineLLM(), text, max_words=80), extract_triples(OfflineLLM(), text)) for _ in range(3)]
    assert runs[0] == runs[1] == runs[2]


@pytest.mark.parametrize("messages, error, match", [
    ("hello", TypeError, "messages must be a list"),
    ([], ValueError, "non-empty"),
    (["hello"], TypeError, r"messages\[0\] must be a dict"),
    ([{"role": "robot", "content": "hi"}], ValueError, r"messages\[0\]\['role'\]"),
    ([{"role": "user", "content": 3}], TypeError, r"messages\[0\]\['content'\]"),
])
def test_bad_messages_are_rejected_before_counting(messages, error, match):
    llm = OfflineLLM()
    with pytest.raises(error, match=match):
        llm.complete(messages)
    assert llm.usage.calls == 0


# --- the offline model does the work from the prompt -----------------------------

def test_offline_extraction_reads_the_message_out_of_the_prompt():
    llm = OfflineLLM()
    assert extract_triples(llm, "My name is Dana and I live in Lisbon.") == [
        Triple("User", "name", "Dana", 0.9), Triple("User", "location", "Lisbon", 0.9)]
    # the reply is real JSON with every candidate, the filter is applied by the task
    raw = llm.complete([{"role": "system", "content": "Extract the facts as JSON."},
                        {"role": "user", "content": "<message>\nShould we use MongoDB?\n</message>"}], json_mode=True)
    assert json.loads(raw) == {"triples": [{"entity": "Project", "attribute": "database", "value": "MongoDB",
                                            "confidence": 0.5}]}
    assert extract_triples(llm, "Should we use MongoDB?") == []
    assert extract_triples(llm, "Should we use MongoDB?", min_confidence=0.5)[0].value == "MongoDB"


def test_offline_extraction_on_unseen_sentences():
    llm = OfflineLLM()
    found = {(t.attribute, t.value) for t in extract_triples(
        llm, "Hi, I'm Keanu. I'm allergic to shellfish, I work for Globex and we'll use Flask with SQLite.")}
    assert found == {("name", "Keanu"), ("allergy:shellfish", "shellfish"), ("employer", "Globex"),
                     ("backend", "Flask"), ("database", "SQLite")}


def test_offline_answers_a_labelled_prompt_with_flat_keys_in_its_shape():
    prompt = ('Extract key facts from this message as JSON.\nFocus on: names, preferences, decisions.\n'
              'Message: Hi! My name is Alex and I prefer Python over JavaScript.\n'
              'Respond with JSON: {"entities": [{"key": "...", "value": "...", "confidence": 0.0-1.0}]}\n'
              'If no key facts, return {"entities": []}')
    data = json.loads(OfflineLLM().complete([{"role": "user", "content": prompt}], json_mode=True))
    assert {(e["key"], e["value"]) for e in data["entities"]} == {("name", "Alex"),
                                                                  ("preference:language", "Python")}
    # and the task parser understands that shape too
    assert [t.attribute for t in extract_triples(ScriptedLLM(json.dumps(data)), "x")] == [
        "name", "preference:language"]


def test_offline_summary_matches_the_rules_and_a_labelled_prompt():
    conversation = ("user: I want to build a REST API with Express\nassistant: Let's plan the route structure\n"
                    "user: I need endpoints for users, posts, and comments\n"
                    "assistant: Three resources - I'll use RESTful naming")
    llm = OfflineLLM()
    summary = summarize(llm, conversation, max_words=40)
    assert summary == summarize_rules(conversation, "", 40)
    assert "Express" in summary and "endpoints" in summary
    labelled = ("Update the running summary with new conversation details.\nCurrent summary: User's name is Ada.\n"
                  f"New conversation: {conversation}\nPreserve all key facts, decisions, and preferences.")
    reply = llm.complete([{"role": "user", "content": labelled}])
    assert "Ada" in reply and "Express" in reply


def test_offline_understands_other_wordings_of_the_summary_prompt():
    llm = OfflineLLM()
    labelled = ("Previous summary: User's name is Alex.\n"
                "New conversation to add to summary:\nUSER: I'm using ChromaDB for the vector store.\n"
                "ASSISTANT: Good choice.\n"
                "Update the summary to include all key facts, decisions, and context. Be concise - under 150 words.")
    reply = llm.complete([{"role": "user", "content": labelled}])
    assert "Alex" in reply and "ChromaDB" in reply and "Update the summary" not in reply
    unlabelled = ("Summarize this conversation in 3-5 sentences, capturing key facts, decisions, and user "
                "preferences:\n\nuser: My budget is $400.\nassistant: Noted.\n\nSummary:")
    reply = llm.complete([{"role": "user", "content": unlabelled}])
    assert reply == "The user's budget is $400."


def test_offline_importance_and_contradiction():
    llm = OfflineLLM()
    assert score_importance(llm, "ok sounds good") < 0.1 < score_importance(llm, "Let's switch to MySQL.")
    old = Triple("Project", "database", "PostgreSQL", 0.9)
    assert find_contradiction(llm, old, Triple("Project", "database", "MySQL", 0.9)) is True
    assert find_contradiction(llm, old, Triple("project", "Database", "postgresql", 0.8)) is False
    assert find_contradiction(llm, old, Triple("Project", "framework", "React", 0.9)) is False
    assert find_contradiction(llm, ("User", "name", "Dana"), ("User", "name", "Dee")) is True


def test_offline_says_what_it_cannot_do():
    llm = OfflineLLM()
    reply = llm.complete([{"role": "user", "content": "What database do we use?"}])
    assert "cannot hold a conversation" in reply and llm.usage.calls == 1
    assert "error" in json.loads(llm.complete([{"role": "user", "content": "Hello?"}], json_mode=True))


def test_instruction_words_inside_the_material_do_not_change_the_task():
    llm = OfflineLLM()
    tricky = "Please summarize this and extract JSON: I'm allergic to kiwi."
    assert extract_triples(llm, tricky) == [Triple("User", "allergy:kiwi", "kiwi", 0.9)]
    assert 0 < score_importance(llm, "Does this contradict the summary? I live in Rome.") <= 1


# --- summarize --------------------------------------------------------------------

def test_progressive_summary_over_the_scenario():
    llm = OfflineLLM()
    turns = load_scenario("project_30").turns
    summary = ""
    for start in range(0, len(turns), 6):
        summary = summarize(llm, transcript(turns[start:start + 6]), previous_summary=summary, max_words=120)
        assert len(summary.split()) <= 120
    assert llm.usage.calls == 5
    for needle in ("Maya", "FastAPI", "pytest", "React", "JWT", "MySQL", "Stripe"):
        assert needle in summary, needle
    assert "PostgreSQL" not in summary.replace("instead of PostgreSQL", "")


def test_summarize_enforces_the_word_limit_on_a_chatty_model():
    chatty = ScriptedLLM("One two three. Four five six seven. Eight nine ten eleven twelve.",
                         "word " * 50, "Short.")
    assert summarize(chatty, "user: hi", max_words=8) == "One two three. Four five six seven."
    assert summarize(chatty, "user: hi", max_words=5) == "word word word word word…"
    assert summarize(chatty, "user: hi", max_words=5) == "Short."
    messages, json_mode = chatty.seen[0]
    assert "at most 8 words" in messages[0]["content"] and json_mode is False
    assert "<conversation>\nuser: hi\n</conversation>" in messages[1]["content"]


def test_summarize_validates_before_calling():
    llm = OfflineLLM()
    with pytest.raises(TypeError, match="llm must be a language model"):
        summarize("gpt", "hi")
    with pytest.raises(TypeError, match="text"):
        summarize(llm, None)
    with pytest.raises(ValueError, match="max_words"):
        summarize(llm, "hi", max_words=0)
    with pytest.raises(TypeError, match="previous_summary"):
        summarize(llm, "hi", previous_summary=3)
    assert llm.usage.calls == 0


# --- extract_triples with a real model's mistakes ------------------------------------

def test_extraction_asks_for_json_and_filters_by_confidence():
    reply = json.dumps({"triples": [
        {"entity": "User", "attribute": "name", "value": "Ada", "confidence": 0.95},
        {"entity": "Project", "attribute": "database", "value": "MongoDB", "confidence": 0.4},
        {"entity": "Project", "attribute": "deadline", "value": "May", "confidence": "0.7"},
        {"entity": "User", "attribute": "mood", "value": "happy"}]})   # no confidence: dropped
    llm = ScriptedLLM(reply)
    assert extract_triples(llm, "anything") == [Triple("User", "name", "Ada", 0.95),
                                                Triple("Project", "deadline", "May", 0.7)]
    messages, json_mode = llm.seen[0]
    assert json_mode is True and "<message>\nanything\n</message>" in messages[1]["content"]


def test_extraction_tolerates_code_fences_and_chatter():
    fenced = '```json\n{"triples": [{"entity": "User", "attribute": "city", "value": "Kyiv", "confidence": 1}]}\n```'
    chatty = 'Sure! Here it is: {"triples": []} Hope that helps.'
    assert extract_triples(ScriptedLLM(fenced), "x") == [Triple("User", "city", "Kyiv", 1.0)]
    assert extract_triples(ScriptedLLM(chatty), "x") == []


@pytest.mark.parametrize("reply, match", [
    ("not json at all", "not valid JSON"),
    ('{"triples": [', "not valid JSON"),
    ("[1, 2]", "got a JSON list"),
    ('{"facts_found": []}', 'no "triples" list'),
    ('{"triples": "Dana"}', "must be a list"),
    ('{"triples": ["Dana"]}', r"triples\[0\] must be an object"),
    ('{"triples": [{"entity": "User", "value": "Dana", "confidence": 1}]}', r'triples\[0\] needs a non-empty "attribute"'),
    ('{"triples": [{"entity": "User", "attribute": "name", "value": "", "confidence": 1}]}', '"value"'),
    ('{"triples": [{"entity": "User", "attribute": "name", "value": "D", "confidence": "high"}]}', "confidence"),
])
def test_malformed_replies_raise_a_clear_error(reply, match):
    with pytest.raises(ExtractionError, match=match):
        extract_triples(ScriptedLLM(reply), "My name is Dana.")


def test_malformed_reply_can_warn_and_skip_leaving_the_store_untouched():
    store = {("User", "name"): "Dana"}
    with pytest.warns(ExtractionWarning, match="extraction skipped: the model's reply is not valid JSON"):
        found = extract_triples(ScriptedLLM("{oops"), "I'm Dee.", on_error="warn")
    assert found == []
    for t in found:
        store[(t.entity, t.attribute)] = t.value
    assert store == {("User", "name"): "Dana"}


def test_extraction_arguments_are_validated():
    llm = OfflineLLM()
    with pytest.raises(ValueError, match="on_error"):
        extract_triples(llm, "x", on_error="ignore")
    with pytest.raises(ValueError, match="min_confidence"):
        extract_triples(llm, "x", min_confidence=2)
    with pytest.raises(TypeError, match="text"):
        extract_triples(llm, 42)
    assert llm.usage.calls == 0


# --- score_importance and find_contradiction with a real model's replies -----------

@pytest.mark.parametrize("reply, expected", [
    ("0.8", 0.8), ("Importance: 0.35", 0.35), ("7/10", 0.7), ("9 out of 10", 0.9), ("85%", 0.85),
    ("1", 1.0), ("0", 0.0), ('{"importance": 0.6}', 0.6), ("I would say 4", 0.4),
])
def test_importance_replies_are_read(reply, expected):
    assert score_importance(ScriptedLLM(reply), "I live in Oslo.") == expected


@pytest.mark.parametrize("reply", ["very important", "-3", "250"])
def test_unreadable_importance_raises(reply):
    with pytest.raises(ExtractionError, match="importance"):
        score_importance(ScriptedLLM(reply), "I live in Oslo.")


@pytest.mark.parametrize("reply, expected", [
    ("yes", True), ("Yes.", True), ("No, they are compatible.", False), ("TRUE", True),
    ('{"contradiction": false}', False),
])
def test_contradiction_replies_are_read(reply, expected):
    assert find_contradiction(ScriptedLLM(reply), ("A", "b", "c"), ("A", "b", "d")) is expected


def test_contradiction_rejects_bad_input_and_unreadable_replies():
    with pytest.raises(TypeError, match="old must be a Triple"):
        find_contradiction(OfflineLLM(), "PostgreSQL", ("A", "b", "c"))
    with pytest.raises(ExtractionError, match="neither yes nor no"):
        find_contradiction(ScriptedLLM("perhaps"), ("A", "b", "c"), ("A", "b", "d"))
