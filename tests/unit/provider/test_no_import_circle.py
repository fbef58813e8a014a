"""No import circle anywhere in the package: counting every import of a module — at its top, under TYPE_CHECKING or
inside a function — no module reaches itself again. A lazy import hides a circle from Python, not from a reader."""

from __future__ import annotations

import ast
from pathlib import Path

PROVIDER = Path(__file__).resolve().parents[3] / "provider"


def module_files() -> dict[str, Path]:
    out = {}
    for path in (PROVIDER / "sagemaker_fleet").rglob("*.py"):
        parts = path.relative_to(PROVIDER).with_suffix("").parts
        out[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return out


def imports(modules: dict[str, Path]) -> dict[str, set[str]]:
    """Each module's imports of the package's modules (``from a import b`` is ``a.b`` when that is a module)."""

    def known(name: str) -> str | None:
        while name and name not in modules:
            name = name.rpartition(".")[0]
        return name or None

    graph: dict[str, set[str]] = {name: set() for name in modules}
    for name, path in modules.items():
        for node in ast.walk(ast.parse(path.read_text())):
            targets: list[str | None] = []
            if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                for alias in node.names:
                    full = f"{node.module}.{alias.name}"
                    targets.append(full if full in modules else known(node.module))
            elif isinstance(node, ast.Import):
                targets += [known(alias.name) for alias in node.names]
            graph[name] |= {t for t in targets if t and t != name and t.startswith("sagemaker_fleet")}
    return graph


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected groups of more than one module (Tarjan's algorithm, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for root in graph:
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                group = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    group.append(member)
                    if member == node:
                        break
                if len(group) > 1:
                    found.append(sorted(group))
    return found


def test_the_search_finds_a_circle() -> None:
    graph = {
        "sagemaker_fleet.a": {"sagemaker_fleet.b"},
        "sagemaker_fleet.b": {"sagemaker_fleet.a"},
        "x": set(),
    }
    assert circles(graph) == [["sagemaker_fleet.a", "sagemaker_fleet.b"]]


def test_the_graph_sees_lazy_imports() -> None:
    graph = imports(module_files())
    assert "sagemaker_fleet.simulate" in graph["sagemaker_fleet.cli.simulate_account"]  # inside a function


def test_no_module_of_the_package_imports_itself_through_others() -> None:
    assert circles(imports(module_files())) == []
