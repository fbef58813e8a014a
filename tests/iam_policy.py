"""A small IAM evaluator for tests: whether an identity policy allows one concrete request.

What it evaluates, as IAM does for one identity-based policy without Deny statements: a request (action, resource
ARN, condition context) is allowed when one ``Allow`` statement's ``Action`` matches the action and its
``Resource`` matches the ARN (IAM's wildcards: ``*`` any run of characters, ``/`` and ``:`` included, ``?`` one
character; actions match case-insensitively), and every condition of the statement holds. Conditions:
``StringEquals`` and ``StringLike`` (the same wildcards), a value list meaning any of them; a condition key the
request does not carry fails it. Anything else in a policy (Deny, NotAction, NotResource, other operators) is
refused loudly rather than guessed.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

SUPPORTED_KEYS = {"Sid", "Effect", "Action", "Resource", "Condition"}
OPERATORS = {"StringEquals", "StringLike"}


@dataclass(frozen=True)
class Request:
    """One authorization question: the action, the resource's ARN and the request's condition keys."""

    action: str
    resource: str
    context: Mapping[str, str] = field(default_factory=dict)


def _pattern(glob: str) -> re.Pattern[str]:
    return re.compile(
        "".join(".*" if ch == "*" else "." if ch == "?" else re.escape(ch) for ch in glob), re.S
    )


def _listed(value: str | Sequence[str]) -> list[str]:
    return [value] if isinstance(value, str) else list(value)


def _condition_holds(condition: Mapping[str, Mapping[str, Any]], context: Mapping[str, str]) -> bool:
    for operator, tests in condition.items():
        if operator not in OPERATORS:
            raise ValueError(f"the test evaluator does not know the condition operator {operator}")
        for key, wanted in tests.items():
            if key not in context:
                return False
            values = _listed(wanted)
            if operator == "StringEquals" and context[key] not in values:
                return False
            if operator == "StringLike" and not any(_pattern(v).fullmatch(context[key]) for v in values):
                return False
    return True


def statement_allows(statement: Mapping[str, Any], request: Request) -> bool:
    unknown = set(statement) - SUPPORTED_KEYS
    if unknown or statement.get("Effect") != "Allow":
        raise ValueError(f"the test evaluator only reads Allow statements of {SUPPORTED_KEYS}: {statement}")
    actions = [a.lower() for a in _listed(statement["Action"])]
    if not any(_pattern(action).fullmatch(request.action.lower()) for action in actions):
        return False
    if not any(_pattern(resource).fullmatch(request.resource) for resource in _listed(statement["Resource"])):
        return False
    return _condition_holds(statement.get("Condition") or {}, request.context)


def allows(policy: Mapping[str, Any], request: Request) -> bool:
    return any(statement_allows(statement, request) for statement in policy["Statement"])


def allowing(policy: Mapping[str, Any], request: Request) -> list[str]:
    """The Sids of the statements that allow ``request``."""
    return [str(s.get("Sid")) for s in policy["Statement"] if statement_allows(s, request)]
