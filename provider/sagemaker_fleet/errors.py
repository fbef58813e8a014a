"""The root of every error sagemaker-fleet raises, so that a user can catch them all in one ``except``.

It imports nothing, so any layer can derive from it. Each error also derives from the built-in that says its kind
(``ValueError`` for bad input, ``RuntimeError`` for a failed call, Airflow's ``AirflowFailException`` where a retry
cannot help), so an ``except ValueError`` catches it too.

    from sagemaker_fleet import SageMakerFleetError

    try:
        spec = load_fleet_spec("fleet.yaml")
    except SageMakerFleetError as exc:
        ...
"""

from __future__ import annotations


class SageMakerFleetError(Exception):
    """Base class of the errors sagemaker-fleet raises (the simulator's and the test helpers' included)."""


class ForeignJobError(SageMakerFleetError, RuntimeError):
    """A training job of the requested name exists but its ownership tags say it is not this fleet's city and run
    (another fleet, or a job made by hand): it is never attached to. (Defined here, not beside the hook that raises
    it, so that code which only catches it does not import boto3.)"""
