"""A run's Fleet view for one reader: read once per refresh for every viewer, drawn for each reader.

A refresh reads the run (Airflow's record of it, then SageMaker: the run's jobs and the account) into a
:class:`RunRead`, which the app's cache shares between every viewer of the run. What a reader sees of *other*
fleets depends on who they are — a job of another fleet is named only to a reader who may read one of that fleet's
DAGs — so the JSON is drawn from the read per reader (:func:`draw`) with their :class:`Disclosure`, and kept on
the read per disclosure, never under the run's key alone.

An ended run whose jobs are all final (terminal, pools settled) will not change: its read is kept past the cache's
few seconds for as long as the run is the one it was read from (:func:`still_good`: same row, state, end and
clear count — a cleared run is read again), so an open tab of a finished run costs SageMaker nothing.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any
from urllib.parse import quote

from sagemaker_fleet.contract import FLEET_VIEW_URL_PREFIX
from sagemaker_fleet.cost.disclosure import Disclosure
from sagemaker_fleet.cost.report import RunJobIndex
from sagemaker_fleet.fleetspec.errors import FleetSpecError
from sagemaker_fleet.fleetspec.runspec import load_run_spec
from sagemaker_fleet.fleetview.account import other_fleets
from sagemaker_fleet.fleetview.model import (
    RUN_ENDED,
    RunContext,
    ViewInputs,
    build_fleet_view,
    utc_now,
)
from sagemaker_fleet.fleetview.source import RunJobsReader, is_final
from sagemaker_fleet.jobs.prices import PriceBook
from sagemaker_fleet.plugin.runs import (
    FleetRunRecord,
    NotAFleetRunError,
    RunStamp,
    load_fleet_run,
    readable_fleets,
    run_stamp,
)
from sagemaker_fleet.registry.decision import decisions_from_json

if TYPE_CHECKING:
    from collections.abc import Callable, Collection

    from sagemaker_fleet.fleetspec.model import FleetSpec

#: Seconds between the page's refreshes (the JSON says so; the page reads it).
REFRESH_SECONDS = 5
#: Drawings kept per read (one per distinct disclosure among its readers); past it, a reader's is drawn each time.
VIEWS_PER_READ = 16


@dataclass(frozen=True)
class RunRead:
    """One refresh's read of a run: ``answer`` when there is nothing to draw (not a fleet run, refused params),
    else the view's inputs. ``final``: the run had ended with every job final (see the module docstring)."""

    stamp: RunStamp | None
    answer: dict[str, Any] | None = None
    context: RunContext | None = None
    inputs: ViewInputs | None = None
    final: bool = False
    #: the JSON drawn from this read, per disclosure (a memo: the read itself never changes)
    views: dict[Disclosure, dict[str, Any]] = field(default_factory=dict, compare=False, repr=False)


def spec_of(record: FleetRunRecord) -> FleetSpec:
    return load_run_spec(record.spec_path, record.params, use_params=record.use_params).spec


def report_url(record: FleetRunRecord) -> str | None:
    if record.report is None or record.report.get("dry_run"):
        return None
    return f"{FLEET_VIEW_URL_PREFIX}/runs/{quote(record.dag_id, safe='')}/{quote(record.run_id, safe='')}/report.html"


def _hook(record: FleetRunRecord, spec: FleetSpec) -> Any:
    from sagemaker_fleet.hooks.fleet import SageMakerFleetHook

    return SageMakerFleetHook(aws_conn_id=record.aws_conn_id, region_name=spec.region)


def _s3(record: FleetRunRecord, spec: FleetSpec) -> Any:
    """An S3 client of the run's connection, for the account's board (None: the fleet does not share)."""
    if spec.sharing is None:
        return None
    from airflow.providers.amazon.aws.hooks.s3 import S3Hook

    return S3Hook(aws_conn_id=record.aws_conn_id, region_name=spec.region).get_conn()


def read_run(session: Any, dag_id: str, run_id: str, reader: RunJobsReader | None) -> tuple[RunRead, Any]:
    """The run's read and the jobs reader to keep for the next refresh (its cached describes)."""
    try:
        record = load_fleet_run(session, dag_id, run_id)
    except NotAFleetRunError as exc:
        answer = {"fleet_dag": False, "missing": exc.missing, "message": str(exc)}
        return RunRead(None, answer=answer), None
    try:
        spec = spec_of(record)
    except FleetSpecError as exc:
        answer = {
            "fleet_dag": True,
            "refused": True,
            "state": record.state,
            "message": f"the plan task refused this run's params: {exc}",
        }
        return RunRead(record.stamp, answer=answer), None
    dry_run = bool(record.params.get("dry_run"))
    context = RunContext(
        dag_id, run_id, record.run_key, record.state, report_url(record), dry_run, record.plan_task_state
    )
    if reader is None or reader.run_key != record.run_key:
        board = spec.sharing.board if spec.sharing is not None else None
        reader = RunJobsReader(record.run_key, RunJobIndex.for_run(spec, record.run_key).names, board)
    describes, stats = reader.read(_hook(record, spec), _s3(record, spec)) if not dry_run else ([], None)
    final = record.state in RUN_ENDED and all(is_final(job) for job in describes)
    inputs = ViewInputs(
        spec,
        record.plan,
        describes,
        PriceBook.for_spec(spec),
        utc_now(),
        models=decisions_from_json(record.models),  # the register task's decisions, once it ran
    )
    if stats is not None:  # the run's jobs and the account's, as this refresh read them
        stats = dataclasses.replace(stats, final=final)
        inputs = dataclasses.replace(inputs, stats=stats, account=reader.account)
    return RunRead(record.stamp, context=context, inputs=inputs, final=final), reader


def still_good(session: Any, dag_id: str, run_id: str) -> Callable[[RunRead], bool]:
    """Whether a read older than the cache's few seconds may still be served: a final read of the run as it is."""
    return lambda read: (
        read.final and read.stamp is not None and read.stamp == run_stamp(session, dag_id, run_id)
    )


def disclosure_for(read: RunRead, readable: Callable[[], Collection[str]], session: Any) -> Disclosure:
    """What this reader may see named: the run's own fleet, and each other fleet the read names (a warm pool went
    between them) that has a fleet DAG among ``readable()`` (the DAGs the reader may read; asked only then)."""
    assert read.inputs is not None
    own = read.inputs.spec.fleet
    others = other_fleets(own, read.inputs.describes, read.inputs.account)
    if not others:
        return Disclosure.of_fleet(own)
    return Disclosure.of_fleet(own, *readable_fleets(session, readable(), others))


def draw(read: RunRead, disclosure: Disclosure) -> dict[str, Any]:
    """The view's JSON for a reader with ``disclosure``, drawn once per read and disclosure."""
    if read.answer is not None:
        return read.answer
    drawn = read.views.get(disclosure)
    if drawn is None:
        assert read.context is not None
        assert read.inputs is not None
        drawn = build_fleet_view(read.context, read.inputs, disclosure)
        drawn.update({"fleet_dag": True, "refresh_seconds": REFRESH_SECONDS})
        if len(read.views) < VIEWS_PER_READ:
            read.views[disclosure] = drawn
    return drawn
