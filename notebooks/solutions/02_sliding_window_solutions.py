"""Worked solutions for notebooks/02_sliding_window.ipynb."""


def window_positions(importance, recent_k, important_k):
    """Exercise 2.1: the last recent_k positions plus the important_k best older ones."""
    n = len(importance)
    if n <= recent_k + important_k:
        return list(range(n))
    older = range(n - recent_k)
    # sorted() is stable, so among equal scores the older position comes first.
    best = sorted(older, key=lambda i: -importance[i])[:important_k]
    return sorted(best) + list(range(n - recent_k, n))


def kept_after_trim(token_counts, budget):
    """Exercise 2.2: drop from the front until the rest fits."""
    start, total = 0, sum(token_counts)
    while start < len(token_counts) and total > budget:
        total -= token_counts[start]
        start += 1
    return list(range(start, len(token_counts)))
