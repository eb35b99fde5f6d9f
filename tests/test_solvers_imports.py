"""The solvers' modules import each other without circles, and none hides one in a function."""

import ast
import subprocess
import sys
from pathlib import Path

import pytest
from commands import ENV

import elements_ai

SOLVERS = Path(elements_ai.__file__).resolve().parent / "solvers"
MODULES = sorted(path.stem for path in SOLVERS.glob("*.py") if path.stem != "__init__")


def _siblings(node: ast.Import | ast.ImportFrom) -> set[str]:
    """The modules of ``elements_ai.solvers`` an import statement names (``__init__``
    for the package itself)."""
    prefix = "elements_ai.solvers"
    if isinstance(node, ast.Import):
        names = [alias.name for alias in node.names]
    elif node.level == 0:
        names = [node.module or ""]
        if node.module == prefix:
            names = [f"{prefix}.{alias.name}" for alias in node.names]
    elif node.level == 1:
        if node.module:
            names = [f"{prefix}.{node.module}"]
        else:
            names = [f"{prefix}.{alias.name}" for alias in node.names]
    else:
        return set()  # from .. : outside the solvers
    found = set()
    for name in names:
        if name == prefix:
            found.add("__init__")
        elif name.startswith(prefix + "."):
            found.add(name[len(prefix) + 1 :].split(".")[0])
    return found & (set(MODULES) | {"__init__"})


def _imports(stem: str) -> tuple[set[str], list[tuple[str, int, str]]]:
    """The siblings ``stem`` imports at module level, and those it imports inside a
    function (sibling, line, function)."""
    tree = ast.parse((SOLVERS / f"{stem}.py").read_text())
    top: set[str] = set()
    for node in tree.body:
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            top |= _siblings(node)
    inner = []
    for function in ast.walk(tree):
        if isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
            for node in ast.walk(function):
                if isinstance(node, (ast.Import, ast.ImportFrom)):
                    inner += [(sibling, node.lineno, function.name) for sibling in _siblings(node)]
    return top, inner


def _graph() -> dict[str, set[str]]:
    graph = {stem: _imports(stem)[0] for stem in MODULES}
    graph["__init__"] = set()
    for node in ast.parse((SOLVERS / "__init__.py").read_text()).body:
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            graph["__init__"] |= _siblings(node)
    # Importing a module runs its package first.
    for stem in MODULES:
        graph[stem].discard("__init__")
    return graph


def _reaches(graph: dict[str, set[str]], start: str, goal: str) -> list[str] | None:
    """A path of module-level imports from ``start`` to ``goal``, or None."""
    stack, seen = [[start]], {start}
    while stack:
        path = stack.pop()
        for nxt in sorted(graph[path[-1]]):
            if nxt == goal:
                return path + [nxt]
            if nxt not in seen:
                seen.add(nxt)
                stack.append(path + [nxt])
    return None


def test_module_level_imports_have_no_circle():
    graph = _graph()
    circles = [" -> ".join(path) for stem in graph if (path := _reaches(graph, stem, stem))]
    assert not circles, f"import circles among elements_ai.solvers modules: {circles}"


def test_no_function_imports_a_module_that_imports_it_back():
    """An import inside a function that dodges a circle: the sibling it names imports
    this module (through module-level imports), so it could not be at the top."""
    graph = _graph()
    dodges = []
    for stem in MODULES:
        for sibling, line, function in _imports(stem)[1]:
            back = [sibling] if sibling == stem else _reaches(graph, sibling, stem)
            if back:
                dodges.append(f"solvers/{stem}.py:{line} in {function}(): imports {sibling}, and "
                              f"{' -> '.join(back)} imports it back")
    assert not dodges, "\n".join(dodges)


@pytest.mark.slow
def test_every_module_imports_first():
    """Each module imported before any other solvers module (its package's __init__
    left out, which would fix the order) loads: no circle shows up in any order."""
    script = f"""
import importlib, sys, types
import elements_ai
failures = []
for first in {MODULES!r}:
    for name in [n for n in sys.modules if n == "elements_ai.solvers" or n.startswith("elements_ai.solvers.")]:
        del sys.modules[name]
    package = types.ModuleType("elements_ai.solvers")
    package.__path__ = [{str(SOLVERS)!r}]
    sys.modules["elements_ai.solvers"] = package
    try:
        importlib.import_module("elements_ai.solvers." + first)
    except Exception as error:
        failures.append(f"{{first}}: {{type(error).__name__}}: {{error}}")
print("\\n".join(failures))
"""
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=600, env=ENV)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "", result.stdout
