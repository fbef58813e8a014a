"""Bounded input in a fleet file (``fleetspec.limits``): its bytes, its YAML nodes with aliases expanded, its cities,
and the values a refusal quotes. Each is refused naming the limit, in bounded memory.

An alias bomb of about a kilobyte under ``job:`` (nine aliases of nine aliases …) ran ``validate`` into a
MemoryError after 46 s: the reader shared the aliased nodes, but the checks after it walked every use. It is now
refused by the reader's node budget. These tests assert the refusal and what it costs in memory
(``tracemalloc``) and nodes; the time it takes is measured, not asserted, by ``benchmarks/bench_input_limits.py``.
"""

from __future__ import annotations

import os
import tracemalloc
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from sagemaker_fleet.cli.main import main
from sagemaker_fleet.fleetspec import FleetSpecError, load_fleet_spec, parse_fleet_spec
from sagemaker_fleet.fleetspec.cache import load_fleet_spec_cached
from sagemaker_fleet.fleetspec.limits import (
    CITIES_MAX,
    MESSAGE_MAX,
    SPEC_BYTES_MAX,
    SPEC_NODES_MAX,
    capped,
    shown,
)
from sagemaker_fleet.hooks.request_model import BOTOCORE_MODEL

HEAD = """\
fleet: bomb
region: us-east-1
role_arn: arn:aws:iam::111122223333:role/FleetTraining
image_uri: 111122223333.dkr.ecr.us-east-1.amazonaws.com/demand:1.4
output_s3_uri: s3://acme-ml/fleets/bomb
quotas:
  ml.m5.xlarge: {instances: 2, warm_pools: 1}
defaults: {instance_type: ml.m5.xlarge}
"""
TAIL = "cities:\n  - {name: lima, train_s3_uri: 's3://acme-ml/data/lima/'}\n"
#: Where in ``job:`` the anchors go, and the first anchored value: each a field botocore's model walks.
PLACES = {
    "metric definitions": (
        "  AlgorithmSpecification:\n    MetricDefinitions:\n",
        "{Name: a, Regex: b}",
        "      ",
    ),
    "tags": ("  Tags:\n", "{Key: a, Value: b}", "    "),
    "channels": (
        "  InputDataConfig:\n",
        "{ChannelName: c, DataSource: {S3DataSource: {S3DataType: S3Prefix, S3Uri: 's3://acme-ml/x/'}}}",
        "    ",
    ),
}


def alias_bomb(place: str = "metric definitions", levels: int = 8) -> str:
    """A spec whose ``job:`` holds a list of ``levels`` items, each nine aliases of the item before it."""
    head, first, indent = PLACES[place]
    items = f"{indent}- &a0 {first}\n" + "".join(
        f"{indent}- &a{i} [{', '.join([f'*a{i - 1}'] * 9)}]\n" for i in range(1, levels + 1)
    )
    return HEAD + "job:\n" + head + items + TAIL


def peak_bytes(call: Callable[[], Any]) -> tuple[Any, int]:
    """``call()``'s outcome (its value or the exception it raised) and the peak of memory it allocated."""
    tracemalloc.start()
    try:
        try:
            outcome: Any = call()
        except Exception as exc:  # noqa: BLE001 - the outcome under test
            outcome = exc
        return outcome, tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


@pytest.mark.parametrize("place", sorted(PLACES))
def test_an_alias_bomb_under_job_is_refused_by_the_node_budget_in_bounded_memory(place: str) -> None:
    text = alias_bomb(place)
    assert len(text.encode()) < 1500  # about a kilobyte, as the review's
    BOTOCORE_MODEL.load()  # the model's own memory is not the bomb's
    error, peak = peak_bytes(lambda: parse_fleet_spec(text, source="bomb.yaml", model=BOTOCORE_MODEL))
    assert isinstance(error, FleetSpecError)
    (issue,) = error.issues
    assert "with its aliases expanded" in issue.message
    assert f"at most {SPEC_NODES_MAX:,} (SPEC_NODES_MAX)" in issue.message
    expanded = int(issue.message.split(" values ")[0].rsplit(" ", 1)[1].replace(",", ""))
    assert expanded > 9**8  # the nodes the aliases stand for: counted, never built
    assert peak < 20 * 1024 * 1024, f"{peak / 1e6:.1f} MB"


def test_the_cli_refuses_the_bomb_with_exit_2_naming_the_limit(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "bomb.yaml"
    path.write_text(alias_bomb())
    assert main(["validate", str(path)]) == 2
    err = capsys.readouterr().err
    assert "SPEC_NODES_MAX" in err
    assert len(err) < 1000


def test_a_bomb_just_under_the_budget_is_refused_by_the_checks_with_short_messages() -> None:
    """Five levels (about 300,000 nodes expanded) pass the budget; the model check refuses the nested lists, each
    message quoting its value in 60 characters — it used to print the ``repr`` of the whole expanded value."""
    text = alias_bomb(levels=5)
    BOTOCORE_MODEL.load()
    error, peak = peak_bytes(lambda: parse_fleet_spec(text, source="bomb.yaml", model=BOTOCORE_MODEL))
    assert isinstance(error, FleetSpecError)
    assert "SPEC_NODES_MAX" not in str(error)
    assert len(error.issues) == 5
    assert all(len(issue.message) < 300 for issue in error.issues), [len(i.message) for i in error.issues]
    assert "structure expected for this value" in error.issues[0].message
    assert peak < 100 * 1024 * 1024, f"{peak / 1e6:.1f} MB"


def test_aliases_a_spec_may_use_are_still_fine() -> None:
    """An anchor for what several cities share stays allowed: its uses count, and they are few."""
    text = HEAD + (
        "cities:\n"
        "  - {name: lima, train_s3_uri: 's3://acme-ml/data/lima/', hyperparameters: &hp {epochs: 20, depth: 6}}\n"
        "  - {name: oslo, train_s3_uri: 's3://acme-ml/data/oslo/', hyperparameters: *hp}\n"
    )
    spec = parse_fleet_spec(text)
    assert spec.city("oslo").hyperparameters == spec.city("lima").hyperparameters


def test_a_file_over_the_byte_budget_is_refused_without_being_read(tmp_path: Path) -> None:
    path = tmp_path / "huge.yaml"
    with path.open("wb") as file:  # sparse: 64 MiB on paper, no disk
        file.truncate(64 * 1024 * 1024)
    for load in (load_fleet_spec, load_fleet_spec_cached):
        error, peak = peak_bytes(lambda load=load: load(path))
        assert isinstance(error, FleetSpecError), error
        assert f"has {64 * 1024 * 1024:,} bytes" in str(error)
        assert f"at most {SPEC_BYTES_MAX:,} (SPEC_BYTES_MAX)" in str(error)
        assert peak < 2 * SPEC_BYTES_MAX + 1024 * 1024  # at most the budget (and one byte) was read


def test_a_device_that_never_ends_is_refused_after_the_budget(tmp_path: Path) -> None:
    if not os.path.exists("/dev/zero"):
        pytest.skip("no /dev/zero here")
    error, peak = peak_bytes(lambda: load_fleet_spec("/dev/zero"))
    assert isinstance(error, FleetSpecError)
    assert "SPEC_BYTES_MAX" in str(error)
    assert peak < 2 * SPEC_BYTES_MAX + 1024 * 1024


def test_text_over_the_byte_budget_is_refused_before_yaml_reads_it() -> None:
    text = "fleet: x\n" + "#" * SPEC_BYTES_MAX
    with pytest.raises(FleetSpecError, match="SPEC_BYTES_MAX"):
        parse_fleet_spec(text)


def test_more_cities_than_the_limit_are_refused_naming_it() -> None:
    text = HEAD + "cities: [" + ", ".join(["{}"] * (CITIES_MAX + 1)) + "]\n"
    with pytest.raises(FleetSpecError) as caught:
        parse_fleet_spec(text)
    assert (
        f"cities (line 9): list should have at most {CITIES_MAX} items after validation, not {CITIES_MAX + 1}"
        in str(caught.value)
    )


def test_a_refusal_quotes_a_value_in_a_bounded_length() -> None:
    assert shown("lima") == "'lima'"
    assert shown("x" * 10_000) == f"{'x' * 60!r}… (10,000 characters)"
    assert len(shown(list(range(100_000)))) < 100
    assert len(shown({"k" * 5000: ["v" * 5000] * 5000})) <= 61
    assert capped("short") == "short"
    long = capped("y" * 1_000_000)
    assert len(long) <= MESSAGE_MAX
    assert long.endswith("more characters)")
