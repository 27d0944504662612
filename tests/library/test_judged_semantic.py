"""JudgedSemanticStore: the semantic store with each chat message's importance judged by the rules."""
from teachmem import ManualClock, SemanticMemoryStore
from teachmem.llm import importance_rules
from teachmem.memory.judged_semantic import JudgedSemanticStore

DECISION = "We'll use PostgreSQL for the database."
SMALL_TALK = "haha ok thanks"


def test_add_stores_each_message_with_the_importance_the_rules_give_its_content():
    store = JudgedSemanticStore(clock=ManualClock())
    decision = store.add("user", DECISION, turn=1)[0].id
    chat = store.add("user", SMALL_TALK, turn=2)[0].id
    assert store.get(decision)["importance"] == importance_rules(DECISION)
    assert store.get(chat)["importance"] == importance_rules(SMALL_TALK)
    assert store.get(decision)["importance"] > store.get(chat)["importance"]


def test_an_importance_given_by_the_caller_is_kept_and_the_plain_store_stays_at_a_half():
    judged, plain = JudgedSemanticStore(clock=ManualClock()), SemanticMemoryStore(clock=ManualClock())
    given = judged.store("user: haha ok thanks", "message", importance=0.9)[0].id
    assert judged.get(given)["importance"] == 0.9
    assert plain.get(plain.add("user", DECISION, turn=1)[0].id)["importance"] == 0.5


def test_it_saves_under_a_kind_of_its_own():
    assert JudgedSemanticStore.kind == "judged_semantic" != SemanticMemoryStore.kind
