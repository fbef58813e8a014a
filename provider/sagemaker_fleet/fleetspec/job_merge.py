"""How ``job:`` layers combine, and how a template lands on the request the provider builds: one rule for both.

Mappings merge member by member and a later list replaces an earlier one, except ``InputDataConfig`` (merged by
``ChannelName``) and ``Tags`` (merged by ``Key``). A channel's ``DataSource`` of another kind (FSx instead of S3)
replaces the one before, since a channel reads one source.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

#: Top-level lists merged item by item, and the member naming an item.
KEYED_LISTS: dict[str, str] = {"InputDataConfig": "ChannelName", "Tags": "Key"}


def merge_job(base: Mapping[str, Any], over: Mapping[str, Any]) -> dict[str, Any]:
    """``over`` merged onto ``base`` (neither is changed; untouched values are shared, not copied)."""
    return _merge(base, over, "")


def _merge(base: Mapping[str, Any], over: Mapping[str, Any], at: str) -> dict[str, Any]:
    out = dict(base)
    for key, value in over.items():
        path = f"{at}.{key}" if at else key
        old = out.get(key)
        if key in KEYED_LISTS and not at and isinstance(old, list) and isinstance(value, list):
            out[key] = merge_keyed(old, value, KEYED_LISTS[key], path)
        elif isinstance(old, Mapping) and isinstance(value, Mapping):
            if key == "DataSource" and not set(old) & set(value):
                out[key] = value  # another kind of source
            else:
                out[key] = _merge(old, value, path)
        else:
            out[key] = value
    return out


def merge_keyed(base: list[Any], over: list[Any], member: str, path: str = "") -> list[Any]:
    """Items of ``over`` merged into the item of ``base`` with the same ``member`` value, or appended."""
    out = list(base)
    where = {item.get(member): index for index, item in enumerate(out) if isinstance(item, Mapping)}
    for item in over:
        name = item.get(member) if isinstance(item, Mapping) else None
        index = where.get(name) if name is not None else None
        if index is None:
            where[name] = len(out)
            out.append(item)
        else:
            out[index] = _merge(out[index], item, path)
    return out


def without(value: Mapping[str, Any], path: tuple[str, ...]) -> dict[str, Any]:
    """``value`` without the member at ``path``; a mapping left empty goes too."""
    out = dict(value)
    head, rest = path[0], path[1:]
    if head not in out:
        return out
    if not rest:
        del out[head]
    elif isinstance(out[head], Mapping):
        inner = without(out[head], rest)
        if inner:
            out[head] = inner
        else:
            del out[head]
    return out
