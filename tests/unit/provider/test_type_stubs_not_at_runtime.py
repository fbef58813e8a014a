"""The boto3 stubs (``mypy_boto3_sagemaker``) type the package but are a dev dependency (pyproject's ``dev``
extra), not a runtime one: every import of them sits under ``if TYPE_CHECKING:``, and the modules that have one
import without the stubs installed."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import sagemaker_fleet

PACKAGE = Path(sagemaker_fleet.__file__).parent
STUBS = "mypy_boto3"


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _stub_imports(node: ast.AST, guarded: bool = False) -> list[tuple[int, bool]]:
    """(line, under TYPE_CHECKING) of every import of the stubs in ``node``."""
    found: list[tuple[int, bool]] = []
    if isinstance(node, ast.Import):
        found += [(node.lineno, guarded) for alias in node.names if alias.name.startswith(STUBS)]
    elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith(STUBS):
        found.append((node.lineno, guarded))
    if isinstance(node, ast.If) and _is_type_checking(node.test):
        for child in node.body:
            found += _stub_imports(child, True)
        for child in node.orelse:
            found += _stub_imports(child, guarded)
        return found
    for child in ast.iter_child_nodes(node):
        found += _stub_imports(child, guarded)
    return found


def modules_importing_stubs() -> dict[str, list[tuple[int, bool]]]:
    found: dict[str, list[tuple[int, bool]]] = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        imports = _stub_imports(ast.parse(path.read_text(encoding="utf-8"), str(path)))
        if imports:
            relative = path.relative_to(PACKAGE.parent).with_suffix("")
            module = ".".join(relative.parts).removesuffix(".__init__")
            found[module] = imports
    return found


def test_the_scan_finds_the_typed_modules() -> None:
    found = modules_importing_stubs()
    for module in (
        "sagemaker_fleet.jobs.request",
        "sagemaker_fleet.jobs.record",
        "sagemaker_fleet.cost.collect",
        "sagemaker_fleet.hooks.fleet",
    ):
        assert module in found


def test_every_stub_import_is_under_type_checking() -> None:
    unguarded = [
        f"{module}:{line}"
        for module, imports in modules_importing_stubs().items()
        for line, guarded in imports
        if not guarded
    ]
    assert unguarded == []


def test_the_typed_modules_import_without_the_stubs() -> None:
    modules = sorted(modules_importing_stubs())
    script = (
        "import importlib, sys\n"
        f"sys.path.insert(0, {str(PACKAGE.parent)!r})\n"
        "sys.modules['mypy_boto3_sagemaker'] = None  # as if boto3-stubs were not installed\n"
        f"for name in {modules!r}:\n"
        "    importlib.import_module(name)\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=300, check=False
    )
    assert result.returncode == 0, result.stderr[-2000:]
