"""Print the reading load of every memory strategy: what a learner reads to understand it whole.

A strategy is a class of teachmem/memory/ that declares a ``kind``. Its reading load is the sum of

* its **own lines**: every file that defines its class (the class's module, and the module of each
  base class that is not a strategy itself, such as a mixin);
* the **modules it imports** (transitively) that no notebook up to and including its own teaches.
  A module is taught by notebook NN when its docstring links "Taught in notebooks/NN_x.ipynb" and
  that notebook's code cells show the module's code: ``lesson.show_source(<a name the module
  defines>)``. A strategy's notebook is the one its class docstring links. Other strategies'
  modules are not entered (the next part counts what is used of them), nor is the model package
  ``teachmem.llm`` (the protocol and the offline stand-in);
* for a composite (the hybrid manager, the agent), the **methods of other strategies it calls**:
  ``self.tier.method(...)`` where ``self.tier`` holds a strategy, ``store.method(...)`` where the
  parameter ``store`` is annotated with a strategy class, ``Strategy.method(...)``,
  ``Strategy(...)`` (its ``__init__``), each with the methods of its own class it calls in turn,
  and any function it imports from another strategy's module.

A base class that is a strategy (the semantic store under reflective memory) counts as an
imported module: the learner has read it if its notebook came first.

    python tools/reading_load.py               # every strategy, its load and its parts
    python tools/reading_load.py --limit 600   # exit 1 when a strategy is over the limit

Everything is read with ``ast`` (nothing is imported); the import graph is also what
tests/house/test_architecture.py checks the house rules on.
"""
from __future__ import annotations

import argparse
import ast
import json
import re
import sys
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "teachmem"
NOTEBOOKS = ROOT / "notebooks"
LIMIT = 600
# Two composites still read more than LIMIT, by the methods of their parts that saving, loading and
# forgetting call (notebook 09's going further: to_state, from_state and erase of each tier). Their
# figures may only go down; the way under 600 is for saving and forgetting to walk a composite's
# tiers through the protocol instead of each composite doing it. Every other strategy is held to
# LIMIT, and no strategy may join this table. (Hybrid rose once, 713 -> 719: EntityMemory numbers
# the old values of a fact said in one turn, so that no two share an id; issue 27, row 13.)
NOT_YET_UNDER = {"teachmem.memory.hybrid.HybridMemoryManager": 719,
                 "teachmem.memory.agent.MemoryAgent": 695}
MODEL = "llm"   # the model package, teachmem.llm
TAUGHT_IN = re.compile(r"Taught in ((?:[^.]|\.(?!\s))*)", re.DOTALL)
NOTEBOOK_LINK = re.compile(r"notebooks/(\d+[a-z]?_[\w-]*\.ipynb)")
IMPORT_ERRORS = {"ImportError", "ModuleNotFoundError"}


@dataclass(frozen=True)
class Import:
    """One name brought in by an import statement of a module."""

    target: str          # the module it resolves to: a teachmem module, or the dotted name imported
    name: str | None     # the name taken from it (``from m import name``), None for ``import m``
    line: int
    in_function: bool
    guarded: bool        # inside ``try:`` with an ``except ImportError`` (or ModuleNotFoundError)


def module_name(path: Path, package: Path) -> str:
    """teachmem/memory/hybrid.py -> teachmem.memory.hybrid; a package's __init__.py -> the package."""
    parts = [package.name, *path.relative_to(package).with_suffix("").parts]
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def modules(package: Path = PACKAGE) -> dict[str, Path]:
    """Every module of ``package`` by dotted name."""
    return {module_name(p, package): p for p in sorted(package.rglob("*.py"))}


def _catches_import_error(handler: ast.ExceptHandler) -> bool:
    kinds = handler.type.elts if isinstance(handler.type, ast.Tuple) else [handler.type]
    return any(isinstance(k, ast.Name) and k.id in IMPORT_ERRORS for k in kinds)


class _Imports(ast.NodeVisitor):
    """Collects every import statement with where it stands: in a function? guarded?"""

    def __init__(self) -> None:
        self.found: list[tuple[ast.Import | ast.ImportFrom, bool, bool]] = []
        self.functions = 0
        self.guards = 0

    def _function(self, node: ast.AST) -> None:
        self.functions += 1
        self.generic_visit(node)
        self.functions -= 1

    visit_FunctionDef = visit_AsyncFunctionDef = visit_Lambda = _function

    def visit_Try(self, node: ast.Try) -> None:
        guarded = any(_catches_import_error(h) for h in node.handlers)
        self.guards += guarded
        for statement in node.body:
            self.visit(statement)
        self.guards -= guarded
        for rest in (*node.handlers, *node.orelse, *node.finalbody):
            self.visit(rest)

    def visit_Import(self, node: ast.Import) -> None:
        self.found.append((node, self.functions > 0, self.guards > 0))

    visit_ImportFrom = visit_Import


def _base(node: ast.ImportFrom, importer: str, is_package: bool) -> str:
    """The absolute module a ``from … import`` names, relative imports resolved."""
    if not node.level:
        return node.module or ""
    parts = importer.split(".")
    package = parts if is_package else parts[:-1]
    base = package[:len(package) - node.level + 1]
    return ".".join(base + ([node.module] if node.module else []))


def imports(path: Path, package: Path = PACKAGE, known: dict[str, Path] | None = None) -> list[Import]:
    """Every import of the module at ``path``, each name resolved to the module it comes from
    (``known``: the package's modules, when the caller already has them)."""
    known = modules(package) if known is None else known
    importer = module_name(path, package)
    collector = _Imports()
    collector.visit(ast.parse(path.read_text(), str(path)))
    found = []
    for node, in_function, guarded in collector.found:
        if isinstance(node, ast.Import):
            found += [Import(alias.name, None, node.lineno, in_function, guarded) for alias in node.names]
            continue
        base = _base(node, importer, path.name == "__init__.py")
        for alias in node.names:
            submodule = f"{base}.{alias.name}"
            target, name = (submodule, None) if submodule in known else (base, alias.name)
            found.append(Import(target, name, node.lineno, in_function, guarded))
    return found


def graph(package: Path = PACKAGE) -> dict[str, set[str]]:
    """Module -> the teachmem modules its import statements name."""
    known = modules(package)
    edges = {}
    for name, path in known.items():
        targets = set()
        for imp in imports(path, package, known):
            # ``import teachmem.core.words`` names that module; a name it does not know (a typo,
            # or a module that is not there) is left to Python to report.
            while imp.target and imp.target not in known and "." in imp.target:
                imp = Import(imp.target.rsplit(".", 1)[0], None, imp.line, imp.in_function, imp.guarded)
            if imp.target in known and imp.target != name:
                targets.add(imp.target)
        edges[name] = targets
    return edges



def lines(path: Path) -> int:
    return len(path.read_text().splitlines())


# ------------------------------------------------------------------ names, classes and where they live
Definition = tuple[str, ast.AST]        # (module, the ClassDef or FunctionDef of a top-level name)


class Source:
    """The package read once: every module's tree, what each name it imports points to, and its
    top-level classes and functions."""

    def __init__(self, package: Path = PACKAGE):
        self.package = package
        self.paths = modules(package)
        self.edges = graph(package)
        self.trees = {name: ast.parse(path.read_text(), str(path)) for name, path in self.paths.items()}
        self.bound = {name: self._bindings(name) for name in self.paths}

    def _bindings(self, module: str) -> dict[str, tuple[str, str | None]]:
        """Local name -> (module, name in it) for every import of ``module`` (None: the module itself)."""
        bound: dict[str, tuple[str, str | None]] = {}
        is_package = self.paths[module].name == "__init__.py"
        for node in ast.walk(self.trees[module]):
            if isinstance(node, ast.ImportFrom):
                base = _base(node, module, is_package)
                for alias in node.names:
                    submodule = f"{base}.{alias.name}"
                    local = alias.asname or alias.name
                    bound[local] = (submodule, None) if submodule in self.paths else (base, alias.name)
            elif isinstance(node, ast.Import):
                for alias in node.names:
                    bound[alias.asname or alias.name.split(".")[0]] = (
                        alias.name if alias.asname else alias.name.split(".")[0], None)
        return bound

    def defined(self, module: str, name: str) -> ast.AST | None:
        for node in self.trees[module].body:
            if isinstance(node, (ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == name:
                return node
        return None

    def resolve(self, module: str, name: str, depth: int = 0) -> Definition | None:
        """The top-level class or function ``name`` means in ``module``, imports followed."""
        if module not in self.trees or depth > 8:
            return None
        node = self.defined(module, name)
        if node is not None:
            return module, node
        target = self.bound[module].get(name)
        if target is None or target[1] is None:
            return None
        return self.resolve(target[0], target[1], depth + 1)

    def resolve_expression(self, module: str, expression: ast.AST) -> Definition | None:
        """``Name`` or ``module_alias.Name`` as written in ``module``."""
        if isinstance(expression, ast.Name):
            return self.resolve(module, expression.id)
        if isinstance(expression, ast.Attribute) and isinstance(expression.value, ast.Name):
            target = self.bound[module].get(expression.value.id)
            if target is not None and target[1] is None:
                return self.resolve(target[0], expression.attr)
        return None

    def bases(self, module: str, node: ast.ClassDef, stop: set[int] = frozenset()) -> list[Definition]:
        """The class and every base class defined in the package, nearest first. A base whose node
        is in ``stop`` (a strategy) is listed, but its own bases are not."""
        found: list[Definition] = [(module, node)]
        for base in node.bases:
            resolved = self.resolve_expression(module, base)
            if resolved is None or not isinstance(resolved[1], ast.ClassDef):
                continue
            if id(resolved[1]) in stop:
                found += [resolved] if resolved not in found else []
            else:
                found += [b for b in self.bases(*resolved, stop=stop) if b not in found]  # type: ignore[misc]
        return found

    def method(self, classes: list[Definition], name: str) -> Definition | None:
        """Where a method ``name`` is defined along ``classes`` (a class and its bases)."""
        for module, node in classes:
            for item in node.body:    # type: ignore[attr-defined]
                if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)) and item.name == name:
                    return module, item
        return None


def _declares_kind(node: ast.ClassDef) -> bool:
    for item in node.body:
        target = item.targets[0] if isinstance(item, ast.Assign) and len(item.targets) == 1 else \
            item.target if isinstance(item, ast.AnnAssign) else None
        value = getattr(item, "value", None)
        if isinstance(target, ast.Name) and target.id == "kind" and isinstance(value, ast.Constant) \
                and isinstance(value.value, str):
            return True
    return False


def strategies(source: Source) -> dict[str, Definition]:
    """The strategy classes: each class of a memory/ module that declares a ``kind``, by dotted name."""
    prefix = f"{source.package.name}.memory."
    return {f"{module}.{node.name}": (module, node) for module, tree in source.trees.items()
            if module.startswith(prefix) for node in tree.body
            if isinstance(node, ast.ClassDef) and _declares_kind(node)}


# ------------------------------------------------------------------ which notebook teaches what
def notebook_order(name: str) -> tuple[int, str]:
    """"05b_semantic_upkeep.ipynb" -> (5, "b"): 05 < 05b < 06."""
    number = re.match(r"(\d+)([a-z]?)", name)
    return (int(number.group(1)), number.group(2)) if number else (10**6, name)


def _links(docstring: str | None) -> list[str]:
    """The notebooks a docstring's "Taught in …" sentences link, in order."""
    return [link for sentence in TAUGHT_IN.findall(docstring or "") for link in NOTEBOOK_LINK.findall(sentence)]


def code_cells(notebook: Path) -> list[tuple[str, ast.Module | None]]:
    """Each code cell of ``notebook``: its code (IPython's ``%`` and ``!`` lines blanked) and its
    syntax tree, or None where the code does not parse."""
    cells = []
    for cell in json.loads(notebook.read_text())["cells"]:
        if cell["cell_type"] != "code":
            continue
        lines = "".join(cell["source"]).splitlines()
        code = "\n".join("" if line.lstrip().startswith(("%", "!")) else line for line in lines)
        try:
            cells.append((code, ast.parse(code)))
        except SyntaxError:
            cells.append((code, None))
    return cells


def shown_names(notebook: Path) -> set[str]:
    """Names a notebook's code cells pass to ``show_source``: ``show_source(Window.add)`` shows
    ``Window``; ``show_source(tokens.estimate_tokens)`` shows ``tokens`` and ``estimate_tokens``."""
    shown: set[str] = set()
    for _, tree in code_cells(notebook):
        if tree is None:
            continue
        for node in ast.walk(tree):
            func = node.func if isinstance(node, ast.Call) else None
            called = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else None
            if called != "show_source":
                continue
            for argument in node.args:        # type: ignore[union-attr]
                chain = []
                while isinstance(argument, ast.Attribute):
                    chain.append(argument.attr)
                    argument = argument.value
                if isinstance(argument, ast.Name):
                    shown |= {argument.id, *chain[-1:]}
    return shown


def top_level_names(tree: ast.Module) -> set[str]:
    """Every name a module defines at its top level: functions, classes, assigned names."""
    names = set()
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names |= {n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)}
    return names


def taught_by(source: Source, module: str, notebooks: Path = NOTEBOOKS,
              shown: dict[str, set[str]] | None = None) -> str | None:
    """The first notebook that teaches ``module``: its docstring links it and its code cells show
    a name the module defines. None if no notebook does."""
    shown = {} if shown is None else shown
    defines = top_level_names(source.trees[module])
    teaching = []
    for link in _links(ast.get_docstring(source.trees[module])):
        path = notebooks / link
        if not path.exists():
            continue
        if link not in shown:
            shown[link] = shown_names(path)
        if shown[link] & defines:
            teaching.append(link)
    return min(teaching, key=notebook_order) if teaching else None


# ------------------------------------------------------------------ the measure
@dataclass(frozen=True)
class Load:
    """What a learner reads for one strategy, part by part."""

    notebook: str | None                  # the notebook its class docstring links
    own: tuple[str, ...]                  # modules whose files define the class
    imported: tuple[str, ...]             # imported modules no notebook up to its own teaches
    methods: tuple[tuple[str, int], ...]  # (module:Class.method or module:function, lines)
    own_lines: int
    imported_lines: int

    @property
    def methods_lines(self) -> int:
        return sum(count for _, count in self.methods)

    @property
    def total(self) -> int:
        return self.own_lines + self.imported_lines + self.methods_lines


def _span(node: ast.AST) -> int:
    first = min([node.lineno] + [d.lineno for d in getattr(node, "decorator_list", [])])   # type: ignore[attr-defined]
    return node.end_lineno - first + 1                                                       # type: ignore[operator]


def _self_attribute(node: ast.AST) -> str | None:
    """``self.x`` -> "x"."""
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "self":
        return node.attr
    return None


class _Calls:
    """The methods of other strategies that a strategy's own classes call (see the module docstring)."""

    def __init__(self, source: Source, others: dict[str, Definition]):
        self.source = source
        self.others = {id(node): (module, node) for module, node in others.values()}
        self.found: dict[str, int] = {}

    def other(self, module: str, expression: ast.AST) -> Definition | None:
        """The other strategy class ``expression`` names (``C`` or ``C.from_state``), or None."""
        if isinstance(expression, ast.Attribute) and not _self_attribute(expression):
            expression = expression.value
        resolved = self.source.resolve_expression(module, expression)
        return self.others.get(id(resolved[1])) if resolved else None

    def holders(self, module: str, node: ast.ClassDef) -> dict[str, Definition]:
        """``self.tier = Other(...)``: attribute -> the strategy class it holds."""
        held = {}
        for item in ast.walk(node):
            if isinstance(item, (ast.Assign, ast.AnnAssign)) and isinstance(item.value, ast.Call):
                targets = item.targets if isinstance(item, ast.Assign) else [item.target]
                strategy = self.other(module, item.value.func)
                for target in targets:
                    if _self_attribute(target) and strategy:
                        held[_self_attribute(target)] = strategy      # type: ignore[index]
        return held

    def parameters(self, module: str, node: ast.ClassDef) -> dict[str, Definition]:
        """``def f(self, store: Other)``: parameter name -> the strategy class it is annotated with."""
        given = {}
        for function in ast.walk(node):
            if isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
                for argument in function.args.args + function.args.kwonlyargs:
                    strategy = argument.annotation and self.other(module, argument.annotation)
                    if strategy:
                        given[argument.arg] = strategy
        return given

    def collect(self, module: str, node: ast.ClassDef) -> None:
        held = self.holders(module, node)
        given = self.parameters(module, node)
        for call in ast.walk(node):
            if not isinstance(call, ast.Call):
                continue
            func = call.func
            tier = _self_attribute(func.value) if isinstance(func, ast.Attribute) else None
            parameter = func.value.id if isinstance(func, ast.Attribute) and isinstance(
                func.value, ast.Name) else None
            if tier in held:
                self.add(held[tier], func.attr)                       # type: ignore[union-attr]
            elif parameter in given:
                self.add(given[parameter], func.attr)                 # type: ignore[union-attr]
            elif isinstance(func, ast.Attribute) and (strategy := self.other(module, func.value)):
                self.add(strategy, func.attr)
            elif (strategy := self.other(module, func)):
                self.add(strategy, "__init__")
            elif isinstance(func, ast.Name):
                self.function(module, func.id)

    def function(self, module: str, name: str) -> None:
        """A function imported from another strategy's module counts by its lines."""
        resolved = self.source.resolve(module, name)
        if resolved is None or not isinstance(resolved[1], ast.FunctionDef):
            return
        defining_module = resolved[0]
        if defining_module in {m for m, _ in self.others.values()} and defining_module != module:
            self.found.setdefault(f"{defining_module}:{name}", _span(resolved[1]))

    def add(self, strategy: Definition, name: str) -> None:
        """``strategy``'s method ``name``, and the methods of its own class that it calls."""
        classes = self.source.bases(*strategy)                         # type: ignore[arg-type]
        found = self.source.method(classes, name)
        if found is None:
            return
        module, method = found
        owner = next(c for m, c in classes if method in c.body)        # type: ignore[attr-defined]
        label = f"{module}:{owner.name}.{name}"                        # type: ignore[attr-defined]
        if label in self.found:
            return
        self.found[label] = _span(method)
        for call in ast.walk(method):
            if isinstance(call, ast.Call) and _self_attribute(call.func):
                self.add(strategy, _self_attribute(call.func))         # type: ignore[arg-type]


def reading_loads(package: Path = PACKAGE, notebooks: Path = NOTEBOOKS) -> dict[str, Load]:
    """Strategy (``module.Class``) -> its reading load, part by part."""
    source = Source(package)
    found = strategies(source)
    strategy_modules = {module for module, _ in found.values()}
    shown: dict[str, set[str]] = {}
    model = f"{package.name}.{MODEL}"
    loads = {}
    for name, (module, node) in found.items():
        notebook = next(iter(_links(ast.get_docstring(node))), None)
        classes = source.bases(module, node, stop={id(n) for _, n in found.values()})
        strategy_bases = [c for c in classes[1:] if id(c[1]) in {id(n) for _, n in found.values()}]
        own = list(dict.fromkeys(m for m, c in classes if (m, c) not in strategy_bases))
        entered = set(own) | {m for m, _ in strategy_bases}
        skipped = (strategy_modules - entered) | {model}
        seen = list(own)
        todo = list(own) + [m for m, _ in strategy_bases if m not in own]
        imported = [m for m in todo if m not in own]
        while todo:
            for target in sorted(source.edges[todo.pop()]):
                if target not in seen and target not in skipped and target not in imported:
                    imported.append(target)
                    todo.append(target)
        untaught = [m for m in imported if notebook is None or (taught := taught_by(
            source, m, notebooks, shown)) is None or notebook_order(taught) > notebook_order(notebook)]
        calls = _Calls(source, {k: v for k, v in found.items() if v[0] not in entered})
        for class_module, class_node in classes:
            if (class_module, class_node) not in strategy_bases:
                calls.collect(class_module, class_node)                # type: ignore[arg-type]
        loads[name] = Load(notebook, tuple(own), tuple(untaught), tuple(sorted(calls.found.items())),
                           sum(lines(source.paths[m]) for m in own),
                           sum(lines(source.paths[m]) for m in untaught))
    return loads


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--limit", type=int, default=None, help=f"exit 1 when a load is over it (the house: {LIMIT})")
    args = parser.parse_args(argv)
    known, over = modules(), []
    for strategy, load in reading_loads().items():
        print(f"{strategy.removeprefix('teachmem.'):40} {load.total:5d} lines = own {load.own_lines}"
              f" + imports {load.imported_lines} + methods {load.methods_lines}"
              f"   (notebook {load.notebook or 'none'})")
        for part, counted in (("own", load.own), ("import", load.imported)):
            for m in counted:
                print(f"    {part:7} {lines(known[m]):5d}  {known[m].relative_to(ROOT)}")
        for label, count in load.methods:
            print(f"    {'method':7} {count:5d}  {label.removeprefix('teachmem.')}")
        if args.limit is not None and load.total > args.limit:
            over.append(strategy)
    if over:
        print(f"over {args.limit} lines: {', '.join(over)}", file=sys.stderr)
    return 1 if over else 0


if __name__ == "__main__":
    sys.exit(main())
