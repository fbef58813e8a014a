"""build_run_dispatch: a run's dispatch in one piece — its tracker, its sweeps, and for a run with a plan its view
of the account and the account's board — all with the run's one :class:`~.cadence.Cadence` (pure).

Both shells build it here and bring only clocks and I/O: the triggerer (:mod:`sagemaker_fleet.triggers.city`, onto
the poller's sweeps, :mod:`sagemaker_fleet.triggers.poller`) and ``simulate`` (``simulate/fleet_run.py``,
``simulate/polling.py``); the Fleet view builds the tracker of a run it only reads.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from sagemaker_fleet.dispatch.account import AccountView
from sagemaker_fleet.dispatch.board import ShareBoard
from sagemaker_fleet.dispatch.cadence import AWS_CADENCE
from sagemaker_fleet.dispatch.fair_share import FairShare
from sagemaker_fleet.dispatch.rules import DEFAULT_OPTIONS
from sagemaker_fleet.dispatch.sweep import RunSweeps
from sagemaker_fleet.dispatch.tracker import RunTracker

if TYPE_CHECKING:
    from sagemaker_fleet.dispatch.book import DispatchBook
    from sagemaker_fleet.dispatch.cadence import Cadence
    from sagemaker_fleet.dispatch.rules import RunOptions


def build_run_dispatch(
    book: DispatchBook,
    names: Mapping[str, tuple[str, int]],
    cadence: Cadence = AWS_CADENCE,
    *,
    options: RunOptions = DEFAULT_OPTIONS,
    account: bool = True,
    sweeps: RunSweeps | None = None,
) -> RunSweeps:
    """The run's sweeps, feeding its :class:`RunTracker` (``names``: every job name the run may use → (city,
    attempt); ``options``: how the run runs, :class:`~.rules.RunOptions`).

    A run with a plan is account-aware (``account=False``: it counts its own jobs only — the Fleet view, which
    lists no other run's jobs, and a measurement of what the view gives): its sweeps list the account's jobs and
    other runs' running jobs and idle pools count against its quotas (:class:`~.account.AccountView`); a fleet that
    shares (all but ``sharing: false``) also reads and posts the account's board (:mod:`.board`).
    ``sweeps``: the run's sweeps that already watch its jobs (the triggerer's poller watches before the run's plan
    is read): the dispatch is attached to them; else new ones, without a listing floor (``simulate``).
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
    if sweeps is None:
        sweeps = RunSweeps()
    sweeps.attach(tracker)
    return sweeps
