"""Rules defined once: the training-job statuses and throttling codes live in ``jobs/statuses.py``, the keep-alive
API maximum in ``fleetspec/model.py``; no other module of the package writes them out again (the simulator included).
Read from the source's syntax tree, so comments and docstrings do not count."""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[3] / "provider" / "sagemaker_fleet"
STATUS_WORDS = {"Completed", "Failed", "Stopped", "InProgress", "Stopping"}
THROTTLE_WORDS = {"ThrottlingException", "Throttling", "TooManyRequestsException", "RequestLimitExceeded"}


def modules() -> list[Path]:
    return sorted(PACKAGE.rglob("*.py"))


def set_literals(tree: ast.AST) -> list[set[str]]:
    """The string members of every set literal (``{…}``, ``frozenset({…})``, ``frozenset([…])``)."""
    found = []
    for node in ast.walk(tree):
        items = None
        if isinstance(node, ast.Set):
            items = node.elts
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id == "frozenset"
            and node.args
            and isinstance(node.args[0], (ast.List, ast.Tuple, ast.Set))
        ):
            items = node.args[0].elts
        if items is not None:
            found.append({e.value for e in items if isinstance(e, ast.Constant) and isinstance(e.value, str)})
    return found


def test_the_walk_sees_the_one_definition() -> None:
    tree = ast.parse((PACKAGE / "jobs" / "statuses.py").read_text())
    literals = set_literals(tree)
    assert {"Completed", "Failed", "Stopped"} in literals
    assert THROTTLE_WORDS in literals


def test_no_other_module_spells_out_the_statuses_or_the_throttling_codes() -> None:
    offenders = []
    for path in modules():
        if path == PACKAGE / "jobs" / "statuses.py":
            continue
        for members in set_literals(ast.parse(path.read_text())):
            if len(members & STATUS_WORDS) >= 2 or len(members & THROTTLE_WORDS) >= 2:
                offenders.append(f"{path.relative_to(PACKAGE)}: {sorted(members)}")
    assert offenders == []


def test_the_keep_alive_maximum_is_written_once() -> None:
    # cost/gantt.py's TICK_STEPS has 21600 as six hours of a time axis, not the API's bound
    offenders = [
        f"{path.relative_to(PACKAGE)}:{node.lineno}"
        for path in modules()
        if path.relative_to(PACKAGE).as_posix() not in ("fleetspec/model.py", "cost/gantt.py")
        for node in ast.walk(ast.parse(path.read_text()))
        if isinstance(node, ast.Constant) and node.value == 21600 and not isinstance(node.value, bool)
    ]
    assert offenders == []
