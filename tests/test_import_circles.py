"""No two host modules import each other, directly or round a longer circle (a lazy import inside a function counts:
it ties the two as surely). A circle means neither module can be understood, tested or moved without the other."""

from __future__ import annotations

import ast
from collections.abc import Iterator, Mapping
from pathlib import Path

from layers import module_name

ROOT = Path(__file__).resolve().parents[1]
HOST = ROOT / "host"

#: Circles still in the house, each to be cut (the list only shrinks; issue 36 cut the last one).
KNOWN_CIRCLES: list[set[str]] = []


def import_graph(root: Path) -> dict[str, set[str]]:
    """Module -> the modules under ``root`` it imports (``from package import module`` points at the module)."""
    paths = {module_name(path, root): path for path in sorted(root.rglob("*.py"))}
    graph: dict[str, set[str]] = {}
    for module, path in paths.items():
        package = module if path.name == "__init__.py" else module.rpartition(".")[0]
        edges: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                edges.update(alias.name for alias in node.names)
            elif isinstance(node, ast.ImportFrom):
                base = package.split(".")[: len(package.split(".")) - (node.level - 1)] if node.level else []
                target = ".".join([*base, node.module] if node.module else base)
                for alias in node.names:
                    edges.add(f"{target}.{alias.name}" if f"{target}.{alias.name}" in paths else target)
        graph[module] = {m for m in edges if m in paths and m != module}
    return graph


def circles(graph: Mapping[str, set[str]]) -> list[set[str]]:
    """The strongly connected groups of more than one module (Tarjan's algorithm, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[set[str]] = []
    for start in graph:
        if start in index:
            continue
        work: list[tuple[str, Iterator[str]]] = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, edges = work[-1]
            advanced = False
            for nxt in edges:
                if nxt not in index:
                    index[nxt] = low[nxt] = len(index)
                    stack.append(nxt)
                    on_stack.add(nxt)
                    work.append((nxt, iter(sorted(graph[nxt]))))
                    advanced = True
                    break
                if nxt in on_stack:
                    low[node] = min(low[node], index[nxt])
            if advanced:
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                group = set()
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    group.add(member)
                    if member == node:
                        break
                if len(group) > 1:
                    found.append(group)
    return found


def test_no_host_modules_import_each_other() -> None:
    assert [c for c in circles(import_graph(HOST)) if c not in KNOWN_CIRCLES] == []


def test_every_known_circle_is_still_there() -> None:
    # Once a circle is cut, its entry goes: the list only shrinks.
    found = circles(import_graph(HOST))
    assert [c for c in KNOWN_CIRCLES if c not in found] == []


def test_a_circle_through_a_lazy_import_is_found(tmp_path: Path) -> None:
    package = tmp_path / "pkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "world.py").write_text("def make():\n    from .random_world import draw\n    return draw()\n")
    (package / "random_world.py").write_text("from .world import make\n\ndef draw():\n    return 1\n")
    (package / "alone.py").write_text("from . import world\n")
    assert circles(import_graph(tmp_path)) == [{"pkg.world", "pkg.random_world"}]
