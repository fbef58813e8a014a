"""A fleet run's own line to the account's engine: the same calls, also counted as the run's.

Several runs of ``simulate`` share one engine — one account, its quotas, its pools — as the triggerer's runs share
one AWS account. The engine counts every call of the account; each run's :class:`RunEndpoint` passes its own
:class:`~sagemaker_fleet.sim.counters.ApiCounters` along, so a run's simulate JSON (``api_calls``, ``throttled``,
``quota_rejections``) holds that run's calls only. With one run the two counts are the same.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Protocol

from sagemaker_fleet.sim.counters import ApiCounters

if TYPE_CHECKING:
    from sagemaker_fleet.sim.engine import SimEngine


class Endpoint(Protocol):
    """The calls a simulated run makes: :class:`RunEndpoint`, or the engine itself (tests)."""

    def now(self) -> float: ...

    def call(self, operation: str, request: Mapping[str, Any]) -> dict[str, Any]: ...

    def create_training_job(self, request: Mapping[str, Any]) -> dict[str, Any]: ...

    def describe_training_job(self, name: str) -> dict[str, Any]: ...

    def list_training_jobs(self, request: Mapping[str, Any] | None = None) -> dict[str, Any]: ...

    def update_training_job(self, request: Mapping[str, Any]) -> dict[str, Any]: ...


class RunEndpoint:
    """The engine, as one run calls it: every call counted in :attr:`counters` too."""

    def __init__(self, engine: SimEngine) -> None:
        self.engine = engine
        self.counters = ApiCounters()

    def now(self) -> float:
        return self.engine.now()

    def call(self, operation: str, request: Mapping[str, Any]) -> dict[str, Any]:
        return self.engine.call(operation, request, tally=self.counters)

    def create_training_job(self, request: Mapping[str, Any]) -> dict[str, Any]:
        return self.call("CreateTrainingJob", request)

    def describe_training_job(self, name: str) -> dict[str, Any]:
        return self.call("DescribeTrainingJob", {"TrainingJobName": name})

    def list_training_jobs(self, request: Mapping[str, Any] | None = None) -> dict[str, Any]:
        return self.call("ListTrainingJobs", request or {})

    def update_training_job(self, request: Mapping[str, Any]) -> dict[str, Any]:
        return self.call("UpdateTrainingJob", request)
