"""FairShare: a run's part in the account's shares, as its tracker admits cities (pure; the rule: :mod:`.board`).

The tracker asks it, once per admission pass, for the room to leave to the runs ranked before this one
(:meth:`FairShare.begin`), tells it each pool a city of the run took (:meth:`FairShare.took_pool`: a group that
keeps handing its pools to its own cities while such a run waits yields them after
:data:`~.board.OWED_HANDOFFS` per lane), and gives it what the pass left waiting (:class:`Demand`) to post
(:meth:`FairShare.post`). Its :meth:`FairShare.kept` says how many pools of each group other runs' cities wait for:
the tracker keeps those instead of ending them.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Container, Mapping
from typing import TYPE_CHECKING

from sagemaker_fleet.dispatch.board import OWED_HANDOFFS, RunDemand, ShareBoard, key_digest, quota_name

if TYPE_CHECKING:
    from sagemaker_fleet.dispatch.book import DispatchBook, QuotaKey, Turn


class Demand:
    """What one admission pass left waiting: instances per quota (``needed``), the smallest city's per quota
    (``next``) and cities per warm-pool group (``wants``)."""

    def __init__(self) -> None:
        self.needed: Counter[QuotaKey] = Counter()
        self.next: dict[QuotaKey, int] = {}
        self.wants: Counter[str] = Counter()

    def blocked(self, turn: Turn, attempt: int) -> None:
        """``turn``'s city had its turn but no room (the quota, or the room left to runs ranked before it)."""
        pool, count = turn.quota_for(attempt), turn.instance_count
        self.needed[pool] += count
        self.next[pool] = min(self.next.get(pool, count), count)
        if turn.warm_pool and pool[1] == "instances":
            self.wants[turn.group] += 1


class FairShare:
    """The run's side of the board (see the module docstring)."""

    def __init__(self, board: ShareBoard, book: DispatchBook) -> None:
        self.board = board
        self.book = book
        self.owed: Counter[str] = Counter()  #: per group: pools handed on while a run ranked before it waited
        self.yielding: set[str] = set()  #: groups that give their pools up to such a run
        self.digests = {
            group: key_digest(key) for group, key in book.keys.items()
        }  #: as the board names keys

    def reserves(self) -> dict[QuotaKey, int]:
        """Per quota, the room to leave to the runs ranked before this one that wait on it (:meth:`ShareBoard.reserve`,
        every run ranking against the account's quota as it knows it); the whole quota until the board has
        :attr:`~ShareBoard.ready`."""
        limits = {pool: self.book.account_limit(pool) or 0 for pool in self.book.capacity}
        if not self.board.ready:
            return limits
        return {pool: self.board.reserve(quota_name(pool), limit) for pool, limit in limits.items()}

    def owing(self, pool: QuotaKey, used: Counter[QuotaKey], reserve: Mapping[QuotaKey, int]) -> bool:
        """Whether a run ranked before this one waits on ``pool`` for more room than it has free."""
        return reserve.get(pool, 0) > (self.book.account_limit(pool) or 0) - used[pool]

    def begin(self, used: Counter[QuotaKey]) -> dict[QuotaKey, int]:
        """An admission pass begins: the room to leave per quota; a group whose quota no run ranked before this one
        waits on any more has its pools back."""
        reserve = self.reserves()
        for group in list(self.owed):
            if not self.owing((self.book.keys[group].instance_type, "instances"), used, reserve):
                del self.owed[group]
                self.yielding.discard(group)
        return reserve

    def took_pool(self, turn: Turn, used: Counter[QuotaKey], reserve: Mapping[QuotaKey, int]) -> None:
        """A city of ``turn``'s group took a pool: while a run ranked before this one waits on its quota, that is a
        hand-on the group owes; after :data:`OWED_HANDOFFS` per lane the group yields its pools. Not before the
        board is ready: the whole quota is reserved then, whoever waits."""
        if self.board.ready and turn.group in self.book.keys and self.owing(turn.quota, used, reserve):
            self.owed[turn.group] += 1
            if self.owed[turn.group] >= OWED_HANDOFFS * self.book.widths[turn.group]:
                self.yielding.add(turn.group)

    def post(
        self, demand: Demand, own: Counter[QuotaKey], unstarted: Counter[str], busy: Container[str] = ()
    ) -> None:
        """The run's record as of this pass: what it holds (``own``, per quota), what its waiting cities need, which
        keys it waits for and which it gives away (no city left of that key, or its group yields) — not while a
        city of the group is admitted but not listed yet (``busy``): it may be taking one of those pools, which a
        listing or description made before its create still shows Available to the other runs (simulate: another
        run's city admitted onto a pool its own run had just handed on met ResourceLimitExceeded)."""
        keys = self.book.keys
        self.board.update(
            RunDemand(
                self.book.fleet,
                self.book.run_key,
                self.board.sharing.share,
                self.board.sharing.priority,
                held={quota_name(pool): n for pool, n in own.items() if n > 0},
                blocked={quota_name(pool): n for pool, n in demand.needed.items()},
                need={quota_name(pool): n for pool, n in demand.next.items()},
                wants={self.digests[g]: n for g, n in demand.wants.items() if g in keys},
                gives=tuple(
                    sorted(
                        self.digests[g]
                        for g in keys
                        if (unstarted[g] == 0 or g in self.yielding) and g not in busy
                    )
                ),
            )
        )

    def kept(self) -> Counter[str]:
        """Per warm-pool group: how many of its pools other runs' cities of its key wait for (kept for them)."""
        return Counter({group: self.board.wanted(digest) for group, digest in self.digests.items()})
