"""Lab equipment, by subsystem. Depends on teachmem.memory, never the reverse.

* ``scenarios``: the scripted conversations with their ground-truth facts (notebook 00 on);
* ``replay``: feed a scenario to strategies turn by turn and record what each sends (07), or
  what the memory agent did (11);
* ``lesson_examples``: the small examples notebooks 03–06 show besides the scenarios;
* ``unseen_conversations``: what the class checkers of 03–06 replay, made for the check, never shown;
* ``evaluation``: scores on the scenarios, the scoreboard, LoCoMo recall and the study of
  recall over months (05, 08, 08b; ``python -m teachmem.evaluate``);
* ``storage``: ``MemoryDB`` on SQLite or PostgreSQL, the saved-state codec, and the semantic
  store on PostgreSQL + pgvector (09, 09b, 10);
* ``governance``: provenance, retention, PII, fresh-beats-stale and forget with an audit (09, 09b).
"""
