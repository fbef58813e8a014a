"""DispatchRules: the dispatch's measurement switches, and RunOptions: how a run runs its rules (pure). Production
runs every rule; ``simulate`` and the benchmarks turn one off to measure what it gives (``simulate/options.py``,
``benchmarks/``)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class DispatchRules:
    """Which of the dispatch's optional rules hold (all of them unless a measurement turns one off)."""

    #: hand a freed pool to a city with its image (False: the group's start order only)
    image_handoff: bool = True
    #: end the pools of a group's last jobs as they end (False: only once idle, a sweep later)
    tail_release: bool = True


#: Every rule: what production runs.
ALL_RULES = DispatchRules()


@dataclass(frozen=True)
class RunOptions:
    """How a run's dispatch runs: ``carry_pools`` keeps the run's pools for the next scheduled run (no
    :meth:`~.tracker.RunTracker.tail_jobs` nor :meth:`~.tracker.RunTracker.surplus_pools`, no cold start held back);
    ``one_at_a_time``: the run's cities start one at a time, in an order the plan does not set (``airflow dags
    test``), so no city waits for its turn or for a pool, as none of the cities it would wait for can start first;
    ``inline_keep_alive``: with ``one_at_a_time``, the least keep-alive (seconds of the endpoint's clock) a job is
    created with while a city of its warm-pool group is still to come: the shell's own gap between a job's end and
    the next city's create (its poll interval and the task starts in between), which a plan made for a scheduler and
    a triggerer does not know of; ``rules``: the measurement switches (:class:`DispatchRules`), every rule in
    production."""

    carry_pools: bool = False
    one_at_a_time: bool = False
    inline_keep_alive: int = 0
    rules: DispatchRules = ALL_RULES


#: No option and every rule: a scheduled production run.
DEFAULT_OPTIONS = RunOptions()
