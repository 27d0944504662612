"""Personal data in stored text: emails, phone numbers and card numbers, found and redacted.

Governance (``teachmem.lab.governance``) flags every stored item that holds
some, and a retention policy can give such items a shorter life.

Taught in notebooks/09_persistence_and_governance.ipynb.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from teachmem.core.validate import require_text

__all__ = ["PIIMatch", "find_pii", "luhn_valid", "redact_pii"]

_EMAIL = re.compile(r"(?<![\w.%+-])[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}(?![\w-])")
# Digits, optionally grouped by single spaces, dots, dashes or an (area code):
# the shapes phone and card numbers are written in.
_NUMBER = re.compile(r"(?<![\w+])\+?(?:\(\d{1,4}\)|\d)(?:[ .-]?(?:\(\d{1,4}\)|\d))*(?!\w)")
_DATE = re.compile(r"^(\d{4}[-/.]\d{1,2}[-/.]\d{1,2}|\d{1,2}[-/.]\d{1,2}[-/.]\d{2,4})$")
_IP = re.compile(r"^\d{1,3}(\.\d{1,3}){3}$")


@dataclass(frozen=True)
class PIIMatch:
    """One piece of personal data found in a text (what ``find_pii`` returns): its kind and where it is."""

    kind: str      # "email", "phone" or "card"
    text: str
    start: int
    end: int


def luhn_valid(number: str) -> bool:
    """The Luhn checksum card numbers carry: True for "4111 1111 1111 1111".

    From the right, double every second digit (subtracting 9 above 9); the
    sum must end in 0. A random 16-digit number passes one time in ten, so
    the check removes most order numbers and IDs that merely look like cards.
    ``find_pii`` uses it.
    """
    digits = re.sub(r"[ -]", "", require_text("number", number))
    if not digits.isdigit() or not digits.isascii():
        return False
    total = 0
    for i, d in enumerate(int(c) for c in reversed(digits)):
        if i % 2:
            d = d * 2 - 9 if d > 4 else d * 2
        total += d
    return total % 10 == 0


def _number_kind(candidate: str) -> str | None:
    digits = re.sub(r"\D", "", candidate)
    if 13 <= len(digits) <= 19 and luhn_valid(digits):
        return "card"
    if not 7 <= len(digits) <= 15 or _DATE.match(candidate) or _IP.match(candidate):
        return None
    groups = re.split(r"[ .-]", candidate.lstrip("+"))
    if len(groups) == 1:   # one run of digits: a phone only if long (an amount or a year is short)
        return "phone" if len(digits) >= 10 or candidate.startswith(("+", "(")) else None
    # "3 4 5 6 7" is a list, not a phone: after the first, groups have two digits or more.
    return "phone" if all(len(re.sub(r"\D", "", g)) >= 2 for g in groups[1:]) else None


def find_pii(text: str) -> list[PIIMatch]:
    """Emails, phone numbers and card-like numbers (Luhn-checked) in ``text``, in order.

    A simple detector, not a guarantee: it misses names and addresses, and an
    eight-digit reference like "1234-5678" looks like a phone number to it.

    Taught in notebooks/09_persistence_and_governance.ipynb.
    """
    require_text("text", text, allow_empty=True)
    found = [PIIMatch("email", m.group(), m.start(), m.end()) for m in _EMAIL.finditer(text)]
    taken = [(f.start, f.end) for f in found]
    for m in _NUMBER.finditer(text):
        kind = _number_kind(m.group())
        if kind and not any(s < m.end() and m.start() < e for s, e in taken):   # not inside an email
            found.append(PIIMatch(kind, m.group(), m.start(), m.end()))
    return sorted(found, key=lambda f: f.start)


def redact_pii(text: str) -> str:
    """``text`` with every email, phone and card number replaced by ``[email]``, ``[phone]``, ``[card]``.

    Taught in notebooks/09_persistence_and_governance.ipynb.
    """
    for match in reversed(find_pii(text)):
        text = text[:match.start] + f"[{match.kind}]" + text[match.end:]
    return text
