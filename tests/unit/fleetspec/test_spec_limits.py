"""Rules a SageMaker request would be refused or stopped for, and magnitudes no plan can use: each names the
field, the YAML line and the fix."""

from __future__ import annotations

import pytest

from sagemaker_fleet.fleetspec import FleetSpecError, parse_fleet_spec
from sagemaker_fleet.fleetspec.crossfield import count_vs_quota, expected_vs_limits, output_uri_length
from sagemaker_fleet.fleetspec.model import InstanceQuota

BASE = """\
fleet: limits
region: us-east-1
role_arn: arn:aws:iam::111122223333:role/FleetTraining
image_uri: 111122223333.dkr.ecr.us-east-1.amazonaws.com/demand:1.4
output_s3_uri: s3://acme-ml/fleets/limits
quotas:
  ml.m5.xlarge: {instances: 4, warm_pools: 2, spot_instances: 2}
defaults:
  instance_type: ml.m5.xlarge
  max_runtime_seconds: 7200
cities:
  - name: seoul
    train_s3_uri: s3://acme-ml/data/seoul/
  - name: perth
    train_s3_uri: s3://acme-ml/data/perth/
    spot: {max_wait_seconds: 10800}
"""
SEOUL = "    train_s3_uri: s3://acme-ml/data/seoul/\n"


def issues(text: str) -> dict[str, str]:
    with pytest.raises(FleetSpecError) as info:
        parse_fleet_spec(text, source="fleet.yaml")
    return {issue.path: str(issue) for issue in info.value.issues}


def test_the_base_is_valid() -> None:
    assert len(parse_fleet_spec(BASE).cities) == 2


@pytest.mark.parametrize(
    ("edit", "path", "fragment"),
    [
        (
            (SEOUL, SEOUL + "    expected_seconds: 3000\n    max_runtime_seconds: 600\n"),
            "cities[0].expected_seconds",
            "(line 14): expected_seconds 3000 (at cities[0].expected_seconds) is over max_runtime_seconds 600",
        ),
        (
            (SEOUL, SEOUL + "    expected_seconds: 1000000000000\n"),
            "cities[0].expected_seconds",
            "over 28 days",
        ),
        # a default duration too long for one city's own runtime is reported on the city
        (
            (
                "  max_runtime_seconds: 7200\n",
                "  max_runtime_seconds: 7200\n  expected_seconds: 5000\n  instance_count: 1\n",
            ),
            None,
            None,
        ),
        ((SEOUL, SEOUL + "    max_runtime_seconds: 4000\n"), None, None),
        (
            (SEOUL, SEOUL + "    instance_count: 5\n"),
            "cities[0].instance_count",
            "instance_count 5 is over quotas[ml.m5.xlarge].instances 4",
        ),
        (
            ("{max_wait_seconds: 10800}", "{max_wait_seconds: 10800}\n    instance_count: 3"),
            "cities[1].instance_count",
            "over quotas[ml.m5.xlarge].spot_instances 2",
        ),
        (("spot_instances: 2", "spot_instances: 0"), "cities[1].spot", "spot_instances is 0"),
        (
            ("instances: 4,", "instances: 100001,"),
            "quotas[ml.m5.xlarge].instances",
            "less than or equal to 100000",
        ),
        (
            ("region: us-east-1\n", "region: us-east-1\norchestration_latency_seconds: 86401\n"),
            "orchestration_latency_seconds",
            "less than or equal to 86400",
        ),
        (
            ("region: us-east-1\n", "region: us-east-1\ndeadline_seconds: 100000000000\n"),
            "deadline_seconds",
            "less than or equal to 31622400",
        ),
        (
            ("region: us-east-1\n", "region: us-east-1\nprices: {ml.m5.xlarge: .inf}\n"),
            "prices[ml.m5.xlarge]",
            "finite number",
        ),
        (
            ("region: us-east-1\n", "region: us-east-1\nprices: {ml.m5.xlarge: 20000}\n"),
            "prices[ml.m5.xlarge]",
            "≤ 10000",
        ),
        (
            (SEOUL, SEOUL + "    hyperparameters: {lr: .nan}\n"),
            "cities[0].hyperparameters[lr]",
            "finite number",
        ),
        (
            (SEOUL, SEOUL + '    hyperparameters: {note: "two\\nlines"}\n'),
            "cities[0].hyperparameters[note]",
            "line break",
        ),
        (
            (SEOUL, SEOUL + '    hyperparameters: {"a\\u2028b": 1}\n'),
            "cities[0].hyperparameters[a\u2028b]",
            "line break",
        ),
        (
            ("s3://acme-ml/data/seoul/", "s3://acme-ml/" + "d" * 1020),
            "cities[0].train_s3_uri",
            "at most 1024",
        ),
        (("s3://acme-ml/fleets/limits", "s3://acme-ml/" + "p" * 1000), "output_s3_uri", "checkpoint URI"),
    ],
)
def test_limit_is_refused_with_field_line_and_fix(
    edit: tuple[str, str], path: str | None, fragment: str | None
) -> None:
    old, new = edit
    assert BASE.count(old) == 1
    text = BASE.replace(old, new)
    if path is None:  # a default within limits for every city: valid
        parse_fleet_spec(text)
        return
    found = issues(text)
    assert list(found) == [path], found
    assert fragment in found[path]


def test_default_expected_seconds_over_a_citys_runtime_is_reported_on_that_city() -> None:
    text = BASE.replace(
        "  max_runtime_seconds: 7200\n", "  max_runtime_seconds: 7200\n  expected_seconds: 5000\n"
    )
    text = text.replace(SEOUL, SEOUL + "    max_runtime_seconds: 3600\n")
    found = issues(text)
    assert list(found) == ["cities[0].max_runtime_seconds"]
    assert (
        "expected_seconds 5000 (at defaults.expected_seconds) is over max_runtime_seconds 3600"
        in found["cities[0].max_runtime_seconds"]
    )


def test_implicit_expected_seconds_never_exceeds_the_runtime() -> None:
    spec = parse_fleet_spec(BASE.replace(SEOUL, SEOUL + "    max_runtime_seconds: 600\n"))
    assert spec.city("seoul").expected_seconds == 600  # not the 1200 s default, which SageMaker would stop
    assert spec.city("perth").expected_seconds == 1200


def test_spot_max_wait_below_the_expected_duration_is_refused() -> None:
    """A spot job must fit MaxWait: expected ≤ max_runtime ≤ max_wait, each pair a rule."""
    text = BASE.replace("{max_wait_seconds: 10800}", "{max_wait_seconds: 1000}\n    expected_seconds: 2000")
    found = issues(text)
    assert list(found) == ["cities[1].spot.max_wait_seconds"]
    assert "below max_runtime_seconds 7200" in found["cities[1].spot.max_wait_seconds"]


def test_the_pure_rules() -> None:
    assert expected_vs_limits((600, "a"), (600, "b")) == []
    assert expected_vs_limits((601, "defaults.x"), (600, "cities[1].y"))[0][0] == "cities[1].y"
    assert count_vs_quota("t", (4, "c"), InstanceQuota(4, 0), spot=False, spot_at="s") == []
    assert count_vs_quota("t", (3, "c"), InstanceQuota(4, 0, 2), spot=True, spot_at="s")[0][0] == "c"
    assert (
        count_vs_quota("t", (3, "c"), InstanceQuota(4, 0), spot=True, spot_at="s") == []
    )  # shares instances
    assert output_uri_length("s3://b/" + "x" * 780, "c" * 200) == []
    assert output_uri_length("s3://b/" + "x" * 800, "c" * 200)[0][0] == "output_s3_uri"
