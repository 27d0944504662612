"""The former home of the rule extractor: import these names from :mod:`teachmem.llm` instead.

Kept only while modules still import ``teachmem.llm.extract``; delete it when none does.
"""
from teachmem.llm import (Triple, extract_facts, importance_rules, rule_triples, split_sentences, summarize_rules,
                          tech_lexicon)

__all__ = ["Triple", "rule_triples", "extract_facts", "summarize_rules", "importance_rules", "split_sentences",
           "tech_lexicon"]
