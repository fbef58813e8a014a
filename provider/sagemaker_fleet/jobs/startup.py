"""The start-up model (docs/sagemaker-behaviour.md, start-up times: the seed benchmark): seconds from CreateTrainingJob to Training.

One table serves the planner (durations), the simulator (calibration target) and the cost report (seconds saved).
Pipe mode has no published figure; it streams like Fast File, so it takes Fast File's values (documented doubt).

A cold start is provisioning + image pull + data download; a warm start skips provisioning and, when the job's
training image is the one the pool's previous job ran, the image pull. The image is not a warm-pool matching
criterion, so a job with another image still reuses the pool — and pulls its image from ECR again
(https://docs.aws.amazon.com/sagemaker/latest/dg/train-warm-pools.html). The seed gives no figure for that pull
alone; :data:`IMAGE_PULL_P90` derives it from the seed itself (see :func:`seed_image_pull_seconds`).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class StartupP90:
    cold: int
    warm: int


#: The seed benchmark's training image (TensorFlow) and data set, in GB.
SEED_IMAGE_GB = 1.34
SEED_DATA_GB = 2.0

#: P90 seconds for a 1.34 GB image and 2 GB of data.
STARTUP_P90: dict[str, StartupP90] = {
    "FSx": StartupP90(cold=136, warm=19),
    "FastFile": StartupP90(cold=143, warm=21),
    "File": StartupP90(cold=176, warm=70),
    "Pipe": StartupP90(cold=143, warm=21),
}


def seed_image_pull_seconds() -> int:
    """Seconds to pull the seed's 1.34 GB image onto an instance, at the seed's own download rate.

    File mode copies the whole 2 GB data set on every job, warm or not, and FSx for Lustre copies none, so warm
    File − warm FSx = 70 − 19 = 51 s is what 2 GB cost to download onto a warm instance: 25.5 s/GB. An image pull
    is the same kind of transfer (AWS storage to the instance's volume), so 1.34 GB take 1.34 × 25.5 ≈ 34 s.
    Cross-check: cold FSx − warm FSx = 117 s is provisioning plus the pull, which leaves 83 s for provisioning.
    """
    per_gb = (STARTUP_P90["File"].warm - STARTUP_P90["FSx"].warm) / SEED_DATA_GB
    return round(SEED_IMAGE_GB * per_gb)


#: P90 seconds a start-up spends pulling the training image (part of every cold start; added to a warm start
#: whose image differs from the pool's previous job's).
IMAGE_PULL_P90 = seed_image_pull_seconds()


def startup_p90(input_mode: str, *, warm: bool, image_pulled: bool = False) -> int:
    """The P90 start-up of ``input_mode``; ``image_pulled`` adds the image pull to a warm start (a cold start
    always has it)."""
    entry = STARTUP_P90.get(input_mode, STARTUP_P90["FastFile"])
    if not warm:
        return entry.cold
    return entry.warm + (IMAGE_PULL_P90 if image_pulled else 0)
