"""This run's spec: the fleet file as read, with the run's conf (the trigger form's values) applied, and whether it
is a dry run.

One loader for every task of a run — the plan, the city triggers, the report, the release, the Fleet view — so
each sees the same fleet: :func:`load_run_spec`. The conf is read first, whatever the fleet: a conf that breaks a
fleet DAG's contract (:mod:`~sagemaker_fleet.fleetspec.runconf`) raises before the file is read. What the fleet
decides (a city it does not have, an instance type without quota) is applied lazily (:attr:`RunSpec.spec`), after a
dry run is known, as the city trigger and the plan task do.

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
    from sagemaker_fleet.fleetspec.runconf import RunConf

__all__ = ["RunSpec", "load_run_spec"]

#: The fleet files read with ``cached=True``: path -> (modification time, spec), one entry per file.
_SPECS: dict[str, tuple[float, FleetSpec]] = {}


@dataclass(frozen=True)
class RunSpec:
    """``fleet``: the fleet file as read. ``conf``: the run's conf as read (empty unless the task reads it)."""

    fleet: FleetSpec
    conf: RunConf = field(default_factory=lambda: _conf(None))

    @property
    def overrides(self) -> FleetOverrides:
        """What the conf changes of the fleet: cities, spot, instance type."""
        return self.conf.overrides

    @property
    def dry_run(self) -> bool:
        """The run launches nothing."""
        return self.conf.dry_run

    @cached_property
    def spec(self) -> FleetSpec:
        """The fleet as this run trains it; raises ``RunConfError`` (a ``FleetSpecError``) for a city the fleet does
        not have or an instance type without quota
        (:func:`~sagemaker_fleet.fleetspec.overrides.apply_overrides`)."""
        from sagemaker_fleet.fleetspec.overrides import apply_overrides

        return apply_overrides(self.fleet, self.overrides)


def load_run_spec(
    path: str | Path,
    params: Mapping[str, Any] | None = None,
    *,
    use_params: bool = True,
    cached: bool = False,
) -> RunSpec:
    """The run's spec from the fleet file at ``path`` and the run's conf ``params`` (read when ``use_params``).

    A conf that breaks a fleet DAG's contract raises ``RunConfError`` (a ``FleetSpecError``) before the file is
    read. ``cached``: read the file once per modification time in this process (a triggerer's hundreds of cities
    share it); a file that is gone raises ``OSError``. Otherwise, and for any error in the file,
    ``FleetSpecError``.
    """
    conf = _conf(params if use_params else None)
    fleet = _read(path) if cached else _load(path)
    return RunSpec(fleet, conf)


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


def _conf(params: Mapping[str, Any] | None) -> RunConf:
    from sagemaker_fleet.fleetspec.runconf import parse_run_conf

    return parse_run_conf(params)
