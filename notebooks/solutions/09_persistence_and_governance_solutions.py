"""Worked solutions for notebooks/09_persistence_and_governance.ipynb."""
from datetime import timedelta


def luhn_valid(number):
    """Exercise 9.1: from the right, double every second digit; the total must end in 0."""
    digits = number.replace(" ", "").replace("-", "")
    if not digits.isdigit() or not digits.isascii():
        return False
    total = 0
    for position, char in enumerate(reversed(digits)):
        d = int(char)
        if position % 2 == 1:      # every second digit, counting from the right
            d *= 2
            if d > 9:              # 7 -> 14 -> 1 + 4 = 5, the same as 14 - 9
                d -= 9
        total += d
    return total % 10 == 0


def expired_ids(memories, ttl_days, now):
    """Exercise 9.2: a memory expires ``ttl_days[type]`` days after it was observed; None keeps it."""
    out = []
    for m in memories:
        days = ttl_days.get(m["type"])
        if days is not None and m["observed_at"] + timedelta(days=days) <= now:
            out.append(m["id"])
    return out
