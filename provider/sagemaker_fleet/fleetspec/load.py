"""Read a fleet spec from YAML, check every rule (docs/guides/fleet-spec.md) and resolve defaults into :class:`FleetSpec`.

All problems are collected and raised together as :class:`FleetSpecError`, each naming its field path, the YAML
line where PyYAML knows it, and the fix. Nothing here touches the network. ``model``: where botocore's SageMaker
model comes from (:class:`~sagemaker_fleet.fleetspec.request_model.ModelSource`), to check ``job:`` templates
against it; the command line and the DAG factory pass one, and without it a template is checked for everything
but the model's own rules (botocore checks those again when the job is created).

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
    from sagemaker_fleet.fleetspec.request_model import ModelSource

__all__ = ["build_fleet_spec", "load_fleet_spec", "parse_fleet_spec"]


def load_fleet_spec(path: str | Path, model: ModelSource | None = None) -> FleetSpec:
    """Load and validate the fleet file at ``path``; raises :class:`FleetSpecError` listing every problem."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise FleetSpecError([SpecIssue("", f"cannot read the file: {exc.strerror}")], str(path)) from exc
    except UnicodeDecodeError as exc:
        issue = SpecIssue("", f"the file is not UTF-8 text ({exc.reason}); save it as UTF-8")
        raise FleetSpecError([issue], str(path)) from exc
    return parse_fleet_spec(text, source=str(path), model=model)


def parse_fleet_spec(text: str, source: str = "<spec>", model: ModelSource | None = None) -> FleetSpec:
    """Parse YAML text into a validated :class:`FleetSpec`."""
    data, lines, duplicates = read_yaml(text, source)
    return _build(data, source, lines, duplicates, model)


def build_fleet_spec(
    data: object,
    source: str = "<spec>",
    lines: Mapping[str, int] | None = None,
    model: ModelSource | None = None,
) -> FleetSpec:
    """Validate an already-parsed document (a mapping) and resolve it."""
    return _build(data, source, lines or {}, [], model)


def _build(
    data: object,
    source: str,
    lines: Mapping[str, int],
    issues: list[SpecIssue],
    model: ModelSource | None,
) -> FleetSpec:
    builder = SpecBuilder(lines, model)
    builder.extend(issues)
    spec = builder.build(data)
    if builder.issues or spec is None:
        raise FleetSpecError(builder.issues, source, builder.city_names)
    return spec
