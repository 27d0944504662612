"""The comparison page made for projecting (``make app``, notebooks/app/compare_live.ipynb).

* ``comparison``: every strategy side by side after a turn, and what each write extracted, as
  rows and text (notebook 07 prints these through its lesson module);
* ``projector``: the same rows as HTML, the turn slider and the chart, drawn for a 1280×720 screen;
* ``highlights``: the words each extraction came from, marked in HTML.
"""
