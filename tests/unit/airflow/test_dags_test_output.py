"""The warnings of an ``airflow dags test`` output that our code causes, told from Airflow's own (lines as Airflow
3.2.1 and 3.0 print them)."""

from __future__ import annotations

from dags_test_output import warning_lines, warnings_from_our_code

#: What Airflow 3.2.1 printed in a fleet's dags test (the Amazon provider's hook asks ProvidersManager for its
#: version each time it makes a client), and what our code would print calling the same API itself.
AMAZON_HOOKS = (
    "2026-12-06T23:33:30.422464Z [warning  ] ProvidersManager.hooks is deprecated. Use ProvidersManagerTaskRuntime."
    "hooks from task-sdk instead. [py.warnings] category=DeprecatedImportWarning filename=/venv/lib/python3.12/"
    "site-packages/airflow/providers/amazon/aws/hooks/base_aws.py lineno=527"
)
OURS = AMAZON_HOOKS.replace(
    "/venv/lib/python3.12/site-packages/airflow/providers/amazon/aws/hooks/base_aws.py",
    "/work/provider/sagemaker_fleet/operators/report.py",
)
INACTIVE = (
    "2026-12-06T23:41:30.576195Z [warning  ] Emitting event for inactive AssetModel SerializedAsset(name='dagtest-"
    "models', uri='s3://sagemaker-fleet-dagtest/fleets/dagtest/models', group='asset', extra={}, watchers=[]) "
    "[airflow.assets.manager.AssetManager] loc=manager.py:209"
)
#: Airflow 3.0's stdlib format.
OURS_30 = (
    "[2026-12-06T23:33:30.422+0000] {warnings.py:112} WARNING - /site-packages/sagemaker_fleet/compat.py:88: "
    "DeprecationWarning: this is deprecated"
)
SQLALCHEMY = (
    "[2026-12-06T23:33:30.422+0000] {warnings.py:112} WARNING - /site-packages/airflow/models/dagrun.py:1200: "
    "SAWarning: relationship 'DagRun.task_instances' will copy column …"
)
PLAIN = "2026-12-06T23:33:31.397785Z [info     ] group g0 (ml.m5.xlarge ×1 · FleetTraining · 30 GB): 9 job(s)"


def test_a_deprecated_call_of_ours_is_ours_and_the_amazon_providers_is_not() -> None:
    output = "\n".join([PLAIN, AMAZON_HOOKS, OURS, SQLALCHEMY, OURS_30, PLAIN])
    assert warnings_from_our_code(output) == [OURS, OURS_30]
    found = warning_lines(output)
    assert [(w.filename, w.ours) for w in found] == [
        ("/venv/lib/python3.12/site-packages/airflow/providers/amazon/aws/hooks/base_aws.py", False),
        ("/work/provider/sagemaker_fleet/operators/report.py", True),
        ("/site-packages/airflow/models/dagrun.py", False),
        ("/site-packages/sagemaker_fleet/compat.py", True),
    ]


def test_an_event_for_an_undeclared_asset_is_ours() -> None:
    """In a fleet DAG only the report task emits an asset event (the models asset, through its alias)."""
    assert warnings_from_our_code(f"{PLAIN}\n{INACTIVE}") == [INACTIVE]


def test_an_output_without_warnings_has_none_of_ours() -> None:
    assert warnings_from_our_code(PLAIN) == []
