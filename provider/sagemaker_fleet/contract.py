"""The fleet DAG's contract: the names and defaults that the DAG factory, the plugin, the operators, the triggers and
the settings share, each defined here once.

The lowest layer of the package: it imports the standard library only (nothing of ``sagemaker_fleet``, no Airflow),
so any module may import it. ``tests/unit/provider/test_one_definition.py`` fails when one of these names is
assigned anywhere else or a task id is written out again.
"""

from __future__ import annotations

#: The plan task: it has the fleet's ``spec_path``, pushes the run's plan and returns the first cities.
PLAN_TASK_ID = "plan"
#: The task that ends the run's idle warm pools (``FleetPoolReleaseOperator``).
RELEASE_TASK_ID = "release_pools"
#: The task that registers each city's model through the champion gate (``FleetRegisterOperator``), in a DAG whose
#: spec has ``register:``: the cost report, the Fleet view and the outcome read its return value and state.
REGISTER_TASK_ID = "register_models"
#: The cost report task (``FleetCostReportOperator``): where the Fleet view and the notice find the report.
REPORT_TASK_ID = "cost_report"
#: The training task of a run's first thousand cities, mapped over them (``train_2``, … for the next ones:
#: :func:`train_task_id`).
TRAIN_TASK_ID = "train"
#: The task that fails the run when a city did not train (``FleetOutcomeOperator``): the report cannot, it runs
#: whatever happened.
OUTCOME_TASK_ID = "outcome"
#: The task that sends the run's notice (``FleetNotifyOperator``), in a DAG given notifiers.
NOTIFY_TASK_ID = "notify"
#: The XCom key under which the plan task publishes the run's plan (the city triggers, the report and the Fleet
#: view read it).
PLAN_XCOM_KEY = "plan"
#: The plan task's XCom of the plan's summary (JSON).
SUMMARY_XCOM_KEY = "summary"
#: The plan task's XCom that lists the first thousand cities, in start order: its return value, what Airflow maps
#: the training task over.
CITIES_XCOM_KEY = "return_value"
#: The tag every fleet DAG carries (with the fleet's name): how the Fleet view tells a fleet DAG.
FLEET_DAG_TAG = "sagemaker-fleet"
#: Where the api-server serves the Fleet view (the plugin's FastAPI app).
FLEET_VIEW_URL_PREFIX = "/sagemaker-fleet"
#: The Fleet tab's address inside the UI (Airflow 3.1+): ``/dags/<dag>/runs/<run>/plugin/sagemaker-fleet``.
FLEET_VIEW_URL_ROUTE = "sagemaker-fleet"

#: Seconds between the run's sweeps of SageMaker: the default of ``[sagemaker_fleet] poll_interval``, of the city
#: trigger and of the operators, sensors and triggers that take a ``poll_interval``.
POLL_INTERVAL = 30.0
#: The base back-off while the instance quota is in use (ResourceLimitExceeded): the default of
#: ``[sagemaker_fleet] capacity_retry_seconds`` and of the city trigger.
CAPACITY_RETRY_SECONDS = 60.0
#: How long a city waits at most while the instance quota is in use: the default of the operator's and the city
#: trigger's ``capacity_timeout_seconds``.
CAPACITY_TIMEOUT_SECONDS = 6 * 3600.0


def task_try_id(run_id: str, try_number: int) -> str:
    """The Airflow task try a city's jobs are tagged with (``{run_id}/{try_number}``): a restarted trigger knows its
    own jobs by it, and a job stopped without it was stopped outside Airflow."""
    return f"{run_id}/{try_number}"


def train_task_id(chunk: int) -> str:
    """The training task of chunk ``chunk`` (0-based, a thousand cities each): ``train``, ``train_2``, …"""
    return TRAIN_TASK_ID if chunk == 0 else f"{TRAIN_TASK_ID}_{chunk + 1}"


def train_task_chunk(task_id: str | None) -> int | None:
    """The chunk whose training task ``task_id`` is (0 for ``train``, 1 for ``train_2``, …), None for any other
    task: the inverse of :func:`train_task_id`, so that no caller reads a task id back by hand."""
    if task_id == TRAIN_TASK_ID:
        return 0
    number = (task_id or "").removeprefix(f"{TRAIN_TASK_ID}_")
    if number == task_id or not (number.isascii() and number.isdigit()):
        return None
    chunk = int(number) - 1
    return chunk if chunk >= 1 and train_task_id(chunk) == task_id else None


def cities_task_id(chunk: int) -> str:
    """The task that hands chunk ``chunk`` (≥ 1) of the plan's cities to its training task: ``cities_2``, …"""
    return f"cities_{chunk + 1}"


def cities_xcom_key(chunk: int) -> str:
    """The plan task's XCom key that lists chunk ``chunk``'s cities: its return value, ``cities_2``, …"""
    return CITIES_XCOM_KEY if chunk == 0 else cities_task_id(chunk)


def models_asset_name(fleet: str) -> str:
    """The fleet's models asset (its URI: ``{output_s3_uri}/models/``): a DAG scheduled on it runs after each fleet
    run that trained a city, and reads the cities from the event's ``extra``."""
    return f"{fleet}-models"


def models_alias_name(fleet: str) -> str:
    """The asset alias the cost report emits the models asset's event through: an alias, so that a run in which no
    city trained (a dry run, every city failed) emits none."""
    return f"{fleet}-trained-models"


def fleet_view_path(dag_id: str, run_id: str, *, tab: bool) -> str:
    """The address of a run's Fleet view on the api-server: its tab in the UI (``tab``: Airflow 3.1+, where plugins
    add tabs) or the plugin's own page (Airflow 3.0)."""
    from urllib.parse import quote

    dag, run = quote(dag_id, safe=""), quote(run_id, safe="")
    if tab:
        return f"/dags/{dag}/runs/{run}/plugin/{FLEET_VIEW_URL_ROUTE}"
    return f"{FLEET_VIEW_URL_PREFIX}/runs/{dag}/{run}"
