"""Place every job, in virtual time: the lanes of a unit's slot layout run, each taking its group's longest job.

Every slot opens its first planned lane at the unit's start (cold lanes pick first: they take the longest jobs,
as their jobs start cold anyway). Whenever a lane's job ends, the lane takes the longest job its group still has
waiting, created one orchestration latency later — the longest-expected-first rule onto the earliest free
(least-loaded) lane, with lanes of different speeds (warm or cold) — except that a warm lane prefers the longest
job with its previous job's training image, if it is not much shorter, because a warm start with another image
pulls it again (the image is no warm-pool matching criterion; :mod:`.waiting`). A lane with a successor planned on its slot
hands the slot over once its budget is spent (unless it is its group's last lane); the successor's first job is
created one latency after the slot is free. A lane keeps a warm pool when its slot is a warm slot and its group
is on demand. Two corrections to the layout's estimates: a slot with nothing left in its plan takes a lane of
the group furthest behind, if one more lane pays for its cold start; and lanes planned behind a slot that an
explicit keep-alive holds move to idle slots.

Occupancy is counted conservatively: a slot holds its instances — and, if warm, its warm-pool quota — from its
first lane's start until its last lane ends plus any keep-alive that lane's last job has, gaps included. With
``slots × width`` within the instance quota and ``warm slots × width`` within the warm-pool quota, running plus
retained instances never exceed the quota at any instant, nor pools the warm-pool quota.
"""

from __future__ import annotations

import heapq
from collections import deque
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from sagemaker_fleet.plan.keepalive import planned_keep_alive, pool_outlives
from sagemaker_fleet.plan.waiting import WaitingJobs

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

    from sagemaker_fleet.plan.durations import StartupSeconds
    from sagemaker_fleet.plan.groups import CityGroup, JobTask
    from sagemaker_fleet.plan.slots import Piece, PoolUnit, SlotLayout

_JOB_END = 0
_SLOT_FREE = 1


@dataclass(slots=True)
class ScheduledJob:
    task: JobTask
    start: int
    end: int
    warm_start: bool
    keep_alive: int = 0
    image_change: bool = False  # a warm start with another image than the lane's previous job: pulled again


@dataclass(slots=True)
class ScheduledLane:
    group: int
    warm: bool
    slot: int
    budget: float | None
    jobs: list[ScheduledJob] = field(default_factory=list)
    released_at: int = 0

    @property
    def start(self) -> int:
        return self.jobs[0].start

    @property
    def end(self) -> int:
        return self.jobs[-1].end


@dataclass(slots=True)
class _GroupState:
    group: CityGroup
    eligible: bool
    waiting: WaitingJobs
    unclaimed: int  # jobs neither started nor promised to a just-opened lane
    waiting_training: int  # expected training seconds of the jobs not started yet
    open_lanes: int = 0
    planned_lanes: int = 0  # lanes of the layout not opened yet

    def keeper_first(self, lane: ScheduledLane) -> bool:
        """A warm lane takes a job with an explicit keep-alive while it will surely get a successor."""
        return lane.warm and self.unclaimed >= max(1, self.open_lanes)


class UnitScheduler:
    """Runs one unit's slot layout in virtual time, from ``start`` on."""

    def __init__(
        self,
        unit: PoolUnit,
        layout: SlotLayout,
        groups: Mapping[int, tuple[CityGroup, bool]],
        startup: StartupSeconds,
        latency: int,
        *,
        image_order: bool = True,
    ) -> None:
        self.unit = unit
        self.image_order = image_order
        self.layout = layout
        self.startup = startup
        self.latency = latency
        self.states = {
            index: _GroupState(
                group=g,
                eligible=eligible,
                waiting=WaitingJobs(g.tasks),
                unclaimed=len(g.tasks),
                waiting_training=g.training_total,
            )
            for index, (g, eligible) in groups.items()
        }
        self.queues: list[deque[Piece]] = [deque(pieces) for pieces in layout.pieces]
        for pieces in layout.pieces:
            for piece in pieces:
                self.states[piece.group].planned_lanes += 1
        self.lanes: list[ScheduledLane] = []
        self.held: set[int] = set()  # slots whose last lane's pool is kept (an explicit keep-alive)
        self.idle: set[int] = set()  # slots with nothing left to run
        self.events: list[tuple[int, bool, int, int, ScheduledLane | int]] = []
        self.sequence = 0

    def run(self, start: int = 0) -> list[ScheduledLane]:
        first = [lane for slot in range(self.unit.slots) if (lane := self._open(slot)) is not None]
        # Cold lanes take the longest jobs first: each of their jobs starts cold anyway, while a warm lane's
        # warm starts are worth most on many short jobs.
        for lane in sorted(first, key=lambda lane: lane.warm):
            self._start_next(lane, start, warm_start=False)
        while self.events:
            time, _, _, kind, subject = heapq.heappop(self.events)
            if isinstance(subject, int):
                self._slot_free(subject, time)
            else:
                self._job_end(subject, time)
        return self.lanes

    def _push(self, time: int, kind: int, subject: ScheduledLane | int, *, warm: bool = False) -> None:
        self.sequence += 1
        # At equal times cold lanes go first, so that they take the longer job.
        heapq.heappush(self.events, (time, warm, self.sequence, kind, subject))

    def _open(self, slot: int, queue_of: int | None = None) -> ScheduledLane | None:
        """The next planned lane of ``slot`` (or of ``queue_of``'s plan, run on ``slot``) whose group still has
        jobs waiting; None when there is none. The lane claims the job it will start with."""
        queue = self.queues[slot if queue_of is None else queue_of]
        while queue:
            piece = queue.popleft()
            state = self.states[piece.group]
            state.planned_lanes -= 1
            if state.unclaimed > 0:
                return self._new_lane(slot, state, piece.budget)
        return None

    def _new_lane(self, slot: int, state: _GroupState, budget: float | None) -> ScheduledLane:
        lane = ScheduledLane(
            group=state.group.index, warm=self.layout.warm[slot] and state.eligible, slot=slot, budget=budget
        )
        self.lanes.append(lane)
        state.open_lanes += 1
        state.unclaimed -= 1
        return lane

    def _start_next(self, lane: ScheduledLane, start: int, *, warm_start: bool) -> None:
        state = self.states[lane.group]
        task = state.waiting.take(keeper_first=state.keeper_first(lane), image=self._image(lane, warm_start))
        state.waiting_training -= task.training
        change = warm_start and task.image != lane.jobs[-1].task.image
        end = start + self.startup.of(warm=warm_start, image_pulled=change) + task.training
        lane.jobs.append(
            ScheduledJob(task=task, start=start, end=end, warm_start=warm_start, image_change=change)
        )
        self._push(end, _JOB_END, lane, warm=lane.warm)

    def _image(self, lane: ScheduledLane, warm_start: bool) -> str | None:
        """The image a lane's next job should preferably have: its previous job's, when the next one starts on
        that job's pool (a cold start pulls its image anyway)."""
        return lane.jobs[-1].task.image if warm_start and self.image_order and lane.jobs else None

    def _job_end(self, lane: ScheduledLane, time: int) -> None:
        state = self.states[lane.group]
        last = lane.jobs[-1]
        if state.unclaimed > 0 and not self._hands_over(lane, state, time):
            state.unclaimed -= 1
            last.keep_alive = planned_keep_alive(
                last.task.keep_alive, self.latency, warm_lane=lane.warm, last=False
            )
            warm_start = lane.warm and pool_outlives(last.keep_alive, self.latency)
            self._start_next(lane, time + self.latency, warm_start=warm_start)
            return
        # The lane is done. Auto keep-alive ends its pool with the job; an explicit one keeps it retained.
        last.keep_alive = planned_keep_alive(
            last.task.keep_alive, self.latency, warm_lane=lane.warm, last=True
        )
        state.open_lanes -= 1
        lane.released_at = time + last.keep_alive
        if last.keep_alive:
            self.held.add(lane.slot)
            self._push(lane.released_at, _SLOT_FREE, lane.slot)
            self._rehome(lane.slot, time)
        else:
            self._slot_free(lane.slot, time)

    def _hands_over(self, lane: ScheduledLane, state: _GroupState, time: int) -> bool:
        """Whether the lane has spent its budget (rounding to the nearer job) and may leave its group's jobs
        to the group's other lanes."""
        if lane.budget is None or (state.open_lanes <= 1 and state.planned_lanes == 0):
            return False
        task = state.waiting.peek(keeper_first=state.keeper_first(lane), image=self._image(lane, lane.warm))
        pulled = lane.warm and task.image != lane.jobs[-1].task.image
        following = self.latency + self.startup.of(warm=lane.warm, image_pulled=pulled) + task.training
        return time - lane.start + following / 2 > lane.budget

    def _slot_free(self, slot: int, time: int) -> None:
        self.held.discard(slot)
        lane = self._open(slot) or self._adopt(slot) or self._steal(slot)
        if lane is None:
            self.idle.add(slot)
        else:
            self._start_next(lane, time + self.latency, warm_start=False)

    def _adopt(self, slot: int) -> ScheduledLane | None:
        """Run a lane planned behind a slot that is kept by a retained pool."""
        for held in sorted(self.held):
            lane = self._open(slot, queue_of=held)
            if lane is not None:
                return lane
        return None

    def _rehome(self, held: int, time: int) -> None:
        """A slot is kept by a pool: lanes planned behind it move to idle slots rather than wait."""
        for slot in sorted(self.idle):
            lane = self._open(slot, queue_of=held)
            if lane is None:
                return
            self.idle.discard(slot)
            self._start_next(lane, time + self.latency, warm_start=False)

    def _steal(self, slot: int) -> ScheduledLane | None:
        """A slot with no lane left in its plan helps the group furthest behind, if it has enough jobs waiting
        that one more lane (paying a cold start) makes it finish earlier: the estimates behind the layout
        count jobs as average ones, and the whole jobs rarely split as evenly."""
        behind = max(self.states.values(), key=self._backlog)
        if behind.unclaimed == 0 or not self._worth_a_lane(behind):
            return None
        return self._new_lane(slot, behind, None)

    def _work_waiting(self, state: _GroupState) -> int:
        return state.waiting_training + state.unclaimed * (self.latency + self.startup.warm)

    def _backlog(self, state: _GroupState) -> float:
        return self._work_waiting(state) / max(1, state.open_lanes) if state.unclaimed else -1.0

    def _worth_a_lane(self, state: _GroupState) -> bool:
        longest = state.waiting.longest()
        share = self._work_waiting(state) / (state.open_lanes + 1)
        return share >= self.latency + self.startup.cold + longest


def schedule_unit(
    unit: PoolUnit,
    layout: SlotLayout,
    groups: Mapping[int, tuple[CityGroup, bool]],
    startup: StartupSeconds,
    latency: int,
    start: int = 0,
    *,
    image_order: bool = True,
) -> list[ScheduledLane]:
    """Lanes of one unit; ``groups`` maps each of the unit's group indices to (group, may keep warm pools).
    ``image_order`` lets a warm lane prefer jobs of its previous job's image (see :mod:`.waiting`)."""
    return UnitScheduler(unit, layout, groups, startup, latency, image_order=image_order).run(start)


def latest_release(lanes: Sequence[ScheduledLane]) -> int:
    return max((max(lane.released_at, lane.end) for lane in lanes), default=0)
