"""FleetAwsOperator: the base of the fleet's operators that call AWS from a worker (plan, pool release, report).

It takes the AWS connection as the Amazon provider's ``AwsBaseOperator`` does (``aws_conn_id``, ``region_name``,
``verify``, ``botocore_config``; the first three templated) and gives a ``hook``, but imports neither the Amazon
provider's hooks nor boto3 until ``hook`` is first read, on the worker that runs the task. A fleet DAG's file
imports these operators and is parsed often — on every change, and once more after each city that ends in the
triggerer (Airflow parses the whole file for a task's callbacks) — so those imports stay out of every parse
(docs/performance.md).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import cached_property
from typing import TYPE_CHECKING, Any

from airflow.sdk import BaseOperator

from sagemaker_fleet.compat import under_dag_test
from sagemaker_fleet.fleetspec.names import context_run_key
from sagemaker_fleet.hooks.connection import AwsConnection, aws_template_fields

if TYPE_CHECKING:
    from sagemaker_fleet.hooks.fleet import SageMakerFleetHook

#: The connection's defaults, which are the operators' (:class:`~sagemaker_fleet.hooks.connection.AwsConnection`).
_DEFAULT = AwsConnection()


def task_run_key(context: Mapping[str, Any]) -> str:
    """The run key of the run a task's ``context`` belongs to, the same in every task of the run: a test run's
    under ``airflow dags test`` (:func:`~sagemaker_fleet.fleetspec.names.run_key_for`)."""
    return context_run_key(context, test=under_dag_test())


def task_conf(context: Mapping[str, Any]) -> dict[str, Any]:
    """The run's conf as a fleet DAG's tasks read it (:mod:`sagemaker_fleet.fleetspec.runconf` checks it): the
    params Airflow hands the task — the form's values, or on a DAG without the form the conf itself — with the
    run's own ``conf`` over them, so that a deployment where conf does not override params (``[core]
    dag_run_conf_overrides_params = False``) still has a run's ``dry_run`` and unknown keys seen."""
    params = context.get("params") or {}
    conf = getattr(context.get("dag_run"), "conf", None)
    return {**params, **(conf if isinstance(conf, Mapping) else {})}


class FleetAwsOperator(BaseOperator):
    """An operator with an AWS connection and a lazily made :class:`SageMakerFleetHook`.

    :param aws_conn_id, region_name, verify, botocore_config: the AWS connection
        (:class:`~sagemaker_fleet.hooks.connection.AwsConnection`). Named here, as ``AwsBaseOperator`` names them,
        because Airflow reads an operator's keywords from its constructors' signatures (``default_args``,
        ``.partial()``); the subclasses pass them on through ``**kwargs``.
    """

    template_fields: Sequence[str] = aws_template_fields()

    def __init__(
        self,
        *,
        aws_conn_id: str | None = _DEFAULT.aws_conn_id,
        region_name: str | None = _DEFAULT.region_name,
        verify: bool | str | None = _DEFAULT.verify,
        botocore_config: dict[str, Any] | None = _DEFAULT.botocore_config,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        self.aws_conn_id = aws_conn_id
        self.region_name = region_name
        self.verify = verify
        self.botocore_config = botocore_config

    @property
    def connection(self) -> AwsConnection:
        """The task's AWS connection, its templates rendered once the task runs."""
        return AwsConnection.of(self)

    @cached_property
    def hook(self) -> SageMakerFleetHook:
        """The fleet's SageMaker hook for this task's connection (made, and boto3 imported, on first use)."""
        from sagemaker_fleet.hooks.fleet import SageMakerFleetHook

        return SageMakerFleetHook(**self.connection.hook_kwargs())
