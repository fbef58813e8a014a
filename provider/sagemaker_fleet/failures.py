"""Failures a retry cannot mend, and a task's reading of its fleet file, which raises them.

Each failure is an ``AirflowFailException`` (Airflow fails the task without retrying it) under the package's root,
and keeps the built-in base of the error it stands for (``FleetSpecError`` is a ``ValueError``, an unknown city a
``KeyError``), so existing ``except`` blocks keep catching it. The cause is in the fleet file, the plan or the
task's own arguments: fix it, then clear the task.

A task reads the fleet file through :func:`run_spec` (or :func:`fleet_spec`): the loader is
:func:`~sagemaker_fleet.fleetspec.runspec.load_run_spec`, which knows nothing of Airflow; this module turns what it
raises into the failure a task should end with. The operators, the sensors and the triggers import it; it sits
above :mod:`~sagemaker_fleet.compat` (Airflow's exception) and below them all.

A trigger cannot fail its task without retries itself (Airflow retries a ``TaskFailedEvent`` while tries are left):
the city trigger hands such a failure to its task on a worker, whose ``execute_complete`` raises it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from sagemaker_fleet.compat import AirflowFailException
from sagemaker_fleet.errors import ForeignJobError, SageMakerFleetError
from sagemaker_fleet.fleetspec.errors import FleetSpecError, RunConfError
from sagemaker_fleet.fleetspec.names import InvalidRunKeyError
from sagemaker_fleet.fleetspec.runspec import RunSpec, load_run_spec
from sagemaker_fleet.plan.errors import PlanError, PlanFormatError

if TYPE_CHECKING:
    from sagemaker_fleet.fleetspec.model import CitySpec, FleetSpec


class FleetFailure(SageMakerFleetError, AirflowFailException):
    """A failure no retry can mend (the base of the ones below): the task fails without its retries."""


class UnusableSpecError(FleetSpecError, FleetFailure):
    """The fleet file (or the run's params applied to it) is invalid: a retry would read the same file."""


class RefusedConfError(RunConfError, FleetFailure):
    """The run's conf breaks a fleet DAG's contract (an unknown key, a blank or repeated city, past a limit: its
    message says which): nothing is launched, and a retry would read the same conf."""


class UnknownCityError(FleetFailure, KeyError):
    """The task names a city the fleet file does not have."""

    def __str__(self) -> str:  # KeyError's own would quote the message
        return str(self.args[0]) if self.args else ""


class UnplannableFleetError(PlanError, FleetFailure):
    """The fleet cannot be planned as its file stands (a quota smaller than one city's job, say)."""


class UnfitPlanError(FleetFailure, ValueError):
    """The run's plan cannot be used: the plan task published none, it does not read, it does not fit the fleet
    file (another fleet's, or a city or group the file no longer has), or where to read it is not known."""


class TriggerContextError(FleetFailure, ValueError):
    """A city trigger was given no run key (the training operator takes it from its task's context)."""


class CityCannotTrainError(FleetFailure):
    """A city's trigger ended with a failure no retry can mend (its message says which)."""


#: Errors whose cause a retry would meet again; a trigger reports them as such (:func:`retry_cannot_help`).
LASTING: tuple[type[BaseException], ...] = (
    AirflowFailException,
    FleetSpecError,
    InvalidRunKeyError,
    PlanError,
    PlanFormatError,
    ForeignJobError,
)


def retry_cannot_help(exc: BaseException) -> bool:
    """Whether ``exc`` would happen again on a retry (:data:`LASTING`); not a fleet file that could not be read
    (a volume or a DAG bundle not there yet may be by the retry)."""
    if isinstance(exc, FleetSpecError) and isinstance(exc.__cause__, OSError):
        return False
    return isinstance(exc, LASTING)


def run_spec(path: str, params: Mapping[str, Any] | None = None, *, use_params: bool = False) -> RunSpec:
    """This run's spec (:func:`~sagemaker_fleet.fleetspec.runspec.load_run_spec`) for a task;
    :class:`RefusedConfError` when the run's conf breaks the fleet DAG's contract, :class:`UnusableSpecError` when
    the fleet file is invalid (one that cannot be read is raised as it is: a retry may read it). What the fleet says
    of the conf (a city it does not have) comes from :attr:`RunSpec.spec`, as the task decides."""
    try:
        return load_run_spec(path, params, use_params=use_params)
    except RunConfError as exc:
        raise refused(exc) from None
    except FleetSpecError as exc:
        if not retry_cannot_help(exc):
            raise
        raise unusable(exc) from exc


def fleet_spec(path: str) -> FleetSpec:
    """The fleet file at ``path`` as :func:`run_spec` reads it, without the run's params."""
    return run_spec(path).fleet


def unusable(exc: FleetSpecError) -> UnusableSpecError:
    """``exc`` as the failure it is for a task: one no retry can mend."""
    return exc if isinstance(exc, UnusableSpecError) else UnusableSpecError(list(exc.issues), exc.source)


def refused(exc: RunConfError) -> RefusedConfError:
    """``exc`` as the failure it is for a task: one no retry can mend, with the same message."""
    return exc if isinstance(exc, RefusedConfError) else RefusedConfError(list(exc.issues))


def fleet_city(spec: FleetSpec, city: str) -> CitySpec:
    """``city`` of ``spec``; :class:`UnknownCityError` when the fleet file does not have it."""
    try:
        return spec.city(city)
    except KeyError:
        known = ", ".join(c.name for c in spec.cities)
        raise UnknownCityError(f"fleet {spec.fleet!r} has no city {city!r} (its cities: {known})") from None
