"""The spot market as the simulator sees it: capacity waits, interruptions and each job's discount.

Every draw is keyed by seed, job and attempt (:mod:`sagemaker_fleet.sim.seeding`), so a job's spot fate does not
depend on what else runs. There is no fallback to on-demand: SageMaker retries within MaxWait (docs/sagemaker-behaviour.md, managed spot training).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from sagemaker_fleet.sim.seeding import stream, uniform

if TYPE_CHECKING:
    from sagemaker_fleet.sim.config import SpotMarketConfig


def capacity_wait(
    config: SpotMarketConfig, seed: int, job: str, attempt: int, instance_type: str
) -> float | None:
    """Seconds until spot capacity is granted for this (re)start, or None when it never is."""
    if instance_type in config.no_capacity_types:
        return None
    if config.capacity_wait_mean_seconds <= 0:
        return 0.0
    return stream(seed, job, "capacity", attempt).expovariate(1.0 / config.capacity_wait_mean_seconds)


def interruption_after(config: SpotMarketConfig, seed: int, job: str, attempt: int) -> float | None:
    """Seconds of training before this attempt's instances are reclaimed, or None (never)."""
    if config.interruptions_per_hour <= 0:
        return None
    return stream(seed, job, "interruption", attempt).expovariate(config.interruptions_per_hour / 3600.0)


def interrupted_seconds(config: SpotMarketConfig, seed: int, job: str, attempt: int) -> float:
    return uniform(seed, config.interrupted_seconds, job, "interrupted", attempt)


def discount(config: SpotMarketConfig, seed: int, job: str) -> float:
    low = config.discount - config.discount_spread
    high = config.discount + config.discount_spread
    return min(max(uniform(seed, (low, high), job, "discount"), 0.0), 0.95)
