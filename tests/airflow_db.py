"""Seeding Airflow's metadata DB for the tests, on each supported Airflow (the version flags are
:mod:`sagemaker_fleet.compat`'s; these helpers are the tests' own, the provider never writes DAGs to the DB)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from sagemaker_fleet.compat import AIRFLOW_V_3_1_PLUS, AIRFLOW_V_3_2_PLUS

BUNDLE = "dags-folder"


def sync_dag_folder(folder: Path, bundle: str = BUNDLE) -> Any:
    """Parse ``folder`` as the dag-processor does and write its DAGs to the DB (serialized, with a version each);
    the bag, whose ``import_errors`` the caller checks."""
    from airflow.dag_processing.bundles.manager import DagBundlesManager

    DagBundlesManager().sync_bundles_to_db()
    if AIRFLOW_V_3_2_PLUS:
        from airflow.dag_processing.dagbag import BundleDagBag, sync_bag_to_db
    elif AIRFLOW_V_3_1_PLUS:
        from airflow.models.dagbag import BundleDagBag, sync_bag_to_db
    else:  # 3.0: the bag writes itself
        from airflow.models.dagbag import DagBag

        bag = DagBag(dag_folder=str(folder), bundle_path=folder, include_examples=False)
        if not bag.import_errors:
            bag.sync_to_db(bundle, None)
        return bag
    named = {"bundle_name": bundle} if AIRFLOW_V_3_2_PLUS else {}  # 3.1's bag takes no name
    bag = BundleDagBag(dag_folder=str(folder), bundle_path=folder, **named)
    if not bag.import_errors:
        sync_bag_to_db(bag, bundle, None)
    return bag


def latest_dag(dag_id: str, session: Any) -> Any:
    """The DAG's latest serialized version, as the scheduler would create its runs from."""
    if AIRFLOW_V_3_1_PLUS:
        from airflow.models.dagbag import DBDagBag

        return DBDagBag().get_latest_version_of_dag(dag_id, session=session)
    from airflow.models.serialized_dag import SerializedDagModel

    return SerializedDagModel.get_dag(dag_id, session=session)
