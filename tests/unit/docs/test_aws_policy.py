"""docs/guides/aws.md and the generated policies agree with the code: every AWS API the provider calls is in the
page's table of calls, and every action it needs is granted by the policy ``sagemaker-fleet iam`` generates for the
identity that runs the call (Airflow's, the Fleet view's, the command line's) — and no policy grants a SageMaker
action the code never calls. A new boto3 call without a policy or docs change fails here. (Whether those grants
allow the concrete requests, conditions included: tests/unit/iam/test_policy_evaluation.py.)

Calls are found in the source (``client.<operation>(…)``, and ``get_paginator("<operation>")``), named by the
services' own botocore models, so a new operation needs no list kept in this test. The simulator (``sim/``) and the
``simulate`` application (``simulate/``) are left out: they answer SageMaker's calls or make them against the
simulator, never against AWS.
"""

from __future__ import annotations

import ast
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


#: Which generated policies run the calls of each module (its folder under sagemaker_fleet/, or the file itself):
#: the empty set for calls no generated policy makes (each is an optional statement of section 2, or needs no
#: permission).
RUNS_AS: dict[str, frozenset[str]] = {
    "hooks": frozenset({"airflow"}),
    "triggers": frozenset({"airflow"}),
    "operators": frozenset({"airflow"}),
    "plugin": frozenset({"view"}),
    "fleetview": frozenset({"view"}),  # the account's board, read for the waiting reasons
    # the listing and the describe of the hook (Airflow, the Fleet view) and of `sagemaker-fleet report`
    "jobs/reader.py": frozenset({"airflow", "view", "pilot"}),
    "cost": frozenset({"airflow", "pilot"}),  # the cost report task, and `sagemaker-fleet report`
    "preflight/resources.py": frozenset({"pilot"}),
    "preflight/quotas.py": frozenset({"airflow", "pilot"}),  # the plan task reads the quotas too
    "preflight/checks.py": frozenset(),  # GetCallerIdentity needs no permission
    "cost/pricelist.py": frozenset(),  # `report --price-list`: an optional statement
    "cli/import_jobs.py": frozenset(),  # `import` reads jobs you name: an optional statement
    # `pilot` runs as the person who runs it, with its own least policy (`pilot --policy caller`), which
    # tests/integration/cli/test_pilot_sim.py evaluates against every call the pilot makes
    "cli/pilot": frozenset(),
    # the register task's calls: only a spec with register: has them (the demo fleet has none); its part of the
    # generated policy is evaluated in tests/unit/iam/test_policy_evaluation.py
    "registry": frozenset(),
    "preflight/registry_checks.py": frozenset(),  # preflight of a register: spec (an optional statement)
}
#: The hook's reads the Fleet view makes too (fleetview/source.py reads the account through the hook; the listing and
#: the describe themselves are jobs/reader.py's).
VIEW_THROUGH_HOOK = frozenset({"sagemaker:ListTrainingJobs", "sagemaker:DescribeTrainingJob"})


@cache
def generated() -> dict[str, frozenset[str]]:
    """The actions of each part of the demo fleet's generated policies."""
    from sagemaker_fleet.cli.inputs import load_spec
    from sagemaker_fleet.iam import PARTS, PolicyScope, policy_part

    spec = load_spec(str(ROOT / "dags" / "fleets" / "demo.yaml"))
    scope = PolicyScope.of(spec)
    return {name: policy_part(name, spec, scope).actions for name in PARTS}


def runs_as(where: str, action: str) -> frozenset[str]:
    parts = RUNS_AS.get(where, RUNS_AS.get("/".join(where.split("/")[:2]), RUNS_AS.get(where.split("/")[0])))
    assert parts is not None, f"{where} calls {action}: say in RUNS_AS which generated policy runs it"
    if where == "hooks/fleet.py" and action in VIEW_THROUGH_HOOK:
        return parts | {"view"}
    return parts


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


def test_the_generated_policies_grant_every_call_to_the_identity_that_makes_it() -> None:
    missing = [
        f"{iam_action(service, operation)} (called in {where}) is not in the {part} policy"
        for (service, operation), files in sorted(called_apis().items())
        for where in sorted(files)
        for part in sorted(runs_as(where, iam_action(service, operation)))
        if iam_action(service, operation) not in generated()[part]
    ]
    assert not missing, "add a section to sagemaker_fleet/iam/parts.py:\n" + "\n".join(missing)
    optional = {
        iam_action(service, operation)
        for (service, operation), files in called_apis().items()
        if any(
            not runs_as(where, iam_action(service, operation))
            for where in files
            if not where.startswith("cli/pilot/")
        )
        and service != "sts"
    }
    from sagemaker_fleet.registry.permissions import REGISTRY_ACTIONS

    registry = set(REGISTRY_ACTIONS) - {"sagemaker:AddTags", "sagemaker:DescribeTrainingJob"}
    assert optional == {
        "pricing:GetProducts",
        "sagemaker:DescribeTrainingJob",
        "sagemaker:ListTags",
        *registry,
    }
    for action in optional:  # named among the optional statements of the page
        assert action in section(2).split("Optional statements:", 1)[1], action


def test_no_generated_policy_grants_a_sagemaker_action_the_code_never_calls() -> None:
    called = {iam_action(s, o) for s, o in called_apis() if s == "sagemaker"}
    for part, actions in generated().items():
        extra = sorted(a for a in actions if a.startswith("sagemaker:") and a not in called)
        assert not extra, f"the {part} policy grants {extra}, which no code calls: drop them or say why"


def test_a_new_call_fails_the_check(tmp_path: Path) -> None:
    """The check sees a SageMaker call no policy grants (here DeleteModel, hidden behind a paginator-free client
    call; an operation every supported botocore knows, 1.39's too) — what a future change that forgets the
    policies would look like."""
    (tmp_path / "cleanup.py").write_text("def go(client):\n    client.delete_model(ModelName='x')\n")
    apis = called_apis(tmp_path)
    assert apis == {("sagemaker", "DeleteModel"): {"cleanup.py"}}
    assert not any("sagemaker:DeleteModel" in actions for actions in generated().values())


def test_section_2_shows_the_command_and_its_generated_output() -> None:
    text = section(2)
    assert "sagemaker-fleet iam" in text
    assert "../reference/iam-policies.md" in text
    assert "```json" not in text  # no hand-written policy: the generated page has them


def optional_bullets(text: str) -> list[str]:
    """The bullets after "Optional statements:" that are for the Airflow principal itself (a bullet that opens in
    bold is another principal's, the api-server's)."""
    listing = text.split("Optional statements:", 1)[1].lstrip("\n").split("\n\n", 1)[0]
    bullets = (bullet.strip() for bullet in re.split(r"^- ", listing, flags=re.M))
    return [bullet for bullet in bullets if bullet and not bullet.startswith("**")]


def test_no_optional_statement_offers_what_the_policy_already_requires() -> None:
    """The page once granted StopTrainingJob in the policy and called it optional below ("the shipped operators
    do not" call it, while the training task's on_kill does): one action, one answer."""
    granted = generated()["airflow"]
    bullets = optional_bullets(section(2))
    assert any("pricing:GetProducts" in bullet for bullet in bullets)
    contradictions = [
        f"{action}: {bullet[:80]}…"
        for bullet in bullets
        for action in re.findall(r"\b(?:sagemaker|s3|pricing):[A-Z]\w+", bullet)
        if action in granted
    ]
    assert not contradictions, "granted in the policy and offered as optional:\n" + "\n".join(contradictions)
