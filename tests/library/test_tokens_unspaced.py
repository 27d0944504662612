"""Budgets hold for text without spaces: Chinese and Japanese, code, URLs. English counts are
exactly ``int(words × 1.3)`` as before, so every English figure in the series stays as it was."""
import random

import pytest

from teachmem import HybridMemoryManager, MemoryAgent, TokenBudgetWindow, estimate_tokens, load_scenario
from teachmem.core.tokens import LONGEST_WORD, cut_points, is_word, words_estimator
from teachmem.lab.scenarios import list_scenarios
from teachmem.memory.token_window import truncate_to_tokens

JAPANESE = "今日は会議の議事録を整理して、来週のリリース計画を確認しました。データベースはMySQLに移行します。"
CHINESE = "我们改用MySQL数据库，因为主机只提供托管的MySQL。请把迁移脚本放在仓库里。"
CODE = "def promote(waitlist):return[w for w in waitlist if w.status=='pending'][:3]#keep_three"
URLS = " ".join(f"https://example.com/api/v1/classes?studio={i}&date=2026-03-{i % 28 + 1:02d}"
                for i in range(6))


def conversation(kind: str, n: int = 60) -> list[tuple[str, str]]:
    """``n`` messages of one kind of text, seeded, alternating user and assistant."""
    rng = random.Random(kind)
    text = {"japanese": JAPANESE, "chinese": CHINESE, "code": CODE, "urls": URLS}[kind]
    return [("user" if i % 2 == 0 else "assistant", text * rng.randint(1, 4)) for i in range(n)]


def test_english_counts_are_words_times_1_3_exactly():
    for name in list_scenarios():
        for turn in load_scenario(name).turns:
            assert estimate_tokens(turn.content) == int(len(turn.content.split()) * 1.3), turn.content


def test_a_run_without_spaces_counts_by_its_characters():
    assert estimate_tokens(JAPANESE) >= len(JAPANESE) // 2           # one word would say 1
    assert estimate_tokens(URLS) >= len(URLS) // 4
    assert estimate_tokens("x" * LONGEST_WORD) == 1
    assert estimate_tokens("x" * (LONGEST_WORD + 4)) == (LONGEST_WORD + 4) // 4
    assert words_estimator(2)("two words " + "日本") == 4 + 2
    assert is_word("PostgreSQL") and is_word("naïve") and is_word("👍👍👍") and not is_word("日本")


def test_a_cut_can_fall_inside_a_run_and_keeps_its_head():
    assert "".join(cut_points("see 日本語")).lstrip() == "see 日本語"
    cut = truncate_to_tokens(JAPANESE * 20, 40)
    assert cut.startswith(JAPANESE[:10]) and "truncated" in cut and estimate_tokens(cut) <= 40
    english = "one two three four five six seven eight nine ten"
    assert truncate_to_tokens(english, 8) == "one two [… truncated 11 tokens]"     # as before


@pytest.mark.parametrize("kind", ["japanese", "chinese", "code", "urls"])
def test_the_agents_budget_holds(kind):
    agent = MemoryAgent(context_tokens=1000)
    for turn, (role, text) in enumerate(conversation(kind), 1):
        agent.add(role, text, turn=turn)
        assert agent.tokens() <= agent.context_tokens
    assert len(agent.recall) > 0, "nothing was evicted: the budget did not see the text"


@pytest.mark.parametrize("kind", ["japanese", "chinese", "code", "urls"])
def test_the_windows_budget_holds(kind):
    window = TokenBudgetWindow(max_tokens=400, reserve_tokens=100)
    for turn, (role, text) in enumerate(conversation(kind), 1):
        window.add(role, text, turn=turn)
        assert sum(estimate_tokens(m["content"]) for m in window.context()) <= 300
    assert len(window.context()) < 60


@pytest.mark.parametrize("kind", ["japanese", "urls"])
def test_the_hybrid_managers_budget_holds(kind):
    manager = HybridMemoryManager(token_budget=900, reserve_tokens=100)
    for turn, (role, text) in enumerate(conversation(kind, 30), 1):
        manager.add(role, text, turn=turn)
        prompt = manager.assemble_prompt("What did we decide?")
        assert sum(estimate_tokens(m["content"]) for m in prompt) <= 800
