"""Advice notes from AWS's warm-pool best practices: File mode, many images in a group, keep-alive beyond need.

Notes are warnings, never errors: the plan still plans, ``validate`` still exits 0 (see tests/unit/cli).
"""

from __future__ import annotations

from sagemaker_fleet.fleetspec.model import InstanceQuota
from sagemaker_fleet.plan import plan_fleet
from sagemaker_fleet.plan.advice import fleet_advice
from unit.plan.plan_fleets import IMAGE, RUN_KEY, city, fleet, spot

QUOTA = {"ml.m5.xlarge": InstanceQuota(instances=4, warm_pools=4)}


def notes_about(word: str, notes: list[str]) -> list[str]:
    return [note for note in notes if word in note]


def test_file_mode_with_warm_pools_gets_the_seed_numbers_and_the_alternative() -> None:
    spec = fleet([city("a"), city("b")], quotas=QUOTA, input_mode="File")
    (note,) = notes_about("input_mode File", fleet_advice(spec))
    for number in ("70 s", "21 s", "19 s"):  # warm P90: File, FastFile, FSx for Lustre
        assert number in note
    assert "FastFile" in note
    assert "FSx for Lustre" in note
    assert note in plan_fleet(spec, RUN_KEY).warnings  # the plan carries it too


def test_file_mode_without_warm_pools_gets_no_file_mode_note() -> None:
    no_quota = {"ml.m5.xlarge": InstanceQuota(instances=4, warm_pools=0)}
    for spec in (
        fleet([city("a"), city("b")], quotas=no_quota, input_mode="File"),
        fleet([city("a", spot=spot()), city("b", spot=spot())], quotas=QUOTA, input_mode="File"),
        fleet([city("a"), city("b")], quotas=QUOTA, input_mode="FastFile"),
    ):
        assert not notes_about("input_mode File", fleet_advice(spec))


def test_a_group_of_mostly_distinct_images_is_told_to_share_one() -> None:
    distinct = [city(f"c{i}", image_uri=f"{IMAGE}-{i}") for i in range(4)] + [city("c4"), city("c5")]
    (note,) = notes_about("distinct images", fleet_advice(fleet(distinct, quotas=QUOTA)))
    assert note.startswith("g0 ")
    assert "5 distinct images among its 6 cities" in note
    assert "34 s" in note


def test_two_images_in_a_group_are_no_reason_for_a_note() -> None:
    two = [city(f"c{i}", image_uri=f"{IMAGE}-{i % 2}") for i in range(8)]
    assert not notes_about("distinct images", fleet_advice(fleet(two, quotas=QUOTA)))


def test_a_keep_alive_far_above_the_hand_off_says_what_it_may_cost_per_pool() -> None:
    cities = [city("a", keep_alive=1800), city("b", keep_alive=1800), city("c", keep_alive=400), city("d")]
    notes = notes_about("keep_alive", fleet_advice(fleet(cities, quotas=QUOTA)))
    assert len(notes) == 1  # 400 s is within twice the 240 s a hand-off needs; auto is never noted
    (note,) = notes
    assert note.startswith("keep_alive 1800 s of a, b ")
    assert "= 240 s" in note
    assert "1560 s more" in note
    assert "$0.10 per pool" in note  # 1560 s × $0.23/h (shipped ml.m5.xlarge price)


def test_a_keep_alive_note_follows_the_orchestration_latency_and_spec_prices() -> None:
    spec = fleet(
        [city("a", keep_alive=1800)],
        quotas=QUOTA,
        orchestration_latency_seconds=600,
        prices={"ml.m5.xlarge": 3.6},
    )
    assert not notes_about("keep_alive", fleet_advice(spec))  # 1800 < 2 × (600 + 600)
    spec = fleet(
        [city("a", keep_alive=3000)],
        quotas=QUOTA,
        orchestration_latency_seconds=600,
        prices={"ml.m5.xlarge": 3.6},
    )
    (note,) = notes_about("keep_alive", fleet_advice(spec))
    assert "1800 s more" in note
    assert "$1.80 per pool" in note


def test_a_fleet_the_planner_cannot_fit_gets_no_advice_and_no_crash() -> None:
    spec = fleet([city("a", instance_type="ml.c5.xlarge", keep_alive=1800)], quotas=QUOTA, input_mode="File")
    assert fleet_advice(spec) == []


def test_a_group_without_warm_pools_is_named_by_its_stores_first_few_and_a_count() -> None:
    """ "g0 run without warm pools" names no store: the warning lists the group's stores in spec order."""
    stores = [city(f"store-{n:03d}") for n in range(1, 13)]
    spec = fleet(stores, quotas={"ml.m5.xlarge": InstanceQuota(instances=4, warm_pools=0)})
    (note,) = [w for w in plan_fleet(spec, RUN_KEY).warnings if "run without warm pools" in w]
    assert (
        "g0 (store-001, store-002, store-003, store-004, store-005 and 7 more) run without warm pools" in note
    )


def test_the_image_note_names_the_groups_stores() -> None:
    distinct = [city(f"c{i}", image_uri=f"{IMAGE}-{i}") for i in range(4)] + [city("c4"), city("c5")]
    (note,) = notes_about("distinct images", fleet_advice(fleet(distinct, quotas=QUOTA)))
    assert note.startswith("g0 (c0, c1, c2, c3, c4 and 1 more), ")


def test_a_long_list_of_keep_alive_cities_ends_with_a_count() -> None:
    cities = [city(f"s{n:02d}", keep_alive=1800) for n in range(8)]
    (note,) = notes_about("keep_alive", fleet_advice(fleet(cities, quotas=QUOTA)))
    assert note.startswith("keep_alive 1800 s of s00, s01, s02, s03, s04 and 3 more is far above")
