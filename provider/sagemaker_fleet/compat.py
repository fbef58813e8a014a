"""Everything that differs between the Airflow versions the provider runs on — 3.0.6 (Amazon MWAA's pins) to 3.3 —
and between the Amazon, common-compat and OpenLineage provider versions pinned beside them, in one module.

No other module of the package imports a version-specific path (``tests/unit/provider/test_compat_paths.py`` walks
their syntax trees). Moved paths are looked up here (exceptions, ``BaseHook``, ``conf``, the DagBag, timetable
serialization, the metrics client); missing features degrade here, and :func:`features` says what each version
lacks and what the provider does instead (``sagemaker-fleet preflight`` prints it; docs/installation.md has the
table). Airflow-heavy imports happen inside the functions: DAG files import this module when they are parsed.
"""

from __future__ import annotations

import functools
import inspect
import threading
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from airflow import __version__ as _AIRFLOW_VERSION_TEXT

if TYPE_CHECKING:
    from airflow.providers.common.compat.sdk import (
        AirflowException,
        AirflowFailException,
        AirflowNotFoundException,
        AirflowSkipException,
        TaskDeferred,
    )
    from airflow.timetables.base import Timetable
else:
    try:  # common-compat >= 1.8: Airflow's own place on each version
        from airflow.providers.common.compat.sdk import (
            AirflowException,
            AirflowFailException,
            AirflowNotFoundException,
            AirflowSkipException,
            TaskDeferred,
        )
    except ImportError:  # common-compat 1.7.3 (MWAA's Airflow 3.0.6): where Airflow 3.0 keeps them
        from airflow.exceptions import (
            AirflowException,
            AirflowFailException,
            AirflowNotFoundException,
            AirflowSkipException,
            TaskDeferred,
        )

#: Re-exported (the module's own names are public as they are).
__all__ = [
    "AirflowException",
    "AirflowFailException",
    "AirflowNotFoundException",
    "AirflowSkipException",
    "TaskDeferred",
]


def _release(text: str) -> tuple[int, int, int]:
    """``3.0.6`` → ``(3, 0, 6)``; a pre-release or local suffix (``3.1.0rc1``, ``3.3.0.dev0``) is dropped."""
    import re

    found = re.match(r"(\d+)\.(\d+)\.?(\d*)", text)
    major, minor, micro = found.groups() if found else ("0", "0", "")
    return int(major), int(minor), int(micro or 0)


#: The installed Airflow, ``(major, minor, micro)``.
AIRFLOW_VERSION: tuple[int, int, int] = _release(_AIRFLOW_VERSION_TEXT)
AIRFLOW_V_3_1_PLUS = AIRFLOW_VERSION >= (3, 1, 0)
AIRFLOW_V_3_2_PLUS = AIRFLOW_VERSION >= (3, 2, 0)
AIRFLOW_V_3_3_PLUS = AIRFLOW_VERSION >= (3, 3, 0)

#: Airflow 3.0's UI moves the login's ``_token`` cookie into ``localStorage["token"]`` and deletes the cookie, and its
#: API (``core_api.security.get_user``) reads the ``Authorization`` header only: a plain browser request to a
#: plugin's app carries no credentials. From 3.1 the cookie stays and the API reads it.
UI_TOKEN_IN_LOCAL_STORAGE = not AIRFLOW_V_3_1_PLUS
#: A notifier's failure reaches its caller (the notice task counts it) from 3.1; Airflow 3.0's ``BaseNotifier``
#: logs it and returns, so the notice task counts that notifier as sent.
NOTIFIER_FAILURE_RAISES = AIRFLOW_V_3_1_PLUS
#: Airflow 3.0 keys an asset event added through an alias by ``frozenset(extra.items())`` when it records it, so an
#: ``extra`` with a list or mapping value fails the task (``TypeError: unhashable type``) as it succeeds; 3.1 does
#: not (:func:`alias_event_extra`).
ALIAS_EVENT_EXTRA_MUST_BE_HASHABLE = not AIRFLOW_V_3_1_PLUS
#: The cookie Airflow's auth managers hand the UI its JWT in (``base_auth_manager.COOKIE_NAME_JWT_TOKEN``).
JWT_COOKIE = "_token"
#: The ``localStorage`` key Airflow 3.0's UI keeps the JWT under.
UI_TOKEN_STORAGE_KEY = "token"


# ------------------------------------------------------------------------------------------ hooks, configuration


def base_hook() -> Any:
    """``BaseHook``: the Task SDK's from 3.1, ``airflow.hooks.base`` on 3.0 (its ``get_connection`` is the one a
    DAG file or a task reaches)."""
    try:
        from airflow.providers.common.compat.sdk import BaseHook
    except ImportError:
        from airflow.hooks.base import BaseHook  # type: ignore[attr-defined,no-redef,unused-ignore]
    return BaseHook


def airflow_conf() -> Any:
    """Airflow's configuration (``conf``): the Task SDK's from 3.2, ``airflow.configuration`` before."""
    try:
        from airflow.providers.common.compat.sdk import conf
    except ImportError:
        from airflow.configuration import conf
    return conf


# ------------------------------------------------------------------------------------------ DAGs


def dag_bag_class() -> Any:
    """The DagBag that parses a folder: ``airflow.dag_processing.dagbag`` from 3.2, ``airflow.models.dagbag``
    before (where 3.2 keeps a deprecated alias)."""
    if AIRFLOW_V_3_2_PLUS:
        from airflow.dag_processing.dagbag import DagBag
    else:
        from airflow.models.dagbag import DagBag  # type: ignore[attr-defined,no-redef,unused-ignore]
    return DagBag


class _DagsOfRuns:
    """Airflow 3.0 has no ``DBDagBag``: the DAG a run was created with, from its ``created_dag_version``'s
    serialized DAG (the latest serialized DAG when the run names none), each version deserialized once."""

    def __init__(self) -> None:
        self._dags: dict[Any, Any] = {}

    def get_dag_for_run(self, dag_run: Any, session: Any) -> Any:
        from airflow.models.serialized_dag import SerializedDagModel

        version_id = getattr(dag_run, "created_dag_version_id", None)
        if version_id is not None and version_id in self._dags:
            return self._dags[version_id]
        serdag = None
        if version_id is not None:
            from airflow.models.dag_version import DagVersion

            version = session.get(DagVersion, version_id)
            serdag = getattr(version, "serialized_dag", None)
        if serdag is None:
            serdag = SerializedDagModel.get(dag_run.dag_id, session=session)
        if serdag is None:
            return None
        dag = serdag.dag
        self._dags[serdag.dag_version_id] = dag
        return dag


def run_dag_bag() -> Any:
    """A bag that answers ``get_dag_for_run(dag_run, session)`` with the run's DAG version: ``DBDagBag`` from 3.1,
    :class:`_DagsOfRuns` on 3.0. Keep one for a process's life: it caches what it deserialized."""
    if AIRFLOW_V_3_1_PLUS:
        from airflow.models.dagbag import DBDagBag

        return DBDagBag()
    return _DagsOfRuns()


def core_timetable(timetable: Any) -> Timetable:
    """The scheduler's timetable for a DAG's (the Task SDK's from 3.2 are other classes): encoded and decoded by
    ``airflow.serialization.encoders/decoders`` from 3.2, by ``serialized_objects`` before."""
    if AIRFLOW_V_3_2_PLUS:
        from airflow.serialization.decoders import decode_timetable
        from airflow.serialization.encoders import encode_timetable
    else:
        from airflow.serialization.serialized_objects import (  # type: ignore[attr-defined,no-redef,unused-ignore]
            decode_timetable,
            encode_timetable,
        )
    core: Timetable = decode_timetable(encode_timetable(timetable))
    return core


def dag_serialization() -> Any:
    """The class that serializes a DAG as the dag-processor does: ``DagSerialization`` from 3.2, ``SerializedDAG``
    before (both ``to_dict`` / ``from_dict``)."""
    if AIRFLOW_V_3_2_PLUS:
        from airflow.serialization.serialized_objects import DagSerialization

        return DagSerialization
    from airflow.serialization.serialized_objects import SerializedDAG  # type: ignore[attr-defined,unused-ignore]

    return SerializedDAG


def check_cycle(dag: Any) -> None:
    """Raise when the DAG's tasks form a cycle: the DAG's own ``check_cycle`` from 3.1,
    ``airflow.utils.dag_cycle_tester`` on 3.0 (its DagBag hands out Task SDK DAGs without the method)."""
    if hasattr(dag, "check_cycle"):
        dag.check_cycle()
        return
    from airflow.utils.dag_cycle_tester import check_cycle as dag_cycle_tester

    dag_cycle_tester(dag)


def under_dag_test() -> bool:
    """Whether this task runs in ``dag.test()`` (``airflow dags test``): the Task SDK then talks to an in-process
    supervisor (``InProcessSupervisorComms``, on every version from 3.0) instead of a real one."""
    try:
        from airflow.sdk.execution_time import task_runner
        from airflow.sdk.execution_time.supervisor import InProcessSupervisorComms
    except ImportError:  # a Task SDK without it: no in-process test runs to tell apart
        return False
    return isinstance(getattr(task_runner, "SUPERVISOR_COMMS", None), InProcessSupervisorComms)


# ------------------------------------------------------------------------------------------ metrics


def stats() -> Any:
    """Airflow's metrics client, with ``incr`` / ``gauge`` / ``timing``: the ``airflow.sdk.observability.stats``
    module (3.3), its ``Stats`` class (3.2), ``airflow.stats.Stats`` (3.0, 3.1)."""
    if AIRFLOW_V_3_2_PLUS:
        from airflow.sdk.observability import stats as module

        return module if hasattr(module, "incr") else module.Stats
    from airflow.stats import Stats  # type: ignore[attr-defined,unused-ignore]

    return Stats


def _stats_factory_by_config() -> Any:
    """Airflow 3.0's and 3.1's choice of metrics logger, made again from the configuration as it is now."""
    conf = airflow_conf()
    if conf.has_option("metrics", "statsd_datadog_enabled") and conf.getboolean(
        "metrics", "statsd_datadog_enabled"
    ):
        from airflow.metrics import datadog_logger  # type: ignore[import-not-found,unused-ignore]

        return datadog_logger.get_dogstatsd_logger
    if conf.getboolean("metrics", "statsd_on"):
        from airflow.metrics import statsd_logger  # type: ignore[import-not-found,unused-ignore]

        return statsd_logger.get_statsd_logger
    if conf.getboolean("metrics", "otel_on"):
        from airflow.metrics import otel_logger  # type: ignore[import-not-found,unused-ignore]

        return otel_logger.get_otel_logger
    from airflow.metrics.base_stats_logger import NoStatsLogger  # type: ignore[import-not-found,unused-ignore]

    return NoStatsLogger


def reinitialize_stats(*, off: bool = False) -> None:
    """Make this process's metrics client again from Airflow's configuration as it is now (``off``: none) — what
    Airflow does once per process; for tests and benchmarks that point it at a listener of their own."""
    if AIRFLOW_V_3_3_PLUS:
        from airflow.sdk._shared.observability.metrics.base_stats_logger import NoStatsLogger
        from airflow.sdk.observability import stats as module
        from airflow.sdk.observability.metrics import stats_utils

        module.initialize(
            factory=NoStatsLogger if off else stats_utils.get_stats_factory(), export_legacy_names=False
        )
    elif AIRFLOW_V_3_2_PLUS:
        from airflow.sdk._shared.observability.metrics.base_stats_logger import NoStatsLogger
        from airflow.sdk.observability.metrics import stats_utils

        client = stats()
        factory = NoStatsLogger if off else stats_utils.get_stats_factory(client)  # type: ignore[call-arg,unused-ignore]
        client.initialize(factory=factory)
    else:
        from airflow.metrics.base_stats_logger import (  # type: ignore[import-not-found,no-redef,unused-ignore]
            NoStatsLogger,
        )

        client = stats()  # the factory lives on the metaclass, the instance it made on the class
        type(client).factory = NoStatsLogger if off else _stats_factory_by_config()
        client.instance = None


# ------------------------------------------------------------------------------------------ OpenLineage


def openlineage_emits_task(operator: Any, dag_id: str, task_id: str) -> bool:
    """Whether the OpenLineage provider emits this task's events: its ``emission_policy`` where it has one, else
    the legacy ``disabled_for_operators`` and ``selective_enable`` checks its listener makes."""
    try:
        from airflow.providers.openlineage.utils.emission_policy import resolve_task_emission_policy
    except ImportError:
        from airflow.providers.openlineage.utils.utils import (
            is_operator_disabled,
            is_selective_lineage_enabled,
        )

        return not is_operator_disabled(operator) and bool(is_selective_lineage_enabled(operator))
    return bool(resolve_task_emission_policy(operator=operator, dag_id=dag_id, task_id=task_id).emit)


def openlineage_root_namespace(ti: Any) -> str:
    """The namespace of the task's root job (a parent DAG's, when one triggered this run); before the provider
    had the macro (2.6.1) the root is this run's DAG, in the provider's own namespace."""
    from airflow.providers.openlineage.plugins import macros

    macro = getattr(macros, "lineage_root_job_namespace", None)
    if macro is not None:
        return str(macro(ti))
    from airflow.providers.openlineage import conf

    return str(conf.namespace())


#: One ``ast.parse`` at a time: on Python 3.11 and 3.12 parses in two threads at once can fail with "AST
#: constructor recursion depth mismatch" (CPython gh-106905), and lineage is emitted from several threads.
_PARSE_LOCK = threading.Lock()


@functools.cache
def _parent_facet_takes_root() -> bool:
    """Whether the provider's ``get_task_parent_run_facet`` takes a root: read from its source, so that asking
    (:func:`features`, in a command-line process) imports nothing of OpenLineage (whose client warns on import)."""
    import ast
    import importlib.util

    module = "airflow.providers.openlineage.utils.utils"
    origin = getattr(importlib.util.find_spec(module), "origin", None) or ""
    try:
        with _PARSE_LOCK:
            tree = ast.parse(Path(origin).read_text("utf-8")) if origin.endswith(".py") else None
    except (OSError, SyntaxError, ValueError):
        tree = None
    for node in tree.body if tree is not None else ():
        if isinstance(node, ast.FunctionDef) and node.name == "get_task_parent_run_facet":
            return "root_parent_run_id" in {arg.arg for arg in [*node.args.args, *node.args.kwonlyargs]}
    from airflow.providers.openlineage.utils.utils import get_task_parent_run_facet

    return "root_parent_run_id" in inspect.signature(get_task_parent_run_facet).parameters


def openlineage_parent_run_facet(ids: Mapping[str, Any], namespace: str) -> dict[str, Any]:
    """The ``parent`` run facet of a task's event, as the provider's listener builds it: with the root the ids name
    where the provider takes one, else the DAG run as its own root (what older listeners send)."""
    from airflow.providers.openlineage.utils.utils import get_task_parent_run_facet

    kwargs: dict[str, Any] = {
        "parent_run_id": ids["parent_run_id"],
        "parent_job_name": ids["parent_job_name"],
        "parent_job_namespace": namespace,
    }
    if _parent_facet_takes_root():
        kwargs.update(
            root_parent_run_id=ids.get("root_run_id"),
            root_parent_job_name=ids.get("root_job_name"),
            root_parent_job_namespace=ids.get("root_namespace"),
        )
    facet: dict[str, Any] = get_task_parent_run_facet(**kwargs)
    return facet


# ------------------------------------------------------------------------------------------ the UI


def has_external_views() -> bool:
    """Whether plugins can add pages to the UI (``external_views``: a tab on a run's page, a nav entry): 3.1+."""
    return AIRFLOW_V_3_1_PLUS


@dataclass(frozen=True)
class Feature:
    """One feature of the provider that depends on the Airflow (or a provider) version."""

    name: str
    available: bool
    #: What the provider does instead when it is not available ("" when it is).
    instead: str

    def to_json(self) -> dict[str, Any]:
        return {"feature": self.name, "available": self.available, "instead": self.instead}


def _openlineage_has(module: str) -> bool | None:
    """Whether the OpenLineage provider has ``module`` (None: no provider), found without importing it."""
    import importlib.util

    try:
        if importlib.util.find_spec("airflow.providers.openlineage") is None:
            return None
        return importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):
        return None


def features() -> list[Feature]:
    """What this installation supports, and what each missing feature degrades to (``preflight``, the docs)."""
    policy = _openlineage_has("airflow.providers.openlineage.utils.emission_policy")
    root = None if policy is None else _parent_facet_takes_root()
    no_provider = "no OpenLineage provider installed: no lineage at all"
    return [
        Feature(
            "Fleet tab on a run's page and nav entry (plugin external_views, Airflow 3.1+)",
            has_external_views(),
            "the Fleet view is a page of its own, /sagemaker-fleet/runs/<dag_id>/<run_id>, linked from the plan "
            "task's 'Fleet view' extra link and from a manual run's note",
        ),
        Feature(
            "the Fleet view reads Airflow's login cookie (Airflow 3.1+)",
            not UI_TOKEN_IN_LOCAL_STORAGE,
            "the page copies the UI's token from the browser's localStorage into a cookie for /sagemaker-fleet only",
        ),
        Feature(
            "airflow dags test registers the DAG's assets (Airflow 3.1+)",
            AIRFLOW_V_3_1_PLUS,
            "run `airflow dags reserialize` before `airflow dags test`: else the cost report task, which emits the "
            "models asset, fails with AirflowInactiveAssetInInletOrOutletException",
        ),
        Feature(
            "the models asset event's cities as a list (Airflow 3.1+)",
            not ALIAS_EVENT_EXTRA_MUST_BE_HASHABLE,
            "its extra's cities is the list's JSON text: read it with "
            "sagemaker_fleet.observability.facets.event_cities",
        ),
        Feature(
            "OpenLineage [openlineage] emission_policy",
            bool(policy),
            no_provider
            if policy is None
            else "the legacy disabled_for_operators and selective_enable settings decide, as the provider's "
            "listener does",
        ),
        Feature(
            "OpenLineage root parent run in a city's events",
            bool(root),
            no_provider if root is None else "the DAG run is the root, as the provider's listener reports it",
        ),
    ]


def alias_event_extra(extra: Mapping[str, Any]) -> dict[str, Any]:
    """``extra`` as an asset event added through an alias may carry it on this Airflow: on 3.0 each list or mapping
    value as its JSON text (:data:`ALIAS_EVENT_EXTRA_MUST_BE_HASHABLE`), unchanged from 3.1."""
    if not ALIAS_EVENT_EXTRA_MUST_BE_HASHABLE:
        return dict(extra)
    import json

    return {
        key: json.dumps(value, sort_keys=True) if isinstance(value, (list, dict)) else value
        for key, value in extra.items()
    }
