"""Print how long each notebook takes a learner who reads every cell and does the exercises.

The yardstick: 130 words of markdown prose a minute, 1 minute a code cell, 8 minutes an exercise.

- *Prose words*: the words of the markdown cells, without fenced code blocks, HTML tags and link
  targets (a link's text counts; inline code counts, it is read too). A word is a run of text
  between spaces with at least one letter or digit in it.
- *Code cells*: every code cell, exercise stubs included.
- *Exercises*: numbered tasks. An exercise starts with a markdown heading ``Exercise N.M``
  (``## Exercise 0.1: …``) or a line that begins in bold with the number: ``**N.M**``,
  ``**N.M · title.**`` or ``**Exercise N.M**``; each number counts once per notebook.

Minutes are rounded up. The time a notebook states (the first "N minutes" in its first two
cells) is printed beside the estimate when there is one.

    python tools/estimate_time.py                 # every notebook in notebooks/
    python tools/estimate_time.py notebooks/05_*.ipynb
"""
from __future__ import annotations

import argparse
import json
import math
import re
import sys
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
WORDS_PER_MINUTE = 130
MINUTES_PER_CODE_CELL = 1
MINUTES_PER_EXERCISE = 8
FENCED = re.compile(r"^(```|~~~).*?^\1", re.MULTILINE | re.DOTALL)
TAG = re.compile(r"<[^>\n]+>")
LINK_TARGET = re.compile(r"\]\([^)]*\)")
EXERCISE = re.compile(r"^(?:#+\s*Exercise\s+(\d+\.\d+)|\*\*(?:Exercise\s+)?(\d+\.\d+)(?![\d.]))", re.MULTILINE)
STATED = re.compile(r"(\d+)\s*(?:–|-|to)?\s*(?:\d+\s*)?min(?:utes?)?\b")


@dataclass(frozen=True)
class Estimate:
    notebook: str
    words: int
    code_cells: int
    exercises: tuple[str, ...]
    stated: int | None          # minutes the notebook says it takes, if it says

    @property
    def minutes(self) -> int:
        return math.ceil(self.words / WORDS_PER_MINUTE + self.code_cells * MINUTES_PER_CODE_CELL
                         + len(self.exercises) * MINUTES_PER_EXERCISE)


def prose_words(markdown: str) -> int:
    """Words a learner reads in a markdown cell.

    >>> prose_words("## Why\\nA [short](http://x.org) list: `add()` and <b>more</b>.\\n```\\ncode here\\n```")
    7
    """
    text = LINK_TARGET.sub("]", TAG.sub(" ", FENCED.sub(" ", markdown)))
    return sum(1 for word in text.split() if any(ch.isalnum() for ch in word))


def exercises(markdown: str) -> list[str]:
    """The exercise numbers a markdown cell starts.

    >>> exercises("## Exercise 0.1: which facts?\\n\\n**1.2** Write `f`.\\n**Exercise 3.1** Predict …\\n"
    ...           "**5.3 · Fold plurals.** Write …\\nA score of **0.88** mid-line is no exercise.")
    ['0.1', '1.2', '3.1', '5.3']
    """
    return [a or b for a, b in EXERCISE.findall(markdown)]


def estimate(path: Path) -> Estimate:
    cells = json.loads(Path(path).read_text())["cells"]
    words, code, numbers = 0, 0, {}
    for cell in cells:
        source = "".join(cell["source"])
        if cell["cell_type"] == "code":
            code += 1
        elif cell["cell_type"] == "markdown":
            words += prose_words(source)
            numbers.update(dict.fromkeys(exercises(source)))
    opening = " ".join("".join(c["source"]) for c in cells[:2])
    stated = STATED.search(opening)
    return Estimate(Path(path).name, words, code, tuple(numbers), int(stated.group(1)) if stated else None)


def table(estimates: list[Estimate]) -> str:
    rows = [f"{'notebook':44} {'words':>6} {'code':>5} {'exercises':>9} {'minutes':>8} {'states':>7}"]
    for e in estimates:
        rows.append(f"{e.notebook:44} {e.words:6d} {e.code_cells:5d} {len(e.exercises):9d} {e.minutes:8d} "
                    f"{'' if e.stated is None else e.stated:>7}")
    rows.append(f"{'total':44} {sum(e.words for e in estimates):6d} {sum(e.code_cells for e in estimates):5d} "
                f"{sum(len(e.exercises) for e in estimates):9d} {sum(e.minutes for e in estimates):8d} "
                f"{sum(e.stated or 0 for e in estimates):7d}")
    return "\n".join(rows)


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python tools/estimate_time.py", description=__doc__.split("\n\n")[0],
                                     epilog=f"yardstick: {WORDS_PER_MINUTE} words of prose a minute, "
                                            f"{MINUTES_PER_CODE_CELL} minute a code cell, "
                                            f"{MINUTES_PER_EXERCISE} minutes an exercise")
    parser.add_argument("notebooks", nargs="*", type=Path, help="notebooks to estimate (default: every one)")
    paths = parser.parse_args(argv).notebooks or sorted((ROOT / "notebooks").glob("*.ipynb"))
    missing = [p for p in paths if not p.is_file()]
    if missing:
        parser.error(f"no notebook at {', '.join(map(str, missing))}")
    print(f"Estimated time: {WORDS_PER_MINUTE} words of prose a minute, {MINUTES_PER_CODE_CELL} minute a code "
          f"cell, {MINUTES_PER_EXERCISE} minutes an exercise (rounded up per notebook).")
    print(table([estimate(p) for p in paths]))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
