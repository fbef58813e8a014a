"""A city's decision and the run's counts: what the register task returns, the cost report, the Fleet view, the
models asset event and ``sagemaker-fleet models`` show (docs/formats.md, the model registry's decisions).

JSON in plain values, written and read here only (:meth:`CityDecision.to_json`, :func:`decisions_from_json`), so
that an XCom, a report and a view all say the same thing.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any, Literal

#: What became of a city's model in the run:
#: ``approved`` registered with the gate's approval status Approved; ``pending`` registered PendingManualApproval
#: (it passed and people approve, or a person must compare); ``rejected`` did not pass (registered Rejected with
#: the reason, or not registered with ``losers: skip``); ``no_metric`` its job reported no value of the metric (no
#: package); ``not_trained`` the city has no completed job in the run (no package).
Decision = Literal["approved", "pending", "rejected", "no_metric", "not_trained"]
DECISIONS: tuple[Decision, ...] = ("approved", "pending", "rejected", "no_metric", "not_trained")
#: Version of the decisions' JSON (the register task's return value).
DECISIONS_VERSION = 1


@dataclass(frozen=True)
class CityDecision:
    """One city: its job, the metric and the two values compared, the champion, the package made (or found), its
    approval status as registered and why."""

    city: str
    decision: Decision
    reason: str
    job_name: str | None = None
    metric: str | None = None
    challenger: float | None = None
    champion: float | None = None
    champion_arn: str | None = None
    group: str | None = None
    package_arn: str | None = None
    #: the package's ModelApprovalStatus when the run registered it (a person may change it since)
    status: str | None = None
    #: the package existed already (a retried task, a cleared city): nothing was registered twice
    found: bool = False

    def to_json(self) -> dict[str, Any]:
        return {key: value for key, value in asdict(self).items() if value is not None and value is not False}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> CityDecision:
        known = set(cls.__dataclass_fields__)
        return cls(**{key: value for key, value in data.items() if key in known})


@dataclass(frozen=True)
class RunDecisions:
    """Every city's decision in a run, in city order, and the counts (``approved``, ``pending``, ``rejected``,
    ``no_metric``, ``not_trained``)."""

    cities: tuple[CityDecision, ...]

    @property
    def counts(self) -> dict[str, int]:
        counted = Counter(d.decision for d in self.cities)
        return {decision: counted.get(decision, 0) for decision in DECISIONS}

    def by_city(self) -> dict[str, CityDecision]:
        return {d.city: d for d in self.cities}

    def of(self, decision: Decision) -> list[CityDecision]:
        return [d for d in self.cities if d.decision == decision]

    def to_json(self) -> dict[str, Any]:
        return {
            "version": DECISIONS_VERSION,
            "counts": self.counts,
            "cities": [d.to_json() for d in self.cities],
        }


def run_decisions(decisions: Iterable[CityDecision]) -> RunDecisions:
    return RunDecisions(tuple(sorted(decisions, key=lambda d: d.city)))


def decisions_from_json(data: Mapping[str, Any] | None) -> RunDecisions | None:
    """The decisions of a register task's return value (None: the run registered nothing, or no register task)."""
    if not isinstance(data, Mapping) or not isinstance(data.get("cities"), Sequence):
        return None
    return run_decisions(CityDecision.from_json(item) for item in data["cities"] if isinstance(item, Mapping))


def summary_line(decisions: RunDecisions) -> str:
    """``models: 12 approved, 3 pending, 4 rejected, 1 without the metric`` (and cities that did not train)."""
    counts = decisions.counts
    parts = [
        f"{counts['approved']} approved",
        f"{counts['pending']} pending",
        f"{counts['rejected']} rejected",
        f"{counts['no_metric']} without the metric",
    ]
    if counts["not_trained"]:
        parts.append(f"{counts['not_trained']} not trained")
    return "models: " + ", ".join(parts)
