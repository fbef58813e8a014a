"""One ``job:`` layer checked against CreateTrainingJob's shape: each problem with its field path and the fix.

Unknown keys (with a did-you-mean, or the boto3 release that knows them), owned fields, wrong types, lengths,
patterns, ranges and enums, malformed placeholders, a channel name or tag key written twice. A string with a
placeholder is checked per city once rendered (:class:`Deferred`); required members are checked on the merged
request (:func:`missing_members`). Without a model (``None``) only the checks that need none are made.
"""

from __future__ import annotations

import difflib
import functools
import re
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from sagemaker_fleet.fleetspec.job_fields import OWNED_TAG, OwnedField, owned
from sagemaker_fleet.fleetspec.job_merge import KEYED_LISTS
from sagemaker_fleet.fleetspec.limits import shown
from sagemaker_fleet.fleetspec.names import TAG_PREFIX
from sagemaker_fleet.fleetspec.paths import join
from sagemaker_fleet.fleetspec.placeholders import PlaceholderError, names_in

if TYPE_CHECKING:
    from sagemaker_fleet.fleetspec.request_model import FieldShape, RequestModel

#: Reports one problem: (field path, message).
Report = Callable[[str, str], None]

_KIND_FIXES = {
    "structure": "write a mapping of AWS's field names",
    "map": "write a mapping of `key: value` pairs",
    "list": "write a list: `[a, b]` or one `- item` per line",
    "string": "write text (quote it if YAML would read it as a number, boolean, date or null)",
    "integer": "write a whole number without quotes",
    "long": "write a whole number without quotes",
    "float": "write a number without quotes",
    "double": "write a number without quotes",
    "boolean": "write true or false without quotes",
}
#: Java's Unicode classes in the model's patterns, as Python's ``re`` writes them.
_JAVA_CLASSES = {r"\p{L}": "a-zA-Z\u00c0-\uffff", r"\p{Z}": " \u00a0\u2000-\u200b", r"\p{N}": "0-9"}


@dataclass(frozen=True)
class Deferred:
    """A string with placeholders, checked for each city once rendered."""

    path: str
    shape: FieldShape
    text: str


@functools.cache
def _pattern(pattern: str) -> re.Pattern[str] | None:
    for java, python in _JAVA_CLASSES.items():
        pattern = pattern.replace(java, python)
    try:
        return re.compile(pattern)
    except re.error:
        return None  # a Java-only construct: botocore does not check it either


class LayerCheck:
    """Checks one layer's value; ``clean`` is what is left once every refused value is dropped.

    ``what`` names the shape checked in messages (CreateTrainingJob, or CreateModelPackage's InferenceSpecification
    with ``root`` that shape and ``owned_at`` the fields the provider fills in it)."""

    def __init__(
        self,
        model: RequestModel | None,
        report: Report,
        *,
        what: str = "CreateTrainingJob",
        root: FieldShape | None = None,
        owned_at: Callable[[str], OwnedField | None] = owned,
    ) -> None:
        self.model = model
        self.report = report
        self.deferred: list[Deferred] = []
        self.what = what
        self.root = root if root is not None else (model.request if model is not None else None)
        self.owned_at = owned_at

    def check(self, value: Mapping[str, Any], at: str) -> dict[str, Any]:
        return self._structure(value, self.root, at, "")

    def _where(self, generic: str) -> str:
        return f"{self.what}'s {generic}" if generic else self.what

    # -- containers ----------------------------------------------------------------------------------------

    def _walk(self, value: Any, shape: FieldShape | None, path: str, generic: str) -> tuple[bool, Any]:
        """(kept, the value as kept)."""
        if isinstance(value, Mapping) and (shape is None or shape.kind == "structure"):
            return True, self._structure(value, shape, path, generic)
        if isinstance(value, list) and (shape is None or shape.kind == "list"):
            return True, self._list(value, shape, path, generic)
        if shape is None:
            return self._plain(value, path), value
        if shape.kind == "map" and isinstance(value, Mapping):
            return True, self._map(value, shape, path, generic)
        return self._scalar(value, shape, path), value

    def _structure(
        self, value: Mapping[str, Any], shape: FieldShape | None, path: str, generic: str
    ) -> dict[str, Any]:
        kept: dict[str, Any] = {}
        for key, item in value.items():
            member_path, member_generic = join(path, str(key)), f"{generic}.{key}" if generic else str(key)
            field = self.owned_at(member_generic)
            if field is not None:
                self.report(
                    member_path, f"`{member_generic}` is the provider's: {field.why}; set {field.use} instead"
                )
                continue
            member = None
            if shape is not None:
                member = shape.members.get(key)
                if member is None:
                    self.report(member_path, self._unknown(str(key), shape, member_generic, generic))
                    continue
            if item is None:
                self.report(member_path, f"no value; write one or leave `{key}` out ({_fix(member)})")
                continue
            ok, clean = self._walk(item, member, member_path, member_generic)
            if ok:
                kept[key] = clean
        return kept

    def _list(self, value: list[Any], shape: FieldShape | None, path: str, generic: str) -> list[Any]:
        if shape is not None:
            self._size(len(value), shape, path, "items")
        kept = []
        for index, item in enumerate(value):
            ok, clean = self._walk(item, shape.item if shape else None, f"{path}[{index}]", generic)
            if ok:
                kept.append(clean)
        if generic in KEYED_LISTS:
            kept = self._unique(kept, KEYED_LISTS[generic], path)
        if generic == "Tags":
            kept = self._user_tags(kept, path)
        return kept

    def _unique(self, items: list[Any], member: str, path: str) -> list[Any]:
        seen: dict[object, int] = {}
        kept = []
        for index, item in enumerate(items):
            name = item.get(member) if isinstance(item, Mapping) else None
            if name is not None and name in seen:
                noun = "channel" if member == "ChannelName" else "tag key"
                self.report(
                    f"{path}[{index}].{member}",
                    f"{noun} {name!r} is written twice in this list (first at {path}[{seen[name]}]); "
                    f"each {member} appears once: merge the two entries",
                )
                continue
            if name is not None:
                seen[name] = index
            kept.append(item)
        return kept

    def _user_tags(self, tags: list[Any], path: str) -> list[Any]:
        kept = []
        for index, tag in enumerate(tags):
            key = tag.get("Key") if isinstance(tag, Mapping) else None
            if isinstance(key, str) and key.startswith(TAG_PREFIX):
                self.report(f"{path}[{index}].Key", f"tag {key!r}: {OWNED_TAG.why}; use {OWNED_TAG.use}")
                continue
            kept.append(tag)
        return kept

    def _map(self, value: Mapping[str, Any], shape: FieldShape, path: str, generic: str) -> dict[str, Any]:
        self._size(len(value), shape, path, "entries")
        kept = {}
        for key, item in value.items():
            item_path = join(path, str(key))
            if shape.key is not None and not self._scalar(key, shape.key, item_path, what="key"):
                continue
            ok, clean = self._walk(item, shape.item, item_path, generic)
            if ok:
                kept[key] = clean
        return kept

    # -- scalars -------------------------------------------------------------------------------------------

    def _plain(self, value: Any, path: str) -> bool:
        """Without a model: placeholders are all that can be checked."""
        if isinstance(value, str):
            try:
                names_in(value)
            except PlaceholderError as exc:
                self.report(path, str(exc))
                return False
        return True

    def _scalar(self, value: Any, shape: FieldShape, path: str, what: str = "value") -> bool:
        kind = shape.kind
        if not _is_kind(value, kind):
            got = type(value).__name__ if not isinstance(value, Mapping | list) else "a mapping or list"
            self.report(path, f"{kind} expected for this {what} (got {got}: {_short(value)}); {_fix(shape)}")
            return False
        if kind == "string" and isinstance(value, str):
            try:
                if names_in(value):
                    self.deferred.append(Deferred(path, shape, value))
                    return True
            except PlaceholderError as exc:
                self.report(path, str(exc))
                return False
        problems = list(value_problems(value, shape))
        for problem in problems:
            self.report(path, problem)
        return not problems

    def _size(self, size: int, shape: FieldShape, path: str, noun: str) -> None:
        if shape.low is not None and size < shape.low:
            self.report(path, f"{size} {noun}; SageMaker needs at least {shape.low:g}: add some")
        if shape.high is not None and size > shape.high:
            self.report(path, f"{size} {noun}; SageMaker accepts at most {shape.high:g}: remove some")

    def _unknown(self, key: str, shape: FieldShape, generic: str, parent: str) -> str:
        if self.model is not None:
            release = self.model.since(generic)
            if release is not None:
                return (
                    f"`{generic}` needs boto3 ≥ {release} (installed {self.model.version}); upgrade boto3 and "
                    "botocore beside the provider, or remove it"
                )
        close = difflib.get_close_matches(key, list(shape.members), n=1, cutoff=0.6)
        hint = (
            f"did you mean `{close[0]}`?"
            if close
            else f"{self._where(parent)} has {', '.join(sorted(shape.members))}"
        )
        return f"unknown field `{key}` in {self._where(parent)}; {hint}"


def value_problems(value: Any, shape: FieldShape) -> Iterator[str]:
    """What SageMaker's model refuses in a scalar of the right kind: length, pattern, range, enum."""
    if isinstance(value, str):
        if shape.enum and shape.name != "TrainingInstanceType" and value not in shape.enum:
            close = difflib.get_close_matches(value, shape.enum, n=1)
            hint = f"did you mean {close[0]!r}?" if close else f"use one of {', '.join(shape.enum)}"
            yield f"{value!r} is not one of SageMaker's values; {hint}"
            return
        if shape.low is not None and len(value) < shape.low:
            yield f"{len(value)} characters; SageMaker needs at least {shape.low:g}"
        if shape.high is not None and len(value) > shape.high:
            yield f"{len(value)} characters; SageMaker accepts at most {shape.high:g}: shorten it"
        compiled = _pattern(shape.pattern) if shape.pattern else None
        if compiled is not None and not compiled.fullmatch(value):
            yield f"{_short(value)} does not match SageMaker's pattern {shape.pattern}; correct it"
    elif isinstance(value, int | float) and not isinstance(value, bool):
        if shape.low is not None and value < shape.low:
            yield f"{value} is below SageMaker's minimum {shape.low:g}; use at least {shape.low:g}"
        if shape.high is not None and value > shape.high:
            yield f"{value} is above SageMaker's maximum {shape.high:g}; use at most {shape.high:g}"


def missing_members(
    value: Any, shape: FieldShape, path: tuple[Any, ...] = ()
) -> Iterator[tuple[tuple[Any, ...], str]]:
    """Required members missing anywhere in ``value`` (a merged request): (where, the member's name).
    ``where`` names list items by their ChannelName or Key where they have one, else by index."""
    if shape.kind == "structure" and isinstance(value, Mapping):
        for name in sorted(shape.required):
            if value.get(name) is None:
                yield path, name
        for name, item in value.items():
            member = shape.members.get(name)
            if member is not None:
                yield from missing_members(item, member, (*path, name))
    elif shape.kind == "list" and isinstance(value, list) and shape.item is not None:
        for index, item in enumerate(value):
            label = _item_label(item, index)
            yield from missing_members(item, shape.item, (*path, label))


def _item_label(item: Any, index: int) -> Any:
    if isinstance(item, Mapping):
        for member in ("ChannelName", "Key", "Name"):
            if isinstance(item.get(member), str):
                return (member, item[member])
    return index


def _is_kind(value: Any, kind: str) -> bool:
    if kind in ("string", "blob"):
        return isinstance(value, str)
    if kind in ("integer", "long"):
        return isinstance(value, int) and not isinstance(value, bool)
    if kind in ("float", "double"):
        return isinstance(value, int | float) and not isinstance(value, bool)
    if kind == "boolean":
        return isinstance(value, bool)
    if kind == "timestamp":
        return isinstance(value, str | int | float) and not isinstance(value, bool)
    if kind == "structure" or kind == "map":
        return isinstance(value, Mapping)
    if kind == "list":
        return isinstance(value, list)
    return True


def _fix(shape: FieldShape | None) -> str:
    if shape is None:
        return "write a value"
    if shape.enum and shape.name != "TrainingInstanceType":
        return f"use one of {', '.join(shape.enum)}"
    return _KIND_FIXES.get(shape.kind, "write a value of that kind")


def _short(value: Any) -> str:
    """``value`` quoted in a message, in at most 60 characters: never the whole ``repr`` of a large value."""
    if isinstance(value, str):
        text = repr(value[:61])
    else:
        text = repr(value) if isinstance(value, int | float | bool) else shown(value, 60)
    return text if len(text) <= 60 else f"{text[:57]}..."
