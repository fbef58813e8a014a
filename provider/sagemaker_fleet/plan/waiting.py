"""A group's jobs waiting for a lane, longest first — split so that explicit keep-alives are handed on."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Sequence

    from sagemaker_fleet.plan.groups import JobTask


class WaitingJobs:
    """A group's jobs not started yet, longest first, in two queues: jobs with an explicit keep-alive (whose pool
    is best handed on, not left idle after a lane's last job) and the rest."""

    def __init__(self, tasks: Sequence[JobTask]) -> None:
        self.keepers = [task for task in tasks if task.keep_alive]
        self.plain = [task for task in tasks if not task.keep_alive]
        self.next_keeper = 0
        self.next_plain = 0

    def peek(self, *, keeper_first: bool) -> JobTask:
        has_keeper = self.next_keeper < len(self.keepers)
        has_plain = self.next_plain < len(self.plain)
        if has_keeper and (keeper_first or not has_plain):
            return self.keepers[self.next_keeper]
        return self.plain[self.next_plain]

    def take(self, *, keeper_first: bool) -> JobTask:
        task = self.peek(keeper_first=keeper_first)
        if self.next_keeper < len(self.keepers) and task is self.keepers[self.next_keeper]:
            self.next_keeper += 1
        else:
            self.next_plain += 1
        return task

    def longest(self) -> int:
        heads = [
            queue[index].training
            for queue, index in ((self.keepers, self.next_keeper), (self.plain, self.next_plain))
            if index < len(queue)
        ]
        return max(heads)
