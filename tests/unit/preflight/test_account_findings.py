"""One line per finding, and the exit code: 2 when any finding is an ERROR, else 0."""

from __future__ import annotations

from sagemaker_fleet.preflight.findings import Finding, exit_code, tally


def test_a_line_names_level_subject_and_text() -> None:
    assert Finding("OK", "role FleetTraining", "exists").line() == "OK      role FleetTraining: exists"
    assert Finding("WARNING", "quota x", "y").line() == "WARNING quota x: y"


def test_exit_code_and_tally() -> None:
    findings = [
        Finding("OK", "a", ""),
        Finding("WARNING", "b", ""),
        Finding("NOTE", "c", ""),
        Finding("OK", "d", ""),
    ]
    assert exit_code(findings) == 0
    assert tally(findings) == "2 OK, 1 note, 1 warning, 0 errors"
    findings += [Finding("ERROR", "e", ""), Finding("ERROR", "f", "")]
    assert exit_code(findings) == 2
    assert tally(findings) == "2 OK, 1 note, 1 warning, 2 errors"
    assert exit_code([]) == 0
