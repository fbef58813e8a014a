"""Checks a user's CI can run over their own DAG folder in one line (see :func:`assert_dag_folder_ok`)."""

from __future__ import annotations

from sagemaker_fleet.testing.dag_integrity import DagFolderReport, assert_dag_folder_ok, check_dag_folder

__all__ = ["DagFolderReport", "assert_dag_folder_ok", "check_dag_folder"]
