"""``FleetSimulation``: one fleet run through the engine in virtual time, step by step or all at once.

The loop interleaves two timelines — the engine's (phases, spot, pool expiry) and the driver's (creates, polls,
retries) — always moving the virtual clock to whichever comes first, engine events first at equal times. The
run is over when neither has anything left: every city finished and every warm pool expired, so retained time
is final. Then every submission is described once more and priced by the cost model.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from sagemaker_fleet.cost.report import build_cost_report
from sagemaker_fleet.dispatch import DispatchBook, RunTracker
from sagemaker_fleet.jobs.prices import PriceBook
from sagemaker_fleet.jobs.progress import run_job_names
from sagemaker_fleet.jobs.statuses import TERMINAL_STATUSES as TERMINAL
from sagemaker_fleet.plan.planner import plan_fleet
from sagemaker_fleet.sim.clock import VirtualClock
from sagemaker_fleet.sim.driver.errors import SimulationError
from sagemaker_fleet.sim.driver.missed import missed_warm_starts
from sagemaker_fleet.sim.driver.options import SimulateOptions, engine_config
from sagemaker_fleet.sim.driver.polling import PerJobPoller, SimulatedFleetPoller
from sagemaker_fleet.sim.driver.result import SimulationResult
from sagemaker_fleet.sim.driver.strategies import DispatchStrategy, NaiveStrategy, Strategy
from sagemaker_fleet.sim.driver.tasks import CityTask, SimulatedOperator
from sagemaker_fleet.sim.driver.timeline import Timeline
from sagemaker_fleet.sim.engine import SimEngine

if TYPE_CHECKING:
    from sagemaker_fleet.fleetspec.model import FleetSpec
    from sagemaker_fleet.plan.fleet_plan import FleetPlan
    from sagemaker_fleet.sim.job import JobEvent


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


class FleetSimulation:
    """A fleet run in virtual time. ``step()`` until it returns False (or ``run()``), then ``result()``.

    ``engine`` is the :class:`SimEngine` the run drives (subscribe to it for job events, read its snapshot);
    ``plan`` is the planner's output for the ``planned`` strategy (None for ``naive``).
    """

    def __init__(self, spec: FleetSpec, options: SimulateOptions | None = None) -> None:
        self.spec = spec
        self.options = options or SimulateOptions()
        self.engine = SimEngine(engine_config(spec, self.options), VirtualClock())
        self.timeline = Timeline()
        self.started_at = self.engine.now()
        self.ended_at: dict[str, float] = {}
        self.engine.subscribe(self._on_event)
        self.plan: FleetPlan | None = None
        self.tracker: RunTracker | None = None
        if self.options.strategy == "planned":
            self.plan = plan_fleet(
                spec, self.options.run_key, self.options.history, image_order=self.options.image_order
            )
            book = DispatchBook.from_plan(self.plan, spec)
            self.tracker = RunTracker(
                book,
                run_job_names(spec, self.options.run_key),
                image_handoff=self.options.image_handoff,
                tail_release=self.options.tail_release,
            )
        self.tasks = {city.name: CityTask(city, self._keep_alive(city.name)) for city in spec.cities}
        self.operator = SimulatedOperator(
            spec, self.options, self.engine, self.timeline, self.ended_at, self._finished
        )
        interval = self.options.poll_interval_seconds
        self.strategy: Strategy
        if self.tracker is not None:
            self.operator.tracker = self.tracker
            self.operator.dispatch = SimulatedFleetPoller(
                self.engine,
                self.timeline,
                self.options.run_key,
                interval,
                self.tracker,
                self.options.handoff_interval_seconds,
            )
            self.strategy = DispatchStrategy(self.tasks, self.operator)
        else:
            self.operator.per_job = PerJobPoller(self.engine, self.timeline, interval)
            self.strategy = NaiveStrategy(spec, self.tasks, self.operator)
        self._begun = False
        self._result: SimulationResult | None = None

    def _keep_alive(self, city: str) -> int:
        if self.tracker is not None:
            return self.tracker.book.turns[city].keep_alive_seconds
        return self.options.naive_keep_alive_seconds

    def _on_event(self, event: JobEvent) -> None:
        if event.status in TERMINAL:
            self.ended_at[event.job_name] = event.time

    def _finished(self, task: CityTask, at: float) -> None:
        self.strategy.finished(task, at)

    # ------------------------------------------------------------------------------------------ running

    @property
    def done(self) -> bool:
        return self._begun and self.engine.next_event_time() is None and self.timeline.next_time() is None

    def step(self) -> bool:
        """Advance to the next instant at which something happens; False once the run is over."""
        if not self._begun:
            self._begun = True
            self.strategy.begin(self.started_at)
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
            unfinished = [name for name, task in self.tasks.items() if not task.finished]
            raise SimulationError(
                f"the simulated run passed {self.options.max_simulated_seconds:.0f} s with "
                f"{len(unfinished)} cities unfinished (e.g. {', '.join(unfinished[:3]) or 'none'})"
            )

    def run(
        self, on_progress: ProgressCallback | None = None, every_seconds: float = 600.0
    ) -> SimulationResult:
        """Run to the end; ``on_progress`` is called each ``every_seconds`` of simulated time and at the end."""
        next_report = self.started_at
        while self.step():
            if on_progress is not None and self.engine.now() >= next_report:
                on_progress(self.progress())
                next_report = self.engine.now() + every_seconds
        if on_progress is not None:
            on_progress(self.progress())
        return self.result()

    def progress(self) -> Progress:
        states = Counter(task.state for task in self.tasks.values())
        return Progress(
            elapsed_seconds=self.engine.now() - self.started_at,
            cities=len(self.tasks),
            finished=states["done"] + states["failed"],
            running=states["running"],
            submissions=len(self.operator.owner),
        )

    # ------------------------------------------------------------------------------------------ the outcome

    def result(self) -> SimulationResult:
        """The run's outcome, priced by the cost model (run the simulation to its end first)."""
        if self._result is None:
            if not self.done:
                raise SimulationError("the run is not over yet: step() until it returns False, or run()")
            self._result = self._build_result()
        return self._result

    def _build_result(self) -> SimulationResult:
        counters = self.engine.api_calls()  # before the report's own describes below
        if self.engine.config.throttle_share > 0:
            # the report's reads are not part of the strategy's load
            self.engine.configure(throttle_share=0.0)
        names = list(self.operator.owner)
        describes = self.describes(names)
        end = max((self.ended_at[name] for name in names), default=self.started_at)
        book = PriceBook.for_spec(self.spec)
        report = build_cost_report(
            self.spec,
            self.options.run_key,
            describes,
            book,
            generated_at=datetime.fromtimestamp(self.engine.now(), UTC),
        )
        outcomes = Counter(task.state for task in self.tasks.values())
        return SimulationResult(
            strategy=self.options.strategy,
            seed=self.options.seed,
            fleet=self.spec.fleet,
            run_key=self.options.run_key,
            jobs=len(self.tasks),
            completed=outcomes["done"],
            failed=outcomes["failed"],
            submissions=len(names),
            makespan_seconds=round(end - self.started_at),
            api_calls=counters["calls"],
            throttled=sum(counters["throttled"].values()),
            quota_rejections=counters["errors"].get("CreateTrainingJob:ResourceLimitExceeded", 0),
            report=report,
            plan_summary=self.plan.summary if self.plan is not None else None,
            missed_warm_starts=tuple(
                missed_warm_starts(self.plan, report.lines, datetime.fromtimestamp(self.started_at, UTC))
                if self.plan is not None
                else ()
            ),
        )

    def describes(self, names: list[str] | None = None) -> list[dict[str, Any]]:
        """DescribeTrainingJob of the run's submissions now (all of them by default), as the cost report reads."""
        return [self.engine.describe_training_job(name) for name in names or list(self.operator.owner)]


def simulate_fleet(
    spec: FleetSpec,
    options: SimulateOptions | None = None,
    *,
    on_progress: ProgressCallback | None = None,
    every_seconds: float = 600.0,
) -> SimulationResult:
    """Run ``spec`` through the simulator engine in virtual time and price it (``sagemaker-fleet simulate``)."""
    return FleetSimulation(spec, options).run(on_progress, every_seconds)
