"""FleetNotifyOperator: tell people how the run went, through Airflow notifiers, when it is over.

AWS's advice for warm pools is to act on completed jobs before their pools expire; a fleet run otherwise ends
silently unless someone opens Airflow. This last task sends the run's summary — cities trained and failed, warm
and cold starts, cost, idle-pool cost, spot savings, the report's address — through any Airflow notifier (the SMTP
or Slack provider's, or your own ``BaseNotifier``): the success notifiers when every city trained, the failure
notifiers otherwise. Notifier templates can use ``{{ fleet_summary.<field> }}`` and ``{{ fleet_message }}``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, cast

import jinja2
from airflow.sdk import BaseOperator

from sagemaker_fleet.contract import PLAN_TASK_ID, REPORT_TASK_ID
from sagemaker_fleet.failures import fleet_spec
from sagemaker_fleet.fleetspec.names import report_s3_uri
from sagemaker_fleet.operators.aws import task_run_key
from sagemaker_fleet.operators.outcome import run_city_states, untrained

if TYPE_CHECKING:
    from airflow.sdk import Context

#: The default ``fleet_message``: one headline, then the figures. ``summary`` is :func:`run_summary`'s dict.
DEFAULT_MESSAGE = """\
{{ summary.headline }}
{% if summary.dry_run -%}
Dry run: nothing was launched; expected cost ${{ '%.2f' % summary.expected_cost_usd }}.
{%- elif summary.report_missing -%}
No cost report: the run did not get that far.
{%- else -%}
Starts: {{ summary.warm_starts }} warm, {{ summary.cold_starts }} cold.
Cost ${{ '%.2f' % summary.cost_usd }} (idle warm pools ${{ '%.2f' % summary.idle_cost_usd }}, \
spot saved ${{ '%.2f' % summary.spot_savings_usd }}).
Report: {{ summary.report_uri }}
{%- if summary.models %}
Models: {{ summary.models.approved }} approved, {{ summary.models.pending }} pending, \
{{ summary.models.rejected }} rejected, {{ summary.models.no_metric }} without the metric.
{%- endif %}
{%- endif %}
{% if summary.failed %}Did not train: {{ summary.failed | join(', ') }}.{% endif %}"""


def run_summary(
    fleet: str,
    run_key: str,
    states: Mapping[str, str | None],
    city_task_ids: Mapping[str, str],
    report: Mapping[str, Any] | None,
    report_uri: str,
) -> dict[str, Any]:
    """The run's summary from its tasks' states and the cost report task's result (pure)."""
    failed = untrained(states, city_task_ids)
    trained = sum(1 for task_id in city_task_ids.values() if states.get(task_id) == "success")
    outcome = "failed" if failed else "success"
    summary: dict[str, Any] = {
        "fleet": fleet,
        "run_key": run_key,
        "outcome": outcome,
        "cities": len(city_task_ids),
        "trained": trained,
        "failed": sorted(failed),
        "report_uri": report_uri,
        "dry_run": bool(report and report.get("dry_run")),
        "report_missing": not report,
        "headline": (
            f"sagemaker-fleet {fleet} run {run_key}: "
            + (
                f"{len(failed)} of {len(city_task_ids)} cities did not train"
                if failed
                else f"{trained} of {len(city_task_ids)} cities trained"
            )
        ),
    }
    totals = (report or {}).get("totals") or {}
    summary.update(
        {
            "jobs": totals.get("jobs", 0),
            "warm_starts": totals.get("warm_starts", 0),
            "cold_starts": totals.get("cold_starts", 0),
            "cost_usd": totals.get("cost_usd", 0.0),
            "idle_cost_usd": totals.get("retained_cost_usd", 0.0),
            "spot_savings_usd": totals.get("spot_savings_usd", 0.0),
            "expected_cost_usd": ((report or {}).get("estimate") or {}).get("expected_usd", 0.0),
            # the registry gate's counts (approved, pending, rejected, no_metric, not_trained); None without it
            "models": (report or {}).get("models"),
        }
    )
    return summary


def render_message(template: str, summary: Mapping[str, Any]) -> str:
    return (
        jinja2.Environment(undefined=jinja2.StrictUndefined, autoescape=False)
        .from_string(template)
        .render(summary=summary)
        .strip()
    )


class FleetNotifyOperator(BaseOperator):
    """Send the run's summary through notifiers once the report and the outcome are in (``all_done``).

    :param spec_path: the fleet YAML (for its name and the report's S3 address).
    :param chunks: the DAG's mapped training tasks (:mod:`sagemaker_fleet.operators.cities`).
    :param plan_task_id: the plan task, whose ``cities`` XComs name each mapped task instance's city.
    :param on_success: notifiers called when every city trained (or was left out of the run).
    :param on_failure: notifiers called when a city did not train.
    :param message: the Jinja template of ``fleet_message`` (``summary`` is the run's summary).
    :param report_task_id: the cost report task whose result has the run's totals.

    A notifier that raises is logged as an error and counted in the task's result, and the task still succeeds:
    the run's state keeps saying whether every city trained, not whether a mail server answered.
    """

    ui_color = "#e4ecf0"

    def __init__(
        self,
        *,
        spec_path: str,
        chunks: int = 1,
        plan_task_id: str = PLAN_TASK_ID,
        on_success: Sequence[Any] = (),
        on_failure: Sequence[Any] = (),
        message: str = DEFAULT_MESSAGE,
        report_task_id: str = REPORT_TASK_ID,
        **kwargs: Any,
    ) -> None:
        kwargs.setdefault("trigger_rule", "all_done")
        super().__init__(**kwargs)
        self.spec_path = spec_path
        self.chunks = chunks
        self.plan_task_id = plan_task_id
        self.on_success = list(on_success)
        self.on_failure = list(on_failure)
        self.message = message
        self.report_task_id = report_task_id

    def execute(self, context: Context) -> dict[str, Any]:
        ti = context["ti"]
        spec = fleet_spec(self.spec_path)
        run_key = task_run_key(context)
        keys, states = run_city_states(context, self.chunks, self.plan_task_id)
        report = ti.xcom_pull(task_ids=self.report_task_id)
        summary = run_summary(
            spec.fleet,
            run_key,
            states,
            keys,
            report if isinstance(report, dict) else None,
            report_s3_uri(spec.output_s3_uri, run_key) + "report.html",
        )
        message = render_message(self.message, summary)
        self.log.info("%s", message)
        extended = cast("dict[str, Any]", context)
        extended["fleet_summary"], extended["fleet_message"] = summary, message
        notifiers = self.on_failure if summary["outcome"] == "failed" else self.on_success
        errors = []
        for notifier in notifiers:
            try:
                notifier(context)
            except Exception as exc:  # noqa: BLE001 - a notice that cannot be sent must not fail a trained run
                self.log.error("notifier %s failed: %s: %s", type(notifier).__name__, type(exc).__name__, exc)
                errors.append(f"{type(notifier).__name__}: {type(exc).__name__}: {exc}")
        return {
            "outcome": summary["outcome"],
            "sent": len(notifiers) - len(errors),
            "errors": errors,
            "message": message,
        }
