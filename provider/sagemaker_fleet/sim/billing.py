"""Billing figures of a finished job (docs/sagemaker-behaviour.md, billing fields).

On demand: TrainingTimeInSeconds = BillableTimeInSeconds = seconds the cluster ran (Downloading, Training,
Uploading; the provisioning in Starting is free). Spot: TrainingTimeInSeconds leaves out the intervals lost to an
interruption (work since the last checkpoint) and the waits; BillableTimeInSeconds is those productive seconds
priced at the spot discount, expressed as on-demand seconds.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Billing:
    training_seconds: int
    billable_seconds: int

    @property
    def savings_pct(self) -> float:
        if self.training_seconds <= 0:
            return 0.0
        return (1.0 - self.billable_seconds / self.training_seconds) * 100.0


def _seconds(value: float) -> int:
    """Whole seconds as AWS reports them; any started second of a run counts."""
    return max(round(value), 1) if value > 0 else 0


def bill(running_seconds: float, lost_seconds: float, *, spot: bool, discount: float) -> Billing:
    if not spot:
        seconds = _seconds(running_seconds)
        return Billing(seconds, seconds)
    productive = _seconds(max(running_seconds - lost_seconds, 0.0))
    billable = _seconds(productive * (1.0 - discount)) if productive else 0
    return Billing(productive, billable)
