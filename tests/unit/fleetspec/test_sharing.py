"""The ``sharing`` block: a share of the account's quotas, a priority and the board; each bad value named by its
field with the fix, and several fleets whose shares add up to more than the account."""

from __future__ import annotations

import pytest

from sagemaker_fleet.fleetspec import FleetSpecError, parse_fleet_spec
from sagemaker_fleet.fleetspec.sharing import shares_over_100
from unit.fleetspec.test_invalid_specs import BASE


def spec_with(sharing: str, fleet: str = "citydemand"):
    text = BASE.replace("fleet: citydemand", f"fleet: {fleet}").replace(
        "cities:\n", f"sharing: {sharing}\ncities:\n"
    )
    return parse_fleet_spec(text)


@pytest.mark.parametrize(
    ("sharing", "share", "priority"),
    [("{share: 40%}", 0.4, 0), ("{share: 25, priority: 9999}", 0.25, 9999), ("{priority: 3}", 0.0, 3)],
)
def test_a_share_is_a_percentage_and_the_board_defaults_to_the_output_bucket(
    sharing: str, share: float, priority: int
) -> None:
    spec = spec_with(sharing)
    assert spec.sharing is not None
    assert (spec.sharing.share, spec.sharing.priority) == (share, priority)
    assert spec.sharing.board == "s3://acme-ml/sagemaker-fleet/board/"


def test_a_fleet_takes_part_unless_its_spec_says_sharing_false() -> None:
    default = parse_fleet_spec(BASE).sharing
    assert default is not None
    assert (default.share, default.priority, default.board) == (0.0, 0, "s3://acme-ml/sagemaker-fleet/board/")
    assert spec_with("true").sharing == spec_with("{}").sharing == default
    assert spec_with("false").sharing is None


@pytest.mark.parametrize("value", ["0", "'no'", "[1]", "off-please"])
def test_sharing_that_is_neither_a_mapping_nor_true_false_names_both_forms(value: str) -> None:
    with pytest.raises(FleetSpecError) as raised:
        spec_with(value)
    (issue,) = raised.value.issues
    assert issue.path == "sharing"
    assert "`sharing: {share: 40%, priority: 10}`" in issue.message
    assert "`sharing: false`" in issue.message


def test_a_bad_output_uri_is_one_error_not_also_the_default_boards() -> None:
    with pytest.raises(FleetSpecError) as raised:
        parse_fleet_spec(BASE.replace("output_s3_uri: s3://acme-ml/", "output_s3_uri: s3://Acme_ML/"))
    assert [issue.path for issue in raised.value.issues] == ["output_s3_uri"]


@pytest.mark.parametrize(
    ("sharing", "path", "words"),
    [
        ("{share: 140%}", "sharing.share", "from 0 to 100"),
        ("{share: half}", "sharing.share", "such as `share: 40%`"),
        ("{share: true}", "sharing.share", "is not a share"),
        ("{priority: urgent}", "sharing.priority", "whole number from 0"),
        ("{priority: -1}", "sharing.priority", "whole number from 0"),
        ("{priority: 10000}", "sharing.priority", "to 9999"),
        ("{board: 'ftp://x'}", "sharing.board", "S3 prefix"),
        ("{shares: 40%}", "sharing.shares", "did you mean `share`?"),
    ],
)
def test_bad_sharing_values_name_the_field_and_the_fix(sharing: str, path: str, words: str) -> None:
    with pytest.raises(FleetSpecError) as caught:
        spec_with(sharing)
    issues = {issue.path: issue.message for issue in caught.value.issues}
    assert list(issues) == [path], issues
    assert words in issues[path]


def test_shares_over_the_whole_account_are_refused_per_board() -> None:
    daily, weekly = spec_with("{share: 60%}", "daily"), spec_with("{share: 50%}", "weekly")
    (problem,) = shares_over_100([daily, weekly, daily])
    assert problem.startswith(
        "sharing.share: the fleets on board s3://acme-ml/sagemaker-fleet/board/ are guaranteed 110%"
    )
    assert "daily 60%, weekly 50%" in problem
    other = spec_with("{share: 50%, board: 's3://elsewhere/board/'}", "weekly")
    assert shares_over_100([daily, other]) == []
    # a fleet given twice (its scheduled and manual runs) counts once
    assert shares_over_100([daily, daily]) == []
