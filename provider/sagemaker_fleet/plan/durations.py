"""How long each planned job is expected to take: start-up (cold or warm) plus training.

Training seconds come from the spec's ``expected_seconds`` unless a previous run measured them; start-up comes
from the seed benchmark (:func:`sagemaker_fleet.jobs.startup.startup_p90`) unless the previous run measured enough.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from sagemaker_fleet.jobs.startup import IMAGE_PULL_P90, startup_p90

if TYPE_CHECKING:
    from sagemaker_fleet.fleetspec.model import CitySpec, FleetSpec
    from sagemaker_fleet.plan.history import DurationHistory


@dataclass(frozen=True)
class StartupSeconds:
    """Seconds from CreateTrainingJob to training, on fresh instances (cold) or on a reused pool (warm); a warm
    start whose image differs from the pool's previous job's adds ``image_pull`` (never beyond a cold start)."""

    cold: int
    warm: int
    image_pull: int = IMAGE_PULL_P90

    def of(self, *, warm: bool, image_pulled: bool = False) -> int:
        if not warm:
            return self.cold
        return min(self.warm + self.image_pull, self.cold) if image_pulled else self.warm


def startup_model(spec: FleetSpec, history: DurationHistory | None = None) -> StartupSeconds:
    cold = startup_p90(spec.input_mode, warm=False)
    warm = startup_p90(spec.input_mode, warm=True)
    if history is not None:
        measured_cold = history.startup_p90(warm=False)
        measured_warm = history.startup_p90(warm=True)
        cold = measured_cold if measured_cold is not None else cold
        warm = measured_warm if measured_warm is not None else warm
    return StartupSeconds(cold=cold, warm=min(warm, cold))


def expected_training_seconds(city: CitySpec, history: DurationHistory | None = None) -> int:
    measured = history.training_seconds(city.name) if history is not None else None
    return measured if measured is not None else city.expected_seconds
