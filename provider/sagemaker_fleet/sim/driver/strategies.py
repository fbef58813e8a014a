"""When each city's task starts: following the planner's lanes, or the stock behaviour (CONTRACT §3).

- :class:`PlannedStrategy`: every lane of the plan runs its jobs in order, each with the plan's keep-alive; a
  lane's first job starts at its planned start, each next one when its predecessor's task has finished (one
  orchestration latency after the job ended). A lane planned behind another on the same capacity starts at its
  planned time even if that one runs late; the operator's capacity back-off then absorbs the overlap.
- :class:`NaiveStrategy`: tasks in spec order, as many at once as each instance type's quota holds
  (``instances // instance_count``; spot cities on ``spot_instances`` when given, else sharing ``instances``),
  a fixed keep-alive on every on-demand job; a freed slot goes to the next waiting city in spec order. The slots
  count running tasks only — idle warm pools still hold instances, which is what makes the stock pattern collide
  with its own pools (ResourceLimitExceeded, then the back-off).
"""

from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING, Protocol

from sagemaker_fleet.sim.driver.errors import SimulationError

if TYPE_CHECKING:
    from sagemaker_fleet.plan.fleet_plan import FleetPlan
    from sagemaker_fleet.sim.driver.tasks import CityTask, SimulatedOperator
    from sagemaker_fleet.spec.model import CitySpec, FleetSpec


class Strategy(Protocol):
    def begin(self, at: float) -> None:
        """Start the first tasks; the run begins at simulated time ``at``."""

    def finished(self, task: CityTask, at: float) -> None:
        """``task`` is over (done or failed); its successor may be created at ``at``."""


class PlannedStrategy:
    def __init__(self, plan: FleetPlan, tasks: dict[str, CityTask], operator: SimulatedOperator) -> None:
        self.plan = plan
        self.tasks = tasks
        self.operator = operator

    def begin(self, at: float) -> None:
        for lane in self.plan.lanes:
            first = lane.jobs[0]
            self.operator.start(self.tasks[first.city], at + first.planned_start_seconds)

    def finished(self, task: CityTask, at: float) -> None:
        successor = self.plan.successor(task.city.name)
        if successor is not None:
            self.operator.start(self.tasks[successor.city], at)


SlotPool = tuple[str, str]  # (instance type, "instances" | "spot_instances")


def slot_pool(spec: FleetSpec, city: CitySpec) -> tuple[SlotPool, int]:
    """The quota a city's task draws its slots from, and how many instances that quota has."""
    quota = spec.quotas.get(city.instance_type)
    if quota is None:
        raise SimulationError(
            f"quotas: no entry for {city.instance_type} (city {city.name}); add `quotas: {{{city.instance_type}: "
            "{instances: N, warm_pools: N}}` with your account's Service Quotas"
        )
    if city.spot is not None and quota.spot_instances is not None:
        return (city.instance_type, "spot_instances"), quota.spot_instances
    return (city.instance_type, "instances"), quota.instances


class NaiveStrategy:
    def __init__(self, spec: FleetSpec, tasks: dict[str, CityTask], operator: SimulatedOperator) -> None:
        self.operator = operator
        self.capacity: dict[SlotPool, int] = {}
        self.waiting: dict[SlotPool, list[CityTask]] = {}
        self.pool_of: dict[str, SlotPool] = {}
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
        self.in_use: Counter[SlotPool] = Counter()

    def begin(self, at: float) -> None:
        for pool in self.waiting:
            self._fill(pool, at)

    def finished(self, task: CityTask, at: float) -> None:
        pool = self.pool_of[task.city.name]
        self.in_use[pool] -= task.city.instance_count
        self._fill(pool, at)

    def _fill(self, pool: SlotPool, at: float) -> None:
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
