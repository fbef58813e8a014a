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
from sagemaker_fleet.fleetspec.limits import SPEC_BYTES_MAX
from sagemaker_fleet.fleetspec.yamlread import read_yaml, too_large

if TYPE_CHECKING:
    from sagemaker_fleet.fleetspec.model import FleetSpec
    from sagemaker_fleet.fleetspec.request_model import ModelSource

__all__ = ["build_fleet_spec", "load_fleet_spec", "parse_fleet_spec", "read_spec_bytes"]


def load_fleet_spec(path: str | Path, model: ModelSource | None = None) -> FleetSpec:
    """Load and validate the fleet file at ``path``; raises :class:`FleetSpecError` listing every problem."""
    data = read_spec_bytes(path)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        issue = SpecIssue("", f"the file is not UTF-8 text ({exc.reason}); save it as UTF-8")
        raise FleetSpecError([issue], str(path)) from exc
    return parse_fleet_spec(text, source=str(path), model=model)


def read_spec_bytes(path: str | Path) -> bytes:
    """The fleet file's bytes, at most :data:`~sagemaker_fleet.fleetspec.limits.SPEC_BYTES_MAX` of them read (a
    larger file, or a device that never ends, is refused without reading the rest); :class:`FleetSpecError` when
    it cannot be read or is larger."""
    try:
        with Path(path).open("rb") as file:
            data = file.read(SPEC_BYTES_MAX + 1)
    except OSError as exc:
        raise FleetSpecError([SpecIssue("", f"cannot read the file: {exc.strerror}")], str(path)) from exc
    if len(data) > SPEC_BYTES_MAX:
        size = _size(path)
        raise FleetSpecError([too_large(size if size > SPEC_BYTES_MAX else len(data))], str(path))
    return data


def _size(path: str | Path) -> int:
    try:
        return Path(path).stat().st_size
    except OSError:
        return 0


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
