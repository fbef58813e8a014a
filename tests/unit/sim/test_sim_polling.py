"""The simulated triggerer's listing follows pages by the hook's rule: every page until NextToken ends, and a
NextToken that comes back is the endpoint's fault (SimulationError), never an endless loop."""

from __future__ import annotations

from typing import Any

import pytest

from sagemaker_fleet.dispatch import DispatchBook, build_run_dispatch
from sagemaker_fleet.simulate import SimulationError
from sagemaker_fleet.simulate.polling import SimulatedFleetPoller


class PagedEngine:
    """Answers ListTrainingJobs with one summary a page and the given NextTokens, in turn (the last one repeats)."""

    def __init__(self, tokens: list[str | None]) -> None:
        self.tokens = tokens
        self.requests: list[dict[str, Any]] = []

    def now(self) -> float:
        return 0.0

    def list_training_jobs(self, request: dict[str, Any]) -> dict[str, Any]:
        self.requests.append(request)
        token = self.tokens[min(len(self.requests), len(self.tokens)) - 1]
        page: dict[str, Any] = {"TrainingJobSummaries": [{"TrainingJobName": f"job-{len(self.requests)}"}]}
        if token is not None:
            page["NextToken"] = token
        return page


def poller(engine: PagedEngine) -> SimulatedFleetPoller:
    sweeps = build_run_dispatch(DispatchBook.empty(), {})
    return SimulatedFleetPoller(engine, timeline=None, run_key="20261129", interval=30.0, sweeps=sweeps)  # type: ignore[arg-type]


def test_every_page_is_read_until_the_token_ends() -> None:
    engine = PagedEngine(["a", "b", None])
    listed = poller(engine)._list("-20261129", creation_time_after=None)
    assert listed == [{"TrainingJobName": f"job-{n}"} for n in (1, 2, 3)]
    assert [r.get("NextToken") for r in engine.requests] == [None, "a", "b"]


def test_a_token_that_comes_back_stops_the_run_with_a_simulation_error() -> None:
    engine = PagedEngine(["a", "b", "a"])
    with pytest.raises(SimulationError, match="NextToken 'a' came back a second time"):
        poller(engine)._list("-20261129", creation_time_after=None)
    assert len(engine.requests) == 3
