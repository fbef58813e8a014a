"""A run's conf: the contract every fleet DAG keeps with whoever triggers it (the form, ``airflow dags trigger -c``,
``airflow dags test -c``, the REST API).

A fleet DAG takes exactly :data:`CONF_KEYS`, with or without the trigger form: ``cities`` (a list, or names
separated by commas), ``spot``, ``instance_type`` and ``dry_run``. Anything else is refused before anything is
planned or launched, naming the key: an unknown key (``citys``, ``role_arn``, ``image_uri``), a value of the wrong
kind (``"dry_run": "yes"``), a blank or repeated city, more cities than the fleet could have, a conf larger than
:data:`~sagemaker_fleet.fleetspec.limits.CONF_BYTES_MAX`. What the fleet itself decides (whether a city is one of
its own, whether an instance type has a quota) is :func:`~sagemaker_fleet.fleetspec.overrides.apply_overrides`'s.

Pure and light (standard library, no YAML, no pydantic): a city's task process parses the conf before it defers, to
carry only the known keys to its trigger (:meth:`RunConf.to_json`).
"""

from __future__ import annotations

import difflib
import json
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from sagemaker_fleet.fleetspec.errors import RunConfError
from sagemaker_fleet.fleetspec.issue import SpecIssue
from sagemaker_fleet.fleetspec.limits import CITIES_MAX, CITY_NAME_MAX, CONF_BYTES_MAX, shown
from sagemaker_fleet.fleetspec.overrides import FleetOverrides
from sagemaker_fleet.fleetspec.render import some_names

__all__ = ["CONF_KEYS", "RunConf", "parse_run_conf"]

#: The keys a fleet DAG's conf may have, and the trigger form's params (:mod:`sagemaker_fleet.dags.form`).
CONF_KEYS = ("cities", "spot", "instance_type", "dry_run")
#: Unknown keys or cities named in a refusal before "and N more".
_NAMED = 5
_CITIES = "params.cities"


@dataclass(frozen=True)
class RunConf:
    """A run's conf as read: the overrides of the fleet (cities, spot, instance type) and whether it is a dry run."""

    overrides: FleetOverrides = field(default_factory=FleetOverrides)
    dry_run: bool = False

    @property
    def empty(self) -> bool:
        """The conf asks nothing of the run: it trains the fleet as its file says."""
        return self.overrides.empty and not self.dry_run

    def to_json(self) -> dict[str, Any]:
        """The conf's keys that differ from their defaults, as JSON values: all a trigger needs, and what
        :func:`parse_run_conf` reads back the same."""
        out: dict[str, Any] = {}
        if self.overrides.cities:
            out["cities"] = list(self.overrides.cities)
        if not self.overrides.spot:
            out["spot"] = False
        if self.overrides.instance_type is not None:
            out["instance_type"] = self.overrides.instance_type
        if self.dry_run:
            out["dry_run"] = True
        return out


def parse_run_conf(conf: Mapping[str, Any] | None) -> RunConf:
    """The run's conf read by the fleet DAG's contract (see the module docstring); :class:`RunConfError` naming
    every key that breaks it. ``None`` and ``{}`` ask nothing."""
    if not conf:
        return RunConf()
    if not isinstance(conf, Mapping):
        raise RunConfError(
            [SpecIssue("params", f"the conf is {shown(conf)}; give a JSON object of {_keys()}")]
        )
    size = _json_size(conf)
    if size > CONF_BYTES_MAX:
        raise RunConfError(
            [
                SpecIssue(
                    "params",
                    f"the conf has {size:,} bytes of JSON; a fleet DAG takes at most {CONF_BYTES_MAX:,} "
                    "(CONF_BYTES_MAX): name fewer cities, or leave `cities` out to train the whole fleet",
                )
            ]
        )
    issues = _unknown_keys(conf)
    cities = _cities(conf.get("cities"), issues)
    spot = _switch(conf, "spot", True, issues)
    dry_run = _switch(conf, "dry_run", False, issues)
    instance_type = _instance_type(conf.get("instance_type"), issues)
    if issues:
        raise RunConfError(issues)
    return RunConf(FleetOverrides(cities=cities, spot=spot, instance_type=instance_type), dry_run)


def _keys() -> str:
    return ", ".join(f"`{key}`" for key in CONF_KEYS)


def _json_size(conf: Mapping[str, Any]) -> int:
    try:
        return len(json.dumps(conf, default=str).encode("utf-8", "surrogatepass"))
    except (TypeError, ValueError):  # not JSON (a test's or a REST client's oddity): measure its text
        return len(str(conf))


def _unknown_keys(conf: Mapping[str, Any]) -> list[SpecIssue]:
    unknown = [key for key in conf if key not in CONF_KEYS]
    issues = []
    for key in unknown[:_NAMED]:
        close = difflib.get_close_matches(str(key)[:40], CONF_KEYS, n=1, cutoff=0.6)
        hint = f"did you mean `{close[0]}`?" if close else f"a fleet DAG's conf takes {_keys()} only"
        issues.append(SpecIssue(_key_path(key), f"unknown key; {hint}"))
    if len(unknown) > _NAMED:
        issues.append(
            SpecIssue(
                "params", f"{len(unknown) - _NAMED:,} more unknown keys; a fleet DAG's conf takes {_keys()}"
            )
        )
    return issues


def _key_path(key: Any) -> str:
    """``params.citys``; a key that is long or not plain text quoted and cut (``params['…' (4,000 characters)]``)."""
    if isinstance(key, str) and len(key) <= 40 and key.isprintable() and "." not in key:
        return f"params.{key}"
    return f"params[{shown(key, 40)}]"


def _cities(value: Any, issues: list[SpecIssue]) -> tuple[str, ...]:
    """The cities asked for: ``None``, ``[]`` and ``""`` mean the whole fleet; a text is names separated by commas,
    each stripped of spaces. More than :data:`CITIES_MAX` names, a blank name, a name too long to be a city's or a
    repeated name is refused."""
    names = _names(value, issues)
    if not names:
        return ()
    found = _name_issues(names)
    issues += found
    return () if found else tuple(names)


def _names(value: Any, issues: list[SpecIssue]) -> list[Any]:
    if value is None or value == "" or value == []:
        return []
    if isinstance(value, str):
        names: list[Any] = [part.strip() for part in value.split(",", CITIES_MAX)]
    elif isinstance(value, list | tuple):
        names = list(value)
    else:
        issues.append(
            SpecIssue(
                _CITIES,
                f'{shown(value)} is not a list of names; give a list, or names separated by commas ("lima,oslo")',
            )
        )
        return []
    if len(names) > CITIES_MAX:
        issues.append(
            SpecIssue(
                _CITIES,
                f"more than {CITIES_MAX:,} cities (CITIES_MAX); name fewer, or leave `cities` out to train the "
                "whole fleet",
            )
        )
        return []
    return names


def _name_issues(names: list[Any]) -> list[SpecIssue]:
    """Every kind of bad name in ``names``, each said once (its first case quoted)."""
    issues = []
    blank = [i for i, name in enumerate(names) if isinstance(name, str) and not name.strip()]
    if blank:
        issues.append(
            SpecIssue(
                _CITIES,
                f"a blank name (item {blank[0] + 1} of {len(names)}); name each city, or leave `cities` out to "
                "train the whole fleet",
            )
        )
    wrong = [name for name in names if not isinstance(name, str)]
    if wrong:
        issues.append(SpecIssue(_CITIES, f"{shown(wrong[0])} is not a name; each city is a name (text)"))
    long = [name for name in names if isinstance(name, str) and len(name) > CITY_NAME_MAX]
    if long:
        issues.append(
            SpecIssue(
                _CITIES, f"{shown(long[0])} is longer than a city's name may be ({CITY_NAME_MAX} characters)"
            )
        )
    counts = Counter(name for name in names if isinstance(name, str))
    repeated = [shown(name) for name, count in counts.items() if count > 1]
    if repeated:
        issues.append(
            SpecIssue(_CITIES, f"named more than once: {some_names(repeated, _NAMED)}; name each city once")
        )
    return issues


def _switch(conf: Mapping[str, Any], key: str, default: bool, issues: list[SpecIssue]) -> bool:
    if key not in conf:
        return default
    value = conf[key]
    if not isinstance(value, bool):
        issues.append(SpecIssue(f"params.{key}", f"{shown(value)} is not true or false; give true or false"))
        return default
    return value


def _instance_type(value: Any, issues: list[SpecIssue]) -> str | None:
    """``None`` or ``""``: each city's own type; otherwise a text (whether it is a training instance type with a
    quota in the fleet is :func:`~sagemaker_fleet.fleetspec.overrides.apply_overrides`'s to say)."""
    if value is None or value == "":
        return None
    if not isinstance(value, str):
        issues.append(
            SpecIssue(
                "params.instance_type",
                f"{shown(value)} is not an instance type; give one such as ml.m5.xlarge, or null for each "
                "city's own",
            )
        )
        return None
    return value
