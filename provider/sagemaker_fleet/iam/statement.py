"""One IAM policy statement and one part of the fleet's policies (pure values, rendered as AWS's JSON).

A statement carries a ``Sid`` that says why it is there (IAM allows letters and digits only), its actions, its
resources and its conditions, written as IAM's ``Condition`` block (operator → key → value or values).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

#: IAM's policy language version; every document we write uses it (policy variables need it).
POLICY_VERSION = "2012-10-17"
#: The most characters (whitespace not counted) of a customer managed policy: a document above it has to be split.
MANAGED_POLICY_MAX_CHARS = 6144
_SID_RE = re.compile(r"^[A-Za-z0-9]{1,128}$")

#: An IAM ``Condition`` block: operator → condition key → one value or several.
Conditions = Mapping[str, Mapping[str, str | list[str]]]


@dataclass(frozen=True)
class Statement:
    """An ``Allow`` statement (the generated policies deny nothing: what they do not allow is refused)."""

    sid: str
    actions: tuple[str, ...]
    resources: tuple[str, ...]
    conditions: Conditions = field(default_factory=dict)

    def __post_init__(self) -> None:
        if not _SID_RE.fullmatch(self.sid):
            raise ValueError(f"statement id {self.sid!r}: IAM allows letters and digits only")
        if not self.actions or not self.resources:
            raise ValueError(f"statement {self.sid}: it needs at least one action and one resource")

    def to_json(self) -> dict[str, Any]:
        statement: dict[str, Any] = {
            "Sid": self.sid,
            "Effect": "Allow",
            "Action": _one_or_list(self.actions),
            "Resource": _one_or_list(self.resources),
        }
        if self.conditions:
            statement["Condition"] = {
                operator: {key: values for key, values in keys.items()}
                for operator, keys in self.conditions.items()
            }
        return statement


def _one_or_list(values: tuple[str, ...]) -> str | list[str]:
    return values[0] if len(values) == 1 else list(values)


@dataclass(frozen=True)
class PolicyPart:
    """One policy of the fleet's set: for whom it is (``name``, ``principal``), its statements and the notes that
    go with it — what it cannot narrow, what it leaves out and why."""

    name: str
    principal: str
    statements: tuple[Statement, ...]
    notes: tuple[str, ...] = ()

    def document(self) -> dict[str, Any]:
        """The policy document, as IAM takes it (``aws iam put-role-policy --policy-document``)."""
        return {"Version": POLICY_VERSION, "Statement": [s.to_json() for s in self.statements]}

    def size(self) -> int:
        """The document's length as IAM counts it for its size limits: characters other than whitespace."""
        return len("".join(json.dumps(self.document()).split()))

    @property
    def actions(self) -> frozenset[str]:
        return frozenset(action for statement in self.statements for action in statement.actions)
