"""Worked solutions for notebooks/05_semantic_memory.ipynb."""


def fold_plural(word):
    """Exercise 5.1: "seats" -> "seat", "parties" -> "party", "glasses" -> "glass"; "glass", "status" stay.

    Only plurals fold: "hiking" and "planned" keep their endings, and "notes" becomes "note",
    not "not" as a stemmer that also drops a final e would make it.
    """
    if len(word) <= 3:
        return word
    if word.endswith("ies") and len(word) > 4:
        return word[:-3] + "y"
    if word.endswith("sses"):
        return word[:-2]
    if word.endswith(("ss", "us", "is")) or not word.endswith("s"):
        return word
    return word[:-1]


SAME_VERB = {"moved": "lives"}      # verbs that say the same thing as another


def fact_key(fact):
    """Exercise 5.2: what a fact is about, so that a new value replaces the old one and nothing else.

    "favorite color is blue" -> "favorite color"; "lives in lisbon" and "moved to porto" -> "lives";
    "works at helios" and "works for acme" -> "works"; "prefers window seats" -> "prefers seat",
    kept apart from "prefers tea".
    """
    words = fact.lower().split()
    if " is " in fact:
        return fact[:fact.index(" is ")]
    verb = SAME_VERB.get(words[0], words[0])
    if verb in ("prefers", "likes"):
        return f"{verb} {fold_plural(words[-1])}"
    return verb


# Section 4, predict then run: the answer keeps 0.95 of its score a day and starts 0.753 against the rival's
# 0.118, so it is buried once 0.95 ** age < 0.118 / 0.753: log(0.118 / 0.753) / log(0.95) = 36.2, day 37.
burial_prediction = 37
