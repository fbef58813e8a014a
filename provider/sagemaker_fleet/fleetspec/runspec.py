"""This run's spec: the fleet file as read, with the run's params (the trigger form) applied, and whether it is a dry run.

One loader for every task of a run — the plan, the city triggers, the report, the release, the Fleet view — so
each sees the same fleet: :func:`load_run_spec`. The params are applied lazily (:attr:`RunSpec.spec`): a dry run
or an unknown city is decided before the overrides are checked, as the city trigger and the plan task do.

Nothing here imports PyYAML or pydantic until a file is read: a city's task process imports the operator modules
and stays light.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from sagemaker_fleet.fleetspec.model import FleetSpec
    from sagemaker_fleet.fleetspec.overrides import FleetOverrides

__all__ = ["RunSpec", "dry_run_of", "load_run_spec"]

#: The fleet files read with ``cached=True``: path -> (modification time, spec), one entry per file.
_SPECS: dict[str, tuple[float, FleetSpec]] = {}


@dataclass(frozen=True)
class RunSpec:
    """``fleet``: the fleet file as read. ``overrides``: the run's params that change the fleet (cities, spot,
    instance type; empty unless the task applies params). ``dry_run``: the run launches nothing."""

    fleet: FleetSpec
    overrides: FleetOverrides = field(default_factory=lambda: _overrides(None))
    dry_run: bool = False

    @cached_property
    def spec(self) -> FleetSpec:
        """The fleet as this run trains it; raises ``FleetSpecError`` (source ``trigger params``) for an unknown
        city or an instance type without quota (:func:`~sagemaker_fleet.fleetspec.overrides.apply_overrides`)."""
        from sagemaker_fleet.fleetspec.overrides import apply_overrides

        return apply_overrides(self.fleet, self.overrides)


def dry_run_of(params: Mapping[str, Any] | None, use_params: bool = True) -> bool:
    """Whether the run's params ask for a dry run (only where the task applies the params)."""
    return use_params and bool((params or {}).get("dry_run"))


def load_run_spec(
    path: str | Path,
    params: Mapping[str, Any] | None = None,
    *,
    use_params: bool = True,
    cached: bool = False,
) -> RunSpec:
    """The run's spec from the fleet file at ``path`` and the run's ``params`` (applied when ``use_params``).

    ``cached``: read the file once per modification time in this process (a triggerer's hundreds of cities share
    it); a file that is gone raises ``OSError``. Otherwise, and for any error in the file, ``FleetSpecError``.
    """
    fleet = _read(path) if cached else _load(path)
    overrides = _overrides(params if use_params else None)
    return RunSpec(fleet, overrides, dry_run_of(params, use_params))


def _load(path: str | Path) -> FleetSpec:
    from sagemaker_fleet.fleetspec.load import load_fleet_spec

    return load_fleet_spec(path)


def _read(path: str | Path) -> FleetSpec:
    key = os.fspath(path)
    mtime = os.path.getmtime(key)
    cached = _SPECS.get(key)
    if cached is None or cached[0] != mtime:
        _SPECS[key] = cached = (mtime, _load(key))
    return cached[1]


def _overrides(params: Mapping[str, Any] | None) -> FleetOverrides:
    from sagemaker_fleet.fleetspec.overrides import FleetOverrides

    return FleetOverrides() if params is None else FleetOverrides.from_params(params)
