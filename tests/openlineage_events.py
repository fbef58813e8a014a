"""OpenLineage events as the tests capture them (the client's file transport), checked against OpenLineage's JSON
schemas (``tests/data/openlineage``) and sagemaker-fleet's own facet schemas (shipped in the package)."""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from importlib import resources
from pathlib import Path
from typing import Any

import jsonschema
from referencing import Registry, Resource

SPEC_DIR = Path(__file__).resolve().parent / "data" / "openlineage"
EVENT_SCHEMA = "https://openlineage.io/spec/2-0-2/OpenLineage.json"


def _schemas() -> Iterator[dict[str, Any]]:
    for path in sorted(SPEC_DIR.glob("*.json")):
        yield json.loads(path.read_text(encoding="utf-8"))
    ours = resources.files("sagemaker_fleet").joinpath("data/openlineage")
    for entry in ours.iterdir():
        if entry.name.endswith(".json"):
            yield json.loads(entry.read_text(encoding="utf-8"))


def registry() -> Registry:
    return Registry().with_resources((s["$id"], Resource.from_contents(s)) for s in _schemas())


def read_events(path: Path) -> list[dict[str, Any]]:
    """Every event the file transport appended (one JSON document a line)."""
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def _facets(event: dict[str, Any]) -> Iterable[tuple[str, dict[str, Any]]]:
    yield from (event.get("run") or {}).get("facets", {}).items()
    yield from (event.get("job") or {}).get("facets", {}).items()
    for dataset in [*(event.get("inputs") or []), *(event.get("outputs") or [])]:
        for key in ("facets", "inputFacets", "outputFacets"):
            yield from (dataset.get(key) or {}).items()


def validate(event: dict[str, Any], reg: Registry, *, every_facet: bool = True) -> list[str]:
    """Check ``event`` against the RunEvent schema and each facet against the schema its ``_schemaURL`` names;
    the names of facets without a known schema (an error when ``every_facet``)."""
    validator = jsonschema.Draft202012Validator(
        {"$ref": f"{EVENT_SCHEMA}#/$defs/RunEvent"}, registry=reg, format_checker=jsonschema.FormatChecker()
    )
    validator.validate(event)
    unknown = []
    for name, facet in _facets(event):
        url = str(facet.get("_schemaURL", ""))
        base, _, pointer = url.partition("#")
        try:
            reg.get_or_retrieve(base)
        except Exception:  # noqa: BLE001 - a facet whose schema the tests do not carry
            unknown.append(name)
            continue
        facet_validator = jsonschema.Draft202012Validator(
            {"$ref": url}, registry=reg, format_checker=jsonschema.FormatChecker()
        )
        facet_validator.validate(facet)
        assert pointer, f"facet {name}: _schemaURL {url} names no definition"
    if every_facet and unknown:
        raise AssertionError(f"facets without a schema to check them against: {unknown}")
    return unknown


def _clear_openlineage_caches() -> None:
    """The provider reads its settings once per process (``functools.cache``); so does our adapter."""
    from airflow.providers.openlineage import conf

    from sagemaker_fleet.observability import lineage

    for value in vars(conf).values():
        if callable(getattr(value, "cache_clear", None)):
            value.cache_clear()
    lineage._adapter.cache_clear()


@contextmanager
def openlineage_to_file(
    monkeypatch: Any, path: Path, namespace: str = "sagemaker-fleet-tests"
) -> Iterator[Path]:
    """Airflow's OpenLineage provider set to append every event to ``path`` (the client's file transport), as
    ``[openlineage] transport`` would set it in every Airflow component."""
    transport = {"type": "file", "log_file_path": str(path), "append": True}
    monkeypatch.setenv("AIRFLOW__OPENLINEAGE__TRANSPORT", json.dumps(transport))
    monkeypatch.setenv("AIRFLOW__OPENLINEAGE__NAMESPACE", namespace)
    _clear_openlineage_caches()
    try:
        yield path
    finally:
        monkeypatch.delenv("AIRFLOW__OPENLINEAGE__TRANSPORT")
        monkeypatch.delenv("AIRFLOW__OPENLINEAGE__NAMESPACE")
        _clear_openlineage_caches()
