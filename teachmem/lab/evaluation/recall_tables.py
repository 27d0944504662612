"""Tables of recall reports: recall per LoCoMo category, and per named report.

Each takes what ``evidence_recall`` (``locomo``) or ``fed_recall`` (``recall_over_time``) returns;
notebook 08b prints them through its lesson module.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence

from teachmem.lab.evaluation.locomo import RecallReport, category_label
from teachmem.lab.evaluation.recall_over_time import FedReport
from teachmem.lab.evaluation.scoreboard import text_table


def _scored(report: RecallReport | FedReport) -> list[tuple[object, dict[str, float]]]:
    """Each scored question's category and figures, whether ``evidence_recall`` or ``fed_recall`` made the report."""
    if isinstance(report, RecallReport):
        return [(c, {f"recall@{k}": v for k, v in r.items()}) for _, _, c, r in report.per_question]
    if isinstance(report, FedReport):
        return [(c, dict(r)) for _, c, r in report.per_question]
    raise TypeError(f"report must be what evidence_recall or fed_recall returns, got {type(report).__name__}")


def _means(rows: list[dict[str, float]], measures: Sequence[str] | None) -> tuple[list[str], list[float]]:
    """The measures (all the report's when None) and their means over ``rows``."""
    if not rows:
        raise ValueError("report must have at least one scored question")
    known = list(rows[0])
    columns = known if measures is None else list(measures)
    unknown = [m for m in columns if m not in known]
    if isinstance(measures, str) or unknown:
        raise ValueError(f"measures must be a list of names among {known}, got {measures!r}")
    return columns, [sum(r[m] for r in rows) / len(rows) for m in columns]


def category_table(report: RecallReport | FedReport, measures: Sequence[str] | None = None) -> str:
    """Recall per category, named as in ``CATEGORY_NAMES``, and over all questions: a row each, a column a measure."""
    scored = _scored(report)
    categories = sorted({c for c, _ in scored}, key=lambda c: (type(c).__name__, c))
    groups = [(category_label(c), [r for x, r in scored if x == c]) for c in categories]
    rows = [[label, len(group), *_means(group, measures)[1]] for label, group in [*groups, ("all", [r for _, r in scored])]]
    return text_table(["questions", "n", *_means([r for _, r in scored], measures)[0]], rows, digits=3)


def overall_table(reports: Mapping[str, RecallReport | FedReport], measures: Sequence[str]) -> str:
    """A row per named report: how many questions it scored and each measure's mean over them."""
    if not isinstance(reports, Mapping) or not reports:
        raise TypeError(f"reports must be a non-empty dict of names to reports, got {type(reports).__name__}")
    rows = [[name, len(scored), *_means([r for _, r in scored], measures)[1]]
            for name, scored in ((name, _scored(report)) for name, report in reports.items())]
    return text_table(["", "n", *measures], rows, digits=3)
