"""Start-up durations (CreateTrainingJob → Training) calibrated to the seed table in :mod:`sagemaker_fleet.startup`.

Each start-up is drawn from a log-normal whose 90th percentile is the table's P90 for the input mode, cold or warm,
so simulated P90s match the table (``benchmarks/bench_sim_startup.py`` prints them side by side). The draw is split
into ``Starting`` (provisioning, not billed) and ``Downloading`` (image pull and data, billed): a warm pool skips
most of the provisioning, File mode copies the whole data set again.
"""

from __future__ import annotations

import math
import random
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from sagemaker_fleet.startup import startup_p90

#: The 90th percentile of the standard normal distribution.
Z90 = 1.2815515655446004
#: Share of a start-up spent in ``Starting`` (provisioning); the rest is ``Downloading``.
COLD_STARTING_SHARE = 0.55
WARM_STARTING_SHARE = 0.25


@dataclass(frozen=True)
class StartupSample:
    starting: float
    downloading: float

    @property
    def total(self) -> float:
        return self.starting + self.downloading


@dataclass(frozen=True)
class StartupModel:
    """``spread`` is the log-normal sigma: 0.2 puts the median at ~77 % of the P90."""

    spread: float = 0.2

    def median(self, mode: str, *, warm: bool) -> float:
        return startup_p90(mode, warm=warm) / math.exp(Z90 * self.spread)

    def sample(self, mode: str, *, warm: bool, rng: random.Random) -> StartupSample:
        total = self.median(mode, warm=warm) * math.exp(self.spread * rng.gauss(0.0, 1.0))
        share = WARM_STARTING_SHARE if warm else COLD_STARTING_SHARE
        return StartupSample(starting=total * share, downloading=total * (1.0 - share))


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
