"""Waiters: the cities of a run waiting for their turn, and whether its sweeps have anything left to do (pure).

Both shells keep their waiting cities here — the triggerer's run session and ``simulate``'s poller — each city with
its shell's handle on its turn (an asyncio future in the triggerer, a callback in virtual time): who is waiting, who
the run's tracker lets through now (:meth:`RunSweeps.admit`), a place given back, and the rule of when a shell may
stop sweeping are written once, so the two shells cannot admit or stop differently.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Generic, TypeVar

if TYPE_CHECKING:
    from sagemaker_fleet.dispatch.state import Wait
    from sagemaker_fleet.dispatch.sweep import RunSweeps

__all__ = ["Waiters"]

T = TypeVar("T")


@dataclass(frozen=True)
class _Waiter(Generic[T]):
    wait: Wait
    turn: T


class Waiters(Generic[T]):
    """The waiting cities of one run's ``sweeps``, by city; ``T``: the shell's handle on a city's turn."""

    def __init__(self, sweeps: RunSweeps) -> None:
        self._sweeps = sweeps
        self._by_city: dict[str, _Waiter[T]] = {}

    def __len__(self) -> int:
        return len(self._by_city)

    def add(self, wait: Wait, turn: T, now: float) -> list[T]:
        """``wait.city`` waits for its turn (``turn``: the shell's handle on it); the turns admitted now (``now``: the
        shell's clock, the one ``wait.since`` uses), its own among them when it may start at once."""
        self._by_city[wait.city] = _Waiter(wait, turn)
        return self.admit(now)

    def waiting(self) -> list[Wait]:
        """The cities waiting for their turn now, in the order they began to wait."""
        return [waiter.wait for waiter in self._by_city.values()]

    def turns(self) -> list[T]:
        """Every waiting city's turn (a shell that gives up fails them all)."""
        return [waiter.turn for waiter in self._by_city.values()]

    def admitted(self, cities: Iterable[str]) -> list[T]:
        """The turns of ``cities``, which the tracker admitted (a sweep's hand-off): they wait no more."""
        return [self._by_city.pop(city).turn for city in cities]

    def admit(self, now: float) -> list[T]:
        """The turns of the waiting cities the run's tracker lets through now (none before its first whole listing)."""
        return self.admitted(self._sweeps.admit(self.waiting(), now))

    def release(self, city: str, now: float) -> list[T]:
        """``city`` was admitted but created no job (the quota refused it, say): its place goes to the next; the
        turns admitted now."""
        tracker = self._sweeps.tracker
        if tracker is None:
            return []
        tracker.release(city)
        return self.admit(now)

    def leave(self, city: str, turn: T, *, admitted: bool) -> None:
        """``city`` stops waiting with ``turn`` (a later wait of the city stays). ``admitted``: its turn had come
        but it stopped before it could create its job (its task was cancelled): its place is given back, and the
        next sweep passes it on."""
        tracker = self._sweeps.tracker
        if admitted and tracker is not None:
            tracker.release(city)
        waiter = self._by_city.get(city)
        if waiter is not None and waiter.turn is turn:
            del self._by_city[city]

    def reason(self, city: str, now: float) -> str:
        """Why ``city`` is still waiting, for its log."""
        waiter = self._by_city.get(city)
        tracker = self._sweeps.tracker
        if tracker is None or waiter is None:
            return "waits for the run's first listing"
        return tracker.waiting_reason(waiter.wait, now)

    def pending(self) -> bool:
        """Whether the run's sweeps have anything left to do: a job watched, a city waiting, a tracker that has not
        seen the run's whole listing yet, or a pool end to hand out (the run's last jobs ended while its sweeps
        were throttled, say: that pool would idle until it expires). A shell sweeps until this is False."""
        sweeps, tracker = self._sweeps, self._sweeps.tracker
        return bool(
            sweeps.watches
            or self._by_city
            or (tracker is not None and not tracker.listed_whole)
            or sweeps.ends_pending()
        )
