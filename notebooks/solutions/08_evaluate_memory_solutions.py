"""Worked solutions for notebooks/08_evaluate_memory.ipynb."""


def recall_scores(needs, mentioned):
    """Exercise 8.1: (coverage, precision). Coverage: needed facts found / needed facts.
    Precision: needed facts found / facts mentioned, 0 when nothing is mentioned."""
    found = len(set(needs) & set(mentioned))
    coverage = found / len(set(needs))
    precision = found / len(set(mentioned)) if mentioned else 0.0
    return coverage, precision


def duplicate_fraction(items):
    """Exercise 8.2: of all mentions (one per item and fact), the share repeating a fact already mentioned."""
    mentions = sum(len(set(item)) for item in items)
    distinct = len(set().union(*items)) if items else 0
    return (mentions - distinct) / mentions if mentions else 0.0


def recall_at_k(ranked, evidence, k):
    """Exercise 8.3: the share of the distinct evidence ids among the first k ranked ids."""
    evidence = set(evidence)
    return len(evidence & set(ranked[:k])) / len(evidence)
