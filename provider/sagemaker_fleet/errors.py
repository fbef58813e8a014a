"""The root of every error sagemaker-fleet raises, so that a user can catch them all in one ``except``.

It imports nothing, so any layer can derive from it. Each error keeps the built-in base it had before (``ValueError``
for bad input, ``RuntimeError`` for a failed call, Airflow's ``AirflowFailException`` where a retry cannot help),
so existing ``except ValueError`` blocks keep working.

    from sagemaker_fleet import SageMakerFleetError

    try:
        spec = load_fleet_spec("fleet.yaml")
    except SageMakerFleetError as exc:
        ...
"""

from __future__ import annotations


class SageMakerFleetError(Exception):
    """Base class of the errors sagemaker-fleet raises (the simulator's and the test helpers' included)."""
