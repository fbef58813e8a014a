"""Only ``sagemaker_fleet/compat.py`` names what moved between Airflow 3.0 and 3.3 (or between the provider versions
pinned beside them): no other module of the package, no shipped DAG file or script imports one of those paths — at module level or inside a
function — reaches one of those names as an attribute, or patches one by its dotted string. Read from the syntax
trees, so comments and docstrings do not count."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
PACKAGE = ROOT / "provider" / "sagemaker_fleet"
COMPAT = PACKAGE / "compat.py"

#: Modules that exist on some supported versions only, or hold different things on each.
MOVED_MODULES = (
    "airflow.providers.common.compat.sdk",  # not in common-compat 1.7.3 (MWAA's 3.0.6)
    "airflow.exceptions",  # 3.0's exceptions; the Task SDK's from 3.2
    "airflow.hooks.base",  # 3.0's BaseHook; the Task SDK's from 3.1
    "airflow.dag_processing.dagbag",  # 3.2+
    "airflow.models.dagbag",  # DagBag before 3.2, DBDagBag from 3.1
    "airflow.serialization.encoders",  # 3.2+
    "airflow.serialization.decoders",  # 3.2+
    "airflow.serialization.serialized_objects",  # encode/decode_timetable, SerializedDAG before 3.2
    "airflow.sdk.observability",  # 3.2+ (a class in 3.2, functions in 3.3)
    "airflow.sdk._shared",  # 3.2+
    "airflow.stats",  # 3.0 and 3.1
    "airflow.metrics",  # 3.0 and 3.1
    "airflow.sdk.execution_time.supervisor",  # dag.test()'s in-process comms
    "airflow.sdk.execution_time.task_runner",
    "airflow.executors.workloads",  # reorganised in 3.2
    "airflow.utils.dag_cycle_tester",  # 3.0's cycle check; DAG.check_cycle from 3.1
    "airflow.providers.openlineage.utils.emission_policy",  # not in OpenLineage 2.16 and 2.6.1
    "airflow.providers.openlineage.utils.utils",  # get_task_parent_run_facet's root arguments (not in 2.6.1)
)
#: Names whose place or presence depends on the version, however they are reached.
MOVED_NAMES = frozenset(
    {
        "DBDagBag",
        "DagSerialization",
        "SerializedDAG",
        "encode_timetable",
        "decode_timetable",
        "InProcessSupervisorComms",
        "SUPERVISOR_COMMS",
        "resolve_task_emission_policy",
        "get_task_parent_run_facet",
        "lineage_root_job_namespace",
        "check_cycle",
    }
)
#: (module, name): a name one version's module has and another's lacks.
MOVED_FROM = frozenset({("airflow.sdk", "BaseHook")})


def _moved_module(name: str) -> bool:
    return any(name == moved or name.startswith(moved + ".") for moved in MOVED_MODULES)


def _dotted_string(value: str) -> bool:
    """A string that names a moved module or name by its dotted path (``mock.patch("airflow.sdk.BaseHook…")``)."""
    if not value.startswith("airflow.") or " " in value:
        return False
    parts = value.split(".")
    prefixes = {".".join(parts[:i]) for i in range(1, len(parts) + 1)}
    pairs = {(".".join(parts[:i]), parts[i]) for i in range(1, len(parts))}
    return (
        any(_moved_module(p) for p in prefixes) or bool(pairs & MOVED_FROM) or bool(set(parts) & MOVED_NAMES)
    )


def offences(tree: ast.AST) -> list[str]:
    """Every use of a moved path in ``tree``, as ``line: what``."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [f"{node.lineno}: import {a.name}" for a in node.names if _moved_module(a.name)]
        elif (
            isinstance(node, ast.ImportFrom)
            and node.level == 0
            and node.module not in (None, "sagemaker_fleet.compat")
        ):
            names = {a.name for a in node.names}
            if (
                _moved_module(node.module)
                or names & MOVED_NAMES
                or {(node.module, n) for n in names} & MOVED_FROM
            ):
                found.append(f"{node.lineno}: from {node.module} import {', '.join(sorted(names))}")
        elif isinstance(node, ast.Attribute) and node.attr in MOVED_NAMES:
            found.append(f"{node.lineno}: .{node.attr}")
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and _dotted_string(node.value):
            found.append(f"{node.lineno}: {node.value!r}")
    return found


def test_the_walk_sees_compats_own_imports_also_inside_functions() -> None:
    found = "\n".join(offences(ast.parse(COMPAT.read_text())))
    assert "import airflow.providers.common.compat.sdk" not in found  # (it is a from-import)
    assert "from airflow.providers.common.compat.sdk import" in found
    assert "from airflow.models.dagbag import DBDagBag" in found  # inside run_dag_bag()
    assert "from airflow.sdk.execution_time.supervisor import InProcessSupervisorComms" in found


@pytest.mark.parametrize(
    ("source", "caught"),
    [
        ("def f():\n    from airflow.stats import Stats\n", True),
        ("import airflow.sdk.observability.stats\n", True),
        ("from airflow.sdk import BaseHook\n", True),
        ("from airflow.sdk import BaseOperator\n", False),
        ("def f(m):\n    return m.lineage_root_job_namespace(1)\n", True),
        ("mock.patch('airflow.sdk.BaseHook.get_connection')\n", True),
        ("mock.patch('airflow.settings.Session')\n", False),
        ("from sagemaker_fleet.compat import AirflowException, check_cycle\n", False),
        ("def f(dag):\n    dag.check_cycle()\n", True),
    ],
)
def test_the_walk_tells_a_moved_path_from_a_stable_one(source: str, caught: bool) -> None:
    assert bool(offences(ast.parse(source))) is caught


def test_no_module_but_compat_uses_a_version_specific_path() -> None:
    found = []
    sources = [*PACKAGE.rglob("*.py"), *(ROOT / "dags").rglob("*.py"), *(ROOT / "scripts").rglob("*.py")]
    for path in sorted(sources):
        if path == COMPAT:
            continue
        found += [f"{path.relative_to(ROOT)}:{o}" for o in offences(ast.parse(path.read_text()))]
    assert found == [], "use sagemaker_fleet.compat instead:\n" + "\n".join(found)
