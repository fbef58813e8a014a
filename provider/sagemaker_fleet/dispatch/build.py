"""dispatch_from_plan: a run's dispatch in one piece from its plan — its book, its tracker, its sweeps, and for a
run with a plan its view of the account and the account's board — all with the run's one
:class:`~.cadence.Cadence` (pure).

Every shell builds it here, with the same checks, and brings only clocks and I/O: the triggerer
(:mod:`sagemaker_fleet.triggers.city`, onto its run session's sweeps), ``simulate`` (``simulate/fleet_run.py``), the
pilot (``cli/pilot/dispatch.py``) and the Fleet view, which builds the tracker of a run it only reads.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from typing import TYPE_CHECKING

from sagemaker_fleet.dispatch.account import AccountView
from sagemaker_fleet.dispatch.board import ShareBoard
from sagemaker_fleet.dispatch.book import DispatchBook
from sagemaker_fleet.dispatch.cadence import AWS_CADENCE
from sagemaker_fleet.dispatch.fair_share import FairShare
from sagemaker_fleet.dispatch.rules import DEFAULT_OPTIONS
from sagemaker_fleet.dispatch.sweep import RunSweeps
from sagemaker_fleet.dispatch.tracker import RunTracker
from sagemaker_fleet.fleetspec.overrides import only_cities
from sagemaker_fleet.jobs.progress import run_job_names
from sagemaker_fleet.plan.errors import ForeignPlanError

if TYPE_CHECKING:
    from sagemaker_fleet.dispatch.cadence import Cadence
    from sagemaker_fleet.dispatch.rules import RunOptions
    from sagemaker_fleet.fleetspec.model import FleetSpec
    from sagemaker_fleet.plan.fleet_plan import FleetPlan


def dispatch_from_plan(
    plan: FleetPlan | None,
    spec: FleetSpec,
    run_key: str,
    cadence: Cadence = AWS_CADENCE,
    *,
    options: RunOptions = DEFAULT_OPTIONS,
    account: bool = True,
    floor: dt.datetime | None = None,
) -> RunSweeps:
    """The dispatch of run ``run_key`` of ``spec``'s fleet by ``plan`` (None: no plan, every city starts at once).
    With a plan the run's cities are the plan's (the fleet restricted to them). The other arguments are
    :func:`build_run_dispatch`'s.

    :raises ForeignPlanError: the plan is another fleet's.
    :raises KeyError: the plan names a city or group the fleet no longer has.
    """
    if plan is None:
        book = DispatchBook.empty()
    else:
        if plan.fleet != spec.fleet:
            raise ForeignPlanError(
                f"the plan is for fleet {plan.fleet!r}, not {spec.fleet!r}: a run is dispatched by its own "
                "fleet's plan (check the plan task's fleet file)"
            )
        spec = only_cities(spec, {job.city for job in plan.jobs})
        book = DispatchBook.from_plan(plan, spec)
    names = run_job_names(spec, run_key)
    return build_run_dispatch(book, names, cadence, options=options, account=account, floor=floor)


def build_run_dispatch(
    book: DispatchBook,
    names: Mapping[str, tuple[str, int]],
    cadence: Cadence = AWS_CADENCE,
    *,
    options: RunOptions = DEFAULT_OPTIONS,
    account: bool = True,
    floor: dt.datetime | None = None,
) -> RunSweeps:
    """The run's sweeps, feeding its :class:`RunTracker` (``names``: every job name the run may use → (city,
    attempt); ``options``: how the run runs, :class:`~.rules.RunOptions`).

    A run with a plan is account-aware (``account=False``: it counts its own jobs only — the Fleet view, which
    lists no other run's jobs, and a measurement of what the view gives): its sweeps list the account's jobs and
    other runs' running jobs and idle pools count against its quotas (:class:`~.account.AccountView`); a fleet that
    shares (all but ``sharing: false``) also reads and posts the account's board (:mod:`.board`).
    ``floor``: CreationTimeAfter of a listing of the run's whole past (the triggerer's: the day before a dated run
    key, :func:`~sagemaker_fleet.fleetspec.names.run_key_floor`); None lists it without a bound (``simulate``, whose
    virtual time does not start on the run key's day, and the pilot).
    """
    aware = account and bool(book.turns)
    board = None
    if aware and book.sharing is not None:
        board = ShareBoard(book.fleet, book.run_key, book.sharing, cadence)
    tracker = RunTracker(
        book,
        names,
        cadence,
        options=options,
        account=AccountView(cadence, board) if aware else None,
        shares=FairShare(board, book) if board is not None else None,
    )
    return RunSweeps(tracker, floor=floor)
