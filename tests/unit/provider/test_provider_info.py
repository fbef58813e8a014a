"""get_provider_info() lists what the package has: every operator, sensor, trigger, hook and extra link, found by
importing the package's modules (not by reading the list back)."""

from __future__ import annotations

import importlib
import inspect
import pkgutil
from importlib.metadata import entry_points

import sagemaker_fleet
from sagemaker_fleet.get_provider_info import get_provider_info


def _is_a_base(cls: type, kind: str) -> bool:
    """A class the package's own classes of its kind derive from (``FleetAwsTrigger``): a base to build on, not one
    to use. A subclass elsewhere (the pilot's hook that records its calls, in ``cli``) does not make it one."""
    return any(sub.__module__.startswith(f"sagemaker_fleet.{kind}.") for sub in cls.__subclasses__())


def _defining(kind: str, base: type) -> set[str]:
    """Modules of ``sagemaker_fleet.<kind>`` that define a public subclass of ``base`` (not only bases of others)."""
    package = importlib.import_module(f"sagemaker_fleet.{kind}")
    # every module first: a base is known as one by its subclasses, which may live in modules listed after it
    modules = [
        importlib.import_module(f"{package.__name__}.{info.name}")
        for info in pkgutil.iter_modules(package.__path__)
    ]
    found = set()
    for module in modules:
        if any(
            issubclass(obj, base)
            and obj.__module__ == module.__name__
            and not name.startswith("_")
            and not _is_a_base(obj, kind)
            for name, obj in inspect.getmembers(module, inspect.isclass)
        ):
            found.add(module.__name__)
    return found


def _listed(section: str) -> set[str]:
    return {module for entry in get_provider_info()[section] for module in entry["python-modules"]}


def test_every_operator_sensor_trigger_and_hook_module_is_listed() -> None:
    from airflow.providers.amazon.aws.hooks.base_aws import AwsGenericHook
    from airflow.sdk import (
        BaseOperator,
        BaseSensorOperator,
    )  # the Task SDK's (3.0's models.BaseOperator is not)
    from airflow.triggers.base import BaseTrigger

    operators = _defining("operators", BaseOperator)
    assert operators >= {
        "sagemaker_fleet.operators.plan",
        "sagemaker_fleet.operators.cities",
        "sagemaker_fleet.operators.training",
        "sagemaker_fleet.operators.report",
        "sagemaker_fleet.operators.outcome",
        "sagemaker_fleet.operators.release",
        "sagemaker_fleet.operators.notify",
    }
    assert _listed("operators") == operators
    assert _listed("sensors") == _defining("sensors", BaseSensorOperator)
    assert _listed("triggers") == _defining("triggers", BaseTrigger)
    assert _listed("hooks") == _defining("hooks", AwsGenericHook)


def test_every_extra_link_is_listed() -> None:
    from airflow.sdk import BaseOperatorLink

    links = {
        f"{cls.__module__}.{cls.__qualname__}"
        for _, cls in inspect.getmembers(
            importlib.import_module("sagemaker_fleet.links.fleet"), inspect.isclass
        )
        if issubclass(cls, BaseOperatorLink)
        and cls.__module__ == "sagemaker_fleet.links.fleet"
        and not cls.__name__.startswith("_")  # a private base of links, not a link
    }
    assert set(get_provider_info()["extra-links"]) == links


def test_the_entry_point_gives_this_provider_info() -> None:
    (point,) = [
        p for p in entry_points(group="apache_airflow_provider") if p.value.startswith("sagemaker_fleet")
    ]
    info = point.load()()
    assert info["package-name"] == "airflow-provider-sagemaker-fleet"
    assert info["versions"] == [sagemaker_fleet.__version__]
