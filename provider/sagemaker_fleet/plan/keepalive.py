"""The keep-alive rule: how long a job's warm pool is kept so that its successor in the lane can reuse it.

A pool only helps if the successor's CreateTrainingJob arrives before the pool expires, and every idle second is
billed (docs/sagemaker-behaviour.md, warm pools). The planner therefore asks for the planned gap plus a margin of one orchestration
latency (at least :data:`MIN_MARGIN_SECONDS`), capped at the 3600 s the developer guide documents.
"""

from __future__ import annotations

from sagemaker_fleet.fleetspec.model import KEEP_ALIVE_GUIDE_MAX

#: Smallest margin added to a gap, so that a fleet with zero orchestration latency still keeps its pools.
MIN_MARGIN_SECONDS = 60
#: The largest keep-alive the planner chooses on its own (an explicit spec value may go up to 21600).
AUTO_KEEP_ALIVE_MAX = KEEP_ALIVE_GUIDE_MAX


def margin_seconds(latency: int) -> int:
    """The allowance on top of the planned gap: one orchestration latency, at least a minute."""
    return max(latency, MIN_MARGIN_SECONDS)


def warm_reuse_possible(latency: int) -> bool:
    """Whether a pool kept for at most the auto maximum can outlive the gap between two jobs of a lane."""
    return latency + MIN_MARGIN_SECONDS <= AUTO_KEEP_ALIVE_MAX


def auto_keep_alive(gap: int, latency: int) -> int:
    """Keep-alive of a job followed in its lane ``gap`` seconds later: the gap plus a margin, capped."""
    return max(0, min(gap + margin_seconds(latency), AUTO_KEEP_ALIVE_MAX))


def planned_keep_alive(explicit: int | None, latency: int, *, warm_lane: bool, last: bool) -> int:
    """A planned job's keep-alive. A lane without a warm pool keeps none; on a warm lane an explicit value stands,
    and auto covers the hand-off to the successor (created one latency later) — 0 for the lane's last job, whose
    pool nobody takes over."""
    if not warm_lane:
        return 0
    if explicit is not None:
        return explicit
    return 0 if last else auto_keep_alive(latency, latency)


def keep_alive_ceiling(explicit: int | None, *, spot: bool) -> int:
    """The longest keep-alive any job of a city may be created with, whatever the plan and the run decide: an
    explicit value, else :data:`AUTO_KEEP_ALIVE_MAX`; 0 for a spot city (a spot lane keeps no pool, and its
    on-demand fallback is created with the spot lane's keep-alive). The IAM policy's keep-alive condition
    (``sagemaker-fleet iam``) is this ceiling; the plan and the dispatch only ever ask for less."""
    if spot:
        return 0
    return explicit if explicit is not None else AUTO_KEEP_ALIVE_MAX


def pool_outlives(keep_alive: int, gap: int) -> bool:
    """A pool kept ``keep_alive`` seconds is still there when the successor is created ``gap`` seconds later."""
    return keep_alive > gap
