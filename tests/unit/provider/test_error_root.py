"""Every error the package defines derives from ``SageMakerFleetError``, so one ``except`` catches them all, and
keeps the built-in base callers already catch (``ValueError`` for bad input, ``RuntimeError`` for failed calls)."""

from __future__ import annotations

import importlib
import inspect
import pkgutil

import pytest

import sagemaker_fleet
from sagemaker_fleet import SageMakerFleetError
from sagemaker_fleet.compat import AirflowFailException
from sagemaker_fleet.fleetspec.errors import FleetSpecError
from sagemaker_fleet.plan.errors import PlanError

#: Not raised to a caller: the simulator's HTTP server turns these into AWS-shaped error responses.
SERVER_INTERNAL = {"sagemaker_fleet.sim.errors.SimApiError", "sagemaker_fleet.sim.server.admin.AdminError"}


def package_errors() -> dict[str, type[BaseException]]:
    found: dict[str, type[BaseException]] = {}
    for module_info in pkgutil.walk_packages(sagemaker_fleet.__path__, "sagemaker_fleet."):
        module = importlib.import_module(module_info.name)
        for name, value in vars(module).items():
            if (
                inspect.isclass(value)
                and issubclass(value, BaseException)
                and value.__module__ == module.__name__
                and not name.startswith("_")
            ):
                found[f"{module.__name__}.{name}"] = value
    return found


def test_the_walk_finds_the_errors_it_should() -> None:
    errors = package_errors()
    assert len(errors) >= 19
    for name in (
        "sagemaker_fleet.fleetspec.errors.FleetSpecError",
        "sagemaker_fleet.errors.ForeignJobError",
        "sagemaker_fleet.cost.errors.PriceListError",
        *SERVER_INTERNAL,
    ):
        assert name in errors


def test_every_public_error_derives_from_the_root() -> None:
    errors = package_errors()
    outside = sorted(
        name
        for name, cls in errors.items()
        if not issubclass(cls, SageMakerFleetError) and name not in SERVER_INTERNAL
    )
    assert outside == []


@pytest.mark.parametrize(
    ("name", "base"),
    [
        ("sagemaker_fleet.fleetspec.errors.FleetSpecError", ValueError),
        ("sagemaker_fleet.fleetspec.names.InvalidRunKeyError", ValueError),
        ("sagemaker_fleet.plan.errors.PlanFormatError", ValueError),
        ("sagemaker_fleet.plan.errors.HistoryError", ValueError),
        ("sagemaker_fleet.hooks.fleet.CapacityUnavailableError", RuntimeError),
        ("sagemaker_fleet.errors.ForeignJobError", RuntimeError),
        ("sagemaker_fleet.operators.plan.PlanMismatchError", AirflowFailException),
        ("sagemaker_fleet.operators.plan.RefusedParamsError", AirflowFailException),
        ("sagemaker_fleet.failures.FleetFailure", AirflowFailException),
        ("sagemaker_fleet.failures.UnusableSpecError", AirflowFailException),
        ("sagemaker_fleet.failures.UnusableSpecError", FleetSpecError),
        ("sagemaker_fleet.failures.UnknownCityError", AirflowFailException),
        ("sagemaker_fleet.failures.UnknownCityError", KeyError),
        ("sagemaker_fleet.failures.UnplannableFleetError", AirflowFailException),
        ("sagemaker_fleet.failures.UnplannableFleetError", PlanError),
        ("sagemaker_fleet.failures.UnfitPlanError", AirflowFailException),
        ("sagemaker_fleet.failures.UnfitPlanError", ValueError),
        ("sagemaker_fleet.failures.TriggerContextError", AirflowFailException),
        ("sagemaker_fleet.failures.TriggerContextError", ValueError),
        ("sagemaker_fleet.failures.CityCannotTrainError", AirflowFailException),
    ],
)
def test_each_keeps_the_base_callers_catch(name: str, base: type[BaseException]) -> None:
    assert issubclass(package_errors()[name], base)
