"""Worked solutions for notebooks/12_reflection_and_experience.ipynb."""

# Exercise 12.1: written before the run. Twelve messages are scored, one call each. The sums pass 1.0 after
# turn 3 (0.55 + 0.05 + 0.75) and again after turn 9 (0.05 + 0.05 + 0.05 + 0.4 + 0.05 + 0.65): two
# reflections, one call each, even the first, which finds nothing to join.
calls_prediction = 14


def recall_examples(episodes, task, similarity, min_similarity, k):
    """Exercise 12.2: the ids of at most ``k`` successful episodes rated at least
    ``min_similarity``, the most similar first; on a tie the newer (stored later) comes first."""
    rated = []
    for position, episode in enumerate(episodes):
        if not episode["success"]:
            continue
        score = similarity(task, episode["task"])
        if score >= min_similarity:
            rated.append((score, position, episode["id"]))
    rated.sort(reverse=True)          # the higher score first; on a tie the later position first
    return [episode_id for _, _, episode_id in rated[:k]]


# Exercise 12.3: 4.5 reflects after turns 9, 20 and 29 (three calls) and the first reflection already joins
# the stack. Anything from 3.75 to 5 passes (in steps of 0.25): 3.5 reflects four times, and 5.25 first
# reflects after turn 10, too late.
threshold = 4.5
