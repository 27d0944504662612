"""The house rules of the library, read from its source with ``ast`` (nothing is imported).

Each rule is a function from a package folder to the list of places that break it, so the
same rule runs on teachmem/ and, at the end of this file, on small packages written to a
temporary folder: one that breaks the rule (it must be caught) and one that keeps it.
"""
from __future__ import annotations

import ast
from collections.abc import Callable
import json
import re
import subprocess
import sys
import textwrap
from importlib.metadata import packages_distributions
from pathlib import Path

import pytest

try:
    import tomllib
except ModuleNotFoundError:      # Python 3.10: requirements-test.txt pins tomli there
    import tomli as tomllib

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tools"))
from reading_load import (LIMIT, code_cells, top_level_names, Import, Source, graph, imports, lines, module_name,  # noqa: E402
                          modules, reading_loads, shown_names, taught_by)

PACKAGE = ROOT / "teachmem"
NOTEBOOKS = ROOT / "notebooks"
PYPROJECT = ROOT / "pyproject.toml"
MAX_FUNCTION_LINES = 60
MAX_FILE_LINES = 400
TAUGHT_IN = re.compile(r"Taught in ((?:[^.]|\.(?!\s))*)", re.DOTALL)
NOTEBOOK_LINK = re.compile(r"notebooks/([\w-]+\.ipynb)")
DOTTED = re.compile(r"[A-Za-z_]\w*(?:\.\w+)+")


def _relative(path: Path, package: Path) -> str:
    return str(path.relative_to(package.parent))


def _trees(package: Path):
    for path in modules(package).values():
        yield path, ast.parse(path.read_text(), str(path))


# ------------------------------------------------------------------ the layers
def _allowed(importer: str, target: str, top: str) -> bool:
    if importer.startswith(f"{top}.core.") or importer == f"{top}.core":
        return target.startswith(f"{top}.core.") or target == f"{top}.core"
    if importer.startswith(f"{top}.memory.") or importer == f"{top}.memory":
        return (target.startswith((f"{top}.core.", f"{top}.memory.")) or target == f"{top}.llm"
                or target in (f"{top}.core", f"{top}.memory"))
    return True


def layer_violations(package: Path) -> list[str]:
    """memory/ imports only core/, the package teachmem.llm and memory/; core/ imports only core/."""
    top, known = package.name, modules(package)
    found = []
    for name, path in known.items():
        for imp in imports(path, package, known):
            if imp.target.split(".")[0] == top and not _allowed(name, imp.target, top):
                found.append(f"{_relative(path, package)}:{imp.line} imports {imp.target}")
    return list(dict.fromkeys(found))


def lab_lessons_violations(package: Path) -> list[str]:
    """Neither memory/ nor core/ imports lab/ or lessons/."""
    top, known = package.name, modules(package)
    found = []
    for name, path in known.items():
        if not name.startswith((f"{top}.memory", f"{top}.core")):
            continue
        for imp in imports(path, package, known):
            if imp.target.startswith((f"{top}.lab", f"{top}.lessons")):
                found.append(f"{_relative(path, package)}:{imp.line} imports {imp.target}")
    return list(dict.fromkeys(found))


def cycles(package: Path) -> list[str]:
    """Every strongly connected group of two or more modules (or a module importing itself)."""
    edges = graph(package)
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[str] = []

    def visit(node: str) -> None:     # Tarjan's algorithm
        index[node] = low[node] = len(index)
        stack.append(node)
        for target in sorted(edges[node]):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            group = []
            while True:
                member = stack.pop()
                group.append(member)
                if member == node:
                    break
            if len(group) > 1:
                found.append(" <-> ".join(sorted(group)))

    for node in sorted(edges):
        if node not in index:
            visit(node)
    return list(dict.fromkeys(found))


# ------------------------------------------------------------------ imports
def private_imports(package: Path) -> list[str]:
    """``from teachmem.x import _name`` (or ``x._name`` on an imported teachmem module) in another module."""
    top, known = package.name, modules(package)
    found = []
    for name, path in known.items():
        module_aliases = {}
        for imp in imports(path, package, known):
            if imp.target.split(".")[0] != top or imp.target == name:
                continue
            if imp.name and imp.name.startswith("_") and not imp.name.startswith("__"):
                found.append(f"{_relative(path, package)}:{imp.line} imports {imp.name} from {imp.target}")
            if imp.name is None:
                module_aliases[imp.target.rsplit(".", 1)[-1]] = imp.target
        for node in ast.walk(ast.parse(path.read_text())):
            if (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name)
                    and node.value.id in module_aliases and node.attr.startswith("_")
                    and not node.attr.startswith("__")):
                found.append(f"{_relative(path, package)}:{node.lineno} uses {node.value.id}.{node.attr}")
    return list(dict.fromkeys(found))


def imports_in_functions(package: Path) -> list[str]:
    """An import inside a function, unless it is an optional third-party one under ``except ImportError``."""
    top, known = package.name, modules(package)
    found = []
    for path in known.values():
        for imp in imports(path, package, known):
            if imp.in_function and (not imp.guarded or imp.target.split(".")[0] == top):
                found.append(f"{_relative(path, package)}:{imp.line} imports {imp.target} inside a function")
    return list(dict.fromkeys(found))


def _third_party(imp: Import, top: str) -> str | None:
    first = imp.target.split(".")[0]
    if not first or first == top or first in sys.stdlib_module_names or first == "__future__":
        return None
    return first


def _normalise(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def _declared(pyproject: Path) -> tuple[set[str], set[str]]:
    project = tomllib.loads(pyproject.read_text())["project"]

    def names(specs):
        return {_normalise(re.split(r"[\s<>=!~;\[(]", s, maxsplit=1)[0]) for s in specs}
    optional = set().union(*map(names, project.get("optional-dependencies", {}).values()))
    return names(project.get("dependencies", [])), optional


def undeclared_imports(package: Path, pyproject: Path) -> list[str]:
    """Every third-party import is a dependency in pyproject.toml (a guarded optional one may be an
    optional dependency instead)."""
    required, optional = _declared(pyproject)
    distributions, known = packages_distributions(), modules(package)
    found = []
    for path in known.values():
        for imp in imports(path, package, known):
            first = _third_party(imp, package.name)
            if first is None:
                continue
            names = {_normalise(d) for d in distributions.get(first, [first])}
            if not names & (required | optional if imp.guarded else required):
                where = "dependencies or optional-dependencies" if imp.guarded else "dependencies"
                found.append(f"{_relative(path, package)}:{imp.line} imports {first}, "
                             f"not in pyproject.toml's {where}")
    return list(dict.fromkeys(found))


# ------------------------------------------------------------------ sizes
def long_functions(package: Path) -> list[str]:
    found = []
    for path, tree in _trees(package):
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                length = node.end_lineno - node.lineno + 1
                if length > MAX_FUNCTION_LINES:
                    found.append(f"{_relative(path, package)}:{node.lineno} {node.name} has {length} lines")
    return list(dict.fromkeys(found))


def long_files(package: Path) -> list[str]:
    return [f"{_relative(path, package)} has {lines(path)} lines"
            for path in modules(package).values() if lines(path) > MAX_FILE_LINES]


def heavy_strategies(package: Path, notebooks: Path = NOTEBOOKS) -> list[str]:
    return [f"{name} reads {load.total} lines (own {load.own_lines}, imports {load.imported_lines}, "
            f"methods {load.methods_lines})" for name, load in reading_loads(package, notebooks).items()
            if load.total > LIMIT]


# ------------------------------------------------------------------ patterns
def _is_class_name(node: ast.AST) -> bool:
    """``type(x).__name__``, ``x.__class__.__name__`` or ``cls.__name__``."""
    if not (isinstance(node, ast.Attribute) and node.attr == "__name__"):
        return False
    value = node.value
    return ((isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and value.func.id == "type")
            or (isinstance(value, ast.Attribute) and value.attr == "__class__")
            or (isinstance(value, ast.Name) and value.id in ("cls", "klass", "class_")))


def _keys(node: ast.AST) -> list[ast.AST]:
    """The expressions ``node`` uses as a key."""
    if isinstance(node, ast.Subscript):
        return [node.slice]
    if isinstance(node, ast.Dict):
        return [k for k in node.keys if k is not None]
    if isinstance(node, ast.DictComp):
        return [node.key]
    if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
            and node.func.attr in ("get", "setdefault", "pop") and node.args):
        return [node.args[0]]
    if isinstance(node, ast.Compare) and any(isinstance(op, (ast.In, ast.NotIn)) for op in node.ops):
        return [node.left]
    return []


def class_name_registries(package: Path) -> list[str]:
    found = []
    for path, tree in _trees(package):
        for node in ast.walk(tree):
            if any(_is_class_name(part) for key in _keys(node) for part in ast.walk(key)):
                found.append(f"{_relative(path, package)}:{node.lineno} keys on a class name")
    return list(dict.fromkeys(found))


def state_wipes(package: Path) -> list[str]:
    """``vars(obj).clear()`` or ``obj.__dict__.clear()``."""
    found = []
    for path, tree in _trees(package):
        for node in ast.walk(tree):
            if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "clear"):
                continue
            target = node.func.value
            if ((isinstance(target, ast.Call) and isinstance(target.func, ast.Name) and target.func.id == "vars")
                    or (isinstance(target, ast.Attribute) and target.attr == "__dict__")):
                found.append(f"{_relative(path, package)}:{node.lineno} wipes an object's attributes")
    return list(dict.fromkeys(found))


# ------------------------------------------------------------------ code a learner reads
def _read_by_learners(package: Path):
    """The modules a learner is sent to read: memory/ and core/."""
    top = package.name
    for path, tree in _trees(package):
        if module_name(path, package).startswith((f"{top}.memory", f"{top}.core")):
            yield path, tree


def _in_learner_code(package: Path, broken: Callable[[ast.AST], bool], what: str) -> list[str]:
    """``path:line what`` for every node of memory/ and core/ that ``broken`` finds."""
    return [f"{_relative(path, package)}:{node.lineno} {what}"
            for path, tree in _read_by_learners(package) for node in ast.walk(tree) if broken(node)]


def _packs_names(node: ast.AST) -> bool:
    targets = node.targets if isinstance(node, ast.Assign) else []
    return any(isinstance(t, (ast.Tuple, ast.List)) and len(t.elts) > 2 for t in targets)


def _lambda_in_dict(node: ast.AST) -> bool:
    values = node.values if isinstance(node, ast.Dict) else [node.value] if isinstance(
        node, ast.DictComp) else []
    return any(isinstance(v, ast.Lambda) for v in values)


def _imports_inspect(node: ast.AST) -> bool:
    names = [a.name for a in node.names] if isinstance(node, ast.Import) else [
        node.module or ""] if isinstance(node, ast.ImportFrom) else []
    return any(name.split(".")[0] == "inspect" for name in names)


def packed_assignments(package: Path) -> list[str]:
    """``a, b, c = …``: more than two targets in one tuple assignment."""
    return _in_learner_code(package, _packs_names, "assigns more than two names at once")


def dict_lambdas(package: Path) -> list[str]:
    """A lambda as a value of a dict literal (or dict comprehension): a plain ``if`` reads better."""
    return _in_learner_code(package, _lambda_in_dict, "puts a lambda in a dict")


def inspect_uses(package: Path) -> list[str]:
    """Any import of ``inspect`` (signature introspection where a plain argument does)."""
    return _in_learner_code(package, _imports_inspect, "uses inspect")


# ------------------------------------------------------------------ back-links to the notebooks
def _names_used(notebook: Path) -> set[str]:
    """Every identifier the notebook's code cells use (names, attributes, imported names), and the
    dotted path of every module they import (``from teachmem.core import tokens``: teachmem.core.tokens)."""
    used: set[str] = set()
    for code, tree in code_cells(notebook):
        if tree is None:
            used |= set(re.findall(r"[A-Za-z_]\w*", code))
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.Name):
                used.add(node.id)
            elif isinstance(node, ast.Attribute):
                used.add(node.attr)
            elif isinstance(node, ast.Import):
                used |= {alias.name for alias in node.names}
            elif isinstance(node, ast.ImportFrom) and node.module:
                used |= {node.module} | {f"{node.module}.{alias.name}" for alias in node.names}
            elif isinstance(node, ast.Constant) and isinstance(node.value, str) and DOTTED.fullmatch(node.value):
                used.add(node.value)       # e.g. [sys.executable, "-m", "teachmem.evaluate"]
            if isinstance(node, ast.alias):
                used |= {node.name.split(".")[-1]} | ({node.asname} if node.asname else set())
            elif isinstance(node, ast.keyword) and node.arg:
                used.add(node.arg)
    return used


def _defined(tree: ast.Module) -> set[str]:
    """The public names a module defines at its top level."""
    return {n for n in top_level_names(tree) if not n.startswith("_")}


def _docstrings(tree: ast.Module, module: str):
    """(the names that count as a use, docstring, line) for the module and every class and function."""
    if ast.get_docstring(tree):
        yield _defined(tree) | {module}, ast.get_docstring(tree), 1
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and ast.get_docstring(node):
            yield {node.name}, ast.get_docstring(node), node.lineno


def broken_back_links(package: Path, notebooks: Path) -> list[str]:
    """Every "Taught in notebooks/NN_x.ipynb" names a notebook that exists and uses the symbol."""
    used: dict[str, set[str]] = {}
    found = []
    for path, tree in _trees(package):
        module = module_name(path, package)
        for names, doc, line in _docstrings(tree, module):
            for sentence in TAUGHT_IN.findall(doc):
                for notebook in NOTEBOOK_LINK.findall(sentence):
                    where = f"{_relative(path, package)}:{line} {'/'.join(sorted(names)) if len(names) < 4 else module}"
                    if not (notebooks / notebook).exists():
                        found.append(f"{where}: no notebook {notebook}")
                        continue
                    if notebook not in used:
                        used[notebook] = _names_used(notebooks / notebook)
                    if not names & used[notebook]:
                        found.append(f"{where}: {notebook} does not use it")
    return list(dict.fromkeys(found))


# ------------------------------------------------------------------ the rules on teachmem/
RULES = {
    "layers": lambda: layer_violations(PACKAGE),
    "lab_and_lessons_stay_outside": lambda: lab_lessons_violations(PACKAGE),
    "no_import_cycles": lambda: cycles(PACKAGE),
    "no_private_imports": lambda: private_imports(PACKAGE),
    "no_imports_inside_functions": lambda: imports_in_functions(PACKAGE),
    "functions_at_most_60_lines": lambda: long_functions(PACKAGE),
    "files_at_most_400_lines": lambda: long_files(PACKAGE),
    "reading_load_at_most_600_lines": lambda: heavy_strategies(PACKAGE),
    "back_links_name_a_notebook_that_uses_the_symbol": lambda: broken_back_links(PACKAGE, NOTEBOOKS),
    "third_party_imports_are_declared": lambda: undeclared_imports(PACKAGE, PYPROJECT),
    "no_registry_keyed_on_class_names": lambda: class_name_registries(PACKAGE),
    "no_wiping_an_objects_attributes": lambda: state_wipes(PACKAGE),
    "no_assignment_of_more_than_two_names_in_memory_and_core": lambda: packed_assignments(PACKAGE),
    "no_lambda_in_a_dict_in_memory_and_core": lambda: dict_lambdas(PACKAGE),
    "no_inspect_in_memory_and_core": lambda: inspect_uses(PACKAGE),
}


@pytest.mark.parametrize("rule", RULES)
def test_teachmem_keeps_the_house_rule(rule):
    found = RULES[rule]()
    assert not found, f"{len(found)} place(s) break the rule {rule}:\n" + "\n".join(found)


def test_the_rules_see_the_whole_library():
    names = modules(PACKAGE)
    assert {"teachmem.memory.buffer", "teachmem.core.tokens", "teachmem.llm", "teachmem.lab.evaluation.scenario_scores"} <= set(names)
    assert graph(PACKAGE)["teachmem.memory.buffer"] >= {"teachmem.core.tokens", "teachmem.memory.message"}
    loads = reading_loads(PACKAGE)
    assert set(loads) >= {"teachmem.memory.buffer.ConversationBuffer",
                          "teachmem.memory.hybrid.HybridMemoryManager"}
    assert not any(name.startswith("teachmem.memory.message") for name in loads)
    assert LIMIT == 600


def test_no_strategy_has_a_ceiling_of_its_own():
    """Every strategy, composites included, is held to the one LIMIT: the tool has no table of
    exceptions left to grow."""
    import reading_load
    assert not [name for name in vars(reading_load) if name.startswith("NOT_YET")]
    loads = reading_loads(PACKAGE)
    assert max(load.total for load in loads.values()) <= LIMIT


# ------------------------------------------------------------------ each rule catches a bad example
def _package(tmp_path: Path, files: dict[str, str], name: str = "pkg") -> Path:
    """Write a small package ``pkg`` (every folder a package) under ``tmp_path``."""
    root = tmp_path / name
    for relative, text in files.items():
        path = root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text))
    for folder in [root, *[p for p in root.rglob("*") if p.is_dir()]]:
        (folder / "__init__.py").touch()
    return root


def test_layers(tmp_path):
    bad = _package(tmp_path / "bad", {"memory/a.py": "from pkg.lab.x import y\nfrom pkg.llm.extract import z\n",
                                      "core/b.py": "from pkg.memory.a import A\n",
                                      "lab/x.py": "y = 1\n", "llm/extract.py": "z = 1\n"})
    assert len(layer_violations(bad)) == 3
    assert len(lab_lessons_violations(bad)) == 1
    good = _package(tmp_path / "good", {"memory/a.py": "from pkg.core.b import B\nfrom pkg.llm import LLM\n"
                                                       "from pkg.memory.m import M\n",
                                        "core/b.py": "from . import c\nB = 1\n", "core/c.py": "",
                                        "lab/x.py": "from pkg.memory.a import A\n"})
    assert layer_violations(good) == [] and lab_lessons_violations(good) == []


def test_cycles(tmp_path):
    bad = _package(tmp_path / "bad", {"a.py": "from pkg.b import x\n", "b.py": "from pkg import c\n",
                                      "c.py": "import pkg.a\n"})
    assert cycles(bad) == ["pkg.a <-> pkg.b <-> pkg.c"]
    good = _package(tmp_path / "good", {"a.py": "from pkg.b import x\n", "b.py": "from pkg import c\n",
                                        "c.py": "import json\n"})
    assert cycles(good) == []


def test_private_imports(tmp_path):
    bad = _package(tmp_path / "bad", {"a.py": "_x = 1\n", "b.py": "from pkg.a import _x\n",
                                      "c.py": "from pkg import a\nprint(a._x)\n"})
    assert len(private_imports(bad)) == 2
    good = _package(tmp_path / "good", {"a.py": "x = 1\n_y = 2\nprint(_y)\n", "b.py": "from pkg.a import x\n",
                                        "c.py": "from pkg import __version__\n"})
    assert private_imports(good) == []


def test_imports_inside_functions(tmp_path):
    bad = _package(tmp_path / "bad", {"a.py": """
        def f():
            import json
        def g():
            try:
                from pkg import b
            except ImportError:
                pass
        def h():
            try:
                import numpy
            except ValueError:
                pass
        """, "b.py": ""})
    assert len(imports_in_functions(bad)) == 3
    good = _package(tmp_path / "good", {"a.py": """
        import json
        try:
            import yaml
        except ImportError:
            yaml = None
        def f():
            try:
                import sentence_transformers
            except (ModuleNotFoundError, OSError):
                raise
        """})
    assert imports_in_functions(good) == []


def test_long_functions_and_files(tmp_path):
    body = "    x = 1\n" * 59
    bad = _package(tmp_path / "bad", {"a.py": f"def f():\n{body}    return x\n" + "\n" * 340})
    assert len(long_functions(bad)) == 1 and len(long_files(bad)) == 1
    good = _package(tmp_path / "good", {"a.py": f"def f():\n{body}" + "\n" * 339})
    assert long_functions(good) == [] and long_files(good) == []


def _notebook(folder: Path, name: str, *code: str) -> None:
    folder.mkdir(exist_ok=True)
    cells = [{"cell_type": "code", "source": [line]} for line in code]
    (folder / name).write_text(json.dumps({"cells": cells + [{"cell_type": "markdown", "source": [
        "show_source(prose) in prose shows nothing"]}]}))


READING = {
    "memory/s.py": '''
        """The strategy."""
        from pkg.core.big import big
        from pkg.core.taught import taught
        from pkg.core.late import late
        from pkg.core.unshown import unshown
        from pkg.memory.mixin import Mixin
        from pkg.memory.other import Other, helper
        from pkg.llm import LLM
        class S(Mixin):
            """Taught in notebooks/02_s.ipynb."""
            kind = "s"
            def __init__(self):
                self.tier = Other()
            def add(self):
                return self.tier.add() + helper()
            @classmethod
            def load(cls):
                return Other.from_state({})
            def ask(self, store: Other, plain: int):
                return store.peek() + plain.bit_length()
        ''',
    "memory/mixin.py": "class Mixin:\n    pass\n" + "# more\n" * 18,
    "memory/other.py": textwrap.dedent('''
        class Other:
            kind = "other"
            def __init__(self):
                pass
            def add(self):
                return self.step()
            def step(self):
                return 1
            def peek(self):
                return 0
            @classmethod
            def from_state(cls, state):
                return cls()
            def unused(self):
                x = 1
                x = 2
                x = 3
                return x
        def helper():
            return 2
        ''') + "# more\n" * 80,
    "core/taught.py": '"""Taught in notebooks/01_t.ipynb."""\ndef taught():\n    pass\n' + "#\n" * 297,
    "core/late.py": '"""Taught in notebooks/03_l.ipynb."""\ndef late():\n    pass\n' + "#\n" * 97,
    "core/unshown.py": '"""Taught in notebooks/01_t.ipynb."""\ndef unshown():\n    pass\n' + "#\n" * 47,
    "llm/__init__.py": "class LLM:\n    pass\n" + "#\n" * 900,
    "memory/t.py": "from pkg.memory.other import Other\nclass T(Other):\n    kind = 't'\n",
}


def test_a_module_is_taught_where_its_linked_notebook_shows_its_code(tmp_path):
    notebooks = tmp_path / "notebooks"
    _notebook(notebooks, "01_t.ipynb", "%matplotlib inline\n", "lesson.show_source(taught)",
              "unshown()  # used, not shown", "show_source(x.late.__init__)")
    _notebook(notebooks, "03_l.ipynb", "from pkg.core.late import late\n", "lesson.show_source(late)")
    assert shown_names(notebooks / "01_t.ipynb") == {"taught", "x", "late"}
    package = _package(tmp_path, {**READING, "core/big.py": "big = 1\n"})
    source = Source(package)
    assert taught_by(source, "pkg.core.taught", notebooks) == "01_t.ipynb"
    assert taught_by(source, "pkg.core.unshown", notebooks) is None      # linked, never shown
    assert taught_by(source, "pkg.core.late", notebooks) == "03_l.ipynb"  # 01 does not link it
    assert taught_by(source, "pkg.core.big", notebooks) is None          # no link at all


def test_reading_load(tmp_path):
    notebooks = tmp_path / "notebooks"
    _notebook(notebooks, "01_t.ipynb", "lesson.show_source(taught, unshown_name)")
    _notebook(notebooks, "03_l.ipynb", "lesson.show_source(late)")
    good = _package(tmp_path / "good", {**READING, "core/big.py": "big = 1\n" * 300})
    load = reading_loads(good, notebooks)["pkg.memory.s.S"]
    assert load.notebook == "02_s.ipynb"
    assert load.own == ("pkg.memory.s", "pkg.memory.mixin") and load.own_lines == 21 + 20
    # taught by 01 (shown there) is not counted; late is taught by 03, after 02; unshown never shown
    assert load.imported == ("pkg.core.big", "pkg.core.late", "pkg.core.unshown")
    assert load.imported_lines == 300 + 100 + 50
    assert dict(load.methods) == {"pkg.memory.other:Other.__init__": 2, "pkg.memory.other:Other.add": 2,
                                  "pkg.memory.other:Other.step": 2, "pkg.memory.other:Other.from_state": 3,
                                  "pkg.memory.other:Other.peek": 2, "pkg.memory.other:helper": 2}
    assert load.total == 41 + 450 + 13 == 504
    assert heavy_strategies(good, notebooks) == []
    loads = reading_loads(good, notebooks)
    assert set(loads) == {"pkg.memory.s.S", "pkg.memory.other.Other", "pkg.memory.t.T"}
    # A strategy built on another: the other is an imported module (counted: no notebook teaches it)
    assert loads["pkg.memory.t.T"].own == ("pkg.memory.t",)
    assert loads["pkg.memory.t.T"].imported == ("pkg.memory.other",) and not loads["pkg.memory.t.T"].methods
    bad = _package(tmp_path / "bad", {**READING, "core/big.py": "big = 1\n" * 397})
    assert heavy_strategies(bad, notebooks) == ["pkg.memory.s.S reads 601 lines (own 41, imports 547, methods 13)"]


def test_back_links(tmp_path):
    notebooks = tmp_path / "notebooks"
    notebooks.mkdir()
    cells = [{"cell_type": "code", "source": ["%matplotlib inline\n", "from pkg import used, c\n", "used(3).shown()\n",
                                              "b = 2\n", "run(['python', '-m', 'pkg.d'])"]},
             {"cell_type": "markdown", "source": ["not_code is mentioned only in prose"]}]
    (notebooks / "01_x.ipynb").write_text(json.dumps({"cells": cells}))
    bad = _package(tmp_path / "bad", {"b.py": '''
        """Only its name is in the notebook, as a variable. Taught in notebooks/01_x.ipynb."""
        ''', "a.py": '''
        """A module. Taught in notebooks/01_x.ipynb."""
        def not_code():
            """Taught in notebooks/01_x.ipynb."""
        def other():
            """Taught in notebooks/02_missing.ipynb."""
        '''})
    assert [f.split(": ", 1)[1] for f in broken_back_links(bad, notebooks)] == \
        ["01_x.ipynb does not use it", "01_x.ipynb does not use it", "no notebook 02_missing.ipynb",
         "01_x.ipynb does not use it"]
    good = _package(tmp_path / "good", {"c.py": '''
        """Imported as a module by the notebook. Taught in notebooks/01_x.ipynb."""
        ''', "d.py": '''
        """Run with python -m by the notebook. Taught in notebooks/01_x.ipynb."""
        ''', "a.py": '''
        """A module. Taught in notebooks/01_x.ipynb."""
        def used():
            """Taught in
            notebooks/01_x.ipynb."""
        class Thing:
            def shown(self):
                """Taught in notebooks/01_x.ipynb and nowhere else."""
        '''})
    assert broken_back_links(good, notebooks) == []


def test_third_party_imports_are_declared(tmp_path):
    pyproject = tmp_path / "pyproject.toml"
    pyproject.write_text('[project]\ndependencies = ["numpy>=1.24", "typing_extensions"]\n'
                         '[project.optional-dependencies]\nembeddings = ["sentence-transformers>=2"]\n')
    bad = _package(tmp_path / "bad", {"a.py": "import tqdm\nimport sentence_transformers\n"})
    assert len(undeclared_imports(bad, pyproject)) == 2
    good = _package(tmp_path / "good", {"a.py": """
        import json, os.path
        import numpy as np
        from typing_extensions import Self
        from pkg import a
        try:
            import sentence_transformers
        except ImportError:
            sentence_transformers = None
        """})
    assert undeclared_imports(good, pyproject) == []


def test_class_name_registries(tmp_path):
    bad = _package(tmp_path / "bad", {"a.py": """
        REGISTRY = {}
        def register(cls):
            REGISTRY[cls.__name__] = cls
        def find(obj):
            found = REGISTRY[type(obj).__name__]
            return found or REGISTRY.get(obj.__class__.__name__)
        """})
    assert len(class_name_registries(bad)) == 3
    good = _package(tmp_path / "good", {"a.py": """
        REGISTRY = {}
        def register(cls):
            REGISTRY[cls.kind] = cls
        def check(obj):
            raise TypeError(f"got {type(obj).__name__}")
        """})
    assert class_name_registries(good) == []


def test_state_wipes(tmp_path):
    bad = _package(tmp_path / "bad", {"a.py": "def reset(o):\n    vars(o).clear()\n    o.__dict__.clear()\n"})
    assert len(state_wipes(bad)) == 2
    good = _package(tmp_path / "good", {"a.py": "def reset(o):\n    o.items.clear()\n    vars(o).update({})\n"})
    assert state_wipes(good) == []


def test_code_a_learner_reads_keeps_to_plain_statements(tmp_path):
    bad = _package(tmp_path / "bad", {"memory/a.py": """
        import inspect
        a, b, c = 1, 2, 3
        [d, e, f] = [4, 5, 6]
        SIGNALS = {"age": lambda m: m.age, "size": 1}
        DOUBLED = {k: lambda x: 2 * x for k in "ab"}
        """, "core/b.py": "from inspect import signature\n",
        "lab/c.py": "import inspect\na, b, c = 1, 2, 3\nX = {'f': lambda: 1}\n"})
    assert [f.split(" ", 1)[1] for f in packed_assignments(bad)] == ["assigns more than two names at once"] * 2
    assert [f.split(":")[1].split()[0] for f in packed_assignments(bad)] == ["3", "4"]
    assert [f.split(" ")[0] for f in dict_lambdas(bad)] == ["pkg/memory/a.py:5", "pkg/memory/a.py:6"]
    assert sorted(f.split(" ")[0] for f in inspect_uses(bad)) == ["pkg/core/b.py:1", "pkg/memory/a.py:2"]
    good = _package(tmp_path / "good", {"memory/a.py": """
        a, b = 1, 2
        first = second = third = 0
        for x, y, z in [(1, 2, 3)]:
            pass
        SIGNALS = {"age": 1, "size": 2}
        pick = sorted([3, 1], key=lambda n: -n)
        """, "lab/c.py": "import inspect\na, b, c = 1, 2, 3\nX = {'f': lambda: 1}\n"})
    assert packed_assignments(good) == [] and dict_lambdas(good) == [] and inspect_uses(good) == []


@pytest.mark.parametrize("folder, held", [("memory", True), ("core", True), ("lab", False), ("lessons", False)])
def test_ruff_holds_lines_to_100_characters_where_a_learner_reads(folder, held):
    ruff = Path(sys.executable).parent / "ruff"
    if not ruff.exists():
        pytest.skip("ruff is not installed next to this Python")
    config = tomllib.loads((PACKAGE / folder / "ruff.toml").read_text()) if held else None
    assert config is None or (config["line-length"] == 100 and "E501" in config["lint"]["extend-select"])
    for text, too_long in (('x = "' + "a" * 94 + '"\n', False), ('x = "' + "a" * 95 + '"\n', True),
                           ("x = 1; y = 2\n", False)):
        result = subprocess.run([str(ruff), "check", "--no-cache", "--output-format", "concise",
                                 "--stdin-filename", f"teachmem/{folder}/example.py", "-"],
                                input=text, cwd=ROOT, capture_output=True, text=True)
        assert ("E501" in result.stdout) == (too_long and held), result.stdout
        assert ("E702" in result.stdout) == (held and ";" in text), result.stdout


# lessons/ holds only what a notebook checks, shows and plots, so it stays smaller than the
# strategies it teaches (memory/): library-like code belongs in lab/ or app/.
def _python_lines(folder: Path) -> int:
    return sum(lines(path) for path in folder.rglob("*.py"))


def test_lessons_stays_smaller_than_memory():
    lessons, memory = _python_lines(PACKAGE / "lessons"), _python_lines(PACKAGE / "memory")
    assert lessons < memory, (f"lessons/ ({lessons} lines) is no longer smaller than memory/ "
                              f"({memory}): move library-like code to lab/ or app/, share what "
                              "modules repeat")
