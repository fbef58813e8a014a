"""A run's conf is a contract on every fleet DAG (``fleetspec.runconf``): exactly ``cities``, ``spot``,
``instance_type`` and ``dry_run``; anything else refused naming the key, before anything is planned or launched;
a refusal's message bounded whatever was sent.

Each case here trained the whole fleet before: an unknown key was dropped in silence, ``" , "`` and ``[]`` both
meant every city, ``"dry_run": "false"`` was a dry run and ``0`` a real one, and a 200,000-city conf was echoed in
full by every task and by the Fleet view.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from sagemaker_fleet.fleetspec import load_fleet_spec
from sagemaker_fleet.fleetspec.errors import FleetSpecError, RunConfError
from sagemaker_fleet.fleetspec.limits import CITIES_MAX, CITY_NAME_MAX, CONF_BYTES_MAX, MESSAGE_MAX
from sagemaker_fleet.fleetspec.overrides import FleetOverrides, apply_overrides
from sagemaker_fleet.fleetspec.runconf import CONF_KEYS, RunConf, parse_run_conf

SMALL = Path(__file__).resolve().parents[3] / "dags" / "fleets" / "small.yaml"


@pytest.fixture(scope="module")
def small():
    return load_fleet_spec(SMALL)


def refusal(conf: object) -> str:
    with pytest.raises(RunConfError) as caught:
        parse_run_conf(conf)  # type: ignore[arg-type]
    assert isinstance(caught.value, FleetSpecError)  # every task's `except FleetSpecError` sees it
    text = str(caught.value)
    assert text.startswith("the run's conf is refused: ")
    assert "\n" not in text
    assert len(text) <= MESSAGE_MAX
    return text


def test_the_documented_keys_are_read() -> None:
    conf = parse_run_conf(
        {"cities": ["lima", "oslo"], "spot": False, "instance_type": "ml.m5.2xlarge", "dry_run": True}
    )
    assert conf == RunConf(FleetOverrides(("lima", "oslo"), False, "ml.m5.2xlarge"), dry_run=True)
    assert set(CONF_KEYS) == {"cities", "spot", "instance_type", "dry_run"}


@pytest.mark.parametrize(
    "conf",
    [
        None,
        {},
        {"cities": [], "spot": True, "instance_type": None, "dry_run": False},
        {"cities": None},
        {"cities": ""},
    ],
)
def test_an_empty_conf_or_the_forms_defaults_ask_nothing(conf: object) -> None:
    parsed = parse_run_conf(conf)  # type: ignore[arg-type]
    assert parsed.empty
    assert parsed.to_json() == {}


@pytest.mark.parametrize(
    ("key", "hint"),
    [
        ("citys", "did you mean `cities`?"),
        ("dryrun", "did you mean `dry_run`?"),
        ("role_arn", "a fleet DAG's conf takes `cities`, `spot`, `instance_type`, `dry_run` only"),
        ("image_uri", "a fleet DAG's conf takes `cities`, `spot`, `instance_type`, `dry_run` only"),
        ("output_s3_uri", "a fleet DAG's conf takes `cities`, `spot`, `instance_type`, `dry_run` only"),
        ("job", "a fleet DAG's conf takes `cities`, `spot`, `instance_type`, `dry_run` only"),
    ],
)
def test_an_unknown_key_is_refused_naming_it(key: str, hint: str) -> None:
    text = refusal({key: ["lima"], "dry_run": True})
    assert f"params.{key}: unknown key; {hint}" in text


def test_many_unknown_keys_are_named_five_then_counted() -> None:
    conf = {f"key{i}": "x" * 100 for i in range(1000)}
    text = refusal(conf)
    assert text.count("unknown key;") == 5
    assert "995 more unknown keys" in text


def test_a_long_unknown_key_is_quoted_cut() -> None:
    text = refusal({"k" * 100_000: 1})
    assert "(100,000 characters)" in text
    assert len(text) < 400


@pytest.mark.parametrize(
    ("cities", "fragment"),
    [
        (" , ", "a blank name (item 1 of 2)"),
        ("   ", "a blank name (item 1 of 1)"),
        ("lima,,oslo", "a blank name (item 2 of 3)"),
        ("lima,oslo,", "a blank name (item 3 of 3)"),
        (["lima", ""], "a blank name (item 2 of 2)"),
        (["lima", " "], "a blank name (item 2 of 2)"),
        (["lima", "lima"], "named more than once: 'lima'; name each city once"),
        ("lima, oslo, lima", "named more than once: 'lima'"),
        (["lima", 7], "7 is not a name"),
        (["lima", None], "None is not a name"),
        (42, "42 is not a list of names"),
        ({"lima": True}, "is not a list of names"),
        (["x" * (CITY_NAME_MAX + 1)], f"is longer than a city's name may be ({CITY_NAME_MAX} characters)"),
    ],
)
def test_blank_repeated_or_malformed_cities_are_refused(cities: object, fragment: str) -> None:
    assert fragment in refusal({"cities": cities})
    assert "params.cities" in refusal({"cities": cities})


def test_more_cities_than_any_fleet_has_are_refused_before_each_is_read() -> None:
    names = [f"c{i}" for i in range(CITIES_MAX + 1)]
    assert f"more than {CITIES_MAX:,} cities (CITIES_MAX)" in refusal({"cities": names})
    assert f"more than {CITIES_MAX:,} cities (CITIES_MAX)" in refusal({"cities": ",".join(names)})


def test_a_conf_over_the_byte_budget_is_refused_by_its_size_alone() -> None:
    """The review's 4.5 MB conf: refused by its size, in one line; nothing of it is echoed."""
    conf = {"cities": [f"unknown-city-{i:06d}" for i in range(200_000)], "dry_run": True}
    size = len(json.dumps(conf).encode())
    assert size > 4_000_000
    text = refusal(conf)
    assert (
        f"the conf has {size:,} bytes of JSON; a fleet DAG takes at most {CONF_BYTES_MAX:,} (CONF_BYTES_MAX)"
        in text
    )
    assert "unknown-city" not in text
    assert len(text) < 300


@pytest.mark.parametrize("key", ["dry_run", "spot"])
@pytest.mark.parametrize("value", ["yes", "false", "true", 0, 1, None, [True]])
def test_a_switch_that_is_not_true_or_false_is_refused(key: str, value: object) -> None:
    assert f"params.{key}: " in refusal({key: value})
    assert "give true or false" in refusal({key: value})


def test_an_instance_type_must_be_text() -> None:
    assert "params.instance_type: 5 is not an instance type" in refusal({"instance_type": 5})
    assert parse_run_conf({"instance_type": ""}).overrides.instance_type is None


def test_a_conf_that_is_no_mapping_is_refused() -> None:
    assert "the conf is ['lima']; give a JSON object of `cities`" in refusal(["lima"])


def test_every_problem_is_named_at_once() -> None:
    text = refusal({"citys": ["lima"], "dry_run": "yes", "cities": "lima,lima"})
    assert "params.citys: unknown key" in text
    assert "params.dry_run" in text
    assert "named more than once: 'lima'" in text


def test_only_the_known_keys_that_differ_from_their_defaults_travel() -> None:
    conf = parse_run_conf({"cities": "lima, oslo", "spot": True, "instance_type": None, "dry_run": True})
    assert conf.to_json() == {"cities": ["lima", "oslo"], "dry_run": True}
    assert parse_run_conf(conf.to_json()) == conf  # read back the same
    everything = parse_run_conf(
        {"cities": ["lima"], "spot": False, "instance_type": "ml.m5.xlarge", "dry_run": False}
    )
    assert parse_run_conf(everything.to_json()) == everything


# ------------------------------------------------------------------ what the fleet says of the conf (overrides)


def test_more_cities_than_the_fleet_has_are_refused_naming_its_size(small) -> None:
    names = [f"c{i}" for i in range(len(small.cities) + 1)]
    with pytest.raises(RunConfError) as caught:
        apply_overrides(small, FleetOverrides(cities=tuple(names)))
    assert "13 cities named; fleet small has 12: name at most 12" in str(caught.value)


def test_unknown_cities_are_named_five_then_counted(small) -> None:
    names = ("lima", *(f"atlantis-{i}" for i in range(11)))
    with pytest.raises(RunConfError) as caught:
        apply_overrides(small, FleetOverrides(cities=names))
    text = str(caught.value)
    assert (
        "unknown cities 'atlantis-0', 'atlantis-1', 'atlantis-2', 'atlantis-3', 'atlantis-4' and 6 more"
        in text
    )
    assert "atlantis-5" not in text
    assert len(caught.value.issues) == 1


def test_one_unknown_city_is_named(small) -> None:
    with pytest.raises(RunConfError, match="unknown city 'atlantis'; pick cities of fleet small"):
        apply_overrides(small, FleetOverrides(cities=("atlantis", "lima")))


def test_a_long_unknown_instance_type_is_quoted_cut(small) -> None:
    with pytest.raises(RunConfError) as caught:
        apply_overrides(small, FleetOverrides(instance_type="ml." + "m" * 50_000))
    assert "(50,003 characters) is not a SageMaker training instance type" in str(caught.value)
    assert len(str(caught.value)) < 400
