"""The one duration format: seconds under a minute, minutes and seconds under an hour, hours and minutes above."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from sagemaker_fleet.jobs.duration_text import duration


@pytest.mark.parametrize(
    ("seconds", "text"),
    [
        (0, "0 s"),
        (45, "45 s"),
        (59.4, "59 s"),
        (59.6, "1 min 00 s"),
        (61, "1 min 01 s"),
        (200, "3 min 20 s"),
        (3599, "59 min 59 s"),
        (3600, "1 h 00 min"),
        (4125, "1 h 08 min"),
        (7500, "2 h 05 min"),
        (7559, "2 h 05 min"),
        (90_000, "25 h 00 min"),
        (-45, "-45 s"),
        (-200, "-3 min 20 s"),
    ],
)
def test_duration(seconds: float, text: str) -> None:
    assert duration(seconds) == text


def test_no_other_module_formats_durations_itself() -> None:
    """Read from the syntax tree: no function of the package but this one is named for formatting a duration."""
    package = Path(__file__).resolve().parents[3] / "provider" / "sagemaker_fleet"
    names = {"duration", "_duration", "format_duration", "fmt_duration"}
    found = sorted(
        f"{path.relative_to(package).as_posix()}:{node.name}"
        for path in package.rglob("*.py")
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name in names
    )
    assert found == ["jobs/duration_text.py:duration"]
