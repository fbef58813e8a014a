"""The SageMaker training instance types: the one list the spec's checks know, and the nearest one to a typo.

Source: the ``TrainingInstanceType`` enum of SageMaker's service model shipped with botocore
(``botocore/data/sagemaker/2017-07-24/service-2.json.gz``), the values CreateTrainingJob accepts for
``ResourceConfig.InstanceType``. It is copied into ``sagemaker_fleet/data/training_instance_types.json`` by
``scripts/training_instance_types.py`` because this layer imports no AWS SDK (docs/contributing/architecture.md);
``tests/unit/fleetspec/test_instance_types.py`` fails when the pinned botocore's enum and the file part.
"""

from __future__ import annotations

import difflib
import json
from functools import cache
from importlib import resources

from sagemaker_fleet.fleetspec.limits import SHOWN_VALUE_MAX, shown


@cache
def training_instance_types() -> frozenset[str]:
    """Every instance type SageMaker Training accepts (read once from the shipped file)."""
    text = resources.files("sagemaker_fleet").joinpath("data/training_instance_types.json").read_text("utf-8")
    return frozenset(json.loads(text)["instance_types"])


def is_training_instance_type(value: str) -> bool:
    return value in training_instance_types()


def nearest_training_instance_type(value: str) -> str | None:
    """The known training instance type closest to ``value`` (``ml.m5.xlarg`` -> ``ml.m5.xlarge``), or None.

    Case, spaces and a missing ``ml.`` (an EC2 name such as ``m5.xlarge``) are forgiven first, so that the
    suggestion is the type meant rather than the one nearest letter by letter (``ml.r5.xlarge``)."""
    probe = value.strip().lower()
    if not probe.startswith("ml."):
        probe = f"ml.{probe}"
    known = training_instance_types()
    if probe in known:
        return probe
    close = difflib.get_close_matches(probe, sorted(known), n=1, cutoff=0.6)
    return close[0] if close else None


def unknown_instance_type(value: str) -> str:
    """The message for ``value`` that is no SageMaker training instance type: the nearest known one as the fix
    (``value`` quoted in at most :data:`~sagemaker_fleet.fleetspec.limits.SHOWN_VALUE_MAX` characters)."""
    nearest = nearest_training_instance_type(value) if len(value) <= SHOWN_VALUE_MAX else None
    fix = (
        f"did you mean {nearest}?"
        if nearest
        else "use a SageMaker training instance type such as ml.m5.xlarge"
    )
    return f"{shown(value)} is not a SageMaker training instance type; {fix}"
