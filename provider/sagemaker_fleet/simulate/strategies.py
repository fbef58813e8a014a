"""When each city's task starts: following the planner's lanes, or the stock behaviour (docs/formats.md, command line).

- :class:`DispatchStrategy`: what the fleet DAG does — each warm-pool group in the plan's order and width, the next
  city admitted by the run's :class:`~sagemaker_fleet.dispatch.RunTracker` in the poller sweep that sees a job of
  its group end, within the instance quotas counted as SageMaker counts them.
- :class:`NaiveStrategy`: tasks in spec order, as many at once as each instance type's quota holds
  (``instances // instance_count``; spot cities on ``spot_instances`` when given, else sharing ``instances``),
  a fixed keep-alive on every on-demand job; a freed slot goes to the next waiting city in spec order. The slots
  count running tasks only — idle warm pools still hold instances, which is what makes the stock pattern collide
  with its own pools (ResourceLimitExceeded, then the back-off).
"""

from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING, Protocol

from sagemaker_fleet.dispatch import QuotaKey, quota_key
from sagemaker_fleet.simulate.errors import SimulationError

if TYPE_CHECKING:
    from sagemaker_fleet.fleetspec.model import CitySpec, FleetSpec
    from sagemaker_fleet.simulate.tasks import CityTask, SimulatedOperator


class Strategy(Protocol):
    def begin(self, at: float) -> None:
        """Start the first tasks; the run begins at simulated time ``at``."""

    def finished(self, task: CityTask, at: float) -> None:
        """``task`` is over (done or failed); its successor may be created at ``at``."""


class DispatchStrategy:
    """The fleet DAG's dispatch: every city's task starts at once and waits for its turn through the run's
    :class:`~sagemaker_fleet.simulate.polling.SimulatedFleetPoller`, whose sweeps admit those the run's
    :class:`RunTracker` lets through (the triggerer's rule, the same code); re-submissions and retries after a
    refused create wait for room the same way."""

    def __init__(self, tasks: dict[str, CityTask], operator: SimulatedOperator) -> None:
        self.tasks = tasks
        self.operator = operator

    def begin(self, at: float) -> None:
        for task in self.tasks.values():
            self.operator.start(task, at)

    def finished(self, task: CityTask, at: float) -> None:
        """Nothing to do: the next listing sees the job's end and admits its successor."""


def slot_pool(spec: FleetSpec, city: CitySpec) -> tuple[QuotaKey, int]:
    """The quota a city's task draws its slots from, and how many instances that quota has."""
    quota = spec.quotas.get(city.instance_type)
    if quota is None:
        raise SimulationError(
            f"quotas: no entry for {city.instance_type} (city {city.name}); add `quotas: {{{city.instance_type}: "
            "{instances: N, warm_pools: N}}` with your account's Service Quotas"
        )
    pool = quota_key(spec, city)  # spot_instances only when the spec gives it, so never None there
    if pool[1] == "spot_instances" and quota.spot_instances is not None:
        return pool, quota.spot_instances
    return pool, quota.instances


class NaiveStrategy:
    def __init__(self, spec: FleetSpec, tasks: dict[str, CityTask], operator: SimulatedOperator) -> None:
        self.operator = operator
        self.capacity: dict[QuotaKey, int] = {}
        self.waiting: dict[QuotaKey, list[CityTask]] = {}
        self.pool_of: dict[str, QuotaKey] = {}
        for city in spec.cities:
            pool, instances = slot_pool(spec, city)
            if city.instance_count > instances:
                raise SimulationError(
                    f"city {city.name} needs {city.instance_count} × {city.instance_type} per job but "
                    f"quotas.{pool[0]}.{pool[1]} is {instances}; lower instance_count or raise the quota"
                )
            self.capacity[pool] = instances
            self.waiting.setdefault(pool, []).append(tasks[city.name])
            self.pool_of[city.name] = pool
        self.in_use: Counter[QuotaKey] = Counter()

    def begin(self, at: float) -> None:
        for pool in self.waiting:
            self._fill(pool, at)

    def finished(self, task: CityTask, at: float) -> None:
        pool = self.pool_of[task.city.name]
        self.in_use[pool] -= task.city.instance_count
        self._fill(pool, at)

    def _fill(self, pool: QuotaKey, at: float) -> None:
        """Start waiting tasks in spec order while they fit (a task too wide for the free slots is passed over,
        as Airflow's pools pass over a task needing more slots than are open)."""
        waiting = self.waiting[pool]
        free = self.capacity[pool] - self.in_use[pool]
        started: list[CityTask] = []
        for task in waiting:
            if free <= 0:
                break
            if task.city.instance_count <= free:
                free -= task.city.instance_count
                started.append(task)
        for task in started:
            waiting.remove(task)
            self.in_use[pool] += task.city.instance_count
            self.operator.start(task, at)
