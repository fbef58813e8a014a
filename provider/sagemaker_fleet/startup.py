"""The start-up model (SAGEMAKER_FACTS §2, the seed benchmark): seconds from CreateTrainingJob to Training.

One table serves the planner (durations), the simulator (calibration target) and the cost report (seconds saved).
Pipe mode has no published figure; it streams like Fast File, so it takes Fast File's values (documented doubt).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class StartupP90:
    cold: int
    warm: int


#: P90 seconds for a 1.34 GB image and 2 GB of data.
STARTUP_P90: dict[str, StartupP90] = {
    "FSx": StartupP90(cold=136, warm=19),
    "FastFile": StartupP90(cold=143, warm=21),
    "File": StartupP90(cold=176, warm=70),
    "Pipe": StartupP90(cold=143, warm=21),
}


def startup_p90(input_mode: str, *, warm: bool) -> int:
    entry = STARTUP_P90.get(input_mode, STARTUP_P90["FastFile"])
    return entry.warm if warm else entry.cold
