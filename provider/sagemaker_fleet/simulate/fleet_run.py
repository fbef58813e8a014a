"""``FleetRun``: one fleet's run on the account's engine — its plan, its tracker, its cities and its own calls.

What the triggerer and the fleet DAG hold for one run: with the planned strategy the plan, the run's
:class:`~sagemaker_fleet.dispatch.RunTracker` and its poller (:class:`~.polling.SimulatedFleetPoller`, account-aware
as in the triggerer: its sweeps list the account's jobs); with the stock pattern the per-job poller. Its calls go
through its own :class:`~.endpoint.RunEndpoint`, so its simulate JSON counts them alone. The loop that moves time
(:class:`~.run.AccountSimulation`) drives one run or several on one engine; a run begins at ``starts_at``.
"""

from __future__ import annotations

import dataclasses
from collections import Counter
from collections.abc import Iterable
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any
from weakref import WeakKeyDictionary

from sagemaker_fleet.cost.report import build_cost_report
from sagemaker_fleet.dispatch import DispatchRules, RunOptions, RunTracker, dispatch_from_plan
from sagemaker_fleet.jobs.prices import PriceBook
from sagemaker_fleet.jobs.progress import run_job_names
from sagemaker_fleet.plan.planner import plan_fleet
from sagemaker_fleet.registry.whatif import first_run
from sagemaker_fleet.simulate.endpoint import RunEndpoint
from sagemaker_fleet.simulate.polling import PerJobPoller, SimulatedFleetPoller
from sagemaker_fleet.simulate.result import SimulationResult
from sagemaker_fleet.simulate.strategies import DispatchStrategy, NaiveStrategy, Strategy
from sagemaker_fleet.simulate.tasks import CityTask, SimulatedOperator

if TYPE_CHECKING:
    from collections.abc import Mapping

    from sagemaker_fleet.cost.model import CostLine
    from sagemaker_fleet.fleetspec.model import FleetSpec, InstanceQuota
    from sagemaker_fleet.plan.fleet_plan import FleetPlan
    from sagemaker_fleet.sim.engine import SimEngine
    from sagemaker_fleet.simulate.options import SimulateOptions
    from sagemaker_fleet.simulate.timeline import Timeline

#: The account's sharing board (``sharing``: S3 objects by "bucket/key", with their LastModified) of each engine: the
#: runs of one account (``simulate a.yaml b.yaml``) post to and read the same one.
_BOARDS: WeakKeyDictionary[SimEngine, dict[str, tuple[float, object]]] = WeakKeyDictionary()


class FleetRun:
    """One fleet run (``options.run_key``) on ``engine``, beginning at simulated time ``starts_at``.

    ``ended_at``: job name → when it reached a terminal status, kept by the loop for every job of the engine.
    ``plan`` is the planner's output for the ``planned`` strategy (None for ``naive``).
    """

    def __init__(
        self,
        spec: FleetSpec,
        options: SimulateOptions,
        engine: SimEngine,
        timeline: Timeline,
        ended_at: dict[str, float],
        starts_at: float,
        account: Mapping[str, InstanceQuota] | None = None,
    ) -> None:
        self.spec = spec
        self.options = options
        self.engine = engine
        self.starts_at = starts_at
        self.ended_at = ended_at
        self.endpoint = RunEndpoint(engine)
        #: every job name the run may use → (city, attempt)
        self.names = run_job_names(spec, options.run_key)
        self.plan: FleetPlan | None = None
        self.tracker: RunTracker | None = None
        sweeps = None
        if options.strategy == "planned":
            self.plan = plan_fleet(spec, options.run_key, options.history, image_order=options.image_order)
            self.plan = self.plan.within(account or {})  # as the plan task reads the account's quotas
            rules = DispatchRules(image_handoff=options.image_handoff, tail_release=options.tail_release)
            sweeps = dispatch_from_plan(
                self.plan, spec, options.run_key, options.cadence, options=RunOptions(rules=rules)
            )
            self.tracker = sweeps.tracker
        self.tasks = {city.name: CityTask(city, self._keep_alive(city.name)) for city in spec.cities}
        self.operator = SimulatedOperator(spec, options, self.endpoint, timeline, ended_at, self._finished)
        interval = options.cadence.poll_interval
        self.strategy: Strategy
        if sweeps is not None:
            self.operator.tracker = self.tracker
            self.operator.dispatch = SimulatedFleetPoller(
                self.endpoint,
                timeline,
                options.run_key,
                interval,
                sweeps,
                board=_BOARDS.setdefault(engine, {}),
            )
            self.strategy = DispatchStrategy(self.tasks, self.operator)
        else:
            self.operator.per_job = PerJobPoller(self.endpoint, timeline, interval)
            self.strategy = NaiveStrategy(spec, self.tasks, self.operator)

    def _keep_alive(self, city: str) -> int:
        if self.tracker is not None:
            return self.tracker.book.turns[city].keep_alive_seconds
        return self.options.naive_keep_alive_seconds

    def _finished(self, task: CityTask, at: float) -> None:
        self.strategy.finished(task, at)

    def begin(self) -> None:
        """Start the run's first tasks (the loop calls it at :attr:`starts_at`)."""
        self.strategy.begin(self.starts_at)

    def states(self) -> Counter[str]:
        return Counter(task.state for task in self.tasks.values())

    def unfinished(self) -> list[str]:
        return [name for name, task in self.tasks.items() if not task.finished]

    # ------------------------------------------------------------------------------------------ the outcome

    def result(self) -> SimulationResult:
        """The run's outcome, priced by the cost model; the loop calls it once the engine has nothing left to do
        (and, for a throttled run, after it stopped throttling: the report's reads are not the run's load)."""
        counters = (
            self.endpoint.counters.to_json()
        )  # the run's calls only: the report's describes below are not
        names = list(self.operator.owner)
        describes = self.describes(names)
        end = max((self.ended_at[name] for name in names), default=self.starts_at)
        prices = PriceBook.for_spec(self.spec)
        # a what-if is its money: a type without a price refuses it (UnknownPriceError), as validate warned
        prices.require(city.instance_type for city in self.spec.cities)
        report = build_cost_report(
            self.spec,
            self.options.run_key,
            describes,
            prices,
            generated_at=datetime.fromtimestamp(self.engine.now(), UTC),
            plan=self.plan,
        )
        outcomes = self.states()
        models = first_run(self.spec, _trained(report.lines))
        if models is not None:
            report = dataclasses.replace(report, models=models)
        return SimulationResult(
            strategy=self.options.strategy,
            seed=self.options.seed,
            fleet=self.spec.fleet,
            run_key=self.options.run_key,
            jobs=len(self.tasks),
            completed=outcomes["done"],
            failed=outcomes["failed"],
            submissions=len(names),
            makespan_seconds=round(end - self.starts_at),
            api_calls=counters["calls"],
            throttled=sum(counters["throttled"].values()),
            quota_rejections=counters["errors"].get("CreateTrainingJob:ResourceLimitExceeded", 0),
            report=report,
            plan_summary=self.plan.summary if self.plan is not None else None,
            models=models,
        )

    def describes(self, names: list[str] | None = None) -> list[dict[str, Any]]:
        """DescribeTrainingJob of the run's submissions now (all of them by default), as the cost report reads."""
        return [self.engine.describe_training_job(name) for name in names or list(self.operator.owner)]


def _trained(lines: Iterable[CostLine]) -> dict[str, tuple[str, dict[str, float]]]:
    """Each city's latest completed job and its final metrics (the what-if of the registry's gate)."""
    latest: dict[str, CostLine] = {}
    for line in lines:
        if line.status == "Completed" and (
            line.city not in latest or line.attempt > latest[line.city].attempt
        ):
            latest[line.city] = line
    return {city: (line.job_name, dict(line.metrics)) for city, line in latest.items()}
