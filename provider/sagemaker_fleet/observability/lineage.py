"""OpenLineage through Airflow's OpenLineage provider, when it is installed and enabled; nothing otherwise.

A task that ends on a worker is reported by the provider's listener, which asks the operator for
``get_openlineage_facets_on_complete`` (:func:`operator_lineage` builds the answer). A city task ended from the
triggerer is not: Airflow 3.3 applies a trigger's ``TaskSuccessEvent`` / ``TaskFailedEvent`` in the triggerer
(``models/trigger.py``) and calls no listener, so the worker's START of the city's try would never be closed. The
city's trigger closes it itself (:func:`emit_city_end`) with the provider's adapter, under the same run id, job
name and parent the listener gave the START: the worker computes them when it defers (:func:`lineage_ids`) and they
travel in the trigger's arguments. Without the provider, or with OpenLineage disabled, none of this is imported
(and a city's task process, which imports this module to defer, imports nothing more).
"""

from __future__ import annotations

import asyncio
import datetime as dt
import functools
import logging
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from airflow.providers.openlineage.extractors.base import OperatorLineage

    #: What an operator's ``get_openlineage_facets_on_*`` returns.
    Lineage = OperatorLineage[Any, Any]

log = logging.getLogger(__name__)


def enabled() -> bool:
    """Whether the OpenLineage provider is installed and set to emit (a transport configured, not disabled)."""
    try:
        from airflow.providers.openlineage import conf
    except ImportError:
        return False
    try:
        return not conf.is_disabled()
    except Exception:  # noqa: BLE001 - a broken OpenLineage setting disables lineage, never the task
        log.warning("OpenLineage settings unreadable: no lineage", exc_info=True)
        return False


@functools.cache
def _facet_class(schema_url: str) -> type:
    """The attrs class of one of the fleet's run facets (fields are given as keyword arguments)."""
    from openlineage.client.generated.base import RunFacet

    class SageMakerFleetFacet(RunFacet):
        """One of the fleet's run facets; its fields are added per instance."""

        @staticmethod
        def _get_schema() -> str:
            return schema_url

    return SageMakerFleetFacet


def run_facet(name: str, fields: Mapping[str, Any]) -> Any:
    """A run facet with ``fields`` (JSON values), whose schema ships in the package."""
    from sagemaker_fleet.observability.facets import (
        JOB_FACET,
        JOB_FACET_SCHEMA_URL,
        RUN_FACET_SCHEMA_URL,
        producer,
    )

    schema = JOB_FACET_SCHEMA_URL if name == JOB_FACET else RUN_FACET_SCHEMA_URL
    facet = _facet_class(schema)(producer=producer())
    return facet.with_additional_properties(**fields)


def operator_lineage(
    inputs: Sequence[str], outputs: Sequence[str], facets: Mapping[str, Mapping[str, Any]]
) -> Lineage:
    """The provider's ``OperatorLineage``: S3 datasets in and out, and the fleet's run facets."""
    from airflow.providers.common.compat.openlineage.facet import InputDataset, OutputDataset
    from airflow.providers.openlineage.extractors.base import OperatorLineage

    from sagemaker_fleet.observability.facets import s3_dataset

    return OperatorLineage(
        inputs=[InputDataset(*s3_dataset(uri)) for uri in inputs],
        outputs=[OutputDataset(*s3_dataset(uri)) for uri in outputs],
        run_facets={name: run_facet(name, fields) for name, fields in facets.items()},
    )


def lineage_ids(context: Mapping[str, Any], operator: Any) -> dict[str, Any] | None:
    """On a worker, as a city's task defers: what its trigger needs to close the task's lineage run — the run id,
    job name, parent and root the listener gave its START, its owners and the DAG's tags — or None (no provider,
    OpenLineage off, or this task's emission turned off by the provider's emission policy)."""
    if not enabled():
        return None
    try:
        from airflow.providers.openlineage import conf
        from airflow.providers.openlineage.plugins import macros
        from airflow.providers.openlineage.plugins.adapter import OpenLineageAdapter

        from sagemaker_fleet.compat import openlineage_emits_task, openlineage_root_namespace

        ti, dag_run = context["ti"], context["dag_run"]
        if not openlineage_emits_task(operator, ti.dag_id, ti.task_id):
            return None
        date = dag_run.logical_date or dag_run.run_after
        dag = context.get("dag")
        return {
            "namespace": conf.namespace(),
            "run_id": macros.lineage_run_id(ti),
            "job_name": macros.lineage_job_name(ti),
            "parent_run_id": OpenLineageAdapter.build_dag_run_id(
                dag_id=ti.dag_id, logical_date=date, clear_number=getattr(dag_run, "clear_number", 0) or 0
            ),
            "parent_job_name": ti.dag_id,
            "root_run_id": macros.lineage_root_run_id(ti),
            "root_job_name": macros.lineage_root_job_name(ti),
            "root_namespace": openlineage_root_namespace(ti),
            "owners": [o.strip() for o in str(operator.owner or "").split(",") if o.strip()],
            "tags": sorted(getattr(dag, "tags", None) or []),
        }
    except Exception:  # noqa: BLE001 - lineage never stops a city from deferring
        log.warning("no OpenLineage ids for the city's trigger", exc_info=True)
        return None


@functools.cache
def _adapter() -> Any:
    from airflow.providers.openlineage.plugins.adapter import OpenLineageAdapter

    return OpenLineageAdapter()


def _emit(ids: Mapping[str, Any], status: str, lineage: Lineage, message: str) -> None:
    from airflow.providers.openlineage import conf

    from sagemaker_fleet.compat import openlineage_parent_run_facet

    parent = openlineage_parent_run_facet(ids, ids.get("namespace") or conf.namespace())
    common: dict[str, Any] = {
        "run_id": ids["run_id"],
        "job_name": ids["job_name"],
        "end_time": dt.datetime.now(dt.UTC).isoformat(),
        "task": lineage,
        "nominal_start_time": None,
        "nominal_end_time": None,
        "owners": list(ids.get("owners") or []) or None,
        "tags": list(ids.get("tags") or []) or None,
        "job_description": None,
        "run_facets": parent,
    }
    if status == "failed":
        _adapter().fail_task(error=message or "failed", **common)
    else:  # success, or skipped: the listener closes a skipped task with COMPLETE too
        _adapter().complete_task(**common)


async def emit_city_end(
    ids: Mapping[str, Any] | None,
    status: str,
    lineage: Lineage | None,
    message: str = "",
) -> bool:
    """Close a city task's lineage run from the triggerer: COMPLETE (success, skipped) or FAIL, off the event loop
    (an HTTP transport blocks) and within the provider's ``[openlineage] execution_timeout``; whether it was
    handed to the transport."""
    if not ids or not enabled():
        return False
    from airflow.providers.openlineage import conf

    if lineage is None:
        lineage = operator_lineage((), (), {})
    try:
        await asyncio.wait_for(
            asyncio.to_thread(_emit, ids, status, lineage, message), conf.execution_timeout()
        )
        return True
    except Exception:  # noqa: BLE001 - lineage never changes how a city ends
        log.warning("OpenLineage event of %s not emitted", ids.get("job_name"), exc_info=True)
        return False
