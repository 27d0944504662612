"""Outputs made to be read (issue 25): every stored text output of every notebook is scanned for

- a **float shown with more than three significant digits** (``0.7512``, ``12.345``, ``215.0``);
  integers, dates, versions (``3.11.2``), times (``12:30:05.25``), ids (``v1.2345``, ``s12.5``) and
  money after a currency sign (``$0.0595``) are not floats a learner reads as a score;
- **text cut with an ellipsis** ("…", or "..." right after a word): a range (``1 … 30``) and a note
  that says how much was left out (``… 25 more messages …``, ``[… truncated 80 tokens]``) are not cuts;
- a **table of more than seven columns**: two lines in a row with more than seven cells each (cells
  apart by two spaces, or numbers by one), a ``|``-row of more than seven cells, or an HTML row of more
  than seven cells.

Each is allowed only where the cell's source gives a reason beside it, on a line of its own:
``# output allows <rule>: <reason>`` with ``<rule>`` one of ``precise``, ``cut``, ``wide``. Such reasons
are kept rare (``MAX_REASONS``). Findings in notebooks that others are editing wait in
``NOT_YET_READABLE``, which may only shrink.
"""
from __future__ import annotations

import re
from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb")) + sorted((ROOT / "notebooks" / "app").glob("*.ipynb"))
MAX_SIGNIFICANT = 3
MAX_COLUMNS = 7
MAX_REASONS = 5
RULES = ("precise", "cut", "wide")
REASON = re.compile(r"^\s*# output allows (\w+): *(\S.*)$", re.MULTILINE)

# A decimal number standing on its own: not part of a word or id (v1.2345), of a version or address
# (3.11.2, 10.0.0.1), of a time (12:30:05.25) or a money amount ($0.0595); thousands may be grouped.
FLOAT = re.compile(r"(?<![\w.:$€£])(\d{1,3}(?:,\d{3})+|\d+)\.(\d+)(?:[eE][-+]?\d+)?(?!\.?\d)")
ELLIPSIS = re.compile(r"…|(?<=\w)\.\.\.")
NOT_A_CUT = re.compile(r"\d ?… ?\d"                             # a range: t = 1 … 30
                       r"|…\s*\d[\d,]* more \w+\s*…"          # … 25 more messages …
                       r"|\[… truncated \d[\d,]* \w+\]")      # [… truncated 80 tokens]
HTML_ROW = re.compile(r"<tr\b.*?</tr>", re.DOTALL | re.IGNORECASE)
HTML_CELL = re.compile(r"<t[hd]\b", re.IGNORECASE)


def significant_digits(whole: str, fraction: str) -> int:
    """How many significant digits ``whole.fraction`` shows: ``0.0750`` shows 3, ``215.0`` shows 4."""
    digits = (whole.replace(",", "") + fraction).lstrip("0")
    return len(digits) if digits else len(fraction)     # 0.0000 shows four places


def too_precise(line: str) -> list[str]:
    """The floats of ``line`` shown with more than three significant digits."""
    return [m.group() for m in FLOAT.finditer(line) if significant_digits(m.group(1), m.group(2)) > MAX_SIGNIFICANT]


def cut(line: str) -> bool:
    """Does ``line`` cut text with an ellipsis?"""
    return bool(ELLIPSIS.search(NOT_A_CUT.sub(" ", line)))


NUMBERS = re.compile(r"[-+]?[\d.,:/%×–✓✗]+(?: [-+]?[\d.,:/%×–✓✗]+)+")


def cells(line: str) -> list[str]:
    """The cells of a text-table row: pieces apart by two spaces or more, and numbers apart by one
    (``0.75 1.00``); a lone ``|`` is a rule between cells, not a cell."""
    pieces = [p for p in re.split(r" {2,}", line.strip()) if p and p != "|"]
    return [n for p in pieces for n in (p.split(" ") if NUMBERS.fullmatch(p) else [p])]


def widest_table(text: str) -> int:
    """The most columns of any table in ``text`` (0 when there is none): an HTML row, a ``|`` row, or
    two lines in a row that have the same number of cells (a header and a row, or two rows)."""
    most = max((len(HTML_CELL.findall(row)) for row in HTML_ROW.findall(text)), default=0)
    lines = text.split("\n")
    most = max([most] + [line.strip().count("|") - 1 for line in lines if line.strip().startswith("|")])
    counts = [len(cells(line)) if line.strip() else 0 for line in lines]
    for i in range(len(counts) - 1):
        if counts[i] == counts[i + 1]:
            most = max(most, counts[i])
    return most


def _texts(cell) -> list[str]:
    texts = []
    for out in cell.get("outputs", []):
        texts.append(out.get("text", ""))
        texts.extend(out.get("data", {}).get(kind, "") for kind in ("text/plain", "text/markdown", "text/html"))
    return [t if isinstance(t, str) else "".join(t) for t in texts if t]


def findings(cell) -> list[tuple[str, str]]:
    """``(rule, what)`` for every unreadable output of ``cell`` that the cell gives no reason for."""
    allowed = {rule for rule, _ in REASON.findall(cell.get("source", ""))}
    found = []
    for text in _texts(cell):
        for line in text.split("\n"):
            if too_precise(line) and "precise" not in allowed:
                found.append(("precise", line.strip()))
            if cut(line) and "cut" not in allowed:
                found.append(("cut", line.strip()))
        columns = widest_table(text)
        if columns > MAX_COLUMNS and "wide" not in allowed:
            found.append(("wide", f"a table of {columns} columns"))
    return found


def notebook_findings(path: Path) -> dict[int, list[tuple[str, str]]]:
    cells = nbformat.read(path, as_version=4).cells
    return {i: found for i, cell in enumerate(cells) if (found := findings(cell))}


def _name(path: Path) -> str:
    return str(path.relative_to(ROOT / "notebooks"))


# Outputs not yet made readable, in notebooks being edited by others while this rule came in (01, 02, 05,
# 07, 08): (notebook, cell) -> the rules it still breaks. This table may only shrink: fix the output, then
# remove its row; no other notebook may join it.
NOT_YET_READABLE: dict[tuple[str, int], set[str]] = {
    ("07_compare_strategies.ipynb", 2): {"cut"},
    ("07_compare_strategies.ipynb", 14): {"cut"},
    ("07_compare_strategies.ipynb", 16): {"cut"},
}
WAITING_FOR_THEIR_EDITORS = {"01_conversation_buffer.ipynb", "05_semantic_memory.ipynb",
                             "07_compare_strategies.ipynb", "08_evaluate_memory.ipynb", "app/compare_live.ipynb"}


@pytest.mark.parametrize("path", NOTEBOOKS, ids=_name)
def test_outputs_are_readable(path):
    problems = []
    for cell, found in notebook_findings(path).items():
        waiting = NOT_YET_READABLE.get((_name(path), cell), set())
        problems += [f"cell {cell} [{rule}] {what[:90]}" for rule, what in found if rule not in waiting]
    assert not problems, (f"{_name(path)} shows outputs a learner cannot read as they are (give a reason with "
                          "'# output allows <rule>: <reason>' only where the output must be so):\n"
                          + "\n".join(problems))


def test_the_not_yet_readable_table_only_holds_what_is_still_there():
    assert {name for name, _ in NOT_YET_READABLE} <= WAITING_FOR_THEIR_EDITORS
    for (name, cell), rules in NOT_YET_READABLE.items():
        found = {rule for rule, _ in notebook_findings(ROOT / "notebooks" / name).get(cell, [])}
        assert rules <= found, f"{name} cell {cell} no longer breaks {rules - found}: remove it from NOT_YET_READABLE"


def test_reasons_name_a_rule_and_are_rare():
    reasons = []
    for path in NOTEBOOKS:
        for cell in nbformat.read(path, as_version=4).cells:
            reasons += REASON.findall(cell.source)
    assert all(rule in RULES for rule, _ in reasons), f"a reason names no rule of {RULES}: {reasons}"
    assert len(reasons) <= MAX_REASONS, f"{len(reasons)} outputs are excused: make them readable instead"


# ---------------------------------------------------------------- the scanner on small examples
@pytest.mark.parametrize("line", ["recall 0.7512", "mean 12.345 tokens", "215.0 tokens a turn", "-0.03881",
                                  "0.0000", "1.2345e-05", "score=0.12345)", "1,234.5 tokens", "87.25%"])
def test_a_float_with_more_than_three_significant_digits_is_found(line):
    assert too_precise(line)


@pytest.mark.parametrize("line", ["recall 0.75, 0.750 or 0.0750", "12.3 tokens", "1,250 tokens", "2026-11-28",
                                  "Python 3.11 or 3.11.2", "at 12:30 or 12:30:05.2500", "id s12.5000x",
                                  "v1.2345", "10.0.0.1", "costs $0.0595", "€12.50", "turn 1234", "1.23e-05"])
def test_what_is_not_a_float_read_as_a_score_is_left_alone(line):
    assert not too_precise(line)


@pytest.mark.parametrize("line", ["the first version launche…", "how should …", "Hello Noor...",
                                  "'For tests let's use pytest. I like fixtures,…'"])
def test_text_cut_with_an_ellipsis_is_found(line):
    assert cut(line)


@pytest.mark.parametrize("line", ["for t = 1 … 30", "   … 25 more messages …", "time [… truncated 1,805 tokens]",
                                  '{"entity": "...", "value": "..."}', "Wait a moment. Done."])
def test_a_range_an_elision_note_and_a_template_are_not_cuts(line):
    assert not cut(line)


def test_a_table_of_eight_columns_is_found_and_of_seven_is_not():
    eight = "\n".join(["name   a    b    c    d    e    f    g",
                       "x      1    2    3    4    5    6    7",
                       "yy     1    2    3    4    5    6    7"])
    seven = "\n".join(line.rsplit(" ", 1)[0].rstrip() for line in eight.split("\n"))
    assert widest_table(eight) == 8 and widest_table(seven) == 7
    assert widest_table("| a | b | c | d | e | f | g | h |\n|---|") == 8
    assert widest_table("<table><tr>" + "<th>x</th>" * 8 + "</tr></table>") == 8
    prose = ("Each memory keeps what the learner said, and the window keeps the last few turns of the\n"
             "conversation; a summary folds older turns into a paragraph that the model reads first,\n"
             "so a question about turn three still finds its answer after thirty turns have gone by.")
    assert widest_table(prose) <= MAX_COLUMNS


def test_a_reason_beside_the_output_allows_only_its_rule():
    outputs = [{"output_type": "stream", "name": "stdout", "text": "score 0.7512 for launche…\n"}]
    cell = {"cell_type": "code", "source": "show()", "outputs": outputs}
    assert [rule for rule, _ in findings(cell)] == ["precise", "cut"]
    cell["source"] = "# output allows precise: the fourth digit is the lesson\nshow()"
    assert [rule for rule, _ in findings(cell)] == ["cut"]
    cell["source"] = "# output allows precise:\nshow()"          # no reason given
    assert [rule for rule, _ in findings(cell)] == ["precise", "cut"]
