"""A trigger's blocking calls leave the event loop through asgiref (``triggers/offloop.py``), never a plain thread:
on Airflow 3.0 a Task SDK call (an XCom, the AWS hook's connection) from ``asyncio.to_thread`` reached the
triggerer's supervisor on an event loop of its own, the replies came back out of order and the trigger runner died
with every trigger on it (seen running benchmarks/scale.py on Airflow 3.0.6)."""

from __future__ import annotations

import ast
from pathlib import Path

import sagemaker_fleet

PACKAGE = Path(sagemaker_fleet.__file__).parent
#: Where code runs in the triggerer's event loop.
TRIGGERER_CODE = ("triggers", "dispatch", "observability")


def thread_hops(path: Path) -> list[str]:
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Attribute) and node.attr in ("to_thread", "run_in_executor"):
            found.append(f"{path.relative_to(PACKAGE)}:{node.lineno}: {node.attr}")
    return found


def test_no_trigger_code_hops_to_a_plain_thread() -> None:
    hops = [
        hop
        for folder in TRIGGERER_CODE
        for path in (PACKAGE / folder).rglob("*.py")
        for hop in thread_hops(path)
    ]
    # OpenLineage's emission calls no Task SDK API (an HTTP transport, bounded by its own timeout)
    assert [hop for hop in hops if not hop.startswith("observability/lineage.py")] == []


def test_off_loop_runs_the_call_and_returns_its_result() -> None:
    import asyncio
    import threading

    from sagemaker_fleet.triggers.offloop import off_loop

    main = threading.get_ident()

    def call(a: int, *, b: int) -> tuple[int, bool]:
        return a + b, threading.get_ident() != main

    assert asyncio.run(off_loop(call, 1, b=2)) == (3, True)
