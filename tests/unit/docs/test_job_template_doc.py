"""docs/guides/job-template.md's table of who fills each field agrees with the code's table and names every top-level
CreateTrainingJob field of the installed botocore."""

from __future__ import annotations

import re
from pathlib import Path

from sagemaker_fleet.fleetspec.job_fields import MERGED, OWNED
from sagemaker_fleet.fleetspec.request_model import FIELDS_SINCE
from sagemaker_fleet.hooks.request_model import BOTOCORE_MODEL

PAGE = Path(__file__).resolve().parents[3] / "docs" / "guides" / "job-template.md"


def table() -> dict[str, str]:
    """Each field named in the "Who fills each field" table, with its role there."""
    section = PAGE.read_text(encoding="utf-8").split("## Who fills each field", 1)[1].split("\n## ", 1)[0]
    roles: dict[str, str] = {}
    for line in section.splitlines():
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if len(cells) < 3 or not cells[0].startswith("`"):
            continue
        names = re.findall(r"`([A-Za-z0-9.]+)`", cells[0])
        parent = ""
        for name in names:
            full = name if not name.startswith(".") else parent + name
            parent = full.rsplit(".", 1)[0] if "." in full else parent
            roles[full] = cells[1]
    return roles


def test_every_top_level_field_of_the_installed_model_has_a_row() -> None:
    roles = table()
    named = {path.split(".", 1)[0] for path in roles}
    assert set(BOTOCORE_MODEL.load().request.members) - named == set()
    assert {path for path in FIELDS_SINCE if "." not in path} <= named  # also on an older botocore


def test_the_owned_and_merged_rows_are_the_code_s() -> None:
    roles = table()
    assert {path for path, role in roles.items() if role == "owned"} == set(OWNED)
    assert {path for path, role in roles.items() if role == "merged"} == set(MERGED)
