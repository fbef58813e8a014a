"""The loop of ``simulate``: fleet runs on one engine in virtual time, step by step or all at once.

:class:`AccountSimulation` is the loop, written once: one engine (one account: its quotas, its warm pools, its
counters), one driver timeline, and one :class:`~.fleet_run.FleetRun` or several, each beginning at its offset —
each with its own plan, tracker and poller, account-aware as the triggerer runs them side by side.
:class:`FleetSimulation` is one fleet on it (``sagemaker-fleet simulate FLEET.yaml``).

The loop interleaves two timelines — the engine's (phases, spot, pool expiry) and the driver's (creates, polls,
retries, a run's beginning) — always moving the virtual clock to whichever comes first, engine events first at
equal times. It is over when neither has anything left: every city finished and every warm pool expired, so
retained time is final. Then every submission is described once more and priced by the cost model.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from sagemaker_fleet.jobs.statuses import TERMINAL_STATUSES as TERMINAL
from sagemaker_fleet.sim.clock import VirtualClock
from sagemaker_fleet.sim.engine import SimEngine
from sagemaker_fleet.simulate.account_result import AccountResult, crossings, lost_and_duplicated
from sagemaker_fleet.simulate.errors import SimulationError
from sagemaker_fleet.simulate.fleet_run import FleetRun
from sagemaker_fleet.simulate.options import SimulateOptions, account_config, account_quotas
from sagemaker_fleet.simulate.timeline import Timeline

if TYPE_CHECKING:
    from sagemaker_fleet.dispatch import RunTracker
    from sagemaker_fleet.fleetspec.model import FleetSpec
    from sagemaker_fleet.plan.fleet_plan import FleetPlan
    from sagemaker_fleet.sim.job import JobEvent
    from sagemaker_fleet.simulate.result import SimulationResult
    from sagemaker_fleet.simulate.strategies import Strategy
    from sagemaker_fleet.simulate.tasks import CityTask, SimulatedOperator


@dataclass(frozen=True)
class Progress:
    """Where a run stands, for a progress bar: simulated seconds since the run began and city counts."""

    elapsed_seconds: float
    cities: int
    finished: int
    running: int
    submissions: int

    @property
    def fraction(self) -> float:
        return self.finished / self.cities if self.cities else 1.0


ProgressCallback = Callable[[Progress], None]


@dataclass(frozen=True)
class AccountRun:
    """One fleet's run on the account: its spec, its run key (its job names), when it begins (simulated seconds
    after the first) and, for the output, what the caller calls it (the command line: the spec's file)."""

    spec: FleetSpec
    run_key: str
    offset_seconds: float = 0.0
    label: str | None = None


def _check_runs(runs: Sequence[AccountRun]) -> None:
    if not runs:
        raise SimulationError("no fleet to simulate: give at least one run")
    seen: dict[tuple[str, str], AccountRun] = {}
    for run in runs:
        if not (math.isfinite(run.offset_seconds) and run.offset_seconds >= 0):
            raise SimulationError(f"offset of {run.label or run.spec.fleet}: {run.offset_seconds} is not ≥ 0")
        key = (run.spec.fleet, run.run_key)
        if key in seen:
            raise SimulationError(
                f"fleet {run.spec.fleet} with run key {run.run_key} is given twice: both runs would name the same "
                "jobs; give the second another run key (a manual run beside the scheduled one has its own)"
            )
        seen[key] = run


class AccountSimulation:
    """Fleet runs on one account in virtual time. ``step()`` until it returns False (or ``run()``), then
    ``result()``. ``engine`` is the account (subscribe to it for job events, read its snapshot); ``runs`` the
    fleet runs in the order given; ``quota_notes`` where the specs' quotas disagree
    (:func:`~.options.account_quotas`)."""

    def __init__(self, runs: Sequence[AccountRun], options: SimulateOptions | None = None) -> None:
        _check_runs(runs)
        self.options = options or SimulateOptions()
        specs = [run.spec for run in runs]
        self.quotas, notes = account_quotas(specs)
        self.quota_notes = tuple(notes)
        self.engine = SimEngine(account_config(specs, self.options), VirtualClock())
        self.timeline = Timeline()
        self.started_at = self.engine.now()
        self.ended_at: dict[str, float] = {}
        self.engine.subscribe(self._on_event)
        self.accounts = tuple(runs)
        self.runs = [
            FleetRun(
                run.spec,
                replace(self.options, run_key=run.run_key),
                self.engine,
                self.timeline,
                self.ended_at,
                self.started_at + run.offset_seconds,
                self.quotas,
            )
            for run in runs
        ]
        self._begun = False
        self._results: list[SimulationResult] | None = None
        self._counted: dict[str, dict[str, int]] = {}  # the engine's counters at the end, before the reports
        self._result: AccountResult | None = None

    def _on_event(self, event: JobEvent) -> None:
        if event.status in TERMINAL:
            self.ended_at[event.job_name] = event.time

    # ------------------------------------------------------------------------------------------ running

    @property
    def done(self) -> bool:
        return self._begun and self.engine.next_event_time() is None and self.timeline.next_time() is None

    def step(self) -> bool:
        """Advance to the next instant at which something happens; False once every run is over."""
        if not self._begun:
            self._begun = True
            for (
                run
            ) in self.runs:  # a run begins on the driver's timeline, so an offset one begins in its turn
                self.timeline.at(run.starts_at, run.begin)
            self.timeline.run_due(self.started_at)
            return True
        engine_next = self.engine.next_event_time()
        driver_next = self.timeline.next_time()
        if engine_next is None and driver_next is None:
            return False
        if driver_next is not None and (engine_next is None or driver_next <= engine_next):
            self._check_horizon(driver_next)
            self.engine.run_until(driver_next)
            self.timeline.run_due(driver_next)
        else:
            assert engine_next is not None
            self._check_horizon(engine_next)
            self.engine.run_until(engine_next)
        return True

    def _check_horizon(self, when: float) -> None:
        if when - self.started_at > self.options.max_simulated_seconds:
            unfinished = [name for run in self.runs for name in run.unfinished()]
            raise SimulationError(
                f"the simulated run passed {self.options.max_simulated_seconds:.0f} s with "
                f"{len(unfinished)} cities unfinished (e.g. {', '.join(unfinished[:3]) or 'none'})"
            )

    def play(self, on_progress: ProgressCallback | None = None, every_seconds: float = 600.0) -> None:
        """Run to the end; ``on_progress`` is called each ``every_seconds`` of simulated time and at the end."""
        next_report = self.started_at
        while self.step():
            if on_progress is not None and self.engine.now() >= next_report:
                on_progress(self.progress())
                next_report = self.engine.now() + every_seconds
        if on_progress is not None:
            on_progress(self.progress())

    def run(self, on_progress: ProgressCallback | None = None, every_seconds: float = 600.0) -> AccountResult:
        self.play(on_progress, every_seconds)
        return self.result()

    def progress(self) -> Progress:
        states = [run.states() for run in self.runs]
        return Progress(
            elapsed_seconds=self.engine.now() - self.started_at,
            cities=sum(len(run.tasks) for run in self.runs),
            finished=sum(state["done"] + state["failed"] for state in states),
            running=sum(state["running"] for state in states),
            submissions=sum(len(run.operator.owner) for run in self.runs),
        )

    # ------------------------------------------------------------------------------------------ the outcome

    def results(self) -> list[SimulationResult]:
        """Each run's outcome, priced by the cost model, in the order given (run the simulation to its end first)."""
        if self._results is None:
            if not self.done:
                raise SimulationError("the run is not over yet: step() until it returns False, or run()")
            self._counted = self.engine.api_calls()  # before the reports' own describes
            if self.engine.config.throttle_share > 0:
                # the reports' reads are not part of the strategy's load
                self.engine.configure(throttle_share=0.0)
            self._results = [run.result() for run in self.runs]
        return self._results

    def result(self) -> AccountResult:
        """The runs' outcomes and the account's totals (:mod:`.account_result`)."""
        if self._result is None:
            results = self.results()
            jobs = self.engine.snapshot()["jobs"]
            run_of = {name: index for index, run in enumerate(self.runs) for name in run.names}
            cities = {
                name: (index, city)
                for index, run in enumerate(self.runs)
                for name, (city, _) in run.names.items()
            }
            expected = [(index, name) for index, run in enumerate(self.runs) for name in run.tasks]
            lost, duplicated = lost_and_duplicated(jobs, cities, expected)
            created = [float(job["created_at"]) for job in jobs]
            ended = [float(job["ended_at"]) for job in jobs if job["ended_at"] is not None]
            self._result = AccountResult(
                runs=tuple(results),
                offsets=tuple(run.offset_seconds for run in self.accounts),
                quotas=self.quotas,
                quota_notes=self.quota_notes,
                makespan_seconds=round(max(ended) - min(created)) if ended else 0,
                api_calls=self._counted["calls"],
                throttled=sum(self._counted["throttled"].values()),
                resource_limit_exceeded=self._counted["errors"].get(
                    "CreateTrainingJob:ResourceLimitExceeded", 0
                ),
                crossings=crossings(jobs, run_of, len(self.runs)),
                lost=lost,
                duplicated=duplicated,
                labels=tuple(run.label for run in self.accounts),
            )
        return self._result


class FleetSimulation:
    """One fleet run in virtual time (``sagemaker-fleet simulate FLEET.yaml``): the account's loop with one run.
    ``step()`` until it returns False (or ``run()``), then ``result()``.

    ``engine`` is the :class:`SimEngine` the run drives (subscribe to it for job events, read its snapshot);
    ``plan`` is the planner's output for the ``planned`` strategy (None for ``naive``).
    """

    def __init__(self, spec: FleetSpec, options: SimulateOptions | None = None) -> None:
        self.options = options or SimulateOptions()
        self.account = AccountSimulation([AccountRun(spec, self.options.run_key)], self.options)
        self.fleet_run = self.account.runs[0]
        self.spec = spec
        self.engine = self.account.engine
        self.timeline = self.account.timeline
        self.started_at = self.account.started_at
        self.ended_at = self.account.ended_at

    @property
    def plan(self) -> FleetPlan | None:
        return self.fleet_run.plan

    @property
    def tracker(self) -> RunTracker | None:
        return self.fleet_run.tracker

    @property
    def tasks(self) -> dict[str, CityTask]:
        return self.fleet_run.tasks

    @property
    def operator(self) -> SimulatedOperator:
        return self.fleet_run.operator

    @property
    def strategy(self) -> Strategy:
        return self.fleet_run.strategy

    @property
    def done(self) -> bool:
        return self.account.done

    def step(self) -> bool:
        return self.account.step()

    def run(
        self, on_progress: ProgressCallback | None = None, every_seconds: float = 600.0
    ) -> SimulationResult:
        """Run to the end; ``on_progress`` is called each ``every_seconds`` of simulated time and at the end."""
        self.account.play(on_progress, every_seconds)
        return self.result()

    def progress(self) -> Progress:
        return self.account.progress()

    def result(self) -> SimulationResult:
        """The run's outcome, priced by the cost model (run the simulation to its end first)."""
        return self.account.results()[0]

    def describes(self, names: list[str] | None = None) -> list[dict[str, Any]]:
        """DescribeTrainingJob of the run's submissions now (all of them by default), as the cost report reads."""
        return self.fleet_run.describes(names)


def simulate_fleet(
    spec: FleetSpec,
    options: SimulateOptions | None = None,
    *,
    on_progress: ProgressCallback | None = None,
    every_seconds: float = 600.0,
) -> SimulationResult:
    """Run ``spec`` through the simulator engine in virtual time and price it (``sagemaker-fleet simulate``)."""
    return FleetSimulation(spec, options).run(on_progress, every_seconds)


def simulate_account(
    runs: Sequence[AccountRun],
    options: SimulateOptions | None = None,
    *,
    on_progress: ProgressCallback | None = None,
    every_seconds: float = 600.0,
) -> AccountResult:
    """Run several fleets' runs on one simulated account and price each (``sagemaker-fleet simulate A B …``)."""
    return AccountSimulation(runs, options).run(on_progress, every_seconds)
