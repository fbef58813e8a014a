"""A YAML syntax slip is reported with the key it broke and the key above it, not only PyYAML's parser states."""

from __future__ import annotations

import pytest

from sagemaker_fleet.fleetspec import FleetSpecError
from sagemaker_fleet.fleetspec.load import parse_fleet_spec


def syntax_issue(text: str) -> str:
    with pytest.raises(FleetSpecError) as raised:
        parse_fleet_spec(text, source="fleet.yaml")
    (issue,) = raised.value.issues
    return str(issue)


@pytest.mark.parametrize(
    ("text", "line", "key", "above"),
    [
        # a key indented less than its siblings: PyYAML says "expected <block end>, but found '<block mapping start>'"
        (
            "fleet: small\nquotas:\n    ml.m5.xlarge:\n      instances: 4\n  region: us-east-1\n",
            5,
            "region",
            "instances",
        ),
        # a key indented under a value: "mapping values are not allowed here"
        (
            "fleet: small\ncities:\n  - name: lima\n    train_s3_uri: s3://b/lima/\n     spot: true\n",
            5,
            "spot",
            "train_s3_uri",
        ),
        # a tab before a key
        ("fleet: small\n\tregion: us-east-1\n", 2, "region", "fleet"),
    ],
)
def test_an_indentation_slip_names_its_line_and_keys(text: str, line: int, key: str, above: str) -> None:
    issue = syntax_issue(text)
    assert issue.startswith(
        f"<root> (line {line}): YAML syntax error: key '{key}' does not line up with the key "
        f"'{above}' above it (line {line - 1}); fix the indentation"
    )


def test_an_unclosed_bracket_names_the_key_above() -> None:
    issue = syntax_issue("fleet: small\nregion: [us-east-1\n")
    assert issue.startswith(
        "<root> (line 3): YAML syntax error below key 'region' (line 2); fix the indentation"
    )
