"""The importance scorer on statements it was not tuned on (tests/data/importance_unseen.json).

The statements were written and frozen before the scorer's rules were tuned, and none comes
from a scenario: decisions, preferences and stated facts must score clearly above filler.
"""
import json
from pathlib import Path

import pytest

from teachmem.lab.scenarios import list_scenarios, load_scenario
from teachmem.llm import importance_rules

UNSEEN = json.loads((Path(__file__).resolve().parents[1] / "data" / "importance_unseen.json").read_text())
STATED = [(kind, text) for kind in ("decision", "preference", "fact") for text in UNSEEN[kind]]


def test_the_frozen_set_is_big_enough_and_unseen():
    said = {t.content for name in list_scenarios() for t in load_scenario(name).turns}
    texts = [text for _, text in STATED] + UNSEEN["filler"]
    assert len(texts) >= 30 and not said & set(texts)


@pytest.mark.parametrize("kind, text", STATED)
def test_what_was_stated_scores_clearly_above_all_filler(kind, text):
    loudest_filler = max(UNSEEN["filler"], key=importance_rules)
    assert importance_rules(text) >= importance_rules(loudest_filler) + UNSEEN["margin"], (
        f"{kind} {text!r} scores {importance_rules(text)}, filler {loudest_filler!r} {importance_rules(loudest_filler)}")


@pytest.mark.parametrize("higher, lower", UNSEEN["higher_than"])
def test_expected_orderings(higher, lower):
    assert importance_rules(higher) > importance_rules(lower)
