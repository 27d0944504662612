"""Conversations the lessons' class checkers replay: made for the check, seeded, never shown.

A learner's class in notebooks 01–06 is run beside the library's strategy on talk it has not met:
other people, other projects. Each builder returns plain tuples, the same on every run; the checker
in ``teachmem/lessons/<notebook>.py`` feeds them to both classes and names the first difference.
"""
from __future__ import annotations

import random
from datetime import datetime, timedelta

# ---------------------------------------------------------------- 01: the buffer
# Words the unseen conversations of the buffer checker are made of (never printed).
BUFFER_WORDS = ("the", "garden", "fence", "needs", "paint", "before", "spring", "my", "neighbour",
                "Ines", "offered", "her", "ladder", "we", "could", "try", "green", "or", "grey", "quote",
                "came", "to", "420", "euros", "is", "that", "fair", "for", "twelve", "metres", "sounds",
                "reasonable", "ok")


def buffer_conversation(seed: int) -> list[tuple[str, str]]:
    """``(role, content)`` pairs: a system prompt, then users and assistants taking turns, each
    message 1 to 24 words, so that rounding each message's count differs from rounding the sum."""
    rng = random.Random(seed)
    said = [("system", "You are a helpful assistant for home repairs.")]
    for i in range(rng.randint(12, 20)):
        role = "user" if i % 2 == 0 else "assistant"
        said.append((role, " ".join(rng.choices(BUFFER_WORDS, k=rng.randint(1, 24)))))
    return said


# ---------------------------------------------------------------- 02: the window
# What the unseen conversations of the window checker are made of (never printed): decisions, facts,
# questions and small talk about planning a trip, and assistant replies that restate decisions.
WINDOW_USER_SAYS = (
    "We'll fly to Lisbon on the 14th, it's cheaper than the 12th.", "ok thanks",
    "My partner Tomas is vegetarian.", "Should we rent a car?",
    "Let's book the hotel in Alfama because it's close to the tram.", "haha nice",
    "I prefer window seats.", "What's the weather like in May?", "sounds good",
    "The budget is 2000 euros for the whole week.", "Let's skip the day trip to Sintra.",
    "Do they take cards at the markets?", "I see", "We decided on the late checkout.",
    "Tomas wants to see a fado show.", "great")
WINDOW_ASSISTANT_SAYS = (
    "Noted: we'll fly on the 14th because it's cheaper.", "Happy to help.",
    "Let's book the Alfama hotel, since the tram is close.", "Sure, here are some ideas.",
    "We'll keep the budget at 2000 euros.", "Good question.",
    "I will look for vegetarian restaurants for Tomas.", "You're welcome!")
# (recent_k, important_k) of each unseen conversation: pins or none, a window of one, more pins
# than fit.
WINDOW_SIZES = ((3, 2), (4, 3), (2, 0), (1, 4), (5, 1))


def window_conversation(seed: int) -> list[tuple[str, str]]:
    """``(role, content)`` pairs, users and assistants taking turns, 10 to 18 messages."""
    rng = random.Random(seed)
    return [("user", rng.choice(WINDOW_USER_SAYS)) if i % 2 == 0 else
            ("assistant", rng.choice(WINDOW_ASSISTANT_SAYS)) for i in range(rng.randint(10, 18))]


# ---------------------------------------------------------------- 03: summary memory
# What the summary checker's conversations are made of: a recipe app for a running club.
SUMMARY_SAYINGS = (
    "We're building a recipe app for my running club.",
    "Let's store the recipes in SQLite, because the club is small.",
    "The backend will be Flask, since I already know it.",
    "I'd like the pages to load fast on old phones.",
    "Let's use Vue for the front end, mainly for its gentle learning curve.",
    "Photos go to an S3 bucket, with thumbnails made on upload.",
    "My name is Dana and I teach chemistry.",
    "The deadline is the end of June, before the summer races.",
    "Our budget is about 10 dollars a month.",
    "Login will use magic links, so nobody has to remember a password.",
    "We'll write the tests with pytest and keep them fast.",
    "Let's host it on Render, for its free tier.",
    "Search should find recipes by ingredient.",
    "The club has about 40 members, and 5 of them will add recipes.",
    "Comments can wait until the second version.",
    "Let's send a weekly email with the new recipes, through Mailgun.",
)
SUMMARY_REPLIES = (
    "Good choice: that keeps the first version small.",
    "Then I'd start with the data model: recipes, ingredients and members.",
    "That works. Keep the settings in one file so they are easy to change.",
    "Noted. Shall we sketch the pages next?",
    "A sensible plan; we can revisit it after the first release.",
)
SUMMARY_PINS = ("Budget: about 10 dollars a month", "Deadline: end of June")
# (summarize_every, keep_recent, max_words) of each conversation the checker replays.
SUMMARY_SETTINGS = ((6, 0, 120), (4, 2, 60), (5, 1, 40), (3, 0, 30), (8, 4, 50))


def summary_conversations() -> list[tuple[tuple[int, int, int], list[str], list[dict]]]:
    """The summary checker's cases: settings, pins and a conversation (messages as dicts) each."""
    cases = []
    for index, settings in enumerate(SUMMARY_SETTINGS):
        rng = random.Random(300 + index)
        length = rng.randint(14, 22)
        messages = [{"role": "user", "content": rng.choice(SUMMARY_SAYINGS)} if i % 2 == 0 else
                    {"role": "assistant", "content": rng.choice(SUMMARY_REPLIES)}
                    for i in range(length)]
        pins = list(SUMMARY_PINS[:index % 3])
        cases.append((settings, pins, messages))
    return cases


# ---------------------------------------------------------------- 04: entity memory
# Each group says one attribute several ways, so values get replaced, repeated and brought back.
ENTITY_SAYINGS = (
    ("My name is Dana.", "Call me Sam.", "My name is Priya."),
    ("I live in Porto.", "I moved to Berlin last month.", "I live in Leeds."),
    ("We will use Django for the backend.", "Let us switch to Flask instead."),
    ("The database will be SQLite.", "Actually, let us use PostgreSQL instead.",
     "We should use MongoDB."),
    ("Our budget is about 50 dollars a month.", "The budget is now 80 dollars a month."),
    ("The deadline is end of June.", "We need to launch by the end of May."),
    ("Login will use OAuth 2.0.", "Authentication will use JWT tokens"),
    ("For the frontend we will use Vue.", "Let us use Svelte for the frontend instead."),
    ("I am vegetarian.", "I am vegan now."),
    ("Let us use Tailwind for styling.", "Let us use Bootstrap for styling."),
    ("I am allergic to shellfish.", "I like hiking.", "Tests will use pytest."),
)
# An assistant's suggestions name technologies too: they are no decision of the user's.
ENTITY_REPLIES = ("You could use Redis for caching.", "We should use MongoDB.",
                  "Great question! Let us use Svelte for the frontend instead.",
                  "Noted.", "ok sounds good")
ENTITY_LENGTHS = (12, 16, 20, 24)


def entity_conversations() -> list[list[tuple[str, str]]]:
    """The entity checker's conversations, ``(role, content)`` pairs, one for each length."""
    conversations = []
    for index, length in enumerate(ENTITY_LENGTHS):
        rng = random.Random(400 + index)
        messages = []
        for i in range(length):
            if i % 2 == 0:
                messages.append(("user", rng.choice(rng.choice(ENTITY_SAYINGS))))
            else:
                messages.append(("assistant", rng.choice(ENTITY_REPLIES)))
        conversations.append(messages)
    return conversations


# ---------------------------------------------------------------- 05: semantic memory
# Messages and facts, each stored with an importance and a time, then questions asked of them.
SEMANTIC_MESSAGES = (
    ("user", "We settled on PostgreSQL 16 for the bookings database."),
    ("assistant", "Noted: PostgreSQL 16, with one table per studio."),
    ("user", "The launch party is booked for the second Friday of May."),
    ("user", "My daughter starts swimming lessons on Tuesdays."),
    ("assistant", "Swimming on Tuesdays: I will keep that evening free."),
    ("user", "Remind me to renew the car insurance before the end of June."),
    ("user", "The tests run with pytest and a coverage report on every push."),
    ("assistant", "Pytest with coverage on every push, understood."),
    ("user", "I am allergic to peanuts, so no satay at the team dinner."),
    ("user", "The office wifi password changed to harbour-lights."),
    ("assistant", "The meeting room projector needs an HDMI adapter."),
    ("user", "Our budget for the kitchen is 12000 euros."),
    ("user", "We moved the standup to 9:30 because of school runs."),
    ("assistant", "Standup at 9:30 from Monday on."),
)
# (old value, new value) of each fact.
SEMANTIC_FACTS = (("favorite color is blue", "favorite color is green"),
                  ("lives in lisbon", "lives in porto"),
                  ("works at helios", "works at acme"),
                  ("prefers window seats", "prefers aisle seats"),
                  ("budget is 2000 dollars", "budget is 2500 dollars"))
SEMANTIC_QUESTIONS = ("Which database did we pick?", "What is my favorite color?", "Where do I live?",
                      "When is the launch party?", "How do the tests run?", "Which seat do I prefer?",
                      "What is the wifi password?", "Where do I work?", "What is the budget?",
                      "What should the team dinner avoid?", "When is the standup?")


def semantic_conversation(seed: int) -> tuple[list[tuple], datetime]:
    """``(role, content, importance, when, is_fact)`` for each memory, oldest first, and when the
    questions are asked: older values of some facts first, newer values of a few later."""
    rng = random.Random(seed)
    messages = rng.sample(SEMANTIC_MESSAGES, len(SEMANTIC_MESSAGES))
    facts = rng.sample(SEMANTIC_FACTS, 4)
    first = [(role, said, False) for role, said in messages[:9]]
    first += [("user", old, True) for old, _ in facts]
    later = [(role, said, False) for role, said in messages[9:]]
    later += [("user", new, True) for _, new in facts[:3]]
    rng.shuffle(first)
    rng.shuffle(later)
    when = datetime(2026, 1, 5, 9)
    events = []
    for role, said, is_fact in first + later:
        when += timedelta(days=rng.randint(0, 12), minutes=rng.randint(1, 50))
        events.append((role, said, rng.choice((0.2, 0.4, 0.5, 0.7, 0.9)), when, is_fact))
    return events, when + timedelta(days=rng.randint(0, 40))


# ---------------------------------------------------------------- 06: hybrid manager
# Decisions, some changed later (the second of a pair), small talk, replies, and questions.
HYBRID_DECISIONS = (("My name is Dana and I live in Lisbon.", "I moved to Porto last month."),
                    ("We use PostgreSQL for the database.", "Let's switch to MySQL instead."),
                    ("I prefer pytest for testing.", "I prefer unittest over pytest now."),
                    ("We will host it on Fly.io.", "Actually, let's use Render for hosting."),
                    ("The deadline is the end of June.", None),
                    ("I work at Helios as a data engineer.", None),
                    ("The backend will be Go with Gin.", None),
                    ("We decided to use Redis for caching.", None),
                    ("Logins should use magic links sent by email.", None),
                    ("Payments go through PayPal.", None),
                    ("Our budget is about 40 dollars a month.", None))
HYBRID_SMALL_TALK = ("haha sure", "Sounds good, thanks!", "Can you remind me what we said about caching?",
                     "The app is a recipe planner for my parents.", "ok, one more thing",
                     "My favourite colour is green.")
HYBRID_REPLIES = ("Noted.", "Great, I will keep that in mind for the rest of the project.",
                  "Understood. I will write that down with the other decisions we made so far.",
                  "That works well; it is a common choice for a small team with a tight budget.",
                  "Good question. Let me check what we said before and come back to it.")
HYBRID_QUESTIONS = ("Which database and which test framework do we use now?",
                    "Where do I live, and where is the app hosted?", "What is the deadline?")


def hybrid_conversation(seed: int) -> list[tuple[str, str, int, datetime]]:
    """``(role, content, turn, when)`` for each message: every user message answered, first the
    decisions and small talk in a shuffled order, then the changes of mind among more of them."""
    rng = random.Random(seed)
    decisions = rng.sample(HYBRID_DECISIONS, 8)
    first = [said for said, _ in decisions] + rng.sample(HYBRID_SMALL_TALK, 3)
    later = [change for _, change in decisions if change] + rng.sample(HYBRID_SMALL_TALK, 2)
    rng.shuffle(first)
    rng.shuffle(later)
    when = datetime(2026, 2, 2, 9)
    said: list[tuple[str, str, int, datetime]] = []
    for content in first + later:
        for role, text in (("user", content), ("assistant", rng.choice(HYBRID_REPLIES))):
            when += timedelta(minutes=rng.randint(1, 90))
            said.append((role, text, len(said) + 1, when))
    return said
