"""Read a fleet spec from YAML, check every rule (docs/reference.md#fleet-spec) and resolve defaults into :class:`FleetSpec`.

All problems are collected and raised together as :class:`FleetSpecError`, each naming its field path, the YAML
line where PyYAML knows it, and the fix. Nothing here touches the network.

The work is done by the modules beside this one: :mod:`~sagemaker_fleet.fleetspec.yamlread` (the document, the
line of every field path, duplicate keys), :mod:`~sagemaker_fleet.fleetspec.build` (the checks and the resolved
spec) with :mod:`~sagemaker_fleet.fleetspec.formats`, :mod:`~sagemaker_fleet.fleetspec.messages`,
:mod:`~sagemaker_fleet.fleetspec.repair`, :mod:`~sagemaker_fleet.fleetspec.resolve` and
:mod:`~sagemaker_fleet.fleetspec.triggerer`; import their names from there.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from sagemaker_fleet.fleetspec.build import SpecBuilder
from sagemaker_fleet.fleetspec.errors import FleetSpecError
from sagemaker_fleet.fleetspec.issue import SpecIssue
from sagemaker_fleet.fleetspec.yamlread import read_yaml

if TYPE_CHECKING:
    from sagemaker_fleet.fleetspec.model import FleetSpec

__all__ = ["build_fleet_spec", "load_fleet_spec", "parse_fleet_spec"]


def load_fleet_spec(path: str | Path) -> FleetSpec:
    """Load and validate the fleet file at ``path``; raises :class:`FleetSpecError` listing every problem."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise FleetSpecError([SpecIssue("", f"cannot read the file: {exc.strerror}")], str(path)) from exc
    except UnicodeDecodeError as exc:
        issue = SpecIssue("", f"the file is not UTF-8 text ({exc.reason}); save it as UTF-8")
        raise FleetSpecError([issue], str(path)) from exc
    return parse_fleet_spec(text, source=str(path))


def parse_fleet_spec(text: str, source: str = "<spec>") -> FleetSpec:
    """Parse YAML text into a validated :class:`FleetSpec`."""
    data, lines, duplicates = read_yaml(text, source)
    return _build(data, source, lines, duplicates)


def build_fleet_spec(
    data: object, source: str = "<spec>", lines: Mapping[str, int] | None = None
) -> FleetSpec:
    """Validate an already-parsed document (a mapping) and resolve it."""
    return _build(data, source, lines or {}, [])


def _build(data: object, source: str, lines: Mapping[str, int], issues: list[SpecIssue]) -> FleetSpec:
    builder = SpecBuilder(lines)
    builder.extend(issues)
    spec = builder.build(data)
    if builder.issues or spec is None:
        raise FleetSpecError(builder.issues, source, builder.city_names)
    return spec
