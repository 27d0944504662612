"""What JupyterLab does to a notebook's prose before a learner reads it."""
import json
import re

import pytest

from conftest import ROOT

NOTEBOOKS = sorted((ROOT / "notebooks").glob("**/*.ipynb"))


def unescaped_dollars(markdown: str) -> list[str]:
    """The ``$`` signs JupyterLab's math renderer may pair up, outside code spans and blocks."""
    prose = re.sub(r"```.*?```|`[^`]*`", "", markdown, flags=re.DOTALL)
    return re.findall(r"(?<!\\)\$", prose)


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_prices_in_prose_are_not_typeset_as_math(path):
    """01 wrote "costs about $0.06 total ... $3 per million), $0.06 is what": JupyterLab typeset the text
    between the dollar signs as one italic formula. A price in prose is written \\$3."""
    for cell in json.loads(path.read_text())["cells"]:
        if cell["cell_type"] == "markdown":
            text = "".join(cell["source"])
            assert len(unescaped_dollars(text)) < 2, f"{path.name} cell {cell.get('id')}: {text[:80]}"


def test_the_rule_sees_dollars_in_prose_and_not_in_code():
    assert len(unescaped_dollars("costs $0.06, then $3")) == 2
    assert unescaped_dollars("costs \\$0.06, then \\$3, `f'${x}'` and\n```\nprint('$', '$')\n```") == []
