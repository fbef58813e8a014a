"""A group's jobs waiting for a lane, longest first — split so that explicit keep-alives are handed on, and
searchable by training image so that a warm lane can keep its image (see :func:`WaitingJobs.take`)."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Sequence

    from sagemaker_fleet.plan.groups import JobTask

#: A warm lane takes the longest job of its own image instead of the longest job waiting when that job is at
#: least this share of the longest one's training: the longest-first rule bends, but only a little.
IMAGE_SHARE = 0.5


class _Queue:
    """Tasks longest first; the longest task of an image may be taken out of turn."""

    def __init__(self, tasks: Sequence[JobTask]) -> None:
        self.tasks = list(tasks)
        self.taken = [False] * len(self.tasks)
        self.head = 0
        self.of_image: dict[str, list[int]] = {}
        for index, task in enumerate(self.tasks):
            self.of_image.setdefault(task.image, []).append(index)
        self.image_head = dict.fromkeys(self.of_image, 0)

    def _first(self) -> int | None:
        while self.head < len(self.tasks) and self.taken[self.head]:
            self.head += 1
        return self.head if self.head < len(self.tasks) else None

    def _first_of(self, image: str) -> int | None:
        indices = self.of_image.get(image)
        if indices is None:
            return None
        at = self.image_head[image]
        while at < len(indices) and self.taken[indices[at]]:
            at += 1
        self.image_head[image] = at
        return indices[at] if at < len(indices) else None

    def empty(self) -> bool:
        return self._first() is None

    def longest(self) -> JobTask | None:
        index = self._first()
        return None if index is None else self.tasks[index]

    def choose(self, image: str | None) -> int | None:
        """The index of the task to take next: the longest, or the longest of ``image`` if it is long enough."""
        longest = self._first()
        if longest is None or image is None or self.tasks[longest].image == image:
            return longest
        same = self._first_of(image)
        if same is not None and self.tasks[same].training >= IMAGE_SHARE * self.tasks[longest].training:
            return same
        return longest


class WaitingJobs:
    """A group's jobs not started yet, longest first, in two queues: jobs with an explicit keep-alive (whose pool
    is best handed on, not left idle after a lane's last job) and the rest.

    ``image`` is the image a warm lane's previous job ran: the lane then prefers the longest job of that image
    (if it is not much shorter than the longest job waiting), since a job with another image pulls it again.
    """

    def __init__(self, tasks: Sequence[JobTask]) -> None:
        self.keepers = _Queue([task for task in tasks if task.keep_alive])
        self.plain = _Queue([task for task in tasks if not task.keep_alive])

    def _queue(self, keeper_first: bool) -> _Queue:
        if not self.keepers.empty() and (keeper_first or self.plain.empty()):
            return self.keepers
        return self.plain

    def peek(self, *, keeper_first: bool, image: str | None = None) -> JobTask:
        queue = self._queue(keeper_first)
        index = queue.choose(image)
        assert index is not None, "no job is waiting"
        return queue.tasks[index]

    def take(self, *, keeper_first: bool, image: str | None = None) -> JobTask:
        queue = self._queue(keeper_first)
        index = queue.choose(image)
        assert index is not None, "no job is waiting"
        queue.taken[index] = True
        return queue.tasks[index]

    def longest(self) -> int:
        heads = [task.training for task in (self.keepers.longest(), self.plain.longest()) if task is not None]
        return max(heads)
