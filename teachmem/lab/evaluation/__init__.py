"""Evaluation: what a strategy remembers, forgets and costs, measured.

* ``scenario_scores``: replay strategies over the scenarios and score every context (notebook 08);
* ``scoreboard``: the metrics' names and the table they fill;
* ``locomo``: the LoCoMo format, its sample and the bundled long conversations, evidence recall (08b);
* ``recall_over_time``: a store fed turn by turn on the sessions' own dates, recall over months (05);
* ``recall_tables``: those reports as tables, per category and per named report (08b).

``python -m teachmem.evaluate`` is the command line over them.
"""
