"""The environment files agree with each other and with the README."""
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def pins(path):
    return sorted(line.strip() for line in path.read_text().splitlines()
                  if line.strip() and not line.startswith("#") and not line.startswith("-e"))


def test_binder_carries_the_same_pins_and_installs_the_package():
    assert pins(ROOT / "binder" / "requirements.txt") == pins(ROOT / "requirements.txt")
    # repo2docker runs pip from the repository root; pip resolves -e paths from there.
    assert (ROOT / "binder" / "requirements.txt").read_text().strip().endswith("-e .")
    assert (ROOT / "requirements.txt").read_text().strip().endswith("-e .")
    assert (ROOT / "binder" / "runtime.txt").read_text().strip() == "python-3.11"


def test_requirements_pin_everything_the_design_names():
    names = {re.split("==", p)[0].lower() for p in pins(ROOT / "requirements.txt")}
    assert {"jupyterlab", "ipywidgets", "matplotlib", "numpy", "nbval", "pytest"} <= names
    assert all("==" in p for p in pins(ROOT / "requirements.txt"))


def test_pyproject_uses_loose_lower_bounds_only():
    text = (ROOT / "pyproject.toml").read_text()
    deps = re.findall(r'"([A-Za-z0-9_.-]+[<>=!~]=?[^"]*)"', text)
    assert deps and not any("==" in d or "<" in d for d in deps)


def test_readme_first_screen_gives_the_two_commands_and_ci_uses_the_test_one():
    readme = (ROOT / "README.md").read_text()
    first_screen = "\n".join(readme.splitlines()[:30])
    assert "make lab" in first_screen and "make test" in first_screen
    assert "mybinder.org" in first_screen and "00_start_here.ipynb" in first_screen
    ci = (ROOT / ".ci" / "run").read_text()
    assert re.search(r"^make test$", ci, re.MULTILINE)


def test_every_notebook_is_listed_in_the_readme_and_has_solutions():
    readme = (ROOT / "README.md").read_text()
    for nb in sorted((ROOT / "notebooks").glob("*.ipynb")):
        assert f"notebooks/{nb.name}" in readme, nb.name
        assert (ROOT / "notebooks" / "solutions" / f"{nb.stem}_solutions.py").exists(), nb.name


def test_notebooks_are_stored_executed_without_widget_state():
    import nbformat
    for path in sorted((ROOT / "notebooks").glob("*.ipynb")):
        nb = nbformat.read(path, as_version=4)
        assert "widgets" not in nb.metadata, path.name
        code = [c for c in nb.cells if c.cell_type == "code"]
        counts = [c.execution_count for c in code]
        assert counts == list(range(1, len(code) + 1)), f"{path.name} is not executed top to bottom"
