"""Rules defined once: the training-job statuses and throttling codes live in ``jobs/statuses.py``, the keep-alive
API maximum in ``fleetspec/model.py``, the DAG's task ids, XCom keys, DAG tag and default intervals in
``contract.py``; no other module of the package writes them out again (the simulator included).
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


# The DAG's contract (contract.py): each name is assigned there and nowhere else (importing it is fine), and its task
# ids, XCom key and DAG tag are not written out again as string literals (docstrings do not count, see below).
SHARED_MODULE = "contract.py"
SHARED_NAMES = {
    "PLAN_TASK_ID",
    "TRAIN_TASK_ID",
    "RELEASE_TASK_ID",
    "REPORT_TASK_ID",
    "OUTCOME_TASK_ID",
    "NOTIFY_TASK_ID",
    "PLAN_XCOM_KEY",
    "SUMMARY_XCOM_KEY",
    "CITIES_XCOM_KEY",
    "FLEET_DAG_TAG",
    "POLL_INTERVAL",
    "CAPACITY_RETRY_SECONDS",
    "task_try_id",
    "train_task_id",
    "train_task_chunk",
    "cities_task_id",
    "cities_xcom_key",
}
#: Literals too common to ban ("plan", "train", "outcome" and "summary" are also CLI commands, a channel's name or
#: JSON fields; "return_value" is Airflow's own key); the names above stand for them. "cities_" is the head of
#: ``cities_task_id``'s ids.
SHARED_LITERALS = {"release_pools", "cost_report", "notify", "cities_"}


def assigned_names(tree: ast.AST) -> list[tuple[str, int]]:
    """Module-level and class-level names bound by assignment, ``def`` or ``class`` (not by import)."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            found += [(t.id, node.lineno) for t in targets if isinstance(t, ast.Name)]
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            found.append((node.name, node.lineno))
    return found


def code_strings(tree: ast.AST) -> list[tuple[str, int]]:
    """String constants that are not docstrings."""
    docstrings = {
        id(node.body[0].value)
        for node in ast.walk(tree)
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
        and node.body
        and isinstance(node.body[0], ast.Expr)
        and isinstance(node.body[0].value, ast.Constant)
    }
    return [
        (node.value, node.lineno)
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings
    ]


def test_the_contract_defines_its_names() -> None:
    tree = ast.parse((PACKAGE / SHARED_MODULE).read_text())
    assert SHARED_NAMES <= {name for name, _ in assigned_names(tree)}
    assert SHARED_LITERALS <= {value for value, _ in code_strings(tree)}


def test_the_contract_imports_nothing_of_the_package() -> None:
    tree = ast.parse((PACKAGE / SHARED_MODULE).read_text())
    imported = [
        node.module if isinstance(node, ast.ImportFrom) else alias.name
        for node in ast.walk(tree)
        if isinstance(node, (ast.Import, ast.ImportFrom))
        for alias in node.names
    ]
    assert [name for name in imported if name and name.split(".")[0] in ("sagemaker_fleet", "airflow")] == []


def test_no_other_module_defines_a_contract_name_again() -> None:
    offenders = [
        f"{path.relative_to(PACKAGE)}:{line} {name}"
        for path in modules()
        if path.relative_to(PACKAGE).as_posix() != SHARED_MODULE
        for name, line in assigned_names(ast.parse(path.read_text()))
        if name in SHARED_NAMES
    ]
    assert offenders == []


def test_no_other_module_writes_out_a_contract_task_id() -> None:
    offenders = [
        f"{path.relative_to(PACKAGE)}:{line} {value!r}"
        for path in modules()
        if path.relative_to(PACKAGE).as_posix() != SHARED_MODULE
        for value, line in code_strings(ast.parse(path.read_text()))
        if value in SHARED_LITERALS
    ]
    assert offenders == []
