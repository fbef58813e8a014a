"""Cold or warm: how each submission started, how long start-up took and what the warm pool saved.

Start-up is measured from SecondaryStatusTransitions: from the job's first transition (Starting, or Pending) to the
start of its first ``Training``; a later Training after a spot interruption is not start-up. Without transitions,
CreationTime and TrainingStartTime stand in.

The rule, explicit evidence first:

1. **reused-pool → warm.** Another job says ``WarmPoolStatus.ReusedByJob == <this job>``: this job ran on that
   job's retained instances. That job is the run's, or another run's that the cost report found by a look at the
   account (:mod:`sagemaker_fleet.cost.crossruns`): either way the hand-over counts once, as this job's warm start;
   the giver's own start is never read from its ``ReusedByJob``. This is the only direct evidence AWS gives; a job's *own* WarmPoolStatus
   describes the pool it leaves behind (``InUse`` is documented only as "in use for the training job", which a
   cold-started job with keep-alive can show too), so it is not read as evidence about how the job started.
2. **spot → cold.** Warm pools do not work with managed spot training (docs/sagemaker-behaviour.md, warm pools).
3. **never trained → cold.** A job that never reached Training has no start-up to compare; it is counted cold
   unless rule 1 applies.
4. **timing.** Otherwise (e.g. a pool handed over by the previous run, whose jobs are not in this report) the job
   is warm when its start-up is close to the warm model: at most ``min(1.5 × warm P90, (warm P90 + cold P90) / 2)``
   for its input mode (FastFile 31.5 s, File 105 s, FSx 28.5 s); cold otherwise. Provisioning plus an image pull
   does not fit in that time, so a cold start is not mistaken for warm; a warm File-mode start over a large data
   set may be counted cold — rule 1 covers every hand-over inside the run.

**Image re-pulled.** The training image is no matching criterion: a job with another image reuses the pool but
pulls its image from ECR again. A warm start by rule 1 is flagged ``image_pulled`` when its
``AlgorithmSpecification.TrainingImage`` differs from that of the job that handed it the pool (the one whose
``ReusedByJob`` names it). A pool handed over by a previous run has no such job in the report: its start is never
flagged, and with the pull it is usually too slow for rule 4, so it counts cold.

Seconds saved are counted for warm starts only: ``max(0, cold P90 − observed start-up)``, with the cold P90 of the
start-up model (docs/sagemaker-behaviour.md, start-up times) for the job's input mode.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Literal

from sagemaker_fleet.jobs.startup import startup_p90
from sagemaker_fleet.jobs.statuses import STARTUP_STATES

if TYPE_CHECKING:
    from sagemaker_fleet.jobs.record import TrainingJobRecord

StartKind = Literal["cold", "warm"]
StartEvidence = Literal["reused-pool", "spot", "never-trained", "timing"]
WARM_TOLERANCE = 1.5


@dataclass(frozen=True)
class StartObservation:
    kind: StartKind
    evidence: StartEvidence
    startup_seconds: float
    reached_training: bool
    cold_model_seconds: int
    warm_model_seconds: int
    image_pulled: bool = False  # warm, but the image differs from the pool's previous job's: pulled again

    @property
    def seconds_saved(self) -> float:
        if self.kind != "warm":
            return 0.0
        return max(0.0, self.cold_model_seconds - self.startup_seconds)


def warm_threshold_seconds(input_mode: str) -> float:
    warm = startup_p90(input_mode, warm=True)
    cold = startup_p90(input_mode, warm=False)
    return min(WARM_TOLERANCE * warm, (warm + cold) / 2)


def training_started_at(record: TrainingJobRecord) -> datetime | None:
    """Start of the first Training state (TrainingStartTime when there are no transitions)."""
    for transition in record.transitions:
        if transition.status == "Training":
            return transition.start
    return record.training_start_time if not record.transitions else None


def measure_startup(record: TrainingJobRecord) -> tuple[float, bool]:
    """(start-up seconds, reached Training). For a job that never trained: the time it spent starting."""
    begin = record.transitions[0].start if record.transitions else record.creation_time
    if begin is None:
        return 0.0, False
    trained_at = training_started_at(record)
    if trained_at is not None:
        return max(0.0, (trained_at - begin).total_seconds()), True
    starting = [t for t in record.transitions if t.status in STARTUP_STATES]
    ends = [t.end for t in starting if t.end is not None]
    until = max(ends, default=None) or record.ended_at()
    return (max(0.0, (until - begin).total_seconds()) if until else 0.0), False


def observe_start(
    record: TrainingJobRecord,
    reused_jobs: Collection[str],
    default_input_mode: str,
    *,
    previous_image: str | None = None,
) -> StartObservation:
    """Classify one submission; ``reused_jobs`` are the names some job (of the run, or another run's found by the
    report) named in ReusedByJob, and ``previous_image`` is the training image of the job that handed this one its
    pool (if any)."""
    mode = record.input_mode or default_input_mode
    seconds, trained = measure_startup(record)
    kind: StartKind
    evidence: StartEvidence
    if record.name in reused_jobs:
        kind, evidence = "warm", "reused-pool"
    elif record.spot:
        kind, evidence = "cold", "spot"
    elif not trained:
        kind, evidence = "cold", "never-trained"
    else:
        kind = "warm" if seconds <= warm_threshold_seconds(mode) else "cold"
        evidence = "timing"
    pulled = (
        evidence == "reused-pool"
        and None not in (previous_image, record.training_image)
        and previous_image != record.training_image
    )
    return StartObservation(
        kind=kind,
        evidence=evidence,
        startup_seconds=seconds,
        reached_training=trained,
        cold_model_seconds=startup_p90(mode, warm=False),
        warm_model_seconds=startup_p90(mode, warm=True, image_pulled=pulled),
        image_pulled=pulled,
    )
