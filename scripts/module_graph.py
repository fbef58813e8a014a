#!/usr/bin/env python3
"""Print the package-level import graph of sagemaker_fleet and its cycles, for the working tree or a commit.

    python3 scripts/module_graph.py              # the working tree
    python3 scripts/module_graph.py 3ac0528      # as it was at a commit (read through git, nothing checked out)

One line per sub-package: the sub-packages (and top-level modules) it imports, lazy imports inside functions
included. ``make lint`` enforces the layer order (docs/contributing/architecture.md); this only shows it.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = "sagemaker_fleet"
PREFIX = f"provider/{PACKAGE}/"


def sources(rev: str | None) -> dict[str, str]:
    """Path below the package → source text, from the working tree or from commit ``rev``."""
    if rev is None:
        base = ROOT / PREFIX
        return {p.relative_to(base).as_posix(): p.read_text() for p in base.rglob("*.py")}
    names = subprocess.run(
        ["git", "ls-tree", "-r", "--name-only", rev, PREFIX],
        cwd=ROOT,
        check=True,
        capture_output=True,
        text=True,
    ).stdout.split()
    return {
        name[len(PREFIX) :]: subprocess.run(
            ["git", "show", f"{rev}:{name}"], cwd=ROOT, check=True, capture_output=True, text=True
        ).stdout
        for name in names
        if name.endswith(".py")
    }


def imported(path: str, tree: ast.AST) -> set[str]:
    """Absolute names of the package's modules that a module imports."""
    module = path.removesuffix(".py").replace("/", ".")
    parts = f"{PACKAGE}.{module}".split(".")
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = parts[: len(parts) - node.level + (1 if path.endswith("__init__.py") else 0)]
                name = ".".join(base + ([node.module] if node.module else []))
            else:
                name = node.module or ""
            found.add(name)
            found |= {f"{name}.{alias.name}" for alias in node.names}  # `from pkg import module`
    return {name for name in found if name.startswith(PACKAGE + ".")}


def graph(files: dict[str, str]) -> dict[str, set[str]]:
    nodes = {path.split("/")[0].removesuffix(".py") for path in files if path != "__init__.py"}
    edges: dict[str, set[str]] = defaultdict(set)
    for path, text in files.items():
        source = path.split("/")[0].removesuffix(".py")
        for name in imported(path, ast.parse(text)):
            target = name.split(".")[1]
            if target in nodes and target != source and source != "__init__":
                edges[source].add(target)
    return {node: edges.get(node, set()) for node in sorted(nodes)}


def reachable(edges: dict[str, set[str]], start: str) -> set[str]:
    seen: set[str] = set()
    todo = list(edges.get(start, ()))
    while todo:
        node = todo.pop()
        if node not in seen:
            seen.add(node)
            todo.extend(edges.get(node, ()))
    return seen


def cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """Groups of sub-packages that import each other, directly or through others."""
    reach = {node: reachable(edges, node) for node in edges}
    groups = {
        tuple(sorted({node} | {other for other in reach[node] if node in reach.get(other, ())}))
        for node in edges
        if node in reach[node]
    }
    return [list(group) for group in sorted(groups)]


def main(argv: list[str]) -> int:
    rev = argv[0] if argv else None
    edges = graph(sources(rev))
    print(f"# sagemaker_fleet import graph ({rev or 'working tree'}): sub-package -> what it imports")
    width = max(map(len, edges))
    for node, targets in edges.items():
        print(f"{node:<{width}} -> {', '.join(sorted(targets)) or '-'}")
    found = cycles(edges)
    print("cycles: " + ("; ".join(" <-> ".join(c) for c in found) if found else "none"))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
