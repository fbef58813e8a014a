"""Structural (pydantic) errors of a spec as our messages: pydantic's sentence, the value, and the fix.

A field with its own fix (:data:`~sagemaker_fleet.fleetspec.formats.FIXES`) gets that one; any other gets the fix
for the kind of error (a whole number, a mapping, a bound). An unknown key is answered with the closest allowed key,
and a ``TODO`` that ``import`` left with what to write there.
"""

from __future__ import annotations

import difflib
import re
from typing import TYPE_CHECKING

from sagemaker_fleet.fleetspec.formats import FIXES, TODO
from sagemaker_fleet.fleetspec.model import (
    CityLayer,
    FleetLayer,
    QuotaLayer,
    SharingLayer,
    SpotLayer,
    VpcLayer,
)
from sagemaker_fleet.fleetspec.register_model import RegisterLayer

if TYPE_CHECKING:
    from pydantic import BaseModel
    from pydantic_core import ErrorDetails

#: The fix for a structural (pydantic) error of a field without its own entry in ``FIXES``.
TYPE_FIXES: dict[str, str] = {
    "int_type": "write a whole number without quotes",
    "int_parsing": "write a whole number without quotes",
    "int_from_float": "write a whole number without quotes",
    "float_type": "write a number without quotes",
    "finite_number": "write a finite number (YAML reads 1e400 as infinity and .nan as not a number)",
    "invalid_key": "write the key as text: quote it if YAML would read it as a number, boolean or null (`~`)",
    "bool_type": "write true or false without quotes",
    "string_type": "write text (quote it if YAML would read it as a number, boolean, date or null)",
    "list_type": "write a list: `[a, b]` or one `- item` per line",
    "dict_type": "write a mapping of `key: value` pairs",
    "model_type": "write a mapping of `key: value` pairs",
    "greater_than_equal": "use a value ≥ {ge}",
    "greater_than": "use a value > {gt}",
    "less_than_equal": "use a value ≤ {le}",
    "less_than": "use a value < {lt}",
    "too_short": "give at least {min_length}",
    "too_long": "give at most {max_length}",
}
#: What a scalar error type asks for, to join a union's errors into one sentence.
TYPE_NOUNS: dict[str, str] = {
    "int_type": "a whole number",
    "float_type": "a number",
    "finite_number": "a finite number",
    "bool_type": "true/false",
    "string_type": "text",
}

#: The layer whose keys are allowed where a key is unknown.
_ALLOWED: dict[str, type[BaseModel]] = {
    "fleet": FleetLayer,
    "city": CityLayer,
    "spot": SpotLayer,
    "vpc": VpcLayer,
    "quota": QuotaLayer,
    "sharing": SharingLayer,
    "register": RegisterLayer,
}

#: The parts of an error's location that name a union member or a dict key's validator, not a field.
UNION_TAG_RE = re.compile(
    r"^(int|str|float|bool|list\[.*\]|dict\[.*\]|literal\[.*\]|constrained-.*|function-.*|is-instance\[.*\]|"
    r"nullable\[.*\]|json-or-python\[.*\]|lax-.*|union\[.*\]|\[key\]|(Sharing|Spot|Vpc|Quota|City|Register)Layer)$"
)


def unknown_key(loc: list[int | str], prefix: str) -> str:
    """The message for the unknown key at ``loc`` (inside the layer at ``prefix``): the closest allowed key, or all."""
    key = str(loc[-1])
    parent = loc[-2] if len(loc) >= 2 else None
    grand = loc[-3] if len(loc) >= 3 else None
    if parent in ("spot", "vpc", "sharing", "register"):
        model = _ALLOWED[str(parent)]
    elif grand == "quotas":
        model = _ALLOWED["quota"]
    elif parent == "defaults" or isinstance(parent, int) or (parent is None and prefix.startswith("cities")):
        model = _ALLOWED["city"]
    else:
        model = _ALLOWED["fleet"]
    allowed = sorted(model.model_fields)
    close = difflib.get_close_matches(key, allowed, n=1)
    hint = f"did you mean `{close[0]}`?" if close else f"allowed keys: {', '.join(allowed)}"
    return f"unknown key `{key}`; {hint}"


def with_fix(path: str, messages: list[str], errors: list[ErrorDetails]) -> str:
    """Join pydantic's messages for one field and add the fix: the field's own, else one from the error type."""
    message = " or ".join(messages)
    if "unknown key" in message:
        return message  # already says which keys are allowed
    field = path.rsplit(".", 1)[-1]
    fix = FIXES.get(field)
    if errors and isinstance(errors[0]["input"], str) and errors[0]["input"].strip().startswith(TODO):
        # a value `sagemaker-fleet import` left for a person to write: what to write, not what YAML read
        return f"still {TODO}, a value to write in its place; {fix or 'write the value'}"
    if len(errors) > 1 and all(err["type"] in TYPE_NOUNS for err in errors):
        # a union of scalar types (hyperparameter values): one readable sentence instead of four
        nouns = list(dict.fromkeys(TYPE_NOUNS[err["type"]] for err in errors))
        message = f"input should be {', '.join(nouns[:-1])} or {nouns[-1]}"
        finite = any(err["type"] == "finite_number" for err in errors)
        fix = fix or (
            TYPE_FIXES["finite_number"] if finite else "write one plain value, not a list or a mapping"
        )
    elif fix is None and errors:
        template = TYPE_FIXES.get(errors[0]["type"])
        fix = template.format(**errors[0].get("ctx", {})) if template else None
    if errors and errors[0]["type"] in TYPE_FIXES and _is_scalar(errors[0]["input"]):
        message = f"{message} (got {errors[0]['input']!r})"
    if fix is None:
        return message
    return f"{message} ({fix})" if message.endswith("add it") else f"{message}; {fix}"


def plain(message: str) -> str:
    """Pydantic's message as the middle of our sentence: lower-case first letter, no internal class names."""
    message = re.sub(r" or instance of \w+", "", message)  # pydantic names our internal classes
    return message[0].lower() + message[1:] if message else message


def _is_scalar(value: object) -> bool:
    return isinstance(value, str | int | float | bool) and len(repr(value)) <= 60


def mapping_not_bool(err: ErrorDetails) -> bool:
    """A mapping given where a field takes a mapping or true/false (``sharing``): the mapping's own errors say what is
    wrong, not "should be a valid boolean"."""
    return err["type"] == "bool_type" and isinstance(err["input"], dict)
