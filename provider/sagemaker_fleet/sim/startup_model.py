"""Start-up durations (CreateTrainingJob → Training) calibrated to the seed table in :mod:`sagemaker_fleet.jobs.startup`.

Each start-up is drawn from a log-normal whose 90th percentile is the table's P90 for the input mode, cold or warm,
so simulated P90s match the table (``benchmarks/bench_sim_startup.py`` prints them side by side). A start-up is
three parts, all scaled by the same draw so that their P90s add up to the table's:

- **provisioning** — cold only: cold P90 − warm P90 − image pull (FastFile 143 − 21 − 34 = 88 s);
- **image pull** — :data:`~sagemaker_fleet.jobs.startup.IMAGE_PULL_P90` (34 s for the seed's 1.34 GB image): every
  cold start, and a warm start whose image differs from the pool's previous job's;
- **the warm part** — the warm P90: the container's set-up on the instances and the data (File mode copies the
  whole data set again, warm or not).

``Starting`` (not billed) is provisioning plus a quarter of the warm part; ``Downloading`` (billed) is the image
pull plus the rest, so a re-pulled image shows as a longer Downloading in SecondaryStatusTransitions.
"""

from __future__ import annotations

import math
import random
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from sagemaker_fleet.jobs.startup import IMAGE_PULL_P90, startup_p90

#: The 90th percentile of the standard normal distribution.
Z90 = 1.2815515655446004
#: Share of the warm part spent in ``Starting`` (the container's set-up); the rest is ``Downloading``.
WARM_STARTING_SHARE = 0.25


@dataclass(frozen=True)
class StartupSample:
    starting: float
    downloading: float
    image_pull: float = 0.0  # the part of ``downloading`` spent pulling the training image

    @property
    def total(self) -> float:
        return self.starting + self.downloading


@dataclass(frozen=True)
class StartupModel:
    """``spread`` is the log-normal sigma: 0.2 puts the median at ~77 % of the P90."""

    spread: float = 0.2

    def median(self, mode: str, *, warm: bool, image_pulled: bool = False) -> float:
        return startup_p90(mode, warm=warm, image_pulled=image_pulled) / math.exp(Z90 * self.spread)

    def sample(
        self, mode: str, *, warm: bool, rng: random.Random, image_pulled: bool = False
    ) -> StartupSample:
        """One start-up; ``image_pulled`` matters only when ``warm`` (a cold start always pulls the image)."""
        scale = math.exp(self.spread * rng.gauss(0.0, 1.0)) / math.exp(Z90 * self.spread)
        warm_part = startup_p90(mode, warm=True)
        pull = IMAGE_PULL_P90 if (image_pulled or not warm) else 0
        provisioning = 0 if warm else max(startup_p90(mode, warm=False) - warm_part - pull, 0)
        starting = provisioning + WARM_STARTING_SHARE * warm_part
        downloading = pull + (1.0 - WARM_STARTING_SHARE) * warm_part
        return StartupSample(
            starting=starting * scale, downloading=downloading * scale, image_pull=pull * scale
        )


def startup_mode(request: Mapping[str, Any]) -> str:
    """The row of the seed table a request falls in: FSx when a channel reads FSx for Lustre, else its input mode."""
    channels = request.get("InputDataConfig") or []
    modes: list[str] = []
    for channel in channels if isinstance(channels, list) else []:
        if not isinstance(channel, Mapping):
            continue
        source = channel.get("DataSource") or {}
        if isinstance(source, Mapping) and "FileSystemDataSource" in source:
            return "FSx"
        if isinstance(channel.get("InputMode"), str):
            modes.append(str(channel["InputMode"]))
    algorithm = request.get("AlgorithmSpecification") or {}
    default = algorithm.get("TrainingInputMode") if isinstance(algorithm, Mapping) else None
    if "File" in modes:
        return "File"
    if modes:
        return modes[0]
    return str(default) if isinstance(default, str) else "File"
