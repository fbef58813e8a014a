"""docs/guides/aws.md agrees with the code: every AWS API the provider calls is in its table of calls, and every
SageMaker and S3 action it needs is in the Airflow principal's policy — and the policy grants no SageMaker action
the code never calls. A new boto3 call without a docs change fails here, and so does a stale policy line.

Calls are found in the source (``client.<operation>(…)``, and ``get_paginator("<operation>")``), named by the
services' own botocore models, so a new operation needs no list kept in this test. The simulator (``sim/``) and the
``simulate`` application (``simulate/``) are left out: they answer SageMaker's calls or make them against the
simulator, never against AWS.
"""

from __future__ import annotations

import ast
import json
import re
from functools import cache
from pathlib import Path

import botocore.session
from botocore import xform_name

ROOT = Path(__file__).resolve().parents[3]
PACKAGE = ROOT / "provider" / "sagemaker_fleet"
AWS_DOC = ROOT / "docs" / "guides" / "aws.md"
SERVICES = ("sagemaker", "s3", "pricing", "logs", "sts", "service-quotas", "iam", "ecr")
#: IAM action prefix of the services whose prefix is not their boto3 name.
IAM_PREFIXES = {"service-quotas": "servicequotas"}
#: IAM action of the S3 operations whose action is not ``s3:<Operation>``.
S3_ACTIONS = {
    "ListObjectsV2": "s3:ListBucket",
    "ListObjects": "s3:ListBucket",
    "DeleteObjects": "s3:DeleteObject",
}
#: ``sagemaker-fleet pilot`` is run by a person, with a policy of its own (docs/guides/pilot.md, which
#: tests/integration/cli/test_pilot_sim.py evaluates against every call a pilot makes): the Airflow principal's
#: policy does not grant its calls, and the table of section 1 names them in the pilot's row.
PILOT = "cli/pilot/"
#: Calls through Airflow's S3Hook, which hides the boto3 operation.
S3_HOOK_METHODS = {"read_key": ("s3", "GetObject"), "load_string": ("s3", "PutObject")}


@cache
def operations() -> dict[str, tuple[str, str]]:
    """snake_case method name → (service, Operation) for the services the provider could call."""
    session = botocore.session.get_session()
    found: dict[str, tuple[str, str]] = {}
    for service in SERVICES:
        for operation in session.get_service_model(service).operation_names:
            found.setdefault(xform_name(operation), (service, operation))
    return found


def _is_protocol(node: ast.ClassDef) -> bool:
    return any(
        isinstance(base, ast.Name | ast.Attribute) and ast.unparse(base).endswith("Protocol")
        for base in node.bases
    )


def _own_names(trees: list[ast.Module]) -> set[str]:
    """Functions and methods the provider defines itself (``hook.list_jobs`` is not SageMaker's ListJobs); the
    methods of a ``Protocol`` describe a boto3 client's, so they are not the provider's own."""
    described = {
        id(item)
        for tree in trees
        for node in ast.walk(tree)
        if isinstance(node, ast.ClassDef) and _is_protocol(node)
        for item in node.body
    }
    return {
        node.name
        for tree in trees
        for node in ast.walk(tree)
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and id(node) not in described
    }


def called_apis(package: Path = PACKAGE) -> dict[tuple[str, str], set[str]]:
    """(service, Operation) → the files that call it."""
    files = [
        path
        for path in sorted(package.rglob("*.py"))
        if not {"sim", "simulate"} & set(path.relative_to(package).parts)
    ]
    trees = {path: ast.parse(path.read_text(encoding="utf-8")) for path in files}
    own = _own_names(list(trees.values()))
    calls: dict[tuple[str, str], set[str]] = {}
    for path, tree in trees.items():
        for node in ast.walk(tree):
            if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)):
                continue
            name = node.func.attr
            if name == "get_paginator" and node.args and isinstance(node.args[0], ast.Constant):
                name = str(node.args[0].value)
            elif name in S3_HOOK_METHODS:
                calls.setdefault(S3_HOOK_METHODS[name], set()).add(path.relative_to(package).as_posix())
                continue
            elif name in own:
                continue
            if "_" in name and name in operations():  # a one-word name (search, get) is too common to tell
                calls.setdefault(operations()[name], set()).add(path.relative_to(package).as_posix())
    return calls


def airflow_apis() -> dict[tuple[str, str], set[str]]:
    """The calls outside the pilot's own modules (:data:`PILOT`)."""
    found = {api: {f for f in where if not f.startswith(PILOT)} for api, where in called_apis().items()}
    return {api: where for api, where in found.items() if where}


def test_the_pilots_calls_are_left_to_its_own_policy() -> None:
    assert ("s3", "DeleteObjects") in called_apis()
    assert ("s3", "DeleteObjects") not in airflow_apis()
    assert ("s3", "PutObject") in airflow_apis()  # the cost report's, which the pilot makes too


def iam_action(service: str, operation: str) -> str:
    if service == "s3":
        return S3_ACTIONS.get(operation, f"s3:{operation}")
    return f"{IAM_PREFIXES.get(service, service)}:{operation}"


def section(number: int) -> str:
    text = AWS_DOC.read_text(encoding="utf-8")
    match = re.search(rf"^## {number}\. .*?(?=^## |\Z)", text, flags=re.S | re.M)
    assert match, f"docs/guides/aws.md has no section '## {number}.'"
    return match.group(0)


def policy_actions(text: str) -> set[str]:
    """Every Action of the JSON policies in ``text``."""
    actions: set[str] = set()
    for block in re.findall(r"```json\n(.*?)```", text, flags=re.S):
        for statement in json.loads(block).get("Statement", []):
            action = statement.get("Action", [])
            actions.update([action] if isinstance(action, str) else action)
    return actions


def test_the_scan_finds_the_calls_it_must_and_no_wrappers() -> None:
    apis = called_apis()
    for expected in [
        ("sagemaker", "CreateTrainingJob"),
        ("sagemaker", "StopTrainingJob"),
        ("sagemaker", "UpdateTrainingJob"),
        ("s3", "ListObjectsV2"),
        ("s3", "GetObject"),
        ("pricing", "GetProducts"),
        ("service-quotas", "ListServiceQuotas"),
        ("iam", "GetRole"),
        ("ecr", "DescribeImages"),
    ]:
        assert expected in apis, expected
    assert ("sagemaker", "ListJobs") not in apis  # the hook's own list_jobs
    assert ("sagemaker", "Search") not in apis  # a compiled pattern's search


def test_the_table_of_calls_names_every_api_the_code_calls() -> None:
    table = section(1)
    missing = [
        f"{operation} ({service}, called in {', '.join(sorted(where))})"
        for (service, operation), where in sorted(called_apis().items())
        if not re.search(rf"\b{operation}\b", table)
    ]
    assert not missing, "add a row to docs/guides/aws.md, section 1, for:\n" + "\n".join(missing)


def test_the_principals_policy_grants_every_sagemaker_and_s3_action_the_code_needs() -> None:
    granted = policy_actions(section(2))
    needed = {
        iam_action(service, operation): where
        for (service, operation), where in airflow_apis().items()
        if service in ("sagemaker", "s3")
    }
    missing = [f"{action} (called in {', '.join(sorted(where))})" for action, where in sorted(needed.items())]
    missing = [line for line in missing if line.split()[0] not in granted]
    assert not missing, "add to the policy in docs/guides/aws.md, section 2:\n" + "\n".join(missing)
    for service, operation in airflow_apis():  # the rest (the price list) as an optional statement at least
        assert iam_action(service, operation) in section(2), iam_action(service, operation)


def test_the_principals_policy_grants_no_sagemaker_action_the_code_never_calls() -> None:
    called = {iam_action(s, o) for s, o in airflow_apis() if s == "sagemaker"}
    extra = sorted(a for a in policy_actions(section(2)) if a.startswith("sagemaker:") and a not in called)
    assert not extra, (
        f"docs/guides/aws.md, section 2, grants {extra}, which no code calls: drop them or say why"
    )


def test_a_new_call_fails_the_check(tmp_path: Path) -> None:
    """The check sees a SageMaker call the policy lacks (here DeleteModel, hidden behind a paginator-free client
    call; an operation every supported botocore knows, 1.39's too) — what a future change that forgets docs/guides/aws.md
    would look like."""
    (tmp_path / "cleanup.py").write_text("def go(client):\n    client.delete_model(ModelName='x')\n")
    apis = called_apis(tmp_path)
    assert apis == {("sagemaker", "DeleteModel"): {"cleanup.py"}}
    assert "sagemaker:DeleteModel" not in policy_actions(section(2))


def optional_bullets(text: str) -> list[str]:
    """The bullets after "Optional statements:" that are for the Airflow principal itself (a bullet that opens in
    bold is another principal's, the api-server's)."""
    listing = text.split("Optional statements:", 1)[1].lstrip("\n").split("\n\n", 1)[0]
    bullets = (bullet.strip() for bullet in re.split(r"^- ", listing, flags=re.M))
    return [bullet for bullet in bullets if bullet and not bullet.startswith("**")]


def test_no_optional_statement_offers_what_the_policy_already_requires() -> None:
    """The page once granted StopTrainingJob in the policy and called it optional below ("the shipped operators
    do not" call it, while the training task's on_kill does): one action, one answer."""
    text = section(2)
    granted = policy_actions(text)
    bullets = optional_bullets(text)
    assert any("pricing:GetProducts" in bullet for bullet in bullets)
    contradictions = [
        f"{action}: {bullet[:80]}…"
        for bullet in bullets
        for action in re.findall(r"\b(?:sagemaker|s3|pricing):[A-Z]\w+", bullet)
        if action in granted
    ]
    assert not contradictions, "granted in the policy and offered as optional:\n" + "\n".join(contradictions)
