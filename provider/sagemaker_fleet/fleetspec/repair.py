"""Drop the values pydantic refused (or stand in for required ones) so that a spec is validated again.

One run of pydantic stops at the layer that failed; repairing and validating again lets the checks that follow
still see every good value, so that a spec's errors are all reported at once, not only the first layer's.
"""

from __future__ import annotations

import copy
from typing import TYPE_CHECKING, Any

from sagemaker_fleet.fleetspec.model import FleetLayer

if TYPE_CHECKING:
    from pydantic import BaseModel

#: Stand-ins for required top-level values that failed, so the remaining checks can still run.
_PLACEHOLDERS: dict[str, object] = {
    "fleet": "x",
    "region": "us-east-1",
    "role_arn": "arn:aws:iam::000000000000:role/x",
    "image_uri": "000000000000.dkr.ecr.us-east-1.amazonaws.com/x",
    "output_s3_uri": "s3://placeholder",
    "cities": [{}],
}
#: Stand-ins for required values inside a layer: (the key that holds the layer, field) -> value.
_NESTED_PLACEHOLDERS: dict[tuple[str, str], object] = {
    ("quotas", "instances"): 1,
    ("vpc", "subnets"): ["subnet-0"],
    ("vpc", "security_group_ids"): ["sg-0"],
}
_MISSING = object()


def repair(data: object, locs: list[list[int | str]], model: type[BaseModel]) -> bool:
    """Remove (or stand in for) the values at ``locs``; False when nothing could be repaired."""
    if not isinstance(data, dict) or not all(locs):
        return False
    removals: list[tuple[list[Any], int]] = []
    changed = [_repair_one(data, loc, model, removals) for loc in locs]
    for items, index in sorted(removals, key=lambda removal: removal[1], reverse=True):
        del items[index]  # from the back, so the other indices stay valid
    return any(changed)


def _repair_one(
    data: dict[Any, Any], loc: list[int | str], model: type[BaseModel], removals: list[tuple[list[Any], int]]
) -> bool:
    parent = _walk(data, loc[:-1])
    last = loc[-1]
    stand_in = _stand_in(loc, model)
    if stand_in is not _MISSING and isinstance(parent, dict):
        parent[last] = copy.deepcopy(stand_in)
    elif isinstance(parent, dict) and last in parent:
        del parent[last]
    elif isinstance(parent, list) and isinstance(last, int) and 0 <= last < len(parent):
        if all(items is not parent or index != last for items, index in removals):
            removals.append((parent, last))  # one item can fail several union members
    elif parent is None and str(loc[0]) in data and len(loc) > 1:
        # the value cannot be reached: give up on its whole top-level entry (already reported)
        top_stand_in = _stand_in(loc[:1], model)
        if top_stand_in is _MISSING:
            del data[str(loc[0])]
        else:
            data[str(loc[0])] = copy.deepcopy(top_stand_in)
    else:
        return False  # already removed by another error at the same place
    return True


def stand_in(key: str) -> object:
    """The stand-in for a required top-level value that is missing or failed."""
    return copy.deepcopy(_PLACEHOLDERS[key])


def _walk(data: Any, parts: list[int | str]) -> Any:
    for part in parts:
        try:
            data = data[part]
        except (KeyError, IndexError, TypeError):
            return None
    return data


def _stand_in(loc: list[int | str], model: type[BaseModel]) -> object:
    if len(loc) == 1 and model is FleetLayer and loc[0] in _PLACEHOLDERS:
        return _PLACEHOLDERS[str(loc[0])]
    if len(loc) >= 3 and loc[-3] == "quotas":
        return _NESTED_PLACEHOLDERS.get(("quotas", str(loc[-1])), _MISSING)
    if len(loc) >= 2:
        return _NESTED_PLACEHOLDERS.get((str(loc[-2]), str(loc[-1])), _MISSING)
    return _MISSING
