"""What AWS did beside what the simulator predicts for the same fleet: ``pilot.json`` and ``pilot.txt``.

Both sides are priced and read by the one cost model (:func:`~sagemaker_fleet.cost.report.build_cost_report`):
AWS's from the jobs' final DescribeTrainingJob responses, the prediction from ``simulate`` (the provider's engine in
virtual time, the same spec, plan and dispatch: :func:`~sagemaker_fleet.simulate.simulate_fleet`). Per store: how it
started (cold or warm, and the evidence), its start-up (from SecondaryStatusTransitions: first transition to
Training), each phase's seconds, BillableTimeInSeconds, ResourceRetainedBillableTimeInSeconds and the cost.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from sagemaker_fleet.cost.export import job_json, totals_json
from sagemaker_fleet.cost.report import build_cost_report
from sagemaker_fleet.dispatch import Cadence
from sagemaker_fleet.dispatch.cadence import AWS_CADENCE
from sagemaker_fleet.jobs.prices import PriceBook
from sagemaker_fleet.simulate import SimulateOptions, simulate_fleet

if TYPE_CHECKING:
    from sagemaker_fleet.cli.pilot.calls import RecordedCall
    from sagemaker_fleet.cli.pilot.ceiling import CostCeiling
    from sagemaker_fleet.cli.pilot.cleanup import Settled
    from sagemaker_fleet.cli.pilot.fleet import PilotFleet
    from sagemaker_fleet.cost.model import CostLine
    from sagemaker_fleet.cost.report import CostReport
    from sagemaker_fleet.jobs.record import StatusTransition

#: A store's fields on each side, as ``report.json`` names them.
SIDE_FIELDS = (
    "status",
    "secondary_status",
    "start",
    "start_evidence",
    "startup_seconds",
    "billable_seconds",
    "retained_billable_seconds",
    "cost_usd",
    "keep_alive_seconds",
    "warm_pool_status",
    "reused_by_job",
)
TOTAL_FIELDS = ("cost_usd", "billable_seconds", "retained_billable_seconds", "cold_starts", "warm_starts")


def aws_report(fleet: PilotFleet, descriptions: Iterable[Mapping[str, Any] | None]) -> CostReport:
    """The cost report of the jobs the pilot made (those that exist)."""
    found = [d for d in descriptions if d is not None]
    return build_cost_report(fleet.spec, fleet.settings.run_key, found, PriceBook.for_spec(fleet.spec))


def predicted_report(fleet: PilotFleet) -> CostReport:
    """What the simulator predicts for the same fleet and run key, swept as the pilot's poller sweeps against AWS
    (its interval, at least the floor it keeps there)."""
    interval = max(fleet.settings.poll_interval, AWS_CADENCE.min_aws_poll_seconds)
    options = SimulateOptions(run_key=fleet.settings.run_key, cadence=Cadence(interval))
    return simulate_fleet(fleet.spec, options).report


def phase_seconds(phases: Sequence[StatusTransition]) -> dict[str, float]:
    """Seconds in each SecondaryStatus the job went through, in the order first entered (a state entered twice
    counts twice); the state it ended in (no end, or none after its start) is left out."""
    seconds: dict[str, float] = {}
    for phase in phases:
        if phase.end is not None and phase.end > phase.start:
            seconds[phase.status] = seconds.get(phase.status, 0.0) + (phase.end - phase.start).total_seconds()
    return {status: round(value, 3) for status, value in seconds.items()}


def _side(line: CostLine | None) -> dict[str, Any] | None:
    if line is None:
        return None
    values = job_json(line)
    return {**{name: values[name] for name in SIDE_FIELDS}, "phases": phase_seconds(line.phases)}


def _mean_startup(report: CostReport, stores: Iterable[str]) -> float | None:
    """The mean start-up of ``stores``' first jobs that completed."""
    wanted = set(stores)
    seconds = [
        line.startup_seconds
        for line in report.lines
        if line.city in wanted and line.attempt == 1 and line.status == "Completed"
    ]
    return round(math.fsum(seconds) / len(seconds), 3) if seconds else None


@dataclass(frozen=True)
class PilotRecord:
    """One pilot's record (see the module docstring); ``prediction`` is None when the simulator could not run."""

    fleet: PilotFleet
    ceiling: CostCeiling
    endpoint_url: str
    is_aws: bool
    outcomes: Mapping[str, str]
    aws: CostReport
    prediction: CostReport | None
    settled: Settled
    calls: Sequence[RecordedCall]
    objects: Sequence[Mapping[str, Any]]
    interrupted: bool = False
    deleted: bool = False
    delete_failed: Sequence[str] = field(default_factory=tuple)
    prediction_error: str | None = None

    def planned(self, kind: str) -> list[str]:
        """The stores the plan starts ``kind`` (cold: the first of the lane; warm: the ones after it)."""
        return [store for store in self.fleet.stores if self.fleet.plan.job(store).start == kind]

    def _startup(self, report: CostReport | None) -> dict[str, float | None] | None:
        if report is None:
            return None
        return {kind: _mean_startup(report, self.planned(kind)) for kind in ("cold", "warm")}

    def _line(self, report: CostReport | None, store: str) -> CostLine | None:
        if report is None:
            return None
        return next((line for line in report.lines if line.city == store and line.attempt == 1), None)

    def to_json(self) -> dict[str, Any]:
        fleet, settings = self.fleet, self.fleet.settings
        image = fleet.spec.cities[0].image_uri
        reports = {"aws": self.aws, "simulator": self.prediction}
        return {
            "pilot": {
                "fleet": fleet.spec.fleet,
                "run_key": settings.run_key,
                "region": settings.region,
                "instance_type": settings.instance_type,
                "image_uri": image,
                "role_arn": settings.role_arn,
                "s3_prefix": f"s3://{settings.bucket}/{settings.run_prefix}",
                "endpoint_url": self.endpoint_url,
                "aws": self.is_aws,
                "interrupted": self.interrupted,
                "outcomes": dict(self.outcomes),
            },
            "ceiling": self.ceiling.to_json(),
            "stores": [
                {
                    "store": store,
                    "job_name": fleet.job_name(store),
                    "planned_start": fleet.plan.job(store).start,
                    **{side: _side(self._line(report, store)) for side, report in reports.items()},
                }
                for store in fleet.stores
            ],
            "startup_seconds": {side: self._startup(report) for side, report in reports.items()},
            "totals": {
                side: None
                if report is None
                else {name: totals_json(report.totals)[name] for name in TOTAL_FIELDS}
                for side, report in reports.items()
            },
            "prediction_error": self.prediction_error,
            "calls": {
                "made": len(self.calls),
                "by_operation": dict(
                    sorted(Counter(f"{c.service}:{c.operation}" for c in self.calls).items())
                ),
            },
            "clean_up": {
                "stopped": list(self.settled.stopped),
                "pools_ended": list(self.settled.pools_ended),
                "unsettled": list(self.settled.unsettled),
                "pools": {
                    name: (description.get("WarmPoolStatus") or {}).get("Status") if description else None
                    for name, description in self.settled.descriptions.items()
                },
            },
            "objects": list(self.objects),
            "deleted": self.deleted,
            "delete_failed": list(self.delete_failed),
        }

    def text(self) -> str:
        """The short table of ``pilot.txt``."""
        settings = self.fleet.settings
        where = "AWS" if self.is_aws else f"{self.endpoint_url} (not AWS)"
        lines = [
            f"Pilot {settings.run_key} in {settings.region} against {where}: "
            f"{len(self.fleet.stores)} stores on {settings.instance_type}, what it did beside the simulator's "
            "prediction (AWS | simulator)",
            "",
            f"{'store':<8} {'job':<32} {'planned':<8} {'start':<12} {'start-up s':<16} {'billable s':<12} "
            f"{'retained s':<12}",
        ]
        for store in self.fleet.stores:
            got, guess = self._line(self.aws, store), self._line(self.prediction, store)

            def pair(value: Any, got: CostLine | None = got, guess: CostLine | None = guess) -> str:
                return f"{value(got) if got else '-'} | {value(guess) if guess else '-'}"

            lines.append(
                f"{store:<8} {self.fleet.job_name(store):<32} {self.fleet.plan.job(store).start:<8} "
                f"{pair(lambda x: x.start):<12} "
                f"{pair(lambda x: f'{x.startup_seconds:.1f}'):<16} {pair(lambda x: x.billable_seconds):<12} "
                f"{pair(lambda x: x.retained_billable_seconds):<12}"
            )
        lines.append("")
        measured, predicted = self._startup(self.aws) or {}, self._startup(self.prediction) or {}
        for kind in ("cold", "warm"):
            lines.append(
                f"start-up of the store(s) planned {kind} ({', '.join(self.planned(kind))}), mean: "
                f"AWS {_seconds(measured.get(kind))} | simulator {_seconds(predicted.get(kind))}"
            )
        guessed = f"${self.prediction.totals.cost_usd:.6f}" if self.prediction is not None else "-"
        lines.append(
            f"cost: AWS ${self.aws.totals.cost_usd:.6f} | simulator {guessed} | ceiling ${self.ceiling.usd}"
        )
        pools = self.to_json()["clean_up"]["pools"]
        unsettled = ", ".join(self.settled.unsettled)
        lines.append(
            "pools: "
            + (f"NOT ENDED: {unsettled}" if unsettled else "every pool ended")
            + " ("
            + ", ".join(f"{name}: {status or 'none'}" for name, status in pools.items())
            + ")"
        )
        kept = "deleted" if self.deleted else "kept; --delete-data deletes them"
        lines.append(
            f"objects: {len(self.objects)} under s3://{settings.bucket}/{settings.run_prefix} ({kept})"
        )
        return "\n".join(line.rstrip() for line in lines) + "\n"


def _seconds(value: float | None) -> str:
    return "-" if value is None else f"{value:.1f} s"
