"""Dispatch: which city of a fleet run starts now, decided from the run's jobs as SageMaker lists them (pure).

- ``book.py``: :class:`DispatchBook`, each city's turn read from the run's plan (group, rank, width, keep-alive);
- ``tracker.py``: :class:`RunTracker`, the run's jobs from the listings and who may start now: what it has seen
  (``state.py``) and its rules as functions of it (``holdings.py``: what the run holds and has left;
  ``handoff.py``: who takes a freed pool; ``admission.py``: who starts now and why the others wait;
  ``pool_ends.py``: which pools end now); ``rules.py``: how a run runs them
  (:class:`~sagemaker_fleet.dispatch.rules.RunOptions`) and the measurement switches of those rules;
- ``account.py``: :class:`~sagemaker_fleet.dispatch.account.AccountView`, other runs' jobs of the account: what
  they hold of its quotas, which of their pools are the run's to take;
- ``sweep.py``: one sweep of a run — :func:`~sagemaker_fleet.dispatch.sweep.sweep_once`, the order of its steps,
  and :class:`~sagemaker_fleet.dispatch.sweep.RunSweeps`, what the sweeps carry and the steps, private to this package
  (listing window, describes, the hand-off, pool ends, back-off); ``shell.py``: what a sweep asks of its shell
  (:class:`~sagemaker_fleet.dispatch.shell.SweepIO`) and hands back; ``waiters.py``:
  :class:`~sagemaker_fleet.dispatch.waiters.Waiters`, the cities waiting for their turn in either shell;
- ``board.py``: :class:`~sagemaker_fleet.dispatch.board.ShareBoard`, the account's board: each run's record of
  what it holds and waits for, and who goes first on a quota; ``fair_share.py``:
  :class:`~sagemaker_fleet.dispatch.fair_share.FairShare`, a run's part in it as its tracker admits cities;
- ``city_run.py``: :class:`~sagemaker_fleet.dispatch.city_run.CityRun`, one city's steps from its turn to its end;
- ``cadence.py``: :class:`~sagemaker_fleet.dispatch.cadence.Cadence`, every interval of a run, in one value;
- ``build.py``: :func:`dispatch_from_plan`, a run's book, tracker, sweeps, account view and board, built from its
  plan in one place (with its checks) for every shell.

One loop, two shells: the triggerer (:mod:`sagemaker_fleet.triggers.session`, :mod:`sagemaker_fleet.triggers.city`)
and the virtual-time ``simulate`` application (:mod:`sagemaker_fleet.simulate`) run this code and only do the I/O.
"""

from __future__ import annotations

from sagemaker_fleet.dispatch.book import DispatchBook, QuotaKey, Turn, peak_lanes, quota_key
from sagemaker_fleet.dispatch.build import build_run_dispatch, dispatch_from_plan
from sagemaker_fleet.dispatch.cadence import Cadence
from sagemaker_fleet.dispatch.rules import DispatchRules, RunOptions
from sagemaker_fleet.dispatch.state import Wait
from sagemaker_fleet.dispatch.tracker import RunTracker

__all__ = [
    "Cadence",
    "DispatchBook",
    "DispatchRules",
    "QuotaKey",
    "RunOptions",
    "RunTracker",
    "Turn",
    "Wait",
    "build_run_dispatch",
    "dispatch_from_plan",
    "peak_lanes",
    "quota_key",
]
