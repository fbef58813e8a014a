"""docs/guides/pilot.md agrees with the command: its policies are the ones ``sagemaker-fleet pilot --policy`` prints
for the page's example, its dry-run excerpt is lines of that dry run in their order, and its worked ceiling is the
command's."""

from __future__ import annotations

import json
import re
import shlex
from pathlib import Path
from typing import TYPE_CHECKING

from sagemaker_fleet.cli.main import main
from sagemaker_fleet.cli.pilot.policy import TRUST_POLICY, caller_policy, execution_role_policy
from sagemaker_fleet.cli.pilot.settings import PilotSettings

if TYPE_CHECKING:
    import pytest

PAGE = Path(__file__).resolve().parents[3] / "docs" / "guides" / "pilot.md"
EXAMPLE = PilotSettings(
    region="us-east-1",
    bucket="acme-ml",
    prefix="sagemaker-pilot",
    role_arn="arn:aws:iam::111122223333:role/SageMakerPilot",
    run_key="p2612061230",
)


def marked(marker: str) -> list[tuple[str, str]]:
    """(the marker's argument, the fenced block after it) for each ``<!-- marker: ARG -->`` on the page."""
    text = PAGE.read_text(encoding="utf-8")
    return re.findall(rf"<!-- {marker}: (.*?) -->\n```\w*\n(.*?)```", text, flags=re.S)


def test_the_pages_policies_are_the_commands() -> None:
    blocks = dict(marked("pilot-policy"))
    assert set(blocks) == {"caller", "trust", "execution-role"}
    assert json.loads(blocks["caller"]) == caller_policy(EXAMPLE)
    assert json.loads(blocks["execution-role"]) == execution_role_policy(EXAMPLE)
    assert json.loads(blocks["trust"]) == TRUST_POLICY


def test_the_dry_run_excerpt_is_the_commands_output(capsys: pytest.CaptureFixture[str]) -> None:
    ((args, block),) = marked("pilot-dry-run")
    assert main(["pilot", *shlex.split(args), "--dry-run"]) == 0
    printed = capsys.readouterr().out.splitlines()
    at = 0
    for line in [line for line in block.splitlines() if line.strip()]:
        assert line in printed[at:], f"not in the dry run's output (or out of order): {line!r}"
        at = printed.index(line, at) + 1


def test_the_worked_ceiling_is_the_commands(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["pilot", "--region", "us-east-1", "--role-arn", EXAMPLE.role_arn, "--s3-prefix", "s3://acme-ml/p"]
    assert main([*argv, "--dry-run", "--json"]) == 0
    ceiling = json.loads(capsys.readouterr().out)["ceiling"]
    assert ceiling["instance_seconds"] == 2520
    assert ceiling["usd"] == "0.080500"
    text = " ".join(PAGE.read_text(encoding="utf-8").split())
    assert "3 × (600 + 120 + 120) = 2,520 instance-seconds × $0.115 ÷ 3,600 = **$0.0805**" in text
