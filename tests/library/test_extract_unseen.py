"""The extractor on statements its rules were not written from (tests/data/unseen_statements.json).

Each statement lists the confident facts it must yield and the ones it must not;
with "exact", nothing else may come out. No statement yields the same value twice
for one entity (the noise of a generic key repeating a specific one, such as
``language: Go`` beside ``backend_language: Go``).
"""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from teachmem.llm import rule_triples

STATEMENTS = json.loads((Path(__file__).resolve().parents[1] / "data" / "unseen_statements.json").read_text(encoding="utf-8"))[
    "statements"]


def _matches(triple: tuple[str, str, str], pattern: list[str]) -> bool:
    entity, attribute = pattern[0], pattern[1]
    same_key = triple[1].startswith(attribute) if attribute.endswith(":") else triple[1] == attribute
    return triple[0] == entity and same_key and (len(pattern) == 2 or triple[2] == pattern[2])


def test_there_are_at_least_forty_statements():
    assert len(STATEMENTS) >= 40
    assert len({s["text"] for s in STATEMENTS}) == len(STATEMENTS)


@pytest.mark.parametrize("case", STATEMENTS, ids=[s["text"][:40] for s in STATEMENTS])
def test_unseen_statement(case):
    got = {(t.entity, t.attribute, t.value) for t in rule_triples(case["text"])}
    want = {tuple(t) for t in case["yields"]}
    assert want <= got, f"missing {want - got}"
    for pattern in case.get("never", []):
        assert not [t for t in got if _matches(t, pattern)], pattern
    if case.get("exact"):
        assert got == want, f"unexpected {got - want}"
    values = [(e, v.lower()) for e, _, v in got]
    assert len(values) == len(set(values)), f"a value stated twice: {sorted(got)}"


def test_the_matcher_can_fail():
    assert _matches(("User", "likes:fixture", "fixtures"), ["User", "likes:"])
    assert not _matches(("User", "wants:x", "x"), ["User", "likes:"])
    assert not _matches(("Project", "language", "Go"), ["Project", "language", "Python"])
