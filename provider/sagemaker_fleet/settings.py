"""The provider's settings: the ``[sagemaker_fleet]`` section of Airflow's configuration.

Declared in the provider info (``airflow config list`` shows them) and read through Airflow's ``conf``, so they
can be set in ``airflow.cfg`` or as ``AIRFLOW__SAGEMAKER_FLEET__<OPTION>``. ``build_fleet_dag`` reads them when
the DAG file is parsed; an argument passed to it wins.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sagemaker_fleet.contract import CAPACITY_RETRY_SECONDS, POLL_INTERVAL

SECTION = "sagemaker_fleet"


@dataclass(frozen=True)
class Option:
    name: str
    type: str  # "float", "boolean" or "string", as the provider-info schema spells it
    default: str | None
    description: str
    example: str | None = None

    @property
    def env(self) -> str:
        return f"AIRFLOW__{SECTION.upper()}__{self.name.upper()}"


OPTIONS: dict[str, Option] = {
    option.name: option
    for option in (
        Option(
            "poll_interval",
            "float",
            None,
            "Real seconds between the run poller's sweeps of SageMaker (the training tasks' poll_interval; at "
            f"most 10 while a city waits for its turn). Unset: {POLL_INTERVAL:g} s of the endpoint's clock — "
            f"{POLL_INTERVAL:g} s against AWS, {POLL_INTERVAL:g} simulated seconds against the sped-up simulator "
            "(sagemaker-fleet sim serve --speed), which announces its speed.",
            example="30",
        ),
        Option(
            "capacity_retry_seconds",
            "float",
            f"{CAPACITY_RETRY_SECONDS:g}",
            "Base back-off of a training task whose CreateTrainingJob was refused with ResourceLimitExceeded "
            "(doubling up to 900 s).",
        ),
        Option(
            "report_dir",
            "string",
            None,
            "Local folder where cost_report writes its files ({report_dir}/{run_key}/); a temporary folder "
            "when unset. The files are uploaded to S3 either way.",
        ),
        Option(
            "fleet_view",
            "boolean",
            "True",
            "Serve the Fleet tab on DAG-run pages and the fleet runs list in the api-server (the "
            "sagemaker_fleet plugin); False adds neither route nor tab.",
            example="False",
        ),
    )
}


def get(name: str) -> str | None:
    """The option's value: ``AIRFLOW__SAGEMAKER_FLEET__<OPTION>`` or airflow.cfg, else the default."""
    option = OPTIONS[name]
    from airflow.configuration import conf

    value = conf.get(SECTION, name, fallback=option.default)
    return value if value not in ("", None) else option.default


def get_bool(name: str) -> bool:
    value = (get(name) or "").strip().lower()
    if value in ("true", "t", "1", "yes", "on"):
        return True
    if value in ("false", "f", "0", "no", "off"):
        return False
    raise ValueError(f"[{SECTION}] {name} must be True or False, not {value!r} (set {OPTIONS[name].env})")


def get_float(name: str) -> float:
    value = get(name)
    if value is None:
        raise ValueError(f"[{SECTION}] {name} has no value")
    return _float(name, value)


def get_float_or_none(name: str) -> float | None:
    """The option as a number, None when it is unset (an option whose default is decided at run time)."""
    value = get(name)
    return None if value is None else _float(name, value)


def _float(name: str, value: str) -> float:
    try:
        return float(value)
    except ValueError:
        source = OPTIONS[name].env
        raise ValueError(
            f"[{SECTION}] {name} must be a number of seconds, not {value!r} (set {source})"
        ) from None


def provider_config() -> dict[str, Any]:
    """The ``config`` entry of the provider info."""
    return {
        SECTION: {
            "description": "sagemaker-fleet: how the fleet DAGs poll SageMaker, back off and write reports, and "
            "whether the api-server shows the Fleet view.",
            "options": {
                option.name: {
                    "description": option.description,
                    "version_added": "0.1.0",
                    "type": option.type,
                    "example": option.example,
                    "default": option.default,
                }
                for option in OPTIONS.values()
            },
        }
    }
