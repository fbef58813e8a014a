"""Whose job names a report or a view may show beside the run's own (pure).

A run's cost report and Fleet view name the other runs' jobs a warm pool went to or came from (SageMaker matches
pools across the account). Those may be another team's: their names carry the team's fleet, cities and run keys.
So the names shown are an allow-list — the jobs of the fleets in a :class:`Disclosure`, the run's own fleet always —
and every other run's job is a count. report.html, report.json and report.csv (read by whoever may read the
fleet's bucket) show the run's own fleet only; the Fleet view adds the fleets whose DAGs its reader may read
(:mod:`sagemaker_fleet.plugin.runs`).
"""

from __future__ import annotations

from dataclasses import dataclass

from sagemaker_fleet.fleetspec.names import fleet_of_job


@dataclass(frozen=True)
class Disclosure:
    """The fleets whose job names may be shown: a job of any other (or a name of no fleet's shape) is not."""

    fleets: frozenset[str]

    @classmethod
    def of_fleet(cls, fleet: str, *others: str) -> Disclosure:
        return cls(frozenset({fleet, *others}))

    def shows(self, job: str | None) -> bool:
        return job is not None and fleet_of_job(job) in self.fleets

    def name(self, job: str | None) -> str | None:
        """``job`` when it may be shown, else None (the caller counts it)."""
        return job if self.shows(job) else None
